//! Image references as Docker reads them: `[registry/]repository[:tag][@digest]`.
//!
//! The first path component is a registry when it holds a `.` or a `:` (a host name or a port) or is
//! `localhost`; a `:` after the last `/` starts the tag, so `registry:5000/app` has a port and no tag.
//!
//! A digest follows `@`, and Docker Hub names get `library/`.

/// An image reference taken apart.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImageRef {
    /// As written (trimmed).
    pub reference: String,
    /// The registry host (with its port) when the reference names one.
    pub registry: Option<String>,
    /// The path below the registry (`library/postgres` for Docker Hub's official `postgres`).
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:…` when pinned by digest.
    pub digest: Option<String>,
    /// True when the reference holds a template (`${TAG}`, `{{ .Values.tag }}`, `$(…)`), which only a
    /// deploy tool can fill in.
    pub templated: bool,
}

impl ImageRef {
    /// Parses `text`; `None` for an empty reference.
    pub fn parse(text: &str) -> Option<ImageRef> {
        let reference = text.trim().trim_matches(|c| c == '"' || c == '\'').trim();
        if reference.is_empty() {
            return None;
        }
        let templated = is_templated(reference);
        let (name, digest) = match reference.split_once('@') {
            Some((name, digest)) => (name, Some(digest.to_owned())),
            None => (reference, None),
        };
        let (path, tag) = match name.rfind(':') {
            Some(colon) if !name[colon..].contains('/') => (&name[..colon], Some(name[colon + 1..].to_owned())),
            _ => (name, None),
        };
        let (registry, repository) = match path.split_once('/') {
            Some((first, rest)) if first.contains('.') || first.contains(':') || first == "localhost" => {
                (Some(first.to_owned()), rest.to_owned())
            }
            _ if !path.contains('/') && !templated => (None, format!("library/{path}")),
            _ => (None, path.to_owned()),
        };
        Some(ImageRef {
            reference: reference.to_owned(),
            registry,
            repository,
            tag: tag.filter(|t| !t.is_empty()),
            digest: digest.filter(|d| !d.is_empty()),
            templated,
        })
    }

    /// The last component of the repository (`frontend` for `ghcr.io/acme/frontend:1.2`).
    pub fn short_name(&self) -> &str {
        self.repository.rsplit('/').next().unwrap_or(&self.repository)
    }
}

/// True when `text` holds a template a deploy tool fills in.
pub fn is_templated(text: &str) -> bool {
    text.contains("${") || text.contains("{{") || text.contains("$(") || has_bare_variable(text)
}

/// `$NAME` as a shell or compose file writes a variable.
fn has_bare_variable(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(2).any(|w| w[0] == b'$' && (w[1].is_ascii_alphabetic() || w[1] == b'_'))
}

/// Tags that name no fixed revision: whatever was pushed last under that name.
pub fn is_floating_tag(tag: &str) -> bool {
    const FLOATING: &[&str] = &[
        "latest",
        "main",
        "master",
        "stable",
        "edge",
        "nightly",
        "dev",
        "develop",
        "development",
        "staging",
        "stage",
        "prod",
        "production",
        "canary",
        "beta",
        "alpha",
        "next",
        "head",
        "trunk",
        "current",
        "lts",
        "snapshot",
        "unstable",
        "test",
        "release",
        "preview",
    ];
    FLOATING.iter().any(|f| tag.eq_ignore_ascii_case(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (Option<String>, String, Option<String>, Option<String>) {
        let r = ImageRef::parse(text).expect("a reference");
        (r.registry, r.repository, r.tag, r.digest)
    }

    #[test]
    fn docker_hub_names_get_the_library_prefix() {
        assert_eq!(parts("postgres:15-alpine"), (None, "library/postgres".into(), Some("15-alpine".into()), None));
        assert_eq!(parts("nginx"), (None, "library/nginx".into(), None, None));
        assert_eq!(parts("bitnami/redis:7.2"), (None, "bitnami/redis".into(), Some("7.2".into()), None));
    }

    #[test]
    fn a_registry_with_a_port_is_not_a_tag() {
        assert_eq!(
            parts("registry.local:5000/team/api"),
            (Some("registry.local:5000".into()), "team/api".into(), None, None)
        );
        assert_eq!(
            parts("localhost:5000/api:v1.2.0"),
            (Some("localhost:5000".into()), "api".into(), Some("v1.2.0".into()), None)
        );
        assert_eq!(parts("localhost/api"), (Some("localhost".into()), "api".into(), None, None));
    }

    #[test]
    fn digests_alone_and_with_a_tag() {
        let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_eq!(
            parts(&format!("ghcr.io/acme/web@{digest}")),
            (Some("ghcr.io".into()), "acme/web".into(), None, Some(digest.into()))
        );
        assert_eq!(
            parts(&format!("ghcr.io:443/acme/web:1.4.2@{digest}")),
            (Some("ghcr.io:443".into()), "acme/web".into(), Some("1.4.2".into()), Some(digest.into()))
        );
    }

    #[test]
    fn templates_are_recognised() {
        assert!(ImageRef::parse("acme/api:${TAG}").expect("ref").templated);
        assert!(ImageRef::parse("acme/api:{{ .Values.image.tag }}").expect("ref").templated);
        assert!(ImageRef::parse("acme/api:$(git rev-parse HEAD)").expect("ref").templated);
        assert!(ImageRef::parse("$REGISTRY/api:1.0").expect("ref").templated);
        assert!(!ImageRef::parse("acme/api:1.0").expect("ref").templated);
        assert_eq!(ImageRef::parse("  "), None);
    }

    #[test]
    fn floating_tags() {
        assert!(is_floating_tag("latest") && is_floating_tag("Main") && is_floating_tag("nightly"));
        assert!(!is_floating_tag("1.2.3") && !is_floating_tag("abc1234"));
    }
}
