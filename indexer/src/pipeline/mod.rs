//! The steps an index and a fold share, in their order: parse the files, prepare the symbol table,
//! resolve, and record the ledger, under the options of a run. `run` streams them into a fresh plane;
//! `warm` keeps what they made between folds.

pub(crate) mod ledger;
pub(crate) mod options;
pub(crate) mod parse;
pub(crate) mod prepare;
pub(crate) mod record;
pub(crate) mod resolve;
