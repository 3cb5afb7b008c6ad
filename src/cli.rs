//! The verbs on the command line: one subcommand per verb of the table, its arguments and flags
//! derived from the verb's parameters. A call runs in process, or, when a live `drsg serve` holds
//! the database, through that server's `/rpc`, printing the same text with the same exit code.
//!
//! `verb_commands` builds each subcommand from the verb's parameters (positional, long or short
//! flags, `--json` for the shared `format`). A live server holding the database is found through
//! `init::holder`. `open_for_owned_write` turns the lock error of `index`, `fold` and `watch`
//! beside a live server into one sentence on what to do instead. `pretty_json` lays out compact
//! JSON as `serde_json::to_string_pretty` would, keeping the answer's key order, so that a JSON
//! answer reads the same from the process and from the server.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use clap::{Arg, ArgAction, ArgMatches};
use drsg_query::verbs::{Args, Kind, Registry, Run, Spelling, Verb};
use serde_json::Value;

use crate::{EXIT_FOUND, EXIT_NOTHING};

/// The subcommands of the verbs in `verbs`.
pub fn verb_commands(verbs: &Registry) -> Vec<clap::Command> {
    verbs.iter().filter(|verb| verb.cli).map(verb_command).collect()
}

fn verb_command(verb: &Verb) -> clap::Command {
    let mut command = clap::Command::new(verb.name).about(verb.summary);
    for (order, param) in verb.all_params().enumerate() {
        if param.spelling == Spelling::Hidden {
            continue;
        }
        let help = match param.default {
            Some(default) => format!("{} [default: {default}]", param.doc),
            None => param.doc.to_owned(),
        };
        let mut arg = Arg::new(param.name).help(help).display_order(order).value_name(param.name.to_uppercase());
        arg = match param.spelling {
            Spelling::Positional => arg.required(param.required),
            Spelling::Long | Spelling::Hidden => arg.long(param.name.replace('_', "-")),
            Spelling::Short(c) => arg.long(param.name.replace('_', "-")).short(c),
        };
        arg = match param.kind {
            Kind::Text => arg.value_parser(clap::value_parser!(String)),
            Kind::Integer => arg.value_parser(clap::value_parser!(i64)).allow_negative_numbers(true),
            Kind::Bool => arg.action(ArgAction::SetTrue),
            Kind::Choice(words) => arg.value_parser(clap::builder::PossibleValuesParser::new(words)),
        };
        command = command.arg(arg);
    }
    if matches!(verb.run, Run::Read(_)) {
        let json =
            Arg::new("json").long("json").action(ArgAction::SetTrue).help("Print the structured answer as JSON.");
        command = command.arg(json.display_order(verb.all_params().count()));
    }
    command
}

/// A verb's JSON arguments from its subcommand's matches.
pub fn arguments(verb: &Verb, matches: &ArgMatches) -> Args {
    let mut args = Args::new();
    for param in verb.all_params() {
        if param.spelling == Spelling::Hidden {
            continue;
        }
        let value = match param.kind {
            Kind::Bool => matches.get_flag(param.name).then_some(Value::Bool(true)),
            Kind::Integer => matches.get_one::<i64>(param.name).map(|n| Value::from(*n)),
            Kind::Text | Kind::Choice(_) => matches.get_one::<String>(param.name).map(|s| Value::from(s.as_str())),
        };
        if let Some(value) = value {
            args.insert(param.name.to_owned(), value);
        }
    }
    if matches!(verb.run, Run::Read(_)) && matches.get_flag("json") {
        args.insert("format".into(), "json".into());
    }
    args
}

/// Runs verb `name` with `args` on the database at `db`, writing its answer to `out` (standard
/// output: [`Stdout`]); the exit code.
pub fn run_verb(
    verbs: Registry,
    name: &str,
    args: Args,
    db: &Path,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<i32> {
    let verb = verbs.get(name).map_err(|e| anyhow::anyhow!("{e}"))?;
    let json = args.get("format").and_then(Value::as_str) == Some("json");
    // A verb needs a plane (`rebuild` too): none creates a database.
    let store = match crate::open_for_read(db) {
        Ok(store) => store,
        // Held by a live server: the call goes there (a write it owns, too: `rebuild`).
        Err(err) => match crate::init::holder(db, &err) {
            Some(server) => {
                let mut args = args;
                if matches!(verb.run, Run::Read(_)) && !json {
                    // `/rpc` answers programs with JSON unless asked for the text.
                    args.insert("format".into(), "text".into());
                }
                return forward(&server, db, name, args, json, out);
            }
            None => return Err(err),
        },
    };
    let backend = drsg_query::verbs::Backend {
        verbs,
        ..crate::serving::backend(Arc::new(drsg_planes::SharedStore::single(store)))
    };
    let verb = backend.verbs.get(name).map_err(|e| anyhow::anyhow!("{e}"))?;
    let found = if let Run::Stream(_) = verb.run {
        let store = backend.store.lock();
        let env = drsg_query::verbs::Env {
            session: drsg_query::Session { store: &store, cwd: backend.cwd.as_deref(), files: &*backend.files },
            revisions: &*backend.revisions,
            surface: drsg_query::Surface::Cli,
        };
        let mut out = std::io::BufWriter::new(out);
        let found = drsg_query::verbs::stream(verb, &env, args, &mut out).map_err(|e| anyhow::anyhow!("{e}"))?;
        out.flush()?;
        found
    } else {
        let reply = backend.call(name, args, "cli", None, &|| {}).map_err(|e| anyhow::anyhow!("{e}"))?;
        let text = if json { pretty_json(&reply.text) } else { with_newline(reply.text) };
        out.write_all(text.as_bytes())?;
        reply.found
    };
    Ok(if found { EXIT_FOUND } else { EXIT_NOTHING })
}

/// Runs the call on the server holding the database, writing what it answers as the call would
/// have written it here.
fn forward(
    server: &crate::init::Holder,
    db: &Path,
    name: &str,
    args: Args,
    json: bool,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<i32> {
    crate::note(&format!(
        "answered by the drsg server at {} (pid {}), which holds {}",
        server.addr,
        server.pid,
        db.display()
    ));
    let answer = crate::block_on(drsg_mcp::relay::rpc(&server.addr, Some(&server.authorization()), name, args))
        .map_err(|e| {
            anyhow::anyhow!("the drsg server at {} holds {} but did not answer: {e}", server.addr, db.display())
        })?;
    match answer {
        drsg_mcp::relay::RpcAnswer::Found { found, answer } => {
            let text = match serde_json::from_str::<String>(answer.get()) {
                Ok(text) if !json => with_newline(text),
                _ => pretty_json(answer.get()),
            };
            out.write_all(text.as_bytes())?;
            Ok(if found { EXIT_FOUND } else { EXIT_NOTHING })
        }
        drsg_mcp::relay::RpcAnswer::Failed { message, .. } => Err(anyhow::anyhow!("{message}")),
    }
}

/// Opens the store for a write that a server would own (`index`, `fold`, `watch`), creating the
/// database only with `create` (`fold` needs a plane, so it creates nothing): when a live server
/// holds the database, one sentence on what to do instead, and nothing changes.
pub fn open_for_owned_write(db: &Path, command: &str, create: bool) -> anyhow::Result<drsg_planes::Store> {
    let opened = if create { crate::open_for_write(db) } else { crate::open_for_read(db) };
    opened.map_err(|err| match crate::init::holder(db, &err) {
        Some(server) => anyhow::anyhow!(
            "the drsg server at {} (pid {}) holds {} and folds every commit of the checkout it watches, so \
             `drsg {command}` changed nothing: run `drsg rebuild` to have it re-read the tree, or `drsg stop` first",
            server.addr,
            server.pid,
            db.display()
        ),
        None => err,
    })
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// Standard output for an answer: a closed pipe (`drsg … | head`) ends the process quietly.
pub struct Stdout;

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::io::stdout().lock().write(buf).or_else(|err| crate::exit_on_io_error(err))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stdout().lock().flush().or_else(|err| crate::exit_on_io_error(err))
    }
}

/// Lays compact JSON text out with two-space indents, one member or element a line, keeping the
/// order of keys as written (what `serde_json::to_string_pretty` prints for the same value), and a
/// final newline.
pub fn pretty_json(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::pretty_json;

    #[test]
    fn pretty_json_lays_out_what_serde_json_would() {
        let values = [
            serde_json::json!({"a": 1, "b": [], "c": {}, "d": [1, {"e": "x, y: {z}"}], "f": "q\"uo\\te\"", "g": null}),
            serde_json::json!([]),
            serde_json::json!("text"),
            serde_json::json!([[1, 2], [], [{"k": [true, false]}]]),
            serde_json::json!({"nested": {"deeper": {"deepest": [-1.5, 2e10, "\u{e9}\n\t"]}}}),
        ];
        for value in values {
            let expected = format!("{}\n", serde_json::to_string_pretty(&value).expect("serialises"));
            assert_eq!(pretty_json(&value.to_string()), expected);
        }
    }
}
