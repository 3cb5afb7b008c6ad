//! No file-level import circle. Within each crate, the files that take names from one another (through a
//! `use`, or a path such as `crate::walk::escape_bytes` or `super::Placed` in the code) must not go round in
//! a circle; a module and the modules declared inside it count as one, so a parent's file and its
//! children's files may use each other. Files are read with tree-sitter, modules found from each target's
//! root through its `mod` declarations (the crates' targets from `cargo metadata`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser};

/// A module path within a crate: `[]` for the root, `["history", "append"]`.
type ModulePath = Vec<String>;

/// A circle: its files, and the arrows among them (from, to, one path that shows it).
type Circle = (BTreeSet<PathBuf>, Vec<(PathBuf, PathBuf, String)>);

#[test]
fn no_file_level_import_circle() {
    let mut circles = Vec::new();
    for root in target_roots() {
        let files = modules(&root);
        let arrows = arrows(&files);
        circles.extend(find_circles(&arrows));
    }
    let shown: Vec<String> = circles
        .iter()
        .map(|(files, arrows)| {
            let files: Vec<String> = files.iter().map(|f| relative(f)).collect();
            let arrows: Vec<String> =
                arrows.iter().map(|(a, b, via)| format!("{} -> {} ({via})", relative(a), relative(b))).collect();
            format!("circle of {}:\n    {}", files.join(", "), arrows.join("\n    "))
        })
        .collect();
    assert!(shown.is_empty(), "file-level import circles:\n{}", shown.join("\n"));
}

/// The arrows the test reads in a small crate of its own: a child using its parent is no circle, two
/// siblings using each other are.
#[test]
fn a_circle_between_siblings_is_found_and_a_parent_child_pair_is_not() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("directories");
        std::fs::write(path, text).expect("write");
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\npub use c::C;\n");
    write("a.rs", "use crate::b::B;\npub struct A;\n");
    write("b.rs", "pub struct B;\npub fn make() -> super::a::A { super::a::A }\n");
    write("c/mod.rs", "mod inner;\npub struct C(inner::I);\n");
    write(
        "c/inner.rs",
        "pub struct I;\nfn up() -> super::C { todo!() }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
    );
    let files = modules(&dir.path().join("lib.rs"));
    assert_eq!(files.len(), 5, "{files:?}");
    let circles = find_circles(&arrows(&files));
    let found: Vec<BTreeSet<String>> = circles
        .iter()
        .map(|(files, _)| files.iter().map(|f| f.file_name().expect("a file").to_string_lossy().into_owned()).collect())
        .collect();
    assert_eq!(found, [BTreeSet::from(["a.rs".to_owned(), "b.rs".to_owned()])]);
}

/// The root file of every library and binary target of the workspace's packages.
fn target_roots() -> Vec<PathBuf> {
    let meta = super::metadata();
    let mut roots = Vec::new();
    for package in meta["packages"].as_array().expect("packages") {
        for target in package["targets"].as_array().expect("targets") {
            let kinds = target["kind"].as_array().expect("kinds");
            if kinds.iter().any(|k| k == "lib" || k == "bin") {
                roots.push(PathBuf::from(target["src_path"].as_str().expect("src_path")));
            }
        }
    }
    assert!(roots.len() >= 9, "the workspace's targets: {roots:?}");
    roots
}

fn rust_parser() -> Parser {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_rust::LANGUAGE.into()).expect("the Rust grammar loads");
    parser
}

/// A target's files by module path, from its root file through the `mod name;` declarations at the top
/// level of each file.
fn modules(root: &Path) -> BTreeMap<ModulePath, PathBuf> {
    let mut parser = rust_parser();
    let mut out = BTreeMap::new();
    let mut stack = vec![(ModulePath::new(), root.to_path_buf())];
    while let Some((module, file)) = stack.pop() {
        let source = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let tree = parser.parse(&source, None).expect("tree-sitter parses");
        // Where the children of a module live: beside `lib.rs`, `main.rs`, `mod.rs`; else in a folder
        // named after the file.
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "main.rs" | "mod.rs") => file.parent().expect("a folder").to_path_buf(),
            _ if module.is_empty() => file.parent().expect("a folder").to_path_buf(),
            _ => file.with_extension(""),
        };
        let top = tree.root_node();
        for item in children(top).filter(|n| n.kind() == "mod_item" && n.child_by_field_name("body").is_none()) {
            let name = text(item.child_by_field_name("name").expect("a module's name"), &source);
            let child =
                [dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")].into_iter().find(|p| p.exists());
            if let Some(child) = child {
                let mut path = module.clone();
                path.push(name);
                stack.push((path, child));
            }
        }
        out.insert(module, file);
    }
    out
}

/// Which file takes names from which, with one path that shows it; arrows to a file's own module, an
/// enclosing module or a module inside it are left out.
fn arrows(files: &BTreeMap<ModulePath, PathBuf>) -> BTreeMap<(PathBuf, PathBuf), String> {
    let mut parser = rust_parser();
    let mut out = BTreeMap::new();
    let module_of: BTreeMap<&PathBuf, &ModulePath> = files.iter().map(|(m, f)| (f, m)).collect();
    for (module, file) in files {
        let source = std::fs::read_to_string(file).expect("read");
        let tree = parser.parse(&source, None).expect("tree-sitter parses");
        let mut paths = Vec::new();
        collect_paths(tree.root_node(), &source, &mut module.clone(), &mut paths);
        for (current, segments) in paths {
            let Some(target) = resolve(files, &current, &segments) else { continue };
            let target_module = module_of[target];
            if target_module.starts_with(module) || module.starts_with(target_module) {
                continue;
            }
            out.entry((file.clone(), target.clone())).or_insert_with(|| segments.join("::"));
        }
    }
    out
}

/// Every path that may name a module of the crate, with the module it is written in.
fn collect_paths(node: Node<'_>, source: &str, current: &mut ModulePath, out: &mut Vec<(ModulePath, Vec<String>)>) {
    match node.kind() {
        "mod_item" => {
            if let (Some(name), Some(body)) = (node.child_by_field_name("name"), node.child_by_field_name("body")) {
                current.push(text(name, source));
                collect_paths(body, source, current, out);
                current.pop();
            }
            return;
        }
        "use_declaration" => {
            if let Some(argument) = node.child_by_field_name("argument") {
                for path in use_paths(argument, source, &[]) {
                    out.push((current.clone(), path));
                }
            }
            return;
        }
        "scoped_identifier" | "scoped_type_identifier" => {
            out.push((current.clone(), segments(node, source)));
            // The path's own prefixes (`crate::wire` of `crate::wire::fact::WireFact`) are not read
            // again; a qualified type in it (`<T as crate::a::B>::f`, `Vec::<crate::a::B>::new`) is.
            for child in children(node) {
                if !matches!(child.kind(), "scoped_identifier" | "identifier" | "crate" | "super" | "self") {
                    collect_paths(child, source, current, out);
                }
            }
            return;
        }
        _ => {}
    }
    for child in children(node) {
        collect_paths(child, source, current, out);
    }
}

/// The paths a `use` tree names, each as segments.
fn use_paths(node: Node<'_>, source: &str, prefix: &[String]) -> Vec<Vec<String>> {
    let joined = |more: Vec<String>| [prefix.to_vec(), more].concat();
    match node.kind() {
        "scoped_use_list" => {
            let base = node.child_by_field_name("path").map(|p| joined(segments(p, source))).unwrap_or(prefix.to_vec());
            node.child_by_field_name("list").map(|list| use_paths(list, source, &base)).unwrap_or_default()
        }
        "use_list" => children(node).flat_map(|child| use_paths(child, source, prefix)).collect(),
        "use_as_clause" => node.child_by_field_name("path").map(|p| use_paths(p, source, prefix)).unwrap_or_default(),
        "use_wildcard" => vec![joined(children(node).next().map(|p| segments(p, source)).unwrap_or_default())],
        "self" => vec![prefix.to_vec()],
        "identifier" | "scoped_identifier" | "crate" | "super" => vec![joined(segments(node, source))],
        _ => Vec::new(),
    }
}

/// A path's segments as written, up to the first that is not a plain name (generic arguments and the like).
fn segments(node: Node<'_>, source: &str) -> Vec<String> {
    text(node, source)
        .split("::")
        .map(|s| s.trim().trim_start_matches("r#").to_owned())
        .take_while(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect()
}

/// The file of the module a path names (or holds the item it names), if it is this crate's.
fn resolve<'f>(files: &'f BTreeMap<ModulePath, PathBuf>, current: &[String], path: &[String]) -> Option<&'f PathBuf> {
    let (mut base, mut rest): (ModulePath, &[String]) = match path.first()?.as_str() {
        "crate" => (ModulePath::new(), &path[1..]),
        "super" | "self" => (current.to_vec(), path),
        first => {
            // Relative to the module it is written in: a child module's name.
            let child = [current.to_vec(), vec![first.to_owned()]].concat();
            if !files.contains_key(&child) {
                return None;
            }
            (current.to_vec(), path)
        }
    };
    while let Some(step) = rest.first() {
        match step.as_str() {
            "super" => {
                base.pop()?;
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    let full = [base, rest.to_vec()].concat();
    (0..=full.len()).rev().find_map(|n| files.get(&full[..n]))
}

/// The groups of files that reach one another through the arrows, with the arrows among them.
fn find_circles(arrows: &BTreeMap<(PathBuf, PathBuf), String>) -> Vec<Circle> {
    let mut next: BTreeMap<&PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for (a, b) in arrows.keys() {
        next.entry(a).or_default().push(b);
    }
    let reach = |from: &PathBuf| -> BTreeSet<&PathBuf> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&PathBuf> = next.get(from).cloned().unwrap_or_default();
        while let Some(at) = stack.pop() {
            if seen.insert(at) {
                stack.extend(next.get(at).cloned().unwrap_or_default());
            }
        }
        seen
    };
    let reached: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = next.keys().map(|f| (*f, reach(f))).collect();
    let mut circles: Vec<BTreeSet<PathBuf>> = Vec::new();
    for (file, reaches) in &reached {
        if !reaches.contains(file) || circles.iter().any(|c| c.contains(*file)) {
            continue;
        }
        let group = reaches.iter().filter(|other| reached.get(*other).is_some_and(|r| r.contains(file)));
        circles.push(group.map(|f| (*f).clone()).collect());
    }
    circles
        .into_iter()
        .map(|group| {
            let inside = arrows
                .iter()
                .filter(|((a, b), _)| group.contains(a) && group.contains(b))
                .map(|((a, b), via)| (a.clone(), b.clone(), via.clone()))
                .collect();
            (group, inside)
        })
        .collect()
}

fn children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..node.named_child_count()).filter_map(move |i| node.named_child(i as u32))
}

fn text(node: Node<'_>, source: &str) -> String {
    source[node.byte_range()].to_owned()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path).display().to_string()
}
