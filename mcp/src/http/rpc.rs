//! `POST /rpc`: JSON-RPC 2.0 whose methods are the verbs, beside MCP on the same server.
//!
//! Each request is read as raw JSON first, so a numeric `id` beyond 64 bits is echoed as written,
//! and a verb's JSON answer is carried as written (`RawValue`), so its keys keep the answer's
//! order.

use drsg_query::verbs::Failure;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Body, State, empty, json_response, json_text_response, read_body, rpc_error};

/// JSON-RPC 2.0 over `POST /rpc`: methods are the verbs, params their arguments (an object). The
/// result is `{found, answer}`: the verb's JSON answer, or its text with `format: "text"`.
pub(super) async fn rpc(state: &State, request: Request<Incoming>) -> Response<Body> {
    let body = match read_body(request, state.options.max_body).await {
        Ok((_, body)) => body,
        Err(refused) => return refused,
    };
    // Read as raw JSON first, so that each request's `id` is echoed byte for byte (a `Value` would turn
    // 18446744073709551616 into a float).
    let message: Box<RawValue> = match serde_json::from_slice(&body) {
        Ok(raw) => raw,
        Err(err) => {
            return json_response(StatusCode::OK, &rpc_error(Value::Null, -32700, &format!("parse error: {err}")));
        }
    };
    let answer = if message.get().trim_start().starts_with('[') {
        match serde_json::from_str::<Vec<Box<RawValue>>>(message.get()) {
            Ok(batch) if batch.is_empty() => Some(rpc_error(Value::Null, -32600, "an empty batch").to_string()),
            Ok(batch) => {
                let mut answers = Vec::new();
                for one in &batch {
                    answers.extend(rpc_one(state, one).await);
                }
                (!answers.is_empty()).then(|| format!("[{}]", answers.join(",")))
            }
            Err(err) => Some(rpc_error(Value::Null, -32700, &format!("parse error: {err}")).to_string()),
        }
    } else {
        rpc_one(state, &message).await
    };
    match answer {
        Some(answer) => json_text_response(StatusCode::OK, answer),
        // Only notifications: nothing to answer.
        None => Response::builder().status(StatusCode::NO_CONTENT).body(empty()).expect("a valid response"),
    }
}

/// A successful `/rpc` answer. The verb's JSON answer is carried as written (its keys in the
/// answer's own order), so a program reading it sees what the command line prints.
#[derive(serde::Serialize)]
struct RpcSuccess<'a> {
    jsonrpc: &'static str,
    id: Id<'a>,
    result: RpcResult<'a>,
}

/// A request's id in its answer: as written, or as read.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Id<'a> {
    Written(&'a RawValue),
    Value(Value),
}

#[derive(serde::Serialize)]
struct RpcResult<'a> {
    found: bool,
    answer: &'a serde_json::value::RawValue,
}

/// One request's answer as JSON text; `None` for a notification.
async fn rpc_one(state: &State, raw: &RawValue) -> Option<String> {
    let message: Value = match serde_json::from_str(raw.get()) {
        Ok(message) => message,
        Err(err) => return Some(rpc_error(Value::Null, -32700, &format!("parse error: {err}")).to_string()),
    };
    let written = written_id(raw);
    rpc_answer(state, message, written).await.map(|answer| match answer {
        Ok(text) => text,
        Err(error) => with_id(error.to_string(), written),
    })
}

/// The `id` of request `raw` as it was written, when it has one.
fn written_id(raw: &RawValue) -> Option<&RawValue> {
    #[derive(serde::Deserialize)]
    struct Id<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    serde_json::from_str::<Id<'_>>(raw.get()).ok().and_then(|i| i.id)
}

/// An error answer with the request's `id` as it was written: errors carry ids through `Value`, whose
/// numbers are at most 64 bits, so a longer one is put back.
fn with_id(answer: String, written: Option<&RawValue>) -> String {
    let Some(written) = written.map(RawValue::get) else { return answer };
    let number = written.starts_with(|c: char| c == '-' || c.is_ascii_digit());
    // An id as a Value prints the same as written unless it is a number beyond 64 bits (or spelled
    // otherwise: `1.0`, `1e3`).
    let Ok(Value::Object(mut answer_object)) = serde_json::from_str::<Value>(&answer) else { return answer };
    let Some(echoed) = answer_object.remove("id") else { return answer };
    if !number || serde_json::to_string(&echoed).ok().as_deref() == Some(written) {
        return answer;
    }
    let Ok(id) = RawValue::from_string(written.to_owned()) else { return answer };
    #[derive(serde::Serialize)]
    struct WithId<'a> {
        jsonrpc: &'static str,
        id: &'a RawValue,
        #[serde(flatten)]
        rest: &'a Map<String, Value>,
    }
    answer_object.remove("jsonrpc");
    serde_json::to_string(&WithId { jsonrpc: "2.0", id: &id, rest: &answer_object }).unwrap_or(answer)
}

async fn rpc_answer(state: &State, message: Value, written: Option<&RawValue>) -> Option<Result<String, Value>> {
    let Value::Object(mut message) = message else {
        return Some(Err(rpc_error(Value::Null, -32600, "a request is a JSON object")));
    };
    let id = message.remove("id");
    let is_notification = id.is_none();
    let id = id.unwrap_or(Value::Null);
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return Some(Err(rpc_error(Value::Null, -32600, "`id` is a string, a number or null")));
    }
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(Err(rpc_error(id, -32600, "`jsonrpc` must be \"2.0\"")));
    }
    let Some(Value::String(method)) = message.remove("method") else {
        return Some(Err(rpc_error(id, -32600, "`method` is a verb's name")));
    };
    let mut params = match message.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => return Some(Err(rpc_error(id, -32602, "`params` is an object of the verb's arguments"))),
    };
    let Some(verb) = state.server.verbs().find(&method) else {
        return Some(Err(rpc_error(
            id,
            -32601,
            &format!("no method `{method}`; methods are the verbs: {}", state.server.verbs().names()),
        )));
    };
    // The structured answer by default (RPC callers are programs), for the verbs that have one.
    let formats = verb.shared().iter().any(|p| p.name == "format");
    let text = !formats || params.get("format").and_then(Value::as_str) == Some("text");
    if formats && !params.contains_key("format") {
        params.insert("format".into(), "json".into());
    }
    let outcome = state.server.call_verb(&method, params, "rpc").await;
    if is_notification {
        return None;
    }
    Some(match outcome {
        Ok(reply) => {
            // A text answer (or, unexpectedly, JSON that does not parse) is carried as a string.
            let json = !text && serde_json::from_str::<serde::de::IgnoredAny>(&reply.text).is_ok();
            let answer = if json { reply.text } else { Value::String(reply.text).to_string() };
            let raw = serde_json::value::RawValue::from_string(answer).expect("checked to be JSON");
            // A numeric id as it was written (one beyond 64 bits stays exact).
            let id = match written {
                Some(written) if id.is_number() => Id::Written(written),
                _ => Id::Value(id),
            };
            let success = RpcSuccess { jsonrpc: "2.0", id, result: RpcResult { found: reply.found, answer: &raw } };
            Ok(serde_json::to_string(&success).expect("an answer serialises"))
        }
        Err(failure) => {
            let code = match failure {
                Failure::Invalid(_) => -32602,
                Failure::UnknownVerb(_) => -32601,
                Failure::Deadline(_) => -32001,
                Failure::Internal(_) => -32603,
            };
            Err(rpc_error(id, code, &failure.to_string()))
        }
    })
}
