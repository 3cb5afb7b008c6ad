//! `impact`: everything that can reach a symbol through calls, references, instantiations, imports
//! and inheritance, by distance, tests apart from production, with the unresolved sites that might
//! also reach it counted beside the total.
//!
//! `impact` follows `SERVES` and `REQUESTS` like calls, and `--across` adds other planes'
//! requesters (`wire::requested_elsewhere`). It resolves its name with `lookup::find_for_calls`;
//! given a module, it lists the module's functions beside what reaches the module itself. `reach`
//! is the walk `report` runs from each changed definition, with the same completeness rule.

use std::collections::{HashMap, HashSet};

use drsg_planes::{Direction, EdgeType};
use serde::{Deserialize, Serialize};

use crate::dispatch::Dispatch;
use crate::lookup::{Lookup, find_for_calls};
use crate::render::{Group, NodeLine, Page, Text};
use crate::unresolved::{self, CutFiles, UnresolvedSite};
use crate::walk::{Stop, bfs};
use crate::{Answer, Error, Result, Session, is_test};

pub(crate) const IMPACT_TYPES: &[&str] = &[
    EdgeType::Calls.as_str(),
    EdgeType::References.as_str(),
    EdgeType::Instantiates.as_str(),
    EdgeType::Imports.as_str(),
    EdgeType::Extends.as_str(),
    EdgeType::Implements.as_str(),
    EdgeType::Serves.as_str(),
    EdgeType::Requests.as_str(),
];
const MAX_DEPTH: u32 = 6;
const MAX_NODES: usize = 20_000;
const GROUP_CAP: usize = 30;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ImpactParams {
    pub name: String,
    /// Hops walked back (default 3, at most 6).
    pub depth: Option<u32>,
    /// `attached` or `all`: also the functions of other code planes that request a route reached (every code
    /// plane of the database is attached to every other through its routes).
    pub across: Option<String>,
    /// Rows listed per group (default 30); with `offset`, a page of each.
    pub limit: Option<usize>,
    /// Rows of each group skipped before the page.
    pub offset: Option<usize>,
    /// Also list the unresolved call sites behind a lower bound (file, line, why), paged like the groups.
    pub unresolved: Option<bool>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ImpactOutput {
    pub plane: String,
    pub freshness: String,
    pub target: NodeLine,
    pub depth: u32,
    /// Symbols that reach the target, all depths.
    pub total: usize,
    /// Code that reaches it (calls, references, instantiations, inheritance), tests apart.
    pub production: usize,
    pub tests: usize,
    /// Modules that reach it only by importing (listed apart from the code that calls).
    pub importers: usize,
    pub levels: Vec<Level>,
    /// Unresolved call sites named like the target or a symbol at a shallower depth: they may reach
    /// it too, and are not in `total`.
    pub unresolved_sites: u64,
    /// Those sites, by file and line, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<Group<UnresolvedSite>>,
    /// False when a bound cut the walk or the unresolved count.
    pub complete: bool,
    pub stop: Stop,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub across: Option<String>,
    /// Which symbol a name that matched a module and a function was taken for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picked: Option<String>,
    /// Files of the plane part of which was not read: calls there are not counted.
    #[serde(skip_serializing_if = "CutFiles::is_empty")]
    pub cut_files: CutFiles,
    /// When the target is a module: its functions and methods (most referenced first), through which
    /// its code is called, and how many it has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_functions: Option<(Vec<NodeLine>, usize)>,
    /// Dockerfiles whose build context holds the target's file, each with the workloads running what it
    /// builds: a change here ships in those images.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub built_into: Vec<String>,
    /// With `across`: functions of other planes requesting a route reached, as `caller (plane) requests
    /// METHOD path at line N`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub across_wire: Vec<String>,
}

/// Functions of a module target listed.
const MODULE_FUNCTIONS: usize = 8;

#[derive(Debug, Serialize)]
pub struct Level {
    pub depth: u32,
    pub production: Group<Reacher>,
    pub tests: Group<Reacher>,
    pub importers: Group<Reacher>,
}

#[derive(Debug, Serialize)]
pub struct Reacher {
    #[serde(flatten)]
    pub node: NodeLine,
    pub via: &'static str,
}

pub fn impact(s: &Session<'_>, p: &ImpactParams) -> Result<Lookup<ImpactOutput>> {
    let depth = p.depth.unwrap_or(3);
    if depth == 0 || depth > MAX_DEPTH {
        return Err(Error::InvalidArgument(format!("depth must be 1 to {MAX_DEPTH} (got {depth})")));
    }
    if let Some(across) = p.across.as_deref()
        && !matches!(across, "attached" | "all")
    {
        return Err(Error::InvalidArgument(format!("across `{across}` is not one of `attached`, `all`")));
    }
    let page = Page::new(p.limit, p.offset);
    page.check()?;
    let plane = s.plane(p.plane.as_deref())?;
    let (found, picked) = find_for_calls(s.store, &plane, &p.name)?;
    let target = match found.into_node() {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    let reach = reach(s, &plane, &target, depth)?;
    let listed = match p.unresolved {
        Some(true) => {
            let names: Vec<&str> = reach.names.iter().map(String::as_str).collect();
            Some(unresolved::list(s.store, plane.id, &names, reach.count.sites, page, GROUP_CAP)?)
        }
        _ => None,
    };
    let (walk, nodes, count) = (&reach.walk, &reach.nodes, reach.count);

    let mut levels = Vec::new();
    let (mut production, mut tests, mut importers) = (0, 0, 0);
    for d in 1..=depth {
        let (mut prod, mut test, mut imports) = (Vec::new(), Vec::new(), Vec::new());
        for r in walk.reached.iter().filter(|r| r.depth == d) {
            let Some(n) = nodes.get(&r.node) else { continue };
            let row = Reacher { node: NodeLine::of(n), via: r.ty };
            if r.ty == EdgeType::Imports.as_str() {
                imports.push(row)
            } else if is_test(n) {
                test.push(row)
            } else {
                prod.push(row)
            }
        }
        if prod.is_empty() && test.is_empty() && imports.is_empty() {
            continue;
        }
        production += prod.len();
        tests += test.len();
        importers += imports.len();
        for list in [&mut prod, &mut test, &mut imports] {
            list.sort_by(|a, b| a.node.key.cmp(&b.node.key));
        }
        levels.push(Level {
            depth: d,
            production: Group::paged(prod, page, GROUP_CAP),
            tests: Group::paged(test, page, GROUP_CAP),
            importers: Group::paged(imports, page, GROUP_CAP),
        });
    }
    let cut_files = CutFiles::of(&plane);
    let mut across_wire = Vec::new();
    if p.across.is_some() {
        let mut routes: Vec<&drsg_planes::Node> = nodes.values().filter(|n| n.label() == "Route").collect();
        if target.label() == "Route" {
            routes.push(&target);
        }
        across_wire = crate::wire::requested_elsewhere(s, &plane, &routes)?;
    }
    let built_into = match &target.file {
        Some(file) => crate::deployed::built_from(s, &plane, file)?,
        None => Vec::new(),
    };
    Ok(Lookup::Found(ImpactOutput {
        built_into,
        across_wire,
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        target: NodeLine::of(&target),
        depth,
        total: production + tests + importers,
        production,
        tests,
        importers,
        levels,
        unresolved_sites: count.sites,
        unresolved: listed,
        module_functions: match target.label() {
            "Module" => {
                let (functions, total) = crate::lookup::module_functions(s.store, &target, MODULE_FUNCTIONS)?;
                Some((functions.iter().map(NodeLine::of).collect(), total))
            }
            _ => None,
        },
        complete: reach.complete(&cut_files),
        stop: walk.stop,
        across: p.across.clone(),
        picked,
        cut_files,
    }))
}

/// What reaches a symbol within `depth` hops: the walk, its nodes, and the unresolved sites named
/// like the target or a symbol above the last level.
pub(crate) struct Reach {
    pub walk: crate::walk::Walk,
    pub nodes: HashMap<i64, drsg_planes::Node>,
    /// The names whose unresolved sites are counted.
    pub names: Vec<String>,
    pub count: unresolved::Count,
}

impl Reach {
    /// Whether nothing uncounted could add to it within its depth.
    pub fn complete(&self, cut: &CutFiles) -> bool {
        self.count.sites == 0 && !self.count.names_cut && self.walk.stop != Stop::Nodes && cut.is_empty()
    }
}

/// Walks back from `target` through the edges `impact` follows (and its dispatch: a constructor's
/// class, an implementation's interface method).
pub(crate) fn reach(
    s: &Session<'_>,
    plane: &drsg_planes::PlaneInfo,
    target: &drsg_planes::Node,
    depth: u32,
) -> Result<Reach> {
    let dispatch = Dispatch::of(s.store, target)?;
    let start = dispatch.start(target);
    let walk = bfs(s.store, start, &[Direction::In], IMPACT_TYPES, depth, MAX_NODES, |_| Ok(true))?;
    let ids: Vec<i64> = walk.reached.iter().map(|r| r.node).collect();
    let nodes: HashMap<i64, drsg_planes::Node> = s.store.nodes_by_ids(&ids)?.into_iter().map(|n| (n.id, n)).collect();
    // Unresolved sites that might reach the target or a symbol through which it is reached.
    let mut names: Vec<String> = vec![target.name.clone()];
    names.extend(dispatch.class.as_ref().map(|c| c.name.clone()));
    names.extend(
        walk.reached.iter().filter(|r| r.depth < depth).filter_map(|r| nodes.get(&r.node)).map(|n| n.name.clone()),
    );
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    let borrowed: Vec<&str> = names.iter().map(String::as_str).collect();
    let count = unresolved::count(s.store, plane.id, &borrowed)?;
    Ok(Reach { walk, nodes, names, count })
}

impl Answer for ImpactOutput {
    fn render_to(&self, t: &mut Text) {
        if let Some(picked) = &self.picked {
            t.line(format_args!("{picked}"));
        }
        t.line(format_args!("impact of {}", self.target));
        if let Some((functions, total)) = &self.module_functions {
            t.line(format_args!(
                "{} is a module: what follows reaches the module itself (imports, references); its code is called through its {total} functions, whose impact is asked of each:",
                self.target.key
            ));
            for f in functions {
                t.line(format_args!("  {f}"));
            }
        }
        let bound = match self.stop {
            Stop::Exhausted => "nothing reaches further",
            Stop::Depth => "more lies beyond this depth",
            Stop::Nodes => "stopped at the node cap",
        };
        let imports =
            if self.importers > 0 { format!(", {} modules by import", self.importers) } else { String::new() };
        t.line(format_args!(
            "{} symbols reach it within {} hops ({} production, {} tests{imports}; {bound})",
            self.total, self.depth, self.production, self.tests
        ));
        if self.unresolved_sites > 0 {
            let listed =
                if self.unresolved.is_some() { String::new() } else { format!("; {} lists them", unresolved::hint(t)) };
            t.line(format_args!(
                "lower bound: {} unresolved call sites named like these symbols may also reach it (not counted{listed})",
                self.unresolved_sites
            ));
        } else if self.complete {
            t.line(format_args!("complete: no unresolved call site names any of these symbols"));
        }
        if !self.cut_files.is_empty() {
            t.line(format_args!("lower bound: {}", self.cut_files.sentence()));
        }
        if let Some(sites) = &self.unresolved {
            unresolved::render(t, sites);
        }
        for level in &self.levels {
            t.line(format_args!("depth {}:", level.depth));
            if !level.production.is_empty() {
                t.line(format_args!("  production: {}", level.production.total));
                t.page(&level.production, |t, r| {
                    t.line(format_args!("    {}  via {}", r.node, r.via));
                });
            }
            if !level.tests.is_empty() {
                t.line(format_args!("  tests: {}", level.tests.total));
                t.page(&level.tests, |t, r| {
                    t.line(format_args!("    {}  via {}", r.node, r.via));
                });
            }
            if !level.importers.is_empty() {
                t.line(format_args!("  modules that import: {}", level.importers.total));
                t.page(&level.importers, |t, r| {
                    t.line(format_args!("    {}", r.node));
                });
            }
        }
        for d in &self.built_into {
            t.line(format_args!("built into: {d}"));
        }
        if self.across.is_some() {
            if self.across_wire.is_empty() {
                t.line(format_args!("across planes: no function of another plane requests a route reached"));
            } else {
                t.line(format_args!("across planes, via REQUESTS: {}", self.across_wire.len()));
                for line in &self.across_wire {
                    t.line(format_args!("  {line}"));
                }
            }
        }
        t.line(format_args!("{}", self.freshness));
    }
}
