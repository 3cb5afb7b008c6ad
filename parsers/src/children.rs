//! A node's children listed in one pass, leaving out anonymous leaves (see `children.c`).
//!
//! `Node::child(i)` counts from the first child on every call, and a [`TreeCursor`] step also tracks fields
//! and hidden ancestors. Walking every node of Django's Python files (scratch benchmark, one thread): 36 ns
//! a node with `child(i)`, 28 ns with this listing, 20 ns for the same traversal done wholly in C; tokio's
//! Rust files 48, 28 and 21 ns. Leaving out the anonymous leaves (a third of Django's nodes, nearly half of
//! tokio's) halves the walk: 147 → 97 ms on Django, 46 → 23 ms on tokio.
//!
//! `children.c`, compiled by the crate's build script, reads the tree through tree-sitter's private
//! headers, taken from the very copy of the tree-sitter crate that is linked (its build script publishes
//! its include directory), so the struct layouts always agree. It lists what `Node::child` counts (hidden
//! nodes replaced by their children), less the anonymous leaves (no visible child). A test holds it, and
//! its fallback through `Node::child` (taken when hidden nodes nest too deep), to the public API's children
//! on every node of sources in each grammar (aliases, extras, hidden rules, anonymous nodes with children,
//! syntax errors); the test is in `drsg-plugins`, which has the grammars. The language plugins' `rooted`
//! walk, their named-children lookups and the declarative plugins' walk go through it, and the plugins'
//! field lookups through `drsg_ts_node_child_by_field_id` in the same file. A tree-sitter upgrade that
//! changes those internals shows in this file's build or in that test; a construct the test's sources lack
//! would not, which is why the version is one the test has passed on.
//!
//! [`TreeCursor`]: tree_sitter::TreeCursor

use std::num::NonZeroU16;

use tree_sitter::Node;

#[allow(unsafe_code, reason = "the declaration of the C listing")]
unsafe extern "C" {
    /// Writes at most `cap` children of `node` to `out` and returns how many there are (`u32::MAX`: hidden
    /// nodes nest deeper than `max_depth`, itself at most 256).
    fn drsg_ts_node_children(
        node: tree_sitter::ffi::TSNode,
        out: *mut tree_sitter::ffi::TSNode,
        cap: u32,
        skip_anonymous_leaves: bool,
        max_depth: u32,
    ) -> u32;
}

#[allow(unsafe_code, reason = "the declaration of the C listing with fields")]
unsafe extern "C" {
    /// Writes at most `cap` children of `node` (anonymous leaves too) to `out` and their field ids (0: none)
    /// to `fields`, and returns how many there are (`u32::MAX` as for `drsg_ts_node_children`).
    fn drsg_ts_node_children_fields(
        node: tree_sitter::ffi::TSNode,
        out: *mut tree_sitter::ffi::TSNode,
        fields: *mut u16,
        cap: u32,
        max_depth: u32,
    ) -> u32;
}

#[allow(unsafe_code, reason = "the declaration of the C walk")]
unsafe extern "C" {
    /// Writes to `out` at most `cap` nodes of `root`'s subtree whose kind has its bit set in `kinds`
    /// (`kind_count` bits), in pre-order, and returns how many there are (`u32::MAX`: the tree nests deeper
    /// than `max_depth`, itself at most 1024).
    fn drsg_ts_nodes_of_kinds(
        root: tree_sitter::ffi::TSNode,
        kinds: *const u8,
        kind_count: u32,
        out: *mut tree_sitter::ffi::TSNode,
        cap: u32,
        max_depth: u32,
    ) -> u32;
}

/// Appends every child of `node` to `nodes` and the field it is in to `fields`: what a [`TreeCursor`] gives
/// stepping over the children (`node`, `field_id`), in one pass.
///
/// [`TreeCursor`]: tree_sitter::TreeCursor
pub fn push_children_with_fields<'t>(node: Node<'t>, nodes: &mut Vec<Node<'t>>, fields: &mut Vec<Option<NonZeroU16>>) {
    push_children_with_fields_within(node, nodes, fields, MAX_HIDDEN_DEPTH);
}

/// [`push_children_with_fields`], the C listing giving up below `max_depth` levels of hidden nodes (the
/// tree cursor then lists them).
pub fn push_children_with_fields_within<'t>(
    node: Node<'t>,
    nodes: &mut Vec<Node<'t>>,
    fields: &mut Vec<Option<NonZeroU16>>,
    max_depth: u32,
) {
    let count = node.child_count();
    if count == 0 {
        return;
    }
    nodes.reserve(count as usize);
    fields.reserve(count as usize);
    let (spare_nodes, spare_fields) = (nodes.spare_capacity_mut(), fields.spare_capacity_mut());
    #[allow(unsafe_code, reason = "the C listing writes nodes and field ids into the vectors' spare capacity")]
    // SAFETY: both spare parts have room for `count` entries, and the C function writes no more than that.
    // `Node` is a `repr(transparent)` wrapper of `TSNode`, `Option<NonZeroU16>` has `u16`'s layout (0 for
    // `None`), and `MaybeUninit` is a wrapper of its content.
    let listed = unsafe {
        drsg_ts_node_children_fields(
            node.into_raw(),
            spare_nodes.as_mut_ptr().cast(),
            spare_fields.as_mut_ptr().cast(),
            count,
            max_depth,
        )
    };
    if listed <= count {
        #[allow(unsafe_code, reason = "the entries the C listing wrote become part of the vectors")]
        // SAFETY: the first `listed` spare slots of both were written, with nodes of `node`'s tree, which
        // outlives `'t`, and with field ids.
        unsafe {
            nodes.set_len(nodes.len() + listed as usize);
            fields.set_len(fields.len() + listed as usize);
        };
    } else {
        let mut cursor = node.walk();
        if cursor.goto_first_child() {
            loop {
                nodes.push(cursor.node());
                fields.push(cursor.field_id());
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
    }
}

/// How deep hidden nodes may nest below a node for the C listing (its own bound).
const MAX_HIDDEN_DEPTH: u32 = 256;

/// Appends to `out` the children of `node` that are named or have children of their own, in order: the
/// children `Node::child` counts, less the anonymous leaves.
pub fn push_children<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    push_children_within(node, out, MAX_HIDDEN_DEPTH);
}

/// [`push_children`], the C listing giving up below `max_depth` levels of hidden nodes.
pub fn push_children_within<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>, max_depth: u32) {
    let count = node.child_count();
    if count == 0 {
        return;
    }
    out.reserve(count as usize);
    let spare = out.spare_capacity_mut();
    #[allow(unsafe_code, reason = "the C listing writes nodes into the vector's spare capacity")]
    // SAFETY: `spare` has room for `count` nodes, and the C function writes no more than that.
    // `Node` is a `repr(transparent)` wrapper of `TSNode`, as `MaybeUninit` is of its content.
    let listed = unsafe { drsg_ts_node_children(node.into_raw(), spare.as_mut_ptr().cast(), count, true, max_depth) };
    match listed {
        listed if listed <= count => {
            let len = out.len() + listed as usize;
            #[allow(unsafe_code, reason = "the nodes the C listing wrote become part of the vector")]
            // SAFETY: the first `listed` spare slots were written with nodes of `node`'s tree, which
            // outlives `'t`, and `listed <= count` fits the reserved room.
            unsafe {
                out.set_len(len)
            };
        }
        _ => push_children_by_index(node, out),
    }
}

/// [`push_children`] through the public API, for nodes the C listing gives up on.
pub fn push_children_by_index<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    out.extend((0..node.child_count()).filter_map(|i| node.child(i)).filter(is_kept));
}

/// A set of node kinds, a bit per kind id.
#[derive(Clone, Debug, Default)]
pub struct KindSet(Vec<u8>);

impl KindSet {
    pub fn insert(&mut self, kind: u16) {
        let byte = usize::from(kind / 8);
        if self.0.len() <= byte {
            self.0.resize(byte + 1, 0);
        }
        self.0[byte] |= 1 << (kind % 8);
    }

    pub fn contains(&self, kind: u16) -> bool {
        self.0.get(usize::from(kind / 8)).is_some_and(|b| b >> (kind % 8) & 1 == 1)
    }
}

/// Appends to `out` the nodes of `root`'s subtree, `root` included, whose kind id is in `kinds`, in pre-order:
/// one walk of the whole subtree in C, the nodes of other kinds never made.
pub fn push_nodes_of_kinds<'t>(root: Node<'t>, kinds: &KindSet, out: &mut Vec<Node<'t>>) {
    push_nodes_of_kinds_within(root, kinds, out, MAX_WALK_DEPTH);
}

/// How deep the tree may nest, hidden nodes included, for the C walk (its own bound).
const MAX_WALK_DEPTH: u32 = 1024;

/// [`push_nodes_of_kinds`], the C walk giving up below `max_depth` levels (a tree cursor then walks).
pub fn push_nodes_of_kinds_within<'t>(root: Node<'t>, kinds: &KindSet, out: &mut Vec<Node<'t>>, max_depth: u32) {
    let kind_count = u32::try_from(kinds.0.len() * 8).unwrap_or(u32::MAX);
    loop {
        let spare = out.spare_capacity_mut();
        let cap = u32::try_from(spare.len()).unwrap_or(u32::MAX - 1);
        #[allow(unsafe_code, reason = "the C walk writes nodes into the vector's spare capacity")]
        // SAFETY: `spare` has room for `cap` nodes and the C function writes no more than that; it reads
        // `kind_count` bits of `kinds`. `Node` is a `repr(transparent)` wrapper of `TSNode`, as `MaybeUninit`
        // is of its content.
        let found = unsafe {
            drsg_ts_nodes_of_kinds(
                root.into_raw(),
                kinds.0.as_ptr(),
                kind_count,
                spare.as_mut_ptr().cast(),
                cap,
                max_depth,
            )
        };
        if found == u32::MAX {
            break;
        }
        if found <= cap {
            let len = out.len() + found as usize;
            #[allow(unsafe_code, reason = "the nodes the C walk wrote become part of the vector")]
            // SAFETY: the first `found` spare slots were written with nodes of `root`'s tree, which outlives
            // `'t`, and `found <= cap` fits the spare room.
            unsafe {
                out.set_len(len)
            };
            return;
        }
        out.reserve(found as usize);
    }
    let mut cursor = root.walk();
    loop {
        if kinds.contains(cursor.node().kind_id()) {
            out.push(cursor.node());
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Whether [`push_children`] lists a child.
pub fn is_kept(node: &Node<'_>) -> bool {
    node.is_named() || node.child_count() > 0
}
