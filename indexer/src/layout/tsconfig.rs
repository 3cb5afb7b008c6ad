//! `tsconfig.json` and `jsconfig.json`: `baseUrl` and `paths`, with what the configurations a file
//! `extends` give.

use super::{TreeView, join_normalized, parent_dir};

/// `compilerOptions.baseUrl` and `paths` of a tsconfig/jsconfig.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TsConfig {
    pub dir: String,
    /// Relative to the tree root.
    pub base_url: Option<String>,
    /// Pattern (may end in `*`) → targets (relative to the tree root, may hold `*`).
    pub paths: Vec<(String, Vec<String>)>,
    /// The configurations it `extends` as written, last first, until [`Layout`] merges them in.
    pub extends: Vec<String>,
}

/// `config` with what the configurations it `extends` give where it sets nothing itself (`baseUrl`,
/// `paths`, each relative to the file that sets it, as TypeScript reads them). Only configurations in the
/// tree are read (`"./tsconfig.base.json"`, `"../tsconfig.json"`), a package's (`@tsconfig/node20`) not; one
/// that does not read is passed over.
pub(super) fn extended(tree: &dyn TreeView, mut config: TsConfig, depth: usize) -> TsConfig {
    let bases = std::mem::take(&mut config.extends);
    for base in bases {
        if depth >= 8 || !(base.starts_with("./") || base.starts_with("../")) {
            continue;
        }
        let file = if base.ends_with(".json") { base.clone() } else { format!("{base}.json") };
        let Some(rel) = join_normalized(&config.dir, &file) else { continue };
        let Ok(text) = tree.read_to_string(&rel) else { continue };
        let Ok(parent) = parse_tsconfig(parent_dir(&rel), &text) else { continue };
        let parent = extended(tree, parent, depth + 1);
        if config.base_url.is_none() {
            config.base_url = parent.base_url;
        }
        if config.paths.is_empty() {
            config.paths = parent.paths;
        }
    }
    config
}

pub(super) fn parse_tsconfig(dir: &str, text: &str) -> Result<TsConfig, String> {
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).map_err(|e| e.to_string())?;
    // `"extends": "./base.json"`, or a list of them (TypeScript 5), later ones overriding earlier ones.
    let mut extends: Vec<String> = match value.get("extends") {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(list)) => list.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
        _ => Vec::new(),
    };
    extends.reverse();
    let options = value.get("compilerOptions");
    let base_url =
        options.and_then(|o| o.get("baseUrl")).and_then(|b| b.as_str()).and_then(|b| join_normalized(dir, b));
    let mut paths = Vec::new();
    if let Some(map) = options.and_then(|o| o.get("paths")).and_then(|p| p.as_object()) {
        let base = base_url.clone().unwrap_or_else(|| dir.to_owned());
        for (pattern, targets) in map {
            let targets = targets
                .as_array()
                .map(|t| t.iter().filter_map(|v| v.as_str()).filter_map(|t| join_normalized(&base, t)).collect())
                .unwrap_or_default();
            paths.push((pattern.clone(), targets));
        }
    }
    Ok(TsConfig { dir: dir.to_owned(), base_url, paths, extends })
}

/// Remove `//` and `/* */` comments and trailing commas from JSON-with-comments (tsconfig style).
fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            out.push(c as char);
            if c == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1] as char);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                out.push('"');
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b',' => {
                // Drop a comma followed only by whitespace and a closing bracket.
                let mut j = i + 1;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                if !matches!(bytes.get(j), Some(b'}') | Some(b']')) {
                    out.push(',');
                }
                i += 1;
            }
            _ => {
                // Copy a whole UTF-8 character.
                let len = utf8_len(c);
                out.push_str(text.get(i..i + len).unwrap_or(""));
                i += len;
            }
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_is_stripped() {
        let text = "{\n // c\n \"a\": \"//x\", /* b */ \"p\": [1,2,],\n}";
        let v: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).expect("valid json");
        assert_eq!(v["a"], "//x");
        assert_eq!(v["p"][1], 2);
    }
}
