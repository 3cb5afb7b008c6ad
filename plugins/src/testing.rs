//! Helpers of the crate's tests.

use tree_sitter::{Language, Node, Tree};

/// `source` parsed with `language`.
pub(crate) fn parse(language: &Language, source: &str) -> Tree {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(language).expect("the grammar loads");
    parser.parse(source, None).expect("the source parses")
}

/// Every node of `tree`, each before its children.
pub(crate) fn every_node(tree: &Tree) -> Vec<Node<'_>> {
    let mut nodes = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        nodes.push(node);
        let first = stack.len();
        stack.extend(node.children(&mut node.walk()));
        stack[first..].reverse();
    }
    nodes
}

/// Sources that exercise hidden rules, aliases, fields (inherited ones too), extras (comments) and syntax
/// errors in each grammar, with the grammar to parse each with.
pub(crate) fn samples() -> [(Language, &'static str); 5] {
    [
        (
            tree_sitter_python::LANGUAGE.into(),
            "import a.b as c\nok = a not in b and c is not d\n@dec(x)\nclass K(Base, metaclass=M):\n    \"\"\"doc\"\"\"\n    def f(self, *a, **k) -> int:\n        # note\n        return [x for x in self.g(a) if x] + f'{k!r:>3}'\n    async def h(self): await self.f(); del self\nif (\n",
        ),
        (
            tree_sitter_rust::LANGUAGE.into(),
            "/// doc\npub(crate) struct S<'a, T: Clone> { x: &'a T }\nimpl<T> Tr for S<'_, T> where T: Fn(u8) -> u8 {\n    fn m(&self) -> Option<Vec<u8>> { let v = vec![1, 2]; v.iter().map(|x| x + 1).collect::<Vec<_>>(); None }\n}\nmacro_rules! m { ($x:expr) => { $x } }\nfn broken( {\n",
        ),
        (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "import { a as b } from './x';\nexport default class C<T> extends D implements E {\n  private x: Map<string, T> = new Map();\n  m(): void { this.x.get('k')?.call(this, `t${1 + 2}`); }\n}\ntype U = { [k: string]: number } | null;\nconst f = async (y) => { await y; };\nlet z = (\n",
        ),
        (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            "export function App(props: P) { return <div className=\"a\">{props.items.map(i => <Item key={i} {...i} />)}</div>; }\n",
        ),
        (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            "const x = require('y'); module.exports = { x, z: () => <></> };\n/* c */ <a",
        ),
    ]
}
