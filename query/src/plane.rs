//! Plane defaulting (SPEC §6) and the freshness line.

use std::path::Path;

use drsg_planes::{PlaneInfo, PlaneKind, Store};

use crate::{Error, Result, short_sha};

/// The plane a verb answers from: the one asked for; else the only code plane; else the code plane
/// whose `synced_root` holds the working directory; else an error listing the planes.
pub fn choose_plane(store: &Store, requested: Option<&str>, cwd: Option<&Path>) -> Result<PlaneInfo> {
    let planes = store.planes()?;
    if let Some(name) = requested {
        return planes.iter().find(|p| p.meta.name == name).cloned().ok_or_else(|| Error::UnknownPlane {
            name: name.to_owned(),
            available: planes.iter().map(|p| p.meta.name.clone()).collect(),
        });
    }
    let code: Vec<&PlaneInfo> = planes.iter().filter(|p| p.meta.kind == PlaneKind::Code).collect();
    match code.as_slice() {
        [] => Err(Error::NoPlanes),
        [one] => Ok((*one).clone()),
        many => {
            // The deepest root containing the working directory wins.
            let holder = cwd.and_then(|cwd| {
                many.iter()
                    .filter(|p| p.meta.synced_root.as_deref().is_some_and(|root| cwd.starts_with(root)))
                    .max_by_key(|p| p.meta.synced_root.as_deref().map(str::len).unwrap_or(0))
            });
            match holder {
                Some(p) => Ok((*p).clone()),
                None => Err(Error::AmbiguousPlane {
                    cwd: cwd.map(Path::to_path_buf),
                    available: many.iter().map(|p| p.meta.name.clone()).collect(),
                }),
            }
        }
    }
}

/// `synced: commit <sha12>` or, for a tree that is not a git checkout, `synced: working tree (no git)`.
pub fn freshness(plane: &PlaneInfo) -> String {
    let mut line = match &plane.meta.synced_commit {
        Some(sha) => format!("synced: commit {}", short_sha(sha)),
        None => "synced: directory (not a git checkout)".to_owned(),
    };
    // A manifest that could not be read changes the keys and bindings of its package: every answer says so.
    let errors = plane.meta.ledger.get("manifest_errors").and_then(|v| v.as_array());
    for e in errors.into_iter().flatten() {
        let file = e.get("file").and_then(|f| f.as_str()).unwrap_or("?");
        let error = e.get("error").and_then(|f| f.as_str()).unwrap_or("unreadable");
        line.push_str(&format!(
            "; manifest {file} could not be read ({error}): its package's keys and dependencies are a fallback"
        ));
    }
    line
}
