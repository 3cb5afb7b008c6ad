//! The tree's layout: packages from manifests, and the module key of every source file (SPEC §2).
//!
//! - Rust: crate name from the nearest `Cargo.toml` `[package] name` (`-` → `_`), then the module path;
//!   `lib.rs`/`main.rs` are crate roots, `mod.rs` names its directory; `src/bin/x.rs`, `tests/x.rs`,
//!   `examples/x.rs`, `benches/x.rs` are roots of crates named after the target, as Cargo names them.
//! - JS/TS: the nearest `package.json` name, `/`, the path from that manifest's directory without
//!   extension, a trailing `/index` folded; without a manifest, the tree's directory name.
//! - Python: walk up while directories hold `__init__.py`; the dotted path from the first that does not.
//!
//! A directory of Python files without `__init__.py` inside a package is a namespace package of it
//! (`Layout::of_walk`). A Cargo package's targets are crates: the library, the targets declared with a
//! `path` (`[[bin]]`, `[[test]]`, `[[example]]`, `[[bench]]`, `package.build`), whose root directories
//! hold their modules, and the conventional ones Cargo discovers unless `autobins`/`autotests`/… turn
//! them off. A target name is unique only within its package: a name packages share is keyed
//! `<target>@<package crate>` (`Layout::shared_targets`), so keys, `crate::` and macro scopes stay per
//! target. A `Cargo.toml` that cannot be read still makes a package (`CargoPackage::unread`: its
//! directory's name, `src/lib.rs`, conventional targets, no known dependency); manifest errors carry
//! their line (`toml_error`) into the run and fold reports, the ledger, and every answer's freshness
//! line.

use drsg_parsers::Family;
use foldhash::{HashMap, HashSet};

mod tsconfig;

pub use tsconfig::TsConfig;
use tsconfig::{extended, parse_tsconfig};

use crate::source::TreeView;
use crate::walk::ManifestKind;

/// A Cargo package found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CargoPackage {
    /// Directory of the manifest, relative to the root (`""` for the root).
    pub dir: String,
    pub crate_name: String,
    /// The library root, relative to the tree root (`src/lib.rs` unless `[lib] path` says otherwise).
    pub lib: Option<String>,
    /// Targets the manifest declares with a `path` (`[[bin]]`, `[[example]]`, `[[test]]`, `[[bench]]`, and
    /// `package.build`): crate name and root file, relative to the tree root.
    pub targets: Vec<(String, String)>,
    /// Target kinds Cargo also discovers by convention here (`autobins`, `autotests`, …; all by default).
    pub auto: AutoTargets,
    /// The crates the manifest depends on, as code names them (`-` → `_`): normal, dev and build
    /// dependencies, platform-specific ones included; sorted.
    pub dependencies: Vec<String>,
    /// Why the manifest could not be read, when it could not: the package then takes its directory's
    /// name, its library at `src/lib.rs`, the conventional targets, and no known dependency.
    pub unread: Option<String>,
}

impl CargoPackage {
    /// The package of a manifest that could not be read, at `dir` of a tree named `tree_name`.
    fn unread(dir: &str, tree_name: &str, error: String) -> CargoPackage {
        let name = dir.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(tree_name);
        CargoPackage {
            dir: dir.to_owned(),
            crate_name: name.replace(['-', '.', ' '], "_"),
            lib: join_normalized(dir, "src/lib.rs"),
            targets: Vec::new(),
            auto: AutoTargets::default(),
            dependencies: Vec::new(),
            unread: Some(error),
        }
    }

    /// Whether code of this package may name crate `name` as a dependency.
    pub fn depends_on(&self, name: &str) -> bool {
        self.dependencies.binary_search_by(|d| d.as_str().cmp(name)).is_ok()
    }
}

/// Which conventional target directories Cargo searches for a package (`autobins = false` and its kin
/// turn one off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoTargets {
    pub bins: bool,
    pub examples: bool,
    pub tests: bool,
    pub benches: bool,
}

impl Default for AutoTargets {
    fn default() -> Self {
        AutoTargets { bins: true, examples: true, tests: true, benches: true }
    }
}

/// An npm package found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmPackage {
    pub dir: String,
    pub name: String,
    /// Entry points named by `types`, `module`, `main`, `exports["."]`, relative to the tree root.
    pub entries: Vec<String>,
    /// Each subpath of `exports` (`.`, `./v4`, `./locales/*`) with its targets, relative to the tree root:
    /// TypeScript sources first (a condition such as zod's `"@zod/source": "./src/index.ts"`, which the
    /// project's own configuration selects), then the others in the order written.
    pub subpaths: Vec<(String, Vec<String>)>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub tree_name: String,
    pub cargo: Vec<CargoPackage>,
    pub npm: Vec<NpmPackage>,
    pub tsconfigs: Vec<TsConfig>,
    pub python_packages: HashSet<String>,
    /// `[project] name`s of pyproject.toml files, by directory.
    pub pyprojects: HashMap<String, String>,
    /// Manifests that could not be read or parsed, with the reason.
    pub manifest_errors: Vec<(String, String)>,
    /// Cargo targets whose name a target of another package shares (two `[[test]] name =
    /// "integration"`), by (package directory, target name): the crate name their keys take,
    /// `<target>@<package crate>`.
    pub shared_targets: HashMap<(String, String), String>,
}

/// Where a Rust file sits: its crate and module path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustModule {
    pub crate_name: String,
    /// Module path below the crate root (empty for the root).
    pub path: Vec<String>,
    /// The crate root file (relative), used to find `crate::` paths.
    pub is_crate_root: bool,
    /// Files whose child modules live in their own directory (`lib.rs`, `main.rs`, `mod.rs`) vs `a.rs` (children in `a/`).
    pub owns_directory: bool,
}

impl Layout {
    /// The layout of a walked tree: its manifests, Python packages and Rust files.
    pub fn of_walk(tree: &dyn TreeView, tree_name: &str, walked: &crate::walk::WalkOutcome) -> Layout {
        let rust = walked.candidates.iter().filter(|c| c.lang.family() == Family::Rust).map(|c| c.path.as_str());
        let mut layout = Layout::load(tree, tree_name, &walked.manifests, walked.python_packages.clone(), rust);
        let python = walked.candidates.iter().filter(|c| c.lang.family() == Family::Python).map(|c| c.path.as_str());
        layout.add_namespace_packages(python);
        layout
    }

    /// A directory of Python files without `__init__.py` inside a package is a namespace package of it
    /// (PEP 420): `flask/sansio/app.py` is `flask.sansio.app`, not a top-level `app`. Directories
    /// outside any package stay what they are (a `tests/` beside the package).
    fn add_namespace_packages<'f>(&mut self, python_files: impl Iterator<Item = &'f str>) {
        let mut dirs: Vec<&str> = Vec::new();
        for path in python_files {
            let mut dir = parent_dir(path);
            while !dir.is_empty() {
                dirs.push(dir);
                dir = parent_dir(dir);
            }
        }
        dirs.sort_unstable_by(|a, b| depth(a).cmp(&depth(b)).then(a.cmp(b)));
        dirs.dedup();
        for dir in dirs {
            let parent = parent_dir(dir);
            if !parent.is_empty() && !self.python_packages.contains(dir) && self.python_packages.contains(parent) {
                self.python_packages.insert(dir.to_owned());
            }
        }
    }

    pub fn load<'f>(
        tree: &dyn TreeView,
        tree_name: &str,
        manifests: &[(ManifestKind, String)],
        python_packages: HashSet<String>,
        rust_files: impl Iterator<Item = &'f str>,
    ) -> Layout {
        let mut layout = Layout { tree_name: tree_name.to_owned(), python_packages, ..Layout::default() };
        for (kind, rel) in manifests {
            let text = match tree.read_to_string(rel) {
                Ok(text) => text,
                Err(err) => {
                    layout.manifest_errors.push((rel.clone(), err));
                    continue;
                }
            };
            let dir = parent_dir(rel).to_owned();
            let result = match kind {
                ManifestKind::Cargo => match parse_cargo(&dir, &text) {
                    Ok(package) => {
                        layout.cargo.extend(package);
                        Ok(())
                    }
                    Err(err) => {
                        // Its files still belong to one package: keyed by the directory's name.
                        layout.cargo.push(CargoPackage::unread(&dir, tree_name, err.clone()));
                        Err(err)
                    }
                },
                ManifestKind::PackageJson => parse_package_json(&dir, &text).map(|p| layout.npm.extend(p)),
                ManifestKind::TsConfig => {
                    parse_tsconfig(&dir, &text).map(|c| layout.tsconfigs.push(extended(tree, c, 0)))
                }
                ManifestKind::PyProject => parse_pyproject(&text).map(|name| {
                    if let Some(name) = name {
                        layout.pyprojects.insert(dir.clone(), name);
                    }
                }),
            };
            if let Err(err) = result {
                layout.manifest_errors.push((rel.clone(), err));
            }
        }
        // A pyproject's `[project] name` names its import package: `name/` or `src/name/` is a package even
        // without an `__init__.py` (a PEP 420 namespace package), so its modules keep the package prefix.
        for (dir, name) in &layout.pyprojects {
            let import_name = name.replace('-', "_").to_lowercase();
            for candidate in [import_name.clone(), format!("src/{import_name}")] {
                let Some(rel) = join_normalized(dir, &candidate) else { continue };
                if tree.is_dir(&rel) {
                    layout.python_packages.insert(rel);
                }
            }
        }
        for package in &mut layout.cargo {
            // `[lib] path` or `src/lib.rs` when it exists, else the main binary.
            let main = join_normalized(&package.dir, "src/main.rs");
            if !package.lib.as_ref().is_some_and(|lib| tree.is_file(lib)) {
                package.lib = main.filter(|m| tree.is_file(m));
            }
        }
        // Deepest first, so "nearest manifest" is the first match.
        layout.cargo.sort_by(|a, b| depth(&b.dir).cmp(&depth(&a.dir)).then(a.dir.cmp(&b.dir)));
        layout.npm.sort_by(|a, b| depth(&b.dir).cmp(&depth(&a.dir)).then(a.dir.cmp(&b.dir)));
        layout.tsconfigs.sort_by(|a, b| depth(&b.dir).cmp(&depth(&a.dir)).then(a.dir.cmp(&b.dir)));
        layout.qualify_shared_targets(rust_files);
        layout
    }

    /// A target name is unique only within its package: where packages share one (each has a
    /// `tests/integration.rs`, or a test is named like another package's library), every such
    /// target but a library is keyed `<target>@<package crate>`, so its keys and its `crate::` stay its own.
    fn qualify_shared_targets<'f>(&mut self, rust_files: impl Iterator<Item = &'f str>) {
        if self.cargo.len() < 2 {
            return;
        }
        let mut owners: HashMap<String, Vec<usize>> = HashMap::default();
        for (i, package) in self.cargo.iter().enumerate() {
            if package.lib.is_some() {
                owners.entry(package.crate_name.clone()).or_default().push(i);
            }
            for (name, _) in &package.targets {
                owners.entry(name.clone()).or_default().push(i);
            }
        }
        for path in rust_files {
            let Some(i) = self.cargo.iter().position(|p| is_under(path, &p.dir)) else { continue };
            if let Some((name, _)) = target_of(&self.cargo[i], path) {
                owners.entry(name).or_default().push(i);
            }
        }
        for (name, mut packages) in owners {
            packages.sort_unstable();
            packages.dedup();
            if packages.len() < 2 {
                continue;
            }
            for i in packages {
                let package = &self.cargo[i];
                if package.lib.is_some() && package.crate_name == name {
                    continue;
                }
                let qualified = format!("{name}@{}", package.crate_name);
                self.shared_targets.insert((package.dir.clone(), name.clone()), qualified);
            }
        }
    }

    /// The module key of a file, or `None` for a Rust file outside any crate target.
    pub fn module_key(&self, path: &str, family: Family) -> String {
        match family {
            Family::Rust => match self.rust_module(path) {
                Some(m) => std::iter::once(m.crate_name.as_str())
                    .chain(m.path.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join("::"),
                None => rust_fallback_key(path),
            },
            Family::Js => self.js_module_key(path),
            Family::Python => self.python_module_key(path),
        }
    }

    /// The nearest Cargo package containing `path`.
    pub fn cargo_package(&self, path: &str) -> Option<&CargoPackage> {
        self.cargo.iter().find(|p| is_under(path, &p.dir))
    }

    pub fn rust_module(&self, path: &str) -> Option<RustModule> {
        let package = self.cargo_package(path)?;
        let (mut crate_name, below) = target_of(package, path)?;
        if !self.shared_targets.is_empty()
            && let Some(qualified) = self.shared_targets.get(&(package.dir.clone(), crate_name.clone()))
        {
            crate_name = qualified.clone();
        }
        let mut segments: Vec<String> = below.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect();
        let mut owns_directory = true;
        let mut is_crate_root = false;
        if let Some(last) = segments.pop() {
            match last.as_str() {
                "lib.rs" | "main.rs" if segments.is_empty() && below != "main.rs" => is_crate_root = true,
                "mod.rs" => {}
                other => {
                    segments.push(other.strip_suffix(".rs").unwrap_or(other).to_owned());
                    owns_directory = false;
                }
            }
        } else {
            is_crate_root = true;
        }
        Some(RustModule { crate_name, path: segments, is_crate_root, owns_directory })
    }

    /// Crate names of the tree's packages (`-` → `_`) → their library root file.
    pub fn crate_roots(&self) -> HashMap<String, String> {
        self.cargo.iter().filter_map(|p| p.lib.clone().map(|lib| (p.crate_name.clone(), lib))).collect()
    }

    pub fn npm_package(&self, path: &str) -> Option<&NpmPackage> {
        self.npm.iter().find(|p| is_under(path, &p.dir))
    }

    fn js_module_key(&self, path: &str) -> String {
        let (prefix, rel) = match self.npm_package(path) {
            Some(p) => (p.name.as_str(), strip_dir(path, &p.dir)),
            None => (self.tree_name.as_str(), path),
        };
        let stem = strip_js_extension(rel);
        let stem = if stem == "index" { "" } else { stem.strip_suffix("/index").unwrap_or(stem) };
        if stem.is_empty() { prefix.to_owned() } else { format!("{prefix}/{stem}") }
    }

    fn python_module_key(&self, path: &str) -> String {
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let stem = file.strip_suffix(".pyi").or_else(|| file.strip_suffix(".py")).unwrap_or(file);
        let mut parts: Vec<&str> = Vec::new();
        if stem != "__init__" {
            parts.push(stem);
        }
        let mut current = dir;
        while !current.is_empty() && self.python_packages.contains(current) {
            let (parent, name) = current.rsplit_once('/').unwrap_or(("", current));
            parts.push(name);
            current = parent;
        }
        if parts.is_empty() {
            // An `__init__.py` at the tree root: the package is the tree itself.
            return self.tree_name.clone();
        }
        parts.reverse();
        parts.join(".")
    }

    /// The tsconfig governing a file: the nearest one above it.
    pub fn tsconfig(&self, path: &str) -> Option<&TsConfig> {
        self.tsconfigs.iter().find(|c| is_under(path, &c.dir))
    }
}

/// The crate a file of `package` belongs to, and its path below that target's root directory (`""` for
/// the root file itself), as Cargo would build it.
///
/// A target's root file is its crate's root. Below a declared target's root directory (`[[bin]] path =
/// "crates/core/main.rs"` → `crates/core/`) files are that crate's modules, unless a conventional target
/// directory Cargo searches claims them first (`src/bin/x.rs`, `tests/x.rs`: roots of their own crates).
/// Under `src/` files belong to the library when there is one, else to the main binary.
fn target_of(package: &CargoPackage, path: &str) -> Option<(String, String)> {
    let rel = strip_dir(path, &package.dir);
    let stem_of = |file: &str| file.strip_suffix(".rs").unwrap_or(file).replace('-', "_");
    if package.lib.as_deref() == Some(path) {
        return Some((package.crate_name.clone(), String::new()));
    }
    if let Some((name, _)) = package.targets.iter().find(|(_, root)| root == path) {
        return Some((name.clone(), String::new()));
    }
    // A conventional target root: `src/bin/x.rs`, `src/bin/x/main.rs`, and the same under `tests/`,
    // `examples/` and `benches/`; the other files of `src/bin/x/` and `tests/x/` are modules of that crate.
    let auto = package.auto;
    let conventional =
        [("src/bin/", auto.bins), ("tests/", auto.tests), ("examples/", auto.examples), ("benches/", auto.benches)];
    for (dir, searched) in conventional {
        let Some(rest) = rel.strip_prefix(dir) else { continue };
        if !searched {
            break;
        }
        let mut parts = rest.splitn(2, '/');
        let first = parts.next().unwrap_or("");
        return Some(match parts.next() {
            None => (stem_of(first), String::new()),
            Some(inner) => (stem_of(first), if inner == "main.rs" { String::new() } else { inner.to_owned() }),
        });
    }
    // The declared target whose root directory holds the file, the deepest.
    let declared = package
        .targets
        .iter()
        .filter_map(|(name, root)| {
            let dir = parent_dir(root);
            (is_under(path, dir) && strip_dir(dir, &package.dir) != "src").then_some((name, dir))
        })
        .max_by_key(|(_, dir)| dir.len());
    if let Some((name, dir)) = declared {
        return Some((name.clone(), strip_dir(path, dir).to_owned()));
    }
    if rel == "src/main.rs" {
        // A binary beside a library: keyed below the library so the two roots stay apart.
        return Some((package.crate_name.clone(), "main.rs".to_owned()));
    }
    if let Some(rest) = rel.strip_prefix("src/") {
        return Some((package.crate_name.clone(), rest.to_owned()));
    }
    if rel == "build.rs" {
        return Some(("build_script_build".to_owned(), String::new()));
    }
    None
}

/// A Rust file outside any Cargo target: its path as a module path under the tree.
fn rust_fallback_key(path: &str) -> String {
    let stem = path.strip_suffix(".rs").unwrap_or(path);
    stem.split('/').map(|s| s.replace('-', "_")).collect::<Vec<_>>().join("::")
}

pub fn strip_js_extension(path: &str) -> &str {
    for ext in [".d.ts", ".d.mts", ".d.cts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs"] {
        if let Some(stem) = path.strip_suffix(ext) {
            return stem;
        }
    }
    path
}

pub fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

pub fn is_under(path: &str, dir: &str) -> bool {
    dir.is_empty() || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

fn strip_dir<'a>(path: &'a str, dir: &str) -> &'a str {
    if dir.is_empty() { path } else { path.get(dir.len() + 1..).unwrap_or(path) }
}

fn depth(dir: &str) -> usize {
    if dir.is_empty() { 0 } else { dir.matches('/').count() + 1 }
}

/// Join a directory and a relative path, folding `.` and `..`; `None` when it climbs above the root.
pub fn join_normalized(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

fn parse_cargo(dir: &str, text: &str) -> Result<Option<CargoPackage>, String> {
    let value: toml::Table = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    let Some(package) = value.get("package").and_then(|p| p.as_table()) else {
        return Ok(None); // a virtual workspace manifest: members are found by the walk
    };
    let Some(name) = package.get("name").and_then(|n| n.as_str()) else {
        return Err("[package] has no name".to_owned());
    };
    let lib_table = value.get("lib").and_then(|l| l.as_table());
    let crate_name = lib_table.and_then(|l| l.get("name")).and_then(|n| n.as_str()).unwrap_or(name).replace('-', "_");
    let lib_rel = lib_table.and_then(|l| l.get("path")).and_then(|p| p.as_str()).unwrap_or("src/lib.rs");
    let lib = join_normalized(dir, lib_rel);
    let mut targets = Vec::new();
    for section in ["bin", "example", "test", "bench"] {
        let Some(list) = value.get(section).and_then(|t| t.as_array()) else { continue };
        for target in list.iter().filter_map(|t| t.as_table()) {
            let (Some(name), Some(root)) =
                (target.get("name").and_then(|n| n.as_str()), target.get("path").and_then(|p| p.as_str()))
            else {
                continue;
            };
            if let Some(root) = join_normalized(dir, root) {
                targets.push((name.replace('-', "_"), root));
            }
        }
    }
    if let Some(build) = package.get("build").and_then(|b| b.as_str()).and_then(|b| join_normalized(dir, b)) {
        targets.push(("build_script_build".to_owned(), build));
    }
    let flag = |key: &str| package.get(key).and_then(|v| v.as_bool()).unwrap_or(true);
    let auto = AutoTargets {
        bins: flag("autobins"),
        examples: flag("autoexamples"),
        tests: flag("autotests"),
        benches: flag("autobenches"),
    };
    let mut dependencies = Vec::new();
    let platforms = value.get("target").and_then(|t| t.as_table()).into_iter().flat_map(|t| t.values());
    for table in std::iter::once(&value).chain(platforms.filter_map(|p| p.as_table())) {
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(deps) = table.get(section).and_then(|d| d.as_table()) {
                dependencies.extend(deps.keys().map(|k| k.replace('-', "_")));
            }
        }
    }
    dependencies.sort_unstable();
    dependencies.dedup();
    Ok(Some(CargoPackage { dir: dir.to_owned(), crate_name, lib, targets, auto, dependencies, unread: None }))
}

/// A TOML error with the line it is on: `line 3: invalid table header`.
fn toml_error(text: &str, err: &toml::de::Error) -> String {
    match err.span() {
        Some(span) => {
            let line = text.get(..span.start).map_or(1, |before| before.matches('\n').count() + 1);
            format!("line {line}: {}", err.message().trim())
        }
        None => err.message().trim().to_owned(),
    }
}

fn parse_package_json(dir: &str, text: &str) -> Result<Option<NpmPackage>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let Some(name) = value.get("name").and_then(|n| n.as_str()).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    let mut entries = Vec::new();
    let mut push = |rel: &str| {
        if let Some(p) = join_normalized(dir, rel) {
            entries.push(p);
        }
    };
    for field in ["types", "typings", "source", "module", "main"] {
        if let Some(rel) = value.get(field).and_then(|v| v.as_str()) {
            push(rel);
        }
    }
    let mut subpaths = Vec::new();
    match value.get("exports") {
        Some(serde_json::Value::String(rel)) => push(rel),
        Some(serde_json::Value::Object(map)) => {
            if let Some(dot) = map.get(".") {
                collect_strings(dot, &mut push);
            }
            for (subpath, conditions) in map.iter().filter(|(k, _)| k.starts_with('.')) {
                let mut targets = Vec::new();
                collect_strings(conditions, &mut |rel| targets.extend(join_normalized(dir, rel)));
                targets.sort_by_key(|t| !is_typescript_source(t));
                subpaths.push((subpath.clone(), targets));
            }
        }
        _ => {}
    }
    Ok(Some(NpmPackage { dir: dir.to_owned(), name: name.to_owned(), entries, subpaths }))
}

/// A TypeScript source file (`src/index.ts`), not a declaration file (`index.d.ts`).
fn is_typescript_source(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    [".ts", ".tsx", ".mts", ".cts"].iter().any(|e| file.ends_with(e))
        && ![".d.ts", ".d.mts", ".d.cts"].iter().any(|e| file.ends_with(e))
}

fn collect_strings(value: &serde_json::Value, push: &mut impl FnMut(&str)) {
    match value {
        serde_json::Value::String(s) => push(s),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect_strings(v, push)),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_strings(v, push)),
        _ => {}
    }
}

fn parse_pyproject(text: &str) -> Result<Option<String>, String> {
    let value: toml::Table = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    Ok(value.get("project").and_then(|p| p.get("name")).and_then(|n| n.as_str()).map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(dir: &str, crate_name: &str, lib: &str) -> CargoPackage {
        let (dir, crate_name, lib) = (dir.into(), crate_name.into(), Some(lib.into()));
        CargoPackage {
            dir,
            crate_name,
            lib,
            targets: vec![],
            auto: AutoTargets::default(),
            dependencies: vec![],
            unread: None,
        }
    }

    fn layout() -> Layout {
        let mut l = Layout { tree_name: "tree".into(), ..Layout::default() };
        l.cargo.push(package("crates/net", "my_net", "crates/net/src/lib.rs"));
        l.cargo.push(package("", "app", "src/main.rs"));
        l.npm.push(NpmPackage { dir: "web".into(), name: "@acme/web".into(), entries: vec![], subpaths: vec![] });
        l.python_packages.extend(["pkg".to_owned(), "pkg/core".to_owned(), "src/lib2".to_owned()]);
        l
    }

    #[test]
    fn rust_keys() {
        let l = layout();
        assert_eq!(l.module_key("crates/net/src/lib.rs", Family::Rust), "my_net");
        assert_eq!(l.module_key("crates/net/src/client/mod.rs", Family::Rust), "my_net::client");
        assert_eq!(l.module_key("crates/net/src/client/tls.rs", Family::Rust), "my_net::client::tls");
        assert_eq!(l.module_key("src/main.rs", Family::Rust), "app");
        assert_eq!(l.module_key("src/bin/drsg-mcp.rs", Family::Rust), "drsg_mcp");
        assert_eq!(l.module_key("crates/net/tests/it/main.rs", Family::Rust), "it");
        assert_eq!(l.module_key("crates/net/tests/it/fold.rs", Family::Rust), "it::fold");
    }

    #[test]
    fn dependencies_are_read_from_every_section() {
        let manifest = r#"
            [package]
            name = "app"
            [dependencies]
            serde-json = "1"
            tokio = { workspace = true }
            [dev-dependencies]
            tower = "0.5"
            [build-dependencies]
            cc = "1"
            [target.'cfg(unix)'.dependencies]
            libc = "0.2"
        "#;
        let package = parse_cargo("", manifest).expect("manifest parses").expect("a package");
        assert_eq!(package.dependencies, ["cc", "libc", "serde_json", "tokio", "tower"]);
        assert!(package.depends_on("serde_json") && !package.depends_on("Router"));
    }

    #[test]
    fn declared_targets_are_crate_roots() {
        // ripgrep's layout: the binary's root is `crates/core/main.rs`, its integration test is declared
        // with `autotests = false`, and the build script is named in `[package]`.
        let manifest = r#"
            [package]
            name = "ripgrep"
            build = "tools/build.rs"
            autotests = false
            [[bin]]
            name = "rg"
            path = "crates/core/main.rs"
            [[test]]
            name = "integration"
            path = "tests/tests.rs"
        "#;
        let package = parse_cargo("", manifest).expect("manifest parses").expect("a package");
        let l = Layout { tree_name: "tree".into(), cargo: vec![package], ..Layout::default() };
        let key = |path: &str| l.module_key(path, Family::Rust);
        assert_eq!(key("crates/core/main.rs"), "rg");
        assert_eq!(key("crates/core/flags/mod.rs"), "rg::flags");
        assert_eq!(key("crates/core/flags/defs.rs"), "rg::flags::defs");
        assert_eq!(key("tests/tests.rs"), "integration");
        assert_eq!(key("tests/util.rs"), "integration::util");
        assert_eq!(key("tools/build.rs"), "build_script_build");
        assert!(l.rust_module("crates/core/main.rs").is_some_and(|m| m.is_crate_root));
        assert!(l.rust_module("tests/util.rs").is_some_and(|m| !m.is_crate_root));
        // With test discovery on, each file directly under `tests/` is a crate of its own.
        let mut auto = l.cargo[0].clone();
        auto.auto.tests = true;
        let l = Layout { cargo: vec![auto], ..l };
        assert_eq!(l.module_key("tests/util.rs", Family::Rust), "util");
    }

    #[test]
    fn js_keys() {
        let l = layout();
        assert_eq!(l.module_key("web/src/api.ts", Family::Js), "@acme/web/src/api");
        assert_eq!(l.module_key("web/src/components/index.tsx", Family::Js), "@acme/web/src/components");
        assert_eq!(l.module_key("web/index.js", Family::Js), "@acme/web");
        assert_eq!(l.module_key("scripts/build.mjs", Family::Js), "tree/scripts/build");
        assert_eq!(l.module_key("web/types.d.ts", Family::Js), "@acme/web/types");
    }

    #[test]
    fn python_keys() {
        let l = layout();
        assert_eq!(l.module_key("pkg/core/utils.py", Family::Python), "pkg.core.utils");
        assert_eq!(l.module_key("pkg/__init__.py", Family::Python), "pkg");
        assert_eq!(l.module_key("src/lib2/x.py", Family::Python), "lib2.x");
        assert_eq!(l.module_key("scripts/run.py", Family::Python), "run");
    }
}
