//! `recall`'s access to a repository: revisions resolved, trees listed, files read and declarations
//! found by parsing a file as it was, all through the indexer's git module.

use std::collections::BTreeMap;
use std::path::Path;

use drsg_indexer::{EntryKind, PathChange, Repo};
use drsg_query::{
    Declared, DirEntry, FileChange, FileError, Outline, OutlineDef, Revision, RevisionError, Revisions, SourceFiles,
};

/// Revisions of the repository holding a plane's tree.
pub struct GitRevisions<'r> {
    pub registry: &'r drsg_parsers::Registry,
}

/// The repository and the tree's place in it.
fn open(root: &Path) -> Result<(Repo, String), RevisionError> {
    let repo = Repo::discover(root).ok_or_else(|| RevisionError::NoRepository(root.display().to_string()))?;
    let root = root.canonicalize().map_err(|e| RevisionError::Read(e.to_string()))?;
    let prefix = repo.tree_prefix(&root).ok_or_else(|| RevisionError::NoRepository(root.display().to_string()))?;
    Ok((repo, prefix))
}

fn read_error(err: impl std::fmt::Display) -> RevisionError {
    RevisionError::Read(err.to_string())
}

impl Revisions for GitRevisions<'_> {
    fn resolve(&self, root: &Path, spec: &str) -> Result<Revision, RevisionError> {
        let (repo, _) = open(root)?;
        let spec = spec.trim();
        let sha = repo.resolve(spec).map_err(|e| match e {
            drsg_indexer::GitError::UnknownRevision { .. } => RevisionError::Unknown(spec.to_owned()),
            before @ drsg_indexer::GitError::BeforeReflog { .. } => RevisionError::Invalid(before.to_string()),
            shallow @ drsg_indexer::GitError::PastShallow { .. } => RevisionError::Invalid(shallow.to_string()),
            other => read_error(other),
        })?;
        let info = repo.commit(&sha).map_err(read_error)?;
        Ok(Revision {
            spec: spec.to_owned(),
            sha,
            summary: info.summary,
            date: drsg_indexer::history::iso_date(info.committed_at),
        })
    }

    fn list(&self, root: &Path, sha: &str, dir: &str) -> Result<Option<Vec<DirEntry>>, RevisionError> {
        let dir = clean(root, dir)?;
        let (repo, prefix) = open(root)?;
        let full =
            [prefix.as_str(), dir.as_str()].iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("/");
        let entries = repo.tree_files(sha, &full).map_err(read_error)?;
        if entries.is_empty() {
            return Ok(None);
        }
        let mut children: BTreeMap<String, bool> = BTreeMap::new();
        for e in entries {
            match e.path.split_once('/') {
                Some((first, _)) => children.insert(first.to_owned(), true),
                None => children.insert(e.path, false),
            };
        }
        let mut out: Vec<DirEntry> = children.into_iter().map(|(name, is_dir)| DirEntry { name, is_dir }).collect();
        out.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then(a.name.cmp(&b.name)));
        Ok(Some(out))
    }

    fn files_at(&self, root: &Path, sha: &str) -> Result<Box<dyn SourceFiles + '_>, RevisionError> {
        let (repo, prefix) = open(root)?;
        let entries =
            repo.tree_files(sha, &prefix).map_err(read_error)?.into_iter().map(|e| (e.path, (e.id, e.kind))).collect();
        Ok(Box::new(TreeAt { blobs: repo.blob_reader(), entries }))
    }

    fn declaration(&self, path: &str, text: &str, wanted: &Declared<'_>) -> Option<(u32, u32)> {
        let Declared { names, impl_trait, module } = *wanted;
        let (plugin, lang) = self.registry.for_path(path)?;
        let facts = drsg_parsers::parse_file(plugin, lang, path, text);
        let path_of = |mut i: usize| {
            let mut out: Vec<&str> = Vec::new();
            let def = &facts.defs[i];
            out.push(&def.name);
            if let Some(block) = &def.impl_block
                && let Some(ty) = block.self_ty.last()
            {
                out.push(ty);
            }
            let mut guard = 0;
            while let Some(parent) = facts.defs[i].parent {
                guard += 1;
                if guard > 64 {
                    break;
                }
                i = parent as usize;
                out.push(&facts.defs[i].name);
            }
            out.reverse();
            out
        };
        let trait_of = |i: usize| {
            facts.defs[i].impl_block.as_ref().and_then(|b| b.trait_.as_ref()).and_then(|t| t.last()).map(String::as_str)
        };
        let found = (0..facts.defs.len()).find(|&i| {
            let full = path_of(i);
            full.len() >= names.len()
                && full[full.len() - names.len()..].iter().zip(names).all(|(a, b)| a == b)
                && (impl_trait.is_none() || trait_of(i) == impl_trait)
                && (facts.defs[i].kind == drsg_parsers::DefKind::Module) == module
        });
        found.map(|i| (facts.defs[i].line, facts.defs[i].end_line))
    }

    fn merge_base(&self, root: &Path, a: &str, b: &str) -> Result<Option<String>, RevisionError> {
        let (repo, _) = open(root)?;
        repo.merge_base(a, b).map_err(read_error)
    }

    fn shallow(&self, root: &Path) -> bool {
        open(root).is_ok_and(|(repo, _)| repo.is_shallow())
    }

    fn commit_files(&self, root: &Path, tip: &str, limit: usize) -> Result<Vec<Vec<String>>, RevisionError> {
        let (repo, prefix) = open(root)?;
        let below = |path: String| -> Option<String> {
            if prefix.is_empty() {
                return Some(path);
            }
            path.strip_prefix(prefix.as_str()).and_then(|rest| rest.strip_prefix('/')).map(str::to_owned)
        };
        let mut out = Vec::new();
        for commit in repo.commits(&[tip.to_owned()], Some(limit)).map_err(read_error)? {
            if let Some(paths) = repo.commit_paths(&commit.sha).map_err(read_error)? {
                out.push(paths.into_iter().filter_map(below).collect());
            }
        }
        Ok(out)
    }

    fn changed_files(&self, root: &Path, base: &str, head: &str) -> Result<Vec<FileChange>, RevisionError> {
        let (repo, prefix) = open(root)?;
        // Paths in the tree, relative to it; `None` outside it.
        let inside = |path: String| -> Option<String> {
            if prefix.is_empty() {
                return Some(path);
            }
            path.strip_prefix(prefix.as_str()).and_then(|rest| rest.strip_prefix('/')).map(str::to_owned)
        };
        let changes = repo.changed_paths(base, head).map_err(read_error)?;
        let mut out: Vec<FileChange> = changes
            .into_iter()
            .filter_map(|change| {
                let (old, new) = match change {
                    PathChange::Added(path) => (None, inside(path)),
                    PathChange::Deleted(path) => (inside(path), None),
                    PathChange::Modified(path) => {
                        let path = inside(path);
                        (path.clone(), path)
                    }
                    PathChange::Renamed { from, to } => (inside(from), inside(to)),
                };
                (old.is_some() || new.is_some()).then_some(FileChange { old, new })
            })
            .collect();
        out.sort_by(|a, b| a.new.as_ref().or(a.old.as_ref()).cmp(&b.new.as_ref().or(b.old.as_ref())));
        Ok(out)
    }

    fn outline(&self, path: &str, text: &str) -> Option<Outline> {
        let (plugin, lang) = self.registry.for_path(path)?;
        let facts = drsg_parsers::parse_file(plugin, lang, path, text);
        let defs = facts
            .defs
            .iter()
            .map(|def| OutlineDef {
                name: def.name.clone(),
                label: def.kind.label(),
                parent: def.parent.map(|p| p as usize),
                line: def.line,
                end_line: def.end_line.max(def.line),
                signature: def.signature.clone(),
                public: def.visibility == drsg_parsers::Visibility::Public,
                is_test: def.is_test,
                impl_of: def.impl_block.as_ref().and_then(|block| {
                    let ty = block.self_ty.last()?.clone();
                    Some((ty, block.trait_.as_ref().and_then(|t| t.last()).cloned()))
                }),
            })
            .collect();
        Some(Outline {
            defs,
            syntax_errors: facts.parse_errors,
            test_file: drsg_indexer::is_test_path(path, lang),
            separator: match lang.family() {
                drsg_parsers::Family::Rust => "::",
                _ => ".",
            },
        })
    }

    fn cargo_package(&self, root: &Path, sha: &str, path: &str) -> Option<String> {
        let files = self.files_at(root, sha).ok()?;
        let mut dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        loop {
            let manifest = if dir.is_empty() { "Cargo.toml".to_owned() } else { format!("{dir}/Cargo.toml") };
            if let Ok(bytes) = files.read(root, &manifest)
                && let Ok(text) = String::from_utf8(bytes)
                && let Ok(value) = text.parse::<toml::Table>()
                && let Some(name) = value.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str())
            {
                return Some(name.to_owned());
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        }
    }
}

/// A path relative to the tree, `/`-separated, or why it is refused (the checks of
/// [`crate::files::lexical`]; a revision's tree has no symlinks to follow).
fn clean(root: &Path, path: &str) -> Result<String, FileError> {
    let rel = crate::files::lexical(root, path)?;
    Ok(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

/// A commit's tree below the plane's root, read through gix.
struct TreeAt {
    blobs: drsg_indexer::BlobReader,
    entries: BTreeMap<String, (String, EntryKind)>,
}

impl SourceFiles for TreeAt {
    fn read(&self, root: &Path, path: &str) -> Result<Vec<u8>, FileError> {
        let rel = clean(root, path)?;
        match self.entries.get(&rel) {
            Some((id, EntryKind::File)) => self
                .blobs
                .local()
                .read(id)
                .ok_or_else(|| FileError::Io { path: path.to_owned(), message: "the blob cannot be read".into() }),
            Some(_) => Err(FileError::NotText { path: path.to_owned() }),
            None => Err(FileError::NotFound { path: path.to_owned(), root: root.display().to_string() }),
        }
    }

    fn visit(
        &self,
        root: &Path,
        scope: Option<&str>,
        _all_files: bool,
        visit: &(dyn Fn(&str, &[u8]) + Sync),
    ) -> Result<(), FileError> {
        let scope = match scope {
            Some(scope) => clean(root, scope)?,
            None => String::new(),
        };
        let blobs = self.blobs.local();
        for (path, (id, kind)) in &self.entries {
            let inside =
                scope.is_empty() || path == &scope || path.strip_prefix(&scope).is_some_and(|r| r.starts_with('/'));
            if !inside || *kind != EntryKind::File {
                continue;
            }
            if let Some(bytes) = blobs.read(id) {
                visit(path, &bytes);
            }
        }
        Ok(())
    }

    fn modified(&self, _: &Path, _: &str) -> Option<i64> {
        None
    }
}
