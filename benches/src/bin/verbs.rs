//! Verb latency over an indexed plane, in process: p50 / p99 / max of `context`, `impact` (depth 3),
//! `trace` and `search` over symbols chosen by a fixed seed, and of `wire` without arguments; then `grep` of a literal and a regex over
//! the plane's tree against `rg` on the same pattern, as a ratio of medians.
//!
//!     verbs DB [--samples N] [--seed S] [--literal TEXT] [--regex RE]
//!
//! `benches/verbs.sh` indexes Django and runs this on it.
#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use drsg_planes::{Direction, Store};
use drsg_query::{self as q, Session};

struct Args {
    db: PathBuf,
    samples: usize,
    seed: u64,
    literal: String,
    regex: String,
}

fn parse_args() -> Args {
    let mut args = std::env::args().skip(1);
    let mut out = Args {
        db: PathBuf::new(),
        samples: 300,
        seed: 7,
        literal: "get_queryset".into(),
        regex: r"def \w+_queryset\(".into(),
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the flag");
        match arg.as_str() {
            "--samples" => out.samples = value().parse().expect("a number"),
            "--seed" => out.seed = value().parse().expect("a number"),
            "--literal" => out.literal = value(),
            "--regex" => out.regex = value(),
            _ => out.db = PathBuf::from(arg),
        }
    }
    assert!(!out.db.as_os_str().is_empty(), "usage: verbs DB [--samples N] [--seed S] [--literal T] [--regex RE]");
    out
}

/// A small deterministic generator (SplitMix64), so the sample is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn main() {
    let args = parse_args();
    let store = Store::open_existing(&args.db).expect("open the database");
    let session = Session { store: &store, cwd: None, files: &drsg::files::DiskFiles };
    let plane = session.plane(None).expect("one code plane");
    let root = PathBuf::from(plane.meta.synced_root.clone().expect("a tree root"));

    let mut symbols: Vec<drsg_planes::Node> = ["Function", "Method"]
        .iter()
        .flat_map(|label| store.nodes_by_label(plane.id, label).expect("read symbols"))
        .collect();
    symbols.sort_by_key(|n| n.id);
    let mut rng = Rng(args.seed);
    let sample: Vec<drsg_planes::Node> =
        (0..args.samples).map(|_| symbols[(rng.next() % symbols.len() as u64) as usize].clone()).collect();
    println!(
        "plane {} · {} functions and methods · {} sampled (seed {}) · {} nodes, {} edges",
        plane.meta.name,
        symbols.len(),
        sample.len(),
        args.seed,
        plane.node_count,
        plane.edge_count
    );

    // Warm the page cache and the statement cache.
    for n in sample.iter().take(20) {
        let _ = q::context(&session, &q::ContextParams { name: n.key.clone(), ..Default::default() });
    }
    println!("{:<22} {:>9} {:>9} {:>9} {:>7}", "verb", "p50 ms", "p99 ms", "max ms", "calls");
    report(
        "context",
        time_each(&sample, |n| {
            q::context(&session, &q::ContextParams { name: n.key.clone(), ..Default::default() })
                .map(|a| q::render(&a, None))
        }),
    );
    report(
        "impact depth 3",
        time_each(&sample, |n| {
            q::impact(&session, &q::ImpactParams { name: n.key.clone(), depth: Some(3), ..Default::default() })
                .map(|a| q::render(&a, None))
        }),
    );
    // Trace: to a symbol the start reaches in 2–4 calls when there is one, else to the next sample.
    let mut connected = Vec::new();
    let mut random = Vec::new();
    for (i, n) in sample.iter().enumerate() {
        match reached_callee(&store, n.id) {
            Some(to) => connected.push((n.key.clone(), to)),
            None => random.push((n.key.clone(), sample[(i + 1) % sample.len()].key.clone())),
        }
    }
    let trace = |pairs: &[(String, String)]| {
        time_each(pairs, |(from, to)| {
            q::trace(&session, &q::TraceParams { from: from.clone(), to: to.clone(), plane: None })
                .map(|a| q::render(&a, None))
        })
    };
    report("trace (connected)", trace(&connected));
    report("trace (other pairs)", trace(&random));
    report(
        "search",
        time_each(&sample, |n| {
            q::search(&session, &q::SearchParams { query: n.name.clone(), k: Some(10), ..Default::default() })
                .map(|a| q::render(&a, None))
        }),
    );
    // `wire` without arguments: every route with its requesters, across every code plane.
    let rounds: Vec<usize> = (0..30).collect();
    report(
        "wire (every route)",
        time_each(&rounds, |_| q::wire(&session, &q::WireParams::default()).map(|a| q::render(&a, None))),
    );

    println!();
    println!("{:<34} {:>9} {:>9} {:>7} {:>8}", "grep over the tree", "drsg ms", "rg ms", "ratio", "hits");
    for (label, pattern, regex) in [("literal", &args.literal, false), ("regex", &args.regex, true)] {
        let params = q::GrepParams { pattern: pattern.clone(), regex: Some(regex), ..Default::default() };
        let mut hits = 0;
        let ours = median_of(5, || {
            let start = Instant::now();
            let out = q::grep(&session, &params).expect("grep answers");
            hits = out.total;
            start.elapsed()
        });
        let theirs = median_of(5, || rg(&root, pattern, regex));
        println!(
            "{:<34} {:>9.1} {:>9.1} {:>6.2}x {:>8}",
            format!("{label} `{pattern}`"),
            ms(ours),
            ms(theirs),
            ours.as_secs_f64() / theirs.as_secs_f64(),
            hits
        );
    }
}

/// A symbol 2 to 4 calls away from `start`, if any (the first found, so the choice is stable).
fn reached_callee(store: &Store, start: i64) -> Option<String> {
    let mut frontier = vec![start];
    let mut seen = std::collections::HashSet::from([start]);
    let mut found = None;
    for depth in 1..=4 {
        let mut next = Vec::new();
        for node in frontier {
            for adj in store.adjacent(node, Direction::Out, &["CALLS"]).ok()? {
                if seen.insert(adj.node) {
                    next.push(adj.node);
                }
            }
        }
        if depth >= 2 {
            for &id in &next {
                let node = store.node(id).ok()??;
                if !matches!(node.label(), "External" | "UnresolvedRef") {
                    found = Some(node.key);
                }
            }
        }
        frontier = next;
    }
    found
}

fn rg(root: &Path, pattern: &str, regex: bool) -> Duration {
    let start = Instant::now();
    let status = Command::new("rg")
        .arg("-n")
        .args(if regex { None } else { Some("-F") })
        .arg("--")
        .arg(pattern)
        .arg(root)
        .stdout(Stdio::null())
        .status()
        .expect("run rg (apt install ripgrep)");
    assert!(status.code().is_some_and(|c| c <= 1), "rg failed");
    start.elapsed()
}

fn time_each<T>(items: &[T], mut run: impl FnMut(&T) -> q::Result<String>) -> Vec<Duration> {
    items
        .iter()
        .map(|item| {
            let start = Instant::now();
            let out = run(item).expect("the verb answers");
            let took = start.elapsed();
            std::hint::black_box(out);
            took
        })
        .collect()
}

fn median_of(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| f()).collect();
    times.sort();
    times[runs / 2]
}

fn report(name: &str, mut times: Vec<Duration>) {
    if times.is_empty() {
        println!("{name:<22} (no calls)");
        return;
    }
    times.sort();
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    println!(
        "{name:<22} {:>9.3} {:>9.3} {:>9.3} {:>7}",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*times.last().expect("not empty")),
        times.len()
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
