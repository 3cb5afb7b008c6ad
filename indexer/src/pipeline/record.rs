//! A source file's record in the state kept beside its plane (see `warm::kept`), in postcard's binary
//! form: its language, size, test flag and facts, and its output packed (postcard, then LZ4) with the
//! counts and stand-in keys a fold reads of every file. An index writes records without outputs, which
//! the first fold resolves; [`identity`] names what records depend on besides their plane.

use std::sync::Arc;

use drsg_parsers::{FileFacts, Lang};
use drsg_planes::KeptFile;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::graph::{Accounting, FileOutput};
use crate::source::Source;
use crate::table::ParsedFile;

/// An output's counts and stand-in keys, and the output packed (postcard, then LZ4).
#[derive(Serialize, Deserialize)]
pub(crate) struct Packed {
    acc: Accounting,
    edges: usize,
    stand_ins: Vec<String>,
    /// Bytes of the output's postcard form, which LZ4 needs to unpack it.
    plain: usize,
    bytes: Vec<u8>,
}

impl Packed {
    pub(crate) fn of(output: &FileOutput) -> Packed {
        let plain = postcard::to_allocvec(output).expect("an output serialises");
        let mut bytes = vec![0; lz4_flex::block::get_maximum_output_size(plain.len())];
        let packed = lz4_flex::block::compress_into(&plain, &mut bytes).expect("the buffer fits the worst case");
        bytes.truncate(packed);
        Packed {
            acc: output.acc.clone(),
            edges: output.edges.len(),
            stand_ins: output.stand_ins.iter().map(|n| n.key.clone()).collect(),
            plain: plain.len(),
            bytes,
        }
    }

    pub(crate) fn unpack(&self) -> Option<FileOutput> {
        // LZ4 expands at most about 255 times: a larger size is a damaged record, not an allocation to make.
        if self.plain > self.bytes.len().saturating_mul(256) + 64 {
            return None;
        }
        let mut plain = vec![0; self.plain];
        let unpacked = lz4_flex::block::decompress_into(&self.bytes, &mut plain).ok()?;
        postcard::from_bytes(plain.get(..unpacked)?).ok()
    }
}

impl Packed {
    pub(crate) fn acc(&self) -> &Accounting {
        &self.acc
    }

    pub(crate) fn edges(&self) -> usize {
        self.edges
    }

    pub(crate) fn stand_in_keys(&self) -> impl Iterator<Item = &str> {
        self.stand_ins.iter().map(String::as_str)
    }
}

/// A file's record, as written.
#[derive(Serialize)]
struct RecordOut<'a> {
    lang: Lang,
    lines: u32,
    bytes: u64,
    is_test: bool,
    facts: &'a FileFacts,
    output: Option<&'a Packed>,
}

/// A file's record, as read.
#[derive(Deserialize)]
struct RecordIn {
    lang: Lang,
    lines: u32,
    bytes: u64,
    is_test: bool,
    facts: FileFacts,
    output: Option<Packed>,
}

/// What records depend on besides their plane's generation and commit: this build of drsg (its version,
/// and the size and time of its executable, so a rebuilt binary never reads another build's records) and
/// the size limit that chose the files.
pub(crate) fn identity(max_file_size: u64) -> String {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let build = BUILD.get_or_init(|| {
        let exe = std::env::current_exe().and_then(std::fs::metadata);
        let stamp = exe.as_ref().ok().map(|m| {
            let modified = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{} bytes, modified {}", m.len(), modified.map_or(0, |d| d.as_nanos()))
        });
        format!("drsg {} ({})", env!("CARGO_PKG_VERSION"), stamp.unwrap_or_default())
    });
    format!("{build}; max_file_size {max_file_size}")
}

/// File `file`'s record, with its blob id and its output packed when there is one.
pub(crate) fn write(file: &ParsedFile, blob: String, output: Option<&Packed>) -> KeptFile {
    let record = RecordOut {
        lang: file.lang,
        lines: file.lines,
        bytes: file.bytes,
        is_test: file.is_test,
        facts: &file.facts,
        output,
    };
    KeptFile { path: file.path.clone(), blob, record: postcard::to_allocvec(&record).expect("a record serialises") }
}

/// The records of `files` as an index made them, without outputs; `None` for a tree that is not a commit's.
pub(crate) fn of_index(source: &Source, files: &[ParsedFile]) -> Option<Vec<KeptFile>> {
    let Source::Commit(_) = source else { return None };
    let blobs: Vec<String> = files.iter().map(|f| source.blob_id(&f.path).unwrap_or_default().to_owned()).collect();
    Some(files.par_iter().zip(blobs).map(|(f, blob)| write(f, blob, None)).collect())
}

/// A record read back.
pub(crate) struct Read {
    pub(crate) file: ParsedFile,
    pub(crate) blob: String,
    pub(crate) output: Option<Packed>,
    /// False when the record did not read: `file` is then empty.
    pub(crate) readable: bool,
}

pub(crate) fn read(row: KeptFile) -> Read {
    let (lang, lines, bytes, is_test, facts, output, readable) = match postcard::from_bytes::<RecordIn>(&row.record) {
        Ok(r) => (r.lang, r.lines, r.bytes, r.is_test, r.facts, r.output, true),
        Err(_) => (Lang::Rust, 0, 0, false, FileFacts::default(), None, false),
    };
    let file = ParsedFile { path: row.path, lang, facts: Arc::new(facts), lines, bytes, is_test };
    Read { file, blob: row.blob, output, readable }
}

#[cfg(test)]
mod tests {
    use drsg_planes::{KeyedEdge, NodeData};

    use super::*;

    fn output() -> FileOutput {
        let node = |key: &str| NodeData {
            key: key.to_owned(),
            labels: vec!["Function".to_owned()],
            name: key.to_owned(),
            ..NodeData::default()
        };
        let edge = KeyedEdge {
            src: "a::f".to_owned(),
            dst: "ext::x".to_owned(),
            ty: drsg_planes::EdgeType::Calls.as_str().into(),
            props_json: r#"{"line":3}"#.repeat(40),
        };
        let acc = Accounting { call_sites: 1, external: 1, ..Accounting::default() };
        FileOutput { nodes: vec![node("a::f")], edges: vec![edge; 3], stand_ins: vec![node("ext::x")], acc }
    }

    #[test]
    fn a_packed_output_reads_back_and_a_damaged_one_does_not() {
        let packed = Packed::of(&output());
        assert!(packed.bytes.len() < packed.plain, "{} of {}", packed.bytes.len(), packed.plain);
        assert_eq!((packed.edges, packed.stand_ins.as_slice()), (3, ["ext::x".to_owned()].as_slice()));
        assert_eq!(format!("{:?}", packed.unpack()), format!("{:?}", Some(output())));

        let cut = Packed { bytes: packed.bytes[..packed.bytes.len() / 2].to_vec(), ..Packed::of(&output()) };
        assert!(cut.unpack().is_none());
        let huge = Packed { plain: usize::MAX / 2, ..Packed::of(&output()) };
        assert!(huge.unpack().is_none());
    }
}
