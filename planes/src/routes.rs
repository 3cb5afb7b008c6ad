//! Route and request paths as the route layer writes them (`route:GET /v1/users/{}`), so that the
//! indexer that writes them and the verbs that match them read paths alike.

use std::cmp::Reverse;

/// `https://api.acme.io/v1/users/:id/?q=1` → `/v1/users/{}`: scheme, host, query and fragment dropped,
/// parameters (`:id`, `{id}`, `<int:id>`, `[id]`) as `{}`, doubled and trailing slashes dropped.
pub fn normalise(path: &str) -> String {
    let mut rest = path;
    for scheme in ["http://", "https://", "//"] {
        if let Some(after) = rest.strip_prefix(scheme) {
            rest = after.find('/').map_or("", |i| &after[i..]);
            break;
        }
    }
    // The query and fragment go; `{?}` (a part not known), `{*?}` (a catch-all) and a regular expression's
    // `(?P<x>…)` are no query.
    let cut = rest
        .char_indices()
        .find(|&(i, c)| c == '#' || (c == '?' && !rest[..i].ends_with(['{', '(']) && !rest[..i].ends_with("{*")))
        .map_or(rest.len(), |(i, _)| i);
    // A regular expression's anchors (Django's `re_path(r"^users/$")`) go.
    let rest = rest[..cut].trim_start_matches('^').trim_end_matches('$');
    let mut out = String::with_capacity(rest.len() + 1);
    for s in rest.split('/') {
        if let Some(all) = catch_all(s) {
            out.push('/');
            out.push_str(all);
            continue;
        }
        let param = s.starts_with(':')
            || (s.starts_with('{') && s.ends_with('}') && s != "{?}")
            || (s.starts_with('<') && s.ends_with('>'))
            || (s.starts_with('[') && s.ends_with(']'))
            || (s.starts_with('(') && s.ends_with(')'));
        let s = if param { "{}" } else { s.trim_start_matches('^').trim_end_matches('$') };
        if !s.is_empty() {
            out.push('/');
            out.push_str(s);
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// A segment that takes the rest of the path, as its normal form: `{*}` for one or more segments (Next.js's
/// `[...slug]`, Flask's and Django's `<path:p>`, FastAPI's `{p:path}`, Express's and Hono's `*`, Express 5's
/// `*splat`), `{*?}` for none or more (Next.js's `[[...slug]]`).
fn catch_all(segment: &str) -> Option<&'static str> {
    let s = segment;
    if s.starts_with("[[...") && s.ends_with("]]") {
        return Some("{*?}");
    }
    let star = s.strip_prefix('*').is_some_and(|name| name.chars().all(|c| c.is_alphanumeric() || c == '_'));
    let all = star
        || s == "{*}"
        || (s.starts_with("[...") && s.ends_with(']'))
        || (s.starts_with("<path:") && s.ends_with('>'))
        || (s.starts_with('{') && s.ends_with(":path}"));
    if s == "{*?}" { Some("{*?}") } else { all.then_some("{*}") }
}

/// Whether a request's path is a route's: equal segment by segment, a `{}` on either side matching any,
/// and each of a route's catch-alls (`{*}`, `{*?}`) as many segments as it takes. A route whose first
/// catch-all has no literal segment before it (`app.get('*', …)`, a single-page app's fallback) pairs with
/// nothing: it would take every request the tree's API serves elsewhere.
pub fn same_path(route: &str, request: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (route.split('/').collect(), request.split('/').collect());
    if let Some(k) = a.iter().position(|s| is_catch_all(s))
        && !a[..k].iter().any(|s| !s.is_empty() && !s.starts_with('{'))
    {
        return false;
    }
    segments_pair(&a, &b)
}

fn is_catch_all(segment: &str) -> bool {
    segment == "{*}" || segment == "{*?}"
}

/// Whether route segments `a` take request segments `b`, all of them.
fn segments_pair(a: &[&str], b: &[&str]) -> bool {
    match a.split_first() {
        None => b.is_empty(),
        Some((&all, rest)) if is_catch_all(all) => {
            let least = usize::from(all == "{*}");
            (least..=b.len()).any(|taken| segments_pair(rest, &b[taken..]))
        }
        Some((x, rest)) => b
            .split_first()
            .is_some_and(|(y, others)| (x == y || *x == "{}" || *y == "{}") && segments_pair(rest, others)),
    }
}

/// How well a route fits a request that [`same_path`] pairs them, lower first: a route without a catch-all
/// before one with, and of those with one, the route with more segments of its own (`/api/docs/{*}` before
/// `/api/{*}`); then a route that takes a parameter where the request has one (`/articles/{}` for
/// `/articles/${slug}`) before one that needs a literal there (`/articles/feed`), then the route with fewer
/// parameters; `None` when they do not pair.
pub fn fit(route: &str, request: &str) -> Option<(bool, Reverse<usize>, usize, usize)> {
    if !same_path(route, request) {
        return None;
    }
    let own = route.split('/').filter(|s| !is_catch_all(s)).count();
    // Segments compared in place: up to the first catch-all.
    let before = route.split('/').take_while(|s| !is_catch_all(s));
    let guessed = before.zip(request.split('/')).filter(|(r, q)| *q == "{}" && *r != "{}").count();
    Some((route.contains("{*"), Reverse(own), guessed, route.matches("{}").count()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise() {
        assert_eq!(normalise("https://api.acme.io/v1/users/:id/?q=1"), "/v1/users/{}");
        assert_eq!(normalise("/users/<int:id>/"), "/users/{}");
        assert_eq!(normalise("//cdn/x/[slug]"), "/x/{}");
        assert_eq!(normalise("users//{user_id}"), "/users/{}");
        assert_eq!(normalise("http://localhost:8000"), "/");
        assert_eq!(normalise("/a/{?}/b"), "/a/{?}/b");
        assert_eq!(normalise("^articles/(?P<year>[0-9]{4})/$"), "/articles/{}");
        assert!(same_path("/users/{}", "/users/42") && same_path("/users/7", "/users/{}"));
        assert!(!same_path("/users/{}", "/users/42/posts"));
        assert!(fit("/articles/{}", "/articles/{}") < fit("/articles/feed", "/articles/{}"));
        assert!(fit("/articles/feed", "/articles/feed") < fit("/articles/{}", "/articles/feed"));
    }

    #[test]
    fn a_catch_all_takes_the_rest_of_the_path() {
        assert_eq!(normalise("/docs/[...slug]"), "/docs/{*}");
        assert_eq!(normalise("/docs/[[...slug]]"), "/docs/{*?}");
        assert_eq!(normalise("/files/<path:name>/raw"), "/files/{*}/raw");
        assert_eq!(normalise("/files/{file_path:path}"), "/files/{*}");
        assert_eq!(normalise("/static/*"), "/static/{*}");
        assert_eq!(normalise("/static/*splat"), "/static/{*}");
        assert_eq!(normalise("/static/*.js"), "/static/*.js");
        assert_eq!(normalise(&normalise("/docs/[[...slug]]")), "/docs/{*?}");
        // One or more segments, or none or more; what follows the catch-all must follow it.
        assert!(same_path("/docs/{*}", "/docs/a") && same_path("/docs/{*}", "/docs/a/b/{}"));
        assert!(!same_path("/docs/{*}", "/docs") && !same_path("/docs/{*}", "/blog/a"));
        assert!(same_path("/docs/{*?}", "/docs") && same_path("/docs/{*?}", "/docs/a/b"));
        assert!(same_path("/files/{*}/raw", "/files/a/b/raw") && !same_path("/files/{*}/raw", "/files/a/b"));
        // A fallback at the root pairs with nothing, and a route without a catch-all fits first.
        assert!(!same_path("/{*}", "/api/users") && !same_path("/{}/{*}", "/api/users"));
        assert!(fit("/docs/{}", "/docs/a") < fit("/docs/{*}", "/docs/a"));
        assert!(fit("/docs/{*}", "/docs/a/b").is_some() && fit("/docs/{}", "/docs/a/b").is_none());
        // Of two catch-alls, the route with more of its own segments; two catch-alls in one route.
        assert!(fit("/api/{}/x/{*}", "/api/u/x/y") < fit("/api/{*}", "/api/u/x/y"));
        assert!(fit("/api/docs/{*}", "/api/docs/a") < fit("/api/{*}", "/api/docs/a"));
        assert!(same_path("/a/{*}/b/{*}", "/a/p/b/q") && same_path("/a/{*}/b/{*?}", "/a/p/q/b"));
        assert!(!same_path("/a/{*}/b/{*}", "/a/p/b"));
    }
}
