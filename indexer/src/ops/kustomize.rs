//! kustomize: a `kustomization.yaml`'s `images:` overrides applied to the workloads of its `resources`
//! (files, and directories holding their own kustomization, overrides applied innermost first). Each
//! workload an overlay changes becomes a workload of the overlay, keyed by its file.

use std::collections::BTreeMap;

use super::image::ImageRef;
use super::yaml::{documents, get, get_text, items, line, text};
use super::{Facts, Override, Workload, join};

/// The file names kustomize looks for in a directory.
pub const NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// One `images:` entry.
#[derive(Debug, Clone)]
struct ImageOverride {
    name: String,
    new_name: Option<String>,
    new_tag: Option<String>,
    digest: Option<String>,
    line: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Kustomization {
    file: String,
    /// Resource files and directories, relative to the tree's root.
    resources: Vec<String>,
    images: Vec<ImageOverride>,
}

/// Reads a kustomization file; `None` when it does not parse (an issue says why).
pub fn read(file: &str, source: &str, facts: &mut Facts) -> Option<Kustomization> {
    let docs = match documents(source) {
        Ok(docs) => docs,
        Err((line, why)) => {
            facts.issue(file, line, format!("not valid YAML: {why}"));
            return None;
        }
    };
    let dir = file.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let mut out = Kustomization { file: file.to_owned(), ..Kustomization::default() };
    for doc in &docs {
        for field in ["resources", "bases", "components"] {
            for r in get(doc, field).into_iter().flat_map(items) {
                let Some(path) = text(r) else { continue };
                if path.contains("://") || path.starts_with("github.com/") || path.contains("?ref=") {
                    facts.issue(file, line(r), format!("remote resource {path} is not read"));
                    continue;
                }
                match join(dir, path) {
                    Some(rel) => out.resources.push(rel),
                    None => facts.issue(file, line(r), format!("resource {path} lies outside the tree")),
                }
            }
        }
        for entry in get(doc, "images").into_iter().flat_map(items) {
            let Some(name) = get_text(entry, "name") else { continue };
            out.images.push(ImageOverride {
                name: name.to_owned(),
                new_name: get_text(entry, "newName").map(str::to_owned),
                new_tag: get_text(entry, "newTag").map(str::to_owned),
                digest: get_text(entry, "digest").map(str::to_owned),
                line: line(entry),
            });
        }
    }
    Some(out)
}

/// Applies every kustomization's overrides: the workloads each one changes become its own.
pub fn apply(kustomizations: &[Kustomization], facts: &mut Facts) {
    let by_dir: BTreeMap<&str, &Kustomization> =
        kustomizations.iter().map(|k| (k.file.rsplit_once('/').map(|(d, _)| d).unwrap_or(""), k)).collect();
    let by_file: BTreeMap<&str, Vec<&Workload>> = facts.workloads.iter().fold(BTreeMap::new(), |mut map, w| {
        map.entry(w.file.as_str()).or_insert_with(Vec::new).push(w);
        map
    });
    let mut made = Vec::new();
    let mut overrides = Vec::new();
    for k in kustomizations.iter().filter(|k| !k.images.is_empty()) {
        let base = effective(k, &by_dir, &by_file, 0, false);
        for (before, after) in base.iter().zip(effective(k, &by_dir, &by_file, 0, true)) {
            let changed: Vec<u32> = before
                .containers
                .iter()
                .zip(&after.containers)
                .filter(|(b, a)| b.image != a.image)
                .map(|(_, a)| a.line)
                .collect();
            if changed.is_empty() {
                continue;
            }
            for c in after.containers.iter().filter(|c| changed.contains(&c.line)) {
                overrides.push(Override {
                    file: k.file.clone(),
                    image: c.image.clone(),
                    line: c.line,
                    kind: "kustomize",
                });
            }
            let line = after.containers.iter().map(|c| c.line).min().unwrap_or(1);
            made.push(Workload { file: k.file.clone(), line, ..after });
        }
    }
    facts.workloads.extend(made);
    facts.overrides.extend(overrides);
}

/// The workloads of `k`'s resources with the overrides of the kustomizations below it applied, and `k`'s
/// own when `own` is set. A container changed by an override carries the override's line.
fn effective(
    k: &Kustomization,
    by_dir: &BTreeMap<&str, &Kustomization>,
    by_file: &BTreeMap<&str, Vec<&Workload>>,
    depth: usize,
    own: bool,
) -> Vec<Workload> {
    let mut out = Vec::new();
    if depth > 8 {
        return out;
    }
    for r in &k.resources {
        match (by_dir.get(r.as_str()), by_file.get(r.as_str())) {
            (Some(inner), _) => out.extend(effective(inner, by_dir, by_file, depth + 1, true)),
            (None, Some(ws)) => out.extend(ws.iter().map(|w| (*w).clone())),
            (None, None) => {}
        }
    }
    if own {
        for w in &mut out {
            for c in &mut w.containers {
                if let Some(o) = k.images.iter().find(|o| matches(&c.image, &o.name)) {
                    c.image = overridden(&c.image, o);
                    c.line = o.line;
                }
            }
        }
    }
    out
}

/// True when `reference` is the image `name` names (its name, without tag or digest).
fn matches(reference: &str, name: &str) -> bool {
    ImageRef::parse(reference).is_some_and(|r| without_version(&r.reference) == name)
}

fn without_version(reference: &str) -> &str {
    let name = reference.split('@').next().unwrap_or(reference);
    match name.rfind(':') {
        Some(colon) if !name[colon..].contains('/') => &name[..colon],
        _ => name,
    }
}

/// `reference` with an override's new name, tag or digest.
fn overridden(reference: &str, o: &ImageOverride) -> String {
    let parsed = ImageRef::parse(reference);
    let name = o.new_name.clone().unwrap_or_else(|| without_version(reference).to_owned());
    // A digest given replaces the tag, as kustomize writes it; a new tag drops the old digest.
    let tag = match &o.digest {
        Some(_) => None,
        None => o.new_tag.clone().or_else(|| parsed.as_ref().and_then(|p| p.tag.clone())),
    };
    let digest = o.digest.clone().or_else(|| if o.new_tag.is_some() { None } else { parsed.and_then(|p| p.digest) });
    let mut out = name;
    if let Some(tag) = tag {
        out = format!("{out}:{tag}");
    }
    if let Some(digest) = digest {
        out = format!("{out}@{digest}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(name: &str, new_name: Option<&str>, new_tag: Option<&str>, digest: Option<&str>) -> ImageOverride {
        ImageOverride {
            name: name.into(),
            new_name: new_name.map(Into::into),
            new_tag: new_tag.map(Into::into),
            digest: digest.map(Into::into),
            line: 1,
        }
    }

    #[test]
    fn overrides_rewrite_names_tags_and_digests() {
        assert!(matches("ghcr.io/acme/web:1.0", "ghcr.io/acme/web"));
        assert!(matches("registry:5000/web", "registry:5000/web"));
        assert!(!matches("ghcr.io/acme/web:1.0", "web"));
        assert_eq!(overridden("ghcr.io/acme/web:1.0", &o("", None, Some("1.2.0"), None)), "ghcr.io/acme/web:1.2.0");
        assert_eq!(overridden("web", &o("", Some("ghcr.io/acme/web"), None, None)), "ghcr.io/acme/web");
        assert_eq!(overridden("web:1", &o("", None, None, Some("sha256:ab"))), "web@sha256:ab");
    }
}
