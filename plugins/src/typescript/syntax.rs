//! Reading small pieces of the syntax tree: names, member chains, type paths. All loops, no recursion.

pub(super) use crate::children::named_children;
use crate::kinds::KindName;
use drsg_parsers::text::node_text;
use tree_sitter::Node;

use crate::fields::ChildInField;

crate::fields::fields!(pub(super) enum Field in [
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
    tree_sitter_typescript::LANGUAGE_TSX,
] {
    Alias = "alias",
    Arguments = "arguments",
    Body = "body",
    Constraint = "constraint",
    Constructor = "constructor",
    Declaration = "declaration",
    Function = "function",
    Key = "key",
    // `kind`, as in `for (const x of …)` (a variant named `Kind` would read as a node kind).
    DeclarationKind = "kind",
    Left = "left",
    Name = "name",
    Object = "object",
    Operator = "operator",
    Parameter = "parameter",
    Parameters = "parameters",
    Pattern = "pattern",
    Property = "property",
    ReturnType = "return_type",
    Right = "right",
    Source = "source",
    Type = "type",
    TypeArguments = "type_arguments",
    TypeParameters = "type_parameters",
    Value = "value",
});

pub(super) fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

pub(super) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// The text of a string literal without its quotes.
pub(super) fn unquote(text: &str) -> &str {
    let inner = text.strip_prefix(['"', '\'', '`']).unwrap_or(text);
    inner.strip_suffix(['"', '\'', '`']).unwrap_or(inner)
}

/// A property or declaration name as written; string names lose their quotes.
pub(super) fn name_text(node: Node<'_>, source: &str) -> String {
    let text = node_text(node, source);
    if node.kind_name() == "string" { unquote(text).to_owned() } else { text.to_owned() }
}

/// Dotted names (`a.b.C` as `nested_identifier` or `nested_type_identifier`) split into segments.
pub(super) fn dotted(text: &str) -> Vec<String> {
    text.split('.').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
}

/// The start of a node's text after its leading decorators, as a byte offset and a 1-based line.
pub(super) fn after_decorators(node: Node<'_>) -> (usize, u32) {
    let mut cursor = node.walk();
    let first = node.children(&mut cursor).find(|c| c.kind_name() != "decorator").unwrap_or(node);
    (first.start_byte(), line(first))
}

pub(super) fn start_after_decorators(node: Node<'_>) -> usize {
    after_decorators(node).0
}

/// What a member chain such as `a.b.c`, `this.x.y` or `make().run` starts from.
#[derive(Debug, Clone, Copy)]
pub(super) enum Base<'t> {
    Name(Node<'t>),
    This,
    Super,
    Call(Node<'t>),
    New(Node<'t>),
    Other,
}

/// A member chain: its base and the property names after it, outermost first.
pub(super) struct Chain<'t> {
    pub base: Base<'t>,
    pub props: Vec<String>,
    /// The last property (the name used), for its line.
    pub last: Option<Node<'t>>,
}

/// Split `node` into a base and the properties read from it. Parentheses, `await` and `!` are seen through.
pub(super) fn chain<'t>(node: Node<'t>, source: &str) -> Chain<'t> {
    let mut props = Vec::new();
    let mut last = None;
    let mut current = node;
    let base = loop {
        match current.kind_name() {
            "member_expression" => {
                let (Some(object), Some(property)) = (current.field(Field::Object), current.field(Field::Property))
                else {
                    break Base::Other;
                };
                if !matches!(property.kind_name(), "property_identifier" | "private_property_identifier") {
                    break Base::Other;
                }
                last.get_or_insert(property);
                props.push(node_text(property, source).to_owned());
                current = object;
            }
            "identifier" => break Base::Name(current),
            "this" => break Base::This,
            "super" => break Base::Super,
            "call_expression" => break Base::Call(current),
            "new_expression" => break Base::New(current),
            "parenthesized_expression" | "await_expression" | "non_null_expression" => match current.named_child(0) {
                Some(inner) => current = inner,
                None => break Base::Other,
            },
            _ => break Base::Other,
        }
    };
    props.reverse();
    Chain { base, props, last }
}

/// The path of a chain that starts from a name (`a.b.c` → `["a", "b", "c"]`).
pub(super) fn plain_path(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let chain = chain(node, source);
    match chain.base {
        Base::Name(name) => {
            let mut path = vec![node_text(name, source).to_owned()];
            path.extend(chain.props);
            Some(path)
        }
        _ => None,
    }
}

/// The expression `await` (or parentheses) wrap: `await this.load()` → `this.load()`.
pub(super) fn unwrap_await(node: Node<'_>) -> Node<'_> {
    let mut node = node;
    while matches!(node.kind_name(), "await_expression" | "parenthesized_expression") {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// A callee as a plain path (`app.get`), or as a chain of method calls on a call's or a construction's
/// result (`app.get(…).post`: `app.get`, then `post`; `new Hono().get`: `Hono`, then `get`).
pub(super) fn callee_chain(callee: Node<'_>, source: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut then = Vec::new();
    let mut node = callee;
    for _ in 0..64 {
        if let Some(path) = plain_path(node, source) {
            then.reverse();
            return Some((path, then));
        }
        if node.kind_name() != "member_expression" {
            return None;
        }
        let object = node.field(Field::Object)?;
        let property = node.field(Field::Property).filter(|p| p.kind_name() == "property_identifier")?;
        then.push(node_text(property, source).to_owned());
        match object.kind_name() {
            "call_expression" => node = object.field(Field::Function)?,
            // `new Hono().get(…)`: a class's construction gives the class, as a call of it does.
            "new_expression" => {
                let class = plain_path(object.field(Field::Constructor)?, source)?;
                then.reverse();
                return Some((class, then));
            }
            _ => return None,
        }
    }
    None
}

/// The path of the callee or constructor a receiver expression was made by, for `Qualifier::Expr`:
/// `make` → `["make"]`, `this.make` → `["this", "make"]`.
pub(super) fn maker_path(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let chain = chain(node, source);
    let head = match chain.base {
        Base::Name(name) => node_text(name, source).to_owned(),
        Base::This => "this".to_owned(),
        Base::Super => "super".to_owned(),
        _ => return None,
    };
    let mut path = vec![head];
    path.extend(chain.props);
    Some(path)
}

/// A type as a path when it names one: `Client`, `ns.Client`, `Client<T>` → `Client`.
/// `node` may be a `type_annotation` (its type is read).
pub(super) fn type_path(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let mut node = node;
    loop {
        match node.kind_name() {
            "type_annotation" => node = node.named_child(0)?,
            "generic_type" => node = node.field(Field::Name)?,
            "parenthesized_type" => node = node.named_child(0)?,
            // `Foo | null`, `Foo | undefined`: the one type that is not nothing.
            "union_type" => {
                let mut some = named_children(node).filter(|t| {
                    let text = node_text(*t, source);
                    !matches!(t.kind_name(), "literal_type" | "predefined_type")
                        || !matches!(text, "null" | "undefined" | "void")
                });
                match (some.next(), some.next()) {
                    (Some(one), None) => node = one,
                    _ => return None,
                }
            }
            "type_identifier" => return Some(vec![node_text(node, source).to_owned()]),
            "nested_type_identifier" => return Some(dotted(node_text(node, source))),
            // `(): this`: the receiver's type, which the resolver supplies.
            "this_type" => return Some(vec!["this".to_owned()]),
            _ => return None,
        }
    }
}
