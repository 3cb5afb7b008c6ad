//! Running tree-sitter: one parser per thread, error counting, and the `Language` trait plugins implement.
//!
//! `Language::prepare` does a dialect's one-time work (compiling its queries), so that a run can start it
//! on a thread of its own beside the parse. `parse_file` parses at most `MAX_PARSE_BYTES` (4 MiB) of a
//! file, up to a line end, and marks a longer one cut: a tree and its facts take tens of times the source
//! (a 40 MB Python file peaked at 2.0 GB, and at 0.3 GB read in part).

use std::cell::RefCell;

use crate::children::KindSet;
use crate::facts::{Diagnostic, FileFacts, Lang};
use crate::wire::Extractor;

/// A language plugin: which files it takes, its grammar, and how facts are pulled from a syntax tree.
///
/// Implementations do no I/O; `extract` receives the tree and the source text.
pub trait Language: Send + Sync {
    /// Plugin name, recorded in a plane's `built_by`.
    fn name(&self) -> &'static str;
    fn version(&self) -> &'static str;
    /// The dialect for a path, or `None` when this plugin does not take the file.
    fn lang_for(&self, path: &str) -> Option<Lang>;
    fn grammar(&self, lang: Lang) -> tree_sitter::Language;
    /// The query files driving extraction, as `(file name, text)`; hashed into `built_by`.
    fn queries(&self) -> &'static [(&'static str, &'static str)];
    /// Does the one-time work that extracting `lang` needs (compiling its queries: up to 0.15 s for the
    /// TypeScript grammars), so that a run can do it on a thread of its own while files parse. Extraction
    /// does it on first use otherwise, and other threads extracting the same dialect wait for it.
    fn prepare(&self, _lang: Lang) {}
    /// Pull facts from a parsed tree. `path` is relative to the tree root, with `/` separators.
    fn extract(&self, lang: Lang, tree: &tree_sitter::Tree, source: &str, path: &str) -> FileFacts;
    /// [`Language::extract`], its walk of the tree also appending to `tapped` the nodes of `kinds` it
    /// passes, in pre-order (the declarative plugins' start nodes: one walk where there would be two).
    /// Returns the facts and whether `tapped` holds every node of `kinds` in the tree; when it does not,
    /// the caller walks the tree itself. A plugin whose walk leaves nodes out that may be of `kinds` says
    /// false; one without a walk of its own taps nothing.
    fn extract_tapped<'t>(
        &self,
        lang: Lang,
        tree: &'t tree_sitter::Tree,
        source: &str,
        path: &str,
        kinds: &KindSet,
        tapped: &mut Vec<tree_sitter::Node<'t>>,
    ) -> (FileFacts, bool) {
        let _ = (kinds, tapped);
        (self.extract(lang, tree, source, path), false)
    }
}

thread_local! {
    static PARSER: RefCell<tree_sitter::Parser> = RefCell::new(tree_sitter::Parser::new());
}

/// How many parse errors are described in diagnostics; the rest are only counted.
const MAX_ERROR_DIAGNOSTICS: usize = 5;

/// Bytes of a file that are parsed. A syntax tree and its facts take tens of times the source's size
/// (a 50 MB Python file took 3.9 GB), so a longer file, which only a raised `--max-file-size` lets
/// through, is read up to the last line end before this and marked cut.
pub const MAX_PARSE_BYTES: usize = 4 * 1024 * 1024;

/// Parse `source` and extract its facts. Never fails: a grammar error yields an empty fact set
/// with a diagnostic, a syntax error yields what parsed plus a count, a file over
/// `MAX_PARSE_BYTES` what its first part holds and a diagnostic that cuts it.
pub fn parse_file(plugin: &dyn Language, lang: Lang, path: &str, source: &str) -> FileFacts {
    parse_file_with(plugin, &[], lang, path, source)
}

/// [`parse_file`], with the declarative plugins `extractors` run over the same tree.
pub fn parse_file_with(
    plugin: &dyn Language,
    extractors: &[Extractor],
    lang: Lang,
    path: &str,
    source: &str,
) -> FileFacts {
    let (source, beyond) = within_budget(source);
    let mut facts = parse_text(plugin, extractors, lang, path, source);
    if let Some(line) = beyond {
        facts.diagnostics.push(Diagnostic {
            line,
            message: format!(
                "file larger than {} MiB: what lies from this line on was not read",
                MAX_PARSE_BYTES / (1024 * 1024)
            ),
            cut: true,
        });
    }
    facts
}

/// The part of `source` that is parsed, and when it is not all of it, the first line left out.
fn within_budget(source: &str) -> (&str, Option<u32>) {
    if source.len() <= MAX_PARSE_BYTES {
        return (source, None);
    }
    let mut end = MAX_PARSE_BYTES;
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let end = source[..end].rfind('\n').map_or(end, |i| i + 1);
    let kept = &source[..end];
    let line = kept.bytes().filter(|&b| b == b'\n').count() + 1;
    (kept, Some(u32::try_from(line).unwrap_or(u32::MAX)))
}

fn parse_text(plugin: &dyn Language, extractors: &[Extractor], lang: Lang, path: &str, source: &str) -> FileFacts {
    let source = &*crate::text::for_parsing(source);
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        if parser.set_language(&plugin.grammar(lang)).is_err() {
            return None;
        }
        parser.parse(source, None)
    });
    let Some(tree) = tree else {
        return FileFacts {
            diagnostics: vec![Diagnostic {
                line: 0,
                message: format!("{} grammar could not parse this file", lang.name()),
                cut: true,
            }],
            ..FileFacts::default()
        };
    };
    // The plugin's walk finds the declarative plugins' start nodes, where it can.
    let run = crate::wire::Run::start(extractors, lang, source, path);
    let mut tapped = Vec::new();
    let (mut facts, whole) = match run.kinds() {
        Some(kinds) => plugin.extract_tapped(lang, &tree, source, path, kinds, &mut tapped),
        None => (plugin.extract(lang, &tree, source, path), false),
    };
    run.finish(&tree, source, &facts.imports, whole.then_some(tapped), &mut facts.wire);
    let (count, mut diagnostics) = syntax_errors(&tree);
    facts.parse_errors = count;
    diagnostics.append(&mut facts.diagnostics);
    facts.diagnostics = diagnostics;
    facts
}

/// Count ERROR and MISSING nodes, walking only into subtrees that contain one.
/// Iterative (a cursor, not recursion), so deeply nested sources cannot overflow the stack.
pub fn syntax_errors(tree: &tree_sitter::Tree) -> (u32, Vec<Diagnostic>) {
    let root = tree.root_node();
    if !root.has_error() {
        return (0, Vec::new());
    }
    let mut count = 0u32;
    let mut diagnostics = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let is_error = node.is_error() || node.is_missing();
        if is_error {
            count += 1;
            if diagnostics.len() < MAX_ERROR_DIAGNOSTICS {
                let what =
                    if node.is_missing() { format!("missing `{}`", node.kind()) } else { "syntax error".to_owned() };
                diagnostics.push(Diagnostic { line: node.start_position().row as u32 + 1, message: what, cut: false });
            }
        }
        // Descend only where an error hides; ERROR nodes themselves are not searched further.
        if !is_error && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return (count, diagnostics);
            }
        }
    }
}
