//! Dockerfiles, read with `parse-dockerfile`: the `FROM` of each stage (its `AS` name, `--platform`, and
//! the `ARG` defaults it uses) and the OCI revision and version labels.

use parse_dockerfile::{Instruction, parse};

use super::{Dockerfile, Facts, Stage};

const REVISION: &str = "org.opencontainers.image.revision";
const VERSION: &str = "org.opencontainers.image.version";

/// Reads the Dockerfile `file` into `facts`.
pub fn read(file: &str, source: &str, facts: &mut Facts) {
    let parsed = match parse(source) {
        Ok(parsed) => parsed,
        Err(e) => {
            facts.issue(file, e.line() as u32, format!("not a Dockerfile drsg can read: {e}"));
            return;
        }
    };
    let line_of = |offset: usize| source[..offset.min(source.len())].matches('\n').count() as u32 + 1;
    // Defaults of the ARGs before the first FROM: the only ones a FROM line may use.
    let mut globals: Vec<(String, Option<String>)> = Vec::new();
    for arg in parsed.global_args() {
        globals.extend(assignments(&arg.arguments.value));
    }
    let mut out = Dockerfile { file: file.to_owned(), stages: Vec::new(), revision: None, version: None };
    let mut stage_names: Vec<String> = Vec::new();
    for stage in parsed.stages() {
        let written = stage.from.image.value.as_ref();
        let image = substitute(written, &globals);
        let name = stage.from.as_.as_ref().map(|(_, n)| n.value.to_string());
        let platform = stage
            .from
            .options
            .iter()
            .find(|f| f.name.value == "platform")
            .and_then(|f| f.value.as_ref())
            .map(|v| v.value.to_string());
        let from_stage = stage_names.iter().any(|s| s.eq_ignore_ascii_case(&image));
        out.stages.push(Stage {
            name: name.clone(),
            image,
            platform,
            line: line_of(stage.from.from.span.start),
            from_stage,
        });
        stage_names.extend(name);
        // A stage's ARGs (declared again inside it) may name the labels' values; labels are inherited,
        // so a later stage's label overrides an earlier one's.
        let mut args = globals.clone();
        for instruction in stage.instructions {
            match instruction {
                Instruction::Arg(arg) => {
                    for (k, v) in assignments(&arg.arguments.value) {
                        let inherited = globals.iter().find(|(g, _)| *g == k).and_then(|(_, d)| d.clone());
                        args.push((k, v.or(inherited)));
                    }
                }
                Instruction::Label(label) => {
                    let at = line_of(label.label.span.start);
                    for (k, v) in assignments(&label.arguments.value) {
                        let value = substitute(v.as_deref().unwrap_or(""), &args);
                        match k.as_str() {
                            REVISION => out.revision = Some((value, at)),
                            VERSION => out.version = Some((value, at)),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
    facts.dockerfiles.push(out);
}

/// `name=value` words of an `ARG` or `LABEL` line (values may be quoted); a word without `=` is a name
/// with no value. The old `LABEL key value` form is one pair.
fn assignments(arguments: &str) -> Vec<(String, Option<String>)> {
    let words = words(arguments);
    if words.len() == 2 && !words[0].contains('=') && !words[1].contains('=') {
        return vec![(words[0].clone(), Some(words[1].clone()))];
    }
    words
        .into_iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
            None => (w, None),
        })
        .collect()
}

/// Splits at blanks outside quotes, dropping the quotes and keeping escaped characters.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quote, mut started, mut chars) = (None, false, text.chars());
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, '"' | '\'') => (quote, started) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (_, '\\') if quote != Some('\'') => {
                word.extend(chars.next());
                started = true;
            }
            (_, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// `$NAME` and `${NAME}` (also `${NAME:-default}`) replaced by the ARG defaults known; others are left as
/// written, so the result still reads as templated.
fn substitute(text: &str, args: &[(String, Option<String>)]) -> String {
    let lookup = |name: &str| args.iter().rev().find(|(k, _)| k == name).and_then(|(_, v)| v.clone());
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, fallback, used) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => {
                    let body = &inner[..end];
                    let (name, fallback) = match body.split_once(":-") {
                        Some((n, d)) => (n, Some(d)),
                        None => (body, None),
                    };
                    (name, fallback, end + 2)
                }
                None => ("", None, 0),
            }
        } else {
            let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            (&after[..len], None, len)
        };
        match lookup(name).or(fallback.map(str::to_owned)) {
            Some(value) if !name.is_empty() => out.push_str(&value),
            _ => out.push_str(&rest[at..at + 1 + used]),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_args_and_labels() {
        let source = "ARG BASE=python:3.12-slim\nARG GIT_SHA\nFROM --platform=linux/amd64 ${BASE} AS build\nRUN make\n\
                      FROM build\nARG GIT_SHA\nLABEL org.opencontainers.image.revision=$GIT_SHA \\\n  org.opencontainers.image.version=\"1.4.0\"\n";
        let mut facts = Facts::default();
        read("app/Dockerfile", source, &mut facts);
        let d = &facts.dockerfiles[0];
        assert_eq!(d.stages.len(), 2);
        assert_eq!(d.stages[0].image, "python:3.12-slim");
        assert_eq!(d.stages[0].name.as_deref(), Some("build"));
        assert_eq!(d.stages[0].platform.as_deref(), Some("linux/amd64"));
        assert_eq!(d.stages[0].line, 3);
        assert!(d.stages[1].from_stage);
        assert_eq!(d.revision, Some(("$GIT_SHA".to_owned(), 7)));
        assert_eq!(d.version, Some(("1.4.0".to_owned(), 7)));
    }

    #[test]
    fn a_broken_dockerfile_is_an_issue() {
        let mut facts = Facts::default();
        read("Dockerfile", "RUN echo no from\n", &mut facts);
        assert!(facts.dockerfiles.is_empty());
        assert_eq!(facts.issues.len(), 1, "{:?}", facts.issues);
    }

    #[test]
    fn substitution() {
        let args = vec![("TAG".to_owned(), Some("1.2".to_owned())), ("EMPTY".to_owned(), None)];
        assert_eq!(substitute("app:${TAG}", &args), "app:1.2");
        assert_eq!(substitute("app:$TAG-x", &args), "app:1.2-x");
        assert_eq!(substitute("app:${NOPE:-3}", &args), "app:3");
        assert_eq!(substitute("app:$EMPTY", &args), "app:$EMPTY");
    }
}
