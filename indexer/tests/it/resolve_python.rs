//! Python resolution: relative and aliased imports, receivers, super(), decorators, lambdas, and
//! names that must not bind to tree symbols.

use crate::{assert_has, assert_none, index};

const SHOP: &str = r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/util.py
def f():
    return 1

def join(a, b):
    return a + b
//- /shop/models.py
from .util import f
import shop.util as u
import os.path

class Base:
    def __init__(self):
        pass

    def save(self):
        pass

class Order(Base):
    def __init__(self):
        super().__init__()

    def save(self):
        self.validate()
        super().save()

    def validate(self):
        f()
        u.f()
        os.path.join("a", "b")

def make() -> Order:
    return Order()

def run(items):
    c: Order = make()
    c.save()
    o = Order()
    o.validate()
    sorted(items, key=lambda x: f())
//- /shop/views.py
from shop.decorators import cached

@cached
def index():
    return 1

class A:
    def go(self): pass

class B:
    def go(self): pass

def untyped(x):
    x.go()
//- /shop/decorators.py
def cached(fn):
    return fn
//- /tests/test_models.py
from shop.models import run

def test_run():
    run([])
"#;

#[test]
fn keys_follow_the_import_rule() {
    let ix = index(SHOP);
    assert_has(
        &ix.keys(),
        &[
            "Module shop",
            "Module shop.models",
            "Class shop.models.Order",
            "Method shop.models.Order.save",
            "Module test_models",
        ],
    );
}

#[test]
fn calls_resolve_through_imports_receivers_super_and_decorators() {
    let ix = index(SHOP);
    assert_has(
        &ix.calls(),
        &[
            "CALLS shop.models.Order.__init__ -> shop.models.Base.__init__ L14 [super]",
            "CALLS shop.models.Order.save -> shop.models.Order.validate L17 [self]",
            "CALLS shop.models.Order.save -> shop.models.Base.save L18 [super]",
            // `from .util import f`
            "CALLS shop.models.Order.validate -> shop.util.f L21 [import]",
            // `import shop.util as u; u.f()`
            "CALLS shop.models.Order.validate -> shop.util.f L22 [import]",
            "INSTANTIATES shop.models.make -> shop.models.Order L26 [scope]",
            "CALLS shop.models.run -> shop.models.make L29 [scope]",
            // `c: Order = make()`: the annotation types the receiver.
            "CALLS shop.models.run -> shop.models.Order.save L30 [receiver-type]",
            // `o = Order()`: a constructor call types the receiver.
            "CALLS shop.models.run -> shop.models.Order.validate L32 [receiver-type]",
            // A call inside a lambda belongs to the enclosing function.
            "CALLS shop.models.run -> shop.util.f L33 [import]",
            "CALLS shop.models.run -> ext::sorted L33 [external]",
            "CALLS shop.views -> shop.decorators.cached L3 [import]",
            "CALLS test_models.test_run -> shop.models.run L4 [import]",
        ],
    );
}

#[test]
fn std_names_and_untyped_receivers_stay_off_tree_symbols() {
    let ix = index(SHOP);
    let calls = ix.calls();
    // `os.path.join` is the standard library's, not `shop.util.join`.
    assert_has(&calls, &["CALLS shop.models.Order.validate -> ext::os.path.join L23 [external]"]);
    assert_none(&calls, "CALLS shop.models.Order.validate -> shop.util.join");
    assert_has(&calls, &["CALLS shop.views.untyped -> ?go L14 (method call: receiver type unknown)"]);
    assert_none(&calls, "CALLS shop.views.untyped -> shop.views.");
}

#[test]
fn a_pyproject_name_makes_a_namespace_package() {
    // No `__init__.py` anywhere: the package is named by pyproject.toml (src layout).
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "Shop-Core"
//- /src/shop_core/orders.py
from shop_core.pricing import total

def checkout():
    return total()
//- /src/shop_core/pricing.py
def total():
    return 0
"#,
    );
    assert_has(&ix.keys(), &["Module shop_core.orders", "Function shop_core.pricing.total"]);
    assert_has(&ix.calls(), &["CALLS shop_core.orders.checkout -> shop_core.pricing.total L4 [import]"]);
}

/// The reasons a lookup gives when a name is absent from a module or a class, or the receiver is a variable
/// of unknown type: kept unformatted while the resolver looks elsewhere, written out the same when the call
/// ends unresolved.
#[test]
fn absent_members_and_untyped_variables_say_where_they_looked() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/util.py
class Client:
    def get(self):
        pass

conn = object()
//- /shop/views.py
import shop.util as u
from shop.util import Client, conn

def show():
    u.nope()
    Client.missing()
    conn.cursor()
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS shop.views.show -> ?nope L5 (`nope` not found in `shop.util`)",
            "CALLS shop.views.show -> ?missing L6 (`missing` not found in `shop.util.Client`)",
            "CALLS shop.views.show -> ?cursor L7 (method call: receiver type unknown (`shop.util.conn` is a Var))",
        ],
    );
}

/// A module-level instance (`app = Flask()`, `current: Flask = Proxy()`) imported into another module
/// has its class's members: the type comes from the assignment where the variable is defined.
#[test]
fn module_level_instances_imported_elsewhere_have_their_class_members() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/app.py
class Flask:
    def route(self, rule):
        pass

class Proxy:
    pass

app = Flask()
current: Flask = Proxy()
conn = object()
//- /shop/views.py
from shop.app import app, current, conn

def show():
    app.route("/")
    current.route("/x")
    conn.cursor()
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS shop.views.show -> shop.app.Flask.route L4 [import]",
            "CALLS shop.views.show -> shop.app.Flask.route L5 [import]",
            "CALLS shop.views.show -> ?cursor L6 (method call: receiver type unknown (`shop.app.conn` is a Var))",
        ],
    );
}

/// `self.app = app` of a parameter `app: Flask` types the field, a subclass reads the fields its base
/// assigns (`self.app.route(…)` in a method of `RequestContext(AppContext)`), and `app = self.app` takes
/// the field's type.
#[test]
fn fields_typed_by_parameters_are_read_through_subclasses() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/app.py
class Flask:
    def route(self, rule):
        pass
//- /shop/ctx.py
from shop.app import Flask

class AppContext:
    def __init__(self, app: Flask):
        self.app = app

class RequestContext(AppContext):
    def push(self):
        self.app.route("/")
        app = self.app
        app.route("/x")
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS shop.ctx.RequestContext.push -> shop.app.Flask.route L9 [receiver-type]",
            "CALLS shop.ctx.RequestContext.push -> shop.app.Flask.route L11 [receiver-type]",
        ],
    );
}

/// `@overload` stubs beside their implementation (`typing.overload`, `t.overload`): a call binds to the
/// implementation; two undecorated definitions of one name stay a tie.
#[test]
fn calls_of_overloaded_functions_bind_to_the_implementation() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/util.py
import typing as t
from typing import overload

@overload
def get(x: int) -> int: ...
@t.overload
def get(x: str) -> str: ...
def get(x):
    return x

def twice():
    pass

def twice():
    pass

def use():
    get(1)
    twice()
"#,
    );
    let calls = ix.calls();
    // The third `get` of the file (keyed `get#3`) is the implementation.
    assert!(calls.iter().any(|c| c.starts_with("CALLS shop.util.use -> shop.util.get#3 L18 ")), "{calls:#?}");
    assert_has(&calls, &["CALLS shop.util.use -> ?twice L19 (name `twice` defined 2 times in scope)"]);
}

/// `from .context import context` in a package's `__init__.py` rebinds the package's attribute `context`
/// from the submodule to the function, so `pkg.context(…)` calls the function. A module is never
/// callable: a call that can only mean one is unresolved, not an edge to the module.
#[test]
fn a_call_binds_to_the_function_a_package_re_exports_not_the_submodule_of_its_name() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
from .context import context
from . import plain
//- /shop/context.py
def context(x):
    return x
//- /shop/plain.py
def helper():
    return 1
//- /shop/sub/__init__.py
//- /shop/sub/only.py
def inner():
    return 2
//- /app.py
import shop
import shop.sub
from shop import context as ctx

def use():
    shop.context(1)
    ctx(2)
    shop.plain(3)
    shop.sub.only(4)
    shop.plain.helper()
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS app.use -> shop.context.context L6 [import]",
            "CALLS app.use -> shop.context.context L7 [import]",
            "CALLS app.use -> ?plain L8 (call of `plain` binds only to the module `shop.plain`: no function of that name is visible)",
            "CALLS app.use -> ?only L9 (call of `only` binds only to the module `shop.sub.only`: no function of that name is visible)",
            "CALLS app.use -> shop.plain.helper L10 [import]",
        ],
    );
    // No call site of the file is an edge to a module.
    for module in ["shop.context ", "shop.plain ", "shop.sub.only "] {
        assert!(!calls.iter().any(|c| c.contains(&format!("-> {module}"))), "{calls:#?}");
    }
}

#[test]
fn a_local_shadows_every_outer_meaning_of_its_name() {
    // Django's `for receiver in …: receiver(…)` beside its decorator `receiver`, and its `connection`
    // parameters beside `from django.db import connection`: a name the function binds is its own, typed or
    // not, so neither the module's function nor the import is the target.
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "app"
//- /app/__init__.py
//- /app/signals.py
from django.db import connection
import warnings

def receiver(signal):
    return signal

def early():
    return 0

def send(receivers, connection):
    for receiver in receivers:
        receiver(1)
    connection.cursor()
    warnings = []
    warnings.append(1)
    register(receiver)
    early()
    early = receivers

def register(fn):
    return fn

def outside():
    receiver(2)
    connection.cursor()
    register(receiver)

class Query:
    def strip(self):
        return self

def clean(value: Query):
    value = value.strip()
    return value
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS app.signals.send -> ?receiver L12 (call of a local value)",
            "CALLS app.signals.send -> ?cursor L13 (method call: receiver type unknown)",
            "CALLS app.signals.send -> ?append L15 (method call: receiver type unknown)",
            "CALLS app.signals.send -> app.signals.register L16 [scope]",
            "CALLS app.signals.send -> ?early L17 (call of a local value)",
            "CALLS app.signals.outside -> app.signals.receiver L24 [scope]",
            "CALLS app.signals.outside -> ext::django.db.connection.cursor L25 [external]",
            // An assignment's value still reads the name's earlier meaning: the typed parameter.
            "CALLS app.signals.clean -> app.signals.Query.strip L33 [receiver-type]",
        ],
    );
    let refs = ix.edges_of(&["REFERENCES"]);
    assert_has(&refs, &["REFERENCES app.signals.outside -> app.signals.receiver L26 [scope]"]);
    assert!(!refs.iter().any(|r| r.starts_with("REFERENCES app.signals.send ->")), "{refs:#?}");
}

#[test]
fn an_import_that_cannot_be_bound_is_an_unresolved_imports_edge_saying_why() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/util.py
def f():
    return 1
//- /shop/models.py
from .util import f
from .util import gone
from .absent import thing
"#,
    );
    let imports: Vec<String> = ix.edges_of(&["IMPORTS"]).into_iter().filter(|e| e.contains("shop.models ->")).collect();
    assert!(imports.iter().any(|e| e.starts_with("IMPORTS shop.models -> shop.util.f L1")), "{imports:#?}");
    for name in ["gone", "thing"] {
        assert!(
            imports.iter().any(|e| e.starts_with(&format!("IMPORTS shop.models -> ?{name} L")) && e.ends_with(')')),
            "{name} is an unresolved import with a reason: {imports:#?}"
        );
    }
}

#[test]
fn two_copies_of_a_generated_module_bind_each_importer_to_the_nearest() {
    let ix = index(
        r#"
//- /svc_a/gen/__init__.py
//- /svc_a/gen/api_pb2.py
def Request():
    return 1
//- /svc_a/main.py
from gen.api_pb2 import Request
from gen import api_pb2

def run():
    Request()
    api_pb2.Request()
//- /svc_b/gen/__init__.py
from .api_pb2 import Request as Again
//- /svc_b/gen/api_pb2.py
def Request():
    return 2
//- /svc_b/main.py
from gen.api_pb2 import Request
from gen import api_pb2

def run():
    Request()
    api_pb2.Request()
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS main.run -> gen.api_pb2.Request L5 [import]",
            "CALLS main.run -> gen.api_pb2.Request L6 [import]",
            "CALLS main.run#2 -> gen.api_pb2.Request#2 L5 [import]",
            "CALLS main.run#2 -> gen.api_pb2.Request#2 L6 [import]",
        ],
    );
    assert_has(&ix.edges_of(&["IMPORTS"]), &["IMPORTS gen#2 -> gen.api_pb2.Request#2 L1 []"]);
}

#[test]
fn a_directory_without_init_inside_a_package_is_a_namespace_package_of_it() {
    let ix = index(
        r#"
//- /src/web/__init__.py
from .app import Web
//- /src/web/sansio/scaffold.py
class Scaffold:
    def route(self, rule):
        return rule
//- /src/web/sansio/app.py
from .scaffold import Scaffold


class App(Scaffold):
    pass
//- /src/web/app.py
from .sansio.app import App


class Web(App):
    def run(self):
        return self.route("/")
//- /tests/test_web.py
from web import Web


def test_route():
    assert Web().run() == "/"
"#,
    );
    assert_has(
        &ix.keys(),
        &["Class web.sansio.app.App", "Method web.sansio.scaffold.Scaffold.route", "Module test_web"],
    );
    assert_has(&ix.calls(), &["CALLS web.app.Web.run -> web.sansio.scaffold.Scaffold.route L6 [self]"]);
}

#[test]
fn method_resolution_order_properties_with_targets_and_cls() {
    let ix = index(
        r#"
//- /pyproject.toml
[project]
name = "pkg"
//- /pkg/__init__.py
//- /pkg/m.py
class A:
    def hello(self):
        return 1


class B:
    def hello(self):
        return 2

    def only_b(self):
        return 3


class C(A, B):
    @classmethod
    def make(cls):
        inst = cls()
        inst.only_b()
        return inst

    @property
    def friend(self) -> A:
        return A()


class D(B, A):
    pass


class Ctx:
    def __enter__(self) -> "Ctx":
        return self

    def go(self):
        pass


def use(c: C, d: D, o: "Outside"):
    c.hello()
    d.hello()
    c.friend.hello()
    with Ctx() as x:
        x.go()
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS pkg.m.C.make -> pkg.m.B.only_b L18 [receiver-type]",
            "CALLS pkg.m.use -> pkg.m.A.hello L39 [receiver-type]",
            "CALLS pkg.m.use -> pkg.m.B.hello L40 [receiver-type]",
            "CALLS pkg.m.use -> pkg.m.A.hello L41 [receiver-type]",
            "CALLS pkg.m.use -> pkg.m.Ctx.go L43 [receiver-type]",
        ],
    );
    assert_has(&ix.edges_of(&["INSTANTIATES"]), &["INSTANTIATES pkg.m.C.make -> pkg.m.C L17 [self]"]);
}
