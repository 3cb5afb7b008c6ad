//! The set of language plugins an indexing run uses, and their fingerprints.

use serde::Serialize;

use crate::facts::Lang;
use crate::runner::Language;
use crate::wire::Extractor;

/// The plugins available to an indexing run, tried in order.
pub struct Registry {
    plugins: Vec<Box<dyn Language>>,
    extractors: Vec<Extractor>,
}

/// What a plane records about one plugin in `built_by`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fingerprint {
    pub name: String,
    pub version: String,
    /// `(query file, FNV-1a 64 hash of its text in hex)`.
    pub queries: Vec<(String, String)>,
}

impl Registry {
    pub fn new(plugins: Vec<Box<dyn Language>>) -> Registry {
        Registry { plugins, extractors: Vec::new() }
    }

    /// The registry with declarative plugins added, run over every file of their languages.
    pub fn with_extractors(mut self, extractors: Vec<Extractor>) -> Registry {
        self.extractors.extend(extractors);
        self
    }

    /// The registry without its declarative plugins.
    pub fn without_extractors(mut self) -> Registry {
        self.extractors.clear();
        self
    }

    /// The declarative plugins.
    pub fn extractors(&self) -> &[Extractor] {
        &self.extractors
    }

    /// The plugin and dialect for a path relative to the tree root, if any plugin takes it.
    pub fn for_path(&self, path: &str) -> Option<(&dyn Language, Lang)> {
        self.plugins.iter().find_map(|p| p.lang_for(path).map(|lang| (p.as_ref(), lang)))
    }

    pub fn fingerprints(&self) -> Vec<Fingerprint> {
        let hash = |text: &str| format!("{:016x}", fnv1a(text.as_bytes()));
        let languages = self.plugins.iter().map(|p| Fingerprint {
            name: p.name().to_owned(),
            version: p.version().to_owned(),
            queries: p.queries().iter().map(|(file, text)| ((*file).to_owned(), hash(text))).collect(),
        });
        let declarative = self.extractors.iter().map(|e| Fingerprint {
            name: e.manifest.name.clone(),
            version: e.manifest.version.clone(),
            queries: e.sources.iter().map(|(file, text)| (file.clone(), hash(text))).collect(),
        });
        languages.chain(declarative).collect()
    }
}

/// FNV-1a (64 bits): a fixed, fast hash, the same in every run and build, unlike the standard hasher.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}
