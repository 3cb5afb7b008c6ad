//! `deployed` latency, in process: p50 / p99 / max of `deployed NAME` for every workload name of a plane,
//! of `deployed` with no name, and of `deployed --rev` for each tag a workload's image was matched by.
//!
//!     deployed DB [--rounds N]
//!
//! `benches/deployed.sh` indexes a service repository and runs this on it.
#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use drsg::files::DiskFiles;
use drsg::revisions::GitRevisions;
use drsg_planes::Store;
use drsg_query::{self as q, Session};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut db = PathBuf::new();
    let mut rounds = 20usize;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).expect("a number after --rounds"),
            _ => db = PathBuf::from(arg),
        }
    }
    assert!(!db.as_os_str().is_empty(), "usage: deployed DB [--rounds N]");
    let store = Store::open_existing(&db).expect("open the database");
    let registry = drsg_plugins::builtin();
    let revisions = GitRevisions { registry: &registry };
    let session = Session { store: &store, cwd: None, files: &DiskFiles };
    let all = q::deployed(&session, &revisions, &q::DeployedParams { limit: Some(500), ..Default::default() })
        .expect("deployed answers");
    let json = serde_json::to_value(&all).expect("serialise");
    let mut names: Vec<String> = json["workloads"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    let mut tags: Vec<String> = json["workloads"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|w| w["images"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| i["commit"]["matched_by"].as_str()?.strip_prefix("git tag ").map(str::to_owned))
        .collect();
    tags.sort();
    tags.dedup();
    println!("{} workloads ({} names), {} tags matched", json["total"], names.len(), tags.len());

    let time = |label: &str, params: &[q::DeployedParams]| {
        let mut samples = Vec::new();
        for _ in 0..rounds {
            for p in params {
                let t0 = Instant::now();
                let answer = q::deployed(&session, &revisions, p).expect("deployed answers");
                let _ = q::render(&answer, None);
                samples.push(t0.elapsed());
            }
        }
        samples.sort();
        let at = |f: f64| samples[((samples.len() - 1) as f64 * f).round() as usize];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{label:<14} n={:<5} p50 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms",
            samples.len(),
            ms(at(0.5)),
            ms(at(0.99)),
            ms(*samples.last().unwrap_or(&Duration::ZERO))
        );
    };
    let by_name: Vec<q::DeployedParams> =
        names.iter().map(|n| q::DeployedParams { name: Some(n.clone()), ..Default::default() }).collect();
    time("deployed NAME", &by_name);
    time("deployed", &[q::DeployedParams::default()]);
    let by_rev: Vec<q::DeployedParams> =
        tags.iter().map(|t| q::DeployedParams { rev: Some(t.clone()), ..Default::default() }).collect();
    if !by_rev.is_empty() {
        time("deployed --rev", &by_rev);
    }
}
