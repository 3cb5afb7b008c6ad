//! Expansions of macros by example, fixture in and expansion out: the text, and the span map from each
//! fragment copied into it back to the invocation's bytes and rows.

use std::fmt::Write as _;

use drsg_parsers::text::node_text;
use tree_sitter::Node;

use super::{ExpandError, Expansion, Glue, Rules, verbatim};
use crate::rust::macros::{MAX_DEPTH, MAX_LEN, last_token_tree};
use crate::testing::{every_node, parse};

/// The `macro_rules!` of `source` and its last invocation's token tree, given to `expand`.
fn with_last<T>(source: &str, expand: impl FnOnce(&Rules, &str, Node<'_>) -> T) -> T {
    let tree = parse(&tree_sitter_rust::LANGUAGE.into(), source);
    let nodes = every_node(&tree);
    let rules = Rules::of(nodes.iter().copied().filter(|n| n.kind() == "macro_definition"), source);
    let invocation = *nodes.iter().rev().find(|n| n.kind() == "macro_invocation").expect("an invocation");
    let name = node_text(invocation.child_by_field_name("macro").expect("a name"), source);
    let tokens = last_token_tree(invocation).expect("a token tree");
    expand(&rules, name, tokens)
}

/// The expansion of the last invocation of `source`, `depth` expansions deep, as text and span map.
fn expanded(source: &str, glue: Glue, depth: usize) -> Result<String, ExpandError> {
    with_last(source, |rules, name, tokens| rules.expand(name, tokens, source, glue, depth)).map(|e| shown(&e, source))
}

fn shown(expansion: &Expansion, source: &str) -> String {
    let mut out = format!("{}\n--- spans\n", expansion.text);
    for s in &expansion.copies {
        let copied = &expansion.text[s.synthetic..s.synthetic + s.len];
        assert_eq!(copied, &source[s.original..s.original + s.len], "a copy is the invocation's bytes");
        let (line, row) = (s.synthetic_row, s.original_row);
        writeln!(
            out,
            "{}..{} row {line} <- {}..{} row {row}: {copied}",
            s.synthetic,
            s.synthetic + s.len,
            s.original,
            s.original + s.len
        )
        .expect("a string takes writes");
    }
    out
}

#[test]
fn fragments_are_copied_and_mapped_back() {
    let source = r#"
macro_rules! each {
    ($e:expr, $i:ident, $t:ty, $b:block, $l:literal, $p:path, $x:tt) => {
        let $i: $t = $e;
        $p($i, $l, $x);
        $b
    };
}
fn run() {
    each!(make(1) + 2, value, Vec<u8>, { done(value) }, "lit", a::b::call, other);
}
"#;
    insta::assert_snapshot!(expanded(source, Glue::Body, 0).expect("expands"));
}

#[test]
fn repetitions_and_nested_repetitions() {
    let source = r#"
macro_rules! table {
    ($($key:ident => [$($value:expr),*]);+ $(;)?) => {
        $( register(stringify!($key), &[$(check($value)),*]); )+
    };
}
fn run() {
    table!(first => [a(), b.c()]; second => []; third => [d]);
}
"#;
    insta::assert_snapshot!(expanded(source, Glue::Body, 0).expect("expands"));
}

#[test]
fn the_first_matching_rule_wins_and_groups_match_their_delimiters() {
    let source = r#"
macro_rules! pick {
    (@inner $x:expr) => { inner($x) };
    ([$a:expr] { $($b:tt)* }) => { bracketed($a); pick!(@inner $a); $($b)* };
    ($a:expr) => { plain($a) };
}
fn run() {
    pick!([one()] { two(); three() });
}
"#;
    insta::assert_snapshot!(expanded(source, Glue::Body, 0).expect("expands"));
}

#[test]
fn items_and_members_are_glued_as_a_file_and_an_impl() {
    let source = r#"
macro_rules! handler {
    ($name:ident, $method:ident) => {
        pub fn $name(path: &str) -> Route { route(Method::$method, path) }
    };
}
handler!(get, GET);
"#;
    insta::assert_snapshot!("items", expanded(source, Glue::Items, 0).expect("expands"));
    insta::assert_snapshot!("members", expanded(source, Glue::Members, 0).expect("expands"));
}

#[test]
fn a_braced_invocation_of_another_files_macro_is_read_as_written() {
    let source = "cfg_rt! {\n    pub fn spawn() { hidden() }\n}\n";
    let shown = with_last(source, |_, _, tokens| verbatim(tokens, source, Glue::Items)).map(|e| shown(&e, source));
    insta::assert_snapshot!(shown.expect("reads"));
}

#[test]
fn each_error_says_why() {
    let cases: &[(&str, ExpandError)] = &[
        ("fn f() { absent!(x); }", ExpandError::NotDefined),
        (
            "macro_rules! twice { () => {} }\nmacro_rules! twice { ($x:expr) => {} }\nfn f() { twice!(1); }",
            ExpandError::DefinedTwice,
        ),
        (
            "macro_rules! odd { ($x:unknown) => {} ($x:expr) => { $x } }\nfn f() { odd!(1); }",
            ExpandError::UnreadableRule(0),
        ),
        ("macro_rules! one { ($x:ident) => { $x } }\nfn f() { one!(1 + 2); }", ExpandError::NoRuleMatches),
        ("macro_rules! lost { ($x:expr) => { $y } }\nfn f() { lost!(1); }", ExpandError::Unbound("y".into())),
        ("macro_rules! flat { ($($x:expr),*) => { $x } }\nfn f() { flat!(1, 2); }", ExpandError::Unbound("x".into())),
        (
            "macro_rules! zip { ($($a:ident)* ; $($b:ident)*) => { $($a $b)* } }\nfn f() { zip!(a b ; c); }",
            ExpandError::Repetition,
        ),
    ];
    for (source, error) in cases {
        assert_eq!(expanded(source, Glue::Body, 0).err().as_ref(), Some(error), "{source}");
    }
}

#[test]
fn each_limit_stops_an_expansion() {
    let source = "macro_rules! m { ($x:expr) => { f($x) } }\nfn g() { m!(1); }";
    assert!(expanded(source, Glue::Body, MAX_DEPTH - 1).is_ok());
    assert_eq!(expanded(source, Glue::Body, MAX_DEPTH).err(), Some(ExpandError::TooDeep));
    // Each round writes a long literal: more rounds than fit under the limit.
    let long = "x".repeat(1024);
    let rounds = MAX_LEN / long.len() + 2;
    let tokens = vec!["a"; rounds].join(" ");
    let source = format!(
        "macro_rules! big {{ ($($x:ident)*) => {{ $( f(\"{long}\", $x); )* }} }}\nfn g() {{ big!({tokens}); }}"
    );
    assert_eq!(expanded(&source, Glue::Body, 0).err(), Some(ExpandError::TooLong));
    let fewer = vec!["a"; rounds / 2].join(" ");
    let source =
        format!("macro_rules! big {{ ($($x:ident)*) => {{ $( f(\"{long}\", $x); )* }} }}\nfn g() {{ big!({fewer}); }}");
    assert!(expanded(&source, Glue::Body, 0).is_ok());
}
