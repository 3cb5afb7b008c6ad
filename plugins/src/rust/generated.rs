//! Items the file's own macros write where they are invoked among items: `top_level_handler_fn!(get,
//! GET);` writes `pub fn get(…)`, and `chained_handler_fn!(get, GET);` among an impl's members writes a
//! method of the impl's type.
//!
//! The expansion is parsed as a file (among a module's items) or as the body of `impl _M` (among an
//! impl's members, whose methods then take the real impl's [`ImplBlock`]) and read as a file is. Its defs
//! follow the file's own, span the invocation's lines and sit below the def the invocation sits in; the
//! sites and bindings inside them are scoped to them. A site of the macro's body sits at the invocation,
//! marked [`Ref::expanded`]; one inside a fragment the invocation passed keeps its place. An item-level
//! invocation of the file's macros inside an expansion (a macro that calls itself with docs added) is
//! expanded in turn, to [`expand::MAX_DEPTH`]. The imports, fields and trait impls generated code holds
//! are not read, and a doc comment the macro writes is no doc of the def.

use std::collections::HashMap;

use drsg_parsers::text::{lines, node_text};
use drsg_parsers::{Binding, Def, ImplBlock, Inherit, Ref};
use tree_sitter::Node;

use super::expand::{self, Glue};
use super::macros::{self, Reading};
use super::refs::Positioned;
use super::{Capture, Container, Field, capture, defs, read_expression_site, with_scopes};
use crate::fields::ChildInField;
use crate::kinds::KindName;

/// What an item-level invocation generates, in the coordinates of the text that invokes it.
#[derive(Debug, Default)]
pub(super) struct Generated {
    /// Parents index `defs`; `None` is the def the invocation sits in.
    pub(super) defs: Vec<Def>,
    /// A set `scope` indexes `defs`; an unset one is the invocation's.
    pub(super) refs: Vec<Positioned<Ref>>,
    /// Each scoped to one of `defs`.
    pub(super) bindings: Vec<Positioned<Binding>>,
    /// The generated `impl Trait for Type` items, at the invocation's line.
    pub(super) inherits: Vec<Inherit>,
}

/// Where an invocation of a macro the file defines sits among items: `Some(None)` among a module's,
/// `Some(Some(block))` among the members of impl `block`; `None` when it is no such invocation.
pub(super) fn placement(
    node: Node<'_>,
    text: &str,
    reading: Reading<'_>,
    containers: &HashMap<usize, Container<'_>>,
) -> Option<Option<ImplBlock>> {
    let name = node_text(node.field(Field::Macro)?, text);
    if !reading.rules.defines(name) || reading.depth >= expand::MAX_DEPTH {
        return None;
    }
    match containers.get(&node.id()) {
        Some(Container::Impl(item)) => return Some(Some(defs::impl_block(*item, text))),
        Some(Container::Trait(_)) => return None,
        None => {}
    }
    // (`Node::parent` searches down from the root, so it is asked only of the file's own macros.)
    let parent = node.parent()?;
    let among = |n: Node<'_>| matches!(n.kind_name(), "source_file" | "declaration_list");
    let items = among(parent) || (parent.kind_name() == "expression_statement" && parent.parent().is_some_and(among));
    items.then_some(None)
}

/// The items invocation `node` of `text` generates; `block` is the impl among whose members it sits.
/// `None` when the macro has no rule for it or its expansion does not parse.
pub(super) fn expand(node: Node<'_>, text: &str, reading: Reading<'_>, block: Option<&ImplBlock>) -> Option<Generated> {
    let name = node_text(node.field(Field::Macro)?, text);
    let tree = macros::last_token_tree(node)?;
    let glue = if block.is_some() { Glue::Members } else { Glue::Items };
    let expansion = reading.rules.expand(name, tree, text, glue)?;
    let parsed = macros::parse(&expansion.text)?;
    let root = parsed.root_node();
    if root.has_error() {
        return None;
    }
    let source = expansion.text.as_str();
    let inner = Reading { rules: reading.rules, depth: reading.depth + 1 };
    let captured = capture(root, source);
    let trivia = defs::Trivia::new(captured.trivia);
    let mut generated = Generated::default();
    let table = defs::build(captured.defs, &captured.containers, &trivia, source, &mut generated.defs);

    let (mut refs, mut bindings, mut pending, mut nested) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (ty, owner) in captured.types {
        super::refs::types(ty, owner, &captured.containers, source, &mut refs);
    }
    for (site, kind) in captured.sites {
        match kind {
            Capture::ImplTrait => generated.inherits.extend(super::bindings::impl_trait(site, source)),
            Capture::Use | Capture::ExternCrate | Capture::Field | Capture::Supertraits => {}
            kind => {
                if kind == Capture::Macro {
                    match placement(site, source, inner, &captured.containers) {
                        Some(block) => nested.push((site, block)),
                        None => macros::invocation(site, source, inner, &mut refs, &mut bindings, &mut pending),
                    }
                }
                read_expression_site(site, kind, source, &mut refs, &mut bindings);
            }
        }
    }
    macros::read(pending, source, inner, &mut refs, &mut bindings);
    for (site, block) in nested {
        match expand(site, source, inner, block.as_ref()) {
            Some(more) => {
                let into = Invoker { defs: &mut generated.defs, refs: &mut refs, bindings: &mut bindings };
                more.merge(site.start_byte(), &table.spans, into, &mut generated.inherits);
            }
            None => macros::invocation(site, source, inner, &mut refs, &mut bindings, &mut Vec::new()),
        }
    }

    let (line, end_line) = lines(node);
    for inherit in &mut generated.inherits {
        inherit.line = line;
    }
    for def in &mut generated.defs {
        (def.line, def.end_line) = (line, end_line);
        if let (Some(block), Some(placeholder)) = (block, def.impl_block.as_mut())
            && placeholder.trait_.is_none()
            && placeholder.self_ty == ["_M"]
        {
            *placeholder = block.clone();
        }
    }
    let refs = with_scopes(refs.into_iter().map(positioned).collect(), &table.spans, |(_, r), scope| {
        r.scope = r.scope.or(scope)
    });
    generated.refs = macros::to_invocation(refs, &expansion, node, name);
    let bindings = with_scopes(bindings.into_iter().map(positioned).collect(), &table.spans, |(_, b), scope| {
        b.scope = b.scope.or(scope)
    });
    // A binding outside the generated defs is the body's own (hygienic) name.
    for (at, mut binding) in bindings.into_iter().filter(|(_, b)| b.scope.is_some()) {
        match expansion.copies.iter().find(|c| c.holds(at)) {
            Some(copy) => {
                let (at, mapped) = copy.map(at, binding.line);
                binding.line = mapped;
                generated.bindings.push((at, binding));
            }
            None => {
                binding.line = line;
                generated.bindings.push((node.start_byte(), binding));
            }
        }
    }
    Some(generated)
}

/// An item with its position, as the item `with_scopes` sorts and scopes, so that the position stays.
fn positioned<T>((at, item): Positioned<T>) -> Positioned<Positioned<T>> {
    (at, (at, item))
}

/// The defs, sites and bindings of an invoking text, which generated items join.
pub(super) struct Invoker<'a> {
    pub(super) defs: &'a mut Vec<Def>,
    pub(super) refs: &'a mut Vec<Positioned<Ref>>,
    pub(super) bindings: &'a mut Vec<Positioned<Binding>>,
}

impl Generated {
    /// Moves what an invocation at byte `at` generated into `into`, the invoking text's: the defs after
    /// its defs, below the innermost of its def spans `spans` around `at` (and tests when that is one),
    /// the sites and bindings scoped to them, the trait impls into `inherits`.
    pub(super) fn merge(self, at: usize, spans: &[(usize, usize)], into: Invoker<'_>, inherits: &mut Vec<Inherit>) {
        let Invoker { defs, refs, bindings } = into;
        let base = u32::try_from(defs.len()).unwrap_or(u32::MAX);
        // Spans sort outer first, so the last that holds `at` is the innermost.
        let parent = spans.iter().rposition(|&(start, end)| start <= at && at < end);
        let in_test = parent.is_some_and(|p| defs[p].is_test);
        let parent = parent.map(|p| p as u32);
        for mut def in self.defs {
            def.parent = def.parent.map(|p| p + base).or(parent);
            def.is_test |= in_test;
            defs.push(def);
        }
        refs.extend(self.refs.into_iter().map(|(at, mut r)| {
            r.scope = r.scope.map(|s| s + base);
            (at, r)
        }));
        bindings.extend(self.bindings.into_iter().map(|(at, mut b)| {
            b.scope = b.scope.map(|s| s + base);
            (at, b)
        }));
        inherits.extend(self.inherits);
    }
}
