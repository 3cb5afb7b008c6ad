//! Which definition encloses a byte position: definitions sorted by start, walked up by parent.

use std::collections::{HashMap, HashSet};

/// The extents of the file's definitions, in `FileFacts::defs` order (sorted by start).
pub(super) struct Scopes {
    starts: Vec<usize>,
    ends: Vec<usize>,
    parents: Vec<Option<u32>>,
    /// Definition node id → definition index.
    by_node: HashMap<usize, u32>,
    /// Type parameters by the definition that declares them.
    type_params: HashSet<(u32, String)>,
}

impl Scopes {
    /// `spans` are `(start, end, node id)` sorted by start then by end descending; returns the scopes
    /// and each definition's parent.
    pub(super) fn new(spans: &[(usize, usize, usize)]) -> Scopes {
        let mut scopes = Scopes {
            starts: Vec::with_capacity(spans.len()),
            ends: Vec::with_capacity(spans.len()),
            parents: Vec::with_capacity(spans.len()),
            by_node: HashMap::with_capacity(spans.len()),
            type_params: HashSet::new(),
        };
        for (index, &(start, end, node)) in spans.iter().enumerate() {
            // The previous definitions are nested or disjoint; the innermost still open encloses this one.
            let parent = scopes.innermost_before(index, start);
            scopes.starts.push(start);
            scopes.ends.push(end);
            scopes.parents.push(parent);
            scopes.by_node.insert(node, index as u32);
        }
        scopes
    }

    pub(super) fn parent(&self, def: u32) -> Option<u32> {
        self.parents[def as usize]
    }

    pub(super) fn def_of_node(&self, node_id: usize) -> Option<u32> {
        self.by_node.get(&node_id).copied()
    }

    /// The innermost definition whose extent holds byte `pos`.
    pub(super) fn innermost(&self, pos: usize) -> Option<u32> {
        let after = self.starts.partition_point(|&s| s <= pos);
        self.innermost_before(after, pos)
    }

    /// The innermost definition holding `pos` (whose start is at most `pos`),
    /// among the first `count` definitions. The last one starting at or before `pos` is a descendant of
    /// (or is) the answer, so walking up its parents finds it.
    fn innermost_before(&self, count: usize, pos: usize) -> Option<u32> {
        let mut current = count.checked_sub(1).map(|i| i as u32);
        while let Some(def) = current {
            if pos < self.ends[def as usize] {
                return Some(def);
            }
            current = self.parents[def as usize];
        }
        None
    }

    /// Record a type parameter `name` declared at byte `pos` (by the definition holding it).
    pub(super) fn add_type_param(&mut self, pos: usize, name: &str) {
        if let Some(def) = self.innermost(pos) {
            self.type_params.insert((def, name.to_owned()));
        }
    }

    /// Whether `name` is a type parameter of `scope` or of a definition around it.
    pub(super) fn is_type_param(&self, scope: Option<u32>, name: &str) -> bool {
        let mut scope = scope;
        while let Some(def) = scope {
            if self.type_params.contains(&(def, name.to_owned())) {
                return true;
            }
            scope = self.parent(def);
        }
        false
    }

    /// The innermost definition holding `pos` other than the definition made from `own_node` itself.
    pub(super) fn enclosing_except(&self, pos: usize, own_node: usize) -> Option<u32> {
        let def = self.innermost(pos)?;
        if self.def_of_node(own_node) == Some(def) { self.parent(def) } else { Some(def) }
    }
}

/// Sorted, merged byte ranges: membership by binary search.
pub(super) struct RangeSet {
    ranges: Vec<(usize, usize)>,
}

impl RangeSet {
    pub(super) fn new(mut ranges: Vec<(usize, usize)>) -> RangeSet {
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (start, end) in ranges {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        RangeSet { ranges: merged }
    }

    /// Whether `[start, end)` lies inside one of the ranges.
    pub(super) fn contains(&self, start: usize, end: usize) -> bool {
        let after = self.ranges.partition_point(|&(s, _)| s <= start);
        after > 0 && end <= self.ranges[after - 1].1
    }
}
