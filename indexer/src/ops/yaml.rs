//! YAML documents with their lines, read with saphyr (scalars kept as written, so a tag `1.10` stays
//! `1.10` rather than the number 1.1).

use saphyr::{MarkedYaml, Scalar, YamlData, YamlLoader};
use saphyr_parser::{Parser, ScalarStyle};

/// The documents of `text`, or the error with its 1-based line.
pub fn documents(text: &str) -> Result<Vec<MarkedYaml<'_>>, (u32, String)> {
    let mut loader: YamlLoader<'_, MarkedYaml<'_>> = YamlLoader::default();
    loader.early_parse(false);
    let mut parser = Parser::new_from_str(text);
    let failed = |e: &saphyr::ScanError| (e.marker().line() as u32, e.info().to_owned());
    parser.load(&mut loader, true).map_err(|e| failed(&e))?;
    if let Some(e) = loader.error() {
        return Err(failed(e));
    }
    Ok(loader.into_documents())
}

/// The 1-based line a node starts on.
pub fn line(node: &MarkedYaml<'_>) -> u32 {
    node.span.start.line() as u32
}

/// A scalar's text as written; `None` for null, collections and aliases.
pub fn text<'a>(node: &'a MarkedYaml<'_>) -> Option<&'a str> {
    match &node.data {
        YamlData::Representation(s, style, _) => {
            let null = *style == ScalarStyle::Plain && matches!(s.as_ref(), "" | "~" | "null" | "Null" | "NULL");
            (!null).then_some(s.as_ref())
        }
        YamlData::Value(Scalar::String(s)) => Some(s.as_ref()),
        YamlData::Tagged(_, inner) => text(inner),
        _ => None,
    }
}

/// The value under `key` in a mapping.
pub fn get<'a, 'i>(node: &'a MarkedYaml<'i>, key: &str) -> Option<&'a MarkedYaml<'i>> {
    entries(node).find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// The value at a path of keys.
pub fn at<'a, 'i>(node: &'a MarkedYaml<'i>, path: &[&str]) -> Option<&'a MarkedYaml<'i>> {
    path.iter().try_fold(node, |n, key| get(n, key))
}

/// The text under `key`.
pub fn get_text<'a>(node: &'a MarkedYaml<'_>, key: &str) -> Option<&'a str> {
    get(node, key).and_then(text)
}

/// A mapping's entries whose keys are scalars, in order; nothing for other nodes.
pub fn entries<'a, 'i>(node: &'a MarkedYaml<'i>) -> impl Iterator<Item = (&'a str, &'a MarkedYaml<'i>)> {
    let map = match &node.data {
        YamlData::Mapping(map) => Some(map),
        YamlData::Tagged(_, inner) => match &inner.data {
            YamlData::Mapping(map) => Some(map),
            _ => None,
        },
        _ => None,
    };
    map.into_iter().flat_map(|m| m.iter()).filter_map(|(k, v)| Some((text(k)?, v)))
}

/// A mapping's entries whose keys are scalars, with each key's line.
pub fn keyed<'a, 'i>(node: &'a MarkedYaml<'i>) -> impl Iterator<Item = (&'a str, u32, &'a MarkedYaml<'i>)> {
    let map = match &node.data {
        YamlData::Mapping(map) => Some(map),
        _ => None,
    };
    map.into_iter().flat_map(|m| m.iter()).filter_map(|(k, v)| Some((text(k)?, line(k), v)))
}

/// A sequence's items; nothing for other nodes.
pub fn items<'a, 'i>(node: &'a MarkedYaml<'i>) -> impl Iterator<Item = &'a MarkedYaml<'i>> {
    let seq = match &node.data {
        YamlData::Sequence(seq) => Some(seq),
        _ => None,
    };
    seq.into_iter().flat_map(|s| s.iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_keep_their_text_and_lines() {
        let docs = documents("a:\n  tag: 1.10\n  n: ~\n---\nb: [x, 'y']\n").expect("valid");
        assert_eq!(docs.len(), 2);
        assert_eq!(at(&docs[0], &["a", "tag"]).and_then(text), Some("1.10"));
        assert_eq!(at(&docs[0], &["a", "tag"]).map(line), Some(2));
        assert_eq!(at(&docs[0], &["a", "n"]).and_then(text), None);
        let b: Vec<_> = get(&docs[1], "b").into_iter().flat_map(items).filter_map(text).collect();
        assert_eq!(b, ["x", "y"]);
    }

    #[test]
    fn errors_carry_their_line() {
        let (line, why) = documents("a: 1\nb: [unclosed\n").expect_err("invalid");
        assert!(line >= 2, "{line}: {why}");
    }
}
