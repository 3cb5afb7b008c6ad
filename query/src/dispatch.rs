//! Calls that reach a symbol through another one: a constructor (`constructor`, `__init__`) through its
//! class's instantiations, an implementation through the interface or trait method it implements (a
//! call bound to `Speak::speak` may run `<Dog as Speak>::speak`).

use drsg_planes::{Direction, EdgeType, Node, Store};

use crate::CALL_TYPES;
use crate::Result;
use crate::walk::{Also, Start};

/// The edge types through which a constructor's class is instantiated.
const INSTANTIATIONS: &[&str] = &[EdgeType::Instantiates.as_str()];

/// What else reaches a symbol's callers' way.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dispatch {
    /// For a constructor, its class: the class's instantiations are its calls.
    pub class: Option<Node>,
    /// For an implementation, the interface or trait method it implements: calls bound to that one may
    /// run this one.
    pub implements: Option<Node>,
    /// For an interface or trait method, the methods that implement it.
    pub implemented_by: Vec<Node>,
}

impl Dispatch {
    pub(crate) fn of(store: &Store, node: &Node) -> Result<Dispatch> {
        Dispatch::read(store, node, true)
    }

    /// `implemented_by` is read only when `implementations` is set.
    fn read(store: &Store, node: &Node, implementations: bool) -> Result<Dispatch> {
        if node.label() != "Method" {
            return Ok(Dispatch::default());
        }
        let Some(owner) = owner(store, node)? else { return Ok(Dispatch::default()) };
        let mut out = Dispatch::default();
        match owner.label() {
            "Class" if matches!(node.name.as_str(), "constructor" | "__init__") => out.class = Some(owner),
            "Trait" | "Interface" if implementations => {
                for e in store.edges_in(owner.id, Some(EdgeType::Implements.as_str()))? {
                    out.implemented_by.extend(method_named(store, e.src, &node.name)?);
                }
                out.implemented_by.sort_by(|a, b| a.key.cmp(&b.key));
            }
            "Trait" | "Interface" => {}
            _ => {
                for e in store.edges_out(owner.id, Some(EdgeType::Implements.as_str()))? {
                    if let Some(m) = method_named(store, e.dst, &node.name)? {
                        out.implements = Some(m);
                        break;
                    }
                }
            }
        }
        Ok(out)
    }

    fn also(&self) -> Option<Also<'static>> {
        match (&self.class, &self.implements) {
            (Some(class), _) => Some(Also { node: class.id, types: INSTANTIATIONS, via: None }),
            (None, Some(method)) => Some(Also { node: method.id, types: CALL_TYPES, via: Some("interface") }),
            (None, None) => None,
        }
    }

    /// Where a walk back from `node` starts: with the class's instantiations, or the calls of the
    /// interface method, at the first hop (those reported `via interface`); and so on at every node the
    /// walk goes through.
    pub(crate) fn start<'a>(&self, node: &Node) -> Start<'a> {
        Start { node: node.id, also: self.also(), also_of: Some(also_of) }
    }
}

/// What reaches `node` the way its callers do: its class's instantiations for a constructor, the
/// calls of the interface or trait method an implementation implements.
pub(crate) fn also_of(store: &Store, node: &Node) -> Result<Option<Also<'static>>> {
    Ok(Dispatch::read(store, node, false)?.also())
}

/// The steps a walk along calls takes from node `id` in direction `dir` besides its call edges, each
/// with its kind (`interface`, `constructor`): back from an implementation to the interface or trait
/// method it implements and from a constructor to its class; forward from an interface or trait method
/// to its implementations and from a class to its constructor.
pub(crate) fn steps(store: &Store, node: &Node, dir: Direction) -> Result<Vec<(i64, &'static str)>> {
    let mut out = Vec::new();
    match dir {
        Direction::In => {
            let d = Dispatch::read(store, node, false)?;
            out.extend(d.class.map(|c| (c.id, "constructor")));
            out.extend(d.implements.map(|m| (m.id, "interface")));
        }
        Direction::Out if node.label() == "Class" => {
            for name in ["constructor", "__init__"] {
                out.extend(method_named(store, node.id, name)?.map(|m| (m.id, "constructor")));
            }
        }
        Direction::Out => {
            let d = Dispatch::read(store, node, true)?;
            out.extend(d.implemented_by.into_iter().map(|m| (m.id, "interface")));
        }
    }
    Ok(out)
}

/// The type or trait that declares method `node`.
fn owner(store: &Store, node: &Node) -> Result<Option<Node>> {
    match store.edges_in(node.id, Some(EdgeType::HasMethod.as_str()))?.first() {
        Some(e) => Ok(store.node(e.src)?),
        None => Ok(None),
    }
}

/// The method of type `ty` named `name`, if it declares one.
fn method_named(store: &Store, ty: i64, name: &str) -> Result<Option<Node>> {
    for e in store.edges_out(ty, Some(EdgeType::HasMethod.as_str()))? {
        if let Some(m) = store.node(e.dst)?
            && m.name == name
        {
            return Ok(Some(m));
        }
    }
    Ok(None)
}
