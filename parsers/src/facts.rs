//! The fact model: what one source file declares, references and imports, as plain data.
//!
//! Facts are per file and know nothing of other files: names are kept as written
//! (`path` segments), and binding them to keys is the indexer's job.
//! Lines are 1-based. Indexes into `FileFacts::defs` are `u32`.

use serde::{Deserialize, Serialize};

/// A source language (dialects that need a different grammar are separate values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lang {
    Rust,
    TypeScript,
    Tsx,
    JavaScript,
    Python,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Python => "python",
        }
    }

    /// The language family that shares key and import rules.
    pub fn family(self) -> Family {
        match self {
            Lang::Rust => Family::Rust,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => Family::Js,
            Lang::Python => Family::Python,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Rust,
    Js,
    Python,
}

/// Everything one file yields. Extraction never fails: what parsed is here, and
/// `parse_errors` counts the ERROR/MISSING nodes tree-sitter recovered from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileFacts {
    pub defs: Vec<Def>,
    pub refs: Vec<Ref>,
    pub imports: Vec<Import>,
    pub exports: Vec<Export>,
    pub bindings: Vec<Binding>,
    pub inherits: Vec<Inherit>,
    /// Number of ERROR and MISSING nodes in the syntax tree.
    pub parse_errors: u32,
    /// Human-readable notes: the first few parse errors with their lines, extraction limits hit.
    pub diagnostics: Vec<Diagnostic>,
    /// The file's own doc (Rust `//!`, a Python module docstring, a leading JSDoc).
    pub module_doc: Option<String>,
    /// The first and last lines of blocks outside any function whose bindings mean something only within
    /// them: Rust macro invocations whose arguments were read (`rgtest!(name, |dir: Dir| { … })`),
    /// TypeScript functions passed as arguments (`export const S = make((inst) => …)`).
    #[serde(default)]
    pub local_blocks: Vec<(u32, u32)>,
    /// Rust: the calls written in each `macro_rules!` body, which an invocation in another file runs
    /// (the file's own invocations are expanded where they are).
    #[serde(default)]
    pub macro_calls: Vec<MacroCalls>,
    /// Routes, requests and what their paths are built from, found by the declarative plugins.
    pub wire: Vec<crate::wire::fact::WireFact>,
}

/// The calls a macro's transcribers write, of the macro defined by `def`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroCalls {
    pub def: u32,
    pub calls: Vec<BodyCall>,
}

/// A call in a macro's body: a path as written (`$crate` kept as the first segment; a macro's name
/// ends with `!`), or a method name called on some value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BodyCall {
    pub path: Vec<String>,
    pub method: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DefKind {
    Module,
    Function,
    Method,
    Struct,
    Enum,
    Union,
    Trait,
    Interface,
    Class,
    TypeAlias,
    Const,
    Static,
    Var,
    Macro,
}

impl DefKind {
    /// The node label of SPEC §2.
    pub fn label(self) -> &'static str {
        match self {
            DefKind::Module => "Module",
            DefKind::Function => "Function",
            DefKind::Method => "Method",
            DefKind::Struct => "Struct",
            DefKind::Enum => "Enum",
            DefKind::Union => "Union",
            DefKind::Trait => "Trait",
            DefKind::Interface => "Interface",
            DefKind::Class => "Class",
            DefKind::TypeAlias => "TypeAlias",
            DefKind::Const => "Const",
            DefKind::Static => "Static",
            DefKind::Var => "Var",
            DefKind::Macro => "Macro",
        }
    }

    /// Kinds that can own methods and be the type of a value.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            DefKind::Struct
                | DefKind::Enum
                | DefKind::Union
                | DefKind::Trait
                | DefKind::Interface
                | DefKind::Class
                | DefKind::TypeAlias
        )
    }

    pub fn is_callable(self) -> bool {
        matches!(self, DefKind::Function | DefKind::Method | DefKind::Macro)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Visibility {
    /// `pub`, `export`, a Python name without a leading underscore.
    Public,
    /// `pub(crate)`, `pub(super)`, `pub(in …)`.
    Crate,
    Private,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Crate => "crate",
            Visibility::Private => "private",
        }
    }
}

/// A named definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub kind: DefKind,
    pub name: String,
    /// The innermost enclosing named definition (module, class, trait, function), if any.
    /// A Rust method in an `impl` block has the impl's enclosing module here and the impl in `impl_block`.
    pub parent: Option<u32>,
    pub line: u32,
    pub end_line: u32,
    /// The declaration up to its body, whitespace collapsed, at most about 200 characters.
    pub signature: String,
    pub doc: Option<String>,
    pub visibility: Visibility,
    /// `#[test]`, inside `#[cfg(test)]`, pytest-style `test_*`/`Test*`, inside `describe/it/test`.
    pub is_test: bool,
    /// Rust: the `impl` block this item sits in.
    pub impl_block: Option<ImplBlock>,
    /// The declared return type, as a path (`-> Client`, `-> Self`, `: Promise<Client>` gives `Client`? no: only plain paths).
    pub returns: Option<Vec<String>>,
    /// Rust: the `T` of a declared `Result<T, _>` or `Option<T>` return type, which `?` and `unwrap()`
    /// give (`-> io::Result<Self>` gives `Self`).
    #[serde(default)]
    pub returns_ok: Option<Vec<String>>,
    /// Rust: a `mod foo;` declaration whose body lives in another file.
    pub external_body: bool,
    /// Python: a `typing.overload` stub, which a call of the name never runs.
    #[serde(default)]
    pub overload: bool,
    /// Rust: the type parameters a function's body can name, its own and its impl's or trait's
    /// (`T` in `fn f<T>()`, `S` in `impl<S> Router<S>`). TypeScript: a function's own type parameters, in
    /// order (what a call's type arguments bind); a class's, in order (what an `extends` binds).
    #[serde(default)]
    pub generics: Vec<String>,
    /// TypeScript: each parameter typed as a function (`init: (source: Observable<T>, subscriber:
    /// Subscriber<R>) => void`), by its index: the types that function type gives its own parameters
    /// (`this` left out; `None` where none is a plain type; a type parameter of the function's own, one of
    /// `generics`, kept). A callback passed there takes them.
    #[serde(default)]
    pub callbacks: Vec<(u32, TypeList)>,
    /// TypeScript: each parameter typed by a named type that may be an alias of a function type (`handler:
    /// H<E, P>`, a rest parameter's element type, a type parameter's constraint), by its index: the path. A
    /// callback passed there takes the parameter types the alias gives. An interface: its call signatures'
    /// parameters, as `callbacks` too. A type alias: at index 0, the named types it stands for (`type H =
    /// Handler | MiddlewareHandler`), or in `callbacks` at 0 its function type's parameters.
    #[serde(default)]
    pub callback_types: Vec<(u32, Vec<String>)>,
    /// TypeScript: the type arguments of the declared return type that are one of the function's own type
    /// parameters, by position (`): Ctor<T, D>` gives `[T, D]`): what an annotated result binds them to.
    #[serde(default)]
    pub returns_args: Vec<Option<String>>,
    /// TypeScript: a declared return type that is an object type (`): { status: ParseStatus; ctx: Ctx }`):
    /// its properties' types, by name.
    #[serde(default)]
    pub returns_fields: Vec<(String, Vec<String>)>,
}

/// The `impl` a Rust method sits in: `impl Type` or `impl Trait for Type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImplBlock {
    /// The self type's path as written, generics removed (`net::Client`).
    pub self_ty: Vec<String>,
    /// The trait's path as written, generics removed.
    pub trait_: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RefKind {
    /// A call (`f()`, `a.b()`, `m!()`).
    Call,
    /// `new X()`, a Rust struct literal `X { .. }`.
    Instantiate,
    /// `@decorator`, `#[derive]`-like attributes are not refs.
    Decorator,
    /// `<Component />`: a call of the component.
    Jsx,
    /// A function or value named without calling it (`map(f)`, `callback = f`).
    Value,
    /// A type named in a signature or annotation.
    Type,
}

/// How the first segment of a reference's `path` is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Qualifier {
    /// `path[0]` is a name looked up in scope (`f`, `Client::new`, `os.path.join`, `c.connect`).
    Plain,
    /// `self.x` / `this.x` / `cls.x`: `path` starts after the receiver.
    SelfValue,
    /// `super().x` / `super.x` / `super(...)`: `path` starts after `super`; a bare constructor call is `["constructor"]`
    /// in JS and `["__init__"]` in Python.
    Super,
    /// The receiver is an expression with no name; when it is itself a call, the callee path
    /// (`Client::new().connect()` → `Some(["Client", "new"])`, path `["connect"]`), and (Rust) what
    /// the chain did to that call's result before this call, in order: a method called on it, or `?`
    /// for its `Ok`/`Some` value (`Router::new().route(a)?.layer(l)`: call `Router::new`, then
    /// `["route", "?"]`, path `["layer"]`).
    Expr {
        call: Option<Vec<String>>,
        #[serde(default)]
        then: Vec<String>,
    },
    /// Rust: `name(…)` among the tokens of a macro invocation that do not read as Rust (`tap_inner!(self,
    /// mut this => …)`). Which definition it names, if it is a call at all, depends on the macro's
    /// expansion: never bound, it is an unresolved site that counts toward every symbol of its name.
    Tokens,
}

impl Qualifier {
    /// A receiver expression: the result of `call` when it is a call, no steps after it.
    pub fn expr(call: Option<Vec<String>>) -> Qualifier {
        Qualifier::Expr { call, then: Vec::new() }
    }
}

/// A use of a name: a call site, an instantiation, a type mention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ref {
    pub kind: RefKind,
    /// Identifiers as written, outermost first; the last one is the name used.
    pub path: Vec<String>,
    pub qualifier: Qualifier,
    pub line: u32,
    /// The innermost enclosing named definition (closures and callbacks are transparent).
    pub scope: Option<u32>,
    /// The reference as written (callee text), at most about 120 characters.
    pub text: String,
    /// Where the reference was read: as written, or out of a macro invocation.
    #[serde(default)]
    pub origin: Origin,
}

/// Where a [`Ref`] was read. Every plugin gives [`Origin::Written`] for what the code says as written;
/// the other origins belong to languages with macros (Rust).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Origin {
    /// In the code as written.
    #[default]
    Written,
    /// Among the tokens passed to a macro invocation, which parsed as code (`f(x)` in `assert_eq!(f(x), 1)`);
    /// `within` is the innermost invocation (`assert_eq!`).
    MacroArgument { within: String },
    /// Among the tokens of an invocation that parse as no code (`name(…)` and `name!(…)` among them), read as
    /// tokens; `within` is the innermost invocation.
    MacroTokens { within: String },
    /// Written by the body of a macro, read from its expansion and placed at the invocation; `within` is the
    /// innermost invocation it was read in.
    MacroBody { within: String },
}

impl Origin {
    /// The innermost macro invocation the reference was read in, if any.
    pub fn within(&self) -> Option<&str> {
        match self {
            Origin::Written => None,
            Origin::MacroArgument { within } | Origin::MacroTokens { within } | Origin::MacroBody { within } => {
                Some(within)
            }
        }
    }

    /// Whether the reference comes from a macro's body rather than from what the invocation passed.
    pub fn is_macro_body(&self) -> bool {
        matches!(self, Origin::MacroBody { .. })
    }
}

/// A name brought into scope from another module.
///
/// - Rust `use a::b::c as d;` → source `a::b`, name `c`, alias `d`; `use a::b::*` → source `a::b`, glob.
/// - JS `import {a as b} from "./x"` → source `./x`, name `a`, alias `b`; default import → name `default`;
///   `import * as ns` and `const ns = require("./x")` → name `None`; `export … from` sets `reexport`.
/// - Python `from .util import f` → source `.util`, name `f`; `import a.b as m` → source `a.b`, name `None`,
///   alias `m`; `import a.b` → source `a.b`, name `None`, alias `a` (Python binds the first segment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub source: String,
    pub name: Option<String>,
    pub alias: String,
    pub glob: bool,
    /// `pub use`, `export … from`: the name is also visible to importers of this file.
    pub reexport: bool,
    /// Rust: the visibility of a `pub use` (crate-visible re-exports still re-export within the crate).
    pub line: u32,
    /// The enclosing definition for imports inside a body; `None` at module level.
    pub scope: Option<u32>,
}

/// A JS/TS export that does not sit on a declaration: `export { a as b }`, `export default X`,
/// `module.exports = { a }`, `module.exports = X` (exported `default`), `exports.a = a`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    pub local: String,
    pub exported: String,
    pub line: u32,
}

/// A name bound in a scope: a local, a parameter, a field. Bound inside a function, it shadows every
/// outer meaning of its name there, typed or not: `for receiver in receivers: receiver(…)` calls the
/// loop's value, never a module's `receiver`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    pub name: String,
    pub scope: Option<u32>,
    /// The first line on which the name means this binding: its own line for a parameter, a field, the
    /// pattern of a match arm, closure or comprehension, and a JavaScript declarator (in scope in its own
    /// initialiser); for a Rust `let`, `if let`, `while let` or `for` and a Python assignment or `for`, the line
    /// after the value, which still reads the name's earlier meaning (`let file = file.clone();`,
    /// `if let Some(name) = name.into_option()`, `value = value.strip()`).
    pub line: u32,
    /// Where the type comes from; `None` for a local whose type no declared fact gives (`x = a.b()`, an
    /// untyped parameter, a loop variable, a name in a destructuring pattern).
    pub hint: Option<TypeHint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TypeHint {
    /// `let c: Client`, `c: Client = …`, a typed parameter `(c: &Client)`.
    Annotated(Vec<String>),
    /// `new Client()`, a Rust struct literal.
    Constructed(Vec<String>),
    /// `Client::new()`, `make()`, `Client()` in Python: the type is what the callee returns
    /// (or the class itself when the callee is a class).
    CallResult(Vec<String>),
    /// A call chain, `Client::new(a)?.with(b)` in Rust, `new Hono().basePath("/api")` in TypeScript (a
    /// construction as a call of the class): the innermost callee, then the steps on its result (as
    /// [`Qualifier::Expr`]'s `then`; never empty).
    CallChain(Vec<String>, Vec<String>),
    /// Python: `x = self.app.session_interface`; TypeScript: `const { source } = this`: the type of the last
    /// field, read field by field from the enclosing class (the path starts with `self` or `this`).
    Field(Vec<String>),
    /// TypeScript: an untyped parameter of a function passed as argument `arg` of a call of `callee` (or of
    /// `new callee(…)`): the type the callee's declared parameter gives parameter `param` of that function
    /// (`new Observable((subscriber) => …)`, `operate((source, subscriber) => …)`); where that type is a type
    /// parameter of the callee's, what the site binds it to (`make<Foo>(…)`, `const x: Ctor<Foo> = make(…)`).
    /// With `then`, the callee is a method of a chain's result (`app.get(…).post("/", (c) => …)`: `app.get`,
    /// then `post`), as [`TypeHint::CallChain`]'s.
    Callback { callee: Vec<String>, then: Vec<String>, new: bool, arg: u32, param: u32, bound: TypeArgs },
    /// TypeScript: untyped parameter `param` of a function whose own type is declared where it stands (`const h:
    /// Handler = (c) => …`, or returned from a function declared to return `Handler`): what that type, an
    /// alias of a function type, gives the parameter.
    Contextual { ty: Vec<String>, param: u32 },
    /// TypeScript: a name destructured from a call's result (`const { status } = this.params(input)`): the
    /// type the callee's declared object return type gives that property.
    Destructured { call: Vec<String>, field: String },
    /// TypeScript: another name for the value a path names (`const numberType = ZodNumber.create`, `const
    /// t = other`): its type is that value's, and calling it calls what the path names.
    Alias(Vec<String>),
}

/// Type paths by position (type arguments, a function type's parameters); `None` where one is no plain type.
pub type TypeList = Vec<Option<Vec<String>>>;

/// What a call site says about a generic callee's type parameters, as types written at the site.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeArgs {
    /// `f<A, B>(…)`: the callee's type parameters by position (`None` where an argument is no plain type).
    pub explicit: TypeList,
    /// `const x: Ctor<A> = f(…)`: the annotation the call's result meets, its path and its type arguments;
    /// matched against the callee's declared return type.
    pub expected: Option<(Vec<String>, TypeList)>,
}

impl TypeArgs {
    /// Every type path written at the site.
    pub fn paths(&self) -> impl Iterator<Item = &Vec<String>> {
        let expected = self.expected.iter().flat_map(|(head, args)| std::iter::once(head).chain(args.iter().flatten()));
        self.explicit.iter().flatten().chain(expected)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InheritKind {
    Extends,
    Implements,
}

/// `class A extends B`, `class A implements I`, `class A(B)`, `impl Trait for Type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inherit {
    /// The definition in this file that inherits, when there is one.
    pub child_def: Option<u32>,
    /// The inheriting type's path as written (for `impl Trait for Type`, the type).
    pub child: Vec<String>,
    pub kind: InheritKind,
    pub target: Vec<String>,
    pub line: u32,
    /// TypeScript: the type arguments the target is given (`extends ZodType<Output, ZodObjectDef<T>>`),
    /// which its type parameters stand for in what the child inherits.
    #[serde(default)]
    pub args: TypeList,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub line: u32,
    pub message: String,
    /// Part of the file was not read (nesting beyond what the plugin walks, a query limit, a grammar
    /// that could not parse it): its calls are not counted anywhere.
    #[serde(default)]
    pub cut: bool,
}
