//! drsg-plugins: the built-in language plugins (Rust, TypeScript/TSX/JavaScript, Python).
//!
//! Each plugin is a grammar, `.scm` query files embedded with `include_str!`, and the code that turns
//! query captures into [`drsg_parsers::FileFacts`]. Plugins do no I/O.
//! [`builtin`] returns the registry an indexing run is given.
//!
//! The Rust plugin reads macros in its `rust/macros/` layer (`mod.rs` the calls inside token trees,
//! `mbe.rs` the `macro_rules!` engine, `items.rs` the items invocations write, `spans.rs` the span map)
//! and in `rust/body_calls.rs`. Sites found in a parsed token tree are marked with
//! their macro (`Origin::MacroArgument`); inside items a parsed token tree declares, the calls count where the
//! invocation is, and the bindings are left out as the items'. Token-generating and compile-time
//! macros (`quote!`, `stringify!`, `include_str!`, …) are not read. In an expansion of the file's own
//! macro, a site of the macro's body sits at the invocation with `Origin::MacroBody`, which the resolver
//! binds as `resolved_by: "macro"`, and a binding of the body counts only when its name was passed in
//! (`let $inner = …`), as hygiene has it. The items an expansion writes come with their sites and
//! bindings scoped to them (`with_scopes` keeps a scope already set); a braced invocation of another
//! file's macro among items is read with its tokens as the expansion (`mbe::verbatim`); and the
//! `impl Trait for Type` items an expansion generates are inherits at the invocation's line. Each
//! `macro_rules!` records the calls its transcribers write (`FileFacts::macro_calls`: paths with
//! `$crate` kept, methods, other macros; fragments passed in left out), which the indexer's `graph`
//! runs at an invocation of another file's macro.

mod children;
pub mod declarative;
mod fields;
mod kinds;
#[cfg(test)]
mod matching;
pub mod python;
#[cfg(test)]
mod queries_rooted;
mod rooted;
pub mod rust;
#[cfg(test)]
mod testing;
pub mod typescript;

use drsg_parsers::Registry;

/// The built-in plugins, in the order they are tried.
pub fn builtin() -> Registry {
    Registry::new(vec![
        Box::new(rust::RustPlugin),
        Box::new(typescript::TypeScriptPlugin),
        Box::new(python::PythonPlugin),
    ])
    .with_extractors(declarative::builtin_extractors())
}

/// The extension of a path: what follows the last `.` of its last component (`""` when none).
pub(crate) fn extension(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    match file.rfind('.') {
        Some(i) if i > 0 => &file[i + 1..],
        _ => "",
    }
}
