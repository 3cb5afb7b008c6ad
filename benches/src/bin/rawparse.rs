//! The raw-parse baseline: walk a tree exactly as `drsg index` does (same files, same skips), read
//! and parse every file with tree-sitter on rayon's default number of threads, extract nothing.
//! Prints `files bytes seconds` on one line for the benchmark script.
#![allow(clippy::print_stdout, reason = "a benchmark tool printing its figures")]

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

// Linked for its global allocator: the baseline allocates as `drsg` does.
use drsg as _;

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: rawparse DIR");
        std::process::exit(2);
    };
    let registry = drsg_plugins::builtin();
    let started = Instant::now();
    let walked = drsg_indexer::walk::walk(&dir, &registry, 2 * 1024 * 1024);
    let results: Vec<Option<u64>> = walked
        .candidates
        .par_iter()
        .map(|candidate| {
            let text = drsg_indexer::walk::read_source(&dir, candidate).ok()?;
            let (plugin, lang) = registry.for_path(&candidate.path)?;
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&plugin.grammar(lang)).ok()?;
            let tree = parser.parse(&text, None)?;
            // Touch the tree so the parse cannot be optimised away.
            std::hint::black_box(tree.root_node().child_count());
            Some(text.len() as u64)
        })
        .collect();
    let files = results.iter().flatten().count();
    let bytes: u64 = results.iter().flatten().sum();
    println!("{files} {bytes} {:.3}", started.elapsed().as_secs_f64());
}
