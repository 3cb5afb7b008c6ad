//! Tests of the plugins' queries as the rooted walk runs them: each plugin's commonest nodes start their
//! patterns without the cursor, and started at the query's root kinds the walk finds what a whole-tree
//! cursor finds.

use crate::rooted::tests::{assert_matched_without_the_cursor, assert_same_matches};

#[test]
fn the_plugins_commonest_nodes_are_matched_without_the_cursor() {
    let cases: [(tree_sitter::Language, String, &[&str]); 3] = [
        (
            tree_sitter_python::LANGUAGE.into(),
            crate::python::query_text(),
            &[
                "call",
                "assignment",
                "decorator",
                "decorated_definition",
                "expression_statement",
                "import_statement",
                "import_from_statement",
            ],
        ),
        (
            tree_sitter_rust::LANGUAGE.into(),
            crate::rust::query_text(),
            &[
                "call_expression",
                "arguments",
                "let_declaration",
                "closure_parameters",
                "function_item",
                "function_signature_item",
                "impl_item",
                "trait_item",
            ],
        ),
        (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            crate::typescript::query_text(true),
            &[
                "call_expression",
                "assignment_expression",
                "variable_declarator",
                "type_parameter",
                "arguments",
                "method_definition",
                "public_field_definition",
                "function_declaration",
                "class_declaration",
                "interface_declaration",
                "type_alias_declaration",
                "import_statement",
                "ambient_declaration",
            ],
        ),
    ];
    for (language, text, kinds) in cases {
        assert_matched_without_the_cursor(&language, &text, kinds);
    }
}

#[test]
fn starting_at_root_kinds_finds_what_the_whole_tree_cursor_finds() {
    let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    let text = crate::python::query_text();
    let source = r#""""Module doc."""
import os.path as p
from .util import f, g as h
from m import *

LIMIT = 3
"""The limit."""

@decorate(arg)
@other
class A(Base, metaclass=Meta):
x: int = 1
"""Doc of x."""

def run(self, y: "B" = f, *args, **kw) -> None:
    def inner(z=g):
        return h(z)
    self.go(map(inner, [y]), key=p.join)
    items = [c() for c in args]
    if y:
        w = 2
        """Not an attribute doc."""

def broken(:
call_in_error()
"#;
    assert_same_matches(&language, &text, source, 25);
}

#[test]
fn starting_at_root_kinds_finds_what_the_whole_tree_cursor_finds_in_tsx() {
    let language: tree_sitter::Language = tree_sitter_typescript::LANGUAGE_TSX.into();
    let text = crate::typescript::query_text(true);
    let source = r#"// A module.
import React, { useState as use } from "react";
import * as path from "path";
export { a, b as c } from "./x";
export * from "./y";
const fs = require("fs");
const { readFile } = require("fs/promises").promises;
module.exports.helper = helper;
exports.other = () => 1;

/** A class. */
@Component({ selector: "x" })
export default class Widget<T extends Base> extends React.Component<Props> implements Thing {
  count: number = 0;
  handler = (e: Event): void => this.update(e);
  render(): JSX.Element {
const [v, setV] = use<string>("");
return <Panel title={label(v)} onClick={this.handler}><Item key="k" /></Panel>;
  }
}

export function helper(x: Map<string, Widget<number>>): asserts x is Widget<number> {
  return new Widget(x).render();
}

declare module "ambient" {
  export const z: number;
}

namespace Space { export let w = make(); }

describe("suite", () => {
  it("works", async () => { expect(helper(null)).toBe(1); });
});

function broken( {
  call();
"#;
    assert_same_matches(&language, &text, source, 80);
}

#[test]
fn starting_at_root_kinds_finds_what_the_whole_tree_cursor_finds_in_rust() {
    let language: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
    let text = crate::rust::query_text();
    let source = r#"//! Crate doc.
use std::collections::{HashMap as Map, HashSet};
use crate::net::{self, Client};
pub use inner::*;

/// A widget.
#[derive(Debug)]
pub struct Widget<T: Clone + Send> where T: Default {
pub items: Vec<T>,
pair: (Map<String, T>, u8),
}

pub struct Tuple<U: Copy>(U, Box<dyn Fn(&U) -> U>);

pub union Bits<B: Copy> where B: Sized { a: B, b: u32 }

enum Shape<S: Into<f64>> where S: Copy { Circle { r: S }, Square(S) }

type Alias<A: Iterator> where A: Clone = Vec<A>;

pub trait Render: Sized + Clone where Self: Send {
type Out<'a>: AsRef<str> where Self: 'a;
fn render<W: std::io::Write>(&self, w: &mut W) -> std::io::Result<()> where W: Send;
fn name(&self) -> String { String::new() }
}

impl<T: Clone + Send> Render for Widget<T> where T: Default {
type Out<'a> = String where T: 'a;
fn render<W: std::io::Write>(&self, w: &mut W) -> std::io::Result<()> where W: Send {
    let c: Client = Client::new();
    c.connect(net::ADDR);
    let f = |x: u8| helper(x);
    self.items.iter().map(Self::helper).for_each(drop);
    println!("{}", self.name());
    Ok(())
}
}

fn hr<F>(f: F) where F: for<'a> Fn(&'a u8) -> &'a u8 { let _ = Widget::<u8> { items: vec![], pair: todo!() }; }

const LIMIT: usize = 3;
static NAME: &str = "x";

#[cfg(test)]
mod tests {
#[test]
fn works() { super::hr(|x| x); }
}

fn broken( {
call();
"#;
    assert_same_matches(&language, &text, source, 60);
}
