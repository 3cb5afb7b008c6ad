//! drsg-plugins: the built-in language plugins (Rust, TypeScript/TSX/JavaScript, Python).
//!
//! Each plugin is a grammar, `.scm` query files embedded with `include_str!`, and the code that turns
//! query captures into [`drsg_parsers::FileFacts`]. Plugins do no I/O.
//! [`builtin`] returns the registry an indexing run is given.

mod children;
pub mod declarative;
mod fields;
mod kinds;
pub mod python;
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
