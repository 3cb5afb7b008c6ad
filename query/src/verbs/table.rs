//! The built-in verbs: one entry each, in the order a model should think of them.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Args, CallError, Param, Reply, Run, Shape, Verb, Writes};
use crate::{Answer, Store};

const LIMIT: Param = Param::integer("limit", "Rows listed per list: a page of it, with --offset.");
const OFFSET: Param = Param::integer("offset", "Rows of each list skipped before the page.").default("0");

const NAME: Param = Param::text("name", "A key, a key segment (`Client.connect`, `src/App`) or a name.").required();

const UNRESOLVED: Param = Param::flag("unresolved", "List the unresolved sites behind a lower bound.");
const CONTEXT: &[Param] = &[
    NAME.brief("key, key part (Client.connect) or name"),
    Param::integer("depth", "Levels of callers to list (1-3).").brief("caller levels 1-3").default("1"),
    LIMIT.default("50"),
    OFFSET,
    UNRESOLVED,
];
const IMPACT: &[Param] = &[
    NAME,
    Param::integer("depth", "Hops walked back (at most 6).").default("3"),
    Param::choice("across", "`attached` or `all`: other planes that reach it.", &["attached", "all"]),
    LIMIT.default("30"),
    OFFSET,
    UNRESOLVED,
];
const TRACE: &[Param] = &[
    Param::text("from", "The symbol the path starts from.").required(),
    Param::text("to", "The symbol the path ends at.").required(),
];
const SEARCH: &[Param] = &[
    Param::text("query", "Words or identifiers (names split on case and `_`, keys, signatures, docs).").required(),
    Param::integer("k", "Number of results (at most 100).").short('k').default("10"),
    Param::integer("offset", "Ranked results skipped before the first one shown.").default("0"),
];
const GREP: &[Param] = &[
    Param::text("pattern", "The text to find.").required(),
    Param::flag("regex", "Treat the pattern as a regular expression (default: literal).").short('e'),
    Param::flag("ignore_case", "Match regardless of case.").short('i'),
    Param::text("path", "A file or directory of the tree to search in."),
    Param::integer("context", "Lines of context around each hit (at most 10).").short('C').default("0"),
    Param::integer("max_results", "Hits shown (at most 2,000); all hits are counted.").short('m').default("50"),
    Param::integer("offset", "Hits skipped before the first one shown (path, then line order).").default("0"),
    Param::flag("all_files", "Also search ignored and hidden files."),
];
const SNIPPET: &[Param] = &[
    Param::text("name", "A symbol (key, key segment or name), or `path:start-end` / `path:line`.")
        .required()
        .brief("symbol or path:start-end"),
    Param::integer("lines", "Most lines shown.").default("200"),
];
const FILE: &[Param] = &[Param::text("path", "Path relative to the tree's root.").required()];
const DESCRIBE: &[Param] = &[NAME];
const FATHOM: &[Param] = &[NAME, Param::integer("depth", "Hops in both directions (at most 4).").default("2")];
const HISTORY: &[Param] = &[Param::integer("limit", "Newest commits listed (at most 200).").default("10")];
const RECALL: &[Param] = &[
    Param::text("at", "The revision: sha, prefix, tag, branch, HEAD~n, <rev>^n, a date (2024-01-31), <rev>@{<date>}.")
        .required()
        .brief("sha, tag, branch, HEAD~n, date"),
    Param::text("name", "A symbol of the plane, shown as it was declared then."),
    Param::text("path", "A file, `path:start-end`, or a directory."),
    Param::text("pattern", "Search that revision's tree (within --path when given)."),
    Param::flag("regex", "Treat the pattern as a regular expression.").short('e'),
    Param::text("vs", "An older revision: the diff of --name or --path from it to AT."),
    Param::integer("lines", "Most lines shown.").default("200"),
];
const REPORT: &[Param] = &[
    Param::text("base", "The revision the change starts from (a pull request's base: sha, branch, HEAD~n).")
        .required()
        .brief("base revision (sha, branch, HEAD~n)"),
    Param::text("head", "The revision it ends at (default: the plane's commit, which it must be)."),
    Param::integer("depth", "Hops walked back from each changed definition (at most 6).").default("3"),
];
const WIRE: &[Param] = &[
    Param::text("path", "A route path (`/api/items/42`, `/items/{id}`): what serves it and what requests it.")
        .positional()
        .brief("route path"),
    Param::text("method", "Only this HTTP method (GET, POST, …)."),
    Param::text("name", "A handler or a caller: the routes it serves or requests."),
    LIMIT.default("50"),
];
const DEPLOYED: &[Param] = &[
    Param::text("name", "A workload or service name, a key or a key segment (default: every workload).")
        .positional()
        .brief("workload or service name"),
    Param::text("rev", "A revision (sha, tag, branch, HEAD~n): the workloads running it.").brief("sha, tag, branch"),
    LIMIT.default("50"),
    OFFSET,
];
const TRAVERSE: &[Param] = &[
    Param::text("from", "The symbol to start from.").required(),
    Param::choice("direction", "Which way edges are followed.", &["out", "in", "both"]).default("out"),
    Param::text("edge_type", "Edge types, comma-separated (default: all).").brief("comma-separated, e.g. CALLS"),
    Param::integer("min", "Fewest hops for a node to be listed.").default("1"),
    Param::integer("max", "Most hops walked (at most 10).").default("1"),
    LIMIT.default("200"),
    OFFSET,
];
const NODE: &[Param] = &[
    Param::text("key", "Exact key, in the chosen plane.").positional(),
    Param::integer("id", "Node id, in any plane."),
];
const EXPORT: &[Param] = &[
    Param::text("edges", "Only these edge types (comma-separated, e.g. CALLS,IMPORTS)."),
    Param::flag("nodes", "Write nodes (alone unless --edges is given too)."),
];

pub(super) fn builtin() -> Vec<Verb> {
    vec![
        Verb {
            name: "context",
            summary: "Start here for a symbol: what it is, callers with lines, callees, unresolved calls and why.",
            params: CONTEXT,
            run: Run::Read(|env, args, shape| answer("context", args, shape, |p| crate::context(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "impact",
            summary: "Before changing a symbol: all that can reach it, by distance, tests apart.",
            params: IMPACT,
            run: Run::Read(|env, args, shape| answer("impact", args, shape, |p| crate::impact(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "trace",
            summary: "How does A reach B: the shortest call path, or where the chain breaks.",
            params: TRACE,
            run: Run::Read(|env, args, shape| answer("trace", args, shape, |p| crate::trace(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "search",
            summary: "Find symbols by words or identifiers when the exact name is unknown.",
            params: SEARCH,
            run: Run::Read(|env, args, shape| answer("search", args, shape, |p| crate::search(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "grep",
            summary: "Text search over the tree, each hit with its enclosing symbol.",
            params: GREP,
            run: Run::Read(|env, args, shape| answer("grep", args, shape, |p| crate::grep(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "snippet",
            summary: "Read a symbol's source, or path:start-end, numbered.",
            params: SNIPPET,
            run: Run::Read(|env, args, shape| answer("snippet", args, shape, |p| crate::snippet(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "file",
            summary: "A file's module, declared symbols, imports and importers.",
            params: FILE,
            run: Run::Read(|env, args, shape| answer("file", args, shape, |p| crate::file(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "describe",
            summary: "A symbol's properties alone (lighter than context).",
            params: DESCRIBE,
            run: Run::Read(|env, args, shape| answer("describe", args, shape, |p| crate::describe(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "fathom",
            summary: "Size of the region around a symbol: counts per hop, labels, hubs.",
            params: FATHOM,
            run: Run::Read(|env, args, shape| answer("fathom", args, shape, |p| crate::fathom(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "history",
            summary: "HEAD, branches, tags, rebases and the newest commits.",
            params: HISTORY,
            run: Run::Read(|env, args, shape| answer("history", args, shape, |p| crate::history(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "recall",
            summary: "Code at an old revision (file, range, dir, symbol); search it; diff with another.",
            params: RECALL,
            run: Run::Read(|env, args, shape| {
                answer("recall", args, shape, |p| crate::recall(&env.session, env.revisions, p))
            }),
            tool: true,
            cli: true,
        },
        Verb {
            name: "report",
            summary: "What a change since BASE touched: definitions, what reaches them, tests to run, risks.",
            params: REPORT,
            run: Run::Read(|env, args, shape| {
                answer("report", args, shape, |p| crate::report(&env.session, env.revisions, p))
            }),
            tool: true,
            cli: false,
        },
        Verb {
            name: "wire",
            summary: "HTTP routes: which handler serves a path and which functions request it, across planes.",
            params: WIRE,
            run: Run::Read(|env, args, shape| answer("wire", args, shape, |p| crate::wire(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "deployed",
            summary: "Which commit each workload's images were built from; which workloads run a commit.",
            params: DEPLOYED,
            run: Run::Read(|env, args, shape| {
                answer("deployed", args, shape, |p| crate::deployed(&env.session, env.revisions, p))
            }),
            tool: true,
            cli: true,
        },
        Verb {
            name: "traverse",
            summary: "Nodes reached from a symbol along edges of given types.",
            params: TRAVERSE,
            run: Run::Read(|env, args, shape| answer("traverse", args, shape, |p| crate::traverse(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "node",
            summary: "One node as JSON, by exact key or id.",
            params: NODE,
            run: Run::Read(|env, args, shape| answer("node", args, shape, |p| crate::node(&env.session, p))),
            tool: true,
            cli: true,
        },
        Verb {
            name: "planes",
            summary: "The planes with counts and sync points.",
            params: &[],
            run: Run::Read(|env, _, shape| {
                let out = crate::planes(env.session.store)?;
                let text = if shape.json { to_json(&out, shape.budget)? } else { out.render() };
                Ok(Reply { found: !out.is_empty(), text })
            }),
            tool: true,
            cli: true,
        },
        Verb {
            name: "schema",
            summary: "A plane's labels, edge types and key prefixes.",
            params: &[],
            run: Run::Read(|env, args, shape| {
                let plane = plane_argument(&args)?;
                let params = crate::SchemaParams { plane: plane.as_deref(), cwd: env.session.cwd };
                let out = crate::schema(env.session.store, &params)?;
                let text = if shape.json { to_json(&out, shape.budget)? } else { out.render() };
                Ok(Reply { found: true, text })
            }),
            tool: true,
            cli: true,
        },
        Verb {
            name: "rebuild",
            summary: "Re-parse a plane's own tree from scratch (slow). When answers say plugins changed.",
            params: &[],
            run: Run::Write(rebuild),
            tool: true,
            cli: true,
        },
        Verb {
            name: "export",
            summary: "A whole plane as JSON Lines: nodes, edges, or both.",
            params: EXPORT,
            run: Run::Stream(|env, args, out| {
                let plane = plane_argument(&args)?;
                let edges = match args.get("edges") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::String(list)) => {
                        list.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect()
                    }
                    Some(other) => return Err(CallError(format!("`edges` is a comma-separated list (got {other})"))),
                };
                let nodes = match args.get("nodes") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => return Err(CallError(format!("`nodes` is true or false (got {other})"))),
                };
                let params = crate::ExportParams { plane: plane.as_deref(), cwd: env.session.cwd, edges, nodes };
                let lines = crate::export(env.session.store, &params, out)?;
                Ok(lines > 0)
            }),
            tool: false,
            cli: true,
        },
    ]
}

/// Parses a verb's arguments into its parameters, runs it and renders the answer.
fn answer<P: DeserializeOwned, A: Answer>(
    verb: &str,
    args: Args,
    shape: Shape,
    run: impl FnOnce(&P) -> crate::Result<A>,
) -> Result<Reply, CallError> {
    let params: P = serde_json::from_value(Value::Object(args))
        .map_err(|e| CallError(format!("bad arguments for `{verb}`: {e}")))?;
    let out = run(&params)?;
    let text =
        if shape.json { to_json(&out, shape.budget)? } else { crate::render_on(&out, shape.budget, shape.surface) };
    Ok(Reply { found: out.found(), text })
}

/// The answer as JSON within the budget, as its text is: the pages of its lists keep the items that fit
/// (each still saying `total`, `offset` and, now true, `more`), and `cut_to_budget` says how many went.
fn to_json(value: &impl serde::Serialize, budget: Option<usize>) -> Result<String, CallError> {
    let error = |e: serde_json::Error| CallError(format!("cannot write the answer as JSON: {e}"));
    let budget = budget.unwrap_or(crate::DEFAULT_BUDGET);
    let text = serde_json::to_string(value).map_err(error)?;
    if text.len() <= budget {
        return Ok(text);
    }
    // Over the budget: cut as a value (its objects' keys then come sorted), keeping room for the note.
    let mut value: Value = serde_json::from_str(&text).map_err(error)?;
    let removed = crate::render::fit_json(&mut value, budget.saturating_sub(CUT_NOTE));
    if removed > 0
        && let Value::Object(map) = &mut value
    {
        map.insert("cut_to_budget".into(), serde_json::json!({"budget": budget, "items_left_out": removed}));
    }
    serde_json::to_string(&value).map_err(error)
}

/// Room for the `cut_to_budget` note in a JSON answer cut to its budget.
const CUT_NOTE: usize = 64;

/// The shared `plane` argument, when given.
fn plane_argument(args: &Args) -> Result<Option<String>, CallError> {
    match args.get("plane") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(plane)) => Ok(Some(plane.clone())),
        Some(other) => Err(CallError(format!("`plane` is a plane's name (got {other})"))),
    }
}

/// `rebuild`: through the writer the binary supplies (this crate does not index).
fn rebuild(store: &mut Store, writes: &Writes<'_>, args: Args) -> Result<Reply, CallError> {
    let plane = plane_argument(&args)?;
    let writer = writes
        .writer
        .ok_or_else(|| CallError("this server cannot rebuild; run `drsg rebuild` in the repository".into()))?;
    let name = crate::choose_plane(store, plane.as_deref(), writes.cwd)?.meta.name;
    let text = writer.rebuild(store, &name, writes.source).map_err(CallError)?;
    Ok(Reply { text, found: true })
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
    fn every_verb_declares_exactly_its_parameters() {
        for verb in builtin() {
            let expected = match verb.name {
                "context" => fields(crate::ContextParams::default()),
                "impact" => fields(crate::ImpactParams::default()),
                "trace" => fields(crate::TraceParams::default()),
                "search" => fields(crate::SearchParams::default()),
                "grep" => fields(crate::GrepParams::default()),
                "snippet" => fields(crate::SnippetParams::default()),
                "file" => fields(crate::FileParams::default()),
                "describe" => fields(crate::DescribeParams::default()),
                "fathom" => fields(crate::FathomParams::default()),
                "history" => fields(crate::HistoryParams::default()),
                "recall" => fields(crate::RecallParams::default()),
                "report" => fields(crate::ReportParams::default()),
                "deployed" => fields(crate::DeployedParams::default()),
                "wire" => fields(crate::WireParams::default()),
                "traverse" => fields(crate::TraverseParams::default()),
                "node" => fields(crate::NodeParams::default()),
                "planes" | "schema" | "rebuild" => BTreeSet::from(["plane".to_owned()]),
                "export" => BTreeSet::from(["plane".to_owned(), "edges".to_owned(), "nodes".to_owned()]),
                other => panic!("verb `{other}` has no parameters here"),
            };
            let mut named: BTreeSet<String> = verb.params.iter().map(|p| p.name.to_owned()).collect();
            named.insert("plane".to_owned());
            assert_eq!(named, expected, "parameters of `{}`", verb.name);
            assert!(!verb.summary.contains('\n') && verb.summary.len() < 120, "`{}`", verb.name);
            // Positional parameters come first on the command line, required before optional.
            let positional: Vec<&Param> =
                verb.params.iter().filter(|p| p.spelling == super::super::Spelling::Positional).collect();
            assert!(positional.windows(2).all(|w| w[0].required || !w[1].required), "`{}`", verb.name);
        }
    }
}
