//! The `_ops` plane: workloads, images and Dockerfiles read from real manifests in fixture repositories.

use std::collections::HashMap;

use drsg_indexer::{FactsCache, IndexOptions, Silent, fold, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

fn run(fx: &Fixture) -> (drsg_indexer::RunReport, Store) {
    let mut store = Store::in_memory().expect("store");
    let report = index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
        .expect("the run finishes");
    (report, store)
}

/// The `_ops` plane's edges as `TYPE src -> dst {props}`, sorted.
fn ops_edges(store: &Store) -> Vec<String> {
    let plane = store.plane("repo_ops").expect("read").expect("an _ops plane");
    let nodes: HashMap<i64, String> =
        store.nodes(plane.id).expect("nodes").into_iter().map(|n| (n.id, n.key)).collect();
    let mut out: Vec<String> = store
        .edges(plane.id, None)
        .expect("edges")
        .into_iter()
        .map(|e| format!("{} {} -> {} {}", e.ty, nodes[&e.src], nodes[&e.dst], serde_json::Value::Object(e.props)))
        .collect();
    out.sort();
    out
}

fn issues(store: &Store) -> Vec<String> {
    let plane = store.plane("repo_ops").expect("read").expect("an _ops plane");
    let list = plane.meta.ledger["issues"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|i| format!("{}:{} {}", i["file"].as_str().unwrap_or(""), i["line"], i["reason"].as_str().unwrap_or("")))
        .collect()
}

fn has(lines: &[String], expected: &str) {
    assert!(lines.iter().any(|l| l.starts_with(expected)), "no line starting {expected:?} in {lines:#?}");
}

const MANIFESTS: &str = concat!(
    "//- /app/main.py\ndef main():\n    return 1\n",
    "//- /deploy/web.yaml\n",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  template:\n    spec:\n",
    "      initContainers:\n        - name: migrate\n          image: ghcr.io/acme/web:1a2b3c4\n",
    "      containers:\n        - name: web\n          image: ghcr.io/acme/web:1a2b3c4\n        - name: proxy\n          image: registry.local:5000/envoy\n",
    "---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n",
    "          containers:\n            - name: job\n              image: acme/job@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
    "---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: debug\n    spec:\n      containers:\n        - name: sh\n          image: busybox\n",
    "---\napiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: w\n",
    "//- /deploy/broken.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec: [unclosed\n",
    "//- /chart/Chart.yaml\napiVersion: v2\nname: web\n",
    "//- /chart/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n",
    "//- /compose.yaml\ninclude:\n  - ops/workers.yml\nservices:\n  api:\n    build:\n      context: ./app\n      dockerfile: api.Dockerfile\n    image: acme/api:${TAG}\n",
    "  web:\n    build: ./web\n  db:\n    image: postgres:15-alpine\n",
    "//- /ops/workers.yml\nservices:\n  worker:\n    image: acme/worker:v1.2.0\n    build: ../app\n",
    "//- /app/api.Dockerfile\nARG PY=3.12\nFROM python:${PY}-slim AS base\nFROM base\nLABEL org.opencontainers.image.revision=abc1234 org.opencontainers.image.version=\"1.2.0\"\n",
    "//- /app/Dockerfile\nFROM --platform=linux/amd64 node:20 AS build\nFROM nginx:1.27\n",
);

#[test]
fn kubernetes_compose_and_dockerfiles_make_workloads_images_and_builds() {
    let fx = Fixture::inline(MANIFESTS);
    let (report, store) = run(&fx);
    let ops = report.ops.expect("an _ops plane");
    assert_eq!(ops.plane, "repo_ops");
    let edges = ops_edges(&store);
    // Init and regular containers, a registry with a port, a CronJob's template, a List's items.
    has(
        &edges,
        r#"RUNS workload:deploy/web.yaml#Deployment/web -> image:ghcr.io/acme/web:1a2b3c4 {"container":"migrate","init":true,"line":16}"#,
    );
    has(
        &edges,
        r#"RUNS workload:deploy/web.yaml#Deployment/web -> image:ghcr.io/acme/web:1a2b3c4 {"container":"web","init":false,"line":19}"#,
    );
    has(
        &edges,
        r#"RUNS workload:deploy/web.yaml#Deployment/web -> image:registry.local:5000/envoy {"container":"proxy""#,
    );
    has(&edges, "RUNS workload:deploy/web.yaml#CronJob/nightly -> image:acme/job@sha256:0123");
    has(&edges, "RUNS workload:deploy/web.yaml#Pod/debug -> image:busybox");
    // Compose: an image built from a Dockerfile named in `build`, a context without a Dockerfile in the
    // tree, an included file's service whose context lies above it.
    has(&edges, r#"RUNS workload:compose.yaml#api -> image:acme/api:${TAG} {"container":"api""#);
    has(&edges, "BUILT_FROM workload:compose.yaml#api -> dockerfile:app/api.Dockerfile");
    has(&edges, "BUILT_FROM image:acme/api:${TAG} -> dockerfile:app/api.Dockerfile");
    has(&edges, "BUILT_FROM workload:compose.yaml#web -> context:web");
    has(&edges, "RUNS workload:compose.yaml#db -> image:postgres:15-alpine");
    has(&edges, "RUNS workload:ops/workers.yml#worker -> image:acme/worker:v1.2.0");
    has(&edges, "BUILT_FROM workload:ops/workers.yml#worker -> dockerfile:app/Dockerfile");
    // Dockerfile stages: ARG defaults in FROM, a stage built on an earlier one leaves no edge.
    has(&edges, r#"FROM dockerfile:app/api.Dockerfile -> image:python:3.12-slim {"line":2,"stage":"base"}"#);
    has(
        &edges,
        r#"FROM dockerfile:app/Dockerfile -> image:node:20 {"line":1,"platform":"linux/amd64","stage":"build"}"#,
    );
    has(&edges, "FROM dockerfile:app/Dockerfile -> image:nginx:1.27");
    assert_eq!(edges.iter().filter(|e| e.starts_with("FROM dockerfile:app/api.Dockerfile")).count(), 1, "{edges:#?}");

    let plane = store.plane("repo_ops").expect("read").expect("plane");
    let node = |key: &str| store.node_by_key(plane.id, key).expect("read").unwrap_or_else(|| panic!("no node {key}"));
    let web = node("workload:deploy/web.yaml#Deployment/web");
    assert_eq!(
        (web.file.as_deref(), web.line, web.props["namespace"].as_str()),
        (Some("deploy/web.yaml"), Some(6), Some("prod"))
    );
    let image = node("image:registry.local:5000/envoy");
    assert_eq!(image.props["registry"], "registry.local:5000");
    assert_eq!(image.props["repository"], "envoy");
    assert!(image.props.get("tag").is_none());
    assert_eq!(node("image:acme/api:${TAG}").props["templated"], true);
    let api = node("dockerfile:app/api.Dockerfile");
    assert_eq!((api.props["revision"].as_str(), api.props["version"].as_str()), (Some("abc1234"), Some("1.2.0")));

    // What could not be read is in the ledger with its line; the chart's templates are no YAML to read.
    let issues = issues(&store);
    has(&issues, "deploy/broken.yaml:6 not valid YAML");
    has(&issues, "deploy/web.yaml:48 kind Widget is not one drsg reads");
    assert!(issues.iter().all(|i| !i.starts_with("chart/")), "{issues:#?}");
    assert_eq!(ops.workloads, 7);
}

#[test]
fn a_repository_of_manifests_alone_indexes_and_folds() {
    let fx = Fixture::inline(
        "//- /k8s/app.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: acme/app:v1\n",
    );
    let (report, mut store) = run(&fx);
    assert_eq!(report.files, 0);
    assert_eq!(report.ops.as_ref().map(|o| o.workloads), Some(1));
    has(&ops_edges(&store), "RUNS workload:k8s/app.yaml#Deployment/app -> image:acme/app:v1");

    fx.write(
        "k8s/app.yaml",
        &std::fs::read_to_string(fx.path().join("k8s/app.yaml")).expect("read").replace(":v1", ":v2"),
    );
    fx.commit_all("bump");
    let registry = drsg_plugins::builtin();
    let cache = FactsCache::default();
    let folded = fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).expect("fold");
    assert_eq!(folded.ops.as_ref().map(|o| (o.images, o.read)), Some((1, true)));
    let edges = ops_edges(&store);
    has(&edges, "RUNS workload:k8s/app.yaml#Deployment/app -> image:acme/app:v2");
    assert!(!edges.iter().any(|e| e.contains(":v1")), "{edges:#?}");

    // A commit that changes no manifest reads none; the plane moves to the commit all the same.
    fx.write("tool.py", "def tool():\n    pass\n");
    let head = fx.commit_all("code only");
    let folded = fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).expect("fold");
    assert_eq!(folded.ops.as_ref().map(|o| (o.workloads, o.read)), Some((1, false)));
    let plane = store.plane("repo_ops").expect("read").expect("plane");
    assert_eq!(plane.meta.synced_commit.as_deref(), Some(head.as_str()));

    // The last manifest gone, the plane goes too.
    fx.write("main.py", "def f():\n    pass\n");
    fx.remove("k8s/app.yaml");
    fx.commit_all("no more manifests");
    fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).expect("fold");
    assert!(store.plane("repo_ops").expect("read").is_none());
}

#[test]
fn a_tree_with_neither_code_nor_manifests_is_refused() {
    let fx = Fixture::inline("//- /mkdocs.yml\nsite_name: docs\n//- /README.md\nhello\n");
    let mut store = Store::in_memory().expect("store");
    let err = index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
        .expect_err("nothing to index");
    assert!(err.to_string().contains("nothing to index"), "{err}");
}

#[test]
fn kustomize_overlays_and_helm_charts_make_workloads_of_their_own() {
    let fx = Fixture::inline(concat!(
        "//- /k8s/base/kustomization.yaml\nresources:\n  - deployment.yaml\n",
        "//- /k8s/base/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n",
        "      containers:\n        - name: web\n          image: ghcr.io/acme/web:1.0.0\n        - name: sidecar\n          image: envoyproxy/envoy:v1.30\n",
        "//- /k8s/overlays/prod/kustomization.yaml\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
        "resources:\n  - ../../base\n  - https://github.com/acme/shared//base?ref=v1\nimages:\n  - name: ghcr.io/acme/web\n    newTag: 1.2.0\n",
        "//- /chart/Chart.yaml\napiVersion: v2\nname: web\nappVersion: \"1.4.0\"\n",
        "//- /chart/values.yaml\nimage:\n  repository: ghcr.io/acme/web\n  tag: \"\"\nname: web\n",
        "//- /chart/values-prod.yaml\nimage:\n  tag: \"1.5.0\"\n",
        "//- /chart/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.name }}\n",
        "spec:\n  template:\n    spec:\n      containers:\n        - name: {{ .Chart.Name }}\n",
        "          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}\"\n",
        "        - name: tools\n          image: {{ include \"web.tools\" . }}\n",
        "{{- if .Values.migrate }}\n---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    spec:\n      containers:\n        - name: m\n          image: busybox:1.36\n{{- end }}\n",
    ));
    let (_, store) = run(&fx);
    let edges = ops_edges(&store);
    has(&edges, "RUNS workload:k8s/base/deployment.yaml#Deployment/web -> image:ghcr.io/acme/web:1.0.0");
    // The overlay's workload runs the overridden image; the sidecar it does not touch stays.
    has(
        &edges,
        r#"RUNS workload:k8s/overlays/prod/kustomization.yaml#Deployment/web -> image:ghcr.io/acme/web:1.2.0 {"container":"web","init":false,"line":7}"#,
    );
    has(&edges, "RUNS workload:k8s/overlays/prod/kustomization.yaml#Deployment/web -> image:envoyproxy/envoy:v1.30");
    has(
        &edges,
        r#"OVERRIDES kustomization:k8s/overlays/prod/kustomization.yaml -> image:ghcr.io/acme/web:1.2.0 {"line":7}"#,
    );
    // The chart: values filled in (the empty tag falls back to the appVersion), a variant per values file,
    // an expression drsg cannot evaluate kept as written, a conditional document read all the same.
    has(
        &edges,
        r#"RUNS workload:chart/templates/deployment.yaml#Deployment/web -> image:ghcr.io/acme/web:1.4.0 {"container":"web","init":false,"line":10}"#,
    );
    has(&edges, "RUNS workload:chart/templates/deployment.yaml#Deployment/web -> image:{{ include \"web.tools\" . }}");
    has(&edges, "RUNS workload:chart/templates/deployment.yaml#Job/migrate -> image:busybox:1.36");
    has(&edges, "RUNS workload:chart/values-prod.yaml#Deployment/web -> image:ghcr.io/acme/web:1.5.0");
    assert!(!edges.iter().any(|e| e.starts_with("RUNS workload:chart/values-prod.yaml#Job")), "{edges:#?}");
    has(&edges, r#"OVERRIDES values:chart/values.yaml -> image:ghcr.io/acme/web:1.4.0 {"line":2}"#);
    let issues = issues(&store);
    has(
        &issues,
        "k8s/overlays/prod/kustomization.yaml:5 remote resource https://github.com/acme/shared//base?ref=v1 is not read",
    );
    assert!(!issues.iter().any(|i| i.contains("Kustomization")), "{issues:#?}");
}
