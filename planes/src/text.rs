//! The Tantivy text index: one document per searchable node, kept in step with SQLite.
//!
//! SQLite is the source of truth. Every commit of the index carries a payload recording, for each
//! plane, the generation its documents reflect; on open the store compares those with SQLite and
//! rebuilds the documents of planes that disagree, which heals a crash between the two commits.
//!
//! Only code planes get text documents. A document's `node_id` is a fast field, not indexed (a term
//! per document would cost Django's bulk write 54 ms of CPU time): a fold deletes documents with
//! one predicate query that reads the column once per segment. A bulk write's text thread runs at a
//! lower priority (`lower_thread_priority`), and so does the indexer's resolution thread before it
//! frees the symbol table, for the same reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::doc_predicate_query::{DocPredicateQuery, FunctionPredicate};
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, STRING, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DocId, Index, IndexReader, IndexWriter, ReloadPolicy, SegmentReader, TantivyDocument, TantivyError, Term,
};

use crate::error::{Error, Result};
use crate::tokenizer::{IDENTIFIER_TOKENIZER, IdentifierTokenizer, english_analyzer};

/// Tokenizer of the `doc` field: the terms of Tantivy's built-in English analyzer with stemming, under its
/// name (the schemas of existing indexes name it), made by [`english_analyzer`].
const ENGLISH_TOKENIZER: &str = "en_stem";
/// Overall indexing memory budget of the writer.
const WRITER_MEMORY: usize = 50_000_000;
/// The field of a document's node id.
const NODE_ID: &str = "node_id";
/// Query terms beyond this many per field are ignored (pasted paragraphs stay cheap).
const MAX_QUERY_TERMS: usize = 32;

/// How much a bulk write raises the nice value of the threads that stage its documents, and of the text
/// index threads they start.
const BULK_NICE_STEP: i32 = 10;

/// Lowers the calling thread's scheduling priority by `BULK_NICE_STEP` (Linux; nothing elsewhere), for
/// good: an unprivileged thread cannot raise it again. Called on the thread that stages a bulk write's
/// documents: the text index's threads it starts (its writer's segment builder and merge threads, when
/// this write creates the writer) inherit the priority. The indexer calls it too, on its resolution thread
/// once resolution is done, so that freeing the symbol table does not delay the text index.
///
/// A bulk write is bounded by its SQLite writer and the resolution feeding it; the text segments have
/// until the SQLite commit. Measured with two segment builders (there is one now): at equal priority the
/// four threads shared two cores evenly and the writer fell behind, leaving a core idle at the end;
/// lowered, the builders took what the writer and resolution left. Django: idle core time from 1.3 to
/// 0.85 s per run (median of 6, interleaved).
/// A step of 10 (not to 19) keeps the text threads from starving behind other programs' work.
pub fn lower_thread_priority() {
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code, reason = "one call into the C library's scheduler settings")]
    // SAFETY: `getpriority` and `setpriority` on the calling thread's own id read and change only its
    // nice value; raising it needs no privilege, and a failure (reported through the return value)
    // leaves things as they were.
    unsafe {
        let thread = libc::gettid() as libc::id_t;
        let nice = libc::getpriority(libc::PRIO_PROCESS, thread);
        libc::setpriority(libc::PRIO_PROCESS, thread, (nice + BULK_NICE_STEP).min(19));
    }
}

/// Primary labels that get no document: stand-ins, not symbols of the tree.
pub(crate) fn is_searchable(label: &str) -> bool {
    !matches!(label, "External" | "UnresolvedRef" | "Route" | "Request")
}

/// The text of one node to index; fields the node lacks are `None`.
pub(crate) struct TextDoc<'a> {
    pub(crate) node_id: i64,
    pub(crate) key: &'a str,
    pub(crate) name: &'a str,
    pub(crate) label: &'a str,
    pub(crate) file: Option<&'a str>,
    pub(crate) signature: Option<std::borrow::Cow<'a, str>>,
    pub(crate) doc: Option<std::borrow::Cow<'a, str>>,
}

/// Feeds the documents of the named plane, one by one, to the sink it is given.
pub(crate) type DocLoader<'a> = dyn FnMut(&str, &mut dyn FnMut(TextDoc<'_>)) -> Result<()> + 'a;

/// What the index holds for one plane, as recorded in the commit payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    pub(crate) generation: u64,
    pub(crate) commit: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Payload {
    planes: BTreeMap<String, Stamp>,
}

#[derive(Clone, Copy)]
struct Fields {
    plane: Field,
    node_id: Field,
    name: Field,
    key: Field,
    label: Field,
    file: Field,
    signature: Field,
    doc: Field,
}

fn schema() -> (Schema, Fields) {
    let identifier = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(IDENTIFIER_TOKENIZER).set_index_option(IndexRecordOption::WithFreqs),
    );
    let english = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(ENGLISH_TOKENIZER).set_index_option(IndexRecordOption::WithFreqs),
    );
    let mut builder = Schema::builder();
    let fields = Fields {
        plane: builder.add_text_field("plane", STRING),
        // A fast field only, not indexed: search reads it per hit, and an incremental write deletes single
        // nodes' documents by scanning it (see [`TextIndex::delete_nodes`]). Indexed, every document would add
        // a term of its own to the dictionary: on Django's 59,000 documents that cost 54 ms of CPU time and
        // 41 ms of the run's wall time (medians of 7, interleaved).
        node_id: builder.add_u64_field(NODE_ID, NumericOptions::default().set_fast()),
        name: builder.add_text_field("name", identifier.clone()),
        key: builder.add_text_field("key", identifier.clone()),
        label: builder.add_text_field("label", STRING),
        file: builder.add_text_field("file", identifier.clone()),
        signature: builder.add_text_field("signature", identifier),
        doc: builder.add_text_field("doc", english),
    };
    (builder.build(), fields)
}

/// The text index of a store and its single, lazily created writer.
pub(crate) struct TextIndex {
    index: Index,
    reader: IndexReader,
    writer: Option<IndexWriter>,
    fields: Fields,
    /// What the last commit recorded, with stamps deferred since (see [`TextIndex::defer_stamp`]).
    stamps: BTreeMap<String, Stamp>,
    /// True when `stamps` holds a stamp no commit has recorded yet.
    unsaved_stamps: bool,
    /// Database path for error messages.
    shown: PathBuf,
}

impl TextIndex {
    /// Opens or creates the index in `dir`. An index that cannot be opened (damaged, or of another
    /// schema) is discarded: SQLite holds everything needed to rebuild it.
    pub(crate) fn open_dir(dir: &Path, shown: &Path) -> Result<TextIndex> {
        let io = |action, source| Error::Io { action, path: dir.to_path_buf(), source };
        std::fs::create_dir_all(dir).map_err(|e| io("create the text index directory", e))?;
        let open = || -> tantivy::Result<Index> {
            let directory = MmapDirectory::open(dir)?;
            Index::builder().schema(schema().0).open_or_create(directory)
        };
        let index = match open() {
            Ok(index) => index,
            Err(_) => {
                std::fs::remove_dir_all(dir).map_err(|e| io("remove the unreadable text index", e))?;
                std::fs::create_dir_all(dir).map_err(|e| io("create the text index directory", e))?;
                open().map_err(text_error(shown, "creating the text index"))?
            }
        };
        TextIndex::new(index, shown)
    }

    /// Opens the index in `dir` to read only (a reader handle of a store this process holds open).
    pub(crate) fn open_reading(dir: &Path, shown: &Path) -> Result<TextIndex> {
        let directory = MmapDirectory::open(dir).map_err(|e| Error::Io {
            action: "open the text index",
            path: dir.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let index = Index::open(directory).map_err(text_error(shown, "opening the text index to read"))?;
        TextIndex::new(index, shown)
    }

    /// Moves the reader to the index's newest commit (made by another handle).
    pub(crate) fn refresh(&self) -> Result<()> {
        self.reader.reload().map_err(self.error("reloading the text index"))
    }

    /// A fresh index in memory.
    pub(crate) fn in_memory(shown: &Path) -> Result<TextIndex> {
        TextIndex::new(Index::create_in_ram(schema().0), shown)
    }

    fn new(index: Index, shown: &Path) -> Result<TextIndex> {
        let (_, fields) = schema();
        index.tokenizers().register(IDENTIFIER_TOKENIZER, IdentifierTokenizer::default());
        index.tokenizers().register(ENGLISH_TOKENIZER, english_analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(text_error(shown, "opening the text index reader"))?;
        let mut text = TextIndex {
            index,
            reader,
            writer: None,
            fields,
            stamps: BTreeMap::new(),
            unsaved_stamps: false,
            shown: shown.into(),
        };
        text.stamps = text.committed_stamps()?.unwrap_or_default();
        Ok(text)
    }

    /// The stamps of the last commit; `None` when the payload is absent or unreadable.
    fn committed_stamps(&self) -> Result<Option<BTreeMap<String, Stamp>>> {
        let metas = self.index.load_metas().map_err(self.error("reading the text index metadata"))?;
        Ok(metas.payload.and_then(|payload| serde_json::from_str::<Payload>(&payload).ok()).map(|p| p.planes))
    }

    /// Brings the index in line with `truth` (plane name → stamp in SQLite); `load` gives the
    /// documents of a plane to rebuild. Returns the planes whose documents were rebuilt or dropped.
    pub(crate) fn reconcile(
        &mut self,
        truth: &BTreeMap<String, Stamp>,
        load: &mut DocLoader<'_>,
    ) -> Result<Vec<String>> {
        self.atomically(|text| {
            let mut changed = Vec::new();
            let committed = text.committed_stamps()?;
            let searcher = text.reader.searcher();
            if committed.is_none() && searcher.num_docs() > 0 {
                // Documents without a record of what they reflect: start over.
                text.writer()?.delete_all_documents().map_err(text.error("clearing the text index"))?;
            }
            text.stamps = committed.unwrap_or_default();
            let gone: Vec<String> = text.stamps.keys().filter(|name| !truth.contains_key(*name)).cloned().collect();
            for name in gone {
                text.delete_plane_docs(&name)?;
                text.stamps.remove(&name);
                changed.push(name);
            }
            for (name, stamp) in truth {
                if text.stamps.get(name).map(|s| s.generation) == Some(stamp.generation) {
                    continue;
                }
                text.delete_plane_docs(name)?;
                let mut failure = None;
                let mut add = |doc: TextDoc<'_>| {
                    if failure.is_none()
                        && let Err(e) = text.add_doc(name, &doc)
                    {
                        failure = Some(e);
                    }
                };
                load(name, &mut add)?;
                if let Some(e) = failure {
                    return Err(e);
                }
                text.stamps.insert(name.clone(), stamp.clone());
                changed.push(name.clone());
            }
            if !changed.is_empty() {
                text.commit()?;
            }
            changed.sort();
            Ok(changed)
        })
    }

    /// Replaces plane `name`'s documents in the writer without committing: the writer's indexing thread
    /// indexes them while the caller writes SQLite. Follow with [`TextIndex::commit_staged`] or [`TextIndex::abort`].
    pub(crate) fn stage_plane<'a>(&mut self, name: &str, docs: impl IntoIterator<Item = TextDoc<'a>>) -> Result<()> {
        let staged = (|| {
            self.delete_plane_docs(name)?;
            for doc in docs {
                self.add_doc(name, &doc)?;
            }
            Ok(())
        })();
        if staged.is_err() {
            self.abort();
        }
        staged
    }

    /// Writes the staged documents' segments at once, then waits for `decision`: a stamp commits them as
    /// plane `name`'s new documents; a closed channel (the SQLite write failed) drops them, back to the
    /// last commit, and answers `Ok`, the failure being the caller's to report.
    pub(crate) fn commit_staged(&mut self, name: &str, decision: std::sync::mpsc::Receiver<Stamp>) -> Result<()> {
        let committed = self.atomically(|text| {
            let mut stamps = text.stamps.clone();
            let error = text.error("committing the text index");
            let mut prepared = text.writer()?.prepare_commit().map_err(&error)?;
            let Ok(stamp) = decision.recv() else { return Ok(false) };
            stamps.insert(name.to_owned(), stamp);
            let payload = serde_json::to_string(&Payload { planes: stamps.clone() })
                .expect("the payload is plain strings and numbers");
            prepared.set_payload(&payload);
            prepared.commit().map_err(&error)?;
            text.stamps = stamps;
            text.unsaved_stamps = false;
            text.reader.reload().map_err(text.error("reloading the text index"))?;
            Ok(true)
        })?;
        if !committed {
            // Dropping the writer discards the prepared segments.
            self.abort();
        }
        Ok(())
    }

    /// Replaces the documents of nodes `stale` (removed or rewritten) of plane `name` with `docs`, and
    /// commits with the plane's new stamp.
    pub(crate) fn replace_docs<'a>(
        &mut self,
        name: &str,
        stale: &[i64],
        docs: impl IntoIterator<Item = TextDoc<'a>>,
        stamp: Stamp,
    ) -> Result<()> {
        self.atomically(|text| {
            text.delete_nodes(stale)?;
            for doc in docs {
                text.add_doc(name, &doc)?;
            }
            text.stamps.insert(name.to_owned(), stamp);
            text.commit()
        })
    }

    /// Drops whatever was staged and not committed, back to the last commit's stamps.
    pub(crate) fn abort(&mut self) {
        // Dropping the writer discards what was not committed.
        self.writer = None;
        self.unsaved_stamps = false;
        self.stamps = self.committed_stamps().ok().flatten().unwrap_or_default();
    }

    /// Records plane `name`'s new stamp when its documents did not change (a write that moved lines
    /// only): the stamp is committed with the next commit or when the index is closed. A process that
    /// dies first leaves the old stamp, and the next open rebuilds the plane's documents.
    pub(crate) fn defer_stamp(&mut self, name: &str, stamp: Stamp) {
        self.stamps.insert(name.to_owned(), stamp);
        self.unsaved_stamps = true;
    }

    /// Whether the last commit recorded documents of plane `name`.
    pub(crate) fn has_plane(&self, name: &str) -> bool {
        self.stamps.contains_key(name)
    }

    /// Drops the documents of plane `name` and commits.
    pub(crate) fn remove_plane(&mut self, name: &str) -> Result<()> {
        self.atomically(|text| {
            text.delete_plane_docs(name)?;
            text.stamps.remove(name);
            text.commit()
        })
    }

    /// Runs a write; on failure drops the uncommitted work and returns to the last commit's stamps.
    fn atomically<T>(&mut self, write: impl FnOnce(&mut TextIndex) -> Result<T>) -> Result<T> {
        let result = write(self);
        if result.is_err() {
            self.abort();
        }
        result
    }

    /// Creates the writer now, on a short-lived thread at a bulk write's lower priority (the writer's
    /// threads inherit it, as they would from the staging thread), unless it exists. A caller with a core to
    /// spare before a bulk write starts (the indexer, while the symbol table is built) takes the writer's
    /// set-up (its lock, its threads, the removal of an interrupted commit's files: a few milliseconds) off
    /// the text index's own chain of work. A thread that cannot be started, or panics, is an error.
    pub(crate) fn warm_up_bulk_writer(&mut self) -> Result<()> {
        if self.writer.is_some() {
            return Ok(());
        }
        let shown = self.shown.clone();
        let failed = |detail: &str| Error::Text {
            path: shown.clone(),
            context: "creating the text index writer".into(),
            source: Box::new(TantivyError::SystemError(detail.into())),
        };
        std::thread::scope(|scope| {
            let spawned = std::thread::Builder::new().spawn_scoped(scope, || {
                lower_thread_priority();
                self.writer().map(|_| ())
            });
            match spawned {
                Ok(thread) => thread.join().unwrap_or_else(|_| Err(failed("the thread creating the writer panicked"))),
                Err(_) => Err(failed("no thread could be started to create the writer")),
            }
        })
    }

    fn writer(&mut self) -> Result<&mut IndexWriter> {
        if self.writer.is_none() {
            // One segment builder: two each built the term dictionary of the terms they shared, for no gain in
            // wall time (the SQLite writer bounds a bulk write). Django: CPU 3.72 → 3.66 s, peak RSS 262 → 255
            // MiB, wall 1.95 → 1.97 s (medians of 7, interleaved).
            let writer = self
                .index
                .writer_with_num_threads(1, WRITER_MEMORY)
                .map_err(self.error("creating the text index writer"))?;
            // A process killed during a commit leaves files the committed index does not use; a new
            // writer would collide with them (the same delete-file names), so they go first.
            writer.garbage_collect_files().wait().map_err(self.error("removing files of an interrupted commit"))?;
            self.writer = Some(writer);
        }
        Ok(self.writer.as_mut().expect("the writer was just created"))
    }

    fn delete_plane_docs(&mut self, name: &str) -> Result<()> {
        let term = Term::from_field_text(self.fields.plane, name);
        self.writer()?.delete_term(term);
        Ok(())
    }

    /// Deletes the documents of the nodes `ids` (of any plane: node ids are unique in a database). One pass
    /// over each segment's `node_id` column finds them, however many there are. `IndexWriter::delete_query`
    /// is public but left out of Tantivy's documentation (its own `delete_term` is built on it); the locked
    /// Tantivy version and the fold tests keep it honest.
    fn delete_nodes(&mut self, ids: &[i64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut ids: Vec<u64> = ids.iter().map(|&id| u64::try_from(id).expect("sqlite row ids are positive")).collect();
        ids.sort_unstable();
        ids.dedup();
        let ids = std::sync::Arc::new(ids);
        let predicate = FunctionPredicate::from(move |segment: &SegmentReader| {
            let column = segment.fast_fields().u64(NODE_ID)?;
            let ids = std::sync::Arc::clone(&ids);
            Ok(move |doc: DocId| column.first(doc).is_some_and(|id| ids.binary_search(&id).is_ok()))
        });
        let error = self.error("deleting documents from the text index");
        self.writer()?.delete_query(Box::new(DocPredicateQuery::from(predicate))).map_err(error)?;
        Ok(())
    }

    fn add_doc(&mut self, plane: &str, node: &TextDoc<'_>) -> Result<()> {
        if !is_searchable(node.label) {
            return Ok(());
        }
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.plane, plane);
        doc.add_u64(f.node_id, u64::try_from(node.node_id).expect("sqlite row ids are positive"));
        doc.add_text(f.name, node.name);
        doc.add_text(f.key, node.key);
        doc.add_text(f.label, node.label);
        for (field, value) in
            [(f.file, node.file), (f.signature, node.signature.as_deref()), (f.doc, node.doc.as_deref())]
        {
            if let Some(value) = value {
                doc.add_text(field, value);
            }
        }
        let error = self.error("adding a document to the text index");
        self.writer()?.add_document(doc).map_err(error)?;
        Ok(())
    }

    fn commit(&mut self) -> Result<()> {
        let payload = serde_json::to_string(&Payload { planes: self.stamps.clone() })
            .expect("the payload is plain strings and numbers");
        let error = self.error("committing the text index");
        let writer = self.writer()?;
        let mut prepared = writer.prepare_commit().map_err(&error)?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(&error)?;
        self.unsaved_stamps = false;
        self.reader.reload().map_err(self.error("reloading the text index"))
    }

    /// Best-scoring node ids for `query` (BM25 over name, key, signature, doc and file), restricted
    /// to plane `plane` when given. Any text is accepted; text without terms finds nothing.
    pub(crate) fn search(&self, plane: Option<&str>, query: &str, k: usize) -> Result<Vec<(i64, f32)>> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let f = self.fields;
        let identifier = self.analyzer(IDENTIFIER_TOKENIZER)?;
        let english = self.analyzer(ENGLISH_TOKENIZER)?;
        let weighted = [
            (f.name, 3.0, &identifier),
            (f.key, 2.0, &identifier),
            (f.signature, 1.0, &identifier),
            (f.doc, 0.5, &english),
            (f.file, 0.5, &identifier),
        ];
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, boost, analyzer) in weighted {
            for term in query_terms(analyzer, query) {
                let term = TermQuery::new(Term::from_field_text(field, &term), IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(term), boost))));
            }
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let mut query: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
        if let Some(plane) = plane {
            // A filter that adds nothing to the score.
            let plane = TermQuery::new(Term::from_field_text(f.plane, plane), IndexRecordOption::Basic);
            query = Box::new(BooleanQuery::new(vec![
                (Occur::Must, query),
                (Occur::Must, Box::new(ConstScoreQuery::new(Box::new(plane), 0.0))),
            ]));
        }
        let searcher = self.reader.searcher();
        let error = self.error("searching the text index");
        let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score()).map_err(&error)?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let column = searcher.segment_reader(address.segment_ord).fast_fields().u64(NODE_ID).map_err(&error)?;
            if let Some(id) = column.first(address.doc_id).and_then(|id| i64::try_from(id).ok()) {
                hits.push((id, score));
            }
        }
        Ok(hits)
    }

    fn analyzer(&self, name: &str) -> Result<TextAnalyzer> {
        self.index.tokenizers().get(name).ok_or_else(|| Error::Text {
            path: self.shown.clone(),
            context: format!("looking up tokenizer {name}"),
            source: Box::new(TantivyError::SchemaError(format!("tokenizer {name} is not registered"))),
        })
    }

    fn error(&self, context: &'static str) -> impl Fn(TantivyError) -> Error + use<> {
        text_error(&self.shown, context)
    }
}

impl Drop for TextIndex {
    fn drop(&mut self) {
        if self.unsaved_stamps {
            // Errors change nothing now: the next open compares stamps and rebuilds what disagrees.
            let _ = self.commit();
        }
        if let Some(writer) = self.writer.take() {
            // Let background merges finish so the directory is left tidy; errors change nothing now.
            let _ = writer.wait_merging_threads();
        }
    }
}

/// The distinct terms `analyzer` makes of `query`, at most [`MAX_QUERY_TERMS`].
fn query_terms(analyzer: &TextAnalyzer, query: &str) -> BTreeSet<String> {
    let mut analyzer = analyzer.clone();
    let mut stream = analyzer.token_stream(query);
    let mut terms = BTreeSet::new();
    while let Some(token) = stream.next() {
        if terms.len() == MAX_QUERY_TERMS {
            break;
        }
        terms.insert(token.text.clone());
    }
    terms
}

fn text_error(shown: &Path, context: &'static str) -> impl Fn(TantivyError) -> Error + use<> {
    let path = shown.to_path_buf();
    move |source| Error::Text { path: path.clone(), context: context.to_owned(), source: Box::new(source) }
}
