//! Why a reference or an import is unresolved, as a value: `Display` gives the sentence its edge records,
//! `category` the key the ledger counts it under (the sentence with its names and numbers elided), and
//! the resolver decides by the variant, never by reading the sentence back.

use std::borrow::Cow;
use std::fmt;

/// Why a name could not be bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    // Imports.
    ImportedTwice,
    EmptyImport,
    ImportCycle,
    EmptyUse,
    ClimbsAbove {
        source: String,
    },
    ModuleNotInTree {
        source: String,
    },
    ModuleNotInPackage {
        source: String,
        package: String,
    },
    ReexportTooDeep,
    ExportedButMissing {
        name: String,
        module: String,
        local: String,
    },
    NotExported {
        name: String,
        module: String,
    },
    // Names in scope.
    NotInScope {
        name: String,
    },
    /// Rust: an unknown head whose package's manifest could not be read.
    ManifestUnread {
        name: String,
        package: String,
    },
    /// Rust: an unknown head that is no dependency of the package.
    NoDependency {
        name: String,
        package: String,
    },
    CrateOutsideTarget,
    CrateRootMissing {
        name: String,
    },
    SuperOfRoot,
    SelfTypeOutside,
    DefinedTimes {
        name: String,
        times: usize,
    },
    GlobImports {
        name: String,
        imports: usize,
    },
    // Members.
    NotIn {
        name: String,
        namespace: String,
    },
    NotOn {
        name: String,
        ty: String,
    },
    NotFoundIn {
        name: String,
        owner: String,
    },
    FieldUntyped {
        field: String,
        owner: String,
    },
    MemberReexportTooDeep,
    InheritanceTooDeep,
    InheritedFromMany {
        name: String,
        parents: usize,
        ty: String,
    },
    ChainTooDeep,
    // Receivers and calls.
    ReceiverUnknown,
    /// The receiver is a value whose symbol is known and is no type (`key` is a `label`).
    ReceiverUntyped {
        key: String,
        label: String,
    },
    ChainFirstUnknown,
    ChainLostAt {
        step: String,
    },
    ResultOfExternal {
        path: String,
    },
    ReturnNotRecorded {
        key: String,
    },
    ComputedCall,
    LocalValueCalled,
    ValueOfType {
        ty: String,
    },
    NotOnExternalType {
        name: String,
        ty: String,
    },
    OnlyModuleCalled {
        name: String,
        module: String,
    },
    OnlyModule {
        name: String,
        module: String,
    },
    TypeParameter {
        name: String,
    },
    EmptyReference,
    ImplTypeMissing {
        ty: String,
    },
    SelfOutsideType,
    SuperOutsideClass,
    NoParentClass {
        ty: String,
    },
    // Macros.
    Tokens,
    MacroNotDefined {
        name: String,
    },
    MacroDefinedTimes {
        name: String,
        times: usize,
    },
    /// A reason met inside a macro invocation (`within`).
    InsideMacro {
        within: String,
        reason: Box<Reason>,
    },
    /// A binding whose type is not known (never the end of a reference).
    BindingUntyped,
}

impl Reason {
    /// Whether the name is only absent where it was looked for, so a caller may look further.
    pub(super) fn is_not_found(&self) -> bool {
        matches!(
            self,
            Reason::NotExported { .. }
                | Reason::NotIn { .. }
                | Reason::NotOn { .. }
                | Reason::MemberReexportTooDeep
                | Reason::InheritanceTooDeep
        )
    }

    /// The sentence of a reason that names nothing.
    fn fixed(&self) -> Option<&'static str> {
        use Reason::*;
        Some(match self {
            ImportedTwice => "name imported from two places",
            EmptyImport => "empty import",
            ImportCycle => "import cycle",
            EmptyUse => "empty use",
            ReexportTooDeep => "re-export chain too deep",
            CrateOutsideTarget => "`crate` outside a Cargo target",
            SuperOfRoot => "`super` of a crate root",
            SelfTypeOutside => "`Self` outside an impl or trait",
            MemberReexportTooDeep => "not found: re-export chain too deep",
            InheritanceTooDeep => "not found: inheritance chain too deep",
            ChainTooDeep => "resolution chain too deep",
            ReceiverUnknown => "method call: receiver type unknown",
            ChainFirstUnknown => "method call: receiver is a call chain whose first call's type is unknown",
            ComputedCall => "call of a computed expression",
            LocalValueCalled => "call of a local value",
            EmptyReference => "empty reference",
            SelfOutsideType => "`self` outside a type",
            SuperOutsideClass => "`super` outside a class",
            Tokens => "its tokens do not read as Rust, so what it calls depends on the expansion",
            BindingUntyped => "the binding's type is not known",
            _ => return None,
        })
    }

    /// The ledger's key: the sentence with each name in backticks written `` `…` `` and each digit `N`.
    pub fn category(&self) -> Cow<'static, str> {
        use Reason::*;
        Cow::Borrowed(match self {
            CrateOutsideTarget => "`…` outside a Cargo target",
            SuperOfRoot => "`…` of a crate root",
            SelfTypeOutside => "`…` outside an impl or trait",
            SelfOutsideType => "`…` outside a type",
            SuperOutsideClass => "`…` outside a class",
            ClimbsAbove { .. } => "relative import `…` climbs above the top package",
            ModuleNotInTree { .. } => "module `…` not found in the tree",
            ModuleNotInPackage { .. } => "module `…` not found in package `…`",
            ExportedButMissing { .. } => "`…` exported by `…` but `…` not found",
            NotExported { .. } => "not found: `…` is not exported by `…`",
            NotInScope { .. } => "name `…` not found in scope",
            ManifestUnread { .. } => {
                "name `…` not found in scope, and the manifest of `…` could not be read, so its dependencies are unknown"
            }
            NoDependency { .. } => "name `…` not found in scope, and `…` has no dependency of that name",
            CrateRootMissing { .. } => "crate root of `…` not in the tree",
            DefinedTimes { times, .. } => {
                return Cow::Owned(format!("name `…` defined {} times in scope", digits(*times)));
            }
            GlobImports { imports, .. } => {
                return Cow::Owned(format!("name `…` comes from {} glob imports", digits(*imports)));
            }
            NotIn { .. } => "not found: `…` in `…`",
            NotOn { .. } => "not found: `…` on `…`",
            NotFoundIn { .. } => "`…` not found in `…`",
            FieldUntyped { .. } => "field `…` of `…` has no known type",
            InheritedFromMany { parents, .. } => {
                return Cow::Owned(format!("`…` inherited from {} parents of `…`", digits(*parents)));
            }
            ReceiverUntyped { label, .. } => {
                return Cow::Owned(format!("method call: receiver type unknown (`…` is a {})", elided(label)));
            }
            ChainLostAt { .. } => "method call: receiver is a call chain whose type is lost at `…`",
            ResultOfExternal { .. } => "method call: receiver is the result of external `…`",
            ReturnNotRecorded { .. } => "method call: receiver is the result of `…` (return type not recorded)",
            ValueOfType { .. } => "call of a value of type `…`: which definition it holds is not known",
            NotOnExternalType { .. } => "`…` not found on `…`, a type of the tree reached as external",
            OnlyModuleCalled { .. } => "call of `…` binds only to the module `…`: no function of that name is visible",
            OnlyModule { .. } => "`…` names only the module `…` here, which is no value or type",
            TypeParameter { .. } => "`…` is a type parameter: what it runs depends on the type each caller gives",
            ImplTypeMissing { .. } => "`…`: impl type `…` is not defined in the tree",
            NoParentClass { .. } => "`…` in `…`: no known parent class",
            MacroNotDefined { .. } => "macro `…` not defined in this crate (a dependency's?)",
            MacroDefinedTimes { times, .. } => {
                return Cow::Owned(format!("macro `…` defined {} times in the crate", digits(*times)));
            }
            InsideMacro { reason, .. } => return Cow::Owned(format!("inside macro `…`: {}", reason.category())),
            // The others name nothing: the sentence is the key.
            _ => self.fixed().unwrap_or_default(),
        })
    }
}

/// A count as the ledger's key writes it: each digit `N`.
fn digits(n: usize) -> String {
    "N".repeat(n.to_string().len())
}

/// A word as the ledger's key writes it: digits as `N`.
fn elided(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_digit() { 'N' } else { c }).collect()
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Reason::*;
        match self {
            ClimbsAbove { source } => write!(f, "relative import `{source}` climbs above the top package"),
            ModuleNotInTree { source } => write!(f, "module `{source}` not found in the tree"),
            ModuleNotInPackage { source, package } => write!(f, "module `{source}` not found in package `{package}`"),
            ExportedButMissing { name, module, local } => {
                write!(f, "`{name}` exported by `{module}` but `{local}` not found")
            }
            NotExported { name, module } => write!(f, "not found: `{name}` is not exported by `{module}`"),
            NotInScope { name } => write!(f, "name `{name}` not found in scope"),
            ManifestUnread { name, package } => write!(
                f,
                "name `{name}` not found in scope, and the manifest of `{package}` could not be read, so its dependencies are unknown"
            ),
            NoDependency { name, package } => {
                write!(f, "name `{name}` not found in scope, and `{package}` has no dependency of that name")
            }
            CrateRootMissing { name } => write!(f, "crate root of `{name}` not in the tree"),
            DefinedTimes { name, times } => write!(f, "name `{name}` defined {times} times in scope"),
            GlobImports { name, imports } => write!(f, "name `{name}` comes from {imports} glob imports"),
            NotIn { name, namespace } => write!(f, "not found: `{name}` in `{namespace}`"),
            NotOn { name, ty } => write!(f, "not found: `{name}` on `{ty}`"),
            NotFoundIn { name, owner } => write!(f, "`{name}` not found in `{owner}`"),
            FieldUntyped { field, owner } => write!(f, "field `{field}` of `{owner}` has no known type"),
            InheritedFromMany { name, parents, ty } => write!(f, "`{name}` inherited from {parents} parents of `{ty}`"),
            ReceiverUntyped { key, label } => write!(f, "method call: receiver type unknown (`{key}` is a {label})"),
            ChainLostAt { step } => write!(f, "method call: receiver is a call chain whose type is lost at `{step}`"),
            ResultOfExternal { path } => write!(f, "method call: receiver is the result of external `{path}`"),
            ReturnNotRecorded { key } => {
                write!(f, "method call: receiver is the result of `{key}` (return type not recorded)")
            }
            ValueOfType { ty } => write!(f, "call of a value of type `{ty}`: which definition it holds is not known"),
            NotOnExternalType { name, ty } => {
                write!(f, "`{name}` not found on `{ty}`, a type of the tree reached as external")
            }
            OnlyModuleCalled { name, module } => {
                write!(f, "call of `{name}` binds only to the module `{module}`: no function of that name is visible")
            }
            OnlyModule { name, module } => {
                write!(f, "`{name}` names only the module `{module}` here, which is no value or type")
            }
            TypeParameter { name } => {
                write!(f, "`{name}` is a type parameter: what it runs depends on the type each caller gives")
            }
            ImplTypeMissing { ty } => write!(f, "`self`: impl type `{ty}` is not defined in the tree"),
            NoParentClass { ty } => write!(f, "`super` in `{ty}`: no known parent class"),
            MacroNotDefined { name } => write!(f, "macro `{name}` not defined in this crate (a dependency's?)"),
            MacroDefinedTimes { name, times } => write!(f, "macro `{name}` defined {times} times in the crate"),
            InsideMacro { within, reason } => write!(f, "inside macro `{within}`: {reason}"),
            _ => f.write_str(self.fixed().unwrap_or_default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Reason;

    /// The key the ledger counted reasons under when they were sentences: names in backticks elided,
    /// digits written `N`.
    fn elided(reason: &str) -> String {
        let mut out = String::with_capacity(reason.len());
        let mut inside = false;
        for ch in reason.chars() {
            match ch {
                '`' if !inside => out.push_str("`…`"),
                _ if inside => {}
                '`' => {}
                '0'..='9' => out.push('N'),
                _ => out.push(ch),
            }
            inside ^= ch == '`';
        }
        out
    }

    /// One of each reason, with names and counts.
    fn every_reason() -> Vec<Reason> {
        use Reason::*;
        let s = |text: &str| text.to_owned();
        let plain = vec![
            ImportedTwice,
            EmptyImport,
            ImportCycle,
            EmptyUse,
            ClimbsAbove { source: s("...x") },
            ModuleNotInTree { source: s("a.b") },
            ModuleNotInPackage { source: s("a/b"), package: s("web2") },
            ReexportTooDeep,
            ExportedButMissing { name: s("f"), module: s("m"), local: s("g") },
            NotExported { name: s("f"), module: s("m") },
            NotInScope { name: s("serde_json") },
            ManifestUnread { name: s("x"), package: s("app") },
            NoDependency { name: s("x"), package: s("app") },
            CrateOutsideTarget,
            CrateRootMissing { name: s("core2") },
            SuperOfRoot,
            SelfTypeOutside,
            DefinedTimes { name: s("f"), times: 12 },
            GlobImports { name: s("f"), imports: 3 },
            NotIn { name: s("f"), namespace: s("mod:a") },
            NotOn { name: s("f"), ty: s("T") },
            NotFoundIn { name: s("f"), owner: s("a::T") },
            FieldUntyped { field: s("inner"), owner: s("Foo") },
            MemberReexportTooDeep,
            InheritanceTooDeep,
            InheritedFromMany { name: s("run"), parents: 2, ty: s("C") },
            ChainTooDeep,
            ReceiverUnknown,
            ReceiverUntyped { key: s("a::f"), label: s("Function") },
            ChainFirstUnknown,
            ChainLostAt { step: s(".get(…)") },
            ResultOfExternal { path: s("std::env::var") },
            ReturnNotRecorded { key: s("a::make") },
            ComputedCall,
            LocalValueCalled,
            ValueOfType { ty: s("a::Handler") },
            NotOnExternalType { name: s("run"), ty: s("ext::app::B") },
            OnlyModuleCalled { name: s("json"), module: s("a::json") },
            OnlyModule { name: s("json"), module: s("a::json") },
            TypeParameter { name: s("T") },
            EmptyReference,
            ImplTypeMissing { ty: s("Vec") },
            SelfOutsideType,
            SuperOutsideClass,
            NoParentClass { ty: s("C") },
            Tokens,
            MacroNotDefined { name: s("m!") },
            MacroDefinedTimes { name: s("m!"), times: 2 },
            BindingUntyped,
        ];
        let inside =
            plain.iter().map(|r| InsideMacro { within: s("vec!"), reason: Box::new(r.clone()) }).collect::<Vec<_>>();
        plain.into_iter().chain(inside).collect()
    }

    #[test]
    fn a_reasons_category_is_its_sentence_with_names_and_numbers_elided() {
        for reason in every_reason() {
            let sentence = reason.to_string();
            assert!(!sentence.is_empty(), "{reason:?}");
            assert_eq!(reason.category(), elided(&sentence), "{reason:?}");
        }
    }

    #[test]
    fn sentences_are_as_the_edges_have_said_them() {
        use Reason::*;
        let cases = [
            (NotInScope { name: "f".into() }, "name `f` not found in scope"),
            (DefinedTimes { name: "f".into(), times: 2 }, "name `f` defined 2 times in scope"),
            (
                InsideMacro { within: "vec!".into(), reason: Box::new(ReceiverUnknown) },
                "inside macro `vec!`: method call: receiver type unknown",
            ),
            (ChainLostAt { step: "?".into() }, "method call: receiver is a call chain whose type is lost at `?`"),
            (Tokens, "its tokens do not read as Rust, so what it calls depends on the expansion"),
        ];
        for (reason, said) in cases {
            assert_eq!(reason.to_string(), said);
        }
    }
}
