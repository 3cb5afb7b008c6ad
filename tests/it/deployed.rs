//! `deployed` over a service repository with real tags: each image's tag resolved against history, or
//! said to be floating, untagged, digest-only, templated, third-party or unknown; `--rev` the other way.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use serde_json::Value;

use crate::cli::drsg;
use drsg_testdata::Fixture;

/// The shas of a history of four commits (tags v1.0.0 on the first, v1.1.0 on the second) whose last
/// commit adds the manifests, which pin images to the earlier ones.
struct Service {
    fx: Fixture,
    shas: Vec<String>,
}

fn service() -> Service {
    let fx = Fixture::inline(concat!(
        "//- /api/main.py\ndef serve():\n    return 1\n",
        "//- /api/Dockerfile\nFROM python:3.12-slim\nCOPY . /app\n",
        "//- /web/src/app.ts\nexport function render(): number {\n  return 1;\n}\n",
        "//- /web/Dockerfile\nARG NODE=20\nFROM node:${NODE} AS build\nFROM nginx:1.27\nCOPY --from=build /dist /srv\n",
    ));
    let mut shas = vec![fx.git(&["rev-parse", "HEAD"]).trim().to_owned()];
    fx.git(&["tag", "v1.0.0"]);
    fx.write("api/main.py", "def serve():\n    return 2\n");
    shas.push(fx.commit_all("api: serve two"));
    fx.git(&["tag", "-a", "v1.1.0", "-m", "release 1.1.0"]);
    // The dev image's Dockerfile says which revision it was built from.
    fx.write("worker/Dockerfile", &format!("FROM python:3.12\nLABEL org.opencontainers.image.revision={}\n", shas[0]));
    shas.push(fx.commit_all("worker image"));
    let short = |i: usize| shas[i][..7].to_owned();
    let deployment = |name: &str, image: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: prod\nspec:\n  template:\n    spec:\n      containers:\n        - name: {name}\n          image: {image}\n"
        )
    };
    let prod = [
        deployment("api", &format!("ghcr.io/acme/api:{}", short(1))),
        deployment("web", "ghcr.io/acme/web:1.0.0"),
        deployment("web-canary", &format!("ghcr.io/acme/web:main-{}", short(2))),
        deployment("search", "ghcr.io/acme/api:latest"),
        deployment("db", "postgres:15-alpine"),
        deployment("batch", "ghcr.io/acme/api@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
        deployment("preview", "ghcr.io/acme/web:${PREVIEW_TAG}"),
        deployment("old", "ghcr.io/acme/api:v9.9.9"),
    ]
    .join("---\n");
    fx.write("deploy/prod.yaml", &prod);
    // Development: bare names, built here.
    fx.write(
        "compose.yaml",
        "services:\n  api:\n    build: ./api\n    image: acme/api\n  worker:\n    build: ./worker\n    image: acme/worker:dev\n  cache:\n    image: redis\n",
    );
    fx.write("deploy/broken.yaml", "apiVersion: v1\nkind: Pod\nspec: [unclosed\n");
    shas.push(fx.commit_all("deploy"));
    Service { fx, shas }
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Each workload's images as `name reference status [short matched_by behind]`.
fn lines(answer: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for w in answer["workloads"].as_array().unwrap() {
        for i in w["images"].as_array().unwrap() {
            let commit = match &i["commit"] {
                Value::Null => String::new(),
                c => format!(
                    " {} by {} behind {}",
                    &c["sha"].as_str().unwrap()[..7],
                    c["matched_by"].as_str().unwrap(),
                    c["behind_head"]
                ),
            };
            out.push(format!(
                "{} {} {}{commit}",
                w["name"].as_str().unwrap(),
                i["reference"].as_str().unwrap(),
                i["status"].as_str().unwrap()
            ));
        }
    }
    out
}

#[test]
fn deployed_names_the_commit_of_each_pinned_image_and_says_why_others_have_none() {
    let Service { fx, shas } = service();
    let db = fx.outside().join("d.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().unwrap()], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("deployments: 6 manifests: 11 workloads"), "{summary}");

    let out = drsg(&db, &["deployed", "--json"], fx.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let answer = json(&out);
    let s = |i: usize| &shas[i][..7];
    assert_eq!(
        lines(&answer),
        [
            "api acme/api untagged".to_owned(),
            format!("worker acme/worker:dev commit {} by OCI revision label at worker/Dockerfile:2 behind 3", s(0)),
            "cache redis untagged".to_owned(),
            format!("api ghcr.io/acme/api:{} commit {} by commit id {} behind 2", s(1), s(1), s(1)),
            format!("web ghcr.io/acme/web:1.0.0 commit {} by git tag v1.0.0 behind 3", s(0)),
            format!(
                "web-canary ghcr.io/acme/web:main-{} commit {} by commit id {} in tag main-{} behind 1",
                s(2),
                s(2),
                s(2),
                s(2)
            ),
            "search ghcr.io/acme/api:latest floating".to_owned(),
            "db postgres:15-alpine external".to_owned(),
            "batch ghcr.io/acme/api@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef digest"
                .to_owned(),
            "preview ghcr.io/acme/web:${PREVIEW_TAG} templated".to_owned(),
            "old ghcr.io/acme/api:v9.9.9 unknown-revision".to_owned(),
        ]
    );
    let web = &answer["workloads"][4];
    assert_eq!(
        (web["kind"].as_str(), web["namespace"].as_str(), web["file"].as_str()),
        (Some("Deployment"), Some("prod"), Some("deploy/prod.yaml"))
    );
    assert_eq!(web["images"][0]["registry"], "ghcr.io");
    assert_eq!(web["images"][0]["commit"]["summary"], "initial");
    assert_eq!(answer["unread_total"], 1);

    // By name, in words: the text says each status plainly.
    let out = drsg(&db, &["deployed", "api"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("api  service  compose.yaml:2\n  built from api/Dockerfile"), "{text}");
    assert!(text.contains("acme/api → untagged: no tag, so `latest`"), "{text}");
    assert!(text.contains(&format!("→ commit {}", &shas[1][..12])) && text.contains("2 behind HEAD"), "{text}");
    assert!(text.contains("deploy/broken.yaml:4: not valid YAML"), "{text}");
    let text = String::from_utf8_lossy(&drsg(&db, &["deployed", "db"], fx.path()).stdout).into_owned();
    assert!(text.contains("postgres:15-alpine → external: not built from this repository"), "{text}");

    // The other way: what runs v1.0.0 (web and the worker exactly; api and the canary run later commits
    // holding it).
    let out = drsg(&db, &["deployed", "--rev", "v1.0.0", "--json"], fx.path());
    let answer = json(&out);
    let runs: Vec<String> = answer["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| format!("{} {}", w["name"].as_str().unwrap(), w["runs"].as_str().unwrap()))
        .collect();
    assert_eq!(runs, ["worker exact", "api includes", "web exact", "web-canary includes"]);
    assert_eq!(answer["rev"]["sha"], shas[0]);
    assert_eq!(answer["unknown"], 6, "api and cache untagged, search floating, batch, preview, old");
    let out = drsg(&db, &["deployed", "--rev", &shas[2]], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("web-canary  Deployment (prod)  deploy/prod.yaml:") && text.contains("runs it"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The other verbs mention deployments: history and a commit's context name the workloads running
    // it; impact on code under a Dockerfile's directory names what ships it.
    let text = String::from_utf8_lossy(&drsg(&db, &["history"], fx.path()).stdout).into_owned();
    assert!(
        text.contains("deployed: 3 commits run by workloads")
            && text.contains(&format!(
                "{}  2024-01-01  api: serve two: api (Deployment, deploy/prod.yaml:1)",
                &shas[1][..12]
            )),
        "{text}"
    );
    let key = format!("commit:{}", shas[0]);
    let text =
        String::from_utf8_lossy(&drsg(&db, &["context", &key, "--plane", "repo_git"], fx.path()).stdout).into_owned();
    assert!(text.contains("deployed: 2 workloads run images built from it\n  worker (service, compose.yaml:5)\n  web (Deployment, deploy/prod.yaml:13)"), "{text}");
    let text = String::from_utf8_lossy(&drsg(&db, &["impact", "serve"], fx.path()).stdout).into_owned();
    assert!(text.contains("built into: api/Dockerfile → api (service, compose.yaml:2), api (Deployment, deploy/prod.yaml:1), search (Deployment, deploy/prod.yaml:37), batch (Deployment"), "{text}");

    // Misses and bad revisions.
    let out = drsg(&db, &["deployed", "nosuch"], fx.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no workload named `nosuch`; workloads: api, batch"));
    let out = drsg(&db, &["deployed", "--rev", "no-such-rev"], fx.path());
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_tree_without_manifests_says_so() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    let db = fx.outside().join("d.drsg");
    assert!(drsg(&db, &["index", fx.path().to_str().unwrap()], fx.outside()).status.success());
    let out = drsg(&db, &["deployed"], fx.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("holds no deployment manifest"));
}

#[test]
fn a_release_manifest_pins_every_service_to_one_tag_beside_bare_development_names() {
    let fx = Fixture::inline(concat!(
        "//- /services/api/Dockerfile\nFROM python:3.12\n",
        "//- /services/web/Dockerfile\nFROM node:20\n",
        "//- /services/api/app.py\ndef run():\n    pass\n",
    ));
    fx.git(&["tag", "v2.0.0"]);
    fx.write("services/api/app.py", "def run():\n    return 1\n");
    fx.commit_all("after the release");
    let pod = |name: &str, image: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n    - name: {name}\n      image: {image}\n"
        )
    };
    let release =
        [pod("api", "registry.acme.io/shop/api:v2.0.0"), pod("web", "registry.acme.io/shop/web:v2.0.0")].join("---\n");
    fx.write("release/manifests.yaml", &release);
    fx.write("dev/manifests.yaml", &[pod("api", "api"), pod("web", "web")].join("---\n"));
    fx.commit_all("manifests");
    let db = fx.outside().join("d.drsg");
    assert!(drsg(&db, &["index", fx.path().to_str().unwrap()], fx.outside()).status.success());

    // With no name, one line a workload.
    let out = drsg(&db, &["deployed"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let tag = fx.git(&["rev-parse", "--short=12", "v2.0.0"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "4 workloads, one a line (`deployed NAME` says more)", "{text}");
    assert_eq!(lines[1], "api  Pod  dev/manifests.yaml:1  api → untagged");
    assert_eq!(lines[2], "web  Pod  dev/manifests.yaml:10  web → untagged");
    assert_eq!(
        lines[3],
        format!(
            "api  Pod  release/manifests.yaml:1  registry.acme.io/shop/api:v2.0.0 → commit {} (git tag v2.0.0, 2 behind HEAD)",
            tag.trim()
        )
    );
    assert!(
        lines[4].starts_with("web  Pod  release/manifests.yaml:10  registry.acme.io/shop/web:v2.0.0 → commit"),
        "{text}"
    );

    let out = drsg(&db, &["deployed", "--rev", "v2.0.0", "--json"], fx.path());
    let answer = json(&out);
    let files: Vec<&str> =
        answer["workloads"].as_array().unwrap().iter().map(|w| w["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["release/manifests.yaml", "release/manifests.yaml"]);
    assert_eq!(answer["unknown"], 2, "the bare development names may run anything");
}
