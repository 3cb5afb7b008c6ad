//! python plugin tests: inline sources in, one compact line per fact out.

use drsg_parsers::{FileFacts, Lang, Language, Qualifier, TypeHint, Visibility, parse_file};
use drsg_plugins::python::PythonPlugin;

/// Which facts a check renders.
#[derive(Clone, Copy, PartialEq)]
enum Show {
    Defs,
    Docs,
    Refs,
    Imports,
    Bindings,
    Inherits,
}

fn parse(path: &str, source: &str) -> FileFacts {
    parse_file(&PythonPlugin, Lang::Python, path, source)
}

/// `Outer.inner` for a def index, `-` for none.
fn qualified(facts: &FileFacts, index: Option<u32>) -> String {
    let mut names = Vec::new();
    let mut current = index;
    while let Some(i) = current {
        let def = &facts.defs[i as usize];
        names.push(def.name.as_str());
        current = def.parent;
    }
    if names.is_empty() {
        return "-".to_owned();
    }
    names.reverse();
    names.join(".")
}

fn render(facts: &FileFacts, show: &[Show]) -> String {
    let mut out = Vec::new();
    if show.contains(&Show::Defs) {
        for (i, d) in facts.defs.iter().enumerate() {
            let vis = match d.visibility {
                Visibility::Public => "pub",
                Visibility::Crate => "crate",
                Visibility::Private => "priv",
            };
            let mut line = format!(
                "{} {} L{}-{} {vis} parent={}",
                d.kind.label(),
                qualified(facts, Some(i as u32)),
                d.line,
                d.end_line,
                qualified(facts, d.parent)
            );
            if d.is_test {
                line.push_str(" test");
            }
            if let Some(returns) = &d.returns {
                line.push_str(&format!(" -> {}", returns.join(".")));
            }
            out.push(line);
        }
    }
    if show.contains(&Show::Docs) {
        if let Some(doc) = &facts.module_doc {
            out.push(format!("module: {doc}"));
        }
        for (i, d) in facts.defs.iter().enumerate() {
            let doc = d.doc.as_deref().map(|doc| format!(" | {doc}")).unwrap_or_default();
            out.push(format!("{}: {}{doc}", qualified(facts, Some(i as u32)), d.signature));
        }
    }
    if show.contains(&Show::Refs) {
        for r in &facts.refs {
            let qualifier = match &r.qualifier {
                Qualifier::Plain => String::new(),
                Qualifier::SelfValue => " self".to_owned(),
                Qualifier::Super => " super".to_owned(),
                Qualifier::Expr { call: Some(call), .. } => format!(" expr({})", call.join(".")),
                Qualifier::Expr { call: None, .. } => " expr(-)".to_owned(),
                Qualifier::Tokens => " tokens".to_owned(),
            };
            out.push(format!(
                "{:?} {} L{} scope={}{qualifier}",
                r.kind,
                r.path.join("."),
                r.line,
                qualified(facts, r.scope)
            ));
        }
    }
    if show.contains(&Show::Imports) {
        for i in &facts.imports {
            out.push(format!(
                "import {} name={} alias={}{} L{} scope={}{}",
                i.source,
                i.name.as_deref().unwrap_or("-"),
                i.alias,
                if i.glob { " glob" } else { "" },
                i.line,
                qualified(facts, i.scope),
                if i.reexport { " reexport" } else { "" },
            ));
        }
    }
    if show.contains(&Show::Bindings) {
        for b in &facts.bindings {
            let hint = match &b.hint {
                None => "untyped".to_owned(),
                Some(TypeHint::Annotated(p)) => format!("annotated {}", p.join(".")),
                Some(TypeHint::Constructed(p)) => format!("constructed {}", p.join(".")),
                Some(TypeHint::CallResult(p)) => format!("call {}", p.join(".")),
                Some(TypeHint::Field(p)) => format!("field {}", p.join(".")),
                Some(TypeHint::CallChain(call, then)) => format!("chain {} then {}", call.join("."), then.join(" ")),
                Some(
                    TypeHint::Callback { .. }
                    | TypeHint::Destructured { .. }
                    | TypeHint::Contextual { .. }
                    | TypeHint::Alias(_),
                ) => {
                    unreachable!("only TypeScript writes callbacks, destructured results and aliases")
                }
            };
            out.push(format!("bind {} scope={} L{} {hint}", b.name, qualified(facts, b.scope), b.line));
        }
    }
    if show.contains(&Show::Inherits) {
        for h in &facts.inherits {
            out.push(format!(
                "{} {:?} {} L{} def={}",
                h.child.join("."),
                h.kind,
                h.target.join("."),
                h.line,
                qualified(facts, h.child_def)
            ));
        }
    }
    out.join("\n")
}

/// Parse `source` as `path` and compare the rendered facts with `expected` (lines trimmed, blank lines ignored).
#[track_caller]
fn check_at(path: &str, source: &str, show: &[Show], expected: &str) {
    let facts = parse(path, source);
    let expected: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let actual = render(&facts, show);
    assert_eq!(actual, expected.join("\n"), "\n--- actual ---\n{actual}\n");
}

#[track_caller]
fn check(source: &str, show: &[Show], expected: &str) {
    check_at("pkg/mod.py", source, show, expected);
}

#[test]
fn functions_methods_classes_and_nesting() {
    check(
        r#"
def top():
    def inner():
        pass
    return inner

class Client:
    def connect(self):
        pass

    async def close(self):
        pass

    class Inner:
        def deep(self): pass

    if DEBUG:
        def debug(self): pass
"#,
        &[Show::Defs],
        "
        Function top L2-5 pub parent=-
        Function top.inner L3-4 pub parent=top
        Class Client L7-18 pub parent=-
        Method Client.connect L8-9 pub parent=Client
        Method Client.close L11-12 pub parent=Client
        Class Client.Inner L14-15 pub parent=Client
        Method Client.Inner.deep L15-15 pub parent=Client.Inner
        Method Client.debug L18-18 pub parent=Client
        ",
    );
}

#[test]
fn module_and_class_level_assignments_are_vars() {
    check(
        r#"
X = 1
Y: int = 2
_private = 3
__all__ = ["a"]
a = b = 4
x, y = 1, 2
obj.attr = 5
if TYPE_CHECKING:
    Z = 1
try:
    W = 1
except ImportError:
    W = None
class Config:
    timeout: int = 30
    name: str
    def m(self):
        local = 1
        self.field = 2
def f():
    inside = 2
type Alias = list[int]
type Pair[T] = tuple[T, T]
def g(): ...
g = wrap(g)
"#,
        &[Show::Defs],
        "
        Var X L2-2 pub parent=-
        Var Y L3-3 pub parent=-
        Var _private L4-4 priv parent=-
        Var __all__ L5-5 pub parent=-
        Var a L6-6 pub parent=-
        Var b L6-6 pub parent=-
        Var Z L10-10 pub parent=-
        Var W L12-12 pub parent=-
        Class Config L15-20 pub parent=-
        Var Config.timeout L16-16 pub parent=Config
        Var Config.name L17-17 pub parent=Config
        Method Config.m L18-20 pub parent=Config
        Function f L21-22 pub parent=-
        TypeAlias Alias L23-23 pub parent=-
        TypeAlias Pair L24-24 pub parent=-
        Function g L25-25 pub parent=-
        ",
    );
}

#[test]
fn visibility_follows_underscores() {
    check(
        "
def public(): pass
def _private(): pass
class _Hidden:
    def __init__(self): pass
    def __mangled(self): pass
    def __call__(self): pass
",
        &[Show::Defs],
        "
        Function public L2-2 pub parent=-
        Function _private L3-3 priv parent=-
        Class _Hidden L4-7 priv parent=-
        Method _Hidden.__init__ L5-5 pub parent=_Hidden
        Method _Hidden.__mangled L6-6 priv parent=_Hidden
        Method _Hidden.__call__ L7-7 pub parent=_Hidden
        ",
    );
}

#[test]
fn decorators_start_the_definition_and_are_refs_of_the_enclosing_scope() {
    check(
        r#"
@app.route("/x", methods=GET_METHODS)
@login_required
def view():
    pass

class Resource:
    @property
    def name(self): return self._name

    @name.setter
    def name(self, value): pass

    @functools.lru_cache(maxsize=None)
    @staticmethod
    def cached(): pass

@dataclass
class Point:
    x: int
"#,
        &[Show::Defs, Show::Refs],
        "
        Function view L2-5 pub parent=-
        Class Resource L7-16 pub parent=-
        Method Resource.name L8-9 pub parent=Resource
        Method Resource.name L11-12 pub parent=Resource
        Method Resource.cached L14-16 pub parent=Resource
        Class Point L18-20 pub parent=-
        Var Point.x L20-20 pub parent=Point
        Decorator app.route L2 scope=-
        Value GET_METHODS L2 scope=-
        Decorator login_required L3 scope=-
        Decorator property L8 scope=Resource
        Decorator name.setter L11 scope=Resource
        Decorator functools.lru_cache L14 scope=Resource
        Decorator staticmethod L15 scope=Resource
        Decorator dataclass L18 scope=-
        ",
    );
}

#[test]
fn docstrings_signatures_and_module_doc() {
    check(
        r#""""Module doc.

More text."""
import os

def f(a: int,
      b: str = "x") -> Client:  # trailing comment
    '''  Does   things.
    Second line. '''
    return Client()

class K(Base, metaclass=Meta):
    r"""Raw doc."""

async def g():
    # a comment first
    "Doc after a comment."

def no_doc():
    x = "not a doc"

def fstring():
    f"not a doc {x}"

X = 1
"""Doc of X."""
"#,
        &[Show::Docs],
        r#"
        module: Module doc. More text.
        f: def f(a: int, b: str = "x") -> Client: | Does things. Second line.
        K: class K(Base, metaclass=Meta): | Raw doc.
        g: async def g(): | Doc after a comment.
        no_doc: def no_doc():
        fstring: def fstring():
        X: X = 1 | Doc of X.
        "#,
    );
}

#[test]
fn attribute_docs_are_the_string_statement_right_after_the_variable() {
    check(
        r#"
A = 1
"""Doc of A."""
B = 2; "Doc of B."
C = 3
# a comment between
"""Not C's."""
a = b = 4
"""Doc of a."""
if flag:
    D = 5
"""Not D's: another block."""
if flag:
    E = 6
    """Doc of E."""
class K:
    x: int = 1
    """Doc of x."""
    y = 2
    z = 3
    """Doc of z."""
def f():
    inner = 1
    """Not a def."""
"#,
        &[Show::Docs],
        r#"
        A: A = 1 | Doc of A.
        B: B = 2 | Doc of B.
        C: C = 3
        a: a = b = 4 | Doc of a.
        b: b = 4
        D: D = 5
        E: E = 6 | Doc of E.
        K: class K:
        K.x: x: int = 1 | Doc of x.
        K.y: y = 2
        K.z: z = 3 | Doc of z.
        f: def f():
        "#,
    );
}

#[test]
fn test_detection_by_path() {
    let source = "def helper(): pass\nclass Util:\n    def run(self): pass\n";
    for path in
        ["tests/unit/helpers.py", "test/x.py", "pkg/test_api.py", "pkg/api_test.py", "conftest.py", "pkg/test_stub.pyi"]
    {
        let facts = parse(path, source);
        assert!(facts.defs.iter().all(|d| d.is_test), "{path}: {:?}", facts.defs);
        assert_eq!(facts.defs.len(), 3, "{path}");
    }
    for path in ["pkg/testing.py", "pkg/contest.py", "pkg/latest/x.py", "pkg/tests.py", "pkg/attest_x.py"] {
        let facts = parse(path, source);
        assert!(facts.defs.iter().all(|d| !d.is_test), "{path}: {:?}", facts.defs);
    }
}

#[test]
fn pytest_style_tests() {
    check(
        r#"
import pytest

@pytest.fixture
def client():
    return Client()

@pytest.mark.parametrize("n", [1, 2])
def test_count(client, n):
    def check(x):
        assert x
    assert helper(n) == n

class TestApi:
    def setup_method(self):
        self.c = Client()

    def test_get(self):
        assert self.c.get()

class Testimony:
    pass

class Helper:
    def test_like(self): pass
    def other(self): pass
"#,
        &[Show::Defs, Show::Refs],
        "
        Function client L4-6 pub parent=-
        Function test_count L8-12 pub parent=- test
        Function test_count.check L10-11 pub parent=test_count test
        Class TestApi L14-19 pub parent=- test
        Method TestApi.setup_method L15-16 pub parent=TestApi test
        Method TestApi.test_get L18-19 pub parent=TestApi test
        Class Testimony L21-22 pub parent=- test
        Class Helper L24-26 pub parent=-
        Method Helper.test_like L25-25 pub parent=Helper test
        Method Helper.other L26-26 pub parent=Helper
        Decorator pytest.fixture L4 scope=-
        Call Client L6 scope=client
        Decorator pytest.mark.parametrize L8 scope=-
        Call helper L12 scope=test_count
        Value n L12 scope=test_count
        Call Client L16 scope=TestApi.setup_method
        Call c.get L19 scope=TestApi.test_get self
        ",
    );
}

#[test]
fn return_types() {
    check(
        r#"
def a() -> Client: ...
def b() -> mod.Client: ...
def c() -> "Client": ...
def d() -> Optional[Client]: ...
def e() -> None: ...
def f(): ...
def g() -> "mod.Client": ...
def h() -> Client | None: ...
def i() -> typing.List[Client]: ...
def j() -> "Optional[Client]": ...
"#,
        &[Show::Defs],
        "
        Function a L2-2 pub parent=- -> Client
        Function b L3-3 pub parent=- -> mod.Client
        Function c L4-4 pub parent=- -> Client
        Function d L5-5 pub parent=- -> Optional
        Function e L6-6 pub parent=-
        Function f L7-7 pub parent=-
        Function g L8-8 pub parent=- -> mod.Client
        Function h L9-9 pub parent=-
        Function i L10-10 pub parent=- -> typing.List
        Function j L11-11 pub parent=- -> Optional
        ",
    );
}

#[test]
fn call_qualifiers() {
    check(
        r#"
class A(Base):
    def run(self):
        f()
        a.b.c()
        self.x()
        self.a.b()
        super().init()
        super(A, self).close()
        make().run()
        Client().connect()
        mod.make().go()
        self.factory().build()
        items[0].go()
        "".join(parts)
        (a or b).go()
        f()()

    @classmethod
    def create(cls):
        return cls.y()
"#,
        &[Show::Refs],
        "
        Call f L4 scope=A.run
        Call a.b.c L5 scope=A.run
        Call x L6 scope=A.run self
        Call a.b L7 scope=A.run self
        Call init L8 scope=A.run super
        Call close L9 scope=A.run super
        Call run L10 scope=A.run expr(make)
        Call make L10 scope=A.run
        Call connect L11 scope=A.run expr(Client)
        Call Client L11 scope=A.run
        Call go L12 scope=A.run expr(mod.make)
        Call mod.make L12 scope=A.run
        Call build L13 scope=A.run expr(self.factory)
        Call factory L13 scope=A.run self
        Call go L14 scope=A.run expr(-)
        Call join L15 scope=A.run expr(-)
        Value parts L15 scope=A.run
        Call go L16 scope=A.run expr(-)
        Call f() L17 scope=A.run expr(-)
        Call f L17 scope=A.run
        Decorator classmethod L19 scope=A
        Call y L21 scope=A.create self
        ",
    );
}

#[test]
fn call_text_and_line_of_chained_calls() {
    let facts = parse(
        "pkg/mod.py",
        "def run():\n    return (client\n        .connect(timeout=5)\n        .fetch())\n\nprint(  'x'  )\n",
    );
    let rendered: Vec<String> =
        facts.refs.iter().map(|r| format!("{} L{} {:?}", r.path.join("."), r.line, r.text)).collect();
    assert_eq!(
        rendered,
        [
            "fetch L4 \"client .connect(timeout=5) .fetch\"",
            "client.connect L3 \"client .connect\"",
            "print L6 \"print\"",
        ]
        .map(str::to_owned)
    );
}

#[test]
fn values_passed_as_arguments_or_assigned() {
    check(
        r#"
def run(self, xs):
    map(f, xs)
    register(handler)
    sorted(xs, key=func)
    register(self.on_event)
    emit(1, "s", None, True, *rest, **opts)
    use(mod.handler, x.y())
    callback = on_done

def scan(s, _m=PATTERN.match, *, hook: Hook = default_hook, n=0):
    pass
"#,
        &[Show::Refs],
        "
        Call map L3 scope=run
        Value f L3 scope=run
        Value xs L3 scope=run
        Call register L4 scope=run
        Value handler L4 scope=run
        Call sorted L5 scope=run
        Value xs L5 scope=run
        Value func L5 scope=run
        Call register L6 scope=run
        Value on_event L6 scope=run self
        Call emit L7 scope=run
        Call use L8 scope=run
        Value mod.handler L8 scope=run
        Call x.y L8 scope=run
        Value on_done L9 scope=run
        Value PATTERN.match L11 scope=scan
        Type Hook L11 scope=scan
        Value default_hook L11 scope=scan
        ",
    );
}

#[test]
fn type_refs_from_annotations() {
    check(
        r#"
def f(c: Client, d: mod.Db, n: int, o: Optional["Client"], l: dict[str, mod.C],
      lit: Literal["fast"], fn: Callable[[A], B] = None, *args: Arg, **kw: Any) -> "Result":
    x: Local = 1
    s: str = ""

type Handler = Callable[[Request], Response]
"#,
        &[Show::Refs],
        "
        Type Client L2 scope=f
        Type mod.Db L2 scope=f
        Type Optional L2 scope=f
        Type Client L2 scope=f
        Type mod.C L2 scope=f
        Type Literal L3 scope=f
        Type Callable L3 scope=f
        Type A L3 scope=f
        Type B L3 scope=f
        Type Arg L3 scope=f
        Type Result L3 scope=f
        Type Local L4 scope=f
        Type Callable L7 scope=-
        Type Request L7 scope=-
        Type Response L7 scope=-
        ",
    );
}

#[test]
fn lambdas_and_comprehensions_belong_to_the_enclosing_def() {
    check(
        r#"
def run(xs):
    ys = sorted(xs, key=lambda x: helper(x))
    return [convert(y) for y in ys if keep(y)]

handler = lambda event: dispatch(event)
"#,
        &[Show::Defs, Show::Refs],
        "
        Function run L2-4 pub parent=-
        Var handler L6-6 pub parent=-
        Call sorted L3 scope=run
        Value xs L3 scope=run
        Call helper L3 scope=run
        Value x L3 scope=run
        Call convert L4 scope=run
        Value y L4 scope=run
        Call keep L4 scope=run
        Value y L4 scope=run
        Call dispatch L6 scope=-
        Value event L6 scope=-
        ",
    );
}

#[test]
fn imports_of_every_form() {
    check(
        r#"
from __future__ import annotations
import os
import a.b.c
import a.b as m, json
from .util import f
from . import x
from ..pkg.mod import f as g
from a import *
from pkg import (
    one,
    two as deux,
)
try:
    import ujson as json
except ImportError:
    pass
if TYPE_CHECKING:
    from .client import Client

def lazy():
    import heavy
    from .impl import run as go
"#,
        &[Show::Imports],
        "
        import os name=- alias=os L3 scope=-
        import a.b.c name=- alias=a L4 scope=-
        import a.b name=- alias=m L5 scope=-
        import json name=- alias=json L5 scope=-
        import .util name=f alias=f L6 scope=-
        import . name=x alias=x L7 scope=-
        import ..pkg.mod name=f alias=g L8 scope=-
        import a name=- alias= glob L9 scope=-
        import pkg name=one alias=one L11 scope=-
        import pkg name=two alias=deux L12 scope=-
        import ujson name=- alias=json L15 scope=-
        import .client name=Client alias=Client L19 scope=-
        import heavy name=- alias=heavy L22 scope=lazy
        import .impl name=run alias=go L23 scope=lazy
        ",
    );
}

#[test]
fn typed_bindings() {
    check(
        r#"
c = Client()
d = make()
e = mod.make()
f: Client = make()
g: Client
n = 1
alias = Client
async def run(p: Client, q: mod.Db = None, *args: int, self=None, cls: Meta = None):
    h = await make()
    x, y = make()
    with open() as fh:
        pass
    i: "Optional[Db]" = None
class Service:
    db: Database
    def __init__(self, url: str):
        self.client = Client()
        self.pool: Pool = make_pool()
        self.count = 0
        self.a.b = Client()
        other.x = Client()
        def nested():
            self.late = Client()
"#,
        &[Show::Bindings],
        "
        bind c scope=- L3 call Client
        bind d scope=- L4 call make
        bind e scope=- L5 call mod.make
        bind f scope=- L6 annotated Client
        bind g scope=- L7 annotated Client
        bind p scope=run L9 annotated Client
        bind q scope=run L9 annotated mod.Db
        bind h scope=run L11 call make
        bind x scope=run L12 untyped
        bind y scope=run L12 untyped
        bind fh scope=run L12 chain open then __enter__
        bind i scope=run L15 annotated Optional
        bind db scope=Service L17 annotated Database
        bind url scope=Service.__init__ L17 annotated str
        bind client scope=Service L18 call Client
        bind pool scope=Service L19 annotated Pool
        ",
    );
}

#[test]
fn a_function_binds_its_untyped_names() {
    // Every name a function binds shadows the name's outer meaning there, so each is a binding (with no
    // type); the same statements outside a function bind nothing (module variables are definitions).
    check(
        r#"
for top in items:
    pass
seen = [row for row in rows]
def run(plain, default=1, *args, key: "Fwd" = None, untyped: int | None = None, **kwargs):
    a, (b, *rest) = pair()
    [c, d] = pair()
    total = 0
    total += 1
    for i, (k, v) in enumerate(x):
        pass
    names = [n for n in names if (m := n)]
    try:
        pass
    except ValueError as err:
        pass
    with lock as held, open() as (f1, f2):
        pass
    handler = lambda event, *more: event
    obj.attr = 1
    obj[0] = 2
"#,
        &[Show::Bindings],
        "
        bind plain scope=run L5 untyped
        bind default scope=run L5 untyped
        bind args scope=run L5 untyped
        bind key scope=run L5 annotated Fwd
        bind untyped scope=run L5 untyped
        bind kwargs scope=run L5 untyped
        bind a scope=run L7 untyped
        bind b scope=run L7 untyped
        bind rest scope=run L7 untyped
        bind c scope=run L8 untyped
        bind d scope=run L8 untyped
        bind total scope=run L9 untyped
        bind i scope=run L11 untyped
        bind k scope=run L11 untyped
        bind v scope=run L11 untyped
        bind names scope=run L13 untyped
        bind n scope=run L12 untyped
        bind m scope=run L12 untyped
        bind err scope=run L15 untyped
        bind held scope=run L17 untyped
        bind f1 scope=run L17 untyped
        bind f2 scope=run L17 untyped
        bind handler scope=run L20 untyped
        bind event scope=run L19 untyped
        bind more scope=run L19 untyped
        ",
    );
}

#[test]
fn class_bases_are_extends() {
    check(
        r#"
class A(B, mod.C, Generic[T], metaclass=M):
    pass
class D(object): pass
class E: pass
class F(
    Base,
): pass
"#,
        &[Show::Inherits, Show::Refs],
        "
        Value M L2 scope=A
        A Extends B L2 def=A
        A Extends mod.C L2 def=A
        A Extends Generic L2 def=A
        F Extends Base L7 def=F
        ",
    );
}

#[test]
fn syntax_error_keeps_the_defs_around_it() {
    let source = "
def before():
    return 1

def broken(:
    pass

class After:
    def ok(self):
        helper()
";
    let facts = parse("pkg/mod.py", source);
    assert!(facts.parse_errors > 0);
    let names: Vec<String> = (0..facts.defs.len()).map(|i| qualified(&facts, Some(i as u32))).collect();
    for expected in ["before", "After", "After.ok"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
    }
    assert!(facts.refs.iter().any(|r| r.path == ["helper"] && qualified(&facts, r.scope) == "After.ok"));
}

#[test]
fn deep_nesting_does_not_overflow() {
    const DEPTH: usize = 100_000;
    for (open, close) in [("(", ")"), ("[", "]")] {
        let source = format!("def run():\n    x = {}1{}\n    done()\n", open.repeat(DEPTH), close.repeat(DEPTH));
        let facts = parse("pkg/mod.py", &source);
        assert_eq!(render(&facts, &[Show::Defs, Show::Refs]), "Function run L1-3 pub parent=-\nCall done L3 scope=run");
        assert_eq!(facts.parse_errors, 0);
        // The query engine's depth limit is reported, not silently hit.
        assert!(facts.diagnostics.iter().any(|d| d.line == 2 && d.message.contains("nesting deeper than")));
    }
}

#[test]
fn deeply_nested_calls_are_found_down_to_the_depth_limit() {
    // 20,000 nested calls (40,000 levels): every one is a call site of `run`.
    let source = format!("def run():\n    {}x{}\n", "f(".repeat(20_000), ")".repeat(20_000));
    let facts = parse("pkg/mod.py", &source);
    let calls = facts.refs.iter().filter(|r| r.path == ["f"] && r.scope == Some(0)).count();
    assert_eq!(calls, 20_000);
    assert!(facts.diagnostics.is_empty(), "{:?}", facts.diagnostics);

    // 100,000 nested calls: those below the query depth limit are left out, with a diagnostic.
    let source = format!("def run():\n    {}x{}\ndef after(): g()\n", "f(".repeat(100_000), ")".repeat(100_000));
    let facts = parse("pkg/mod.py", &source);
    let calls = facts.refs.iter().filter(|r| r.path == ["f"] && r.scope == Some(0)).count();
    assert!((25_000..100_000).contains(&calls), "{calls}");
    assert!(facts.diagnostics.iter().any(|d| d.message.contains("nesting deeper than")));
    assert!(facts.refs.iter().any(|r| r.path == ["g"] && qualified(&facts, r.scope) == "after"));
}

#[test]
fn unclosed_brackets_keep_the_complete_defs_before_them() {
    // Tree-sitter folds the rest of the file into one ERROR node with 100,000 children.
    let source = format!("def first():\n    return helper()\n\ndef run():\n    x = {}\n", "(".repeat(100_000));
    let facts = parse("pkg/mod.py", &source);
    assert!(facts.parse_errors > 0);
    assert_eq!(
        render(&facts, &[Show::Defs, Show::Refs]),
        "Function first L1-2 pub parent=-\nCall helper L2 scope=first"
    );
}

#[test]
fn plugin_takes_py_and_pyi() {
    let plugin = PythonPlugin;
    assert_eq!(plugin.name(), "python");
    assert_eq!(plugin.lang_for("a/b.py"), Some(Lang::Python));
    assert_eq!(plugin.lang_for("a/b.pyi"), Some(Lang::Python));
    assert_eq!(plugin.lang_for("a/b.pyc"), None);
    assert_eq!(plugin.lang_for("a/py"), None);
    let files: Vec<&str> = plugin.queries().iter().map(|(file, _)| *file).collect();
    assert_eq!(files, ["defs.scm", "refs.scm", "imports.scm", "bindings.scm"]);
}
