//! Helm charts: the workloads of a chart's templates with the chart's values filled in, and the image
//! blocks of its values files.
//!
//! A template is a Go template, not YAML, so it is read by lines: each document's `kind:` and
//! `metadata.name`, and its `image:` lines. A `{{ … }}` that is a value path (`.Values.image.tag`,
//! `.Chart.AppVersion`), with `default`, `quote` or `trim` after it, is filled in from the values;
//! any other keeps the reference templated. A values file other than `values.yaml` is a variant: the
//! chart's workloads again, with that file's values over the defaults, keyed by that file.

use saphyr::MarkedYaml;

use super::yaml::{documents, entries, get, get_text, line, text};
use super::{Container, Facts, Override, Workload};

/// A chart: its directory, `Chart.yaml`'s text, and its values files and templates as (path, text).
pub struct Chart<'a> {
    pub dir: &'a str,
    pub chart_yaml: &'a str,
    pub values: Vec<(String, String)>,
    pub templates: Vec<(String, String)>,
}

/// True for a values file of a chart: `values.yaml` and its variants (`values-prod.yaml`,
/// `values.production.yaml`).
pub fn is_values_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".yaml").or_else(|| name.strip_suffix(".yml")) else { return false };
    stem == "values" || stem.starts_with("values-") || stem.starts_with("values.") || stem.starts_with("values_")
}

/// Reads a chart into `facts`.
pub fn read(chart: &Chart<'_>, facts: &mut Facts) {
    let meta = documents(chart.chart_yaml).ok();
    let meta = meta.as_ref().and_then(|d| d.first());
    let app_version = meta.and_then(|m| get_text(m, "appVersion")).map(str::to_owned);
    let chart_name = meta.and_then(|m| get_text(m, "name")).unwrap_or(chart.dir).to_owned();
    let mut parsed: Vec<(String, Vec<MarkedYaml<'_>>)> = Vec::new();
    for (path, source) in &chart.values {
        match documents(source) {
            Ok(docs) => parsed.push((path.clone(), docs)),
            Err((line, why)) => facts.issue(path, line, format!("not valid YAML: {why}")),
        }
    }
    let defaults = parsed.iter().find(|(p, _)| p.ends_with("/values.yaml") || p == "values.yaml");
    for (path, docs) in &parsed {
        for doc in docs {
            // `global.imageRegistry` prefixes every block that names no registry of its own.
            let global = super::yaml::at(doc, &["global", "imageRegistry"]).and_then(text).filter(|r| !r.is_empty());
            let defaults = Block { app_version: app_version.as_deref(), registry: global };
            image_blocks(path, doc, &defaults, facts);
        }
    }
    // The chart as installed with its defaults, then once per other values file.
    let default_layers: Vec<&MarkedYaml<'_>> = defaults.iter().flat_map(|(_, docs)| docs.first()).collect();
    let base = Scope { layers: &default_layers, app_version: app_version.as_deref(), chart_name: &chart_name };
    for (path, source) in &chart.templates {
        for w in template_workloads(path, source, &base) {
            facts.workloads.push(w.into_workload(None));
        }
    }
    for (values_file, docs) in parsed.iter().filter(|(p, _)| Some(p) != defaults.map(|(d, _)| d)) {
        let layers: Vec<&MarkedYaml<'_>> = docs.first().into_iter().chain(default_layers.iter().copied()).collect();
        let scope = Scope { layers: &layers, ..base };
        for (path, source) in &chart.templates {
            for w in template_workloads(path, source, &scope) {
                // Only the workloads this file changes are variants of their own.
                if w.containers.iter().any(|c| base.fill(&c.raw).0 != c.container.image) {
                    facts.workloads.push(w.into_workload(Some(values_file)));
                }
            }
        }
    }
}

/// Values a template reads: the layers in order of precedence, and the chart's metadata.
#[derive(Clone, Copy)]
struct Scope<'a, 'y> {
    layers: &'a [&'a MarkedYaml<'y>],
    app_version: Option<&'a str>,
    chart_name: &'a str,
}

impl Scope<'_, '_> {
    /// `text` with each `{{ … }}` filled in; the flag says whether every one was.
    fn fill(&self, text: &str) -> (String, bool) {
        let mut out = String::new();
        let mut rest = text;
        let mut whole = true;
        while let Some(open) = rest.find("{{") {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find("}}") else {
                out.push_str(&rest[open..]);
                return (out, false);
            };
            let expr = &rest[open + 2..open + close];
            match self.eval(expr) {
                Some(value) => out.push_str(&value),
                None => {
                    whole = false;
                    out.push_str(&rest[open..open + close + 2]);
                }
            }
            rest = &rest[open + close + 2..];
        }
        out.push_str(rest);
        (out, whole)
    }

    /// A pipeline of a value path and `default`, `quote`, `trim`, `toString`, `lower`.
    fn eval(&self, expr: &str) -> Option<String> {
        let expr = expr.trim().trim_start_matches('-').trim_end_matches('-').trim();
        let mut stages = expr.split('|').map(str::trim);
        let mut value = self.term(stages.next()?)?;
        for stage in stages {
            let mut words = stage.split_whitespace();
            match words.next()? {
                "default" => {
                    let fallback = self.term(words.next()?)?;
                    if value.is_empty() {
                        value = fallback;
                    }
                }
                "quote" | "squote" | "toString" | "trim" => {}
                "lower" => value = value.to_lowercase(),
                _ => return None,
            }
        }
        Some(value)
    }

    /// `.Values.a.b`, `.Chart.AppVersion`, `.Chart.Name` or a quoted string; an absent value is empty.
    fn term(&self, term: &str) -> Option<String> {
        if let Some(path) = term.strip_prefix(".Values.") {
            let keys: Vec<&str> = path.split('.').collect();
            for layer in self.layers {
                if let Some(node) = keys.iter().try_fold(*layer, |n, k| get(n, k)) {
                    return scalar(node);
                }
            }
            return Some(String::new());
        }
        match term {
            ".Chart.AppVersion" => Some(self.app_version.unwrap_or("").to_owned()),
            ".Chart.Name" => Some(self.chart_name.to_owned()),
            _ if term.len() >= 2 && term.starts_with('"') && term.ends_with('"') => {
                Some(term[1..term.len() - 1].to_owned())
            }
            _ => None,
        }
    }
}

/// A scalar's text (`None` for a collection); an empty value for null.
fn scalar(node: &MarkedYaml<'_>) -> Option<String> {
    match text(node) {
        Some(t) => Some(t.to_owned()),
        None if entries(node).next().is_none() && !matches!(node.data, saphyr::YamlData::Sequence(_)) => {
            Some(String::new())
        }
        None => None,
    }
}

struct TemplateWorkload {
    kind: String,
    name: String,
    file: String,
    line: u32,
    containers: Vec<TemplateContainer>,
}

impl TemplateWorkload {
    /// The workload, keyed by its template, or by the values file of a variant (at its first line).
    fn into_workload(self, variant: Option<&String>) -> Workload {
        let (file, line) = match variant {
            Some(values) => (values.clone(), 1),
            None => (self.file, self.line),
        };
        Workload {
            kind: self.kind,
            name: self.name,
            namespace: None,
            file,
            line,
            containers: self.containers.into_iter().map(|c| c.container).collect(),
            build: None,
        }
    }
}

struct TemplateContainer {
    container: Container,
    /// The `image:` value as the template writes it.
    raw: String,
}

/// The workloads of one template: per document, its kind, its name and its `image:` lines.
fn template_workloads(path: &str, source: &str, scope: &Scope<'_, '_>) -> Vec<TemplateWorkload> {
    let mut out = Vec::new();
    let mut current: Option<TemplateWorkload> = None;
    let mut in_metadata = false;
    let mut container_name = String::new();
    for (i, raw_line) in source.lines().enumerate() {
        let n = i as u32 + 1;
        let trimmed = raw_line.trim();
        if trimmed == "---" || trimmed.starts_with("--- ") {
            out.extend(current.take().filter(|w| !w.containers.is_empty()));
            continue;
        }
        let top = !raw_line.starts_with([' ', '\t']);
        let value = |key: &str| -> Option<String> {
            let rest = trimmed.strip_prefix("- ").unwrap_or(trimmed).strip_prefix(key)?.strip_prefix(':')?;
            let v = rest.split(" #").next().unwrap_or(rest).trim().trim_matches(|c| c == '"' || c == '\'');
            (!v.is_empty()).then(|| v.to_owned())
        };
        if top && let Some(kind) = value("kind") {
            let w = current.get_or_insert_with(|| TemplateWorkload {
                kind: String::new(),
                name: String::new(),
                file: path.to_owned(),
                line: n,
                containers: Vec::new(),
            });
            w.kind = scope.fill(&kind).0;
            continue;
        }
        if top {
            in_metadata = trimmed == "metadata:";
            continue;
        }
        if in_metadata
            && let Some(name) = value("name")
            && let Some(w) = current.as_mut().filter(|w| w.name.is_empty())
        {
            // A name made by a named template (`{{ include "web.fullname" . }}`) is the chart's, as installed.
            let (filled, whole) = scope.fill(&name);
            w.name = if whole { filled } else { scope.chart_name.to_owned() };
            continue;
        }
        if trimmed.starts_with("- ")
            && let Some(name) = value("name")
        {
            container_name = scope.fill(&name).0;
        }
        if let Some(image) = value("image")
            && let Some(w) = current.as_mut()
        {
            let filled = scope.fill(&image).0;
            w.containers.push(TemplateContainer {
                container: Container { name: container_name.clone(), image: filled, line: n, init: false },
                raw: image,
            });
        }
    }
    out.extend(current.filter(|w| !w.containers.is_empty()));
    for w in &mut out {
        if w.name.is_empty() {
            w.name = path.rsplit('/').next().unwrap_or(path).split('.').next().unwrap_or("").to_owned();
        }
    }
    out
}

/// What an image block leaves out: the tag (the chart's `appVersion`) and the registry.
struct Block<'a> {
    app_version: Option<&'a str>,
    registry: Option<&'a str>,
}

/// Image blocks anywhere in a values file: a mapping with a `repository` (and a `tag`, a `registry`),
/// or an `image:` string. Each is an override the chart's templates may use.
fn image_blocks(file: &str, node: &MarkedYaml<'_>, defaults: &Block<'_>, facts: &mut Facts) {
    for (key, value) in entries(node) {
        if let Some(repository) = get_text(value, "repository").filter(|r| !r.is_empty()) {
            let registry = get_text(value, "registry").filter(|r| !r.is_empty()).or(defaults.registry);
            let tag = get_text(value, "tag").filter(|t| !t.is_empty()).or(defaults.app_version);
            let mut image = match registry {
                Some(r) => format!("{r}/{repository}"),
                None => repository.to_owned(),
            };
            if let Some(tag) = tag {
                image = format!("{image}:{tag}");
            }
            if let Some(digest) = get_text(value, "digest").filter(|d| !d.is_empty()) {
                image = format!("{image}@{digest}");
            }
            facts.overrides.push(Override { file: file.to_owned(), image, line: line(value), kind: "helm" });
        } else if key == "image"
            && let Some(image) = text(value).filter(|i| !i.is_empty())
        {
            facts.overrides.push(Override {
                file: file.to_owned(),
                image: image.to_owned(),
                line: line(value),
                kind: "helm",
            });
        } else {
            image_blocks(file, value, defaults, facts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_names() {
        for yes in ["values.yaml", "values-production.yaml", "values.prod.yml"] {
            assert!(is_values_name(yes), "{yes}");
        }
        assert!(!is_values_name("my-values.yaml") && !is_values_name("values.json"));
    }

    #[test]
    fn templates_are_filled_in_from_the_values() {
        let values = documents("image:\n  repository: ghcr.io/acme/web\n  tag: \"\"\nname: web\n").expect("yaml");
        let layers = [&values[0]];
        let scope = Scope { layers: &layers, app_version: Some("1.4.0"), chart_name: "web" };
        let (image, whole) =
            scope.fill("{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}");
        assert_eq!((image.as_str(), whole), ("ghcr.io/acme/web:1.4.0", true));
        let (image, whole) = scope.fill("{{ include \"x\" . }}:1");
        assert_eq!((image.as_str(), whole), ("{{ include \"x\" . }}:1", false));
        let source = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.name }}\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: \"{{ .Values.image.repository }}:v2\"\n---\nkind: Service\n";
        let ws = template_workloads("chart/templates/web.yaml", source, &scope);
        assert_eq!(ws.len(), 1);
        assert_eq!((ws[0].kind.as_str(), ws[0].name.as_str(), ws[0].line), ("Deployment", "web", 2));
        assert_eq!(ws[0].containers[0].container.image, "ghcr.io/acme/web:v2");
        assert_eq!((ws[0].containers[0].container.name.as_str(), ws[0].containers[0].container.line), ("app", 10));
    }
}
