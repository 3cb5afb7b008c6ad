//! Definitions: their kind, name, extent, signature, doc, visibility, test flag and return type;
//! exports that sit on a definition; inheritance of classes and interfaces.
//!
//! The functions of an object literal a module-level variable holds (`const Tags = { getAll: () => … }`)
//! are methods of that variable (`Tags.getAll`); an object made inside a function defines nothing.

use crate::kinds::KindName;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use drsg_parsers::text::{clean_doc, collapse, node_text};
use drsg_parsers::{Def, DefKind, Export, Inherit, InheritKind, TypeList, Visibility};
use tree_sitter::Node;

use super::capture::{Captured, DefSite};
use super::scope::{RangeSet, Scopes};
use super::syntax::{self, Base, Field, after_decorators, chain, name_text, start_after_decorators, type_path};
use crate::fields::ChildInField;

/// The definitions of a file and what hangs off them.
pub(super) struct Built {
    pub defs: Vec<Def>,
    pub scopes: Scopes,
    pub exports: Vec<Export>,
    pub inherits: Vec<Inherit>,
    pub module_doc: Option<String>,
}

/// A definition before it has an index.
struct Pending<'t> {
    kind: DefKind,
    name: String,
    /// The node the definition was made from (a declarator for variables, the assignment for `exports.f = …`).
    node: Node<'t>,
    /// Extent used for enclosure: leading decorators excluded.
    start: usize,
    /// The line of `start`.
    line: u32,
    end: usize,
    signature: String,
    doc: Option<String>,
    visibility: Visibility,
    returns: Option<Vec<String>>,
    /// `export default`, `module.exports = …` → `default`; `exports.f = …` → `f`.
    export_as: Option<String>,
    /// An overload or abstract signature, dropped when an implementation of the same name sits beside it.
    signature_only: bool,
}

/// Context shared by the builders.
struct Ctx<'a, 't> {
    cap: &'a Captured<'t>,
    source: &'a str,
    /// Decorator end byte → start byte, to look for a doc comment above decorators.
    decorators: HashMap<usize, usize>,
    /// Start bytes of the doc comments used by definitions.
    used_docs: HashSet<usize>,
    /// The start byte of a leading file comment that documents the module, never a definition.
    file_doc: Option<usize>,
}

/// The JSDoc comment that opens the file (after an optional `#!` line), if any.
fn leading_comment<'t>(cap: &Captured<'t>, source: &str) -> Option<Node<'t>> {
    let first = cap.comments_first?;
    let before = source.get(..first.start_byte())?;
    let before = if before.starts_with("#!") { before.split_once('\n').map_or("", |(_, rest)| rest) } else { before };
    (before.trim().is_empty() && node_text(first, source).starts_with("/**")).then_some(first)
}

pub(super) fn build(cap: &Captured<'_>, source: &str, path: &str) -> Built {
    let leading = leading_comment(cap, source);
    let file_doc = leading.filter(|c| {
        let text = node_text(*c, source);
        ["@file", "@fileoverview", "@module", "@packageDocumentation"].iter().any(|tag| text.contains(tag))
    });
    let mut ctx = Ctx {
        cap,
        source,
        decorators: cap.decorators.iter().map(|d| (d.end_byte(), d.start_byte())).collect(),
        used_docs: HashSet::new(),
        file_doc: file_doc.map(|c| c.start_byte()),
    };

    let mut pending = Vec::with_capacity(cap.defs.len() + cap.var_declarations.len());
    for &(site, node, name) in &cap.defs {
        if let Some(def) = ctx.site(site, node, name) {
            pending.push(def);
        }
    }
    for &declaration in &cap.var_declarations {
        ctx.variables(declaration, false, &mut pending);
    }
    for &declaration in &cap.local_declarations {
        ctx.variables(declaration, true, &mut pending);
    }
    for &(assignment, name, value) in &cap.cjs_members {
        if let Some(def) = ctx.commonjs_member(assignment, name, value) {
            pending.push(def);
        }
    }
    for &(assignment, value) in &cap.cjs_modules {
        if let Some(def) = ctx.commonjs_default(assignment, value) {
            pending.push(def);
        }
    }

    pending.sort_by_key(|d| (d.start, Reverse(d.end)));
    let pending = drop_overloads(pending);
    let spans: Vec<_> = pending.iter().map(|d| (d.start, d.end, d.node.id())).collect();
    let mut scopes = Scopes::new(&spans);
    for param in &cap.type_params {
        scopes.add_type_param(param.start_byte(), node_text(*param, source));
    }

    let module_doc = match (file_doc, leading) {
        (Some(c), _) => clean_doc(&[node_text(c, source)]),
        (None, Some(c)) if !ctx.used_docs.contains(&c.start_byte()) => clean_doc(&[node_text(c, source)]),
        _ => None,
    };

    let path_is_test = path_is_test(path);
    let tests = RangeSet::new(cap.test_callbacks.clone());
    let mut defs = Vec::with_capacity(pending.len());
    let mut exports = Vec::new();
    let mut inherits = Vec::new();
    for (index, d) in pending.into_iter().enumerate() {
        let index = index as u32;
        // `(): T` with `T` a type parameter names no type.
        let mut returns = d.returns.filter(|r| !(r.len() == 1 && scopes.is_type_param(Some(index), &r[0])));
        if d.kind == DefKind::Interface {
            returns = call_signature_returns(d.node, source);
        }
        if let Some(exported) = d.export_as {
            exports.push(Export { local: d.name.clone(), exported, line: d.line });
        }
        if matches!(d.kind, DefKind::Class | DefKind::Interface) {
            heritage(d.node, source, index, &d.name, &mut inherits);
        }
        let type_param = |t: &str| scopes.is_type_param(Some(index), t);
        let (generics, slots, returns_fields, returns_args) = match d.kind {
            DefKind::Function | DefKind::Method => {
                let generics = own_type_params(d.node, source);
                // A type parameter of an enclosing class or function is bound by nothing a call says.
                let enclosing = |t: &str| !generics.iter().any(|g| g == t) && type_param(t);
                let function = function_at(d.node);
                let slots = function
                    .and_then(|f| Some(slots(f.field(Field::Parameters)?, f, source, &enclosing)))
                    .unwrap_or_default();
                let args = returns_args(d.node, source, &generics);
                (generics, slots, returns_fields(d.node, source), args)
            }
            DefKind::Class => (class_type_params(d.node, source), Slots::default(), Vec::new(), Vec::new()),
            DefKind::Interface => {
                (Vec::new(), call_signature_slots(d.node, source, &type_param), Vec::new(), Vec::new())
            }
            DefKind::TypeAlias => (Vec::new(), alias_slots(d.node, source, &type_param), Vec::new(), Vec::new()),
            _ => Default::default(),
        };
        let Slots { callbacks, callback_types } = slots;
        defs.push(Def {
            kind: d.kind,
            name: d.name,
            parent: scopes.parent(index),
            line: d.line,
            end_line: d.node.end_position().row as u32 + 1,
            signature: d.signature,
            doc: d.doc,
            visibility: d.visibility,
            is_test: path_is_test || tests.contains(d.start, d.end),
            impl_block: None,
            returns,
            returns_ok: awaited(d.node, source),
            external_body: false,
            overload: false,
            generics,
            callbacks,
            callback_types,
            returns_fields,
            returns_args,
        });
    }
    Built { defs, scopes, exports, inherits, module_doc }
}

/// `*.test.*`, `*.spec.*`, or under a `__tests__`, `tests` or `test` directory.
fn path_is_test(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or("");
    file.contains(".test.")
        || file.contains(".spec.")
        || parts.iter().any(|d| matches!(*d, "__tests__" | "tests" | "test"))
}

/// Drop overload signatures next to an implementation, and repeated signatures of one name.
/// `pending` is sorted; a definition's container is found with a throwaway scope table.
fn drop_overloads(pending: Vec<Pending<'_>>) -> Vec<Pending<'_>> {
    if !pending.iter().any(|d| d.signature_only) {
        return pending;
    }
    let spans: Vec<_> = pending.iter().map(|d| (d.start, d.end, d.node.id())).collect();
    let scopes = Scopes::new(&spans);
    let key = |i: usize| (scopes.parent(i as u32), pending[i].name.as_str());
    let implemented: HashSet<_> = (0..pending.len())
        .filter(|&i| !pending[i].signature_only && matches!(pending[i].kind, DefKind::Function | DefKind::Method))
        .map(key)
        .collect();
    let mut seen = HashSet::new();
    let keep: Vec<bool> = (0..pending.len())
        .map(|i| !pending[i].signature_only || (!implemented.contains(&key(i)) && seen.insert(key(i))))
        .collect();
    pending.into_iter().zip(keep).filter_map(|(d, keep)| keep.then_some(d)).collect()
}

impl<'t> Ctx<'_, 't> {
    fn text(&self, node: Node<'_>) -> &str {
        node_text(node, self.source)
    }

    /// Follow `export` / `declare` wrappers out: the outermost start, where the signature starts, and whether
    /// the declaration is exported.
    fn anchor(&self, node: Node<'_>) -> (usize, usize, bool) {
        let mut id = node.id();
        let mut start = node.start_byte();
        let mut sig_start = start_after_decorators(node);
        let mut exported = false;
        while let Some(w) = self.cap.wrappers.get(&id) {
            start = w.start;
            sig_start = w.sig_start;
            exported |= w.export;
            id = w.outer;
        }
        (start, sig_start, exported)
    }

    /// The JSDoc comment right above byte `pos`, over whitespace and decorators.
    fn doc_before(&mut self, mut pos: usize) -> Option<String> {
        loop {
            pos = self.source.get(..pos)?.trim_end().len();
            if let Some(&start) = self.decorators.get(&pos) {
                pos = start;
                continue;
            }
            let comment = self.cap.doc_comments.get(&pos)?;
            if self.file_doc == Some(comment.start_byte()) {
                return None;
            }
            self.used_docs.insert(comment.start_byte());
            return clean_doc(&[self.text(*comment)]);
        }
    }

    /// Collapsed source text `[from, to)`, without a trailing `;` or `,`.
    fn signature(&self, from: usize, to: usize) -> String {
        let text = self.source.get(from..to.max(from)).unwrap_or("").trim_end();
        let text = text.strip_suffix([';', ',']).unwrap_or(text);
        collapse(text, 200)
    }

    /// Signature up to the `body` of `node` (or its whole text without a body).
    fn signature_to_body(&self, from: usize, node: Node<'_>) -> String {
        let to = node.field(Field::Body).map_or(node.end_byte(), |b| b.start_byte());
        self.signature(from, to)
    }

    fn site(&mut self, site: DefSite, node: Node<'t>, name: Node<'t>) -> Option<Pending<'t>> {
        let (anchor, sig_start, exported) = self.anchor(node);
        let exported_vis = if exported { Visibility::Public } else { Visibility::Private };
        let (kind, visibility, signature_only) = match site {
            DefSite::Function => (DefKind::Function, exported_vis, false),
            DefSite::FunctionSignature => (DefKind::Function, exported_vis, true),
            DefSite::Class => (DefKind::Class, exported_vis, false),
            DefSite::Method | DefSite::FieldMethod => (DefKind::Method, self.member_visibility(node, name), false),
            DefSite::Property => (DefKind::Var, self.member_visibility(node, name), false),
            DefSite::MethodSignature => (DefKind::Method, self.member_visibility(node, name), true),
            DefSite::Interface => (DefKind::Interface, exported_vis, false),
            DefSite::InterfaceMethod => (DefKind::Method, Visibility::Public, true),
            DefSite::TypeAlias => (DefKind::TypeAlias, exported_vis, false),
            DefSite::Enum => (DefKind::Enum, exported_vis, false),
            DefSite::Module => (DefKind::Module, exported_vis, false),
        };
        let signature = match site {
            DefSite::FunctionSignature
            | DefSite::MethodSignature
            | DefSite::InterfaceMethod
            | DefSite::TypeAlias
            | DefSite::Property => self.signature(sig_start, node.end_byte()),
            DefSite::FieldMethod => {
                let value = node.field(Field::Value)?;
                self.signature_to_body(sig_start, value)
            }
            _ => self.signature_to_body(sig_start, node),
        };
        let returns = match site {
            DefSite::FieldMethod => node.field(Field::Value).and_then(|v| self.returns(v)),
            DefSite::Function | DefSite::FunctionSignature | DefSite::Method | DefSite::MethodSignature => {
                self.returns(node)
            }
            DefSite::InterfaceMethod => self.returns(node),
            _ => None,
        };
        let export_as = self.cap.default_exported.contains(&node.id()).then(|| "default".to_owned());
        let (start, line) = after_decorators(node);
        Some(Pending {
            kind,
            name: name_text(name, self.source),
            node,
            start,
            line,
            end: node.end_byte(),
            signature,
            doc: self.doc_before(anchor),
            visibility,
            returns,
            export_as,
            signature_only,
        })
    }

    /// Class members: `private`/`protected` or a `#name` are private, the rest public.
    fn member_visibility(&self, node: Node<'_>, name: Node<'_>) -> Visibility {
        let hidden = self.text(name).starts_with('#')
            || syntax::children(node)
                .iter()
                .any(|c| c.kind_name() == "accessibility_modifier" && matches!(self.text(*c), "private" | "protected"));
        if hidden { Visibility::Private } else { Visibility::Public }
    }

    fn returns(&self, function: Node<'_>) -> Option<Vec<String>> {
        type_path(function.field(Field::ReturnType)?, self.source)
    }

    /// Each declarator of a module-level `const`/`let`/`var` declaration; of a declaration inside a function
    /// or block (`local`), each declarator holding a function (`const emit = (x) => …`), a local function.
    fn variables(&mut self, declaration: Node<'t>, local: bool, out: &mut Vec<Pending<'t>>) {
        let (anchor, sig_start, exported) = self.anchor(declaration);
        let source = self.source;
        let keyword = declaration.child(0).map_or("", |k| node_text(k, source));
        let plain_kind = match keyword {
            "const" => DefKind::Const,
            "let" | "var" => DefKind::Var,
            _ => return,
        };
        let prefix = self.source.get(sig_start..declaration.start_byte()).unwrap_or("").to_owned();
        let doc = self.doc_before(anchor);
        for declarator in syntax::named_children(declaration) {
            if declarator.kind_name() != "variable_declarator" {
                continue;
            }
            let Some(name) = declarator.field(Field::Name).filter(|n| n.kind_name() == "identifier") else {
                continue;
            };
            let value = declarator.field(Field::Value);
            if value.is_some_and(|v| is_require(v, self.source)) {
                continue;
            }
            let function = value
                .filter(|v| matches!(v.kind_name(), "arrow_function" | "function_expression" | "generator_function"));
            if local && function.is_none() {
                continue;
            }
            let to = function.and_then(|f| f.field(Field::Body)).map_or(declarator.end_byte(), |b| b.start_byte());
            let declared = self.source.get(declarator.start_byte()..to).unwrap_or("");
            let signature = collapse(format!("{prefix}{keyword} {declared}").trim_end(), 200);
            out.push(Pending {
                kind: if function.is_some() { DefKind::Function } else { plain_kind },
                name: self.text(name).to_owned(),
                node: declarator,
                start: declarator.start_byte(),
                line: syntax::line(declarator),
                end: declarator.end_byte(),
                signature,
                doc: doc.clone(),
                visibility: if exported { Visibility::Public } else { Visibility::Private },
                returns: function.and_then(|f| self.returns(f)),
                export_as: None,
                signature_only: false,
            });
            if let Some(object) = value.filter(|v| v.kind_name() == "object" && !local) {
                self.object_methods(object, exported, out);
            }
        }
    }

    /// The methods of an object literal a module-level variable holds (`const Tags = { getAll: () => …,
    /// find(id) { … } }`): functions inside the variable, keyed under it.
    fn object_methods(&mut self, object: Node<'t>, exported: bool, out: &mut Vec<Pending<'t>>) {
        for member in syntax::named_children(object) {
            let (name, function) = match member.kind_name() {
                "method_definition" => (member.field(Field::Name), member),
                "pair" => match member.field(Field::Value) {
                    Some(v)
                        if matches!(v.kind_name(), "arrow_function" | "function_expression" | "generator_function") =>
                    {
                        (member.field(Field::Key), v)
                    }
                    _ => continue,
                },
                _ => continue,
            };
            let Some(name) = name.filter(|n| matches!(n.kind_name(), "property_identifier" | "identifier")) else {
                continue;
            };
            out.push(Pending {
                kind: DefKind::Method,
                name: self.text(name).to_owned(),
                node: member,
                start: member.start_byte(),
                line: syntax::line(member),
                end: member.end_byte(),
                signature: self.signature_to_body(member.start_byte(), function),
                doc: self.doc_before(member.start_byte()),
                visibility: if exported { Visibility::Public } else { Visibility::Private },
                returns: self.returns(function),
                export_as: None,
                signature_only: false,
            });
        }
    }

    /// `exports.f = function () {}` / `module.exports.f = () => {}`: a public function `f`, exported as `f`.
    fn commonjs_member(&mut self, assignment: Node<'t>, name: Node<'t>, value: Node<'t>) -> Option<Pending<'t>> {
        if !matches!(value.kind_name(), "arrow_function" | "function_expression" | "generator_function") {
            return None;
        }
        let name = self.text(name).to_owned();
        Some(Pending {
            kind: DefKind::Function,
            node: assignment,
            start: assignment.start_byte(),
            line: syntax::line(assignment),
            end: assignment.end_byte(),
            signature: self.signature_to_body(assignment.start_byte(), value),
            doc: self.doc_before(assignment.start_byte()),
            visibility: Visibility::Public,
            returns: self.returns(value),
            export_as: Some(name.clone()),
            name,
            signature_only: false,
        })
    }

    /// `module.exports = function name() {}` / `class Name {}`: the definition, exported as `default`.
    fn commonjs_default(&mut self, assignment: Node<'t>, value: Node<'t>) -> Option<Pending<'t>> {
        let kind = match value.kind_name() {
            "function_expression" | "generator_function" => DefKind::Function,
            "class" => DefKind::Class,
            _ => return None,
        };
        let name = value.field(Field::Name)?;
        let (start, line) = after_decorators(value);
        Some(Pending {
            kind,
            name: self.text(name).to_owned(),
            node: value,
            start,
            line,
            end: value.end_byte(),
            signature: self.signature_to_body(assignment.start_byte(), value),
            doc: self.doc_before(assignment.start_byte()),
            visibility: Visibility::Public,
            returns: if kind == DefKind::Function { self.returns(value) } else { None },
            export_as: Some("default".to_owned()),
            signature_only: false,
        })
    }
}

/// The function made at `node`: a declaration or method itself, or the function a declarator, field or
/// assignment holds.
fn function_at(node: Node<'_>) -> Option<Node<'_>> {
    [Field::Value, Field::Right]
        .into_iter()
        .filter_map(|f| node.field(f))
        .chain(std::iter::once(node))
        .find(|n| n.field(Field::Parameters).is_some())
}

/// The type parameters the function at `node` declares, in order (`T`, `D` in `function f<T, D = X>()`).
fn own_type_params(node: Node<'_>, source: &str) -> Vec<String> {
    let Some(params) = function_at(node).and_then(|f| f.field(Field::TypeParameters)) else { return Vec::new() };
    syntax::named_children(params)
        .filter_map(|p| p.field(Field::Name))
        .map(|n| node_text(n, source).to_owned())
        .collect()
}

/// A class's type parameters, in order (`Output`, `Def`, `Input` in `class ZodType<Output, Def, Input>`).
fn class_type_params(node: Node<'_>, source: &str) -> Vec<String> {
    let Some(params) = node.field(Field::TypeParameters) else { return Vec::new() };
    syntax::named_children(params)
        .filter_map(|p| p.field(Field::Name))
        .map(|n| node_text(n, source).to_owned())
        .collect()
}

/// The type arguments of the generic type the function at `node` declares it returns that are one of
/// `generics` (`): Ctor<T, D>`), by position; empty when none is.
fn returns_args(node: Node<'_>, source: &str, generics: &[String]) -> Vec<Option<String>> {
    let args = function_at(node)
        .and_then(|f| f.field(Field::ReturnType))
        .and_then(|t| t.named_child(0))
        .filter(|t| t.kind_name() == "generic_type")
        .and_then(|t| t.field(Field::TypeArguments));
    let Some(args) = args else { return Vec::new() };
    let out: Vec<Option<String>> = syntax::named_children(args)
        .map(|a| {
            let text = node_text(a, source);
            (a.kind_name() == "type_identifier" && generics.iter().any(|g| g == text)).then(|| text.to_owned())
        })
        .collect();
    if out.iter().any(Option::is_some) { out } else { Vec::new() }
}

/// What `await` gives of the function at `node`, declared to return `Promise<T>` (or `PromiseLike<T>`): `T`.
fn awaited(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let ty = function_at(node)?.field(Field::ReturnType)?.named_child(0)?;
    if ty.kind_name() != "generic_type"
        || !matches!(node_text(ty.field(Field::Name)?, source), "Promise" | "PromiseLike")
    {
        return None;
    }
    type_path(ty.field(Field::TypeArguments)?.named_child(0)?, source)
}

/// The properties of the object type the function at `node` declares it returns (`): { status:
/// ParseStatus; ctx: ParseContext }`), with their types.
fn returns_fields(node: Node<'_>, source: &str) -> Vec<(String, Vec<String>)> {
    let object = function_at(node)
        .and_then(|f| f.field(Field::ReturnType))
        .and_then(|t| t.named_child(0))
        .filter(|t| t.kind_name() == "object_type");
    let Some(object) = object else { return Vec::new() };
    syntax::named_children(object)
        .filter(|p| p.kind_name() == "property_signature")
        .filter_map(|p| {
            let name = p.field(Field::Name).filter(|n| n.kind_name() == "property_identifier")?;
            Some((node_text(name, source).to_owned(), type_path(p.field(Field::Type)?, source)?))
        })
        .collect()
}

/// Where a function's parameters take callbacks: [`Def::callbacks`] and [`Def::callback_types`].
#[derive(Default)]
struct Slots {
    callbacks: Vec<(u32, TypeList)>,
    callback_types: Vec<(u32, Vec<String>)>,
}

/// The parameters in `parameters` (`this` left out) typed as a function, with the types that function type
/// gives its own parameters (the type parameters `type_param` names left out), and those typed by a named
/// type, which may be an alias of one (`handler: H<E, P>`; a rest parameter's element type; a type
/// parameter of `owner`'s own by its constraint, `M1 extends H<E, P>`), by index.
fn slots(parameters: Node<'_>, owner: Node<'_>, source: &str, type_param: &dyn Fn(&str) -> bool) -> Slots {
    let is_this = |p: Node<'_>| p.field(Field::Pattern).is_some_and(|p| p.kind_name() == "this");
    let constraints = constraints(owner, source);
    let mut out = Slots::default();
    for (index, parameter) in syntax::named_children(parameters).filter(|p| !is_this(*p)).enumerate() {
        let Some(mut ty) = parameter.field(Field::Type).and_then(|t| t.named_child(0)) else { continue };
        let rest = parameter.field(Field::Pattern).is_some_and(|p| p.kind_name() == "rest_pattern");
        if rest && ty.kind_name() == "array_type" {
            let Some(element) = ty.named_child(0) else { continue };
            ty = element;
        }
        if let Some(types) = function_type_params(ty, source, type_param) {
            if types.iter().any(Option::is_some) {
                out.callbacks.push((index as u32, types));
            }
            continue;
        }
        let Some(path) = type_path(ty, source) else { continue };
        let path = match path.as_slice() {
            [t] => match constraints.iter().find(|(name, _)| name == t) {
                Some((_, constraint)) => constraint.clone(),
                None if type_param(t) => continue,
                None => path,
            },
            _ => path,
        };
        out.callback_types.push((index as u32, path));
    }
    out
}

/// The types a function type gives its parameters (`this` left out; the type parameters `type_param` names
/// left out), or `None` when `ty` is no function type.
fn function_type_params(ty: Node<'_>, source: &str, type_param: &dyn Fn(&str) -> bool) -> Option<TypeList> {
    let inner = (ty.kind_name() == "function_type").then(|| ty.field(Field::Parameters)).flatten()?;
    let is_this = |p: Node<'_>| p.field(Field::Pattern).is_some_and(|p| p.kind_name() == "this");
    let types = syntax::named_children(inner)
        .filter(|p| !is_this(*p))
        .map(|p| {
            let path = p.field(Field::Type).and_then(|t| type_path(t, source))?;
            (!(path.len() == 1 && type_param(&path[0]))).then_some(path)
        })
        .collect();
    Some(types)
}

/// The type parameters `owner` declares with a named constraint (`M1 extends H<E, P>`), with its path.
fn constraints(owner: Node<'_>, source: &str) -> Vec<(String, Vec<String>)> {
    let Some(params) = owner.field(Field::TypeParameters) else { return Vec::new() };
    syntax::named_children(params)
        .filter_map(|p| {
            let name = node_text(p.field(Field::Name)?, source).to_owned();
            let constraint = p.field(Field::Constraint)?.named_child(0)?;
            Some((name, type_path(constraint, source)?))
        })
        .collect()
}

/// An interface's call signatures' slots (`interface HandlerInterface { (path: string, handler: H): R }`),
/// each signature's own type parameters left out.
fn call_signature_slots(node: Node<'_>, source: &str, type_param: &dyn Fn(&str) -> bool) -> Slots {
    let mut out = Slots::default();
    let Some(body) = node.field(Field::Body) else { return out };
    for signature in syntax::named_children(body).filter(|c| c.kind_name() == "call_signature") {
        let Some(parameters) = signature.field(Field::Parameters) else { continue };
        let own = own_type_params(signature, source);
        let type_param = |t: &str| own.iter().any(|g| g == t) || type_param(t);
        let Slots { callbacks, callback_types } = slots(parameters, signature, source, &type_param);
        out.callbacks.extend(callbacks);
        out.callback_types.extend(callback_types);
    }
    out
}

/// What an interface's call signatures return, when they all declare one type (`HonoBase<…>` for every
/// overload of `HandlerInterface`), a signature's own type parameter not being one.
fn call_signature_returns(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let body = node.field(Field::Body)?;
    let mut agreed: Option<Vec<String>> = None;
    for signature in syntax::named_children(body).filter(|c| c.kind_name() == "call_signature") {
        let path = type_path(signature.field(Field::ReturnType)?, source)?;
        if path.len() == 1 && own_type_params(signature, source).contains(&path[0]) {
            return None;
        }
        match &agreed {
            Some(a) if *a != path => return None,
            Some(_) => {}
            None => agreed = Some(path),
        }
    }
    agreed
}

/// A type alias's own shape as a callback's type, at index 0: a function type's parameter types
/// (`type Handler = (c: Context, next: Next) => R`), or the named types it stands for (`type H = Handler |
/// MiddlewareHandler`, `type A = Handler<E>`).
fn alias_slots(node: Node<'_>, source: &str, type_param: &dyn Fn(&str) -> bool) -> Slots {
    let mut out = Slots::default();
    let Some(value) = node.field(Field::Value) else { return out };
    if let Some(types) = function_type_params(value, source, type_param) {
        out.callbacks.push((0, types));
        return out;
    }
    // `A | B | C` nests as `(A | B) | C`.
    let mut members = Vec::new();
    let mut pending = vec![value];
    while let Some(t) = pending.pop() {
        if t.kind_name() == "union_type" {
            pending.extend(syntax::named_children(t));
        } else {
            members.push(t);
        }
    }
    for member in members {
        match type_path(member, source) {
            Some(path) if !(path.len() == 1 && type_param(&path[0])) => out.callback_types.push((0, path)),
            _ => return Slots::default(),
        }
    }
    out
}

/// `require("m")` or `require("m").x`: an import, not a definition or a call.
pub(super) fn is_require(node: Node<'_>, source: &str) -> bool {
    let call = if node.kind_name() == "member_expression" { node.field(Field::Object) } else { Some(node) };
    call.is_some_and(|call| is_require_call(call, source))
}

/// `require("literal")`.
pub(super) fn is_require_call(call: Node<'_>, source: &str) -> bool {
    call.kind_name() == "call_expression"
        && call
            .field(Field::Function)
            .is_some_and(|f| f.kind_name() == "identifier" && node_text(f, source) == "require")
        && call.field(Field::Arguments).and_then(|a| a.named_child(0)).is_some_and(|a| a.kind_name() == "string")
}

/// `extends` / `implements` of a class, `extends` of an interface.
fn heritage(node: Node<'_>, source: &str, child_def: u32, name: &str, out: &mut Vec<Inherit>) {
    let mut push = |kind: InheritKind, target: Vec<String>, at: Node<'_>, args: Option<Node<'_>>| {
        let args = args.map(|a| syntax::named_children(a).map(|t| type_path(t, source)).collect()).unwrap_or_default();
        out.push(Inherit {
            child_def: Some(child_def),
            child: vec![name.to_owned()],
            kind,
            target,
            line: syntax::line(at),
            args,
        });
    };
    fn generic_args(ty: Node<'_>) -> Option<Node<'_>> {
        ty.field(Field::TypeArguments).filter(|_| ty.kind_name() == "generic_type")
    }
    for part in syntax::named_children(node) {
        match part.kind_name() {
            "class_heritage" => {
                for clause in syntax::named_children(part) {
                    match clause.kind_name() {
                        "extends_clause" => {
                            let mut cursor = clause.walk();
                            for value in clause.children_by_field_name("value", &mut cursor) {
                                // `extends mixin(X)` names no class.
                                let c = chain(value, source);
                                if let Base::Name(head) = c.base {
                                    let mut target = vec![node_text(head, source).to_owned()];
                                    target.extend(c.props);
                                    push(InheritKind::Extends, target, value, clause.field(Field::TypeArguments));
                                }
                            }
                        }
                        "implements_clause" => {
                            for ty in syntax::named_children(clause) {
                                if let Some(target) = type_path(ty, source) {
                                    push(InheritKind::Implements, target, ty, generic_args(ty));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            "extends_type_clause" => {
                let mut cursor = part.walk();
                for ty in part.children_by_field_name("type", &mut cursor) {
                    if let Some(target) = type_path(ty, source) {
                        push(InheritKind::Extends, target, ty, generic_args(ty));
                    }
                }
            }
            _ => {}
        }
    }
}
