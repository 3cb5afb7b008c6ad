//! Items the file's own macros write where they are invoked among items: `top_level_handler_fn!(get,
//! GET);` writes `pub fn get(…)`, and `chained_handler_fn!(get, GET);` among an impl's members writes a
//! method of the impl's type. A braced invocation of another file's macro among items (`cfg_rt! { … }`,
//! `feature! { #![…] … }`) is read as the items written in it, the way such macros pass them through
//! under a `#[cfg]`; tokens that are no items (`bitflags!`'s `struct F: u32 { … }`) are not read.
//!
//! The expansion (or the tokens as written) is parsed as a file (among a module's items) or as the body
//! of `impl _M` (among an impl's members, whose methods then take the real impl's [`ImplBlock`]) and read
//! as a file is. Its defs follow the file's own and sit below the def the invocation sits in; a def inside
//! a fragment the invocation passed keeps its lines, any other spans the invocation's. The sites and
//! bindings inside them are scoped to them. A site of the macro's body sits at the invocation, marked
//! `Origin::MacroBody`; one inside a fragment keeps its place. An item-level invocation inside an expansion
//! (a macro that calls itself with docs added) is read in turn, to `MAX_DEPTH`. A doc comment the macro
//! writes is no doc of the def.

use std::collections::HashMap;

use drsg_parsers::text::{lines, node_text};
use drsg_parsers::{Binding, Def, ImplBlock, Import, Inherit, Ref};
use tree_sitter::Node;

use super::mbe::{self, Glue};
use super::{self as macros, Reading, Treatment};
use crate::fields::ChildInField;
use crate::kinds::KindName;
use crate::rust::refs::Positioned;
use crate::rust::{Capture, Container, Field, capture, defs, read_expression_site, with_scopes};

/// What an item-level invocation generates, in the coordinates of the text that invokes it.
#[derive(Debug, Default)]
pub(in crate::rust) struct Generated {
    /// Parents index `defs`; `None` is the def the invocation sits in.
    pub(in crate::rust) defs: Vec<Def>,
    /// A set `scope` indexes `defs`; an unset one is the invocation's.
    pub(in crate::rust) refs: Vec<Positioned<Ref>>,
    /// Each scoped to one of `defs`.
    pub(in crate::rust) bindings: Vec<Positioned<Binding>>,
    /// A set `scope` indexes `defs`; an unset one is the invocation's.
    pub(in crate::rust) imports: Vec<Positioned<Import>>,
    /// The generated `impl Trait for Type` items and supertraits (a `child_def` indexes `defs`).
    pub(in crate::rust) inherits: Vec<Inherit>,
    /// While the expansion is read: each def's span in it (those of a nested invocation's defs, the
    /// invocation's).
    spans: Vec<(usize, usize)>,
}

/// How an invocation among items is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::rust) struct Placement {
    /// The impl among whose members it sits; `None` among a module's items.
    pub(in crate::rust) block: Option<ImplBlock>,
    /// A braced invocation of a macro the file does not define (`cfg_rt! { … }`): its items are read
    /// as written, since such macros pass the items they are given through (under a `#[cfg]`).
    pub(in crate::rust) as_written: bool,
}

/// Where an invocation of a macro the file defines, or a braced invocation of any other, sits among
/// items; `None` when it is no such invocation. Asked by `macros::treatment` only, of a macro that is not
/// opaque.
pub(in crate::rust) fn placement(
    node: Node<'_>,
    text: &str,
    reading: Reading<'_>,
    containers: &HashMap<usize, Container<'_>>,
) -> Option<Placement> {
    let name = node_text(node.field(Field::Macro)?, text);
    if reading.depth >= macros::MAX_DEPTH {
        return None;
    }
    let own = reading.rules.defines(name);
    let braced = || macros::last_token_tree(node).is_some_and(|t| text.as_bytes().get(t.start_byte()) == Some(&b'{'));
    let as_written = !own && braced();
    if !own && !as_written {
        return None;
    }
    match containers.get(&node.id()) {
        Some(Container::Impl(item)) => {
            return Some(Placement { block: Some(defs::impl_block(*item, text)), as_written });
        }
        Some(Container::Trait(_)) => return None,
        None => {}
    }
    // (`Node::parent` searches down from the root, so it is asked only of these invocations.)
    let parent = node.parent()?;
    let among = |n: Node<'_>| matches!(n.kind_name(), "source_file" | "declaration_list");
    let items = among(parent) || (parent.kind_name() == "expression_statement" && parent.parent().is_some_and(among));
    items.then_some(Placement { block: None, as_written })
}

/// The items invocation `node` of `text` generates, placed as `placed` says. `None` when the macro
/// has no rule for it or its expansion does not parse.
pub(in crate::rust) fn expand(
    node: Node<'_>,
    text: &str,
    reading: Reading<'_>,
    placed: &Placement,
) -> Option<Generated> {
    let name = node_text(node.field(Field::Macro)?, text);
    let tree = macros::last_token_tree(node)?;
    let block = placed.block.as_ref();
    let glue = if block.is_some() { Glue::Members } else { Glue::Items };
    let expansion = match placed.as_written {
        true => mbe::verbatim(tree, text, glue).ok()?,
        false => reading.rules.expand(name, tree, text, glue, reading.depth).ok()?,
    };
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
    generated.spans.clone_from(&table.spans);

    let (mut refs, mut bindings, mut pending, mut nested) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut imports, mut inherits) = (Vec::new(), Vec::new());
    for (ty, owner) in captured.types {
        crate::rust::refs::types(ty, owner, &captured.containers, source, &mut refs);
    }
    for (site, kind) in captured.sites {
        match kind {
            Capture::ImplTrait => {
                inherits.extend(crate::rust::bindings::impl_trait(site, source).map(|i| (site.start_byte(), i)))
            }
            Capture::Supertraits => {
                let mut found = Vec::new();
                crate::rust::bindings::supertraits(site, source, table.by_node.get(&site.id()).copied(), &mut found);
                inherits.extend(found.into_iter().map(|i| (site.start_byte(), i)));
            }
            Capture::Use => crate::rust::imports::use_declaration(site, source, &mut imports),
            Capture::ExternCrate => imports.extend(crate::rust::imports::extern_crate(site, source)),
            Capture::Field => bindings.extend(crate::rust::bindings::field(site, source)),
            kind => {
                if kind == Capture::Macro {
                    match macros::treatment(site, source, inner, Some(&captured.containers)) {
                        Treatment::Items(placed) => nested.push((site, placed)),
                        treatment => {
                            macros::invocation(site, source, inner, treatment, &mut refs, &mut bindings, &mut pending)
                        }
                    }
                }
                read_expression_site(site, kind, source, &mut refs, &mut bindings);
            }
        }
    }
    macros::read(pending, source, inner, &mut refs, &mut bindings);
    for (site, placed) in nested {
        match expand(site, source, inner, &placed) {
            Some(more) => {
                let at = site.start_byte();
                generated.spans.extend(std::iter::repeat_n((at, site.end_byte()), more.defs.len()));
                let mut theirs = Vec::new();
                let into = Invoker {
                    defs: &mut generated.defs,
                    refs: &mut refs,
                    bindings: &mut bindings,
                    imports: &mut imports,
                };
                more.merge(at, &table.spans, into, &mut theirs);
                inherits.extend(theirs.into_iter().map(|i| (at, i)));
            }
            None => {
                let treatment = Treatment::Items(placed);
                macros::invocation(site, source, inner, treatment, &mut refs, &mut bindings, &mut Vec::new())
            }
        }
    }

    // What lies in a fragment the invocation passed keeps its lines; the rest sits at the invocation.
    let (line, end_line) = lines(node);
    let at = |start: usize, end: usize| {
        expansion.copies.iter().find(|c| c.holds(start) && c.holds(end.saturating_sub(1).max(start)))
    };
    for (start, mut inherit) in inherits {
        inherit.line = at(start, start + 1).map_or(line, |copy| copy.map(start, inherit.line).1);
        generated.inherits.push(inherit);
    }
    for (def, &(start, end)) in generated.defs.iter_mut().zip(&generated.spans) {
        (def.line, def.end_line) = match at(start, end) {
            Some(copy) => (copy.map(start, def.line).1, copy.map(start, def.end_line).1),
            None => (line, end_line),
        };
        if let (Some(block), Some(placeholder)) = (block, def.impl_block.as_mut())
            && placeholder.trait_.is_none()
            && placeholder.self_ty == ["_M"]
        {
            *placeholder = block.clone();
        }
    }
    generated.spans.clear();
    let refs = with_scopes(refs.into_iter().map(positioned).collect(), &table.spans, |(_, r), scope| {
        r.scope = r.scope.or(scope)
    });
    generated.refs = macros::to_invocation(refs, &expansion, node, name);
    let bindings = with_scopes(bindings.into_iter().map(positioned).collect(), &table.spans, |(_, b), scope| {
        b.scope = b.scope.or(scope)
    });
    // A binding outside the generated defs is the body's own (hygienic) name; imports are items.
    let bindings = bindings.into_iter().filter(|(_, b)| b.scope.is_some());
    generated.bindings = to_invoking(bindings, &expansion, node, |b| &mut b.line);
    let imports = with_scopes(imports.into_iter().map(positioned).collect(), &table.spans, |(_, i), scope| {
        i.scope = i.scope.or(scope)
    });
    generated.imports = to_invoking(imports.into_iter(), &expansion, node, |i| &mut i.line);
    Some(generated)
}

/// Items of an expansion in the invoking text's coordinates: one inside a copied fragment keeps its
/// place, any other sits at the invocation `node`.
fn to_invoking<T>(
    items: impl Iterator<Item = Positioned<T>>,
    expansion: &mbe::Expansion,
    node: Node<'_>,
    line: impl Fn(&mut T) -> &mut u32,
) -> Vec<Positioned<T>> {
    let at_invocation = u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX);
    items
        .map(|(at, mut item)| match expansion.copies.iter().find(|c| c.holds(at)) {
            Some(copy) => {
                let (at, mapped) = copy.map(at, *line(&mut item));
                *line(&mut item) = mapped;
                (at, item)
            }
            None => {
                *line(&mut item) = at_invocation;
                (node.start_byte(), item)
            }
        })
        .collect()
}

/// An item with its position, as the item `with_scopes` sorts and scopes, so that the position stays.
fn positioned<T>((at, item): Positioned<T>) -> Positioned<Positioned<T>> {
    (at, (at, item))
}

/// The defs, sites, bindings and imports of an invoking text, which generated items join.
pub(in crate::rust) struct Invoker<'a> {
    pub(in crate::rust) defs: &'a mut Vec<Def>,
    pub(in crate::rust) refs: &'a mut Vec<Positioned<Ref>>,
    pub(in crate::rust) bindings: &'a mut Vec<Positioned<Binding>>,
    pub(in crate::rust) imports: &'a mut Vec<Positioned<Import>>,
}

impl Generated {
    /// Moves what an invocation at byte `at` generated into `into`, the invoking text's: the defs after
    /// its defs, below the innermost of its def spans `spans` around `at` (and tests when that is one),
    /// the sites and bindings scoped to them, the trait impls into `inherits`.
    pub(in crate::rust) fn merge(
        self,
        at: usize,
        spans: &[(usize, usize)],
        into: Invoker<'_>,
        inherits: &mut Vec<Inherit>,
    ) {
        let Invoker { defs, refs, bindings, imports } = into;
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
        imports.extend(self.imports.into_iter().map(|(at, mut i)| {
            i.scope = i.scope.map(|s| s + base);
            (at, i)
        }));
        inherits.extend(self.inherits.into_iter().map(|mut i| {
            i.child_def = i.child_def.map(|d| d + base);
            i
        }));
    }
}
