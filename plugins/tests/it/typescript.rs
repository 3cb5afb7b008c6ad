//! typescript plugin tests: inline sources in, a compact rendering of the facts asked for out.

use drsg_parsers::{FileFacts, Language, Qualifier, TypeHint, parse_file};
use drsg_plugins::typescript::TypeScriptPlugin;

fn parse(path: &str, src: &str) -> FileFacts {
    let lang = TypeScriptPlugin.lang_for(path).expect("a path the plugin takes");
    parse_file(&TypeScriptPlugin, lang, path, src)
}

fn scope_name(facts: &FileFacts, scope: Option<u32>) -> String {
    scope.map_or_else(|| "-".to_owned(), |i| facts.defs[i as usize].name.clone())
}

fn render_qualifier(q: &Qualifier) -> String {
    match q {
        Qualifier::Plain => String::new(),
        Qualifier::SelfValue => " this".to_owned(),
        Qualifier::Super => " super".to_owned(),
        Qualifier::Expr { call: Some(call), .. } => format!(" expr(call={})", call.join(".")),
        Qualifier::Expr { call: None, .. } => " expr".to_owned(),
        Qualifier::Tokens => " tokens".to_owned(),
    }
}

/// One line per fact of the sections named in `what` (space-separated):
/// `defs`, `generics`, `sigs`, `docs`, `refs`, `texts`, `imports`, `exports`, `bindings`, `inherits`, `errors`, `moddoc`.
fn render(facts: &FileFacts, what: &str) -> String {
    let mut out = Vec::new();
    for section in what.split_whitespace() {
        match section {
            "defs" => {
                for d in &facts.defs {
                    let mut line = format!(
                        "{} {} L{}-{} {} parent={}",
                        d.kind.label(),
                        d.name,
                        d.line,
                        d.end_line,
                        d.visibility.as_str(),
                        scope_name(facts, d.parent)
                    );
                    if let Some(ret) = &d.returns {
                        line += &format!(" ret={}", ret.join("."));
                    }
                    if d.is_test {
                        line += " test";
                    }
                    out.push(line);
                }
            }
            "generics" => {
                let path = |p: &Option<Vec<String>>| p.as_ref().map_or("?".to_owned(), |p| p.join("."));
                for d in facts.defs.iter().filter(|d| !d.generics.is_empty() || !d.callbacks.is_empty()) {
                    let callbacks: Vec<String> = d
                        .callbacks
                        .iter()
                        .map(|(i, types)| format!("{i}:({})", types.iter().map(path).collect::<Vec<_>>().join(", ")))
                        .collect();
                    let args: Vec<&str> = d.returns_args.iter().map(|a| a.as_deref().unwrap_or("?")).collect();
                    out.push(format!(
                        "{} <{}> callbacks={} returns_args=<{}>",
                        d.name,
                        d.generics.join(", "),
                        callbacks.join(" "),
                        args.join(", ")
                    ));
                }
            }
            "sigs" => out.extend(facts.defs.iter().map(|d| format!("{}: {}", d.name, d.signature))),
            "docs" => out.extend(facts.defs.iter().map(|d| format!("{}: {}", d.name, d.doc.as_deref().unwrap_or("-")))),
            "refs" => {
                for r in &facts.refs {
                    out.push(format!(
                        "{:?} {} L{} scope={}{}",
                        r.kind,
                        r.path.join("."),
                        r.line,
                        scope_name(facts, r.scope),
                        render_qualifier(&r.qualifier)
                    ));
                }
            }
            "texts" => out.extend(facts.refs.iter().map(|r| format!("{:?} {}", r.kind, r.text))),
            "imports" => {
                for i in &facts.imports {
                    let mut line = format!(
                        "{} name={} alias={} L{} scope={}",
                        i.source,
                        i.name.as_deref().unwrap_or("-"),
                        i.alias,
                        i.line,
                        scope_name(facts, i.scope)
                    );
                    if i.glob {
                        line += " glob";
                    }
                    if i.reexport {
                        line += " reexport";
                    }
                    out.push(line);
                }
            }
            "exports" => out.extend(facts.exports.iter().map(|e| format!("{} -> {} L{}", e.local, e.exported, e.line))),
            "bindings" => {
                for b in &facts.bindings {
                    let hint = match &b.hint {
                        None => "Untyped".to_owned(),
                        Some(TypeHint::Annotated(p)) => format!("Annotated({})", p.join(".")),
                        Some(TypeHint::Constructed(p)) => format!("Constructed({})", p.join(".")),
                        Some(TypeHint::CallResult(p)) => format!("CallResult({})", p.join(".")),
                        Some(TypeHint::Callback { callee, then, new, arg, param, bound }) => {
                            let path = |p: &Option<Vec<String>>| p.as_ref().map_or("?".to_owned(), |p| p.join("."));
                            let list = |l: &[Option<Vec<String>>]| l.iter().map(path).collect::<Vec<_>>().join(", ");
                            let explicit = if bound.explicit.is_empty() {
                                String::new()
                            } else {
                                format!(" <{}>", list(&bound.explicit))
                            };
                            let expected = match &bound.expected {
                                Some((head, args)) => format!(" : {}<{}>", head.join("."), list(args)),
                                None => String::new(),
                            };
                            format!(
                                "Callback({}{}{} arg {arg} param {param}{explicit}{expected})",
                                if *new { "new " } else { "" },
                                callee.join("."),
                                then.iter().map(|t| format!("(…).{t}")).collect::<String>()
                            )
                        }
                        Some(TypeHint::Destructured { call, field }) => {
                            format!("Destructured({}.{field})", call.join("."))
                        }
                        Some(TypeHint::Field(p)) => format!("Field({})", p.join(".")),
                        Some(TypeHint::Alias(p)) => format!("Alias({})", p.join(".")),
                        Some(TypeHint::Contextual { ty, param }) => {
                            format!("Contextual({} param {param})", ty.join("."))
                        }
                        Some(TypeHint::CallChain(callee, then)) => {
                            format!(
                                "CallChain({}{})",
                                callee.join("."),
                                then.iter().map(|t| format!("(…).{t}")).collect::<String>()
                            )
                        }
                    };
                    out.push(format!("{} scope={} {} L{}", b.name, scope_name(facts, b.scope), hint, b.line));
                }
            }
            "inherits" => {
                for i in &facts.inherits {
                    out.push(format!(
                        "{} (def {}) {:?} {} L{}",
                        i.child.join("."),
                        scope_name(facts, i.child_def),
                        i.kind,
                        i.target.join("."),
                        i.line
                    ));
                }
            }
            "errors" => out.push(format!("parse_errors={}", facts.parse_errors)),
            "moddoc" => out.push(format!("module_doc={}", facts.module_doc.as_deref().unwrap_or("-"))),
            other => panic!("unknown section {other}"),
        }
    }
    out.join("\n")
}

/// Parse `src` as the file `path` and compare the sections `what` with `expected` (indentation ignored).
#[track_caller]
fn check(path: &str, src: &str, what: &str, expected: &str) {
    let facts = parse(path, src);
    let expected: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let actual = render(&facts, what);
    assert_eq!(actual, expected.join("\n"), "facts of {path}, actual:\n{actual}\n");
}

#[test]
fn lang_for_extensions() {
    let langs: Vec<String> =
        ["a.ts", "a.d.ts", "a.mts", "a.cts", "a.tsx", "a.js", "a.jsx", "a.mjs", "a.cjs", "a.py", "ts"]
            .iter()
            .map(|p| format!("{p}={}", TypeScriptPlugin.lang_for(p).map_or("-", |l| l.name())))
            .collect();
    assert_eq!(
        langs.join(" "),
        "a.ts=typescript a.d.ts=typescript a.mts=typescript a.cts=typescript a.tsx=tsx a.js=javascript \
         a.jsx=javascript a.mjs=javascript a.cjs=javascript a.py=- ts=-"
    );
}

#[test]
fn functions_classes_and_members() {
    check(
        "src/shapes.ts",
        r#"function area(s: Shape): number {
  const local = 1;
  function inner() {}
  return local;
}
function* ids() {}
class Circle {
  radius = 1;
  handle = () => {};
  onTick = function () {};
  constructor(r: number) {}
  get size() { return 1; }
  set size(v: number) {}
  #secret() {}
  static create() {}
}
abstract class Base {
  abstract draw(): void;
}
const helpers = { method() {}, arrow: () => 1 };
"#,
        "defs",
        "
        Function area L1-5 private parent=-
        Function inner L3-3 private parent=area
        Function ids L6-6 private parent=-
        Class Circle L7-16 private parent=-
        Var radius L8-8 public parent=Circle
        Method handle L9-9 public parent=Circle
        Method onTick L10-10 public parent=Circle
        Method constructor L11-11 public parent=Circle
        Method size L12-12 public parent=Circle
        Method size L13-13 public parent=Circle
        Method #secret L14-14 private parent=Circle
        Method create L15-15 public parent=Circle
        Class Base L17-19 private parent=-
        Method draw L18-18 public parent=Base
        Const helpers L20-20 private parent=-
        Method method L20-20 private parent=helpers
        Method arrow L20-20 private parent=helpers
        ",
    );
}

#[test]
fn members_count_only_in_class_and_interface_bodies() {
    // The walk hands the member's parent: a type literal's members, and an object's a function makes, define nothing, a class
    // expression's do, and a property is a binding only in a class body.
    check(
        "src/members.ts",
        r#"type Runner = { run(): void; speed: number };
function make() {
  return { start() {}, stop: 1 };
}
const Kind = class { tick() {} label = "k"; };
interface Clock { now(): number }
"#,
        "defs",
        "
        TypeAlias Runner L1-1 private parent=-
        Function make L2-4 private parent=-
        Const Kind L5-5 private parent=-
        Method tick L5-5 public parent=Kind
        Var label L5-5 public parent=Kind
        Interface Clock L6-6 private parent=-
        Method now L6-6 public parent=Clock
        ",
    );
}

#[test]
fn interfaces_types_enums_namespaces() {
    check(
        "src/model.ts",
        r#"export interface Repo<T> {
  get(id: string): T;
  save(item: T): void;
  size: number;
}
type Id = string | number;
export enum Color { Red, Green }
namespace Geometry {
  export const ORIGIN = 0;
  let scale = 1;
  export function dist() {}
  namespace Inner { var depth = 2; }
}
module Legacy { export class Old {} }
declare module "ext" { function hook(): void; }
"#,
        "defs",
        "
        Interface Repo L1-5 public parent=-
        Method get L2-2 public parent=Repo
        Method save L3-3 public parent=Repo
        TypeAlias Id L6-6 private parent=-
        Enum Color L7-7 public parent=-
        Module Geometry L8-13 private parent=-
        Const ORIGIN L9-9 public parent=Geometry
        Var scale L10-10 private parent=Geometry
        Function dist L11-11 public parent=Geometry
        Module Inner L12-12 private parent=Geometry
        Var depth L12-12 private parent=Inner
        Module Legacy L14-14 private parent=-
        Class Old L14-14 public parent=Legacy
        Module ext L15-15 private parent=-
        Function hook L15-15 private parent=ext
        ",
    );
}

#[test]
fn module_level_variables() {
    check(
        "src/config.ts",
        r#"export const handler = async (req: Req): Promise<Res> => { const inner = () => 1; return make(); };
const legacy = function (a) { return a; };
export const MAX = 10, build = () => MAX;
let counter = 0;
var flag = true;
const { a, b } = pair;
function f() { const notADef = 1; let alsoNot = 2; }
"#,
        "defs sigs",
        "
        Function handler L1-1 public parent=- ret=Promise
        Function inner L1-1 private parent=handler
        Function legacy L2-2 private parent=-
        Const MAX L3-3 public parent=-
        Function build L3-3 public parent=-
        Var counter L4-4 private parent=-
        Var flag L5-5 private parent=-
        Function f L7-7 private parent=-
        handler: export const handler = async (req: Req): Promise<Res> =>
        inner: const inner = () =>
        legacy: const legacy = function (a)
        MAX: export const MAX = 10
        build: export const build = () =>
        counter: let counter = 0
        flag: var flag = true
        f: function f()
        ",
    );
}

#[test]
fn module_level_variables_under_declare_and_in_namespaces() {
    // Told from the declaration's ancestors: `declare`, `export declare`, a namespace's or an ambient
    // module's body (directly or exported) are module level; a namespace's `declare` and a block are not.
    check(
        "src/ambient.ts",
        r#"declare const env: string;
export declare const version: string;
namespace Util {
  const hidden = 1;
  export const shown = 2;
  declare const ambient: number;
}
declare module "ext" {
  export const fromModule: number;
}
if (ready) { const blockLocal = 1; }
"#,
        "defs",
        "
        Const env L1-1 private parent=-
        Const version L2-2 public parent=-
        Module Util L3-7 private parent=-
        Const hidden L4-4 private parent=Util
        Const shown L5-5 public parent=Util
        Module ext L8-10 private parent=-
        Const fromModule L9-9 public parent=ext
        ",
    );
}

#[test]
fn visibility_rules() {
    check(
        "src/vis.ts",
        r#"export function pub() {}
function priv() {}
export default class Main {
  private a() {}
  protected b() {}
  public c() {}
  d() {}
  private handler = () => {};
}
export abstract class Shape { protected abstract area(): number; }
declare function ambient(): void;
export declare function exportedAmbient(): void;
"#,
        "defs",
        "
        Function pub L1-1 public parent=-
        Function priv L2-2 private parent=-
        Class Main L3-9 public parent=-
        Method a L4-4 private parent=Main
        Method b L5-5 private parent=Main
        Method c L6-6 public parent=Main
        Method d L7-7 public parent=Main
        Method handler L8-8 private parent=Main
        Class Shape L10-10 public parent=-
        Method area L10-10 private parent=Shape
        Function ambient L11-11 private parent=-
        Function exportedAmbient L12-12 public parent=-
        ",
    );
}

#[test]
fn jsdoc_and_module_doc() {
    check(
        "src/doc.ts",
        r#"/**
 * @file Helpers for docs.
 */

/** Adds numbers. */
export function add(a: number, b: number): number { return a + b; }

/**
 * A service.
 */
@Injectable()
export class Service {
  /** Runs it. */
  @Get()
  run() {}
  // not a doc
  other() {}
}
/* plain block */
const x = 1;
/** Arrow doc. */
export const arrow = () => 1;
"#,
        "docs moddoc",
        "
        add: Adds numbers.
        Service: A service.
        run: Runs it.
        other: -
        x: -
        arrow: Arrow doc.
        module_doc=@file Helpers for docs.
        ",
    );
}

#[test]
fn leading_doc_of_a_declaration_is_not_the_module_doc() {
    check("src/a.ts", "/** Only f. */\nfunction f() {}\n", "docs moddoc", "f: Only f.\nmodule_doc=-");
    check("src/b.ts", "/** About this file. */\nimport x from \"x\";\n", "moddoc", "module_doc=About this file.");
}

#[test]
fn signatures_stop_at_the_body() {
    check(
        "src/sig.ts",
        r#"export async function load<T>(
  url: string,
  opts?: Options,
): Promise<T> {
  return fetch(url);
}
@Component({ selector: "x" })
export class Widget<T> extends Base<T> implements OnInit {
  @Input() private async save(item: T): Promise<void> {}
  handle = (e: Event): void => {};
}
export interface Props extends Base { a: string }
export type Pair<A, B> = [A, B];
enum Mode { On, Off }
namespace NS {}
function over(a: string): void;
function over(a: any) {}
"#,
        "sigs",
        "
        load: export async function load<T>( url: string, opts?: Options, ): Promise<T>
        Widget: export class Widget<T> extends Base<T> implements OnInit
        save: private async save(item: T): Promise<void>
        handle: handle = (e: Event): void =>
        Props: export interface Props extends Base
        Pair: export type Pair<A, B> = [A, B]
        Mode: enum Mode
        NS: namespace NS
        over: function over(a: any)
        ",
    );
}

#[test]
fn overloads_keep_one_definition() {
    check(
        "src/over.ts",
        r#"export function parse(a: string): Doc;
export function parse(a: Buffer): Doc;
export function parse(a: any): Doc { return a; }
declare function only(a: string): void;
declare function only(a: number): void;
class K {
  m(a: string): void;
  m(a: any) {}
}
interface I { f(): void; f(a: number): void; }
"#,
        "defs",
        "
        Function parse L3-3 public parent=- ret=Doc
        Function only L4-4 private parent=-
        Class K L6-9 private parent=-
        Method m L8-8 public parent=K
        Interface I L10-10 private parent=-
        Method f L10-10 public parent=I
        ",
    );
}

#[test]
fn return_types() {
    check(
        "src/ret.ts",
        r#"function a(): Client {}
function b(): net.Client {}
function c(): Promise<Client> {}
function d(): string {}
function e(): Client[] {}
function f(): Client | null {}
function g() {}
const h = (): Map<string, Client> => new Map();
"#,
        "defs",
        "
        Function a L1-1 private parent=- ret=Client
        Function b L2-2 private parent=- ret=net.Client
        Function c L3-3 private parent=- ret=Promise
        Function d L4-4 private parent=-
        Function e L5-5 private parent=-
        Function f L6-6 private parent=- ret=Client
        Function g L7-7 private parent=-
        Function h L8-8 private parent=- ret=Map
        ",
    );
}

#[test]
fn test_files_by_path() {
    let src = "export function helper() {}\n";
    for (path, test) in [
        ("src/a.test.ts", true),
        ("src/a.spec.tsx", true),
        ("src/__tests__/a.ts", true),
        ("tests/a.ts", true),
        ("pkg/test/a.js", true),
        ("src/testing.ts", false),
        ("src/contest/a.ts", false),
        ("src/a.ts", false),
    ] {
        let facts = parse(path, src);
        assert_eq!(facts.defs[0].is_test, test, "{path}");
    }
}

#[test]
fn test_framework_calls_by_name_only() {
    // `it.only(…)` is a test block; a call of another name, or of a test function's name on another
    // object, is not.
    check(
        "src/only.ts",
        r#"it.only("x", () => { function a() {} });
describer(() => { function b() {} });
obj.describe("y", () => { function c() {} });
"#,
        "defs",
        "
        Function a L1-1 private parent=- test
        Function b L2-2 private parent=-
        Function c L3-3 private parent=-
        ",
    );
}

#[test]
fn describe_it_callbacks() {
    check(
        "src/math.ts",
        r#"import { add } from "./math";
function shared() {}
describe("math", () => {
  function fixture() { return add(1, 2); }
  beforeEach(() => { setup(); });
  it("adds", () => {
    helper();
    class Local {}
  });
  test.each([1, 2])("n %d", (n) => { expect(n).toBe(n); });
});
"#,
        "defs refs",
        "
        Function shared L2-2 private parent=-
        Function fixture L4-4 private parent=- test
        Class Local L8-8 private parent=- test
        Call describe L3 scope=-
        Call add L4 scope=fixture
        Call beforeEach L5 scope=-
        Call setup L5 scope=-
        Call it L6 scope=-
        Call helper L7 scope=-
        Call  L10 scope=- expr(call=test.each)
        Call test.each L10 scope=-
        Call toBe L10 scope=- expr(call=expect)
        Call expect L10 scope=-
        Value n L10 scope=-
        Value n L10 scope=-
        ",
    );
}

#[test]
fn commonjs_exports() {
    check(
        "lib/index.js",
        r#"const fs = require("fs");
const { join, resolve: res } = require("path");
const read = require("./io").read;
/** Reads. */
exports.load = function (p) { return fs.readFileSync(join(p)); };
module.exports.save = (p) => res(p);
exports.alias = helper;
exports.version = "1.0";
module.exports = { load, other: helper };
"#,
        "defs docs imports exports",
        "
        Function load L5-5 public parent=-
        Function save L6-6 public parent=-
        load: Reads.
        save: -
        fs name=- alias=fs L1 scope=-
        path name=join alias=join L2 scope=-
        path name=resolve alias=res L2 scope=-
        ./io name=read alias=read L3 scope=-
        load -> load L5
        save -> save L6
        helper -> alias L7
        load -> load L9
        helper -> other L9
        ",
    );
}

#[test]
fn require_lookalikes_are_not_imports() {
    // An import needs `require` itself called with one string, bound by a declarator whose value is the call
    // or one plain member of it; anything else is an ordinary call.
    check(
        "r.js",
        r#"const a = require(name);
const b = require("m", "n");
const c = load("m");
const d = require("m")();
const e = require("m")[key];
const f = require("m").g.h;
const [i] = require("m");
const j = obj.require("m");
const k = require(`m`);
const l = require("real");
"#,
        "imports",
        "
        real name=- alias=l L10 scope=-
        ",
    );
}

#[test]
fn commonjs_lookalikes_are_not_exports() {
    // Only `exports.x`, `module.exports.x` and `module.exports` themselves are exports; deeper or
    // computed targets and other objects' `exports` are plain assignments.
    check(
        "c.js",
        r#"exports.a.b = one;
exports[name] = two;
module["exports"].c = three;
this.exports.d = four;
module.exports.inner.e = five;
obj.exports = six;
module.other = seven;
exports.real = helper;
module.exports.also = helper;
"#,
        "exports",
        "
        helper -> real L8
        helper -> also L9
        ",
    );
}

#[test]
fn commonjs_default_exports() {
    check("a.js", "module.exports = Client;\n", "defs exports", "Client -> default L1");
    check(
        "b.js",
        "module.exports = function connect(url) { return open(url); };\n",
        "defs sigs exports refs",
        "
        Function connect L1-1 public parent=-
        connect: module.exports = function connect(url)
        connect -> default L1
        Call open L1 scope=connect
        Value url L1 scope=connect
        ",
    );
    check(
        "c.cjs",
        "module.exports = class Store extends Base { get() {} };\nmodule.exports = function () {};\n",
        "defs exports inherits",
        "
        Class Store L1-1 public parent=-
        Method get L1-1 public parent=Store
        Store -> default L1
        Store (def Store) Extends Base L1
        ",
    );
}

#[test]
fn es_exports_without_declarations() {
    check(
        "src/index.ts",
        r#"const a = 1, b = 2;
export { a, b as c };
export default a;
export default function main() {}
export default class App {}
export default () => {};
"#,
        "exports",
        "
        a -> a L2
        b -> c L2
        a -> default L3
        main -> default L4
        App -> default L5
        ",
    );
    check("src/legacy.ts", "class Api {}\nexport = Api;\n", "exports", "Api -> default L2");
}

#[test]
fn call_references() {
    check(
        "src/calls.ts",
        r#"class Service extends Base {
  constructor() { super(1); }
  run() {
    helper();
    a.b.c();
    this.x();
    this.a.b();
    super.start();
    make().run();
    new Client().connect();
    a[0].f();
    (x as T).f();
    a?.b();
    this.#hidden();
    fns[0]();
    client
      .connect();
  }
}
"#,
        "refs",
        "
        Call constructor L2 scope=constructor super
        Call helper L4 scope=run
        Call a.b.c L5 scope=run
        Call x L6 scope=run this
        Call a.b L7 scope=run this
        Call start L8 scope=run super
        Call run L9 scope=run expr(call=make)
        Call make L9 scope=run
        Call connect L10 scope=run expr(call=Client)
        Instantiate Client L10 scope=run
        Call f L11 scope=run expr
        Call f L12 scope=run expr
        Call a.b L13 scope=run
        Call #hidden L14 scope=run this
        Call  L15 scope=run expr
        Call client.connect L17 scope=run
        ",
    );
}

#[test]
fn call_texts_are_callees() {
    check(
        "src/t.ts",
        "this.items.push(1);\nnew ns.Thing(2);\nrequire(\"x\");\nimport(\"./lazy\").then(use);\n",
        "texts",
        "
        Call this.items.push
        Instantiate ns.Thing
        Call import(\"./lazy\").then
        Call import
        Value use
        ",
    );
}

#[test]
fn require_is_an_import_and_dynamic_import_a_call() {
    check(
        "src/r.js",
        "const x = require(\"x\");\nrequire(\"side\");\nfunction lazy() { const y = require(\"y\"); return import(\"z\"); }\n",
        "defs refs imports",
        "
        Function lazy L3-3 private parent=-
        Call import L3 scope=lazy
        x name=- alias=x L1 scope=-
        y name=- alias=y L3 scope=lazy
        ",
    );
}

#[test]
fn new_expressions() {
    check(
        "src/n.ts",
        "const a = new Client();\nconst b = new net.Client(opts);\nnew Thing;\n",
        "refs",
        "
        Instantiate Client L1 scope=a
        Instantiate net.Client L2 scope=b
        Value opts L2 scope=b
        Instantiate Thing L3 scope=-
        ",
    );
}

#[test]
fn decorators_are_single_references() {
    check(
        "src/d.ts",
        r#"@Injectable()
export class Api {
  @Input() name: string;
  @foo.bar
  @Get("/x")
  list(@Param("id") id: string) {}
  @HostListener("click")
  onClick = () => {};
}
@Component({ selector: make() })
class View {}
"#,
        "defs refs",
        "
        Class Api L2-9 public parent=-
        Var name L3-3 public parent=Api
        Method list L6-6 public parent=Api
        Method onClick L8-8 public parent=Api
        Class View L11-11 private parent=-
        Decorator Injectable L1 scope=-
        Decorator Input L3 scope=Api
        Decorator foo.bar L4 scope=Api
        Decorator Get L5 scope=Api
        Decorator Param L6 scope=list
        Decorator HostListener L7 scope=Api
        Decorator Component L10 scope=-
        Call make L10 scope=-
        ",
    );
}

#[test]
fn jsx_elements() {
    check(
        "src/view.jsx",
        r#"function Page() {
  return (
    <Layout title="x">
      <div><Header /></div>
      <ui.Button onClick={handle} onHover={this.hover} data={props.data} n={1} />
      <>{items}</>
    </Layout>
  );
}
"#,
        "refs",
        "
        Jsx Layout L3 scope=Page
        Jsx Header L4 scope=Page
        Jsx ui.Button L5 scope=Page
        Value handle L5 scope=Page
        Value hover L5 scope=Page this
        Value props.data L5 scope=Page
        ",
    );
}

#[test]
fn jsx_in_javascript_and_type_only_specifiers() {
    check("src/a.js", "const el = <Foo bar={baz} />;\n", "refs", "Jsx Foo L1 scope=el\nValue baz L1 scope=el");
    check(
        "src/b.ts",
        "import { type A, B } from \"m\";\n",
        "imports",
        "m name=A alias=A L1 scope=-\nm name=B alias=B L1 scope=-",
    );
}

#[test]
fn tsx_component_in_arrow_function() {
    check(
        "src/App.tsx",
        "import { Button } from \"./Button\";\nexport const App = () => <Button onClick={go} />;\n",
        "defs refs imports",
        "
        Function App L2-2 public parent=-
        Jsx Button L2 scope=App
        Value go L2 scope=App
        ./Button name=Button alias=Button L1 scope=-
        ",
    );
}

#[test]
fn value_references() {
    check(
        "src/v.ts",
        r#"function setup(app: App) {
  arr.map(format);
  app.get("/", handlers.index);
  emitter.on("x", this.onX);
  run(1, "s", () => 2, make());
  window.onload = init;
  exports.x = notAValueRef;
}
"#,
        "refs",
        "
        Type App L1 scope=setup
        Call arr.map L2 scope=setup
        Value format L2 scope=setup
        Call app.get L3 scope=setup
        Value handlers.index L3 scope=setup
        Call emitter.on L4 scope=setup
        Value onX L4 scope=setup this
        Call run L5 scope=setup
        Call make L5 scope=setup
        Value init L6 scope=setup
        ",
    );
}

#[test]
fn type_references() {
    check(
        "src/types.ts",
        r#"class Repo<T> implements Store {
  private cache: Map<string, Entry>;
  ids: number[];
  find(id: Id, opts?: ns.Options): Promise<T | Missing> { return x; }
}
interface Shape { area: Area; draw(ctx: Ctx): void }
function f<K>(key: K, cb: (e: Event) => Result, n: string, u: undefined): void {
  const local: Local = get();
}
type Alias = NotARef;
"#,
        "refs",
        "
        Type Map L2 scope=cache
        Type Entry L2 scope=cache
        Type Id L4 scope=find
        Type ns.Options L4 scope=find
        Type Promise L4 scope=find
        Type Missing L4 scope=find
        Type Area L6 scope=Shape
        Type Ctx L6 scope=draw
        Type Event L7 scope=f
        Type Result L7 scope=f
        Type Local L8 scope=f
        Call get L8 scope=f
        ",
    );
}

#[test]
fn es_imports() {
    check(
        "src/imports.ts",
        r#"import React from "react";
import { a, b as c } from "./ab";
import * as ns from "../ns";
import Def, { named } from 'mixed';
import Both, * as all from "both";
import type { T, U as V } from "./types";
import fs = require("fs");
import "./side-effect";
function later() { const lazy = require("lazy"); }
"#,
        "imports",
        "
        react name=default alias=React L1 scope=-
        ./ab name=a alias=a L2 scope=-
        ./ab name=b alias=c L2 scope=-
        ../ns name=- alias=ns L3 scope=-
        mixed name=default alias=Def L4 scope=-
        mixed name=named alias=named L4 scope=-
        both name=default alias=Both L5 scope=-
        both name=- alias=all L5 scope=-
        ./types name=T alias=T L6 scope=-
        ./types name=U alias=V L6 scope=-
        fs name=- alias=fs L7 scope=-
        lazy name=- alias=lazy L9 scope=later
        ",
    );
}

#[test]
fn re_exports() {
    check(
        "src/index.ts",
        r#"export * from "./all";
export * as utils from "./utils";
export { a, b as c } from "./ab";
export { default } from "./main";
export { default as Widget } from "./widget";
export type { Props } from "./props";
"#,
        "imports exports",
        "
        ./all name=- alias= L1 scope=- glob reexport
        ./utils name=- alias=utils L2 scope=- reexport
        ./ab name=a alias=a L3 scope=- reexport
        ./ab name=b alias=c L3 scope=- reexport
        ./main name=default alias=default L4 scope=- reexport
        ./widget name=default alias=Widget L5 scope=- reexport
        ./props name=Props alias=Props L6 scope=- reexport
        ",
    );
}

#[test]
fn a_function_binds_its_untyped_names() {
    // Every name a function binds shadows the name's outer meaning there, so each is a binding (with no
    // type); at the top level they bind nothing here (top-level variables are definitions).
    check(
        "src/c.js",
        r#"const top = compute();
for (const outer of list) {}
function run(plain, { a, b: renamed, c = 1, ...others }, [first, , second] = [], ...rest) {
  const { deep: { inner } } = load();
  let later;
  for (const item of items) {}
  for (key in map) {}
  items.map(x => x.id);
  items.forEach((y, index) => y);
  try {} catch (err) {}
}
"#,
        "bindings",
        "
        top scope=- CallResult(compute) L1
        plain scope=run Untyped L3
        a scope=run Untyped L3
        renamed scope=run Untyped L3
        c scope=run Untyped L3
        others scope=run Untyped L3
        first scope=run Untyped L3
        second scope=run Untyped L3
        rest scope=run Untyped L3
        inner scope=run Untyped L4
        later scope=run Untyped L5
        item scope=run Untyped L6
        x scope=run Callback(items.map arg 0 param 0) L8
        y scope=run Callback(items.forEach arg 0 param 0) L9
        index scope=run Callback(items.forEach arg 0 param 1) L9
        err scope=run Untyped L10
        ",
    );
}

/// A function's own type parameters, the callbacks typed by them, the return type's arguments naming them;
/// at a call, the type arguments and the annotation its result meets; outside any function a callback's
/// parameters bind in the definition around (within the callback's lines). A class's type parameter is bound by
/// nothing a call of its method says, so it is left out.
#[test]
fn generic_callbacks_and_the_types_a_call_binds() {
    check(
        "src/g.ts",
        r#"export function make<T extends A, D = X>(name: string, init: (inst: T, def: D) => void): core.Ctor<T, D> {}
export class Box<V> {
  each<K>(f: (value: V, key: K, box: Box<V>) => void): Map<K, string> {}
}
const z: core.Ctor<Foo> = core.make("a", (inst, def) => inst.check());
const y = make<Foo, Bar>("b", (inst) => inst.check());
"#,
        "generics bindings",
        "
        make <T, D> callbacks=1:(T, D) returns_args=<T, D>
        Box <V> callbacks= returns_args=<>
        each <K> callbacks=0:(?, K, Box) returns_args=<K, ?>
        name scope=make Untyped L1
        init scope=make Untyped L1
        inst scope=make Annotated(T) L1
        def scope=make Annotated(D) L1
        f scope=each Untyped L3
        value scope=each Annotated(V) L3
        key scope=each Annotated(K) L3
        box scope=each Annotated(Box) L3
        z scope=- Annotated(core.Ctor) L5
        inst scope=z Callback(core.make arg 1 param 0 : core.Ctor<Foo>) L5
        def scope=z Callback(core.make arg 1 param 1 : core.Ctor<Foo>) L5
        y scope=- CallResult(make) L6
        inst scope=y Callback(make arg 1 param 0 <Foo, Bar>) L6
        ",
    );
}

/// A function's untyped parameters take the type declared where the function stands: the annotation of
/// the constant it initialises, or the declared result of the function returning it (directly in its body).
#[test]
fn contextually_typed_parameters() {
    check(
        "src/h.ts",
        r#"const onError: ErrorHandler = (err, c) => c.json(err);
const one: Handler = c => c.text("");
export const cors = (o?: Options): MiddlewareHandler => {
  return async function cors(c, next) {};
};
export const inline = (): MiddlewareHandler => async (c) => {};
function nested(): Handler {
  if (x) { return (c) => c; }
}
"#,
        "bindings",
        "
        onError scope=- Annotated(ErrorHandler) L1
        err scope=onError Contextual(ErrorHandler param 0) L1
        c scope=onError Contextual(ErrorHandler param 1) L1
        one scope=- Annotated(Handler) L2
        c scope=one Contextual(Handler param 0) L2
        o scope=cors Annotated(Options) L3
        c scope=cors Contextual(MiddlewareHandler param 0) L4
        next scope=cors Contextual(MiddlewareHandler param 1) L4
        c scope=inline Contextual(MiddlewareHandler param 0) L6
        c scope=nested Untyped L8
        ",
    );
}

/// A variable holding what a chain of calls returns records the chain (`new Hono().basePath("/api")`).
#[test]
fn call_chains_type_variables() {
    check(
        "src/c.ts",
        r#"export const base = new Hono().basePath("/api");
function f() {
  const made = make(1).build().run();
  const one = this.make();
}
"#,
        "bindings",
        "
        base scope=- CallChain(Hono(…).basePath) L1
        made scope=f CallChain(make(…).build(…).run) L3
        one scope=f Untyped L4
        ",
    );
}

#[test]
fn typed_bindings() {
    check(
        "src/b.ts",
        r#"const top = new Client();
let typed: net.Client = connect();
async function main(c: Client, opts?: Options, n: number, cb: () => void) {
  const made = make();
  const viaStatic = Client.create();
  const awaited = await make();
  const generic: Map<string, Client> = new Map();
  const cast = raw as Client;
  const literal = 1;
  items.forEach((item: Item) => item.run());
}
class Holder {
  private c: Client;
  d = new Driver();
  e = build();
  handle = (ev: Event) => {};
  constructor(private readonly repo: Repo, plain: Plain, readonly ro: ReadOnly) {}
}
"#,
        "bindings",
        "
        top scope=- Constructed(Client) L1
        typed scope=- Annotated(net.Client) L2
        c scope=main Annotated(Client) L3
        opts scope=main Annotated(Options) L3
        n scope=main Untyped L3
        cb scope=main Untyped L3
        made scope=main CallResult(make) L4
        viaStatic scope=main CallResult(Client.create) L5
        awaited scope=main CallChain(make(…).?) L6
        generic scope=main Annotated(Map) L7
        cast scope=main Annotated(Client) L8
        literal scope=main Untyped L9
        item scope=main Annotated(Item) L10
        c scope=Holder Annotated(Client) L13
        d scope=Holder Constructed(Driver) L14
        e scope=Holder CallResult(build) L15
        ev scope=handle Annotated(Event) L16
        repo scope=Holder Annotated(Repo) L17
        repo scope=constructor Annotated(Repo) L17
        plain scope=constructor Annotated(Plain) L17
        ro scope=Holder Annotated(ReadOnly) L17
        ro scope=constructor Annotated(ReadOnly) L17
        ",
    );
}

#[test]
fn inheritance() {
    check(
        "src/inh.ts",
        r#"class A extends B {}
class C extends ns.Base<T> implements I, pkg.J, K<T> {}
class D extends mixin(X) implements L {}
interface E extends F, G.H<T> {}
abstract class M implements N {}
const Anon = class extends B {};
"#,
        "inherits",
        "
        A (def A) Extends B L1
        C (def C) Extends ns.Base L2
        C (def C) Implements I L2
        C (def C) Implements pkg.J L2
        C (def C) Implements K L2
        D (def D) Implements L L3
        E (def E) Extends F L4
        E (def E) Extends G.H L4
        M (def M) Implements N L5
        ",
    );
}

#[test]
fn javascript_commonjs_module() {
    check(
        "lib/server.js",
        r#"'use strict';
const express = require("express");
const { Router } = require("express");

function createServer(port) {
  const app = express();
  app.get("/", handler);
  return app.listen(port);
}

class Server extends EventEmitter {
  start() { this.emit("start"); }
}

module.exports = { createServer, Server };
"#,
        "defs refs imports exports inherits",
        "
        Function createServer L5-9 private parent=-
        Class Server L11-13 private parent=-
        Method start L12-12 public parent=Server
        Call express L6 scope=createServer
        Call app.get L7 scope=createServer
        Value handler L7 scope=createServer
        Call app.listen L8 scope=createServer
        Value port L8 scope=createServer
        Call emit L12 scope=start this
        express name=- alias=express L2 scope=-
        express name=Router alias=Router L3 scope=-
        createServer -> createServer L15
        Server -> Server L15
        Server (def Server) Extends EventEmitter L11
        ",
    );
}

#[test]
fn variance_annotations_are_a_parse_error_but_the_rest_stays() {
    // tree-sitter-typescript 0.23 reads `out T` as a type parameter `out` and an error, so `T` is no
    // longer known as a type parameter and shows up as a return type.
    check(
        "src/variance.ts",
        r#"export function before(): void {}
export interface Producer<out T> { make(): T }
class Box<in out T> { get(): T { return this.v; } }
export function after(a: Thing) { helper(); }
"#,
        "defs errors",
        "
        Function before L1-1 public parent=-
        Interface Producer L2-2 public parent=-
        Method make L2-2 public parent=Producer ret=T
        Class Box L3-3 private parent=-
        Method get L3-3 public parent=Box ret=T
        Function after L4-4 public parent=-
        parse_errors=2
        ",
    );
}

#[test]
fn syntax_errors_keep_surrounding_definitions() {
    check(
        "src/broken.ts",
        "function ok() { call(); }\nconst bad = ;\nclass Fine { m() { other(); } }\nexport function last() {}\n",
        "defs refs errors",
        "
        Function ok L1-1 private parent=-
        Const bad L2-2 private parent=-
        Class Fine L3-3 private parent=-
        Method m L3-3 public parent=Fine
        Function last L4-4 public parent=-
        Call call L1 scope=ok
        Call other L3 scope=m
        parse_errors=1
        ",
    );
}

#[test]
fn deeply_nested_brackets_do_not_overflow() {
    let depth = 100_000;
    for (open, close) in [("(", ")"), ("[", "]"), ("f(", ")"), ("(x: ", ") => 1")] {
        let src = format!(
            "function before() {{}}\nconst deep = {}x{};\nfunction after() {{ g(); }}\n",
            open.repeat(depth),
            close.repeat(depth)
        );
        let facts = parse("src/deep.ts", &src);
        let names: Vec<&str> = facts.defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["before", "deep", "after"], "nesting {open}");
        assert!(facts.refs.iter().any(|r| r.path == ["g"] && r.scope == Some(2)), "nesting {open}");
        // Tree-sitter queries cannot match past 65,535 levels: the deep part is skipped, and said so.
        assert!(
            facts.diagnostics.iter().any(|d| d.line == 2 && d.message.starts_with("nesting deeper than")),
            "nesting {open}: {:?}",
            facts.diagnostics
        );
    }
    // Nesting within the limit is extracted in full.
    let src = format!("const deep = {}x{};\n", "f(".repeat(10_000), ")".repeat(10_000));
    let facts = parse("src/deep.ts", &src);
    assert_eq!(facts.refs.iter().filter(|r| r.path == ["f"]).count(), 10_000);
    assert_eq!(facts.diagnostics, []);
}
