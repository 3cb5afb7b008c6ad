//! The dependency arrows of STYLE.md, checked against `cargo metadata`: an arrow not in the table fails.

use std::collections::{BTreeMap, BTreeSet};

mod circles;

/// Internal crates each crate may depend on (normal dependencies; dev-dependencies are free).
const ALLOWED: &[(&str, &[&str])] = &[
    ("drsg-parsers", &[]),
    ("drsg-plugins", &["drsg-parsers"]),
    ("drsg-planes", &[]),
    ("drsg-indexer", &["drsg-parsers", "drsg-planes"]),
    ("drsg-query", &["drsg-planes"]),
    ("drsg-mcp", &["drsg-query"]),
    ("drsg-watch", &[]),
    ("drsg-testdata", &[]),
    (
        "drsg-benches",
        &["drsg-parsers", "drsg-plugins", "drsg-planes", "drsg-indexer", "drsg-query", "drsg", "drsg-watch"],
    ),
    ("drsg", &["drsg-parsers", "drsg-plugins", "drsg-planes", "drsg-indexer", "drsg-query", "drsg-mcp", "drsg-watch"]),
];

/// The workspace's own packages as `cargo metadata --no-deps` gives them.
fn metadata() -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("metadata is JSON")
}

#[test]
fn dependency_arrows_follow_the_table() {
    let meta = metadata();
    let allowed: BTreeMap<&str, BTreeSet<&str>> =
        ALLOWED.iter().map(|(k, v)| (*k, v.iter().copied().collect())).collect();
    let members: BTreeSet<String> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| p["name"].as_str().expect("name").to_owned())
        .collect();
    let mut bad = Vec::new();
    for package in meta["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("name");
        let Some(ok) = allowed.get(name) else {
            bad.push(format!("{name} is not in the table of STYLE.md"));
            continue;
        };
        for dep in package["dependencies"].as_array().expect("dependencies") {
            let dep_name = dep["name"].as_str().expect("dep name");
            let is_dev = dep["kind"].as_str() == Some("dev");
            if members.contains(dep_name) && !is_dev && !ok.contains(dep_name) {
                bad.push(format!("{name} → {dep_name}"));
            }
        }
    }
    assert!(bad.is_empty(), "arrows not allowed by STYLE.md: {bad:?}");
}

/// The documents keep the shape their readers need: the README a user's page (at most 16 KB), the
/// architecture map one sentence a line (none over 400 characters).
#[test]
fn documents_keep_their_shape() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    assert!(
        readme.len() <= 16 * 1024,
        "README.md is {} bytes, over 16 KB: history goes to benches/RESULTS.md",
        readme.len()
    );
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let long: Vec<usize> =
        map.lines().enumerate().filter(|(_, l)| l.chars().count() > 400).map(|(n, _)| n + 1).collect();
    assert!(long.is_empty(), "ARCHITECTURE.md lines over 400 characters (one sentence a line): {long:?}");
    assert!(root.join("benches/RESULTS.md").is_file(), "the measurement history lives in benches/RESULTS.md");
}

/// A source file past about 800 lines usually holds two ideas (STYLE.md): none may, but test files.
#[test]
fn no_source_file_is_over_800_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a folder") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if path.is_dir() {
                // Build output, git, environments and test folders are not source.
                if !name.starts_with('.') && !matches!(name, "target" | "tests" | "node_modules") {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                let lines = std::fs::read_to_string(&path).expect("read a source").lines().count();
                if lines > 800 {
                    long.push(format!("{} ({lines})", path.strip_prefix(root).unwrap_or(&path).display()));
                }
            }
        }
    }
    assert!(long.is_empty(), "source files over 800 lines: {long:?}");
}

/// `docs/commands.md` keeps up with the command line: a row for every subcommand, naming each of its
/// own flags (long or short) but those every read verb shares.
#[test]
fn the_command_reference_names_every_command_and_flag() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/commands.md")).expect("docs/commands.md");
    let help = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_drsg")).args(args).output().expect("drsg --help");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shared =
        ["--help", "--db", "--config", "--verbose", "--quiet", "--json", "--plane", "--budget", "--limit", "--offset"];
    let top = help(&["--help"]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 20, "{top}");
    let mut missing = Vec::new();
    for command in commands {
        let Some(row) = doc.lines().find(|l| l.starts_with(&format!("| `drsg {command}"))) else {
            missing.push(format!("{command}: no row"));
            continue;
        };
        for line in help(&[command, "--help"]).lines().map(str::trim).filter(|l| l.starts_with('-')) {
            let mut flags = line.split([',', ' ']).filter(|w| w.starts_with('-'));
            let (first, second) = (flags.next().unwrap_or(""), flags.next());
            let (short, long) = match second {
                Some(long) => (Some(first), long),
                None => (None, first),
            };
            let long = long.trim_end_matches(['.', ',', ';']);
            if shared.contains(&long) {
                continue;
            }
            let named = row.contains(long)
                || short.is_some_and(|s| row.contains(&format!("{s} ")) || row.contains(&format!("[{s}]")));
            if !named {
                missing.push(format!("{command}: {long}"));
            }
        }
    }
    assert!(missing.is_empty(), "docs/commands.md lacks: {missing:?}");
}
