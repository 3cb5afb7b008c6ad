//! The wire between code planes: which route of another plane serves each `Request` stand-in (a request
//! no route of its own plane serves), computed from the stored facts when asked, so never staler than the
//! planes. `wire`, `impact --across` and `trace` pair requests with routes alike through it. A request
//! that no route fits as written is tried as its plane's proxies forward it (its `via` paths).
//!
//! Each plane's `Request` stand-ins are matched as written, else through their `via` paths, against the
//! routes of the other code planes, segment by segment, `{}` matching any, and the best-fitting route is
//! taken.

use std::collections::HashMap;

use drsg_planes::routes::fit;
use drsg_planes::{PlaneKind, Store};
use serde_json::Value;

use crate::Result;

/// One `Route` or `Request` node: its id, its plane, method and path.
struct End {
    id: i64,
    plane: i64,
    method: String,
    path: String,
    /// The paths a request also reaches through its plane's proxies.
    via: Vec<String>,
}

/// Every code plane's routes and request stand-ins, and the route each stand-in fits best.
pub(crate) struct Across {
    served_by: HashMap<i64, i64>,
    requested_by: HashMap<i64, Vec<i64>>,
}

impl Across {
    pub(crate) fn load(store: &Store) -> Result<Across> {
        let (mut routes, mut requests) = (Vec::new(), Vec::new());
        for plane in store.planes()?.into_iter().filter(|p| p.meta.kind == PlaneKind::Code) {
            for (label, into) in [("Route", &mut routes), ("Request", &mut requests)] {
                for n in store.nodes_by_label(plane.id, label)? {
                    let text = |k: &str| n.props.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                    let via = n
                        .props
                        .get("via")
                        .and_then(Value::as_array)
                        .map_or_else(Vec::new, |v| v.iter().filter_map(Value::as_str).map(str::to_owned).collect());
                    into.push(End { id: n.id, plane: plane.id, method: text("method"), path: text("path"), via });
                }
            }
        }
        let mut served_by = HashMap::new();
        let mut requested_by: HashMap<i64, Vec<i64>> = HashMap::new();
        for q in &requests {
            let best_for = |path: &str| {
                routes
                    .iter()
                    .filter(|r| r.plane != q.plane && (r.method == q.method || r.method == "ANY"))
                    .filter_map(|r| Some((fit(&r.path, path)?, r.method == "ANY", r.id)))
                    .min()
            };
            let best = best_for(&q.path).or_else(|| q.via.iter().find_map(|p| best_for(p)));
            if let Some((_, _, route)) = best {
                served_by.insert(q.id, route);
                requested_by.entry(route).or_default().push(q.id);
            }
        }
        Ok(Across { served_by, requested_by })
    }

    /// The route of another plane that serves request stand-in `request`.
    pub(crate) fn route_for(&self, request: i64) -> Option<i64> {
        self.served_by.get(&request).copied()
    }

    /// The request stand-ins of other planes that route `route` serves.
    pub(crate) fn requests_of(&self, route: i64) -> &[i64] {
        self.requested_by.get(&route).map_or(&[], Vec::as_slice)
    }
}
