//! The warm state kept in the database beside its plane (one record per file, `pipeline::record`), so
//! that a fold in a fresh process reads each file's facts and output back instead of parsing and
//! resolving the whole tree.
//!
//! A restored file's output stays packed until a fold retracts it ([`Output`]): outputs are four fifths
//! of a record, and a fold reads a few. A fold writes the records of the files its move made dirty or
//! removed; a state that does not derive from the stored records writes them all. Restoring checks the
//! header against the plane, takes the facts of every file whose blob is the record's, and rebuilds what
//! is cheap from them (the symbol table, the resolver's per-file indexes and parent links, the mentions,
//! the route layer); a file whose record has no output (an index writes facts only) is resolved, and
//! one without a readable record is parsed and resolved, as a cold load would.

use drsg_parsers::Registry;
use drsg_planes::{KeptFile, KeptHeader, KeptWrite, Store};
use foldhash::{HashMap, HashSet};
use rayon::prelude::*;

use super::{Snapshot, Warm, snapshot};
use crate::graph::{Accounting, FileOutput};
use crate::pipeline::parse::BlobFacts;
use crate::pipeline::record::{self, Packed, identity};
use crate::source::Source;

/// How a warm state differs from the records kept in the database.
#[derive(Debug, Clone)]
pub(crate) enum Kept {
    /// It does not derive from them: every record is written next.
    Whole,
    /// It derives from the records of generation `.0`, but for the records of these paths.
    Since(u64, HashSet<String>),
}

impl Kept {
    /// The same, with the records of `paths` changed too.
    pub(super) fn with_changed(self, paths: impl IntoIterator<Item = String>) -> Kept {
        match self {
            Kept::Whole => Kept::Whole,
            Kept::Since(generation, mut changed) => {
                changed.extend(paths);
                Kept::Since(generation, changed)
            }
        }
    }
}

/// A file's output: built, or packed as its record keeps it, with what a fold reads of every file.
pub(crate) enum Output {
    Built(FileOutput),
    Packed(Packed),
}

impl Output {
    pub(crate) fn acc(&self) -> &Accounting {
        match self {
            Output::Built(out) => &out.acc,
            Output::Packed(packed) => packed.acc(),
        }
    }

    pub(crate) fn edge_count(&self) -> usize {
        match self {
            Output::Built(out) => out.edges.len(),
            Output::Packed(packed) => packed.edges(),
        }
    }

    pub(crate) fn stand_in_keys(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match self {
            Output::Built(out) => Box::new(out.stand_ins.iter().map(|n| n.key.as_str())),
            Output::Packed(packed) => Box::new(packed.stand_in_keys()),
        }
    }

    /// The output, when built.
    pub(crate) fn as_built(&self) -> Option<&FileOutput> {
        match self {
            Output::Built(out) => Some(out),
            Output::Packed(_) => None,
        }
    }

    /// The output, unpacked if need be; `None` when its packed form does not read.
    pub(crate) fn read(&self) -> Option<std::borrow::Cow<'_, FileOutput>> {
        match self {
            Output::Built(out) => Some(std::borrow::Cow::Borrowed(out)),
            Output::Packed(packed) => packed.unpack().map(std::borrow::Cow::Owned),
        }
    }

    /// The output, unpacked if need be; `None` when its packed form does not read.
    pub(crate) fn into_built(self) -> Option<FileOutput> {
        match self {
            Output::Built(out) => Some(out),
            Output::Packed(packed) => packed.unpack(),
        }
    }
}

impl Warm {
    /// Writes this state's records for plane `plane` (the ones that changed since the stored records,
    /// or all of them), under this state's generation; the number of records written.
    pub(crate) fn keep(&mut self, store: &mut Store, plane: &str) -> Result<usize, drsg_planes::Error> {
        let header = KeptHeader {
            generation: self.generation,
            commit: self.commit.clone(),
            identity: identity(self.max_file_size),
        };
        if let Kept::Since(since, paths) = &self.kept
            && *since == self.generation
            && paths.is_empty()
        {
            return Ok(0);
        }
        let mut written = None;
        if let Kept::Since(since, paths) = &self.kept {
            let at: HashMap<&str, usize> =
                self.table.files.iter().enumerate().map(|(fi, f)| (f.path.as_str(), fi)).collect();
            let files: Vec<(String, Option<KeptFile>)> =
                paths.par_iter().map(|path| (path.clone(), at.get(path.as_str()).map(|&fi| self.record(fi)))).collect();
            let count = files.len();
            if store.keep(plane, &header, KeptWrite::Since { since: *since, files })? {
                written = Some(count);
            }
        }
        let written = match written {
            Some(count) => count,
            None => {
                let files: Vec<KeptFile> =
                    (0..self.table.files.len()).into_par_iter().map(|fi| self.record(fi)).collect();
                let count = files.len();
                store.keep(plane, &header, KeptWrite::Whole(files))?;
                count
            }
        };
        self.kept = Kept::Since(self.generation, HashSet::default());
        Ok(written)
    }

    /// The record of file `fi`.
    fn record(&self, fi: usize) -> KeptFile {
        let file = &self.table.files[fi];
        // A file with no blob id (none in a commit's tree) gets a record no tree matches.
        let blob = self.blobs.get(&file.path).cloned().unwrap_or_default();
        match &self.outputs[fi] {
            Output::Packed(packed) => record::write(file, blob, Some(packed)),
            Output::Built(output) => record::write(file, blob, Some(&Packed::of(output))),
        }
    }

    /// The state of plane `plane` at `commit` (its generation `generation`) from the records kept for it,
    /// reading `source` (that commit's tree) for what changed since; `None` when the records are not
    /// that state's.
    #[allow(clippy::too_many_arguments, reason = "the plane, its tree and its options, as `load` takes them")]
    pub(crate) fn restore(
        store: &Store,
        plane: &str,
        generation: u64,
        source: &Source,
        commit: &str,
        tree_name: &str,
        registry: &Registry,
        max_file_size: u64,
        cache: &BlobFacts,
    ) -> Option<(Warm, u64)> {
        let header = store.kept_header(plane).ok()??;
        if header.generation != generation || header.commit != commit || header.identity != identity(max_file_size) {
            return None;
        }
        let rows = store.kept_files(plane).ok()?;
        let records: Vec<record::Read> = rows.into_par_iter().map(record::read).collect();
        // A record that does not read is parsed again.
        let recorded: Vec<String> = records.iter().map(|r| r.file.path.clone()).collect();
        let known = records.iter().filter(|r| r.readable).map(|r| (&r.file, r.blob.as_str()));
        let snap: Snapshot = snapshot(source, tree_name, registry, max_file_size, cache, known);
        let parsed = snap.parsed;
        // An output is taken with the facts it was made from: a record of another blob is parsed and
        // resolved afresh (and written again), whatever its output.
        let mut outputs: HashMap<String, Output> = records
            .into_iter()
            .filter(|r| r.readable && source.blob_id(&r.file.path) == Some(r.blob.as_str()))
            .filter_map(|r| Some((r.file.path, Output::Packed(r.output?))))
            .collect();
        // Paths whose record is not this state's: outputs resolved afresh, records of files gone.
        let mut changed = HashSet::default();
        let mut warm = Warm::of_snapshot(source, commit, snap, max_file_size, |path| {
            let output = outputs.remove(path);
            if output.is_none() {
                changed.insert(path.to_owned());
            }
            output
        });
        // Records of files this tree does not read (gone, or skipped now) go at the next write.
        let read: HashSet<&str> = warm.table.files.iter().map(|f| f.path.as_str()).collect();
        changed.extend(recorded.into_iter().filter(|path| !read.contains(path.as_str())));
        warm.kept = Kept::Since(generation, changed);
        Some((warm, parsed))
    }
}
