//! A node's kind name, read from a table: `Node::kind` measures the grammar's C string and checks it is
//! UTF-8 on every call, which came to 1.2 % of the instructions of indexing tokio (callgrind). The names
//! of each grammar the plugins parse with are read once, by kind id.
//!
//! `KindName::kind_name` answers what `Node::kind` does; kinds past the table, the error kinds and
//! grammars not listed go through `Node::kind`. The Rust and TypeScript plugins compare kinds through
//! it; the Python plugin maps kind ids to its own enum.

use std::sync::LazyLock;

use tree_sitter::{Language, Node};

/// `node.kind_name()`: what `node.kind()` answers.
pub(crate) trait KindName<'t> {
    fn kind_name(self) -> &'t str;
}

impl<'t> KindName<'t> for Node<'t> {
    fn kind_name(self) -> &'t str {
        let language = self.language();
        let names = NAMES.iter().find(|(grammar, _)| *grammar == *language).map(|(_, names)| names);
        // Kinds past the table (the error kinds, whose ids are at the top of the range) and grammars not
        // listed are asked for by the binding's call.
        match names.and_then(|names| names.get(usize::from(self.kind_id()))) {
            Some(name) => name,
            None => self.kind(),
        }
    }
}

/// A grammar and its kind names, by kind id.
type Names = (Language, Box<[Box<str>]>);

/// The kind names of each grammar the plugins parse with.
static NAMES: LazyLock<Vec<Names>> = LazyLock::new(|| {
    [
        tree_sitter_rust::LANGUAGE,
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        tree_sitter_typescript::LANGUAGE_TSX,
        tree_sitter_python::LANGUAGE,
    ]
    .into_iter()
    .map(|grammar| {
        let language = Language::from(grammar);
        let names = (0..language.node_kind_count())
            .map(|id| {
                let id = u16::try_from(id).expect("kind ids are u16");
                language.node_kind_for_id(id).expect("ids below node_kind_count have names").into()
            })
            .collect();
        (language, names)
    })
    .collect()
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node of a sample of each grammar, the error nodes of its syntax error included (their kind
    /// ids lie past the table), has the name `Node::kind` gives.
    #[test]
    fn names_are_the_kinds() {
        let samples: [(Language, &str); 4] = [
            (
                tree_sitter_rust::LANGUAGE.into(),
                "use a::{b as c}; fn f<T: X>(x: &T) -> u8 { x.g()?; m!(y); 1 } impl S { fn )",
            ),
            (
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
                "import {a as b} from './c'; class D<T> extends E { m(): void { super.m(); } } let =",
            ),
            (
                tree_sitter_typescript::LANGUAGE_TSX.into(),
                "const A = () => <B c={d}>e</B>; export default A; function (",
            ),
            (
                tree_sitter_python::LANGUAGE.into(),
                "from .a import b as c\n@d\nclass E(F):\n  def g(self): return [h for h in i]\n def",
            ),
        ];
        let mut seen = 0;
        for (language, source) in samples {
            let tree = crate::testing::parse(&language, source);
            let mut errors = 0;
            for node in crate::testing::every_node(&tree) {
                assert_eq!(node.kind_name(), node.kind(), "kind id {} in {source}", node.kind_id());
                errors += usize::from(node.is_error());
                seen += 1;
            }
            assert!(errors > 0, "the sample ends in a syntax error: {source}");
        }
        assert!(seen > 100, "{seen} nodes");
    }
}
