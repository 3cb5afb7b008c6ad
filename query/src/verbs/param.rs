//! A verb's parameter: its name, type, doc, default, whether required, and how the command line
//! spells it; built with `const` methods so the verb table is a constant.

use serde_json::{Map, Value};

/// A parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Integer,
    Bool,
    /// One of these words.
    Choice(&'static [&'static str]),
}

/// How the command line spells a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// The next positional argument.
    Positional,
    /// `--name` (underscores become dashes).
    Long,
    /// `-c` and `--name`.
    Short(char),
    /// Not on the command line (the shared `format`, which is `--json` there).
    Hidden,
}

/// One parameter of a verb.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    /// A sentence for the command line's help.
    pub doc: &'static str,
    /// A few words for the MCP input schema, where the name and type do not say enough (the whole
    /// tool list is kept small, so most parameters have none).
    pub brief: Option<&'static str>,
    pub required: bool,
    /// What an absent value means, as the command line's help shows it.
    pub default: Option<&'static str>,
    pub spelling: Spelling,
}

impl Param {
    const fn new(name: &'static str, kind: Kind, doc: &'static str) -> Param {
        Param { name, kind, doc, brief: None, required: false, default: None, spelling: Spelling::Long }
    }

    pub const fn text(name: &'static str, doc: &'static str) -> Param {
        Param::new(name, Kind::Text, doc)
    }

    pub const fn integer(name: &'static str, doc: &'static str) -> Param {
        Param::new(name, Kind::Integer, doc)
    }

    pub const fn flag(name: &'static str, doc: &'static str) -> Param {
        Param::new(name, Kind::Bool, doc)
    }

    pub const fn choice(name: &'static str, doc: &'static str, words: &'static [&'static str]) -> Param {
        Param::new(name, Kind::Choice(words), doc)
    }

    /// Required, and the next positional argument on the command line.
    pub const fn required(mut self) -> Param {
        self.required = true;
        self.spelling = Spelling::Positional;
        self
    }

    pub const fn positional(mut self) -> Param {
        self.spelling = Spelling::Positional;
        self
    }

    pub const fn short(mut self, c: char) -> Param {
        self.spelling = Spelling::Short(c);
        self
    }

    pub const fn spelled(mut self, spelling: Spelling) -> Param {
        self.spelling = spelling;
        self
    }

    pub const fn brief(mut self, brief: &'static str) -> Param {
        self.brief = Some(brief);
        self
    }

    pub const fn default(mut self, default: &'static str) -> Param {
        self.default = Some(default);
        self
    }

    /// The parameter's JSON Schema.
    pub fn schema(&self) -> Value {
        let mut schema = Map::new();
        match self.kind {
            Kind::Text => {
                schema.insert("type".into(), "string".into());
            }
            Kind::Integer => {
                schema.insert("type".into(), "integer".into());
            }
            Kind::Bool => {
                schema.insert("type".into(), "boolean".into());
            }
            Kind::Choice(words) => {
                schema.insert("enum".into(), words.iter().map(|w| Value::from(*w)).collect());
            }
        }
        if let Some(brief) = self.brief {
            schema.insert("description".into(), brief.into());
        }
        Value::Object(schema)
    }
}
