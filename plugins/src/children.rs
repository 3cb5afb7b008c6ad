//! Named children through the listing of `drsg_parsers::children`, and the listing's tests against the
//! public API on sources of every grammar.

use drsg_parsers::children::push_children;
use tree_sitter::Node;

/// The named children of `node`, in order: what `Node::named_children` gives, without a tree cursor.
pub(crate) fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut listed = Vec::new();
    push_children(node, &mut listed);
    listed.into_iter().filter(Node::is_named)
}

#[cfg(test)]
mod tests {
    use drsg_parsers::children::{
        KindSet, is_kept, push_children_by_index, push_children_with_fields, push_children_with_fields_within,
        push_children_within, push_nodes_of_kinds, push_nodes_of_kinds_within,
    };

    use super::*;

    /// Every node's listing, against the children the public API hands out one by one, over sources that
    /// exercise hidden rules, aliases, extras (comments) and syntax errors in each grammar.
    #[test]
    fn the_listing_is_the_public_api_s_children_less_anonymous_leaves() {
        for (language, source) in crate::testing::samples() {
            let tree = crate::testing::parse(&language, source);
            let mut nodes = 0;
            for node in crate::testing::every_node(&tree) {
                nodes += 1;
                let expected: Vec<Node<'_>> = node.children(&mut node.walk()).filter(is_kept).collect();
                let mut listed = Vec::new();
                push_children(node, &mut listed);
                assert_eq!(listed, expected, "children of {node:?} in {source:?}");
                let named: Vec<Node<'_>> = node.named_children(&mut node.walk()).collect();
                assert_eq!(named_children(node).collect::<Vec<_>>(), named, "named children of {node:?} in {source:?}");
                let mut by_index = Vec::new();
                push_children_by_index(node, &mut by_index);
                assert_eq!(by_index, expected, "children of {node:?} by index in {source:?}");
                // With no room for hidden nodes the C listing gives up wherever there is one, and the
                // fallback lists the same, after what the vector held.
                let mut shallow = vec![node];
                push_children_within(node, &mut shallow, 1);
                assert_eq!(shallow[1..], expected[..], "children of {node:?} within one level in {source:?}");
                for (a, b) in listed.iter().zip(&expected) {
                    // Equal ids; the positions and aliases too.
                    assert_eq!(
                        (a.start_position(), a.end_byte(), a.kind_id()),
                        (b.start_position(), b.end_byte(), b.kind_id())
                    );
                }
            }
            assert!(nodes > 40, "{nodes} nodes in {source:?}");
        }
    }

    /// Every child with its field, against what a tree cursor stepping over the children gives.
    #[test]
    fn the_listing_with_fields_is_the_tree_cursor_s() {
        let mut fielded = 0;
        for (language, source) in crate::testing::samples() {
            let tree = crate::testing::parse(&language, source);
            for node in crate::testing::every_node(&tree) {
                let mut expected = Vec::new();
                let mut cursor = node.walk();
                if cursor.goto_first_child() {
                    loop {
                        expected.push((cursor.node(), cursor.field_id()));
                        if !cursor.goto_next_sibling() {
                            break;
                        }
                    }
                }
                fielded += expected.iter().filter(|(_, f)| f.is_some()).count();
                let (mut nodes, mut fields) = (vec![tree.root_node()], vec![None]);
                push_children_with_fields(node, &mut nodes, &mut fields);
                let listed: Vec<_> = nodes.into_iter().zip(fields).skip(1).collect();
                assert_eq!(listed, expected, "children and fields of {node:?} in {source:?}");
                let (mut nodes, mut fields) = (Vec::new(), Vec::new());
                push_children_with_fields_within(node, &mut nodes, &mut fields, 1);
                let shallow: Vec<_> = nodes.into_iter().zip(fields).collect();
                assert_eq!(shallow, expected, "children and fields of {node:?} within one level in {source:?}");
            }
        }
        assert!(fielded > 150, "{fielded} children in a field");
    }

    /// The nodes of a set of kinds found by the C walk, against every node of those kinds in pre-order, for
    /// sets of one kind, of every other kind, and of all kinds, from the root and from each node.
    #[test]
    fn the_nodes_of_kinds_are_the_public_api_s_in_pre_order() {
        for (language, source) in crate::testing::samples() {
            let tree = crate::testing::parse(&language, source);
            let every = crate::testing::every_node(&tree);
            let mut sets = vec![KindSet::default(), KindSet::default(), KindSet::default()];
            for node in &every {
                sets[0].insert(node.kind_id());
                sets[1 + usize::from(node.kind_id() % 2)].insert(node.kind_id());
            }
            sets.extend(every.iter().map(|n| {
                let mut one = KindSet::default();
                one.insert(n.kind_id());
                one
            }));
            for (i, kinds) in sets.iter().enumerate() {
                for &root in if i < 3 { &every[..] } else { &every[..1] } {
                    let expected: Vec<Node<'_>> = crate::testing::every_node(&tree)
                        .into_iter()
                        .filter(|n| is_in(*n, root))
                        .filter(|n| kinds.contains(n.kind_id()))
                        .collect();
                    // Room for one node at first: the walk is asked again with room for all.
                    let mut found = Vec::with_capacity(1);
                    push_nodes_of_kinds(root, kinds, &mut found);
                    assert_eq!(found, expected, "nodes of set {i} under {root:?} in {source:?}");
                    for (a, b) in found.iter().zip(&expected) {
                        assert_eq!(
                            (a.start_position(), a.end_byte(), a.kind_id(), a.parent()),
                            (b.start_position(), b.end_byte(), b.kind_id(), b.parent())
                        );
                    }
                    // Too deep for the C walk: a tree cursor walks, after what the vector held.
                    let mut shallow = vec![tree.root_node()];
                    push_nodes_of_kinds_within(root, kinds, &mut shallow, 1);
                    assert_eq!(shallow[1..], expected[..], "nodes of set {i} under {root:?} within one level");
                }
            }
            assert!(every.len() > 40);
        }
    }

    /// Whether `node` is `root` or lies below it.
    fn is_in(node: Node<'_>, root: Node<'_>) -> bool {
        std::iter::successors(Some(node), |n| n.parent()).any(|n| n == root)
    }

    #[test]
    fn children_are_appended_after_what_the_vector_holds() {
        let tree = crate::testing::parse(&tree_sitter_python::LANGUAGE.into(), "f(a, b)\n");
        let call = tree.root_node().named_child(0).and_then(|s| s.named_child(0)).expect("a call");
        let mut listed = vec![tree.root_node()];
        push_children(call, &mut listed);
        let kinds: Vec<&str> = listed.iter().map(|n| n.kind()).collect();
        assert_eq!(kinds, ["module", "identifier", "argument_list"]);
        let arguments = listed[2];
        push_children(arguments, &mut listed);
        let kinds: Vec<&str> = listed[3..].iter().map(|n| n.kind()).collect();
        assert_eq!(kinds, ["identifier", "identifier"]);
    }
}
