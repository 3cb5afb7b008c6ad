//! Integration tests of drsg-planes: one binary, one module per concern.

mod bulk;
mod fixture;
mod open;
mod plane;
mod text;
