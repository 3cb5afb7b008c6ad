//! Symbol lookup (SPEC §6): exact key, then key segments, then case-insensitive; several matches give
//! ranked candidates; a miss gives the plane's key prefixes and the nearest names.

use std::collections::{BTreeMap, HashSet};

use drsg_planes::{EdgeType, Node, PlaneInfo, Store};
use serde::Serialize;

use crate::render::{Group, NodeLine, Text};
use crate::schema::key_prefix;
use crate::{Answer, Error, Result, freshness};

/// How many candidates an ambiguous lookup lists.
const MAX_CANDIDATES: usize = 12;
/// How many near names a miss lists.
const MAX_NEAREST: usize = 8;

/// A verb's answer about a symbol: the answer itself, or why there is none.
#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Lookup<T> {
    Found(T),
    Ambiguous(Candidates),
    Missing(Box<Missing>),
}

/// Several symbols match; the caller should pick one by key.
#[derive(Debug, Serialize)]
pub struct Candidates {
    pub query: String,
    pub plane: String,
    pub freshness: String,
    pub candidates: Group<Candidate>,
}

#[derive(Debug, Serialize)]
pub struct Candidate {
    #[serde(flatten)]
    pub node: NodeLine,
    /// Edges entering the symbol other than containment (calls, references, imports, …).
    pub referenced: u64,
}

/// Nothing matches: what the plane's keys look like, and the names closest to the query.
#[derive(Debug, Serialize)]
pub struct Missing {
    pub query: String,
    pub plane: String,
    pub freshness: String,
    pub key_prefixes: Vec<String>,
    pub nearest: Vec<NodeLine>,
    /// Source files of the plane's tree that could not be read: their symbols are not in the plane.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    /// Files read only in part (a size or depth cut): a symbol beyond the cut is not in the plane.
    #[serde(skip_serializing_if = "crate::unresolved::CutFiles::is_empty")]
    pub cut_files: crate::unresolved::CutFiles,
}

impl<T: Answer> Answer for Lookup<T> {
    fn render_to(&self, t: &mut Text) {
        match self {
            Lookup::Found(answer) => answer.render_to(t),
            Lookup::Ambiguous(c) => {
                t.line(format_args!(
                    "`{}` matches {} symbols in plane {}; ask again with one of these keys:",
                    c.query, c.candidates.total, c.plane
                ));
                t.group(&c.candidates, |t, cand| {
                    t.line(format_args!("  {}  ({} refs)", cand.node, cand.referenced));
                });
                t.line(format_args!("{}", c.freshness));
            }
            Lookup::Missing(m) => {
                t.line(format_args!("no symbol `{}` in plane {}", m.query, m.plane));
                if !m.nearest.is_empty() {
                    t.line(format_args!("nearest names:"));
                    for n in &m.nearest {
                        t.line(format_args!("  {n}"));
                    }
                }
                if !m.key_prefixes.is_empty() {
                    t.line(format_args!(
                        "keys in this plane start with: {} (a key segment such as `Type.method` or `module::fn` also works)",
                        m.key_prefixes.join(", ")
                    ));
                }
                if !m.cut_files.is_empty() {
                    let more = m.cut_files.files.saturating_sub(1);
                    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                    t.line(format_args!(
                        "it may lie in a part of a file that was not read: {}{more}",
                        m.cut_files.first.as_deref().unwrap_or("?")
                    ));
                }
                if !m.unread.is_empty() {
                    t.line(format_args!(
                        "files of this plane that could not be read, whose symbols are missing: {}",
                        m.unread.join(", ")
                    ));
                }
                t.line(format_args!("{}", m.freshness));
            }
        }
    }

    fn found(&self) -> bool {
        matches!(self, Lookup::Found(a) if a.found())
    }
}

impl<T> Lookup<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Lookup<U> {
        match self {
            Lookup::Found(t) => Lookup::Found(f(t)),
            Lookup::Ambiguous(c) => Lookup::Ambiguous(c),
            Lookup::Missing(m) => Lookup::Missing(m),
        }
    }
}

/// What a symbol argument resolved to.
pub enum Resolved {
    One(Node),
    Not(Lookup<std::convert::Infallible>),
}

impl Resolved {
    /// The node, or the answer explaining why there is none, for a verb answering `T`.
    pub fn into_node<T>(self) -> std::result::Result<Node, Lookup<T>> {
        match self {
            Resolved::One(node) => Ok(node),
            Resolved::Not(Lookup::Ambiguous(c)) => Err(Lookup::Ambiguous(c)),
            Resolved::Not(Lookup::Missing(m)) => Err(Lookup::Missing(m)),
            Resolved::Not(Lookup::Found(never)) => match never {},
        }
    }
}

/// Finds the symbol `query` names in `plane`. `name()` asks for the function or method of that name, not a
/// module that shares it (`mod search;` keeps `crate::search`, `fn search` is `crate::search#2`).
pub fn find_symbol(store: &Store, plane: &PlaneInfo, query: &str) -> Result<Resolved> {
    let query = query.trim();
    if query.is_empty() {
        return Err(Error::InvalidArgument(
            "the symbol name is empty; give a name, a key, or a key segment such as `Client.connect`".into(),
        ));
    }
    match query.strip_suffix("()").map(str::trim_end).filter(|q| !q.is_empty()) {
        Some(callable) => find_where(store, plane, callable, query, is_callable),
        None => find_where(store, plane, query, query, |_| true),
    }
}

fn is_callable(node: &Node) -> bool {
    matches!(node.label(), "Function" | "Method")
}

/// Finds the symbol `query` names among those `keep` keeps (`asked` is the query as given).
fn find_where(store: &Store, plane: &PlaneInfo, query: &str, asked: &str, keep: fn(&Node) -> bool) -> Result<Resolved> {
    if let Some(node) = store.node_by_key(plane.id, query)?.filter(keep) {
        return Ok(Resolved::One(node));
    }
    let wanted = segments(query);
    let Some(last) = wanted.last().copied() else {
        return Ok(Resolved::Not(missing(store, plane, asked)?));
    };
    // Key segments, exact case, then ignoring case.
    for exact in [true, false] {
        let named =
            if exact { store.nodes_by_name(plane.id, last)? } else { store.nodes_by_name_ci(plane.id, last)? };
        let matching: Vec<Node> = named
            .into_iter()
            .filter(|n| n.label() != "UnresolvedRef" && keep(n) && key_matches(&n.key, &wanted, exact))
            .collect();
        if matching.is_empty() {
            continue;
        }
        // A symbol of the tree wins over stand-ins for things outside it.
        let in_tree: Vec<&Node> = matching.iter().filter(|n| n.label() != "External").collect();
        if in_tree.len() == 1 {
            return Ok(Resolved::One(in_tree[0].clone()));
        }
        if in_tree.is_empty() && matching.len() == 1 {
            return Ok(Resolved::One(matching.into_iter().next().expect("one match")));
        }
        return Ok(Resolved::Not(Lookup::Ambiguous(candidates(store, plane, asked, matching)?)));
    }
    if let Some(member) = inherited(store, plane, query, last, keep)? {
        return Ok(Resolved::One(member));
    }
    Ok(Resolved::Not(missing(store, plane, asked)?))
}

/// `Type.member` where the member is defined on a type `Type` extends (`Flask.route`, defined on a base
/// class two modules away): the nearest base's member of that name.
fn inherited(
    store: &Store,
    plane: &PlaneInfo,
    query: &str,
    member: &str,
    keep: fn(&Node) -> bool,
) -> Result<Option<Node>> {
    let Some(owner) = query.strip_suffix(member).map(|q| q.trim_end_matches(['.', ':', '/'])).filter(|q| !q.is_empty())
    else {
        return Ok(None);
    };
    // The type, or each of several of that name (a test's `class Flask(flask.Flask)`): one answer only.
    let owners: Vec<Node> = match find_where(store, plane, owner, owner, is_type)? {
        Resolved::One(owner) => vec![owner],
        Resolved::Not(Lookup::Ambiguous(c)) => {
            let mut owners = Vec::new();
            for candidate in c.candidates.items.iter().take(8) {
                owners.extend(store.node_by_key(plane.id, &candidate.node.key)?);
            }
            owners
        }
        Resolved::Not(_) => return Ok(None),
    };
    let mut found: Vec<Node> = Vec::new();
    for owner in owners {
        if let Some(member) = inherited_from(store, owner.id, member, keep)?
            && !found.iter().any(|f| f.id == member.id)
        {
            found.push(member);
        }
    }
    Ok(if found.len() == 1 { found.pop() } else { None })
}

/// The member named `member` of the nearest base of type `owner` that has one.
fn inherited_from(store: &Store, owner: i64, member: &str, keep: fn(&Node) -> bool) -> Result<Option<Node>> {
    const MAX_BASES: usize = 64;
    // Breadth first through the bases, so the nearest definition wins, as method resolution has it.
    let mut frontier = vec![owner];
    let mut seen: HashSet<i64> = HashSet::from([owner]);
    while !frontier.is_empty() && seen.len() <= MAX_BASES {
        let mut next = Vec::new();
        for id in frontier {
            for base in store.adjacent(id, drsg_planes::Direction::Out, &[EdgeType::Extends.as_str()])? {
                if !seen.insert(base.node) {
                    continue;
                }
                let members: Vec<i64> = store
                    .adjacent(
                        base.node,
                        drsg_planes::Direction::Out,
                        &[EdgeType::HasMethod.as_str(), EdgeType::Contains.as_str()],
                    )?
                    .into_iter()
                    .map(|a| a.node)
                    .collect();
                if let Some(found) = store.nodes_by_ids(&members)?.into_iter().find(|n| n.name == member && keep(n)) {
                    return Ok(Some(found));
                }
                next.push(base.node);
            }
        }
        frontier = next;
    }
    Ok(None)
}

fn is_type(node: &Node) -> bool {
    matches!(node.label(), "Class" | "Struct" | "Interface" | "Trait" | "Enum")
}

/// For a verb that walks calls (`trace`, `impact`), the callable a query names when it matched a module
/// and one function or method of the same name (`search` for `mod search;` and `fn search`), with the
/// note that says so; any other answer as [`find_symbol`] gives it.
pub fn find_for_calls(store: &Store, plane: &PlaneInfo, query: &str) -> Result<(Resolved, Option<String>)> {
    let found = find_symbol(store, plane, query)?;
    // A module keyed like a function of its name (`mod search;` beside `fn search`, keyed `…::search#2`).
    if let Resolved::One(module) = &found
        && module.label() == "Module"
    {
        for n in 2..=4 {
            let Some(node) = store.node_by_key(plane.id, &format!("{}#{n}", module.key))? else { break };
            if matches!(node.label(), "Function" | "Method") {
                let note = format!(
                    "`{query}` names module {} and {} {}: this answer is about the {}",
                    module.key,
                    node.label().to_lowercase(),
                    node.key,
                    node.label().to_lowercase()
                );
                return Ok((Resolved::One(node), Some(note)));
            }
        }
    }
    let Resolved::Not(Lookup::Ambiguous(c)) = &found else { return Ok((found, None)) };
    let rows = &c.candidates.items;
    let callables: Vec<&Candidate> =
        rows.iter().filter(|r| matches!(r.node.label.as_str(), "Function" | "Method")).collect();
    let modules: Vec<&Candidate> = rows.iter().filter(|r| r.node.label == "Module").collect();
    if c.candidates.total != rows.len() || callables.len() != 1 || callables.len() + modules.len() != rows.len() {
        return Ok((found, None));
    }
    let Some(node) = store.node_by_key(plane.id, &callables[0].node.key)? else { return Ok((found, None)) };
    let others: Vec<&str> = modules.iter().map(|m| m.node.key.as_str()).collect();
    let note = format!(
        "`{query}` names {} and module {}: this answer is about the {}",
        node.key,
        others.join(", "),
        node.label().to_lowercase()
    );
    Ok((Resolved::One(node), Some(note)))
}

/// The functions and methods of module `module` (those of its types too), most referenced first, at most
/// `cap`; and how many it has.
pub fn module_functions(store: &Store, module: &Node, cap: usize) -> Result<(Vec<Node>, usize)> {
    let mut ids = Vec::new();
    let mut types = Vec::new();
    for a in store.adjacent(module.id, drsg_planes::Direction::Out, &[EdgeType::Contains.as_str()])? {
        ids.push(a.node);
    }
    let mut out = Vec::new();
    for node in store.nodes_by_ids(&ids)? {
        if is_callable(&node) {
            out.push(node);
        } else if is_type(&node) {
            types.push(node.id);
        }
    }
    let mut methods = Vec::new();
    for ty in types {
        methods.extend(
            store
                .adjacent(ty, drsg_planes::Direction::Out, &[EdgeType::HasMethod.as_str()])?
                .into_iter()
                .map(|a| a.node),
        );
    }
    out.extend(store.nodes_by_ids(&methods)?);
    let total = out.len();
    let mut ranked = Vec::with_capacity(out.len());
    for node in out {
        ranked.push((store.referenced(node.id)?, node));
    }
    ranked.sort_by(|(ra, a), (rb, b)| rb.cmp(ra).then(a.key.cmp(&b.key)));
    Ok((ranked.into_iter().take(cap).map(|(_, n)| n).collect(), total))
}

/// Ranks several matches: exact name first, symbols of the tree before stand-ins, then most
/// referenced, then shortest key.
fn candidates(store: &Store, plane: &PlaneInfo, query: &str, nodes: Vec<Node>) -> Result<Candidates> {
    let mut ranked = Vec::with_capacity(nodes.len());
    for node in nodes {
        let referenced = store.referenced(node.id)?;
        ranked.push((node, referenced));
    }
    ranked.sort_by(|(a, ra), (b, rb)| {
        (a.name != query)
            .cmp(&(b.name != query))
            .then((a.label() == "External").cmp(&(b.label() == "External")))
            .then(rb.cmp(ra))
            .then(a.key.len().cmp(&b.key.len()))
            .then(a.key.cmp(&b.key))
    });
    let list = ranked.into_iter().map(|(n, referenced)| Candidate { node: NodeLine::of(&n), referenced }).collect();
    Ok(Candidates {
        query: query.to_owned(),
        plane: plane.meta.name.clone(),
        freshness: freshness(plane),
        candidates: Group::capped(list, MAX_CANDIDATES),
    })
}

fn missing<T>(store: &Store, plane: &PlaneInfo, query: &str) -> Result<Lookup<T>> {
    let unread = unread_files(plane);
    Ok(Lookup::Missing(Box::new(Missing {
        unread,
        cut_files: crate::unresolved::CutFiles::of(plane),
        query: query.to_owned(),
        plane: plane.meta.name.clone(),
        freshness: freshness(plane),
        key_prefixes: key_prefixes(store, plane)?,
        nearest: nearest(store, plane, query)?,
    })))
}

/// The files the plane's ledger records as unreadable (a blob or file that could not be read).
pub fn unread_files(plane: &PlaneInfo) -> Vec<String> {
    let examples = plane.meta.ledger.get("skipped_examples").and_then(|v| v.as_array());
    examples
        .into_iter()
        .flatten()
        .filter(|e| e.get("reason").and_then(|r| r.as_str()) == Some("unreadable"))
        .filter_map(|e| e.get("file").and_then(|f| f.as_str()).map(str::to_owned))
        .collect()
}

/// The prefixes of module keys, most common first (at most 10).
pub fn key_prefixes(store: &Store, plane: &PlaneInfo) -> Result<Vec<String>> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for module in store.nodes_by_label(plane.id, "Module")? {
        let language = module.props.get("language").and_then(|l| l.as_str());
        *counts.entry(key_prefix(&module.key, language)).or_insert(0) += 1;
    }
    let mut list: Vec<(String, usize)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(list.into_iter().take(10).map(|(p, _)| p).collect())
}

/// Names close to the query: same first letters or text-index hits, by edit distance.
fn nearest(store: &Store, plane: &PlaneInfo, query: &str) -> Result<Vec<NodeLine>> {
    let last = segments(query).last().copied().unwrap_or(query).to_owned();
    let mut names: HashSet<String> = HashSet::new();
    let stem: String = last.chars().take(3).collect();
    if !stem.is_empty() {
        names.extend(store.names_with_prefix(plane.id, &stem, last.len(), 400)?);
    }
    let hits: Vec<i64> = store.search(Some(plane.id), query, 20)?.into_iter().map(|(id, _)| id).collect();
    names.extend(store.nodes_by_ids(&hits)?.into_iter().map(|n| n.name));
    let lower = last.to_lowercase();
    let mut scored: Vec<(usize, String)> =
        names.into_iter().map(|name| (edit_distance(&lower, &name.to_lowercase()), name)).collect();
    scored.sort();
    let mut out = Vec::new();
    for (distance, name) in scored {
        if out.len() == MAX_NEAREST || distance > lower.len().max(3) {
            break;
        }
        let nodes = store.nodes_by_name(plane.id, &name)?;
        if let Some(node) = nodes.iter().find(|n| !matches!(n.label(), "UnresolvedRef" | "External")) {
            out.push(NodeLine::of(node));
        }
    }
    Ok(out)
}

/// The segments of a key or of a name as typed: split on `::`, `.` and `/`, with a dedupe suffix
/// (`#2`, `#external`, `#unresolved`) dropped; a `#` elsewhere (`Client.#secret`) is part of a name.
pub fn segments(text: &str) -> Vec<&str> {
    let text = segments_end(text);
    text.split("::").flat_map(|part| part.split(['.', '/'])).filter(|s| !s.is_empty()).collect()
}

/// `text` without its dedupe suffix, if it has one.
fn segments_end(text: &str) -> &str {
    match text.rsplit_once('#') {
        Some((head, tail))
            if !head.is_empty()
                && !head.ends_with(['.', ':', '/'])
                && (tail.bytes().all(|b| b.is_ascii_digit()) && !tail.is_empty()
                    || matches!(tail, "external" | "unresolved")) =>
        {
            head
        }
        _ => text,
    }
}

/// Whether `key` ends with the segments `wanted`. A trait-impl method key
/// `<crate::Type as crate::Trait>::method` matches as `crate::Type::method` and as
/// `crate::Trait::method`.
fn key_matches(key: &str, wanted: &[&str], exact: bool) -> bool {
    let ends = |segs: &[&str]| {
        segs.len() >= wanted.len()
            && segs[segs.len() - wanted.len()..]
                .iter()
                .zip(wanted)
                .all(|(a, b)| if exact { a == b } else { a.eq_ignore_ascii_case(b) })
    };
    if let Some(rest) = key.strip_prefix('<')
        && let Some((inner, member)) = rest.split_once(">::")
        && let Some((ty, tr)) = inner.split_once(" as ")
    {
        let member = segments(member);
        return [ty, tr].iter().any(|path| {
            let mut segs = segments(path);
            segs.extend(member.iter().copied());
            ends(&segs)
        });
    }
    let mut segs = segments(key);
    if ends(&segs) {
        return true;
    }
    // A Cargo target keyed `<target>@<package>` (its name shared with another package's target)
    // answers to its target name too: `integration::util::setup`.
    match segs.first().and_then(|first| first.split_once('@')) {
        Some((target, _)) if !target.is_empty() => {
            segs[0] = target;
            ends(&segs)
        }
        _ => false,
    }
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_matching() {
        assert_eq!(segments("@acme/web/src/api.Client.connect"), ["@acme", "web", "src", "api", "Client", "connect"]);
        assert!(key_matches("@acme/web/src/App", &segments("src/App"), true));
        assert!(key_matches("my::net::Client::connect", &segments("Client.connect"), true));
        assert!(key_matches("pkg.net.Client.connect", &segments("Client::connect"), true));
        assert!(!key_matches("pkg.net.Client.connect", &segments("client.connect"), true));
        assert!(key_matches("pkg.net.Client.connect", &segments("client.connect"), false));
        assert!(!key_matches("pkg.net.MyClient.connect", &segments("Client.connect"), true));
        assert!(key_matches("<app::Dog as app::Speak>::speak", &segments("Dog::speak"), true));
        assert!(key_matches("<app::Dog as app::Speak>::speak", &segments("Speak::speak"), true));
        assert!(key_matches("app::run#2", &segments("run"), true));
        assert!(key_matches("integration@ripgrep::util::setup", &segments("integration::util::setup"), true));
        assert!(key_matches("integration@ripgrep::util::setup", &segments("util::setup"), true));
        assert!(!key_matches("integration@ripgrep::util::setup", &segments("ripgrep::util::setup"), true));
        assert_eq!(segments("Client.#secret"), ["Client", "#secret"]);
        assert_eq!(segments("#secret"), ["#secret"]);
        assert_eq!(segments("a.b#2"), ["a", "b"]);
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("connect", "connect"), 0);
        assert_eq!(edit_distance("conect", "connect"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
