//! The verbs as tools: each one's name, a one-line description saying when to use it, whether it
//! writes, its input schema (compact, written by hand so the whole tool list stays small; a test
//! checks each against the verb's parameters), and one dispatcher that runs a verb from JSON
//! arguments. MCP tools, the compact `drsg` tool and `/rpc` methods all go through [`call`].

use drsg_query::{Answer, Revisions, Session};
use serde::de::DeserializeOwned;
use std::sync::LazyLock;

use serde_json::{Map, Value};

/// One verb as a tool.
pub struct Verb {
    pub name: &'static str,
    /// One line: what it answers and when to reach for it.
    pub description: &'static str,
    pub read_only: bool,
    /// Properties of the input schema (JSON object text, without the shared `plane`, `format`, `budget`).
    properties: &'static str,
    pub required: &'static [&'static str],
}

/// The verbs exposed as tools, in the order a model should think of them.
pub const VERBS: &[Verb] = &[
    Verb {
        name: "context",
        description: "Start here for a symbol: what it is, callers with lines, callees, unresolved calls and why.",
        read_only: true,
        properties: r#"{"name":{"type":"string","description":"key, key part (Client.connect) or name"},"depth":{"type":"integer","description":"caller levels 1-3"}}"#,
        required: &["name"],
    },
    Verb {
        name: "impact",
        description: "Before changing a symbol: all that can reach it, by distance, tests apart.",
        read_only: true,
        properties: r#"{"name":{"type":"string"},"depth":{"type":"integer"},"across":{"enum":["attached","all"]}}"#,
        required: &["name"],
    },
    Verb {
        name: "trace",
        description: "How does A reach B: the shortest call path, or where the chain breaks.",
        read_only: true,
        properties: r#"{"from":{"type":"string"},"to":{"type":"string"}}"#,
        required: &["from", "to"],
    },
    Verb {
        name: "search",
        description: "Find symbols by words or identifiers when the exact name is unknown.",
        read_only: true,
        properties: r#"{"query":{"type":"string"},"k":{"type":"integer"}}"#,
        required: &["query"],
    },
    Verb {
        name: "grep",
        description: "Text search over the tree, each hit with its enclosing symbol.",
        read_only: true,
        properties: r#"{"pattern":{"type":"string"},"regex":{"type":"boolean"},"ignore_case":{"type":"boolean"},"path":{"type":"string"},"context":{"type":"integer"},"max_results":{"type":"integer"},"all_files":{"type":"boolean"}}"#,
        required: &["pattern"],
    },
    Verb {
        name: "snippet",
        description: "Read a symbol's source, or path:start-end, numbered.",
        read_only: true,
        properties: r#"{"name":{"type":"string","description":"symbol or path:start-end"},"lines":{"type":"integer"}}"#,
        required: &["name"],
    },
    Verb {
        name: "file",
        description: "A file's module, declared symbols, imports and importers.",
        read_only: true,
        properties: r#"{"path":{"type":"string"}}"#,
        required: &["path"],
    },
    Verb {
        name: "describe",
        description: "A symbol's properties alone (lighter than context).",
        read_only: true,
        properties: r#"{"name":{"type":"string"}}"#,
        required: &["name"],
    },
    Verb {
        name: "fathom",
        description: "Size of the region around a symbol: counts per hop, labels, hubs.",
        read_only: true,
        properties: r#"{"name":{"type":"string"},"depth":{"type":"integer"}}"#,
        required: &["name"],
    },
    Verb {
        name: "history",
        description: "HEAD, branches, tags, rebases and the newest commits.",
        read_only: true,
        properties: r#"{"limit":{"type":"integer"}}"#,
        required: &[],
    },
    Verb {
        name: "recall",
        description: "Code at an old revision (file, range, dir, symbol); search it; diff with another.",
        read_only: true,
        properties: r#"{"at":{"type":"string","description":"sha, tag, branch, HEAD~n, date"},"name":{"type":"string"},"path":{"type":"string"},"pattern":{"type":"string"},"regex":{"type":"boolean"},"vs":{"type":"string"},"lines":{"type":"integer"}}"#,
        required: &["at"],
    },
    Verb {
        name: "traverse",
        description: "Nodes reached from a symbol along edges of given types.",
        read_only: true,
        properties: r#"{"from":{"type":"string"},"direction":{"enum":["out","in","both"]},"edge_type":{"type":"string","description":"comma-separated, e.g. CALLS"},"min":{"type":"integer"},"max":{"type":"integer"}}"#,
        required: &["from"],
    },
    Verb {
        name: "node",
        description: "One node as JSON, by exact key or id.",
        read_only: true,
        properties: r#"{"key":{"type":"string"},"id":{"type":"integer"}}"#,
        required: &[],
    },
    Verb {
        name: "planes",
        description: "The planes with counts and sync points.",
        read_only: true,
        properties: r#"{}"#,
        required: &[],
    },
    Verb {
        name: "schema",
        description: "A plane's labels, edge types and key prefixes.",
        read_only: true,
        properties: r#"{}"#,
        required: &[],
    },
    Verb {
        name: "rebuild",
        description: "Re-parse a plane's own tree from scratch (slow). When answers say plugins changed.",
        read_only: false,
        properties: r#"{}"#,
        required: &[],
    },
];

/// Properties of the shared arguments, added to every schema.
const SHARED_PROPERTIES: &str =
    r#"{"plane":{"type":"string"},"format":{"enum":["text","json"]},"budget":{"type":"integer"}}"#;

/// A verb's input schema and its own argument names.
type Parsed = (Map<String, Value>, Vec<String>);

/// Each verb's schema and own argument names, parsed once, in the order of [`VERBS`].
static PARSED: LazyLock<Vec<Parsed>> = LazyLock::new(|| {
    let shared: Map<String, Value> = serde_json::from_str(SHARED_PROPERTIES).expect("valid JSON");
    VERBS
        .iter()
        .map(|verb| {
            let mut properties: Map<String, Value> =
                serde_json::from_str(verb.properties).expect("the verb table's schemas are valid JSON");
            let own: Vec<String> = properties.keys().cloned().collect();
            // A write answers one line: it takes the plane alone.
            properties.extend(
                shared.iter().filter(|(k, _)| verb.read_only || *k == "plane").map(|(k, v)| (k.clone(), v.clone())),
            );
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), Value::Object(properties));
            if !verb.required.is_empty() {
                schema.insert("required".into(), verb.required.iter().map(|r| Value::from(*r)).collect());
            }
            (schema, own)
        })
        .collect()
});

impl Verb {
    fn parsed(&self) -> &'static Parsed {
        let at = VERBS.iter().position(|v| v.name == self.name).expect("a verb of the table");
        &PARSED[at]
    }

    /// The JSON Schema of the verb's arguments.
    pub fn input_schema(&self) -> &'static Map<String, Value> {
        &self.parsed().0
    }

    /// The names of the verb's own arguments (without the shared ones).
    pub fn own_arguments(&self) -> &'static [String] {
        &self.parsed().1
    }
}

/// The verbs' names, for messages.
pub fn verb_names() -> String {
    VERBS.iter().map(|v| v.name).collect::<Vec<_>>().join(", ")
}

pub fn find(name: &str) -> Option<&'static Verb> {
    VERBS.iter().find(|v| v.name == name)
}

/// What a verb call needs besides its arguments.
pub struct Env<'a> {
    pub session: Session<'a>,
    pub revisions: &'a dyn Revisions,
}

/// A verb's answer, rendered.
#[derive(Debug)]
pub struct Reply {
    pub text: String,
    /// False when the verb found nothing (a normal answer, not an error).
    pub found: bool,
}

/// Why a call could not be answered: a sentence the caller (often a model) can act on.
#[derive(Debug)]
pub struct CallError(pub String);

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Refuses arguments `verb` does not take and missing required ones.
fn check_arguments(verb: &Verb, args: &Map<String, Value>) -> Result<(), CallError> {
    let name = verb.name;
    let own = verb.own_arguments();
    let accepted = verb.input_schema()["properties"].as_object().expect("a schema has properties");
    if let Some(unknown) = args.keys().find(|k| !accepted.contains_key(*k)) {
        let mut known: Vec<&str> = own.iter().map(String::as_str).collect();
        known.extend(accepted.keys().map(String::as_str).filter(|k| !own.iter().any(|o| o == k)));
        return Err(CallError(format!("`{name}` takes no argument `{unknown}`; its arguments: {}", known.join(", "))));
    }
    if let Some(missing) = verb.required.iter().find(|r| args.get(**r).is_none_or(Value::is_null)) {
        return Err(CallError(format!("`{name}` needs `{missing}`")));
    }
    Ok(())
}

/// Checks `rebuild`'s arguments; the plane it names, if any. (The write itself runs in the server,
/// which holds the store mutably.)
pub fn check_rebuild(args: Map<String, Value>) -> Result<Option<String>, CallError> {
    check_arguments(find("rebuild").expect("rebuild is a verb"), &args)?;
    match args.get("plane") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(plane)) => Ok(Some(plane.clone())),
        Some(other) => Err(CallError(format!("`plane` is a plane's name (got {other})"))),
    }
}

/// Runs read verb `name` with JSON `args`.
pub fn call(env: &Env<'_>, name: &str, mut args: Map<String, Value>) -> Result<Reply, CallError> {
    let verb = find(name).ok_or_else(|| CallError(format!("unknown verb `{name}`; verbs: {}", verb_names())))?;
    check_arguments(verb, &args)?;
    if !verb.read_only {
        return Err(CallError(format!("`{name}` writes: it runs through the server, which holds the write gate")));
    }
    let json = match args.get("format") {
        None | Some(Value::Null) => false,
        Some(Value::String(f)) if f == "text" => false,
        Some(Value::String(f)) if f == "json" => true,
        Some(other) => return Err(CallError(format!("`format` is \"text\" or \"json\" (got {other})"))),
    };
    let budget = match args.get("budget") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 200 => Some(n as usize),
            _ => return Err(CallError(format!("`budget` is a number of characters, at least 200 (got {v})"))),
        },
    };
    args.remove("format");
    args.remove("budget");
    let params = args;
    let s = &env.session;
    let cwd = s.cwd;
    match verb.name {
        "context" => answer(drsg_query::context(s, &parse(name, params)?), json, budget),
        "impact" => answer(drsg_query::impact(s, &parse(name, params)?), json, budget),
        "trace" => answer(drsg_query::trace(s, &parse(name, params)?), json, budget),
        "search" => answer(drsg_query::search(s, &parse(name, params)?), json, budget),
        "grep" => answer(drsg_query::grep(s, &parse(name, params)?), json, budget),
        "snippet" => answer(drsg_query::snippet(s, &parse(name, params)?), json, budget),
        "file" => answer(drsg_query::file(s, &parse(name, params)?), json, budget),
        "describe" => answer(drsg_query::describe(s, &parse(name, params)?), json, budget),
        "fathom" => answer(drsg_query::fathom(s, &parse(name, params)?), json, budget),
        "history" => answer(drsg_query::history(s, &parse(name, params)?), json, budget),
        "recall" => answer(drsg_query::recall(s, env.revisions, &parse(name, params)?), json, budget),
        "traverse" => answer(drsg_query::traverse(s, &parse(name, params)?), json, budget),
        "node" => answer(drsg_query::node(s, &parse(name, params)?), json, budget),
        "planes" => {
            let out = drsg_query::planes(s.store).map_err(query_error)?;
            let text = if json { to_json(&out)? } else { out.render() };
            Ok(Reply { found: !out.is_empty(), text })
        }
        "schema" => {
            let plane = params.get("plane").and_then(Value::as_str).map(str::to_owned);
            let out = drsg_query::schema(s.store, &drsg_query::SchemaParams { plane: plane.as_deref(), cwd })
                .map_err(query_error)?;
            let text = if json { to_json(&out)? } else { out.render() };
            Ok(Reply { found: true, text })
        }
        other => unreachable!("verb `{other}` is in the table but not dispatched"),
    }
}

fn parse<P: DeserializeOwned>(verb: &str, params: Map<String, Value>) -> Result<P, CallError> {
    serde_json::from_value(Value::Object(params)).map_err(|e| CallError(format!("bad arguments for `{verb}`: {e}")))
}

fn answer<A: Answer>(result: drsg_query::Result<A>, json: bool, budget: Option<usize>) -> Result<Reply, CallError> {
    let out = result.map_err(query_error)?;
    let text = if json { to_json(&out)? } else { drsg_query::render(&out, budget) };
    Ok(Reply { found: out.found(), text })
}

fn to_json(value: &impl serde::Serialize) -> Result<String, CallError> {
    serde_json::to_string(value).map_err(|e| CallError(format!("cannot write the answer as JSON: {e}")))
}

fn query_error(err: drsg_query::Error) -> CallError {
    CallError(err.to_string())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The fields a verb's parameters serialise to (its `Default`), as names.
    fn fields(params: impl serde::Serialize) -> BTreeSet<String> {
        match serde_json::to_value(params).expect("params serialise") {
            Value::Object(map) => map.keys().cloned().collect(),
            other => panic!("params are not an object: {other}"),
        }
    }

    #[test]
    fn every_schema_names_exactly_its_verbs_parameters() {
        for verb in VERBS {
            let expected = match verb.name {
                "context" => fields(drsg_query::ContextParams::default()),
                "impact" => fields(drsg_query::ImpactParams::default()),
                "trace" => fields(drsg_query::TraceParams::default()),
                "search" => fields(drsg_query::SearchParams::default()),
                "grep" => fields(drsg_query::GrepParams::default()),
                "snippet" => fields(drsg_query::SnippetParams::default()),
                "file" => fields(drsg_query::FileParams::default()),
                "describe" => fields(drsg_query::DescribeParams::default()),
                "fathom" => fields(drsg_query::FathomParams::default()),
                "history" => fields(drsg_query::HistoryParams::default()),
                "recall" => fields(drsg_query::RecallParams::default()),
                "traverse" => fields(drsg_query::TraverseParams::default()),
                "node" => fields(drsg_query::NodeParams::default()),
                "planes" | "schema" | "rebuild" => BTreeSet::from(["plane".to_owned()]),
                other => panic!("verb `{other}` has no parameters here"),
            };
            let mut named: BTreeSet<String> = verb.own_arguments().iter().cloned().collect();
            named.insert("plane".to_owned());
            assert_eq!(named, expected, "schema of `{}`", verb.name);
            for required in verb.required {
                assert!(named.contains(*required), "`{}` requires unknown `{required}`", verb.name);
            }
            assert!(!verb.description.contains('\n') && verb.description.len() < 120, "`{}`", verb.name);
        }
    }
}
