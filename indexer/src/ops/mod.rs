//! The `_ops` plane: workloads, the images they run and the Dockerfiles images are built from, read
//! from a tree's deployment manifests (Kubernetes YAML, compose files, Dockerfiles).
//!
//! It is a function of the tree alone, so a fold writes it as an index does: whole, from the commit's
//! files, and only when the tree holds a manifest (a tree without one has no `_ops` plane).

mod compose;
mod dockerfile;
mod helm;
pub mod image;
mod kube;
mod kustomize;
pub mod names;
mod yaml;

use std::collections::{BTreeMap, BTreeSet};

use drsg_planes::{EdgeType, NewEdge, NodeData, PlaneKind, PlaneMeta, Props, Store};
use foldhash::{HashMap, HashMapExt};
use serde_json::{Value, json};

use crate::Error;
use crate::source::TreeView;
pub use image::ImageRef;

/// A manifest larger than this is not read (a ledger entry says so).
const MAX_MANIFEST_BYTES: usize = 1 << 20;
/// Ledger entries kept by name; the rest are counted.
const ISSUES_NAMED: usize = 100;

/// The plane holding `code_plane`'s deployment manifests.
pub fn ops_plane_name(code_plane: &str) -> String {
    format!("{code_plane}_ops")
}

/// What the manifests of a tree say.
#[derive(Debug, Default)]
pub struct Facts {
    pub workloads: Vec<Workload>,
    pub dockerfiles: Vec<Dockerfile>,
    /// Files read as manifests.
    pub files: BTreeSet<String>,
    /// Kubernetes objects by kind.
    pub kinds: BTreeMap<String, u64>,
    /// What could not be read, and where.
    pub issues: Vec<Issue>,
    /// Objects of kinds drsg does not read, by kind (each also an issue).
    pub unread_kinds: BTreeMap<String, u64>,
    /// Images a kustomization or a Helm values file sets.
    pub overrides: Vec<Override>,
    /// Files read that the walk did not list (a compose file's include in a hidden directory).
    pub extra_files: Vec<String>,
}

/// An image a kustomization's `images:` or a Helm values file's image block sets.
#[derive(Debug, Clone)]
pub struct Override {
    pub file: String,
    pub image: String,
    pub line: u32,
    /// `kustomize` or `helm`.
    pub kind: &'static str,
}

impl Facts {
    fn issue(&mut self, file: &str, line: u32, reason: String) {
        self.issues.push(Issue { file: file.to_owned(), line, reason, kind: None });
    }

    /// An object of a kind that runs nothing drsg knows of: a ledger entry, counted by kind.
    fn unread_kind(&mut self, file: &str, line: u32, kind: &str) {
        *self.unread_kinds.entry(kind.to_owned()).or_default() += 1;
        let reason = format!("kind {kind} is not one drsg reads (no pod template found)");
        self.issues.push(Issue { file: file.to_owned(), line, reason, kind: Some(kind.to_owned()) });
    }
}

/// A Kubernetes workload or a compose service.
#[derive(Debug, Clone)]
pub struct Workload {
    /// `Deployment`, `CronJob`, … or `service` for a compose service.
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    pub file: String,
    pub line: u32,
    pub containers: Vec<Container>,
    /// A compose service's `build`.
    pub build: Option<Build>,
}

#[derive(Debug, Clone)]
pub struct Container {
    pub name: String,
    /// The image reference as written.
    pub image: String,
    pub line: u32,
    /// An init or ephemeral container.
    pub init: bool,
}

/// Where a compose service's image is built: paths relative to the tree's root.
#[derive(Debug, Clone)]
pub struct Build {
    pub context: String,
    /// `None` when the Dockerfile's path leaves the tree.
    pub dockerfile: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone)]
pub struct Dockerfile {
    pub file: String,
    pub stages: Vec<Stage>,
    /// The `org.opencontainers.image.revision` label's value (ARG defaults filled in) and line.
    pub revision: Option<(String, u32)>,
    pub version: Option<(String, u32)>,
}

#[derive(Debug, Clone)]
pub struct Stage {
    pub name: Option<String>,
    /// The base image (ARG defaults filled in) or an earlier stage's name.
    pub image: String,
    pub platform: Option<String>,
    pub line: u32,
    /// True when `image` names an earlier stage.
    pub from_stage: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Issue {
    pub file: String,
    pub line: u32,
    pub reason: String,
    /// The object's kind, when the issue is only that drsg does not read that kind.
    pub kind: Option<String>,
}

/// What went into an `_ops` plane.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct OpsSummary {
    pub plane: String,
    pub files: u64,
    pub workloads: u64,
    pub images: u64,
    pub dockerfiles: u64,
    /// Manifests or parts of them that could not be read.
    pub issues: u64,
    /// False when a fold found the manifests' blobs unchanged and read none of them.
    pub read: bool,
}

/// Reads the manifests among `candidates` (paths relative to the tree's root, from the walk).
pub fn collect(tree: &dyn TreeView, candidates: &[String]) -> Facts {
    let mut facts = Facts::default();
    // A Helm chart's templates are Go templates, not YAML.
    let charts: Vec<&str> = candidates
        .iter()
        .filter_map(|p| match p.rsplit_once('/') {
            Some((dir, "Chart.yaml")) => Some(dir),
            None if p == "Chart.yaml" => Some(""),
            _ => None,
        })
        .collect();
    let in_templates = |path: &str| {
        charts.iter().any(|c| {
            let templates = if c.is_empty() { "templates/".to_owned() } else { format!("{c}/templates/") };
            path.starts_with(&templates)
        })
    };
    let read = |path: &str, facts: &mut Facts| -> Option<String> {
        match tree.read_to_string(path) {
            Ok(text) if text.len() > MAX_MANIFEST_BYTES => {
                facts.issue(path, 0, format!("larger than {} MiB: not read", MAX_MANIFEST_BYTES >> 20));
                None
            }
            Ok(text) => Some(text),
            Err(why) => {
                facts.issue(path, 0, format!("cannot be read: {why}"));
                None
            }
        }
    };
    let in_chart_dir = |path: &str| {
        let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        charts.contains(&dir)
    };
    let mut compose_done: BTreeSet<String> = BTreeSet::new();
    let mut pending: Vec<String> = Vec::new();
    let mut kustomizations = Vec::new();
    for path in candidates {
        let name = path.rsplit('/').next().unwrap_or(path);
        if in_templates(path) || name == "Chart.yaml" || (in_chart_dir(path) && helm::is_values_name(name)) {
            continue;
        }
        if kustomize::NAMES.contains(&name) {
            if let Some(text) = read(path, &mut facts) {
                facts.files.insert(path.clone());
                kustomizations.extend(kustomize::read(path, &text, &mut facts));
            }
        } else if names::is_dockerfile_name(name) {
            if let Some(text) = read(path, &mut facts) {
                facts.files.insert(path.clone());
                dockerfile::read(path, &text, &mut facts);
            }
        } else if compose::is_compose_name(name) {
            pending.push(path.clone());
        } else if let Some(text) = read(path, &mut facts)
            && kube::may_hold_objects(&text)
        {
            match yaml::documents(&text) {
                Ok(docs) => {
                    if kube::read(path, &docs, &mut facts) {
                        facts.files.insert(path.clone());
                    }
                }
                Err((line, why)) => {
                    facts.files.insert(path.clone());
                    facts.issue(path, line, format!("not valid YAML: {why}"));
                }
            }
        }
        // Compose files, with what they include (which may have any name), each read once.
        while let Some(file) = pending.pop() {
            if !compose_done.insert(file.clone()) {
                continue;
            }
            if !tree.is_file(&file) {
                facts.issue(&file, 0, "included by a compose file but not in the tree".to_owned());
                continue;
            }
            if let Some(text) = read(&file, &mut facts) {
                facts.files.insert(file.clone());
                pending.extend(compose::read(&file, &text, &mut facts));
            }
        }
    }
    for dir in &charts {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let chart_yaml = format!("{prefix}Chart.yaml");
        let Some(chart_text) = read(&chart_yaml, &mut facts) else { continue };
        facts.files.insert(chart_yaml);
        let mut chart = helm::Chart { dir, chart_yaml: &chart_text, values: Vec::new(), templates: Vec::new() };
        for path in candidates.iter().filter(|p| p.starts_with(&prefix)) {
            let rest = &path[prefix.len()..];
            let wanted = if let Some(t) = rest.strip_prefix("templates/") {
                !t.starts_with("tests/")
            } else {
                !rest.contains('/') && helm::is_values_name(rest)
            };
            if wanted && let Some(text) = read(path, &mut facts) {
                facts.files.insert(path.clone());
                let list = if rest.starts_with("templates/") { &mut chart.templates } else { &mut chart.values };
                list.push((path.clone(), text));
            }
        }
        helm::read(&chart, &mut facts);
    }
    kustomize::apply(&kustomizations, &mut facts);
    facts.workloads.sort_by(|a, b| (&a.file, a.line, &a.name).cmp(&(&b.file, b.line, &b.name)));
    facts.dockerfiles.sort_by(|a, b| a.file.cmp(&b.file));
    facts.extra_files = facts.files.iter().filter(|f| candidates.binary_search(f).is_err()).cloned().collect();
    // Failures first: an unread kind is the commonest entry and the least worrying.
    facts.issues.sort_by(|a, b| (a.kind.is_some(), &a.file, a.line).cmp(&(b.kind.is_some(), &b.file, b.line)));
    facts
}

/// `rel` (a path as a manifest writes it) taken from directory `dir`, both relative to the tree's root;
/// `None` when it leaves the tree or is absolute.
pub fn join(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The nodes and edges of an `_ops` plane.
pub fn plane(facts: &Facts) -> (Vec<NodeData>, Vec<NewEdge>) {
    let mut nodes: Vec<NodeData> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut edges = Vec::new();
    let dockerfiles: HashMap<&str, usize> = {
        let mut map = HashMap::new();
        for d in &facts.dockerfiles {
            let stages: Vec<Value> = d
                .stages
                .iter()
                .map(|s| json!({"name": s.name, "image": s.image, "platform": s.platform, "line": s.line}))
                .collect();
            let mut props = json!({"stages": stages});
            if let Some((rev, line)) = &d.revision {
                props["revision"] = json!(rev);
                props["revision_line"] = json!(line);
            }
            if let Some((version, _)) = &d.version {
                props["version"] = json!(version);
            }
            let node = NodeData {
                key: format!("dockerfile:{}", d.file),
                labels: vec!["Dockerfile".to_owned()],
                name: d.file.clone(),
                file: Some(d.file.clone()),
                line: Some(1),
                ..NodeData::default()
            };
            map.insert(d.file.as_str(), push(&mut nodes, &mut by_key, node, &props));
        }
        map
    };
    let image = |nodes: &mut Vec<NodeData>, by_key: &mut HashMap<String, usize>, reference: &str| {
        let parsed = ImageRef::parse(reference)?;
        let key = format!("image:{}", parsed.reference);
        if let Some(&i) = by_key.get(&key) {
            return Some(i);
        }
        let props = json!({
            "reference": parsed.reference,
            "registry": parsed.registry,
            "repository": parsed.repository,
            "tag": parsed.tag,
            "digest": parsed.digest,
            "templated": parsed.templated,
            "floating": parsed.tag.as_deref().is_some_and(image::is_floating_tag),
        });
        let node = NodeData {
            key,
            labels: vec!["Image".to_owned()],
            name: parsed.short_name().to_owned(),
            ..NodeData::default()
        };
        Some(push(nodes, by_key, node, &props))
    };
    for d in &facts.dockerfiles {
        let src = dockerfiles[d.file.as_str()];
        for s in d.stages.iter().filter(|s| !s.from_stage && s.image != "scratch") {
            if let Some(dst) = image(&mut nodes, &mut by_key, &s.image) {
                let props = json!({"stage": s.name, "line": s.line, "platform": s.platform});
                edges.push(NewEdge::new(src, dst, EdgeType::From.as_str(), &obj(props.clone())));
            }
        }
    }
    for w in &facts.workloads {
        let key = if w.kind == "service" {
            format!("workload:{}#{}", w.file, w.name)
        } else {
            format!("workload:{}#{}/{}", w.file, w.kind, w.name)
        };
        let props = json!({"kind": w.kind, "name": w.name, "namespace": w.namespace, "file": w.file, "line": w.line});
        let node = NodeData {
            key,
            labels: vec!["Workload".to_owned()],
            name: w.name.clone(),
            file: Some(w.file.clone()),
            line: Some(w.line),
            ..NodeData::default()
        };
        let src = push(&mut nodes, &mut by_key, node, &props);
        let mut built_image = None;
        for c in &w.containers {
            if let Some(dst) = image(&mut nodes, &mut by_key, &c.image) {
                let props = json!({"container": c.name, "line": c.line, "init": c.init});
                edges.push(NewEdge::new(src, dst, EdgeType::Runs.as_str(), &obj(props.clone())));
                built_image.get_or_insert(dst);
            }
        }
        if let Some(build) = &w.build {
            let target = match build.dockerfile.as_deref().and_then(|f| dockerfiles.get(f)) {
                Some(&d) => d,
                None => {
                    let key = format!("context:{}", if build.context.is_empty() { "." } else { &build.context });
                    let name = build.context.rsplit('/').next().unwrap_or("").to_owned();
                    let node = NodeData { key, labels: vec!["BuildContext".to_owned()], name, ..NodeData::default() };
                    push(&mut nodes, &mut by_key, node, &json!({"dockerfile": build.dockerfile}))
                }
            };
            let props = json!({"context": build.context, "line": build.line});
            edges.push(NewEdge::new(src, target, EdgeType::BuiltFrom.as_str(), &obj(props.clone())));
            // `image:` beside `build:` names the image the build makes.
            if let Some(img) = built_image {
                edges.push(NewEdge::new(img, target, EdgeType::BuiltFrom.as_str(), &obj(props.clone())));
            }
        }
    }
    for o in &facts.overrides {
        let (key, label) = match o.kind {
            "kustomize" => (format!("kustomization:{}", o.file), "Kustomization"),
            _ => (format!("values:{}", o.file), "HelmValues"),
        };
        let src = match by_key.get(&key) {
            Some(&i) => i,
            None => {
                let node = NodeData {
                    key,
                    labels: vec![label.to_owned()],
                    name: o.file.clone(),
                    file: Some(o.file.clone()),
                    line: Some(1),
                    ..NodeData::default()
                };
                push(&mut nodes, &mut by_key, node, &json!({}))
            }
        };
        if let Some(dst) = image(&mut nodes, &mut by_key, &o.image) {
            edges.push(NewEdge::new(src, dst, EdgeType::Overrides.as_str(), &obj(json!({"line": o.line}))));
        }
    }
    edges.sort_by(|a, b| (a.src, a.dst, &a.ty, &a.props_json).cmp(&(b.src, b.dst, &b.ty, &b.props_json)));
    edges.dedup_by(|a, b| a.src == b.src && a.dst == b.dst && a.ty == b.ty && a.props_json == b.props_json);
    (nodes, edges)
}

/// Adds `node` with `props`, its key made unique (`~2`, `~3`, …) when two manifests name one thing twice.
fn push(nodes: &mut Vec<NodeData>, by_key: &mut HashMap<String, usize>, mut node: NodeData, props: &Value) -> usize {
    if by_key.contains_key(&node.key) {
        let base = node.key.clone();
        let mut n = 2;
        while by_key.contains_key(&format!("{base}~{n}")) {
            n += 1;
        }
        node.key = format!("{base}~{n}");
    }
    let at = nodes.len();
    by_key.insert(node.key.clone(), at);
    nodes.push(node.with_props(&obj(props.clone())));
    at
}

/// A JSON object as properties, its null fields left out.
pub(crate) fn obj(value: Value) -> Props {
    match value {
        Value::Object(mut map) => {
            map.retain(|_, v| !v.is_null());
            map
        }
        _ => Props::new(),
    }
}

/// The blobs of a commit's manifests, hashed (FNV-1a over `path NUL blob LF`, paths sorted): two
/// commits with the same fingerprint have the same `_ops` plane. `extra` names files read beyond the
/// walk's (a compose file's include in a hidden directory). `None` for a tree read from disk.
pub fn fingerprint(source: &crate::source::Source, candidates: &[String], extra: &[String]) -> Option<String> {
    let mut paths: Vec<&String> = candidates.iter().chain(extra).collect();
    paths.sort();
    paths.dedup();
    let crate::source::Source::Commit(tree) = source else { return None };
    let mut listed = Vec::new();
    for path in paths {
        listed.extend_from_slice(path.as_bytes());
        listed.push(0);
        listed.extend_from_slice(tree.blob_id(path).unwrap_or("-").as_bytes());
        listed.push(b'\n');
    }
    Some(format!("{:016x}", drsg_parsers::fnv1a(&listed)))
}

/// A fold's `_ops` step: when the commit's manifests are the blobs the plane was read from, only its
/// commit moves (no manifest is read); otherwise the plane is read and written again.
pub fn refold(
    source: &crate::source::Source,
    candidates: &[String],
    store: &mut Store,
    code_plane: &str,
    synced_commit: &str,
    synced_root: &str,
) -> Result<Option<OpsSummary>, Error> {
    let name = ops_plane_name(code_plane);
    if let Some(plane) = store.plane(&name)? {
        let extra: Vec<String> = plane.meta.ledger["extra_files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        let same = fingerprint(source, candidates, &extra)
            .is_some_and(|f| plane.meta.ledger["fingerprint"].as_str() == Some(f.as_str()));
        if same {
            let meta = PlaneMeta { synced_commit: Some(synced_commit.to_owned()), ..plane.meta.clone() };
            let diff = drsg_planes::PlaneDiff {
                meta,
                base_generation: plane.generation,
                remove_nodes: Vec::new(),
                upsert_nodes: Vec::new(),
                remove_edges: Vec::new(),
                add_edges: Vec::new(),
            };
            store.apply_plane_diff(&diff)?;
            return Ok(Some(summary_of(&name, &plane.meta.ledger)));
        }
    } else if candidates.is_empty() {
        return Ok(None);
    }
    let facts = collect(source, candidates);
    let print = fingerprint(source, candidates, &facts.extra_files);
    write(&facts, print, store, code_plane, Some(synced_commit), synced_root)
}

/// What a plane's ledger says was written.
fn summary_of(name: &str, ledger: &Value) -> OpsSummary {
    let n = |k: &str| ledger[k].as_u64().unwrap_or(0);
    OpsSummary {
        plane: name.to_owned(),
        files: n("files"),
        workloads: n("workloads"),
        images: n("images"),
        dockerfiles: n("dockerfiles"),
        issues: n("issue_count"),
        read: false,
    }
}

/// Writes `<code_plane>_ops` from `facts`, or removes it when the tree holds no manifest. Returns what
/// was written.
pub fn write(
    facts: &Facts,
    fingerprint: Option<String>,
    store: &mut Store,
    code_plane: &str,
    synced_commit: Option<&str>,
    synced_root: &str,
) -> Result<Option<OpsSummary>, Error> {
    let name = ops_plane_name(code_plane);
    if facts.files.is_empty() && facts.issues.is_empty() {
        store.delete_plane(&name)?;
        return Ok(None);
    }
    let (nodes, edges) = plane(facts);
    let count = |label: &str| nodes.iter().filter(|n| n.label() == label).count() as u64;
    let summary = OpsSummary {
        plane: name.clone(),
        files: facts.files.len() as u64,
        workloads: count("Workload"),
        images: count("Image"),
        dockerfiles: count("Dockerfile"),
        issues: facts.issues.len() as u64,
        read: true,
    };
    let issues: Vec<Value> = facts
        .issues
        .iter()
        .take(ISSUES_NAMED)
        .map(|i| Value::Object(obj(json!({"file": i.file, "line": i.line, "reason": i.reason, "kind": i.kind}))))
        .collect();
    let meta = PlaneMeta {
        name,
        kind: PlaneKind::Ops,
        synced_commit: synced_commit.map(str::to_owned),
        synced_root: Some(synced_root.to_owned()),
        built_by: Value::Null,
        ledger: json!({
            "files": summary.files,
            "workloads": summary.workloads,
            "images": summary.images,
            "dockerfiles": summary.dockerfiles,
            "kinds": facts.kinds,
            "unread_kinds": facts.unread_kinds,
            "issues": issues,
            "issue_count": summary.issues,
            "fingerprint": fingerprint,
            "extra_files": facts.extra_files,
        }),
    };
    store.replace_plane(&meta, &nodes, &edges)?;
    Ok(Some(summary))
}
