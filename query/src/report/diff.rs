//! Which definitions a change touched, from the outlines of each changed file at both revisions.
//!
//! Definitions are matched by where they sit in their file (the names of their enclosing definitions,
//! a Rust method's `impl`, their label), in order among namesakes; a matched pair changed its
//! signature or its text. What is left on either side is removed or added, and a removed and an added
//! definition with the same text but for their own name are one definition renamed (or moved). A
//! module's own code is the lines outside its top-level definitions.

use std::collections::HashMap;

use crate::revisions::Outline;

/// One revision of a changed file.
pub(crate) struct Version {
    pub path: String,
    pub lines: Vec<String>,
    pub outline: Outline,
}

/// A changed file at both revisions (`None` where it does not exist or no plugin reads it).
pub(crate) struct FilePair {
    pub old: Option<Version>,
    pub new: Option<Version>,
}

/// A definition of one side: the file pair it is in and its index in that side's outline (`None`
/// for the file's module).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct At {
    pub file: usize,
    pub def: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Renamed,
    Signature,
    Body,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Signature => "signature",
            ChangeKind::Body => "body",
        }
    }
}

/// A definition the change touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DefChange {
    pub kind: ChangeKind,
    pub old: Option<At>,
    pub new: Option<At>,
    /// For a pair matched in place whose file moved: its text changed too.
    pub edited: bool,
}

/// The definitions `files` changed, in file order, then added and removed ones paired into renames.
pub(crate) fn changes(files: &[FilePair]) -> Vec<DefChange> {
    let mut out = Vec::new();
    let mut removed: Vec<At> = Vec::new();
    let mut added: Vec<At> = Vec::new();
    for (fi, pair) in files.iter().enumerate() {
        match (&pair.old, &pair.new) {
            (Some(old), Some(new)) => {
                let moved = old.path != new.path;
                let (matched, gone, came) = match_defs(&old.outline, &new.outline);
                for (o, n) in matched {
                    let edited = def_text(old, o) != def_text(new, n);
                    let kind = if old.outline.defs[o].signature != new.outline.defs[n].signature {
                        ChangeKind::Signature
                    } else if edited {
                        ChangeKind::Body
                    } else if moved {
                        ChangeKind::Renamed
                    } else {
                        continue;
                    };
                    let kind = if moved { ChangeKind::Renamed } else { kind };
                    out.push(DefChange {
                        kind,
                        old: Some(At { file: fi, def: Some(o) }),
                        new: Some(At { file: fi, def: Some(n) }),
                        edited: moved && edited,
                    });
                }
                removed.extend(gone.into_iter().map(|d| At { file: fi, def: Some(d) }));
                added.extend(came.into_iter().map(|d| At { file: fi, def: Some(d) }));
                let own_changed = module_text(old) != module_text(new);
                if moved || own_changed {
                    out.push(DefChange {
                        kind: if moved { ChangeKind::Renamed } else { ChangeKind::Body },
                        old: Some(At { file: fi, def: None }),
                        new: Some(At { file: fi, def: None }),
                        edited: moved && own_changed,
                    });
                }
            }
            (Some(old), None) => {
                out.push(DefChange {
                    kind: ChangeKind::Removed,
                    old: Some(At { file: fi, def: None }),
                    new: None,
                    edited: false,
                });
                removed.extend((0..old.outline.defs.len()).map(|d| At { file: fi, def: Some(d) }));
            }
            (None, Some(new)) => {
                out.push(DefChange {
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(At { file: fi, def: None }),
                    edited: false,
                });
                added.extend((0..new.outline.defs.len()).map(|d| At { file: fi, def: Some(d) }));
            }
            (None, None) => {}
        }
    }
    // Same text but for the definition's own name, and one of a kind on both sides: renamed.
    let shape = |at: &At, side: fn(&FilePair) -> Option<&Version>| -> Option<(&'static str, String)> {
        let version = side(&files[at.file])?;
        let d = at.def?;
        let def = &version.outline.defs[d];
        let text = def_text(version, d);
        // A one-line definition says too little to be recognised under another name.
        if def.end_line <= def.line && text.len() < 40 {
            return None;
        }
        Some((def.label, normalized(&text, &def.name)))
    };
    fn old_side(p: &FilePair) -> Option<&Version> {
        p.old.as_ref()
    }
    fn new_side(p: &FilePair) -> Option<&Version> {
        p.new.as_ref()
    }
    // A definition's label and its text but for its name → the removed and the added ones of that shape.
    type Candidates = (Vec<At>, Vec<At>);
    let mut by_shape: HashMap<(&'static str, String), Candidates> = HashMap::new();
    for at in &removed {
        if let Some(key) = shape(at, old_side) {
            by_shape.entry(key).or_default().0.push(*at);
        }
    }
    for at in &added {
        if let Some(key) = shape(at, new_side) {
            by_shape.entry(key).or_default().1.push(*at);
        }
    }
    let mut renamed: HashMap<At, At> = HashMap::new();
    for (gone, came) in by_shape.values() {
        if let ([o], [n]) = (gone.as_slice(), came.as_slice()) {
            renamed.insert(*o, *n);
        }
    }
    let paired: std::collections::HashSet<At> = renamed.values().copied().collect();
    for at in removed {
        match renamed.get(&at) {
            Some(n) => out.push(DefChange { kind: ChangeKind::Renamed, old: Some(at), new: Some(*n), edited: false }),
            None => out.push(DefChange { kind: ChangeKind::Removed, old: Some(at), new: None, edited: false }),
        }
    }
    for at in added.into_iter().filter(|a| !paired.contains(a)) {
        out.push(DefChange { kind: ChangeKind::Added, old: None, new: Some(at), edited: false });
    }
    out
}

/// Where a definition sits in its file: its enclosing definitions' names and its own (a Rust
/// method with its `impl`), and its label.
fn place(outline: &Outline, mut i: usize) -> String {
    let label = outline.defs[i].label;
    let mut parts = Vec::new();
    for _ in 0..64 {
        let def = &outline.defs[i];
        parts.push(match &def.impl_of {
            Some((ty, Some(tr))) => format!("<{ty} as {tr}>.{}", def.name),
            Some((ty, None)) => format!("{ty}.{}", def.name),
            None => def.name.clone(),
        });
        match def.parent {
            Some(p) if p < outline.defs.len() => i = p,
            _ => break,
        }
    }
    parts.reverse();
    format!("{} {label}", parts.join("/"))
}

/// Pairs of definitions (old, new) in the same place, in order among namesakes; then those of the
/// old side and of the new side left over.
fn match_defs(old: &Outline, new: &Outline) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut slots: HashMap<String, std::collections::VecDeque<usize>> = HashMap::new();
    for i in 0..new.defs.len() {
        slots.entry(place(new, i)).or_default().push_back(i);
    }
    let mut matched = Vec::new();
    let mut gone = Vec::new();
    for i in 0..old.defs.len() {
        match slots.get_mut(&place(old, i)).and_then(|q| q.pop_front()) {
            Some(j) => matched.push((i, j)),
            None => gone.push(i),
        }
    }
    let taken: std::collections::HashSet<usize> = matched.iter().map(|(_, j)| *j).collect();
    let came = (0..new.defs.len()).filter(|j| !taken.contains(j)).collect();
    (matched, gone, came)
}

/// The lines of definition `d`, their trailing blanks removed.
pub(crate) fn def_text(v: &Version, d: usize) -> String {
    let def = &v.outline.defs[d];
    let start = (def.line.max(1) - 1) as usize;
    let end = (def.end_line as usize).min(v.lines.len());
    v.lines.get(start..end.max(start)).unwrap_or_default().iter().map(|l| l.trim_end()).collect::<Vec<_>>().join("\n")
}

/// A module's own code: its non-blank lines outside every top-level definition.
fn module_text(v: &Version) -> String {
    let mut inside = vec![false; v.lines.len()];
    for def in v.outline.defs.iter().filter(|d| d.parent.is_none()) {
        let start = (def.line.max(1) - 1) as usize;
        let end = (def.end_line as usize).min(v.lines.len());
        for slot in inside.iter_mut().take(end).skip(start) {
            *slot = true;
        }
    }
    v.lines
        .iter()
        .zip(&inside)
        .filter(|(l, inside)| !**inside && !l.trim().is_empty())
        .map(|(l, _)| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with its runs of white space made one space and each whole-word `name` made `\0`.
fn normalized(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut rest = word;
        while let Some(at) = rest.find(name) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + name.len()..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            out.push_str(&rest[..at]);
            if ident(before) || ident(after) {
                out.push_str(name);
            } else {
                out.push('\0');
            }
            rest = &rest[at + name.len()..];
        }
        out.push_str(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::revisions::OutlineDef;

    fn def(name: &str, parent: Option<usize>, line: u32, end_line: u32, signature: &str) -> OutlineDef {
        OutlineDef {
            name: name.into(),
            label: if parent.is_some() { "Method" } else { "Function" },
            parent,
            line,
            end_line,
            signature: signature.into(),
            public: true,
            is_test: false,
            impl_of: None,
        }
    }

    fn version(path: &str, text: &str, defs: Vec<OutlineDef>) -> Version {
        Version {
            path: path.into(),
            lines: text.lines().map(str::to_owned).collect(),
            outline: Outline { defs, syntax_errors: 0, test_file: false, separator: "." },
        }
    }

    fn kinds(changes: &[DefChange], files: &[FilePair]) -> Vec<(ChangeKind, String)> {
        changes
            .iter()
            .map(|c| {
                let at = c.new.or(c.old).expect("a side");
                let pair = &files[at.file];
                let v = if c.new.is_some() { pair.new.as_ref() } else { pair.old.as_ref() }.expect("the side's file");
                let name = at.def.map(|d| v.outline.defs[d].name.clone()).unwrap_or_else(|| "<module>".into());
                (c.kind, name)
            })
            .collect()
    }

    #[test]
    fn body_signature_nested_and_module_changes_are_told_apart() {
        let old = "import os\n\ndef a(x):\n    return x\n\ndef b():\n    def inner():\n        return 1\n    return inner\n\ndef same():\n    return 0\n";
        let new = "import os\nimport sys\n\ndef a(x, y):\n    return x\n\ndef b():\n    def inner():\n        return 2\n    return inner\n\ndef same():\n    return 0\n";
        let files = vec![FilePair {
            old: Some(version(
                "m.py",
                old,
                vec![
                    def("a", None, 3, 4, "def a(x)"),
                    def("b", None, 6, 9, "def b()"),
                    def("inner", Some(1), 7, 8, "def inner()"),
                    def("same", None, 11, 12, "def same()"),
                ],
            )),
            new: Some(version(
                "m.py",
                new,
                vec![
                    def("a", None, 4, 5, "def a(x, y)"),
                    def("b", None, 7, 10, "def b()"),
                    def("inner", Some(1), 8, 9, "def inner()"),
                    def("same", None, 12, 13, "def same()"),
                ],
            )),
        }];
        let found = kinds(&changes(&files), &files);
        assert_eq!(
            found,
            vec![
                (ChangeKind::Signature, "a".to_owned()),
                (ChangeKind::Body, "b".to_owned()),
                (ChangeKind::Body, "inner".to_owned()),
                (ChangeKind::Body, "<module>".to_owned()),
            ]
        );
    }

    #[test]
    fn a_definition_under_a_new_name_with_the_same_text_is_renamed() {
        let old = "def load(path):\n    data = open(path).read()\n    return data\n\ndef gone():\n    return 1\n";
        let new = "def read_all(path):\n    data = open(path).read()\n    return data\n";
        let files = vec![FilePair {
            old: Some(version(
                "m.py",
                old,
                vec![def("load", None, 1, 3, "def load(path)"), def("gone", None, 5, 6, "def gone()")],
            )),
            new: Some(version("m.py", new, vec![def("read_all", None, 1, 3, "def read_all(path)")])),
        }];
        let found = changes(&files);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].kind, ChangeKind::Renamed);
        assert_eq!(found[0].old, Some(At { file: 0, def: Some(0) }));
        assert_eq!(found[0].new, Some(At { file: 0, def: Some(0) }));
        assert_eq!(found[1].kind, ChangeKind::Removed);
        assert_eq!(found[1].old, Some(At { file: 0, def: Some(1) }));
    }

    #[test]
    fn names_inside_longer_words_are_kept_when_normalising() {
        assert_eq!(normalized("def load(x):  loader(load)", "load"), "def \0(x): loader(\0)");
    }
}
