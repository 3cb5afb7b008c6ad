//! `context`: the agent's first question about a symbol, answered in one call: what it is, who calls
//! it from which lines, what it calls (and what could not be resolved, and why), what contains it and
//! what it contains, and every other relation by direction.

use std::collections::{BTreeMap, HashMap};

use drsg_planes::{Direction, Edge, EdgeType, Node, Store};
use serde::{Deserialize, Serialize};

use crate::describe::Symbol;
use crate::dispatch::Dispatch;
use crate::lookup::{Lookup, find_symbol, segments};
use crate::render::{Group, NodeLine, Page, Text, one_line, site_lines};
use crate::unresolved::{self, CutFiles, UnresolvedSite};
use crate::walk::bfs;
use crate::{Answer, CALL_TYPES, Result, Session, is_test};

const STRUCTURE_TYPES: &[&str] = &[EdgeType::Contains.as_str(), EdgeType::HasMethod.as_str()];
/// How many rows a group keeps in the structured answer.
const GROUP_CAP: usize = 50;
const MAX_DEPTH: u32 = 3;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ContextParams {
    /// A key, a key segment (`Client.connect`) or a name.
    pub name: String,
    /// Levels of callers to list (1–3, default 1).
    pub depth: Option<u32>,
    /// Callers and callees listed (default 50); with `offset`, a page of each list.
    pub limit: Option<usize>,
    /// Callers and callees skipped before the page.
    pub offset: Option<usize>,
    /// Also list the unresolved call sites behind a lower bound (file, line, why), paged like the callers.
    pub unresolved: Option<bool>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ContextOutput {
    pub plane: String,
    pub freshness: String,
    pub symbol: Symbol,
    pub contained_by: Vec<NodeLine>,
    /// Asked as a member of a type that does not define it (`Flask.route`): the type it is inherited from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inherited_from: Option<String>,
    pub callers: Callers,
    pub callees: Callees,
    pub contains: Group<NodeLine>,
    /// For an interface or trait method, the methods that implement it.
    #[serde(skip_serializing_if = "Group::is_empty")]
    pub implemented_by: Group<NodeLine>,
    /// Every other edge type, by direction.
    pub other: Vec<Relation>,
    /// For a commit of a `_git` plane: the workloads running images built from it.
    #[serde(skip_serializing_if = "Group::is_empty")]
    pub deployed: Group<String>,
}

#[derive(Debug, Serialize)]
pub struct Callers {
    /// Call sites binding to the symbol (depth 1).
    pub sites: usize,
    /// Symbols holding those sites (depth 1).
    pub symbols: usize,
    /// Calling symbols, depth 1 first.
    pub by_symbol: Group<Caller>,
    /// Call sites anywhere in the plane that could not be bound and name the symbol (or, with depth
    /// above 1, a caller above the last level): they may be calls to it, and are not in `sites`.
    pub unresolved_same_name: u64,
    /// True when `unresolved_same_name` is 0: every call to the symbol is listed.
    pub complete: bool,
    /// Those sites, by file and line, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<Group<UnresolvedSite>>,
    /// For a constructor, the key of its class, whose instantiations (`new C(…)`, `C(…)`) are among the sites.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instantiated: Option<String>,
    /// For an implementation, the interface or trait method it implements, whose call sites may run it
    /// (not in `sites`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub through_interface: Option<Interface>,
    /// Levels listed.
    pub depth: u32,
    /// Each level kept its own share of the first page (depth above 1, no page asked for), so the
    /// page is not a slice of the whole list.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub levels_shared: bool,
    /// Files of the plane part of which was not read: calls there are not counted.
    #[serde(skip_serializing_if = "CutFiles::is_empty")]
    pub cut_files: CutFiles,
}

/// The interface or trait method an implementation implements, and how many call sites bind to it.
#[derive(Debug, Serialize)]
pub struct Interface {
    pub method: String,
    pub sites: u64,
}

#[derive(Debug, Serialize)]
pub struct Caller {
    #[serde(flatten)]
    pub node: NodeLine,
    pub depth: u32,
    /// Lines of the call sites in the caller.
    pub lines: Vec<u32>,
    pub is_test: bool,
}

#[derive(Debug, Serialize)]
pub struct Callees {
    pub sites: usize,
    pub resolved: usize,
    pub external: usize,
    pub unresolved: usize,
    pub rows: Group<Callee>,
}

#[derive(Debug, Serialize)]
pub struct Callee {
    #[serde(flatten)]
    pub node: NodeLine,
    pub lines: Vec<u32>,
    /// How the call was bound (`import`, `scope`, `receiver-type`, …); absent when unresolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    /// The call as written, for an unresolved site.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Relation {
    #[serde(rename = "type")]
    pub ty: String,
    pub direction: Direction,
    pub nodes: Group<NodeLine>,
}

pub fn context(s: &Session<'_>, p: &ContextParams) -> Result<Lookup<ContextOutput>> {
    let plane = s.plane(p.plane.as_deref())?;
    let depth = p.depth.unwrap_or(1);
    if depth == 0 || depth > MAX_DEPTH {
        return Err(crate::Error::InvalidArgument(format!("depth must be 1 to {MAX_DEPTH} (got {depth})")));
    }
    let page = Page::new(p.limit, p.offset);
    page.check()?;
    let node = match find_symbol(s.store, &plane, &p.name)?.into_node() {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    let dispatch = Dispatch::of(s.store, &node)?;
    let mut incoming = s.store.edges_in(node.id, None)?;
    if let Some(class) = &dispatch.class {
        incoming.extend(s.store.edges_in(class.id, Some(EdgeType::Instantiates.as_str()))?);
    }
    let outgoing = s.store.edges_out(node.id, None)?;
    let mut ids: Vec<i64> = incoming.iter().map(|e| e.src).chain(outgoing.iter().map(|e| e.dst)).collect();
    ids.sort_unstable();
    ids.dedup();
    let ends: HashMap<i64, Node> = s.store.nodes_by_ids(&ids)?.into_iter().map(|n| (n.id, n)).collect();

    let ask = Ask { depth, page, list: p.unresolved.unwrap_or(false), dispatch: &dispatch };
    let mut callers = callers(s.store, plane.id, &node, &incoming, &ends, ask)?;
    callers.cut_files = CutFiles::of(&plane);
    callers.complete &= callers.cut_files.is_empty();
    let callees = callees(&outgoing, &ends, page);
    let line_of = |id: i64| ends.get(&id).map(NodeLine::of);
    let contained_by: Vec<NodeLine> =
        incoming.iter().filter(|e| STRUCTURE_TYPES.contains(&e.ty.as_str())).filter_map(|e| line_of(e.src)).collect();
    let mut contains: Vec<(Option<u32>, NodeLine)> = outgoing
        .iter()
        .filter(|e| STRUCTURE_TYPES.contains(&e.ty.as_str()))
        .filter_map(|e| ends.get(&e.dst).map(|n| (n.line, NodeLine::of(n))))
        .collect();
    contains.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.key.cmp(&b.1.key)));
    let contains = Group::capped(contains.into_iter().map(|(_, n)| n).collect(), GROUP_CAP);

    let mut other: BTreeMap<(String, u8), Vec<NodeLine>> = BTreeMap::new();
    let skip = |ty: &str| CALL_TYPES.contains(&ty) || STRUCTURE_TYPES.contains(&ty);
    for (edges, dir) in [(&incoming, Direction::In), (&outgoing, Direction::Out)] {
        for e in edges.iter().filter(|e| !skip(&e.ty)) {
            let far = if dir == Direction::In { e.src } else { e.dst };
            if let Some(line) = line_of(far) {
                other.entry((e.ty.clone(), dir as u8)).or_default().push(line);
            }
        }
    }
    let other = other
        .into_iter()
        .map(|((ty, dir), mut nodes)| {
            nodes.sort_by(|a, b| a.key.cmp(&b.key));
            nodes.dedup();
            let direction = if dir == Direction::In as u8 { Direction::In } else { Direction::Out };
            Relation { ty, direction, nodes: Group::capped(nodes, GROUP_CAP) }
        })
        .collect();

    let mut deployed = Vec::new();
    if node.label() == "Commit"
        && let Some(code) = crate::deployed::code_of_git(s, &plane)?
        && let Some(sha) = node.props.get("sha").and_then(|v| v.as_str())
    {
        deployed = crate::deployed::running(s, &code)?.remove(sha).unwrap_or_default();
    }
    // `Flask.route` answered by `Scaffold.route`: the name asked is not the tail of the key found.
    let (asked, own) = (segments(p.name.trim().trim_end_matches("()")), segments(&node.key));
    let inherited_from = (asked.len() > 1 && !own.ends_with(&asked))
        .then(|| {
            contained_by
                .iter()
                .find(|c: &&NodeLine| matches!(c.label.as_str(), "Class" | "Interface" | "Struct" | "Trait"))
        })
        .flatten()
        .map(|c| c.key.clone());
    Ok(Lookup::Found(ContextOutput {
        inherited_from,
        deployed: Group::capped(deployed, GROUP_CAP),
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        symbol: Symbol::of(&node),
        contained_by,
        callers,
        callees,
        contains,
        implemented_by: Group::capped(dispatch.implemented_by.iter().map(NodeLine::of).collect(), GROUP_CAP),
        other,
    }))
}

fn site_line(e: &Edge) -> Option<u32> {
    e.props.get("line").and_then(|v| v.as_u64()).and_then(|l| u32::try_from(l).ok())
}

fn prop(e: &Edge, name: &str) -> Option<String> {
    e.props.get(name).and_then(|v| v.as_str()).map(str::to_owned)
}

/// What the callers are asked for: levels, the page, whether the unresolved sites are listed, and what
/// else calls reach the symbol through.
#[derive(Debug, Clone, Copy)]
struct Ask<'n> {
    depth: u32,
    page: Page,
    list: bool,
    dispatch: &'n Dispatch,
}

fn callers(
    store: &Store,
    plane: i64,
    node: &Node,
    incoming: &[Edge],
    ends: &HashMap<i64, Node>,
    ask: Ask<'_>,
) -> Result<Callers> {
    let Ask { depth, page, list, dispatch } = ask;
    let class = dispatch.class.as_ref();
    let calls: Vec<&Edge> = incoming.iter().filter(|e| CALL_TYPES.contains(&e.ty.as_str())).collect();
    let mut by_src: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
    for e in &calls {
        let lines = by_src.entry(e.src).or_default();
        lines.extend(site_line(e));
    }
    // Names of the callers above the last level: unresolved sites named like them may add callers.
    let mut above: Vec<String> = Vec::new();
    let mut rows: Vec<Caller> = by_src
        .into_iter()
        .filter_map(|(src, mut lines)| {
            let n = ends.get(&src)?;
            if depth > 1 {
                above.push(n.name.clone());
            }
            lines.sort_unstable();
            lines.dedup();
            Some(Caller { node: NodeLine::of(n), depth: 1, lines, is_test: is_test(n) })
        })
        .collect();
    let mut cut = false;
    if depth > 1 {
        let walk = bfs(store, dispatch.start(node), &[Direction::In], CALL_TYPES, depth, 2_000, |_| Ok(true))?;
        cut = walk.stop == crate::walk::Stop::Nodes;
        let deeper: Vec<i64> = walk.reached.iter().filter(|r| r.depth > 1).map(|r| r.node).collect();
        let depth_of: HashMap<i64, u32> = walk.reached.iter().map(|r| (r.node, r.depth)).collect();
        for n in store.nodes_by_ids(&deeper)? {
            let d = depth_of.get(&n.id).copied().unwrap_or(2);
            if d < depth {
                above.push(n.name.clone());
            }
            rows.push(Caller { node: NodeLine::of(&n), depth: d, lines: Vec::new(), is_test: is_test(&n) });
        }
    }
    let symbols = rows.len();
    // Unresolved sites named like the symbol, or like a caller above the last level, may add callers.
    let mut names: Vec<&str> = Vec::new();
    if node.label() != "External" && node.label() != "UnresolvedRef" {
        names.push(&node.name);
        names.extend(class.map(|c| c.name.as_str()));
        names.extend(above.iter().map(String::as_str));
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(*n));
    }
    let count = unresolved::count(store, plane, &names)?;
    let listed = if list { Some(unresolved::list(store, plane, &names, count.sites, page, GROUP_CAP)?) } else { None };
    let names_cut = count.names_cut;
    let through_interface = match &dispatch.implements {
        Some(method) => {
            let sites = CALL_TYPES.iter().map(|ty| store.in_degree(method.id, ty)).sum::<drsg_planes::Result<u64>>()?;
            (sites > 0).then(|| Interface { method: method.key.clone(), sites })
        }
        None => None,
    };
    rows.sort_by(|a, b| a.depth.cmp(&b.depth).then(a.is_test.cmp(&b.is_test)).then(a.node.key.cmp(&b.node.key)));
    // On the first page each level keeps its own share of the cap, so deeper callers are not
    // crowded out; a page asked for is a slice of the list in its order.
    let total = rows.len();
    let levels_shared = depth > 1 && page == Page::default() && total > GROUP_CAP;
    if levels_shared {
        let share = GROUP_CAP / depth as usize;
        let mut kept = vec![0usize; depth as usize + 1];
        rows.retain(|r| {
            kept[r.depth as usize] += 1;
            kept[r.depth as usize] <= share
        });
    }
    let by_symbol = if levels_shared { Group::of_page(rows, 0, total) } else { Group::paged(rows, page, GROUP_CAP) };
    Ok(Callers {
        sites: calls.len(),
        symbols,
        by_symbol,
        unresolved_same_name: count.sites,
        complete: count.sites == 0 && !names_cut && !cut && through_interface.is_none(),
        through_interface,
        unresolved: listed,
        instantiated: class.map(|c| c.key.clone()),
        depth,
        levels_shared,
        cut_files: CutFiles::default(),
    })
}

fn callees(outgoing: &[Edge], ends: &HashMap<i64, Node>, page: Page) -> Callees {
    let calls: Vec<&Edge> = outgoing.iter().filter(|e| CALL_TYPES.contains(&e.ty.as_str())).collect();
    let (mut resolved, mut external, mut unresolved) = (0, 0, 0);
    // Resolved and external calls: one row per target. Unresolved: one row per site, each with its reason.
    let mut by_dst: BTreeMap<i64, (Vec<u32>, Option<String>)> = BTreeMap::new();
    let mut rows_unresolved = Vec::new();
    for e in &calls {
        let Some(dst) = ends.get(&e.dst) else { continue };
        match dst.label() {
            "UnresolvedRef" => {
                unresolved += 1;
                rows_unresolved.push(Callee {
                    node: NodeLine::of(dst),
                    lines: site_line(e).into_iter().collect(),
                    resolved_by: None,
                    text: prop(e, "ref"),
                    reason: prop(e, "reason"),
                });
            }
            label => {
                if label == "External" {
                    external += 1;
                } else {
                    resolved += 1;
                }
                let entry = by_dst.entry(e.dst).or_insert_with(|| (Vec::new(), prop(e, "resolved_by")));
                entry.0.extend(site_line(e));
            }
        }
    }
    let mut rows: Vec<Callee> = by_dst
        .into_iter()
        .filter_map(|(dst, (mut lines, resolved_by))| {
            lines.sort_unstable();
            lines.dedup();
            Some(Callee { node: NodeLine::of(ends.get(&dst)?), lines, resolved_by, text: None, reason: None })
        })
        .collect();
    // Tree symbols first, then stand-ins; each by first call line.
    rows.sort_by(|a, b| {
        (a.node.label == "External").cmp(&(b.node.label == "External")).then(a.lines.first().cmp(&b.lines.first()))
    });
    rows_unresolved.sort_by(|a, b| a.lines.first().cmp(&b.lines.first()));
    rows.extend(rows_unresolved);
    Callees { sites: calls.len(), resolved, external, unresolved, rows: Group::paged(rows, page, GROUP_CAP) }
}

impl Answer for ContextOutput {
    fn render_to(&self, t: &mut Text) {
        self.symbol.render_header(t);
        t.line(format_args!("{}", self.freshness));
        for parent in &self.contained_by {
            t.line(format_args!("contained by: {parent}"));
        }
        if let Some(base) = &self.inherited_from {
            t.line(format_args!("inherited from: {base} (the type asked for does not define it)"));
        }
        if !self.deployed.is_empty() {
            t.line(format_args!("deployed: {} workloads run images built from it", self.deployed.total));
            t.group(&self.deployed, |t, w| {
                t.line(format_args!("  {w}"));
            });
        }
        let c = &self.callers;
        let completeness = if c.complete {
            "complete".to_owned()
        } else if !c.cut_files.is_empty() && c.unresolved_same_name == 0 && c.through_interface.is_none() {
            format!("a lower bound: {}", c.cut_files.sentence())
        } else if let Some(i) = c.through_interface.as_ref().filter(|_| c.unresolved_same_name == 0) {
            format!("a lower bound: {} call sites bound to {} may run it", i.sites, i.method)
        } else if c.unresolved_same_name == 0 {
            "a lower bound: the walk stopped at its node cap".to_owned()
        } else {
            let named = if c.depth > 1 { "like these callers".to_owned() } else { format!("`{}`", self.symbol.name) };
            let listed =
                if c.unresolved.is_some() { String::new() } else { format!(" ({} lists them)", unresolved::hint(t)) };
            format!(
                "lower bound: {} unresolved call sites named {named} elsewhere may also call it, not counted{listed}",
                c.unresolved_same_name
            )
        };
        if c.by_symbol.is_empty() {
            t.line(format_args!("callers: none ({completeness})"));
        } else {
            t.line(format_args!("callers: {} call sites from {} symbols ({completeness})", c.sites, c.symbols));
            if let Some(class) = &c.instantiated {
                t.line(format_args!("  (a constructor: the instantiations of {class} are its calls)"));
            }
            if let Some(i) = c.through_interface.as_ref().filter(|_| c.unresolved_same_name > 0) {
                t.line(format_args!(
                    "  (and {} call sites bound to {}, which it implements, may run it)",
                    i.sites, i.method
                ));
            }
            if c.depth > 1 {
                t.line(format_args!("  ({} callers within {} levels; [n] is the level)", c.by_symbol.total, c.depth));
            }
            let row = |t: &mut Text, r: &Caller| {
                let test = if r.is_test { "  [test]" } else { "" };
                let depth = if c.depth > 1 { format!("[{}] ", r.depth) } else { String::new() };
                if r.lines.is_empty() {
                    t.line(format_args!("  {depth}{}{test}", r.node));
                } else {
                    t.line(format_args!("  {depth}{}  {}{test}", r.node, site_lines(&r.lines)));
                }
            };
            if c.levels_shared {
                // The first page holds a share of each level: the rest is no slice to page from.
                for r in &c.by_symbol.items {
                    row(t, r);
                }
                let whole = format!("{} {}", t.surface.arg("limit", GROUP_CAP), t.surface.arg("offset", 0));
                t.line(format_args!("  … and {} more ({whole} pages the list in order)", c.by_symbol.after()));
            } else {
                t.page(&c.by_symbol, row);
            }
        }
        if let Some(sites) = &c.unresolved {
            unresolved::render(t, sites);
        }
        let k = &self.callees;
        if k.sites == 0 {
            t.line(format_args!("calls: none"));
        } else {
            t.line(format_args!(
                "calls: {} sites ({} resolved, {} external, {} unresolved)",
                k.sites, k.resolved, k.external, k.unresolved
            ));
            if k.rows.offset > 0 && k.rows.items.is_empty() {
                t.line(format_args!("  (the offset is past the last of its {} rows)", k.rows.total));
            } else if k.rows.offset > 0 {
                let (from, to) = (k.rows.offset + 1, k.rows.offset + k.rows.items.len());
                t.line(format_args!("  (rows {from}-{to} of {})", k.rows.total));
            }
            let bound = k.rows.items.iter().filter(|r| r.reason.is_none() && r.node.label != "UnresolvedRef");
            for r in bound {
                if r.node.label == "External" {
                    t.line(format_args!("  {}  External  {}", r.node.key, site_lines(&r.lines)));
                } else {
                    let by = r.resolved_by.as_deref().map(|b| format!("  by {b}")).unwrap_or_default();
                    t.line(format_args!("  {}  {}{by}", r.node, site_lines(&r.lines)));
                }
            }
            // Unresolved sites, grouped by reason: `text (line)` each, cut to stay compact.
            let mut by_reason: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            for r in k.rows.items.iter().filter(|r| r.node.label == "UnresolvedRef") {
                let text = one_line(r.text.as_deref().unwrap_or(&r.node.key), 48);
                let line = r.lines.first().map(|l| format!(" ({l})")).unwrap_or_default();
                by_reason.entry(r.reason.as_deref().unwrap_or("unresolved")).or_default().push(format!("{text}{line}"));
            }
            for (reason, sites) in by_reason {
                t.line(format_args!("  unresolved, {reason}: {}", sites.join(", ")));
            }
            t.more(&k.rows);
        }
        if !self.implemented_by.is_empty() {
            t.line(format_args!("implemented by: {} (calls bound to it may run these)", self.implemented_by.total));
            t.group(&self.implemented_by, |t, n| {
                t.line(format_args!("  {n}"));
            });
        }
        if !self.contains.is_empty() {
            t.line(format_args!("contains: {}", self.contains.total));
            t.group(&self.contains, |t, n| {
                t.line(format_args!("  {n}"));
            });
        }
        for rel in &self.other {
            let dir = if rel.direction == Direction::In { "in" } else { "out" };
            t.line(format_args!("{} {dir}: {}", rel.ty, rel.nodes.total));
            t.group(&rel.nodes, |t, n| {
                t.line(format_args!("  {n}"));
            });
        }
    }
}
