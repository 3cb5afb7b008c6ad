//! Plugin tests: inline sources in, facts out.
mod python;
mod rust;
mod typescript;
