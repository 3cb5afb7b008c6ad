//! Extraction cost: walk a tree exactly as `drsg index` does, read every file into memory, then on rayon's
//! default number of threads time (a) a bare tree-sitter parse and (b) parse + extract (`parse_file`), per
//! language. Each measurement runs three times; medians are printed with the extraction overhead.
//!
//! `extract DIR [--dump FILE]`: with `--dump`, every file's facts are also written to FILE, one JSON line
//! per file (`{"path":…,"facts":…}`), sorted by path, so two builds' outputs can be compared byte for byte.
#![allow(clippy::print_stdout, reason = "a benchmark tool printing its figures")]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use drsg_parsers::Lang;
use rayon::prelude::*;

// Linked for its global allocator: extraction allocates as in `drsg`.
use drsg as _;

const RUNS: usize = 3;

thread_local! {
    static PARSER: RefCell<tree_sitter::Parser> = RefCell::new(tree_sitter::Parser::new());
}

struct Source {
    path: String,
    lang: Lang,
    text: String,
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let mut dir = None;
    let mut dump = None;
    while let Some(arg) = args.next() {
        if arg == "--dump" {
            dump = args.next().map(PathBuf::from);
        } else {
            dir = Some(PathBuf::from(arg));
        }
    }
    let Some(dir) = dir else {
        eprintln!("usage: extract DIR [--dump FILE]");
        std::process::exit(2);
    };
    let registry = drsg_plugins::builtin();
    let walked = drsg_indexer::walk::walk(&dir, &registry, 2 * 1024 * 1024);
    let mut sources: Vec<Source> = walked
        .candidates
        .iter()
        .filter_map(|candidate| {
            let text = drsg_indexer::walk::read_source(&dir, candidate).ok()?;
            Some(Source { path: candidate.path.clone(), lang: candidate.lang, text })
        })
        .collect();
    sources.sort_by(|a, b| a.path.cmp(&b.path));

    let mut by_lang: BTreeMap<Lang, Vec<&Source>> = BTreeMap::new();
    for source in &sources {
        by_lang.entry(source.lang).or_default().push(source);
    }
    println!("threads: {}", rayon::current_num_threads());
    println!("medians of {RUNS} runs. Extraction overhead, as a share of bare parse time: `wall` and `cpu` compare");
    println!("the parse-only and parse_file runs; `split` times parse and extraction of each file in one run.");
    println!(
        "{:<11} {:>6} {:>7} {:>8} {:>11} {:>14} {:>9} {:>9} {:>9}",
        "lang", "files", "MB", "parse s", "parse MB/s", "+extract MB/s", "wall ovh", "cpu ovh", "split ovh"
    );
    for (lang, files) in &by_lang {
        let Some((plugin, _)) = registry.for_path(&files[0].path) else { continue };
        let grammar = plugin.grammar(*lang);
        let bytes: usize = files.iter().map(|s| s.text.len()).sum();
        let parse = median(|| {
            files.par_iter().for_each(|source| {
                let tree = PARSER.with(|parser| {
                    let mut parser = parser.borrow_mut();
                    parser.set_language(&grammar).expect("the plugin's grammar loads");
                    parser.parse(&source.text, None)
                });
                std::hint::black_box(tree.map(|t| t.root_node().child_count()));
            });
        });
        let extract = median(|| {
            files.par_iter().for_each(|source| {
                std::hint::black_box(drsg_parsers::parse_file(plugin, source.lang, &source.path, &source.text));
            });
        });
        // The same work timed per file, parse and extraction apart: both halves share the machine's load at
        // every moment, so their ratio holds steady when other work slows the whole run.
        let mut split: Vec<f64> = (0..RUNS)
            .map(|_| {
                let (parse, extract) = files
                    .par_iter()
                    .map(|source| split_timing(plugin, &grammar, source))
                    .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
                extract / parse
            })
            .collect();
        split.sort_by(f64::total_cmp);
        let mb = bytes as f64 / 1e6;
        println!(
            "{:<11} {:>6} {:>7.2} {:>8.3} {:>11.2} {:>14.2} {:>8.1}% {:>8.1}% {:>8.1}%",
            lang.name(),
            files.len(),
            mb,
            parse.wall,
            mb / parse.wall,
            mb / extract.wall,
            (extract.wall - parse.wall) / parse.wall * 100.0,
            (extract.cpu - parse.cpu) / parse.cpu * 100.0,
            split[RUNS / 2] * 100.0
        );
    }

    if let Some(dump) = dump {
        let lines: Vec<String> = sources
            .par_iter()
            .map(|source| {
                let Some((plugin, lang)) = registry.for_path(&source.path) else { return String::new() };
                let facts = drsg_parsers::parse_file(plugin, lang, &source.path, &source.text);
                let line = serde_json::json!({ "path": source.path, "facts": facts });
                serde_json::to_string(&line).expect("facts serialise")
            })
            .collect();
        let mut out = std::io::BufWriter::new(std::fs::File::create(&dump).expect("the dump file can be created"));
        for line in lines {
            writeln!(out, "{line}").expect("the dump file is writable");
        }
        out.flush().expect("the dump file is writable");
        println!("dumped {} files to {}", sources.len(), dump.display());
    }
}

/// Seconds spent parsing `source` (dropping the tree included) and extracting its facts (what `parse_file`
/// does after parsing: the plugin's extraction and the syntax-error count).
fn split_timing(plugin: &dyn drsg_parsers::Language, grammar: &tree_sitter::Language, source: &Source) -> (f64, f64) {
    let started = Instant::now();
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(grammar).expect("the plugin's grammar loads");
        parser.parse(&source.text, None)
    });
    let parsed = Instant::now();
    let Some(tree) = tree else { return (parsed.duration_since(started).as_secs_f64(), 0.0) };
    let facts = plugin.extract(source.lang, &tree, &source.text, &source.path);
    std::hint::black_box(drsg_parsers::syntax_errors(&tree));
    drop(std::hint::black_box(facts));
    let extracted = Instant::now();
    drop(tree);
    let dropped = Instant::now();
    let parse = parsed.duration_since(started) + dropped.duration_since(extracted);
    (parse.as_secs_f64(), extracted.duration_since(parsed).as_secs_f64())
}

/// Median wall time and median process CPU time of `RUNS` runs of `run`, in seconds.
fn median(mut run: impl FnMut()) -> Timing {
    let (mut wall, mut cpu): (Vec<f64>, Vec<f64>) = (0..RUNS)
        .map(|_| {
            let (started, cpu_started) = (Instant::now(), cpu_seconds());
            run();
            (started.elapsed().as_secs_f64(), cpu_seconds() - cpu_started)
        })
        .unzip();
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    Timing { wall: wall[RUNS / 2], cpu: cpu[RUNS / 2] }
}

#[derive(Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
}

/// User + system CPU time of this process (Linux `/proc/self/stat`, in clock ticks of 1/100 s),
/// steadier than wall time on a machine other work is sharing; 0 where it cannot be read.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
    let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}
