//! Route and request paths as the route layer writes them (`route:GET /v1/users/{}`), so that the
//! indexer that writes them and the verbs that match them read paths alike.

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
    // The query and fragment go; `{?}` (a part not known) and a regular expression's `(?P<x>…)` are no query.
    let cut = rest
        .char_indices()
        .find(|&(i, c)| c == '#' || (c == '?' && !rest[..i].ends_with(['{', '('])))
        .map_or(rest.len(), |(i, _)| i);
    // A regular expression's anchors (Django's `re_path(r"^users/$")`) go.
    let rest = rest[..cut].trim_start_matches('^').trim_end_matches('$');
    let mut out = String::with_capacity(rest.len() + 1);
    for s in rest.split('/') {
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

/// Whether a request's path is a route's: equal segment by segment, a `{}` on either side matching any.
pub fn same_path(route: &str, request: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (route.split('/').collect(), request.split('/').collect());
    a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x == y || *x == "{}" || *y == "{}")
}

/// How well a route fits a request that [`same_path`] pairs them, lower first: a route that takes a
/// parameter where the request has one (`/articles/{}` for `/articles/${slug}`) before one that needs a
/// literal there (`/articles/feed`), then the route with fewer parameters; `None` when they do not pair.
pub fn fit(route: &str, request: &str) -> Option<(usize, usize)> {
    if !same_path(route, request) {
        return None;
    }
    let guessed = route.split('/').zip(request.split('/')).filter(|(r, q)| *q == "{}" && *r != "{}").count();
    Some((guessed, route.matches("{}").count()))
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
}
