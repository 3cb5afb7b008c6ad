//! TypeScript/JavaScript resolution: aliases, barrels, tsconfig paths, receivers, JSX, decorators, super.

use crate::{assert_has, assert_none, index};

const WEB: &str = r#"
//- /package.json
{"name": "@acme/web", "version": "1.0.0"}
//- /tsconfig.json
{
  // comments and trailing commas are allowed here
  "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] } },
}
//- /src/net.ts
export class Client {
  connect(): boolean {
    return this.ready();
  }
  ready(): boolean {
    return true;
  }
}
export function connect(): Client {
  return new Client();
}
export class Alpha { run() {} }
export class Beta { run() {} }
export function describe(name: string) { return name; }
//- /src/components/Button.tsx
export function Button() {
  return <button />;
}
//- /src/components/Card.tsx
export const Card = () => <div />;
//- /src/components/index.ts
export { Button } from "./Button";
export * from "./Card";
//- /src/App.tsx
import { connect as dial, Client } from "./net";
import { Button, Card } from "./components";
import { helper } from "@/lib/util";

export function App(items: number[]) {
  const c = new Client();
  c.connect();
  dial();
  items.forEach((x) => helper(x));
  return <Button onClick={helper} />;
}

export function untyped(x) {
  x.run();
}

export const Page = () => <Card />;
//- /src/lib/util.ts
export function helper(x: number) { return x; }
//- /src/base.ts
export class Base {
  constructor() {}
  greet() {}
}
export class Child extends Base {
  constructor() {
    super();
  }
  greet() {
    super.greet();
  }
}
//- /src/di.ts
export function Injectable() {
  return (target: unknown) => target;
}
@Injectable()
export class Service {}
//- /src/app.test.ts
describe("x", () => {});
//- /lib/legacy.js
const { helper } = require("../src/lib/util");
function legacy() {
  return helper(1);
}
module.exports = { legacy };
"#;

#[test]
fn keys_use_the_package_name_and_fold_index() {
    let ix = index(WEB);
    assert_has(
        &ix.keys(),
        &[
            "Module @acme/web/src/App",
            "Module @acme/web/src/components",
            "Class @acme/web/src/net.Client",
            "Method @acme/web/src/net.Client.connect",
            "Function @acme/web/src/App.App",
            "Function @acme/web/lib/legacy.legacy",
        ],
    );
}

#[test]
fn calls_resolve_through_aliases_barrels_paths_and_receivers() {
    let ix = index(WEB);
    assert_has(
        &ix.calls(),
        &[
            "INSTANTIATES @acme/web/src/App.App -> @acme/web/src/net.Client L6 [import]",
            "CALLS @acme/web/src/App.App -> @acme/web/src/net.Client.connect L7 [receiver-type]",
            "CALLS @acme/web/src/App.App -> @acme/web/src/net.connect L8 [import]",
            // tsconfig `paths`, and a call inside an arrow callback belongs to App.
            "CALLS @acme/web/src/App.App -> @acme/web/src/lib/util.helper L9 [import]",
            // JSX through the barrel `components/index.ts` (`export { Button } from`).
            "CALLS @acme/web/src/App.App -> @acme/web/src/components/Button.Button L10 [import]",
            // `export * from "./Card"`.
            "CALLS @acme/web/src/App.Page -> @acme/web/src/components/Card.Card L17 [import]",
            "CALLS @acme/web/src/net.Client.connect -> @acme/web/src/net.Client.ready L3 [self]",
            "CALLS @acme/web/src/base.Child.constructor -> @acme/web/src/base.Base.constructor L7 [super]",
            "CALLS @acme/web/src/base.Child.greet -> @acme/web/src/base.Base.greet L10 [super]",
            // A decorator is a call of the decorator function.
            "CALLS @acme/web/src/di -> @acme/web/src/di.Injectable L4 [scope]",
            // CommonJS `require` with destructuring.
            "CALLS @acme/web/lib/legacy.legacy -> @acme/web/src/lib/util.helper L3 [import]",
        ],
    );
}

#[test]
fn untyped_receivers_and_framework_globals_stay_off_tree_symbols() {
    let ix = index(WEB);
    let calls = ix.calls();
    assert_has(&calls, &["CALLS @acme/web/src/App.untyped -> ?run L14 (method call: receiver type unknown)"]);
    assert_none(&calls, "CALLS @acme/web/src/App.untyped -> @acme/web/src/net.");
    // The test file's `describe` is the framework's, not the tree's `net.describe`.
    assert_has(&calls, &["CALLS @acme/web/src/app.test -> ext::describe L1 [external]"]);
    assert_none(&calls, "CALLS @acme/web/src/app.test -> @acme/web/src/net.describe");
}

#[test]
fn extends_and_function_values_are_edges() {
    let ix = index(WEB);
    assert_has(&ix.edges_of(&["EXTENDS"]), &["EXTENDS @acme/web/src/base.Child -> @acme/web/src/base.Base L5 []"]);
    assert_has(
        &ix.edges_of(&["REFERENCES"]),
        &["REFERENCES @acme/web/src/App.App -> @acme/web/src/lib/util.helper L10 [import]"],
    );
}

/// Calling what a call returned (`identity()(v)`) calls a value whose definition is unknown: its type says
/// only what the value looks like. The call is unresolved with that type in its reason, never an edge to the
/// type (rxjs's `pipeFromArray(fns)(this)` once gave `INSTANTIATES` edges to the interface `UnaryFunction`).
/// Python's plugin records such calls as computed expressions, also without an edge.
#[test]
fn a_call_of_a_call_s_result_binds_to_no_type() {
    let ts = index(
        r#"
//- /package.json
{"name": "pipes", "version": "1.0.0"}
//- /src/types.ts
export interface UnaryFunction<T, R> { (source: T): R; }
export class Box { open(): void {} }
//- /src/pipe.ts
import { UnaryFunction, Box } from './types';

export function identity<T>(): UnaryFunction<T, T> { return (x: T) => x; }
export function boxer(): Box { return new Box(); }
export function run(v: number) {
  identity<number>()(v);
  boxer().open();
}
"#,
    );
    let calls = ts.calls();
    assert_has(
        &calls,
        &[
            "CALLS pipes/src/pipe.run -> pipes/src/types.Box.open L7 [receiver-type]",
            "CALLS pipes/src/pipe.run -> pipes/src/pipe.identity L6 [scope]",
        ],
    );
    assert!(!calls.iter().any(|c| c.contains("-> pipes/src/types.UnaryFunction ")), "{calls:#?}");
    assert!(
        calls.iter().any(|c| c.starts_with("CALLS pipes/src/pipe.run -> ?")
            && c.contains("L6 (call of a value of type `pipes/src/types.UnaryFunction`")),
        "{calls:#?}"
    );

    let py = index(
        r#"
//- /pyproject.toml
[project]
name = "shop"
//- /shop/__init__.py
//- /shop/hooks.py
class Hook:
    def __call__(self, x):
        return x

class Plain:
    pass

def make() -> Hook:
    return Hook()

def plain() -> Plain:
    return Plain()

def run():
    make()(1)
    plain()(2)
"#,
    );
    let calls = py.calls();
    assert_has(
        &calls,
        &[
            "CALLS shop.hooks.run -> ?make() L15 (call of a computed expression)",
            "CALLS shop.hooks.run -> ?plain() L16 (call of a computed expression)",
        ],
    );
    assert!(
        !calls
            .iter()
            .any(|c| c.contains("shop.hooks.run -> shop.hooks.Hook L")
                || c.contains("shop.hooks.run -> shop.hooks.Plain L")),
        "{calls:#?}"
    );
}

#[test]
fn a_local_shadows_a_function_of_its_name() {
    // Untyped parameters, destructured names, loop variables and arrow parameters are the function's own:
    // a call of their name is not the module's function of that name.
    let ix = index(
        r#"
//- /package.json
{"name": "app", "version": "1.0.0"}
//- /src/index.js
export function handler() {}
export function item() {}
export function register(fn) { return fn; }

export function run(items, { handler }) {
  handler();
  for (const item of items) { item(); }
  items.map(item => item());
  register(handler);
}

export function later() {
  handler();
  register(item);
}
export class Sub { unsubscribe() {} }
export function share() {
  const sub = new Sub(() => sub.unsubscribe());
}
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS app/src.run -> ?handler L6 (call of a local value)",
            "CALLS app/src.run -> ?item L7 (call of a local value)",
            "CALLS app/src.run -> ?item L8 (call of a local value)",
            "CALLS app/src.run -> app/src.register L9 [scope]",
            "CALLS app/src.later -> app/src.handler L13 [scope]",
            // A declarator is in scope in its own initialiser: the callback reads the constant.
            "CALLS app/src.share -> app/src.Sub.unsubscribe L18 [receiver-type]",
        ],
    );
    let refs = ix.edges_of(&["REFERENCES"]);
    assert_has(&refs, &["REFERENCES app/src.later -> app/src.item L14 [scope]"]);
    assert!(!refs.iter().any(|r| r.starts_with("REFERENCES app/src.run ->")), "{refs:#?}");
}

#[test]
fn an_import_that_cannot_be_bound_is_an_unresolved_imports_edge_saying_why() {
    let ix = index(
        r#"
//- /package.json
{"name": "web"}
//- /src/net.ts
export function connect() {}
//- /src/app.ts
import { connect, vanished } from "./net";
import { other } from "./absent";
"#,
    );
    let imports: Vec<String> = ix.edges_of(&["IMPORTS"]).into_iter().filter(|e| e.contains("src/app ->")).collect();
    assert!(imports.iter().any(|e| e.starts_with("IMPORTS web/src/app -> web/src/net.connect L1")), "{imports:#?}");
    for name in ["vanished", "other"] {
        assert!(
            imports.iter().any(|e| e.starts_with(&format!("IMPORTS web/src/app -> ?{name} L")) && e.ends_with(')')),
            "{name} is an unresolved import with a reason: {imports:#?}"
        );
    }
}

#[test]
fn a_generic_call_the_grammar_reads_as_comparisons_is_a_site() {
    let ix = index(
        r#"
//- /package.json
{"name": "ky", "version": "1.0.0"}
//- /src/body.ts
export async function parseJsonBody<T>(request: Request): Promise<T> {
  return (await request.json()) as T;
}
//- /src/handler.ts
import { parseJsonBody } from "./body";

export async function handler(request: Request, response: Response) {
  respond(await parseJsonBody<Record<string, unknown>>(request));
  respond(parseJsonBody<Record<string, number>>(request), 1);
  const direct = await parseJsonBody<A, B>(request);
  // Comparisons without a parenthesised right side stay comparisons.
  respond(a < b, c > d);
}

function respond(...values: unknown[]) {}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS ky/src/handler.handler -> ky/src/body.parseJsonBody L4 [import]",
            "CALLS ky/src/handler.handler -> ky/src/body.parseJsonBody L5 [import]",
            "CALLS ky/src/handler.handler -> ky/src/body.parseJsonBody L6 [import]",
        ],
    );
    assert_none(&ix.calls(), "CALLS ky/src/handler.handler -> ?a");
}

/// TypeScript merges an interface and a function of one name (zod's `$constructor`): a call means the
/// function, imported or not; a type position still means either, and stays a tie.
#[test]
fn a_call_of_a_merged_declaration_binds_to_its_value() {
    let ix = index(
        r#"
//- /package.json
{"name": "z"}
//- /src/core.ts
export interface $constructor<T> { name: T }
export function $constructor<T>(name: T): $constructor<T> { return { name }; }
export function local() { return $constructor("a"); }
//- /src/use.ts
import { $constructor } from "./core";
export function make() { return $constructor("x"); }
"#,
    );
    let calls = ix.calls();
    assert!(
        calls.iter().any(|c| c.starts_with("CALLS z/src/use.make -> z/src/core.$constructor") && c.contains(" L2 ")),
        "{calls:#?}"
    );
    assert!(
        calls.iter().any(|c| c.starts_with("CALLS z/src/core.local -> z/src/core.$constructor") && c.contains(" L3 ")),
        "{calls:#?}"
    );
}

/// zod's shape: a namespace import of a barrel that re-exports with `export *` a function merged with an
/// interface, and a const of the same name as an interface, typed by that interface: the call through the
/// namespace means the function, a step of an expression path the const, and its member the interface's.
#[test]
fn merged_declarations_through_namespaces_and_export_star() {
    let ix = index(
        r#"
//- /package.json
{"name": "z"}
//- /src/core/core.ts
export interface $constructor<T> {
  init(inst: T, def: unknown): void;
}
export function $constructor<T>(name: string, init: (inst: T, def: unknown) => void): $constructor<T> {
  return { init };
}
//- /src/core/index.ts
export * from "./core";
//- /src/schemas.ts
import * as core from "./core/index";
export interface ZodType { kind: string }
export const ZodType: core.$constructor<ZodType> = core.$constructor("ZodType", (inst, def) => {});
//- /src/iso.ts
import * as core from "./core/index";
import * as schemas from "./schemas";
export const Iso = core.$constructor("Iso", (inst, def) => {
  schemas.ZodType.init(inst, def);
});
export function kindOf(t: schemas.ZodType) { return t.kind; }
"#,
    );
    // The interface is `$constructor`, the function (declared second) `$constructor#2`.
    assert_has(
        &ix.calls(),
        &[
            "CALLS z/src/iso.Iso -> z/src/core/core.$constructor#2 L3 [import]",
            "CALLS z/src/iso.Iso -> z/src/core/core.$constructor.init L4 [import]",
            "CALLS z/src/schemas.ZodType#2 -> z/src/core/core.$constructor#2 L3 [import]",
        ],
    );
    // An annotation means the interface.
    let refs = ix.edges_of(&["REFERENCES"]);
    assert!(refs.iter().any(|e| e.starts_with("REFERENCES z/src/iso.kindOf -> z/src/schemas.ZodType ")), "{refs:#?}");
}

/// rxjs's shape: a callback's untyped parameters take the types the callee's declared parameter gives
/// them, for a function (`operate((source, subscriber) => …)`) and a class's constructor (`new
/// Observable((subscriber) => …)`, `new Observable(subscriber => …)`).
#[test]
fn callback_parameters_are_typed_by_the_callees_declared_parameter() {
    let ix = index(
        r#"
//- /package.json
{"name": "rx"}
//- /src/Subscriber.ts
export class Subscriber<T> {
  next(value: T): void {}
  complete(): void {}
}
//- /src/Observable.ts
import { Subscriber } from "./Subscriber";
export class Observable<T> {
  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {}
  subscribe(s: Subscriber<T>): void {}
}
export function operate<T, R>(init: (source: Observable<T>, subscriber: Subscriber<R>) => void, label?: T) {}
//- /src/of.ts
import { Observable, operate } from "./Observable";
export function of(value: number) {
  return new Observable<number>((subscriber) => {
    subscriber.next(value);
    subscriber.complete();
  });
}
export function take() {
  return operate((source, subscriber) => {
    source.subscribe(subscriber);
  });
}
export function single() {
  return new Observable<number>(subscriber => subscriber.complete());
}
export function unknown(list: number[]) {
  list.forEach((item) => item.toFixed());
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS rx/src/of.of -> rx/src/Subscriber.Subscriber.next L4 [receiver-type]",
            "CALLS rx/src/of.of -> rx/src/Subscriber.Subscriber.complete L5 [receiver-type]",
            "CALLS rx/src/of.take -> rx/src/Observable.Observable.subscribe L10 [receiver-type]",
            "CALLS rx/src/of.single -> rx/src/Subscriber.Subscriber.complete L14 [receiver-type]",
        ],
    );
}

/// zod's shape: a callback parameter typed by a type parameter of the callee's own takes the type the call
/// binds it to, by a type argument (`make<Str>(…)`) or by the annotation its result meets (`const S:
/// Ctor<Str> = make(…)` with `make<T>(…): Ctor<T>`, where the constant and the interface share a name, and
/// an interface extends one that shares its name with a constant), at the top level too; without either,
/// or with an
/// annotation of another type, it stays unknown.
#[test]
fn a_callbacks_generic_parameter_takes_the_type_the_call_binds() {
    let ix = index(
        r#"
//- /package.json
{"name": "z"}
//- /src/core.ts
export interface Ctor<T, D = unknown> { new (def: D): T; init(inst: T, def: D): void; }
export function make<T, D = unknown>(name: string, init: (inst: T, def: D) => void): Ctor<T, D> {
  return null as any;
}
export interface Other<T> { t: T; }
//- /src/schemas.ts
import * as core from "./core";
export interface S extends Str<number> {}
export const Str: core.Ctor<Str> = core.make("Str", () => {});
export interface Str<N = number> { check(): Str; min(n: N): Str; }
export interface Num { check(): Num; }
export const S: core.Ctor<S> = core.make("S", (inst, def) => {
  inst.check();
});
export const N = core.make<Num>("N", (inst) => inst.check());
export const U = core.make("U", (inst) => inst.check());
export const W: core.Other<Str> = core.make("W", (inst) => inst.min(1)) as any;
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS z/src/schemas.S#2 -> z/src/schemas.Str.check L7 [receiver-type]",
            "CALLS z/src/schemas.N -> z/src/schemas.Num.check L9 [receiver-type]",
        ],
    );
    let unknown = ["CALLS z/src/schemas.U -> ?check L10 ", "CALLS z/src/schemas.W -> ?min L11 "];
    assert!(unknown.iter().all(|u| calls.iter().any(|c| c.starts_with(u))), "{calls:#?}");
    // What an interface extends is the interface, not the constant declared first.
    let extends = ix.edges_of(&["EXTENDS"]);
    assert_has(&extends, &["EXTENDS z/src/schemas.S -> z/src/schemas.Str#2 L2 []"]);
}

/// Hono's shape: a class property holding no function is a `Var` member (`get!: HandlerInterface`), so a
/// call of it binds to the property as the checker does, through a subclass too (and from a variable of a
/// callback outside any function, `describe("…", () => { const app = new Hono(); … })`), and a read of a
/// typed property still takes the property's type.
#[test]
fn class_properties_are_members() {
    let ix = index(
        r#"
//- /package.json
{"name": "h"}
//- /src/base.ts
export interface HandlerInterface { (path: string, handler: () => void): Base; }
export class Logger { log(m: string): void {} }
export class Base {
  get!: HandlerInterface;
  #count = 0;
  logger: Logger = new Logger();
  run() {
    this.logger.log("run");
    return this.#count;
  }
}
//- /src/app.ts
import { Base } from "./base";
export class Hono extends Base {}
export function main() {
  const app = new Hono();
  app.get("/", () => {});
}
//- /src/app.test.ts
import { Hono } from "./app";
describe("app", () => {
  const app = new Hono();
  app.get("/", () => {});
});
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS h/src/app.main -> h/src/base.Base.get L5 [receiver-type]",
            "CALLS h/src/base.Base.run -> h/src/base.Logger.log L8 [receiver-type]",
            "CALLS h/src/app.test -> h/src/base.Base.get L4 [receiver-type]",
        ],
    );
    assert_has(&ix.keys(), &["Var h/src/base.Base.get", "Var h/src/base.Base.#count", "Var h/src/base.Base.logger"]);
}

/// Hono's handlers: a callback passed to a property typed by an interface with call signatures takes the
/// parameter type all of them agree on, through aliases of function types and unions of them (`H =
/// Handler | MiddlewareHandler`), a rest parameter's element type and a type parameter's constraint, and
/// along a chain of registrations (`app.get(…).post("/", (c) => …)`, each signature returning `Base`;
/// `new Hono().get(…)`); a function declared of such a type (`const h: Handler = (c) => …`, returned from
/// a function declared to return one) types its parameters; a
/// function's parameter typed by such an alias types its callback too. Where the slots disagree, the
/// parameter stays unknown.
#[test]
fn handlers_take_the_parameter_types_their_aliases_agree_on() {
    let ix = index(
        r#"
//- /package.json
{"name": "h"}
//- /src/context.ts
export class Context { json(v: unknown): Response { return null as any; } }
export class Other { json(v: unknown): void {} }
//- /src/types.ts
import { Context, Other } from "./context";
export type Next = () => Promise<void>;
export type Handler<E = any> = (c: Context, next: Next) => Response;
export type MiddlewareHandler<E = any> = (c: Context, next: Next) => Promise<void>;
export type H<E = any> = Handler<E> | MiddlewareHandler<E>;
export interface HandlerInterface<E = any> {
  <P extends string, M1 extends H<E> = H<E>>(path: P, mw: M1, handler: H<E>): Base<E>;
  (...handlers: H<E>[]): Base<E>;
}
export class Base<E = any> { get!: HandlerInterface<E>; post!: HandlerInterface<E>; }
export interface Mixed { (a: (c: Context) => void, b: (c: Other) => void): void; }
export function use(handler: H): void {}
//- /src/app.ts
import { HandlerInterface, Mixed, use } from "./types";
export class Hono {
  get!: HandlerInterface;
  mixed!: Mixed;
}
const app = new Hono();
app.get("/", (c) => c.json({}));
app.get("/", async (c, next) => { await next(); }, (c) => c.json(1));
app.mixed((c) => c.json(2), (d) => d.json(3));
use((c) => c.json(4));
app.get("/", (c) => c.json(5)).post("/", (c) => c.json(6)).get("/", (c) => c.json(7));
new Hono().get("/", (c) => c.json(8));
//- /src/mw.ts
import type { Handler, MiddlewareHandler } from "./types";
const onError: Handler = (c, next) => c.json(9);
export const mw = (): MiddlewareHandler => {
  return async function mw(c, next) {
    c.json(10);
  };
};
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS h/src/app -> h/src/context.Context.json L7 [receiver-type]",
            "CALLS h/src/app -> h/src/context.Context.json L8 [receiver-type]",
            "CALLS h/src/app -> h/src/context.Context.json L10 [receiver-type]",
            "CALLS h/src/app -> h/src/context.Context.json L12 [receiver-type]",
        ],
    );
    // A function's parameters typed by the type declared where it stands.
    assert_has(
        &calls,
        &[
            "CALLS h/src/mw.onError -> h/src/context.Context.json L2 [receiver-type]",
            "CALLS h/src/mw.mw -> h/src/context.Context.json L5 [receiver-type]",
        ],
    );
    // A chain of registrations: each call's callee is a member of what the one before returns.
    let l11: Vec<&String> =
        calls.iter().filter(|c| c.starts_with("CALLS h/src/app -> h/src/context.Context.json L11 ")).collect();
    assert_eq!(l11.len(), 3, "{calls:#?}");
    assert_has(&calls, &["CALLS h/src/app -> h/src/types.Base.post L11 [receiver-type]"]);
    assert!(calls.iter().any(|c| c.starts_with("CALLS h/src/app -> ?json L9 ")), "{calls:#?}");
    assert!(!calls.iter().any(|c| c.contains("json L9 [")), "{calls:#?}");
}

/// zod v3's shape: a field typed by a class's type parameter (`_def!: Def` in `ZodType<Output, Def>`), read
/// on a subclass that binds it in its `extends` (`ZodObject extends ZodType<T, ZodObjectDef>`), has the type
/// argument's type; read on the base itself, or bound to the subclass's own type parameter, no type.
#[test]
fn a_field_typed_by_a_type_parameter_takes_the_subclass_binding() {
    let ix = index(
        r#"
//- /package.json
{"name": "z"}
//- /src/types.ts
export interface ZodTypeDef { description?: string; }
export interface ZodObjectDef extends ZodTypeDef { shape(): Shape; }
export class Shape { keys(): string[] { return []; } }
export class ZodType<Output, Def extends ZodTypeDef = ZodTypeDef> {
  readonly _def!: Def;
  describe() { return this._def.shape(); }
}
export class ZodObject<T> extends ZodType<T, ZodObjectDef> {
  get shape() { return this._def.shape(); }
}
export class ZodGeneric<D extends ZodTypeDef> extends ZodType<number, D> {
  run() { return this._def.shape(); }
}
"#,
    );
    let calls = ix.calls();
    assert_has(&calls, &["CALLS z/src/types.ZodObject.shape -> z/src/types.ZodObjectDef.shape L9 [receiver-type]"]);
    for unknown in
        ["CALLS z/src/types.ZodType.describe -> ?shape L6 ", "CALLS z/src/types.ZodGeneric.run -> ?shape L12 "]
    {
        assert!(calls.iter().any(|c| c.starts_with(unknown)), "{unknown} in {calls:#?}");
    }
}

/// `Foo | null` and `Foo | undefined` annotate a `Foo`; a union of two types annotates neither.
#[test]
fn a_type_or_nothing_is_the_type() {
    let ix = index(
        r#"
//- /package.json
{"name": "u"}
//- /src/sub.ts
export class Sub { complete(): void {} }
export class Other { complete(): void {} }
export function f(s: Sub | null, t?: (Sub | undefined), u?: Sub | Other) {
  s!.complete();
  t?.complete();
  u?.complete();
}
"#,
    );
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS u/src/sub.f -> u/src/sub.Sub.complete L4 [receiver-type]",
            "CALLS u/src/sub.f -> u/src/sub.Sub.complete L5 [receiver-type]",
        ],
    );
    assert!(!calls.iter().any(|c| c.contains(" L6 ") && c.contains("-> u/src/sub.")), "{calls:#?}");
}

/// A function held by a `const` inside a function is a local function: its calls bind to it.
#[test]
fn local_arrow_functions_are_functions() {
    let ix = index(
        r#"
//- /package.json
{"name": "l"}
//- /src/op.ts
export function retry(count: number) {
  const subscribeForRetry = () => {
    count--;
  };
  const limit = count;
  subscribeForRetry();
  return limit;
}
"#,
    );
    assert_has(&ix.calls(), &["CALLS l/src/op.retry -> l/src/op.retry.subscribeForRetry L6 [scope]"]);
}

/// `const { source, other: o } = this` binds names typed by the fields they read.
#[test]
fn names_destructured_from_this_have_their_fields_types() {
    let ix = index(
        r#"
//- /package.json
{"name": "d"}
//- /src/sub.ts
export class Sub { complete(): void {} }
export class Holder {
  source: Sub = new Sub();
  other: Sub | null = null;
  close() {
    const { source, other: o } = this;
    source.complete();
    o!.complete();
  }
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS d/src/sub.Holder.close -> d/src/sub.Sub.complete L7 [receiver-type]",
            "CALLS d/src/sub.Holder.close -> d/src/sub.Sub.complete L8 [receiver-type]",
        ],
    );
}

/// rxjs's `Observer<T>`: an interface's property of a function type (`next: (value: T) => void`) is a
/// method of it, which a call on an `Observer` binds to.
#[test]
fn an_interface_property_of_a_function_type_is_a_method() {
    let ix = index(
        r#"
//- /package.json
{"name": "o"}
//- /src/types.ts
export interface Observer<T> {
  next: (value: T) => void;
  closed?: boolean;
}
export function emit(o: Observer<number>) {
  o.next(1);
}
"#,
    );
    assert_has(&ix.calls(), &["CALLS o/src/types.emit -> o/src/types.Observer.next L6 [receiver-type]"]);
}

/// zod's `const { ctx, status } = this._processInputParams(input)`: names destructured from a call whose
/// declared result is an object type take its properties' types.
#[test]
fn names_destructured_from_a_calls_object_result_have_its_property_types() {
    let ix = index(
        r#"
//- /package.json
{"name": "p"}
//- /src/parse.ts
export class ParseStatus { dirty(): void {} }
export function params(): { status: ParseStatus; count: number } {
  return { status: new ParseStatus(), count: 0 };
}
export class ZodType {
  _processInputParams(input: unknown): { status: ParseStatus } {
    return { status: new ParseStatus() };
  }
  _parse(input: unknown) {
    const { status } = this._processInputParams(input);
    status.dirty();
    const { status: other, count } = params();
    other.dirty();
  }
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS p/src/parse.ZodType._parse -> p/src/parse.ParseStatus.dirty L11 [receiver-type]",
            "CALLS p/src/parse.ZodType._parse -> p/src/parse.ParseStatus.dirty L13 [receiver-type]",
        ],
    );
}

/// `const destination = this.destination` takes the field's type.
#[test]
fn a_local_read_from_a_field_has_its_type() {
    let ix = index(
        r#"
//- /package.json
{"name": "f"}
//- /src/sub.ts
export class Sink { next(): void {} }
export class Subscriber {
  protected destination: Sink = new Sink();
  emit() {
    const destination = this.destination;
    destination.next();
  }
}
"#,
    );
    assert_has(&ix.calls(), &["CALLS f/src/sub.Subscriber.emit -> f/src/sub.Sink.next L6 [receiver-type]"]);
}

#[test]
fn an_object_literals_methods_are_symbols_its_variable_calls_reach() {
    let ix = index(
        r#"
//- /package.json
{"name": "w"}
//- /src/agent.js
const requests = {
  get: url => fetch(url),
  post(url, body) {
    return fetch(url, { method: "POST", body });
  },
  limit: 10,
};
export const Tags = {
  getAll: () => requests.get("/tags"),
  save: function (tag) {
    return requests.post("/tags", tag);
  },
};
export function load() {
  return Tags.getAll();
}
let mutable = { run() {} };
function local() {
  const inner = { go() {} };
  inner.go();
}
"#,
    );
    let keys = ix.keys();
    assert_has(
        &keys,
        &[
            "Method w/src/agent.mutable.run",
            "Method w/src/agent.requests.get",
            "Method w/src/agent.requests.post",
            "Method w/src/agent.Tags.save",
        ],
    );
    // A property holding no function, and an object inside a function, give no symbol.
    assert!(!keys.iter().any(|s| s.contains("agent.requests.limit")), "{keys:?}");
    assert!(!keys.iter().any(|s| s.contains(".inner.go")), "{keys:?}");
    assert_has(
        &ix.calls(),
        &[
            "CALLS w/src/agent.Tags.getAll -> w/src/agent.requests.get L9 [receiver-type]",
            "CALLS w/src/agent.Tags.save -> w/src/agent.requests.post L11 [receiver-type]",
            "CALLS w/src/agent.load -> w/src/agent.Tags.getAll L15 [receiver-type]",
        ],
    );
}

#[test]
fn a_package_importing_itself_reaches_the_sources_its_exports_map_names() {
    let ix = index(
        r#"
//- /package.json
{"name": "zed", "types": "./index.d.ts", "main": "./index.js",
 "exports": {".": {"@zed/source": "./src/index.ts", "types": "./index.d.ts", "import": "./index.js"},
             "./v2": {"@zed/source": "./src/v2/index.ts", "types": "./v2/index.d.ts", "import": "./v2/index.js"},
             "./locales/*": {"@zed/source": "./src/locales/*", "import": "./locales/*"}}}
//- /index.d.ts
export declare function parse(s: string): number;
//- /index.js
export function parse(s) { return 1; }
//- /v2/index.js
export function parse2(s) { return 2; }
//- /locales/en.js
export function en() {}
//- /src/index.ts
export function parse(s: string): number { return 1; }
//- /src/v2/index.ts
export function parse2(s: string): number { return 2; }
//- /src/locales/en.ts
export function en(): void {}
//- /src/index.test.ts
import { parse } from "zed";
import { parse2 } from "zed/v2";
import { en } from "zed/locales/en.js";
export function check() {
  parse("1");
  parse2("2");
  en();
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS zed/src/index.test.check -> zed/src.parse L5 [import]",
            "CALLS zed/src/index.test.check -> zed/src/v2.parse2 L6 [import]",
            "CALLS zed/src/index.test.check -> zed/src/locales/en.en L7 [import]",
        ],
    );
}

#[test]
fn a_variable_naming_a_function_returns_what_it_returns() {
    let ix = index(
        r#"
//- /package.json
{"name": "a"}
//- /src/types.ts
export class ZodNumber {
  static create = (params?: object): ZodNumber => new ZodNumber();
  int(): ZodNumber { return this; }
}
const numberType = ZodNumber.create;
const alsoNumber = numberType;
export { numberType as number, alsoNumber };
//- /src/use.ts
import { number, alsoNumber } from "./types";
export function check() {
  number().int();
  alsoNumber().int();
  const n = number();
  n.int();
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS a/src/use.check -> a/src/types.ZodNumber.int L3 [receiver-type]",
            "CALLS a/src/use.check -> a/src/types.ZodNumber.int L4 [receiver-type]",
            "CALLS a/src/use.check -> a/src/types.ZodNumber.int L6 [receiver-type]",
        ],
    );
}

#[test]
fn a_method_returning_this_gives_the_receivers_type() {
    let ix = index(
        r#"
//- /package.json
{"name": "t"}
//- /src/schemas.ts
export interface ZodType { parse(data: unknown): unknown; }
export interface _ZodString extends ZodType { min(n: number): this; }
export interface ZodString extends _ZodString { datetime(): this; email(): ZodString; }
export function string(): ZodString { return undefined as any; }
export class Builder {
  inner: ZodString = string();
  step(): this { return this; }
  done(): void {}
  run() {
    this.step().done();
    this.inner.min(1).datetime();
  }
}
//- /src/use.ts
import { string } from "./schemas";
export function check() {
  string().min(5).datetime().parse("x");
  const s = string();
  s.min(1).parse("y");
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS t/src/use.check -> t/src/schemas.ZodString.datetime L3 [receiver-type]",
            "CALLS t/src/use.check -> t/src/schemas.ZodType.parse L3 [receiver-type]",
            "CALLS t/src/use.check -> t/src/schemas.ZodType.parse L5 [receiver-type]",
            "CALLS t/src/schemas.Builder.run -> t/src/schemas.Builder.done L10 [receiver-type]",
            "CALLS t/src/schemas.Builder.run -> t/src/schemas.ZodString.datetime L11 [receiver-type]",
        ],
    );
}

#[test]
fn awaiting_a_promise_gives_what_it_holds() {
    let ix = index(
        r#"
//- /package.json
{"name": "p"}
//- /src/a.ts
export class Res { json(): number { return 1; } }
export async function load(): Promise<Res> { return new Res(); }
export async function main() {
  const r = await load();
  r.json();
  const pending = load();
  pending.json();
}
"#,
    );
    let calls = ix.calls();
    assert_has(&calls, &["CALLS p/src/a.main -> p/src/a.Res.json L5 [receiver-type]"]);
    // The promise itself is no `Res`.
    assert!(!calls.iter().any(|c| c.starts_with("CALLS p/src/a.main -> p/src/a.Res.json L7")), "{calls:?}");
}

#[test]
fn a_tsconfig_takes_the_path_aliases_of_the_configuration_it_extends() {
    let ix = index(
        r#"
//- /package.json
{"name": "x"}
//- /tsconfig.base.json
{
  // comments and trailing commas, as tsconfig files have them
  "compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["lib/*"],},},
}
//- /app/tsconfig.json
{"extends": "../tsconfig.base.json", "compilerOptions": {"strict": true}}
//- /lib/util.ts
export function helper(): number { return 1; }
//- /app/main.ts
import { helper } from "@lib/util";
export function main() {
  helper();
}
"#,
    );
    assert_has(&ix.calls(), &["CALLS x/app/main.main -> x/lib/util.helper L3 [import]"]);
}
