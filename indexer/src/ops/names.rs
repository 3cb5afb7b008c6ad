//! Which file names hold deployment manifests, for the walk and the tree readers as much as for the
//! `_ops` plane. It imports no other module of the crate.

/// True for a file name the `_ops` plane may read: YAML and Dockerfiles.
pub fn is_ops_name(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml") || name == "Kustomization" || is_dockerfile_name(name)
}

/// `Dockerfile`, `Containerfile`, `api.Dockerfile`, `Dockerfile.prod`, `web.dockerfile`.
pub fn is_dockerfile_name(name: &str) -> bool {
    name == "Dockerfile"
        || name == "Containerfile"
        || name.starts_with("Dockerfile.")
        || name.ends_with(".Dockerfile")
        || name.ends_with(".dockerfile")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for yes in ["Dockerfile", "Containerfile", "api.Dockerfile", "Dockerfile.prod", "web.dockerfile"] {
            assert!(is_dockerfile_name(yes), "{yes}");
        }
        assert!(!is_dockerfile_name("Dockerfile-notes.md") && !is_dockerfile_name("dockerfile.rs"));
    }

    #[test]
    fn manifest_names() {
        for yes in ["deploy.yaml", "compose.yml", "Kustomization", "Dockerfile"] {
            assert!(is_ops_name(yes), "{yes}");
        }
        assert!(!is_ops_name("main.rs") && !is_ops_name("yaml.rs"));
    }
}
