//! Imports (ES `import`, `import x = require`, CommonJS `require`), re-exports, and exports that do not sit
//! on a definition (`export { a as b }`, `export default X`, `exports.a = b`, `module.exports = { a }`).

use crate::kinds::KindName;
use drsg_parsers::text::node_text;
use drsg_parsers::{Export, Import};
use tree_sitter::Node;

use super::capture::{Captured, ImportSite};
use super::scope::Scopes;
use super::syntax::{self, Field, name_text, unquote};
use crate::fields::ChildInField;

pub(super) fn imports(cap: &Captured<'_>, source: &str, scopes: &Scopes) -> Vec<Import> {
    let mut out = Vec::new();
    for site in &cap.imports {
        let (source_node, at) = match *site {
            ImportSite::Clause { source: s, .. }
            | ImportSite::Namespace { source: s, .. }
            | ImportSite::Glob { source: s } => (s, s),
            ImportSite::Require { declarator, source: s, .. } => (s, declarator),
        };
        let from = unquote(node_text(source_node, source)).to_owned();
        let scope = match *site {
            ImportSite::Require { declarator, .. } => scopes.enclosing_except(declarator.start_byte(), declarator.id()),
            _ => scopes.innermost(at.start_byte()),
        };
        let mut push = |name: Option<String>, alias: String, glob: bool, reexport: bool, line: u32| {
            out.push(Import { source: from.clone(), name, alias, glob, reexport, line, scope });
        };
        match *site {
            ImportSite::Clause { clause, reexport, .. } => {
                for (name, alias, line) in clause_names(clause, source) {
                    push(name, alias, false, reexport, line);
                }
            }
            ImportSite::Namespace { alias, reexport, .. } => {
                push(None, node_text(alias, source).to_owned(), false, reexport, syntax::line(alias));
            }
            ImportSite::Glob { source: s } => push(None, String::new(), true, true, syntax::line(s)),
            ImportSite::Require { alias, member, .. } => match (alias.kind_name(), member) {
                ("identifier", member) => {
                    let name = member.map(|m| node_text(m, source).to_owned());
                    push(name, node_text(alias, source).to_owned(), false, false, syntax::line(alias));
                }
                ("object_pattern", None) => {
                    for (name, alias, line) in pattern_names(alias, source) {
                        push(Some(name), alias, false, false, line);
                    }
                }
                _ => {}
            },
        }
    }
    out
}

/// `(name, alias, line)` of `D, {a, b as c}, * as ns` (import clause) or `{a, b as c}` (export clause);
/// a namespace import has no name.
fn clause_names(clause: Node<'_>, source: &str) -> Vec<(Option<String>, String, u32)> {
    let mut out = Vec::new();
    let specifier = |spec: Node<'_>| {
        let name = name_text(spec.field(Field::Name)?, source);
        let alias = spec.field(Field::Alias).map_or_else(|| name.clone(), |a| name_text(a, source));
        Some((Some(name), alias, syntax::line(spec)))
    };
    for part in syntax::named_children(clause) {
        match part.kind_name() {
            "identifier" => {
                out.push((Some("default".to_owned()), node_text(part, source).to_owned(), syntax::line(part)))
            }
            "namespace_import" => {
                if let Some(alias) = part.named_child(0) {
                    out.push((None, node_text(alias, source).to_owned(), syntax::line(alias)));
                }
            }
            "named_imports" => {
                for spec in syntax::named_children(part) {
                    if spec.kind_name() == "import_specifier" {
                        out.extend(specifier(spec));
                    }
                }
            }
            "export_specifier" => out.extend(specifier(part)),
            _ => {}
        }
    }
    out
}

/// `(name, alias, line)` of `{a, b: c}` in `const {a, b: c} = require("m")`.
fn pattern_names(pattern: Node<'_>, source: &str) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for part in syntax::named_children(pattern) {
        match part.kind_name() {
            "shorthand_property_identifier_pattern" => {
                let name = node_text(part, source).to_owned();
                out.push((name.clone(), name, syntax::line(part)));
            }
            "pair_pattern" => {
                let (Some(key), Some(value)) = (part.field(Field::Key), part.field(Field::Value)) else {
                    continue;
                };
                if value.kind_name() == "identifier" {
                    out.push((name_text(key, source), node_text(value, source).to_owned(), syntax::line(part)));
                }
            }
            _ => {}
        }
    }
    out
}

pub(super) fn exports(cap: &Captured<'_>, source: &str) -> Vec<Export> {
    let mut out = Vec::new();
    let text = |n: Node<'_>| node_text(n, source).to_owned();
    for &clause in &cap.export_clauses {
        for (local, exported, line) in clause_names(clause, source) {
            if let Some(local) = local {
                out.push(Export { local, exported, line });
            }
        }
    }
    for &value in &cap.export_defaults {
        out.push(Export { local: text(value), exported: "default".to_owned(), line: syntax::line(value) });
    }
    for &(_, name, value) in &cap.cjs_members {
        if value.kind_name() == "identifier" {
            out.push(Export { local: text(value), exported: text(name), line: syntax::line(name) });
        }
    }
    for &(_, value) in &cap.cjs_modules {
        match value.kind_name() {
            "identifier" => {
                out.push(Export { local: text(value), exported: "default".to_owned(), line: syntax::line(value) })
            }
            "object" => {
                for part in syntax::named_children(value) {
                    let line = syntax::line(part);
                    match part.kind_name() {
                        "shorthand_property_identifier" => {
                            out.push(Export { local: text(part), exported: text(part), line })
                        }
                        "pair" => {
                            let (Some(key), Some(value)) = (part.field(Field::Key), part.field(Field::Value)) else {
                                continue;
                            };
                            if value.kind_name() == "identifier" {
                                out.push(Export { local: text(value), exported: name_text(key, source), line });
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}
