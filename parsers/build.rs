//! Compiles `src/children.c` against the private headers of the tree-sitter library that is linked.

use std::path::PathBuf;

#[allow(clippy::disallowed_methods, reason = "cargo hands a build script what it needs in the environment")]
fn main() {
    // tree-sitter's build script publishes its public include directory (it declares `links`); the private
    // headers sit in `src` beside it, in the same copy of the crate.
    let include =
        PathBuf::from(std::env::var_os("DEP_TREE_SITTER_INCLUDE").expect("tree-sitter names its include directory"));
    let private = include.parent().expect("the include directory has a parent").join("src");
    println!("cargo:rerun-if-changed=src/children.c");
    // The layouts come from those headers: a patched tree-sitter must rebuild this file.
    println!("cargo:rerun-if-changed={}", private.display());
    println!("cargo:rerun-if-env-changed=DEP_TREE_SITTER_INCLUDE");
    cc::Build::new()
        .std("c11")
        .include(&include)
        .include(&private)
        // The walk runs this on every node: the tests run it optimised too.
        .opt_level(2)
        .warnings(false)
        .file("src/children.c")
        .compile("drsg_children");
}
