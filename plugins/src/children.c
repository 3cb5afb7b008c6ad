// Listing a node's children in one pass, for the walk in `rooted.rs`.
//
// Tree-sitter's public API lists children either by index (`ts_node_child`, which counts from the first
// child on every call) or with a tree cursor (whose steps also track fields and hidden ancestors). This
// file reads the tree the way `ts_node_child` does, with the library's own private headers (the build
// script takes them from the very tree-sitter crate that is linked, so the layouts agree), but keeps its
// place between children.
//
// The children listed are those `ts_node_child` counts: a visible or aliased child stands for itself, a
// hidden one is replaced by its own such children. Asked to, the listing leaves out anonymous leaves
// (punctuation, keywords, operators), which no pattern of a rooted query starts at.

#include <stdbool.h>
#include <stdint.h>

#include "tree_sitter/api.h"
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

// Hidden nodes nest only as deep as a grammar's rules and the balanced trees of repetitions; a deeper
// nesting than `max_depth` (at most MAX_HIDDEN_DEPTH) makes the listing give up (the caller then asks child
// by child).
#define MAX_HIDDEN_DEPTH 256

typedef struct {
  Subtree parent;
  // Where the next child starts, padding excluded (the first child's padding is the parent's own).
  Length position;
  uint32_t child_index;
  uint32_t structural_child_index;
  const TSSymbol *alias_sequence;
} Frame;

static inline Frame frame_of(const TSTree *tree, Subtree parent, Length position) {
  return (Frame){parent, position, 0, 0, ts_language_alias_sequence(tree->language, parent.ptr->production_id)};
}

// Writes the children of `node` to `out` (at most `cap` of them) and returns how many there are, or
// UINT32_MAX when hidden nodes nest deeper than `max_depth`. With `skip_anonymous_leaves`, anonymous nodes
// without visible children are neither written nor counted.
uint32_t drsg_ts_node_children(TSNode node, TSNode *out, uint32_t cap, bool skip_anonymous_leaves,
                               uint32_t max_depth) {
  const TSTree *tree = node.tree;
  const Subtree *subtree = (const Subtree *)node.id;
  if (ts_subtree_child_count(*subtree) == 0) return 0;
  Frame stack[MAX_HIDDEN_DEPTH];
  if (max_depth > MAX_HIDDEN_DEPTH) max_depth = MAX_HIDDEN_DEPTH;
  uint32_t depth = 0;
  stack[0] = frame_of(tree, *subtree, (Length){node.context[0], {node.context[1], node.context[2]}});
  uint32_t count = 0;
  for (;;) {
    Frame *frame = &stack[depth];
    if (frame->child_index == frame->parent.ptr->child_count) {
      if (depth == 0) break;
      depth--;
      continue;
    }
    const Subtree *child = &ts_subtree_children(frame->parent)[frame->child_index];
    TSSymbol alias = 0;
    if (!ts_subtree_extra(*child)) {
      if (frame->alias_sequence) alias = frame->alias_sequence[frame->structural_child_index];
      frame->structural_child_index++;
    }
    if (frame->child_index > 0) frame->position = length_add(frame->position, ts_subtree_padding(*child));
    Length start = frame->position;
    frame->position = length_add(frame->position, ts_subtree_size(*child));
    frame->child_index++;
    if (ts_subtree_visible(*child) || alias) {
      // A leaf as `Node::child_count` counts: no visible child.
      if (skip_anonymous_leaves && ts_subtree_visible_child_count(*child) == 0) {
        bool named = alias ? ts_language_symbol_metadata(tree->language, alias).named : ts_subtree_named(*child);
        if (!named) continue;
      }
      if (count < cap) {
        out[count] = (TSNode){{start.bytes, start.extent.row, start.extent.column, alias}, child, tree};
      }
      count++;
    } else if (ts_subtree_child_count(*child) > 0) {
      if (depth + 1 >= max_depth) return UINT32_MAX;
      depth++;
      stack[depth] = frame_of(tree, *child, start);
    }
  }
  return count;
}
