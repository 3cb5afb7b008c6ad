//! Helpers of the crate's tests.

use tree_sitter::{Language, Node, Tree};

/// `source` parsed with `language`.
pub(crate) fn parse(language: &Language, source: &str) -> Tree {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(language).expect("the grammar loads");
    parser.parse(source, None).expect("the source parses")
}

/// Every node of `tree`, each before its children.
pub(crate) fn every_node(tree: &Tree) -> Vec<Node<'_>> {
    let mut nodes = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        nodes.push(node);
        let first = stack.len();
        stack.extend(node.children(&mut node.walk()));
        stack[first..].reverse();
    }
    nodes
}
