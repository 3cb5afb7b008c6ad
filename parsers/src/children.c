// Listing a node's children in one pass, for the walk in `rooted.rs`, finding a node's child in a field
// (`fields.rs`), and finding the nodes of some kinds in a whole tree in one pass (the declarative plugins).
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

// The field a child listed at `depth` is in: the one `ts_tree_cursor_current_field_id` gives, the first
// non-inherited entry of its parent's field map for its structural index, else, through each hidden node it
// lies in, that hidden node's own.
static TSFieldId field_of(const TSTree *tree, const Frame *stack, uint32_t depth) {
  uint32_t index = stack[depth].structural_child_index - 1;
  for (uint32_t k = depth + 1; k-- > 0;) {
    const TSFieldMapEntry *map, *end;
    ts_language_field_map(tree->language, stack[k].parent.ptr->production_id, &map, &end);
    for (; map < end; map++) {
      if (!map->inherited && map->child_index == index) return map->field_id;
    }
    // Up through the hidden node this frame lists, unless it is an extra.
    if (k == 0 || ts_subtree_extra(stack[k].parent)) break;
    index = stack[k - 1].structural_child_index - 1;
  }
  return 0;
}

// Writes the children of `node` to `out` (at most `cap` of them), with `fields` each one's field id (0: none),
// and returns how many there are, or UINT32_MAX when hidden nodes nest deeper than `max_depth`. With
// `skip_anonymous_leaves`, anonymous nodes without visible children are neither written nor counted.
static uint32_t list_children(TSNode node, TSNode *out, TSFieldId *fields, uint32_t cap,
                              bool skip_anonymous_leaves, uint32_t max_depth) {
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
    bool extra = ts_subtree_extra(*child);
    if (!extra) {
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
        if (fields) fields[count] = extra ? 0 : field_of(tree, stack, depth);
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

// Writes the children of `node` to `out` (at most `cap` of them) and returns how many there are, or
// UINT32_MAX when hidden nodes nest deeper than `max_depth`. With `skip_anonymous_leaves`, anonymous nodes
// without visible children are neither written nor counted.
uint32_t drsg_ts_node_children(TSNode node, TSNode *out, uint32_t cap, bool skip_anonymous_leaves,
                               uint32_t max_depth) {
  return list_children(node, out, NULL, cap, skip_anonymous_leaves, max_depth);
}

// Writes every child of `node` (anonymous leaves included) to `out` and its field id (0: none) to `fields`,
// at most `cap` of them, and returns how many there are, or UINT32_MAX as `drsg_ts_node_children` does.
uint32_t drsg_ts_node_children_fields(TSNode node, TSNode *out, TSFieldId *fields, uint32_t cap,
                                      uint32_t max_depth) {
  return list_children(node, out, fields, cap, false, max_depth);
}

// Whether `symbol`'s public kind (the one `ts_node_symbol` gives) has its bit set in `kinds`, a bit set of
// `kind_count` bits.
static inline bool kind_in(const TSLanguage *language, TSSymbol symbol, const uint8_t *kinds, uint32_t kind_count) {
  TSSymbol kind = ts_language_public_symbol(language, symbol);
  return kind < kind_count && ((kinds[kind >> 3] >> (kind & 7)) & 1);
}

// The walk's place in a node whose children it is not walking (one of the current node's ancestors).
typedef struct {
  const Subtree *children;
  uint32_t child_count;
  uint32_t child_index;
  uint32_t structural_child_index;
  const TSSymbol *alias_sequence;
  Length position;
} Place;

#define MAX_WALK_DEPTH 1024
// Grammars with at most this many symbols (aliases included) have their kinds looked up by symbol.
#define MAX_TABLE_SYMBOLS 4096

// Writes to `out` (at most `cap` of them) the nodes of `root`'s subtree, `root` included, whose kind is in
// `kinds` (see `kind_in`), in pre-order, and returns how many there are (more than `cap`: the caller asks
// again with room for them all), or UINT32_MAX when the tree nests deeper than `max_depth` (at most
// MAX_WALK_DEPTH) levels, hidden ones included. One pass over the whole subtree, without a call per node:
// the node being walked is held in locals, its ancestors' places in an array, and a node's kind is read
// from a table by its internal symbol.
uint32_t drsg_ts_nodes_of_kinds(TSNode root, const uint8_t *kinds, uint32_t kind_count, TSNode *out, uint32_t cap,
                                uint32_t max_depth) {
  const TSTree *tree = root.tree;
  const TSLanguage *language = tree->language;
  uint32_t symbol_count = ts_language_symbol_count(language);
  bool tabled = symbol_count <= MAX_TABLE_SYMBOLS;
  uint8_t table[MAX_TABLE_SYMBOLS / 8];
  if (tabled) {
    for (uint32_t byte = 0; byte < (symbol_count + 7) / 8; byte++) table[byte] = 0;
    for (uint32_t symbol = 0; symbol < symbol_count; symbol++) {
      if (kind_in(language, (TSSymbol)symbol, kinds, kind_count)) table[symbol >> 3] |= (uint8_t)(1 << (symbol & 7));
    }
  }
#define KEPT(symbol)                                                                       \
  (tabled && (symbol) < symbol_count ? (table[(symbol) >> 3] >> ((symbol) & 7)) & 1        \
                                     : kind_in(language, (symbol), kinds, kind_count))
  Subtree subtree = *(const Subtree *)root.id;
  uint32_t count = 0;
  TSSymbol root_symbol = root.context[3] ? root.context[3] : ts_subtree_symbol(subtree);
  if (KEPT(root_symbol)) {
    if (count < cap) out[count] = root;
    count++;
  }
  if (ts_subtree_child_count(subtree) == 0) return count;
  if (max_depth > MAX_WALK_DEPTH) max_depth = MAX_WALK_DEPTH;
  Place stack[MAX_WALK_DEPTH];
  uint32_t depth = 0;
  const Subtree *children = ts_subtree_children(subtree);
  uint32_t child_count = subtree.ptr->child_count, i = 0, structural = 0;
  const TSSymbol *aliases = ts_language_alias_sequence(language, subtree.ptr->production_id);
  // Where the next child starts, padding excluded (the first child's padding is the parent's own).
  Length position = {root.context[0], {root.context[1], root.context[2]}};
  for (;;) {
    if (i == child_count) {
      if (depth == 0) break;
      const Place *up = &stack[--depth];
      children = up->children;
      child_count = up->child_count;
      i = up->child_index;
      structural = up->structural_child_index;
      aliases = up->alias_sequence;
      position = up->position;
      continue;
    }
    const Subtree *child = &children[i];
    Subtree c = *child;
    TSSymbol alias = 0;
    if (!ts_subtree_extra(c)) {
      if (aliases) alias = aliases[structural];
      structural++;
    }
    if (i > 0) position = length_add(position, ts_subtree_padding(c));
    Length start = position;
    position = length_add(position, ts_subtree_size(c));
    i++;
    if (ts_subtree_visible(c) || alias) {
      TSSymbol symbol = alias ? alias : ts_subtree_symbol(c);
      if (KEPT(symbol)) {
        if (count < cap) out[count] = (TSNode){{start.bytes, start.extent.row, start.extent.column, alias}, child, tree};
        count++;
      }
    }
    // Visible or hidden, a node with children is walked next: pre-order.
    if (ts_subtree_child_count(c) > 0) {
      if (depth + 1 >= max_depth) return UINT32_MAX;
      stack[depth++] = (Place){children, child_count, i, structural, aliases, position};
      children = ts_subtree_children(c);
      child_count = c.ptr->child_count;
      i = 0;
      structural = 0;
      aliases = ts_language_alias_sequence(language, c.ptr->production_id);
      position = start;
    }
  }
#undef KEPT
  return count;
}

static inline TSNode null_node(void) {
  return (TSNode){{0, 0, 0, 0}, NULL, NULL};
}

// The first child `ts_node_child(node, 0)` gives: the first visible or aliased node among `node`'s children,
// looking into hidden children that have visible ones. Iterative: hidden nodes may nest deep.
static TSNode first_child(TSNode node) {
  const TSTree *tree = node.tree;
  for (;;) {
    Subtree parent = *(const Subtree *)node.id;
    if (ts_subtree_child_count(parent) == 0) return null_node();
    const TSSymbol *alias_sequence = ts_language_alias_sequence(tree->language, parent.ptr->production_id);
    const Subtree *children = ts_subtree_children(parent);
    Length position = {node.context[0], {node.context[1], node.context[2]}};
    uint32_t structural_child_index = 0;
    bool descended = false;
    for (uint32_t i = 0; i < parent.ptr->child_count; i++) {
      const Subtree *child = &children[i];
      TSSymbol alias = 0;
      if (!ts_subtree_extra(*child)) {
        if (alias_sequence) alias = alias_sequence[structural_child_index];
        structural_child_index++;
      }
      if (i > 0) position = length_add(position, ts_subtree_padding(*child));
      TSNode found = {{position.bytes, position.extent.row, position.extent.column, alias}, child, tree};
      if (ts_subtree_visible(*child) || alias) return found;
      if (ts_subtree_visible_child_count(*child) > 0) {
        node = found;
        descended = true;
        break;
      }
      position = length_add(position, ts_subtree_size(*child));
    }
    if (!descended) return null_node();
  }
}

// The child of `node` in field `field_id`: the node `ts_node_child_by_field_id` returns, found the same way
// (the same steps over the production's field map, fields inherited from hidden children searched in them),
// but without a call per child to make a node of it, nor calls to learn the node's start and child count.
TSNode drsg_ts_node_child_by_field_id(TSNode node, TSFieldId field_id) {
  const TSTree *tree = node.tree;
  for (;;) {
    Subtree subtree = *(const Subtree *)node.id;
    // `ts_node_child_count`: no visible child, no field either.
    if (!field_id || ts_subtree_visible_child_count(subtree) == 0) return null_node();
    const TSFieldMapEntry *field_map, *field_map_end;
    ts_language_field_map(tree->language, subtree.ptr->production_id, &field_map, &field_map_end);
    if (field_map == field_map_end) return null_node();
    // The entries are sorted by field id: keep those of `field_id`.
    while (field_map->field_id < field_id) {
      field_map++;
      if (field_map == field_map_end) return null_node();
    }
    while (field_map_end[-1].field_id > field_id) {
      field_map_end--;
      if (field_map == field_map_end) return null_node();
    }
    const TSSymbol *alias_sequence = ts_language_alias_sequence(tree->language, subtree.ptr->production_id);
    const Subtree *children = ts_subtree_children(subtree);
    Length position = {node.context[0], {node.context[1], node.context[2]}};
    uint32_t structural_child_index = 0;
    bool recur = false;
    for (uint32_t i = 0; i < subtree.ptr->child_count; i++) {
      const Subtree *child = &children[i];
      if (i > 0) position = length_add(position, ts_subtree_padding(*child));
      Length start = position;
      position = length_add(position, ts_subtree_size(*child));
      if (ts_subtree_extra(*child)) continue;
      TSSymbol alias = alias_sequence ? alias_sequence[structural_child_index] : 0;
      uint32_t index = structural_child_index++;
      if (index < field_map->child_index) continue;
      TSNode found = {{start.bytes, start.extent.row, start.extent.column, alias}, child, tree};
      if (field_map->inherited) {
        // A hidden child's fields are its visible parent's: the last candidate is searched in place of this
        // node, an earlier one by a call that may find nothing.
        if (field_map + 1 == field_map_end) {
          node = found;
          recur = true;
          break;
        }
        TSNode result = drsg_ts_node_child_by_field_id(found, field_id);
        if (result.id) return result;
        field_map++;
        if (field_map == field_map_end) return null_node();
      } else if (ts_subtree_visible(*child) || alias) {
        return found;
      } else if (ts_subtree_visible_child_count(*child) > 0) {
        // A hidden node with visible children stands for the first of them.
        return first_child(found);
      } else {
        field_map++;
        if (field_map == field_map_end) return null_node();
      }
    }
    if (!recur) return null_node();
  }
}

// Whether `child` is one of the subtrees `parent` holds itself (not one below a hidden child): for the tests,
// which check that the searches above go below hidden nodes.
bool drsg_ts_node_holds(TSNode parent, TSNode child) {
  Subtree subtree = *(const Subtree *)parent.id;
  if (ts_subtree_child_count(subtree) == 0) return false;
  const Subtree *children = ts_subtree_children(subtree);
  const Subtree *held = (const Subtree *)child.id;
  return held >= children && held < children + subtree.ptr->child_count;
}
