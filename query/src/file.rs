//! `file`: a file's language, module key, declared symbols with their lines, what it imports and who
//! imports it.

use std::collections::{BTreeMap, HashMap, HashSet};

use drsg_planes::{EdgeType, Node};
use serde::{Deserialize, Serialize};

use crate::render::{Group, NodeLine, Text};
use crate::{Answer, Result, Session};

const SYMBOL_CAP: usize = 150;
const IMPORT_CAP: usize = 60;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct FileParams {
    /// Path relative to the tree's root.
    pub path: String,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FileOutput {
    Found(FileAnswer),
    /// No indexed file at that path: files whose path contains it.
    Missing {
        path: String,
        plane: String,
        freshness: String,
        similar: Group<String>,
        /// The file is in the tree but could not be read (its blob is unreadable).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        unreadable: bool,
    },
}

#[derive(Debug, Serialize)]
pub struct FileAnswer {
    pub plane: String,
    pub freshness: String,
    pub path: String,
    pub language: Option<String>,
    pub module: Option<NodeLine>,
    pub symbols: Group<Declared>,
    pub imports: Group<Import>,
    pub importers: Group<NodeLine>,
}

#[derive(Debug, Serialize)]
pub struct Declared {
    pub line: Option<u32>,
    pub end_line: Option<u32>,
    pub label: String,
    pub key: String,
    /// Nesting below the module (0 for top-level symbols).
    pub depth: usize,
    /// Key of the enclosing symbol, when it is not the module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Import {
    pub line: Option<u32>,
    /// What the file wrote.
    pub text: Option<String>,
    pub target: NodeLine,
}

pub fn file(s: &Session<'_>, p: &FileParams) -> Result<FileOutput> {
    let plane = s.plane(p.plane.as_deref())?;
    let path = crate::snippet::relative_to_root(&plane, &p.path);
    let nodes = s.store.nodes_in_file(plane.id, &path)?;
    let declared: Vec<&Node> = nodes.iter().filter(|n| !matches!(n.label(), "UnresolvedRef" | "External")).collect();
    if declared.is_empty() {
        let needle = path.to_lowercase();
        let mut similar: Vec<String> = s
            .store
            .nodes_by_label(plane.id, "Module")?
            .into_iter()
            .filter_map(|m| m.file)
            .filter(|f| !needle.is_empty() && f.to_lowercase().contains(&needle))
            .collect();
        similar.sort();
        similar.dedup();
        return Ok(FileOutput::Missing {
            unreadable: crate::lookup::unread_files(&plane).contains(&path),
            path,
            freshness: s.freshness(&plane),
            plane: plane.meta.name,
            similar: Group::capped(similar, 20),
        });
    }
    let module = declared.iter().find(|n| n.label() == "Module").copied();
    let ids: HashSet<i64> = declared.iter().map(|n| n.id).collect();

    // Nesting depth from CONTAINS/HAS_METHOD within the file.
    let mut parent: HashMap<i64, i64> = HashMap::new();
    let mut imports = Vec::new();
    let mut importer_ids = Vec::new();
    for n in &declared {
        for e in s.store.edges_out(n.id, None)? {
            match EdgeType::parse(&e.ty) {
                Some(EdgeType::Contains | EdgeType::HasMethod) if ids.contains(&e.dst) => {
                    parent.insert(e.dst, n.id);
                }
                Some(EdgeType::Imports) => imports.push(e),
                _ => {}
            }
        }
        for e in s.store.edges_in(n.id, Some(EdgeType::Imports.as_str()))? {
            if !ids.contains(&e.src) {
                importer_ids.push(e.src);
            }
        }
    }
    let depth_of = |mut id: i64| {
        let mut d = 0;
        while let Some(&p) = parent.get(&id) {
            if Some(p) == module.map(|m| m.id) {
                break;
            }
            d += 1;
            id = p;
            if d > 32 {
                break;
            }
        }
        d
    };
    let symbols: Vec<Declared> = declared
        .iter()
        .filter(|n| Some(n.id) != module.map(|m| m.id))
        .map(|n| Declared {
            line: n.line,
            end_line: n.end_line,
            label: n.label().to_owned(),
            key: n.key.clone(),
            depth: depth_of(n.id),
            parent: parent
                .get(&n.id)
                .filter(|&&p| Some(p) != module.map(|m| m.id))
                .and_then(|p| declared.iter().find(|d| d.id == *p))
                .map(|d| d.key.clone()),
        })
        .collect();

    let targets: HashMap<i64, Node> = s
        .store
        .nodes_by_ids(&imports.iter().map(|e| e.dst).collect::<Vec<_>>())?
        .into_iter()
        .map(|n| (n.id, n))
        .collect();
    let mut import_rows: Vec<Import> = imports
        .iter()
        .filter_map(|e| {
            Some(Import {
                line: e.props.get("line").and_then(|v| v.as_u64()).and_then(|l| u32::try_from(l).ok()),
                text: e.props.get("ref").and_then(|v| v.as_str()).map(str::to_owned),
                target: NodeLine::of(targets.get(&e.dst)?),
            })
        })
        .collect();
    import_rows.sort_by(|a, b| a.line.cmp(&b.line).then(a.target.key.cmp(&b.target.key)));
    importer_ids.sort_unstable();
    importer_ids.dedup();
    let mut importers: BTreeMap<String, NodeLine> = BTreeMap::new();
    for n in s.store.nodes_by_ids(&importer_ids)? {
        importers.insert(n.key.clone(), NodeLine::of(&n));
    }
    Ok(FileOutput::Found(FileAnswer {
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        language: module.and_then(|m| m.props.get("language")).and_then(|l| l.as_str()).map(str::to_owned),
        module: module.map(NodeLine::of),
        path,
        symbols: Group::capped(symbols, SYMBOL_CAP),
        imports: Group::capped(import_rows, IMPORT_CAP),
        importers: Group::capped(importers.into_values().collect(), IMPORT_CAP),
    }))
}

impl Answer for FileOutput {
    fn render_to(&self, t: &mut Text) {
        match self {
            FileOutput::Missing { path, plane, freshness, similar: _, unreadable: true } => {
                t.line(format_args!(
                    "`{path}` is in plane {plane}'s tree but could not be read (its blob is unreadable): its symbols are missing"
                ));
                t.line(format_args!("{freshness}"));
            }
            FileOutput::Missing { path, plane, freshness, similar, unreadable: false } => {
                t.line(format_args!(
                    "no indexed file `{path}` in plane {plane} (paths are relative to the tree's root)"
                ));
                if !similar.is_empty() {
                    t.line(format_args!("indexed files containing `{path}`:"));
                    t.group(similar, |t, f| {
                        t.line(format_args!("  {f}"));
                    });
                }
                t.line(format_args!("{freshness}"));
            }
            FileOutput::Found(f) => {
                let lang = f.language.as_deref().unwrap_or("?");
                match &f.module {
                    Some(m) => t.line(format_args!("{}  {lang}  module {}", f.path, m.key)),
                    None => t.line(format_args!("{}  {lang}", f.path)),
                };
                t.line(format_args!("{}", f.freshness));
                t.line(format_args!(
                    "{} symbols, {} imports, imported by {}",
                    f.symbols.total, f.imports.total, f.importers.total
                ));
                t.line(format_args!("symbols: {}", f.symbols.total));
                // Members are indented under their parent when it was just listed; members listed
                // apart from it (a Rust impl far from its type) name it instead.
                let mut open: Vec<String> = Vec::new();
                t.group(&f.symbols, |t, d| {
                    let line = d.line.map(|l| l.to_string()).unwrap_or_default();
                    let end = d.end_line.filter(|e| Some(*e) != d.line).map(|e| format!("-{e}")).unwrap_or_default();
                    let mut note = String::new();
                    match d.parent.as_deref() {
                        None => open.clear(),
                        Some(parent) => match open.iter().position(|k| k == parent) {
                            Some(at) => open.truncate(at + 1),
                            None => {
                                open.clear();
                                note = format!("  (in {parent})");
                            }
                        },
                    }
                    let indent = "  ".repeat(open.len() + 1);
                    t.line(format_args!("{indent}{line}{end}  {}  {}{note}", d.label, d.key));
                    open.push(d.key.clone());
                });
                t.line(format_args!("imports: {}", f.imports.total));
                t.group(&f.imports, |t, i| {
                    let line = i.line.map(|l| format!("line {l}: ")).unwrap_or_default();
                    t.line(format_args!("  {line}{} → {}", i.text.as_deref().unwrap_or("?"), i.target));
                });
                t.line(format_args!("imported by: {}", f.importers.total));
                t.group(&f.importers, |t, n| {
                    t.line(format_args!("  {n}"));
                });
            }
        }
    }

    fn found(&self) -> bool {
        matches!(self, FileOutput::Found(_))
    }
}
