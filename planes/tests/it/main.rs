//! Integration tests of drsg-planes: one binary, one module per concern.

mod bulk;
mod diff;
mod fixture;
mod open;
mod plane;
mod text;
