//! The one decision per invocation: which treatment each kind of invocation gets.

use drsg_parsers::text::node_text;

use super::mbe::Rules;
use super::{Reading, Treatment, treatment};
use crate::fields::ChildInField;
use crate::rust::{Field, capture};
use crate::testing::{every_node, parse};

#[test]
fn each_invocation_gets_one_treatment() {
    let source = r#"
macro_rules! own { ($x:expr) => { run($x) }; }
own!(at_items);
cfg_rt! {
    pub fn spawn() { hidden() }
}
impl Runtime {
    own!(in_impl);
}
fn f() {
    own!(1);
    quote!(a(b));
    vec![1, 2];
    wrap!(make(x), other());
    select! { a = ready() => done(a) }
    a::own!(2);
    named!(x);
}
"#;
    let tree = parse(&tree_sitter_rust::LANGUAGE.into(), source);
    let captured = capture(tree.root_node(), source);
    let macros = every_node(&tree).into_iter().filter(|n| n.kind() == "macro_definition").collect::<Vec<_>>();
    let rules = Rules::of(macros.into_iter(), source);
    let reading = Reading { rules: &rules, depth: 0 };
    let shown: Vec<String> = every_node(&tree)
        .into_iter()
        .filter(|n| n.kind() == "macro_invocation")
        .map(|n| {
            let name = node_text(n.field(Field::Macro).expect("a name"), source);
            let treated = match treatment(n, source, reading, Some(&captured.containers)) {
                Treatment::Items(placed) if placed.as_written => "items as written".to_owned(),
                Treatment::Items(placed) if placed.block.is_some() => "items of the impl".to_owned(),
                Treatment::Items(_) => "items".to_owned(),
                other => format!("{other:?}"),
            };
            format!("{name}: {treated}")
        })
        .collect();
    assert_eq!(
        shown,
        [
            "own: items",
            "cfg_rt: items as written",
            "own: items of the impl",
            "own: Expand",
            "quote: Skip",
            "vec: Skip",
            "wrap: Parse",
            "select: Tokens",
            "a::own: Skip",
            "named: Skip",
        ]
    );
    // Inside a token tree or a body's expansion nothing sits among items: the file's own macro expands.
    let first = every_node(&tree).into_iter().find(|n| n.kind() == "macro_invocation").expect("an invocation");
    assert_eq!(treatment(first, source, reading, None), Treatment::Expand);
    // Past the nesting limit, not even among items.
    let deep = Reading { rules: &rules, depth: super::MAX_DEPTH };
    assert_eq!(treatment(first, source, deep, Some(&captured.containers)), Treatment::Expand);
}
