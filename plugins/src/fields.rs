//! A node's child in a field, by field id: `Node::child_by_field_name` searches the grammar's field names
//! (a string comparison per name) on every call, which was 2.6 % of the instructions of indexing
//! tokio and 2.2 % of zod (callgrind). A plugin names its fields once with [`fields!`]; their ids are
//! looked up once per grammar.
//!
//! The child itself is found by `drsg_ts_node_child_by_field_id` (`children.c`), the library's search
//! without a call per child to make a node of it: on Django's `django/` package, 512,000 lookups took
//! 183 M instructions through `Node::child_by_field_id` (callgrind).
//!
//! The ids are looked up per grammar because TypeScript and TSX number their fields differently. The C
//! function takes the library's steps (the production's field map, inherited fields searched in the
//! hidden child, a hidden child standing for its first visible one); a test holds it to
//! `Node::child_by_field_id` for every field id on every node of the same sources as `children`'s test,
//! and checks that some of the children it finds lie below hidden nodes.

use std::num::NonZeroU16 as FieldId;

use tree_sitter::{Language, Node};

#[allow(unsafe_code, reason = "the declaration of the C search")]
unsafe extern "C" {
    /// The child of `node` in field `field_id`, as `ts_node_child_by_field_id` finds it (a null node when
    /// there is none).
    fn drsg_ts_node_child_by_field_id(node: tree_sitter::ffi::TSNode, field_id: u16) -> tree_sitter::ffi::TSNode;
}

/// `node.child_by_field_id(id)`, through the C search.
pub(crate) fn child_by_field_id(node: Node<'_>, id: u16) -> Option<Node<'_>> {
    #[allow(unsafe_code, reason = "the C search reads the node's tree")]
    // SAFETY: `node` is a live node of its tree, which the C function only reads.
    let raw = unsafe { drsg_ts_node_child_by_field_id(node.into_raw(), id) };
    #[allow(unsafe_code, reason = "a node the C search found")]
    // SAFETY: a non-null id is a subtree of `node`'s tree, which outlives the returned node's lifetime.
    (!raw.id.is_null()).then(|| unsafe { Node::from_raw(raw) })
}

/// A plugin's field names resolved to the ids of each grammar it parses with.
pub(crate) struct Fields {
    names: &'static [&'static str],
    /// Each grammar with the id of every name (0, which no child has, where the grammar lacks it).
    grammars: Vec<(Language, Vec<u16>)>,
}

impl Fields {
    pub(crate) fn new(names: &'static [&'static str], grammars: impl IntoIterator<Item = Language>) -> Fields {
        let grammars = grammars
            .into_iter()
            .map(|language| {
                let ids = names.iter().map(|name| language.field_id_for_name(name).map_or(0, |id| id.get())).collect();
                (language, ids)
            })
            .collect();
        Fields { names, grammars }
    }

    /// The id of field number `field` in `node`'s grammar (looked up by name for a grammar not listed);
    /// `None` when the grammar lacks it.
    fn id(&self, node: Node<'_>, field: usize) -> Option<FieldId> {
        let language = node.language();
        match self.grammars.iter().find(|(grammar, _)| *grammar == *language) {
            Some((_, ids)) => FieldId::new(ids[field]),
            None => language.field_id_for_name(self.names[field]),
        }
    }

    /// The child of `node` in field number `field`; by name for a node of a grammar not listed.
    fn child<'t>(&self, node: Node<'t>, field: usize) -> Option<Node<'t>> {
        let language = node.language();
        match self.grammars.iter().find(|(grammar, _)| *grammar == *language) {
            Some((_, ids)) => match ids[field] {
                0 => None,
                id => child_by_field_id(node, id),
            },
            None => node.child_by_field_name(self.names[field]),
        }
    }
}

/// A plugin's enum of field names (made by [`fields!`]).
pub(crate) trait FieldName: Copy {
    fn fields() -> &'static Fields;
    fn index(self) -> usize;
}

/// `node.field(F::Name)`: the child in a field, as `child_by_field_name` finds it; `node.field_id(F::Name)`:
/// the field's id in the node's grammar, for `children_by_field_id` where a field holds several children.
pub(crate) trait ChildInField<'t> {
    fn field<F: FieldName>(self, field: F) -> Option<Node<'t>>;
    fn field_id<F: FieldName>(self, field: F) -> Option<FieldId>;
}

impl<'t> ChildInField<'t> for Node<'t> {
    fn field<F: FieldName>(self, field: F) -> Option<Node<'t>> {
        F::fields().child(self, field.index())
    }

    fn field_id<F: FieldName>(self, field: F) -> Option<FieldId> {
        F::fields().id(self, field.index())
    }
}

/// `fields!(pub(super) enum Field in [GRAMMAR, …] { Name = "name", … })`: an enum of field names whose ids
/// are looked up once, on first use, in each grammar listed (`LanguageFn`s).
macro_rules! fields {
    ($vis:vis enum $name:ident in [$($grammar:expr),+ $(,)?] { $($variant:ident = $text:literal),+ $(,)? }) => {
        #[derive(Clone, Copy, Debug)]
        $vis enum $name {
            $($variant),+
        }

        impl $crate::fields::FieldName for $name {
            fn fields() -> &'static $crate::fields::Fields {
                static FIELDS: std::sync::LazyLock<$crate::fields::Fields> = std::sync::LazyLock::new(|| {
                    $crate::fields::Fields::new(&[$($text),+], [$(tree_sitter::Language::from($grammar)),+])
                });
                &FIELDS
            }

            fn index(self) -> usize {
                self as usize
            }
        }
    };
}
pub(crate) use fields;

#[cfg(test)]
mod tests {
    use super::*;

    fields!(enum Probe in [tree_sitter_typescript::LANGUAGE_TYPESCRIPT, tree_sitter_typescript::LANGUAGE_TSX] {
        Function = "function",
        Arguments = "arguments",
        Missing = "no_such_field",
    });

    /// The same children as `child_by_field_name`, in both grammars (whose ids for a name differ), for a
    /// field the grammar lacks, and for a node of a grammar the set was not built for.
    #[test]
    fn children_by_id_are_the_children_by_name() {
        let source = "f(a, b);";
        for grammar in [
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
            tree_sitter_typescript::LANGUAGE_TSX,
            tree_sitter_rust::LANGUAGE,
        ] {
            let tree = crate::testing::parse(&grammar.into(), source);
            let call = tree.root_node().named_descendant_for_byte_range(0, 6).expect("the call");
            assert!(call.kind().contains("call"), "{}", call.kind());
            for (field, name) in
                [(Probe::Function, "function"), (Probe::Arguments, "arguments"), (Probe::Missing, "no_such_field")]
            {
                let by_name = call.child_by_field_name(name);
                assert_eq!(call.field(field), by_name, "{field:?}");
                if !matches!(field, Probe::Missing) {
                    assert!(by_name.is_some(), "{field:?} exists");
                }
            }
        }
        let ts: Language = tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into();
        let tsx: Language = tree_sitter_typescript::LANGUAGE_TSX.into();
        assert_ne!(ts.field_id_for_name("body"), tsx.field_id_for_name("body"), "ids differ between the grammars");
    }

    #[allow(unsafe_code, reason = "the declaration of a C check")]
    unsafe extern "C" {
        /// Whether `child` is a subtree `parent` holds itself (not one below a hidden child of it).
        fn drsg_ts_node_holds(parent: tree_sitter::ffi::TSNode, child: tree_sitter::ffi::TSNode) -> bool;
    }

    /// The C search finds what the library's finds, for every field id of the grammar on every node of the
    /// samples, and among them children that stand below hidden nodes (inherited fields, hidden children
    /// standing for their first visible one), and positions and aliases too.
    #[test]
    fn the_c_search_finds_the_library_s_child() {
        let (mut found, mut below_hidden) = (0, 0);
        for (language, source) in crate::testing::samples() {
            let tree = crate::testing::parse(&language, source);
            let fields = u16::try_from(language.field_count()).expect("a grammar has few fields");
            for node in crate::testing::every_node(&tree) {
                for id in 0..=fields + 1 {
                    let expected = node.child_by_field_id(id);
                    let searched = child_by_field_id(node, id);
                    assert_eq!(searched, expected, "field {id} of {node:?} in {source:?}");
                    if let (Some(a), Some(b)) = (searched, expected) {
                        assert_eq!(
                            (a.start_position(), a.end_byte(), a.kind_id()),
                            (b.start_position(), b.end_byte(), b.kind_id())
                        );
                        found += 1;
                        #[allow(unsafe_code, reason = "a check that reads two nodes of one tree")]
                        // SAFETY: both nodes are live nodes of `tree`.
                        let held = unsafe { drsg_ts_node_holds(node.into_raw(), b.into_raw()) };
                        below_hidden += usize::from(!held);
                    }
                }
            }
        }
        assert!(found > 150, "{found} children found ({below_hidden} below hidden nodes)");
        assert!(below_hidden > 50, "{below_hidden} of them below hidden nodes");
    }
}
