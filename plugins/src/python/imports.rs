//! Imports: `import a.b [as m]`, `from .m import f [as g]`, `from m import *` (`__future__` is not an import).

use drsg_parsers::text::node_text;
use drsg_parsers::{FileFacts, Import};
use tree_sitter::Node;

use super::syntax::{Field, Kind, child, first_named, kind, line};

/// One imported name, as captured by `imports.scm`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Site<'t> {
    /// A `dotted_name` or `aliased_import` of an `import` statement.
    Module(Node<'t>),
    /// `from source import name`, `name` a `dotted_name` or `aliased_import`.
    From { source: Node<'t>, name: Node<'t> },
    /// `from source import *`.
    Glob { source: Node<'t>, star: Node<'t> },
}

impl Site<'_> {
    pub(super) fn position(&self) -> usize {
        match self {
            Site::Module(node) | Site::From { name: node, .. } | Site::Glob { star: node, .. } => node.start_byte(),
        }
    }
}

pub(super) fn import(site: Site<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let (module, name, alias, glob, at) = match site {
        Site::Module(node) => {
            let (dotted, alias) = aliased(node, source);
            // `import a.b.c` binds `a`.
            let alias = alias.unwrap_or_else(|| dotted.split('.').next().unwrap_or_default().to_owned());
            (dotted, None, alias, false, node)
        }
        Site::From { source: module, name } => {
            let (imported, alias) = aliased(name, source);
            let alias = alias.unwrap_or_else(|| imported.clone());
            (compact(module, source), Some(imported), alias, false, name)
        }
        Site::Glob { source: module, star } => (compact(module, source), None, String::new(), true, star),
    };
    if module.is_empty() || (alias.is_empty() && !glob) {
        return;
    }
    facts.imports.push(Import { source: module, name, alias, glob, reexport: false, line: line(at), scope });
}

/// `a.b` → (`a.b`, None); `a.b as m` → (`a.b`, Some(`m`)).
fn aliased(node: Node<'_>, source: &str) -> (String, Option<String>) {
    if kind(node) == Kind::AliasedImport {
        let name = child(node, Field::Name).or_else(|| first_named(node));
        let alias = child(node, Field::Alias).map(|a| node_text(a, source).to_owned());
        (name.map(|n| compact(n, source)).unwrap_or_default(), alias)
    } else {
        (compact(node, source), None)
    }
}

/// A dotted or relative module name as written, without the spaces Python allows inside it.
fn compact(node: Node<'_>, source: &str) -> String {
    node_text(node, source).chars().filter(|c| !c.is_whitespace()).collect()
}
