//! Bindings: variables typed from annotations, `new` and call results; typed parameters; class properties
//! (including constructor parameter properties), scoped to their class; in functions, every other name a
//! function binds (untyped variables and parameters, destructured names, loop variables, `catch (e)`), with no
//! type.

use crate::kinds::KindName;
use drsg_parsers::{Binding, Def, DefKind, TypeArgs, TypeHint};
use tree_sitter::Node;

use super::capture::{Captured, Passed};
use super::defs::is_require_call;
use super::scope::Scopes;
use super::syntax::{self, Field, callee_chain, plain_path, type_path};
use crate::children::named_children;
use crate::fields::ChildInField;

/// The bindings, and the blocks outside any function whose bindings mean something only within them (see
/// [`drsg_parsers::FileFacts::local_blocks`]).
pub(super) fn build(
    cap: &Captured<'_>,
    source: &str,
    scopes: &Scopes,
    defs: &[Def],
) -> (Vec<Binding>, Vec<(u32, u32)>) {
    let mut out: Vec<(usize, Binding)> = Vec::new();
    let mut blocks = Vec::new();
    // Outside any function a callback's parameters bind in the definition around (`export const S =
    // make((inst) => …)`) or at the top level (`app.get("/", (c) => c.json(…))`), within the callback's lines.
    let lines = |function: Node<'_>| (syntax::line(function), function.end_position().row as u32 + 1);
    let text = |n: Node<'_>| drsg_parsers::text::node_text(n, source).to_owned();
    // Untyped names matter only in functions: elsewhere a variable is a definition of its own.
    let in_function = |scope: Option<u32>| {
        scope.is_some_and(|s| matches!(defs[s as usize].kind, DefKind::Function | DefKind::Method))
    };

    for &(declarator, name) in &cap.bind_variables {
        let scope = scopes.enclosing_except(declarator.start_byte(), declarator.id());
        // A local function (`const emit = (x) => …` in a function) is a definition, no binding.
        if in_function(scope) && scopes.def_of_node(declarator.id()).is_some() {
            continue;
        }
        // A `const`/`let` is in scope in its own initialiser (a callback there may read it; a direct read is
        // an error), so its names count from their own line.
        if name.kind_name() != "identifier" {
            if in_function(scope) {
                let start = out.len();
                pattern_names(name, scope, source, &mut out);
                // `const { source, operator: op } = this`: each name holds the field it is read from;
                // `const { status } = this.params(input)`: the property of the call's declared result.
                let value = declarator.field(Field::Value).map(syntax::unwrap_await);
                let from = match value {
                    Some(v) if v.kind_name() == "this" => Some(Destructured::This),
                    Some(v) if v.kind_name() == "call_expression" => {
                        v.field(Field::Function).and_then(|f| syntax::maker_path(f, source)).map(Destructured::Call)
                    }
                    _ => None,
                };
                if let Some(from) = from
                    && name.kind_name() == "object_pattern"
                {
                    property_hints(name, source, &from, &mut out[start..]);
                }
            }
            continue;
        }
        let hint = declarator
            .field(Field::Type)
            .and_then(|t| type_path(t, source))
            .map(TypeHint::Annotated)
            .or_else(|| declarator.field(Field::Value).and_then(|v| value_hint(v, source)));
        if hint.is_some() || in_function(scope) {
            // A variable of a callback outside any function (`describe("x", () => { const app = new Hono(); … })`)
            // holds within the callback's lines.
            if !in_function(scope)
                && let Some(function) = enclosing_callback(declarator)
            {
                blocks.push(lines(function));
            }
            out.push((declarator.start_byte(), Binding { name: text(name), scope, line: syntax::line(name), hint }));
        }
    }

    for &(parameter, pattern, ty, passed) in &cap.bind_parameters {
        let scope = scopes.innermost(parameter.start_byte());
        if !in_function(scope)
            && let Some(p) = passed
        {
            blocks.push(lines(p.function));
        }
        if pattern.kind_name() != "identifier" {
            if in_function(scope) {
                pattern_names(pattern, scope, source, &mut out);
            }
            continue;
        }
        let path = ty.and_then(|ty| type_path(ty, source));
        let line = syntax::line(pattern);
        // `constructor(private readonly c: Client)` also declares a property of the class.
        let is_property = syntax::children(parameter)
            .iter()
            .any(|c| matches!(c.kind_name(), "accessibility_modifier" | "readonly" | "override_modifier"));
        let class = scope.and_then(|s| scopes.parent(s)).filter(|&c| defs[c as usize].kind == DefKind::Class);
        if let (true, Some(class), Some(path)) = (is_property, class, &path) {
            let hint = Some(TypeHint::Annotated(path.clone()));
            out.push((parameter.start_byte(), Binding { name: text(pattern), scope: Some(class), line, hint }));
        }
        if path.is_some() || in_function(scope) || passed.is_some() {
            let hint = match path {
                Some(path) => Some(TypeHint::Annotated(path)),
                None => passed.and_then(|p| callback_hint(p, source)).or_else(|| contextual_hint(parameter, source)),
            };
            out.push((parameter.start_byte(), Binding { name: text(pattern), scope, line, hint }));
        }
    }

    for &(target, passed) in &cap.bind_targets {
        let scope = scopes.innermost(target.start_byte());
        // `subscriber => …` passed to a call: its one parameter.
        let passed = passed.filter(|_| target.kind_name() == "identifier");
        if !in_function(scope) {
            let Some(p) = passed else { continue };
            blocks.push(lines(p.function));
        }
        let hint = match passed {
            Some(p) => callback_hint(p, source),
            None if target.kind_name() == "identifier" => contextual_hint(target, source),
            None => None,
        };
        match hint {
            Some(hint) => {
                let b = Binding { name: text(target), scope, line: syntax::line(target), hint: Some(hint) };
                out.push((target.start_byte(), b));
            }
            None => pattern_names(target, scope, source, &mut out),
        }
    }

    for &(field, name) in &cap.bind_fields {
        // A field holding a function is a method, not a typed property.
        let own = scopes.def_of_node(field.id());
        if own.is_some_and(|d| defs[d as usize].kind == DefKind::Method) {
            continue;
        }
        let class = scopes.enclosing_except(field.start_byte(), field.id());
        let Some(class) = class.filter(|&c| defs[c as usize].kind == DefKind::Class) else {
            continue;
        };
        let hint = field
            .field(Field::Type)
            .and_then(|t| type_path(t, source))
            .map(TypeHint::Annotated)
            .or_else(|| field.field(Field::Value).and_then(|v| value_hint(v, source)));
        if let Some(hint) = hint {
            out.push((
                field.start_byte(),
                Binding { name: text(name), scope: Some(class), line: syntax::line(name), hint: Some(hint) },
            ));
        }
    }

    out.sort_by_key(|(start, _)| *start);
    blocks.sort_unstable();
    blocks.dedup();
    (out.into_iter().map(|(_, b)| b).collect(), blocks)
}

/// The type of a parameter of a function passed to a call (`operate((source, subscriber) => …)`, `new
/// Observable((subscriber) => …)`): what the callee's declared parameter says, found when resolving.
fn callback_hint(passed: Passed<'_>, source: &str) -> Option<TypeHint> {
    let call = passed.arguments.parent()?;
    let (callee, new) = match call.kind_name() {
        "call_expression" => (call.field(Field::Function)?, false),
        "new_expression" => (call.field(Field::Constructor)?, true),
        _ => return None,
    };
    let (callee, then) = callee_chain(callee, source)?;
    let arg = syntax::named_children(passed.arguments).position(|a| a.id() == passed.function.id())? as u32;
    let explicit = call.field(Field::TypeArguments).map(|a| type_args(a, source)).unwrap_or_default();
    // `const x: Ctor<A> = make(…)`: the result's annotation.
    let expected = call
        .parent()
        .filter(|d| {
            d.kind_name() == "variable_declarator" && d.field(Field::Value).is_some_and(|v| v.id() == call.id())
        })
        .and_then(|d| d.field(Field::Type)?.named_child(0))
        .filter(|t| t.kind_name() == "generic_type")
        .and_then(|t| Some((type_path(t, source)?, type_args(t.field(Field::TypeArguments)?, source))));
    let bound = TypeArgs { explicit, expected };
    Some(TypeHint::Callback { callee, then, new, arg, param: passed.param, bound })
}

/// The type of an untyped parameter of a function whose own type is declared where it stands (contextual
/// typing): `const h: Handler = (c) => …`, the annotation; `(): MiddlewareHandler => async (c, next) => …`
/// and `return async function cors(c, next) { … }` directly in such a function's body, its declared result.
fn contextual_hint(parameter: Node<'_>, source: &str) -> Option<TypeHint> {
    // A lone `c => …` is its own parameter list.
    let (function, param) = match parameter.parent()? {
        list if list.kind_name() == "formal_parameters" => {
            let index = named_children(list).position(|p| p.id() == parameter.id())?;
            (list.parent()?, index as u32)
        }
        function => (function, 0),
    };
    if !matches!(function.kind_name(), "arrow_function" | "function_expression") {
        return None;
    }
    let holder = function.parent()?;
    let declared = match holder.kind_name() {
        "variable_declarator" if holder.field(Field::Value).is_some_and(|v| v.id() == function.id()) => {
            holder.field(Field::Type)?
        }
        "arrow_function" if holder.field(Field::Body).is_some_and(|b| b.id() == function.id()) => {
            holder.field(Field::ReturnType)?
        }
        "return_statement" => {
            let outer = holder.parent().filter(|b| b.kind_name() == "statement_block")?.parent()?;
            if !matches!(
                outer.kind_name(),
                "arrow_function" | "function_expression" | "function_declaration" | "method_definition"
            ) {
                return None;
            }
            outer.field(Field::ReturnType)?
        }
        _ => return None,
    };
    Some(TypeHint::Contextual { ty: type_path(declared, source)?, param })
}

/// The function expression a declarator outside any named function sits in, if any (a callback).
fn enclosing_callback(declarator: Node<'_>) -> Option<Node<'_>> {
    let mut node = declarator.parent()?;
    for _ in 0..256 {
        match node.kind_name() {
            "arrow_function" | "function_expression" => return Some(node),
            "program" | "class_body" | "function_declaration" | "method_definition" => return None,
            _ => node = node.parent()?,
        }
    }
    None
}

/// The types of a `type_arguments` list, by position (`None` where one is no plain type).
fn type_args(list: Node<'_>, source: &str) -> Vec<Option<Vec<String>>> {
    syntax::named_children(list).map(|t| type_path(t, source)).collect()
}

/// What an initialiser says about the value's type: `new C()`, `make()`, `await make()`, `x as C`.
fn value_hint(value: Node<'_>, source: &str) -> Option<TypeHint> {
    let mut value = value;
    let mut awaited = false;
    loop {
        match value.kind_name() {
            "await_expression" => {
                awaited = true;
                value = value.named_child(0)?;
            }
            "parenthesized_expression" | "non_null_expression" => value = value.named_child(0)?,
            "new_expression" => {
                return plain_path(value.field(Field::Constructor)?, source).map(TypeHint::Constructed);
            }
            "call_expression" => {
                if is_require_call(value, source) {
                    return None;
                }
                // `new Hono().basePath("/api")`, `make().build()`: what the last step returns; `await
                // load()`: what the promise it returns holds (the `?` step, as Rust's on a `Result`).
                let (callee, mut then) = callee_chain(value.field(Field::Function)?, source)?;
                if awaited {
                    then.push("?".to_owned());
                }
                return Some(if then.is_empty() {
                    TypeHint::CallResult(callee)
                } else {
                    TypeHint::CallChain(callee, then)
                });
            }
            // `x as Client`
            "as_expression" => return type_path(value.named_child(1)?, source).map(TypeHint::Annotated),
            // `const destination = this.destination`: the field's type.
            "member_expression" if value.field(Field::Object).is_some_and(|o| o.kind_name() == "this") => {
                let property = value.field(Field::Property).filter(|p| p.kind_name() == "property_identifier")?;
                return Some(TypeHint::Field(vec![
                    "this".to_owned(),
                    drsg_parsers::text::node_text(property, source).to_owned(),
                ]));
            }
            // `const numberType = ZodNumber.create`: another name for that value.
            "identifier" | "member_expression" => return plain_path(value, source).map(TypeHint::Alias),
            // `<Client>x`
            "type_assertion" => {
                return type_path(value.named_child(0)?.named_child(0)?, source).map(TypeHint::Annotated);
            }
            _ => return None,
        }
    }
}

/// What an object pattern destructures: `this`, or the result of a call of a path.
enum Destructured {
    This,
    Call(Vec<String>),
}

/// The names an object pattern binds at its top level, typed by the property of `from` they read: `{ source }`
/// and `{ operator: op }` (not `{ a = 1 }`, whose default may hold another type).
fn property_hints(pattern: Node<'_>, source: &str, from: &Destructured, bound: &mut [(usize, Binding)]) {
    for property in named_children(pattern) {
        let (field, name) = match property.kind_name() {
            "shorthand_property_identifier_pattern" => (property, property),
            "pair_pattern" => match (property.field(Field::Key), property.field(Field::Value)) {
                (Some(key), Some(value)) if value.kind_name() == "identifier" => (key, value),
                _ => continue,
            },
            _ => continue,
        };
        let field = drsg_parsers::text::node_text(field, source);
        if let Some((_, b)) = bound.iter_mut().find(|(at, _)| *at == name.start_byte()) {
            b.hint = Some(match from {
                Destructured::This => TypeHint::Field(vec!["this".to_owned(), field.to_owned()]),
                Destructured::Call(call) => TypeHint::Destructured { call: call.clone(), field: field.to_owned() },
            });
        }
    }
}

/// The names a destructuring pattern binds, untyped: `{ a, b: c, d = 1, ...rest }`, `[x, , y]`, or a plain name.
fn pattern_names(pattern: Node<'_>, scope: Option<u32>, source: &str, out: &mut Vec<(usize, Binding)>) {
    // Patterns nest as deep as the source does: an explicit stack, not recursion.
    let mut stack = vec![pattern];
    while let Some(node) = stack.pop() {
        match node.kind_name() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                let name = drsg_parsers::text::node_text(node, source).to_owned();
                out.push((node.start_byte(), Binding { name, scope, line: syntax::line(node), hint: None }));
            }
            "object_pattern" | "array_pattern" | "rest_pattern" => stack.extend(named_children(node)),
            "pair_pattern" => stack.extend(node.field(Field::Value)),
            "assignment_pattern" | "object_assignment_pattern" => stack.extend(node.field(Field::Left)),
            _ => {}
        }
    }
}
