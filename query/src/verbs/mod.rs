//! The verb table: every verb declared once, with its name, one-line summary, parameters (name,
//! type, default, doc, whether required, how the command line spells it), whether it writes, and the
//! function that answers it. The command line's subcommands, the MCP tools and their input schemas,
//! the compact tool's help, the `/rpc` methods and the guide are all derived from a [`Registry`].
//!
//! A call is a verb's name and a JSON object of arguments; [`Verb::check`] refuses unknown and
//! missing arguments with a sentence a caller (often a model) can act on, and [`Backend::call`] runs
//! it against a shared store. A verb answers text within a budget, or its JSON form.
//!
//! `Verb::input_schema`, `Verb::signature` and `Verb::check` give every surface its schema, guide
//! line and argument check. `Registry::builtin` holds the built-in verbs of `table.rs` and
//! `Registry::add` takes more; a unit test checks each verb's parameters against its `Params`
//! fields.

mod backend;
mod param;
mod table;

pub use backend::{Backend, Failure, Writer, surface_of};
pub use param::{Kind, Param, Spelling};

use serde_json::{Map, Value};

use crate::{Revisions, Session, Store};

/// A call's arguments: a JSON object.
pub type Args = Map<String, Value>;

/// One verb.
pub struct Verb {
    pub name: &'static str,
    /// One line: what it answers and when to reach for it.
    pub summary: &'static str,
    /// Its own parameters; the shared ones ([`Verb::shared`]) are added by every surface.
    pub params: &'static [Param],
    pub run: Run,
    /// Listed as an MCP tool (`export`, whose answer is a whole plane, is not: it is a command and
    /// an `/rpc` method).
    pub tool: bool,
    /// A subcommand derived from its parameters (`report`, with its own flags, output file and exit
    /// codes, is written by hand in the binary).
    pub cli: bool,
}

/// How a verb answers.
#[derive(Clone, Copy)]
pub enum Run {
    /// Reads, and answers text within a budget or its JSON form.
    Read(fn(&Env<'_>, Args, Shape) -> Result<Reply, CallError>),
    /// Writes through the write gate; answers one line.
    Write(fn(&mut Store, &Writes<'_>, Args) -> Result<Reply, CallError>),
    /// Reads and writes an unbounded answer to a writer; whether it wrote anything.
    Stream(fn(&Env<'_>, Args, &mut dyn std::io::Write) -> Result<bool, CallError>),
}

/// What a read verb reads from.
pub struct Env<'a> {
    pub session: Session<'a>,
    pub revisions: &'a dyn Revisions,
    /// Where the answer is read: its hints name that surface's flags or arguments.
    pub surface: crate::Surface,
}

/// What a write verb needs besides the store.
pub struct Writes<'a> {
    pub cwd: Option<&'a std::path::Path>,
    pub writer: Option<&'a dyn Writer>,
    /// Who asked (`cli`, `rpc`, `mcp:<client>`), recorded on what is written.
    pub source: &'a str,
}

/// The form of a read verb's answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shape {
    /// The structured answer as compact JSON instead of text.
    pub json: bool,
    /// Characters of a text answer (default [`crate::DEFAULT_BUDGET`]).
    pub budget: Option<usize>,
    /// Where the text is read (see [`Env::surface`]).
    pub surface: crate::Surface,
}

/// A verb's answer, rendered.
#[derive(Debug)]
pub struct Reply {
    pub text: String,
    /// False when the verb found nothing (a normal answer, not an error).
    pub found: bool,
}

/// Why a call could not be answered: a sentence the caller can act on.
#[derive(Debug)]
pub struct CallError(pub String);

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<crate::Error> for CallError {
    fn from(err: crate::Error) -> CallError {
        CallError(err.to_string())
    }
}

/// The shared parameters of a read verb.
pub const READ_SHARED: &[Param] = &[
    Param::text("plane", "The plane to read (default: the only code plane, or the one holding the working directory)."),
    Param::choice("format", "`json` for the structured answer (default `text`).", &["text", "json"])
        .spelled(Spelling::Hidden),
    Param::integer("budget", "Size of a text answer in characters (default 8000, at least 200)."),
];

/// The shared parameter of a verb that writes or streams.
pub const PLANE_ONLY: &[Param] =
    &[Param::text("plane", "The plane (default: the only code plane, or the one holding the working directory).")];

impl Verb {
    /// Whether the verb only reads.
    pub fn read_only(&self) -> bool {
        !matches!(self.run, Run::Write(_))
    }

    /// The parameters every surface adds to the verb's own.
    pub fn shared(&self) -> &'static [Param] {
        match self.run {
            Run::Read(_) => READ_SHARED,
            Run::Write(_) | Run::Stream(_) => PLANE_ONLY,
        }
    }

    /// Own parameters, then the shared ones.
    pub fn all_params(&self) -> impl Iterator<Item = &'static Param> {
        self.params.iter().chain(self.shared())
    }

    /// The JSON Schema of the verb's arguments (an MCP tool's input schema).
    pub fn input_schema(&self) -> Map<String, Value> {
        let properties: Map<String, Value> = self.all_params().map(|p| (p.name.to_owned(), p.schema())).collect();
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        let required: Vec<Value> = self.params.iter().filter(|p| p.required).map(|p| Value::from(p.name)).collect();
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        schema
    }

    /// `name(required, optional?)`: the verb as the guide lists it.
    pub fn signature(&self) -> String {
        let mut args: Vec<String> = self.params.iter().filter(|p| p.required).map(|p| p.name.to_owned()).collect();
        args.extend(self.params.iter().filter(|p| !p.required).map(|p| format!("{}?", p.name)));
        format!("{}({})", self.name, args.join(", "))
    }

    /// Refuses arguments the verb does not take and missing required ones.
    pub fn check(&self, args: &Args) -> Result<(), CallError> {
        let name = self.name;
        if let Some(unknown) = args.keys().find(|k| !self.all_params().any(|p| p.name == k.as_str())) {
            let known: Vec<&str> = self.all_params().map(|p| p.name).collect();
            return Err(CallError(format!(
                "`{name}` takes no argument `{unknown}`; its arguments: {}",
                known.join(", ")
            )));
        }
        if let Some(missing) = self.params.iter().find(|p| p.required && args.get(p.name).is_none_or(Value::is_null)) {
            return Err(CallError(format!("`{name}` needs `{}`", missing.name)));
        }
        Ok(())
    }
}

/// The verbs, in the order a model should think of them.
pub struct Registry {
    verbs: Vec<Verb>,
}

impl Registry {
    /// The built-in verbs.
    pub fn builtin() -> Registry {
        Registry { verbs: table::builtin() }
    }

    /// Adds a verb at the end; `Err` when a verb of that name exists.
    pub fn add(&mut self, verb: Verb) -> Result<(), CallError> {
        if self.find(verb.name).is_some() {
            return Err(CallError(format!("a verb named `{}` exists", verb.name)));
        }
        self.verbs.push(verb);
        Ok(())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Verb> {
        self.verbs.iter()
    }

    pub fn find(&self, name: &str) -> Option<&Verb> {
        self.verbs.iter().find(|v| v.name == name)
    }

    /// The verb called `name`, or an error listing the verbs.
    pub fn get(&self, name: &str) -> Result<&Verb, CallError> {
        self.find(name).ok_or_else(|| CallError(format!("unknown verb `{name}`; verbs: {}", self.names())))
    }

    /// The verbs' names, for messages.
    pub fn names(&self) -> String {
        self.verbs.iter().map(|v| v.name).collect::<Vec<_>>().join(", ")
    }
}

/// Takes the shared `format` and `budget` out of a read verb's arguments.
pub fn take_shape(args: &mut Args) -> Result<Shape, CallError> {
    let json = match args.remove("format") {
        None | Some(Value::Null) => false,
        Some(Value::String(f)) if f == "text" => false,
        Some(Value::String(f)) if f == "json" => true,
        Some(other) => return Err(CallError(format!("`format` is \"text\" or \"json\" (got {other})"))),
    };
    let budget = match args.remove("budget") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 200 => Some(n as usize),
            _ => return Err(CallError(format!("`budget` is a number of characters, at least 200 (got {v})"))),
        },
    };
    Ok(Shape { json, budget, surface: crate::Surface::Cli })
}

/// Runs a read or streaming verb in process: checks the arguments, then answers. A streaming verb's
/// answer is collected (see [`stream`] to write it as it comes).
pub fn read(verb: &Verb, env: &Env<'_>, mut args: Args) -> Result<Reply, CallError> {
    verb.check(&args)?;
    match verb.run {
        Run::Read(answer) => {
            let shape = Shape { surface: env.surface, ..take_shape(&mut args)? };
            answer(env, args, shape)
        }
        Run::Stream(answer) => {
            let mut out = Vec::new();
            let found = answer(env, args, &mut out)?;
            let text = String::from_utf8(out).map_err(|_| CallError("the answer is not UTF-8".into()))?;
            Ok(Reply { text, found })
        }
        Run::Write(_) => Err(CallError(format!("`{}` writes: it runs through the write gate", verb.name))),
    }
}

/// Runs a streaming verb, writing its answer to `out`; whether it wrote anything.
pub fn stream(verb: &Verb, env: &Env<'_>, args: Args, out: &mut dyn std::io::Write) -> Result<bool, CallError> {
    verb.check(&args)?;
    match verb.run {
        Run::Stream(answer) => answer(env, args, out),
        _ => {
            let reply = read(verb, env, args)?;
            out.write_all(reply.text.as_bytes()).map_err(|e| CallError(format!("cannot write the answer: {e}")))?;
            Ok(reply.found)
        }
    }
}

/// Runs a write verb on `store`.
pub fn write(verb: &Verb, store: &mut Store, writes: &Writes<'_>, args: Args) -> Result<Reply, CallError> {
    verb.check(&args)?;
    match verb.run {
        Run::Write(answer) => answer(store, writes, args),
        _ => Err(CallError(format!("`{}` only reads", verb.name))),
    }
}
