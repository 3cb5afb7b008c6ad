//! The types of edge the planes hold, one name each: the one list every crate names them from, stored as
//! the name (`EdgeType::as_str`).

/// A type of edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeType {
    // A code plane's symbols.
    Contains,
    HasMethod,
    Calls,
    References,
    Imports,
    Implements,
    Extends,
    Instantiates,
    // Its route layer.
    Serves,
    Requests,
    // A `_git` plane.
    Parent,
    Tip,
    Tags,
    Onto,
    Replaced,
    // An `_ops` plane.
    Runs,
    BuiltFrom,
    From,
    Overrides,
}

impl EdgeType {
    /// What a code plane holds, its route layer's included: the first of `ALL`.
    pub const CODE: [EdgeType; 10] = {
        let mut out = [EdgeType::Contains; 10];
        let mut i = 0;
        while i < out.len() {
            out[i] = EdgeType::ALL[i];
            i += 1;
        }
        out
    };

    /// Every type: a code plane's first, then a `_git` plane's, then an `_ops` plane's.
    pub const ALL: [EdgeType; 19] = [
        EdgeType::Contains,
        EdgeType::HasMethod,
        EdgeType::Calls,
        EdgeType::References,
        EdgeType::Imports,
        EdgeType::Implements,
        EdgeType::Extends,
        EdgeType::Instantiates,
        EdgeType::Serves,
        EdgeType::Requests,
        EdgeType::Parent,
        EdgeType::Tip,
        EdgeType::Tags,
        EdgeType::Onto,
        EdgeType::Replaced,
        EdgeType::Runs,
        EdgeType::BuiltFrom,
        EdgeType::From,
        EdgeType::Overrides,
    ];

    /// The name a plane stores.
    pub const fn as_str(self) -> &'static str {
        match self {
            EdgeType::Contains => "CONTAINS",
            EdgeType::HasMethod => "HAS_METHOD",
            EdgeType::Calls => "CALLS",
            EdgeType::References => "REFERENCES",
            EdgeType::Imports => "IMPORTS",
            EdgeType::Implements => "IMPLEMENTS",
            EdgeType::Extends => "EXTENDS",
            EdgeType::Instantiates => "INSTANTIATES",
            EdgeType::Serves => "SERVES",
            EdgeType::Requests => "REQUESTS",
            EdgeType::Parent => "PARENT",
            EdgeType::Tip => "TIP",
            EdgeType::Tags => "TAGS",
            EdgeType::Onto => "ONTO",
            EdgeType::Replaced => "REPLACED",
            EdgeType::Runs => "RUNS",
            EdgeType::BuiltFrom => "BUILT_FROM",
            EdgeType::From => "FROM",
            EdgeType::Overrides => "OVERRIDES",
        }
    }

    /// The type a stored name is; `None` for a name no plane writes.
    pub fn parse(name: &str) -> Option<EdgeType> {
        EdgeType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// The names of `types`, for the reads that take names (`Store::edges`, walks).
pub const fn names<const N: usize>(types: [EdgeType; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = types[i].as_str();
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_one_name_that_parses_back() {
        let mut seen = std::collections::BTreeSet::new();
        for t in EdgeType::ALL {
            assert!(seen.insert(t.as_str()), "{t:?} shares its name");
            assert_eq!(EdgeType::parse(t.as_str()), Some(t));
        }
        assert_eq!(EdgeType::parse("calls"), None);
        assert_eq!(names([EdgeType::Calls, EdgeType::Instantiates]), ["CALLS", "INSTANTIATES"]);
        assert_eq!(EdgeType::CODE.last(), Some(&EdgeType::Requests));
        assert!(EdgeType::CODE.iter().all(|t| EdgeType::ALL.contains(t)));
    }
}
