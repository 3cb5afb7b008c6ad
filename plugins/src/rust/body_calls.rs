//! What a `macro_rules!` body calls, read from its transcribers' tokens: `path::to::f(…)`, `$crate::f(…)`,
//! `.method(…)` and `other!(…)`. An invocation in another file runs these (the file's own invocations are
//! expanded where they are); a call whose callee is a fragment the invocation passes in (`$f(…)`) is the
//! invocation's own and is left out.

use drsg_parsers::BodyCall;
use drsg_parsers::text::node_text;
use tree_sitter::Node;

use super::Field;
use crate::fields::ChildInField;
use crate::kinds::KindName;

/// Calls listed per macro; a longer body is read up to here.
const MAX_CALLS: usize = 64;
/// Token-tree nesting read.
const MAX_NESTING: usize = 32;

/// The calls of macro definition `definition`, each once, in the order written.
pub(super) fn of(definition: Node<'_>, source: &str) -> Vec<BodyCall> {
    let mut out = Vec::new();
    let mut cursor = definition.walk();
    for rule in definition.children(&mut cursor).filter(|c| c.kind_name() == "macro_rule") {
        if let Some(right) = rule.field(Field::Right) {
            scan(right, source, 0, &mut out);
        }
    }
    out
}

fn scan(group: Node<'_>, source: &str, nesting: usize, out: &mut Vec<BodyCall>) {
    if nesting > MAX_NESTING || out.len() >= MAX_CALLS {
        return;
    }
    let tokens: Vec<Node<'_>> = (0..group.child_count())
        .filter_map(|i| group.child(i))
        .filter(|c| !matches!(c.kind_name(), "line_comment" | "block_comment"))
        .collect();
    for (i, &token) in tokens.iter().enumerate() {
        if token.child_count() == 0 {
            continue;
        }
        // A delimited group: what precedes it may name what it calls.
        if token.kind_name() == "token_tree"
            && let Some(call) = callee(&tokens[..i], token, source)
            && !out.contains(&call)
            && out.len() < MAX_CALLS
        {
            out.push(call);
        }
        scan(token, source, nesting + 1, out);
    }
}

/// The call whose arguments are `group`, from the tokens before it.
fn callee(before: &[Node<'_>], group: Node<'_>, source: &str) -> Option<BodyCall> {
    let text = |n: Node<'_>| node_text(n, source);
    let (&last, rest) = before.split_last()?;
    // `name!(…)`, `name![…]`, `name! {…}`
    if text(last) == "!" {
        let (&name, _) = rest.split_last()?;
        return (name.kind_name() == "identifier")
            .then(|| BodyCall { path: vec![format!("{}!", text(name))], method: false });
    }
    let opens_parens = group.child(0).is_some_and(|open| text(open) == "(");
    if !opens_parens || last.kind_name() != "identifier" || is_keyword(text(last)) {
        return None;
    }
    let mut path = vec![text(last).to_owned()];
    let mut at = rest.len();
    while at >= 2 && text(rest[at - 1]) == "::" {
        let segment = rest[at - 2];
        match (segment.kind_name(), text(segment)) {
            ("identifier" | "crate" | "self" | "super", name) => path.push(name.to_owned()),
            ("metavariable", "$crate") => path.push("$crate".to_owned()),
            // `$module::f(…)`: the invocation names the path.
            _ => return None,
        }
        at -= 2;
    }
    path.reverse();
    match at.checked_sub(1).map(|j| text(rest[j])) {
        Some(".") if path.len() == 1 => Some(BodyCall { path, method: true }),
        Some("." | "fn" | "struct" | "enum" | "macro_rules") => None,
        // `$x::f(…)`, `$x(…)` were left out above; a metavariable before a plain name is `$a f(…)`.
        _ => Some(BodyCall { path, method: false }),
    }
}

fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "while" | "match" | "return" | "in" | "as" | "let" | "for" | "loop" | "move" | "await" | "yield"
    )
}

#[cfg(test)]
mod tests {
    fn calls(source: &str) -> Vec<String> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_rust::LANGUAGE.into()).expect("the Rust grammar loads");
        let tree = parser.parse(source, None).expect("parses");
        let root = tree.root_node();
        let definition = (0..root.child_count()).filter_map(|i| root.child(i)).find(|c| c.kind() == "macro_definition");
        super::of(definition.expect("a macro definition"), source)
            .into_iter()
            .map(|c| format!("{}{}", if c.method { "." } else { "" }, c.path.join("::")))
            .collect()
    }

    #[test]
    fn a_body_s_calls_are_paths_methods_and_macros_not_fragments() {
        let source = r#"
macro_rules! rgtest {
    ($name:ident, $fun:expr) => {
        #[test]
        fn $name() {
            let (dir, cmd) = crate::util::setup(stringify!($name));
            $fun(dir, cmd);
            if cfg!(feature = "pcre2") {
                let (dir, cmd) = $crate::util::setup_pcre2(stringify!($name));
                dir.create("x", "y");
                $fun(dir, cmd);
            }
            helper(1);
            $m::skip(2);
        }
    };
}
"#;
        assert_eq!(
            calls(source),
            ["crate::util::setup", "stringify!", "cfg!", "$crate::util::setup_pcre2", ".create", "helper"]
        );
    }
}
