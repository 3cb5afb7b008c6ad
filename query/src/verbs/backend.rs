//! What a server answers from: the verb table, the shared store, the tree's files and revisions,
//! and the writer of `rebuild`; [`Backend::call`] runs one call against them within a deadline.
//!
//! A failed call's sentence writes the paths below a plane's tree relative to the tree, and the
//! tree by its directory's name, since the client may be on another machine.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use drsg_planes::SharedStore;

use super::{Args, CallError, Env, Registry, Reply, Run, Writes};
use crate::{Revisions, Session, SourceFiles, Store};

/// Re-parses a plane from its own tree: the one write the verbs offer. The binary supplies it (the
/// indexer is not a dependency of this crate).
pub trait Writer: Send + Sync {
    /// Rebuilds plane `plane`, recording `source` (who asked) on it; a one-line summary.
    fn rebuild(&self, store: &mut Store, plane: &str, source: &str) -> Result<String, String>;
}

/// Everything a call is answered from.
pub struct Backend {
    pub verbs: Registry,
    /// Shared with whatever else writes the database in this process (the watch loop).
    pub store: Arc<SharedStore>,
    pub files: Box<dyn SourceFiles + Send + Sync>,
    pub revisions: Box<dyn Revisions + Send + Sync>,
    pub cwd: Option<PathBuf>,
    pub writer: Option<Box<dyn Writer>>,
}

/// Why a call gave no answer.
#[derive(Debug)]
pub enum Failure {
    /// The call itself is wrong (bad arguments, an unknown plane…): a sentence saying what to change.
    Invalid(CallError),
    /// No such verb.
    UnknownVerb(CallError),
    /// The deadline passed before the call held the database.
    Deadline(String),
    /// drsg failed.
    Internal(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Invalid(e) | Failure::UnknownVerb(e) => f.write_str(&e.0),
            Failure::Deadline(m) | Failure::Internal(m) => f.write_str(m),
        }
    }
}

impl Backend {
    /// Runs verb `verb` on the calling thread (a blocking one): a read on a reader's snapshot, a
    /// write through the write gate. `holding` is called once the call holds the database; `until`
    /// is the deadline for getting it. `source` labels who asked on anything written.
    pub fn call(
        &self,
        verb: &str,
        args: Args,
        source: &str,
        until: Option<Instant>,
        holding: &dyn Fn(),
    ) -> Result<Reply, Failure> {
        let verb = self.verbs.get(verb).map_err(Failure::UnknownVerb)?;
        match verb.run {
            Run::Write(_) => {
                let writes = Writes { cwd: self.cwd.as_deref(), writer: self.writer.as_deref(), source };
                self.store
                    .write(until, |store| {
                        holding();
                        super::write(verb, store, &writes, args).map_err(|e| relative_paths(store, e))
                    })
                    .map_err(|_| Failure::Deadline("abandoned: the database was held past the deadline".into()))?
                    .map_err(Failure::Invalid)
            }
            Run::Read(_) | Run::Stream(_) => self
                .store
                .read(until, |store| {
                    holding();
                    let env = Env {
                        session: Session { store, cwd: self.cwd.as_deref(), files: &*self.files },
                        revisions: &*self.revisions,
                        surface: surface_of(source),
                    };
                    super::read(verb, &env, args).map_err(|e| relative_paths(store, e))
                })
                .map_err(|_| Failure::Deadline("abandoned: no reader was free before the deadline".into()))?
                .map_err(|err| Failure::Internal(format!("reading the database failed: {err}")))?
                .map_err(Failure::Invalid),
        }
    }

    /// Runs `read` on a reader's snapshot with no deadline (the resources).
    pub fn read<R>(&self, read: impl FnOnce(&Store) -> R) -> Result<R, Failure> {
        self.store
            .read(None, read)
            .map_err(|_| Failure::Deadline("no reader was free".into()))?
            .map_err(|err| Failure::Internal(format!("reading the database failed: {err}")))
    }
}

/// The surface a caller reads answers on, from its source label: MCP clients (`mcp`, `mcp:<client>`)
/// get hints in argument terms; the command line and `/rpc` (which the command line speaks) in flags.
/// An error sentence for a client of the server, which may be on another machine: the paths in it below
/// a plane's tree are written relative to the tree (`/srv/repo/src/a.py` is `src/a.py`), and the tree
/// by its directory's name (`repo`).
fn relative_paths(store: &crate::Store, error: super::CallError) -> super::CallError {
    let Ok(planes) = store.planes() else { return error };
    let mut text = error.0;
    for root in planes.iter().filter_map(|p| p.meta.synced_root.as_deref()) {
        let root = root.trim_end_matches('/');
        if root.len() > 1 && text.contains(root) {
            let name = root.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(".");
            text = text.replace(&format!("{root}/"), "").replace(root, name);
        }
    }
    super::CallError(text)
}

pub fn surface_of(source: &str) -> crate::Surface {
    if source == "mcp" || source.starts_with("mcp:") { crate::Surface::Mcp } else { crate::Surface::Cli }
}
