//! Kubernetes manifests: the workloads of each document and the images their containers run.
//!
//! The workloads are the pod templates of Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
//! CronJob and any kind with `spec.template.spec.containers`, in multi-document files and `List`
//! items, with their init and ephemeral containers.

use saphyr::MarkedYaml;

use super::yaml::{at, get, get_text, items, line, text};
use super::{Container, Facts, Workload};

/// Where each workload kind keeps its pod spec.
const POD_SPECS: &[(&str, &[&str])] = &[
    ("Pod", &["spec"]),
    ("Deployment", &["spec", "template", "spec"]),
    ("StatefulSet", &["spec", "template", "spec"]),
    ("DaemonSet", &["spec", "template", "spec"]),
    ("ReplicaSet", &["spec", "template", "spec"]),
    ("ReplicationController", &["spec", "template", "spec"]),
    ("Job", &["spec", "template", "spec"]),
    ("CronJob", &["spec", "jobTemplate", "spec", "template", "spec"]),
];

/// Kinds that run nothing: read and passed over without a word.
const INERT: &[&str] = &[
    "Service",
    "ConfigMap",
    "Secret",
    "Ingress",
    "IngressClass",
    "Namespace",
    "ServiceAccount",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "StorageClass",
    "HorizontalPodAutoscaler",
    "VerticalPodAutoscaler",
    "PodDisruptionBudget",
    "NetworkPolicy",
    "LimitRange",
    "ResourceQuota",
    "PriorityClass",
    "CustomResourceDefinition",
    "Endpoints",
    "EndpointSlice",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "APIService",
    "Gateway",
    "HTTPRoute",
    "Certificate",
    "Issuer",
    "ClusterIssuer",
    "ServiceMonitor",
    "PodMonitor",
    "PrometheusRule",
];

/// True when `text` may hold Kubernetes objects: both fields every object has appear in it.
pub fn may_hold_objects(text: &str) -> bool {
    text.contains("apiVersion") && text.contains("kind")
}

/// Reads the objects of a parsed file into `facts`. Returns false when no document is a Kubernetes
/// object (a YAML file of something else).
pub fn read(file: &str, docs: &[MarkedYaml<'_>], facts: &mut Facts) -> bool {
    let mut any = false;
    for doc in docs {
        any |= object(file, doc, facts, 0);
    }
    any
}

fn object(file: &str, doc: &MarkedYaml<'_>, facts: &mut Facts, depth: usize) -> bool {
    let (Some(kind), Some(_)) = (get_text(doc, "kind"), get_text(doc, "apiVersion")) else { return false };
    *facts.kinds.entry(kind.to_owned()).or_default() += 1;
    if kind == "List" || kind.ends_with("List") {
        if depth < 4 {
            for item in get(doc, "items").into_iter().flat_map(items) {
                object(file, item, facts, depth + 1);
            }
        }
        return true;
    }
    let spec_path = POD_SPECS.iter().find(|(k, _)| *k == kind).map(|(_, p)| *p);
    let pod = match spec_path {
        Some(path) => at(doc, path),
        // Any other kind with a pod template (an Argo Rollout, a Knative Service, an operator's kind) runs
        // what its template says.
        None => at(doc, &["spec", "template", "spec"]).filter(|s| get(s, "containers").is_some()),
    };
    let Some(pod) = pod else {
        if spec_path.is_some() {
            facts.issue(file, line(doc), format!("{kind} has no pod template where one belongs"));
        } else if !INERT.contains(&kind) {
            facts.unread_kind(file, line(doc), kind);
        }
        return true;
    };
    let metadata = get(doc, "metadata");
    // A Job made afresh each time is named by its `generateName` prefix.
    let name =
        metadata.and_then(|m| get_text(m, "name").or_else(|| get_text(m, "generateName"))).unwrap_or("").to_owned();
    if name.is_empty() {
        facts.issue(file, line(doc), format!("{kind} has no metadata.name"));
    }
    let mut workload = Workload {
        kind: kind.to_owned(),
        name,
        namespace: metadata.and_then(|m| get_text(m, "namespace")).map(str::to_owned),
        file: file.to_owned(),
        line: line(doc),
        containers: Vec::new(),
        build: None,
    };
    for (field, init) in [("initContainers", true), ("containers", false), ("ephemeralContainers", true)] {
        for c in get(pod, field).into_iter().flat_map(items) {
            let Some(image) = get(c, "image") else {
                facts.issue(file, line(c), "a container without an image".to_owned());
                continue;
            };
            let Some(reference) = text(image) else { continue };
            workload.containers.push(Container {
                name: get_text(c, "name").unwrap_or("").to_owned(),
                image: reference.to_owned(),
                line: line(image),
                init,
            });
        }
    }
    facts.workloads.push(workload);
    true
}
