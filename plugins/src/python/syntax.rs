//! Reading Python syntax nodes: name paths, annotation paths, string contents, docstrings, headers.
//!
//! Every walk here is a loop over one chain of nodes or an explicit stack, never recursion,
//! so deeply nested sources cannot overflow the stack.

use std::sync::LazyLock;

use drsg_parsers::text::{collapse, node_text};
use tree_sitter::Node;

use crate::children::named_children;
use crate::fields::ChildInField;

/// The node kinds the plugin tells apart. `kind(node)` reads a table indexed by symbol id, built once from
/// the grammar's kind names, so it answers exactly as comparing `node.kind()` with the name would
/// (aliases and same-named anonymous tokens such as the `type` keyword included), without the string work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Identifier,
    Attribute,
    Call,
    Assignment,
    Subscript,
    GenericType,
    String,
    StringStart,
    StringEnd,
    ConcatenatedString,
    Type,
    Await,
    KeywordArgument,
    ArgumentList,
    AliasedImport,
    DottedName,
    RelativeImport,
    WildcardImport,
    Comment,
    ExpressionStatement,
    Module,
    Block,
    TypedDefaultParameter,
    DefaultParameter,
    PatternList,
    TuplePattern,
    ListPattern,
    ListSplatPattern,
    DictionarySplatPattern,
    AsPatternTarget,
    Tuple,
    ParenthesizedExpression,
    ForStatement,
    Colon,
    Other,
}

impl Kind {
    fn from_name(name: &str) -> Kind {
        match name {
            "identifier" => Kind::Identifier,
            "attribute" => Kind::Attribute,
            "call" => Kind::Call,
            "assignment" => Kind::Assignment,
            "subscript" => Kind::Subscript,
            "generic_type" => Kind::GenericType,
            "string" => Kind::String,
            "string_start" => Kind::StringStart,
            "string_end" => Kind::StringEnd,
            "concatenated_string" => Kind::ConcatenatedString,
            "type" => Kind::Type,
            "await" => Kind::Await,
            "keyword_argument" => Kind::KeywordArgument,
            "argument_list" => Kind::ArgumentList,
            "aliased_import" => Kind::AliasedImport,
            "dotted_name" => Kind::DottedName,
            "relative_import" => Kind::RelativeImport,
            "wildcard_import" => Kind::WildcardImport,
            "comment" => Kind::Comment,
            "expression_statement" => Kind::ExpressionStatement,
            "module" => Kind::Module,
            "block" => Kind::Block,
            "typed_default_parameter" => Kind::TypedDefaultParameter,
            "default_parameter" => Kind::DefaultParameter,
            "pattern_list" => Kind::PatternList,
            "tuple_pattern" => Kind::TuplePattern,
            "list_pattern" => Kind::ListPattern,
            "list_splat_pattern" => Kind::ListSplatPattern,
            "dictionary_splat_pattern" => Kind::DictionarySplatPattern,
            "as_pattern_target" => Kind::AsPatternTarget,
            "tuple" => Kind::Tuple,
            "parenthesized_expression" => Kind::ParenthesizedExpression,
            "for_statement" => Kind::ForStatement,
            ":" => Kind::Colon,
            _ => Kind::Other,
        }
    }
}

crate::fields::fields!(pub(super) enum Field in [tree_sitter_python::LANGUAGE] {
    Alias = "alias",
    Arguments = "arguments",
    Attribute = "attribute",
    Body = "body",
    Definition = "definition",
    Function = "function",
    Left = "left",
    ModuleName = "module_name",
    Name = "name",
    Object = "object",
    ReturnType = "return_type",
    Right = "right",
    Superclasses = "superclasses",
    Type = "type",
    Value = "value",
});

/// Kind of each symbol id.
static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    (0..language.node_kind_count())
        .map(|id| {
            u16::try_from(id).ok().and_then(|id| language.node_kind_for_id(id)).map_or(Kind::Other, Kind::from_name)
        })
        .collect()
});

/// The kind of a node (`Kind::Other` for kinds the plugin does not tell apart, ERROR included).
pub(super) fn kind(node: Node<'_>) -> Kind {
    KINDS.get(usize::from(node.kind_id())).copied().unwrap_or(Kind::Other)
}

/// The child in a field, as `Node::child_by_field_name` would find it.
pub(super) fn child<'t>(node: Node<'t>, field: Field) -> Option<Node<'t>> {
    node.field(field)
}

/// 1-based line of a node's start.
pub(super) fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

/// 1-based line of a node's end.
pub(super) fn end_line(node: Node<'_>) -> u32 {
    node.end_position().row as u32 + 1
}

/// Split `x.a.b` into its innermost object `x` and the attribute names `["a", "b"]`.
pub(super) fn split_attributes<'t>(node: Node<'t>, source: &str) -> (Node<'t>, Vec<String>) {
    let mut names = Vec::new();
    let mut current = node;
    while kind(current) == Kind::Attribute {
        let (Some(object), Some(attribute)) = (child(current, Field::Object), child(current, Field::Attribute)) else {
            break;
        };
        names.push(node_text(attribute, source).to_owned());
        current = object;
    }
    names.reverse();
    (current, names)
}

/// `a` → `["a"]`, `a.b.c` → `["a", "b", "c"]`; `None` when the chain does not start at an identifier.
pub(super) fn name_path(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let (base, rest) = split_attributes(node, source);
    if kind(base) != Kind::Identifier {
        return None;
    }
    let mut path = Vec::with_capacity(rest.len() + 1);
    path.push(node_text(base, source).to_owned());
    path.extend(rest);
    Some(path)
}

/// The first named child that is not a comment.
pub(super) fn first_named(node: Node<'_>) -> Option<Node<'_>> {
    named_children(node).find(|n| kind(*n) != Kind::Comment)
}

/// The outer path of an annotation: `Client`, `mod.Client`, `"Client"`, `Optional[Client]` → `["Optional"]`.
/// `None` for `None`, unions and anything that is not a name.
pub(super) fn type_path(ty: Node<'_>, source: &str) -> Option<Vec<String>> {
    let inner = if kind(ty) == Kind::Type { first_named(ty)? } else { ty };
    match kind(inner) {
        Kind::Identifier | Kind::Attribute => name_path(inner, source),
        Kind::GenericType => {
            first_named(inner).filter(|n| kind(*n) == Kind::Identifier).map(|n| vec![node_text(n, source).to_owned()])
        }
        Kind::Subscript => name_path(child(inner, Field::Value)?, source),
        Kind::String => string_parts(inner, source).and_then(|(_, text)| forward_ref_head(text)),
        _ => None,
    }
}

/// `(prefix, content)` of a string literal: `r'''x'''` → `("r'''", "x")`.
pub(super) fn string_parts<'s>(string: Node<'_>, source: &'s str) -> Option<(&'s str, &'s str)> {
    let mut cursor = string.walk();
    let mut start = None;
    let mut end = None;
    for child in string.children(&mut cursor) {
        match kind(child) {
            Kind::StringStart => start = Some(child),
            Kind::StringEnd => end = Some(child),
            _ => {}
        }
    }
    let (start, end) = (start?, end?);
    let content = source.get(start.end_byte()..end.start_byte())?;
    Some((node_text(start, source), content))
}

/// The leading dotted name of a forward reference: `"mod.Client"` → `["mod", "Client"]`,
/// `"Optional[Client]"` → `["Optional"]`.
pub(super) fn forward_ref_head(text: &str) -> Option<Vec<String>> {
    let text = text.trim();
    let head_len = text.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(text.len());
    dotted(&text[..head_len])
}

/// Every dotted name in a forward reference: `"dict[str, mod.Client]"` → `str`, `mod.Client`.
pub(super) fn forward_ref_names(text: &str) -> Vec<Vec<String>> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).filter_map(dotted).collect()
}

/// `a.b` → `["a", "b"]` when every segment is an identifier.
fn dotted(text: &str) -> Option<Vec<String>> {
    let segments: Vec<String> = text.split('.').map(str::to_owned).collect();
    let valid = segments.iter().all(|s| s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'));
    valid.then_some(segments)
}

/// The docstring of a module or block: its first statement when that is a plain string literal.
pub(super) fn docstring(body: Node<'_>, source: &str) -> Option<String> {
    string_statement(first_named(body)?, source)
}

/// The text of a statement that is only a string literal (implicit concatenation included), trimmed and collapsed.
fn string_statement(statement: Node<'_>, source: &str) -> Option<String> {
    if kind(statement) != Kind::ExpressionStatement || statement.named_child_count() != 1 {
        return None;
    }
    string_literal(statement.named_child(0)?, source)
}

/// The text of a (possibly implicitly concatenated) string literal, trimmed and collapsed to 400 characters;
/// `None` for f-strings and empty strings.
pub(super) fn string_literal(literal: Node<'_>, source: &str) -> Option<String> {
    let raw = match kind(literal) {
        Kind::String => plain_string(literal, source)?.to_owned(),
        Kind::ConcatenatedString => {
            let parts: Option<Vec<&str>> = named_children(literal).map(|part| plain_string(part, source)).collect();
            parts?.concat()
        }
        _ => return None,
    };
    let doc = collapse(raw.trim(), 400);
    (!doc.is_empty()).then_some(doc)
}

/// The content of a string literal that is not an f-string (f-strings are not docstrings).
fn plain_string<'s>(string: Node<'_>, source: &'s str) -> Option<&'s str> {
    let (prefix, content) = string_parts(string, source)?;
    (!prefix.contains(['f', 'F'])).then_some(content)
}

/// A `def`/`class` header up to and including the colon before the body, collapsed.
pub(super) fn header(def: Node<'_>, source: &str) -> String {
    let mut end = child(def, Field::Body).map_or(def.end_byte(), |b| b.start_byte());
    let mut cursor = def.walk();
    if let Some(colon) = def.children(&mut cursor).find(|c| kind(*c) == Kind::Colon) {
        end = colon.end_byte();
    }
    collapse(source.get(def.start_byte()..end).unwrap_or("").trim_end(), 200)
}

/// Python's convention: `_x` and `__x` are private, dunders `__x__` are public.
pub(super) fn is_private(name: &str) -> bool {
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    name.starts_with('_') && !dunder
}

/// Whether a path names a test module: `test_*.py`, `*_test.py`, `conftest.py`, or under `tests/`/`test/`.
pub(super) fn is_test_path(path: &str) -> bool {
    let mut components: Vec<&str> = path.split('/').collect();
    let file = components.pop().unwrap_or("");
    if components.iter().any(|c| *c == "tests" || *c == "test") {
        return true;
    }
    let stem = file.strip_suffix(".py").or_else(|| file.strip_suffix(".pyi")).unwrap_or(file);
    stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}
