//! Compose files: each service as a workload, its `image`, its `build` (a context directory and a
//! Dockerfile), and the files it `include`s.
//!
//! Compose files are found by name, and the files they `include` whatever their name, each read
//! once; `image` and `build` (a string, or `context` and `dockerfile`) are read.

use super::yaml::{documents, get, get_text, items, keyed, line, text};
use super::{Build, Container, Facts, Workload, join};

/// True for the names Docker Compose looks for, and their override and environment variants
/// (`compose.yaml`, `compose.override.yml`, `docker-compose.prod.yml`).
pub fn is_compose_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".yaml").or_else(|| name.strip_suffix(".yml")) else { return false };
    ["compose", "docker-compose"]
        .iter()
        .any(|base| stem == *base || stem.strip_prefix(base).is_some_and(|r| r.starts_with('.') || r.starts_with('-')))
}

/// Reads the compose file `file` (text `source`) into `facts`; returns the files it includes (relative to
/// the tree's root), which the caller reads as compose files too.
pub fn read(file: &str, source: &str, facts: &mut Facts) -> Vec<String> {
    let docs = match documents(source) {
        Ok(docs) => docs,
        Err((line, why)) => {
            facts.issue(file, line, format!("not valid YAML: {why}"));
            return Vec::new();
        }
    };
    let dir = file.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let mut included = Vec::new();
    for doc in &docs {
        for entry in get(doc, "include").into_iter().flat_map(items) {
            // `- path` or `- path: a.yaml` / `- path: [a.yaml, b.yaml]`.
            let paths: Vec<_> = match text(entry) {
                Some(p) => vec![(p, line(entry))],
                None => match get(entry, "path") {
                    Some(p) => match text(p) {
                        Some(one) => vec![(one, line(p))],
                        None => items(p).filter_map(|i| Some((text(i)?, line(i)))).collect(),
                    },
                    None => Vec::new(),
                },
            };
            for (path, at) in paths {
                match join(dir, path) {
                    Some(rel) => included.push(rel),
                    None => facts.issue(file, at, format!("include {path} lies outside the tree")),
                }
            }
        }
        for (service, at, body) in get(doc, "services").into_iter().flat_map(keyed) {
            let mut workload = Workload {
                kind: "service".to_owned(),
                name: service.to_owned(),
                namespace: None,
                file: file.to_owned(),
                line: at,
                containers: Vec::new(),
                build: None,
            };
            if let Some(image) = get(body, "image")
                && let Some(reference) = text(image)
            {
                let name = get_text(body, "container_name").unwrap_or(service);
                workload.containers.push(Container {
                    name: name.to_owned(),
                    image: reference.to_owned(),
                    line: line(image),
                    init: false,
                });
            }
            if let Some(build) = get(body, "build") {
                let (context, dockerfile) = match text(build) {
                    Some(context) => (context, None),
                    None => (get_text(build, "context").unwrap_or("."), get_text(build, "dockerfile")),
                };
                if context.contains("://") || context.starts_with("git@") {
                    facts.issue(file, line(build), format!("build context {context} is a remote repository"));
                } else {
                    match join(dir, context) {
                        Some(context) => {
                            let dockerfile = join(&context, dockerfile.unwrap_or("Dockerfile"));
                            workload.build = Some(Build { context, dockerfile, line: line(build) });
                        }
                        None => {
                            facts.issue(file, line(build), format!("build context {context} lies outside the tree"))
                        }
                    }
                }
            }
            facts.workloads.push(workload);
        }
    }
    included
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_names() {
        for yes in [
            "compose.yaml",
            "compose.yml",
            "docker-compose.yml",
            "docker-compose.prod.yml",
            "compose.override.yaml",
            "docker-compose-dev.yaml",
        ] {
            assert!(is_compose_name(yes), "{yes}");
        }
        for no in ["composer.yaml", "compose.json", "my-compose.yml", "values.yaml"] {
            assert!(!is_compose_name(no), "{no}");
        }
    }
}
