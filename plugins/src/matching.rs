//! drsg's own query matcher (`drsg_parsers::matcher`) against tree-sitter's engine: both run the same
//! query over the same tree, and the matches (pattern and captures) must be the same set.

use std::collections::BTreeSet;

use drsg_parsers::Lang;
use drsg_parsers::matcher::{Only, Patterns};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

use crate::declarative::{builtin_extractors, grammar};

fn brief(pattern: usize, captures: &mut [(String, Node<'_>)], source: &str) -> String {
    captures.sort_by(|a, b| (&a.0, a.1.start_byte(), a.1.end_byte()).cmp(&(&b.0, b.1.start_byte(), b.1.end_byte())));
    let captures: Vec<String> =
        captures.iter().map(|(name, n)| format!("@{name}={:?}@{}", &source[n.byte_range()], n.start_byte())).collect();
    format!("#{pattern} {}", captures.join(" "))
}

/// The matches of `query` over `source` by tree-sitter's engine and by drsg's.
fn both(lang: Lang, query: &str, source: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let compiled = Query::new(&grammar(lang), query).expect("the query compiles");
    let own = Patterns::read(query, &grammar(lang)).expect("the matcher follows the query");
    compare(lang, &compiled, &own, source)
}

fn compare(lang: Lang, compiled: &Query, own: &Patterns, source: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let tree = crate::testing::parse(&grammar(lang), source);
    let names = compiled.capture_names();
    let mut cursor = QueryCursor::new();
    let mut theirs = BTreeSet::new();
    let mut matches = cursor.matches(compiled, tree.root_node(), source.as_bytes());
    while let Some(m) = matches.next() {
        let mut captures: Vec<_> = m.captures().iter().map(|c| (names[c.index as usize].to_owned(), c.node)).collect();
        theirs.insert(brief(m.pattern_index, &mut captures, source));
    }
    let mut ours = BTreeSet::new();
    let mut found = Vec::new();
    let mut scratch = Default::default();
    for node in crate::testing::every_node(&tree) {
        own.matches_at(node, source.as_bytes(), None, &mut scratch, &mut found);
    }
    for m in found {
        let mut captures: Vec<_> =
            m.captures.iter().map(|&(c, n)| (own.capture_names()[c as usize].clone(), n)).collect();
        ours.insert(brief(m.pattern, &mut captures, source));
    }
    (theirs, ours)
}

/// The matches of `query` over `source`, checked to be tree-sitter's.
fn matches(lang: Lang, query: &str, source: &str) -> Vec<String> {
    let (theirs, ours) = both(lang, query, source);
    assert_eq!(ours, theirs, "drsg's matches (left) and tree-sitter's (right) of {query:?}");
    ours.into_iter().collect()
}

#[test]
fn fields_anchors_alternations_and_predicates_match_as_tree_sitters_do() {
    let py = "app.get('/a', x)\napp.post(b, '/c')\nrouter.get(f'/d/{e}')\nget('/z')\n";
    let call = "(call function: (attribute object: (identifier) @o attribute: (identifier) @m) arguments: (argument_list . [(string) (identifier)] @first)) @c";
    assert_eq!(matches(Lang::Python, call, py).len(), 3);
    // Every string argument, anchored or not; the last named one with a trailing anchor.
    let all = "(argument_list (string) @s) @a";
    assert_eq!(matches(Lang::Python, all, py).len(), 4);
    assert_eq!(matches(Lang::Python, "(argument_list (_) @last .)", py).len(), 4);
    assert_eq!(matches(Lang::Python, "(argument_list (identifier) . (string) @s)", py).len(), 1);
    // Predicates on one capture, on two, negated, and regular expressions.
    let eq =
        "(call function: (attribute object: (_) @o attribute: (_) @m) (#eq? @m \"get\") (#not-eq? @o \"router\")) @c";
    assert_eq!(matches(Lang::Python, eq, py), ["#0 @c=\"app.get('/a', x)\"@0 @m=\"get\"@4 @o=\"app\"@0"]);
    let any = "(call function: (_ attribute: (_) @m) (#any-of? @m \"post\" \"put\")) @c";
    assert_eq!(matches(Lang::Python, any, py).len(), 1);
    let re = "(call function: (_ object: (_) @o) (#match? @o \"^r\")) @c";
    assert_eq!(matches(Lang::Python, re, py).len(), 1);
    let same = "(binary_operator left: (_) @l right: (_) @r (#eq? @l @r)) @b";
    assert_eq!(matches(Lang::Python, same, "x = a + a\ny = a + b\n").len(), 1);
    let unlike = "(binary_operator left: (_) @l right: (_) @r (#not-eq? @l @r)) @b";
    assert_eq!(matches(Lang::Python, unlike, "x = a + a\ny = a + b\n").len(), 1);
    // A negated field, an anonymous node, and the bare wildcard.
    let ts = "export default function a() {}\nexport function b() {}\nfunction c<T>() {}\nfunction d() {}\n";
    assert_eq!(matches(Lang::TypeScript, "(export_statement \"default\" declaration: (_) @d)", ts).len(), 1);
    assert_eq!(matches(Lang::TypeScript, "(function_declaration !type_parameters name: (_) @n)", ts).len(), 3);
    assert_eq!(matches(Lang::TypeScript, "(export_statement _ @any)", ts).len(), 5);
    // Every way the child patterns take children in order.
    assert_eq!(matches(Lang::Python, "(argument_list (_) @a (_) @b)", "f(a, b, c)\n").len(), 3);
}

#[test]
fn optional_nodes_and_groups_of_siblings_match_as_tree_sitters_do() {
    let ts = "class A {\n  @Get(':id') @Auth() find() {}\n  @Post() @A() @B() @C() make() {}\n  @Put() other() {}\n}\n";
    let decorated = "(class_body (decorator (_ function: (identifier) @m arguments: (_ . (string)? @p))) @d . (decorator)? . (decorator)? . (method_definition) @h)";
    // A decorator starts a match wherever the next one or two are optional: @Auth and @Get for `find`.
    assert_eq!(matches(Lang::TypeScript, decorated, ts).len(), 6);
    // An optional node that is there is taken, and a predicate on it is then checked: `f('/y')` is no match
    // (tree-sitter drops the match without the string for the fuller one, which the predicate refuses),
    // `g()` is. So a predicate's text is required of the start node only for a capture every match binds.
    let optional = "(call arguments: (argument_list . (string)? @s) (#eq? @s \"'/x'\")) @c";
    assert_eq!(matches(Lang::Python, optional, "f('/y')\ng()\nh('/x')\n").len(), 2);
    let alternative = "(call arguments: (argument_list [(string) (integer)] @s) (#eq? @s \"1\")) @c";
    assert_eq!(matches(Lang::Python, alternative, "f(1)\ng('1')\n").len(), 1);
    let rs = "#[get(\"/a\")]\nasync fn a() {}\n\n#[post(\"/b\")]\n#[x]\n#[y]\n#[z]\nasync fn b() {}\n#[put(\"/c\")]\n#[x]\nfn c() {}\n";
    let group = "((attribute_item (attribute (identifier) @m arguments: (token_tree . (string_literal) @p))) @r . (attribute_item)? . (attribute_item)? . (function_item) @h)";
    assert_eq!(matches(Lang::Rust, group, rs).len(), 2);
}

/// A caller's test of one capture ([`Only`]) leaves out exactly the matches it fails, in the patterns whose
/// root's first capture it names and where the capture is no optional node's; it leaves the others alone.
#[test]
fn a_caller_s_test_on_a_capture_leaves_out_the_matches_it_fails() {
    let py = "client.get('/a')\nrequests.get('/b')\nclient.post('/c', json=1)\nsession.put(url)\n";
    let query = "(call function: (_ object: (_) @request.client attribute: (_) @request.method) arguments: (_ . (string)? @request.url)) @request\n\
                 (call function: (_ object: (_) @request.client attribute: (_) @m)) @other\n\
                 (call function: (_ object: (_)? @request.client attribute: (_) @m) arguments: (_ . (string) @request.url)) @request\n\
                 (call function: [(attribute object: (_) @request.client) (identifier)]) @request";
    let own = Patterns::read(query, &grammar(Lang::Python)).expect("the matcher follows the query");
    let index = |name: &str| own.capture_names().iter().position(|n| n == name).expect("a capture") as u32;
    let holds = |_: Node<'_>, text: &[u8]| text != b"client";
    let only = Only { root: index("request"), capture: index("request.client"), holds: &holds };
    let tree = crate::testing::parse(&grammar(Lang::Python), py);
    let (mut all, mut kept) = (Vec::new(), Vec::new());
    let mut scratch = Default::default();
    for node in crate::testing::every_node(&tree) {
        own.matches_at(node, py.as_bytes(), None, &mut scratch, &mut all);
        own.matches_at(node, py.as_bytes(), Some(&only), &mut scratch, &mut kept);
    }
    let briefs = |found: &[drsg_parsers::matcher::Match<'_>]| -> Vec<String> {
        found
            .iter()
            .map(|m| {
                let mut captures: Vec<_> =
                    m.captures.iter().map(|&(c, n)| (own.capture_names()[c as usize].clone(), n)).collect();
                brief(m.pattern, &mut captures, py)
            })
            .collect()
    };
    let (all, kept) = (briefs(&all), briefs(&kept));
    // Of the first pattern, the two requests on `client` go; the second pattern's root is another capture,
    // in the third the client is optional and in the fourth in an alternation: theirs stay.
    let failed: Vec<&String> = all.iter().filter(|b| !kept.contains(b)).collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed.iter().all(|b| b.starts_with("#0 ") && b.contains("@request.client=\"client\"")), "{failed:?}");
    assert!(kept.iter().any(|b| b.starts_with("#1 ") && b.contains("@request.client=\"client\"")), "{kept:?}");
    assert!(kept.iter().any(|b| b.starts_with("#2 ") && b.contains("@request.client=\"client\"")), "{kept:?}");
    assert!(kept.iter().any(|b| b.starts_with("#3 ") && b.contains("@request.client=\"client\"")), "{kept:?}");
    assert_eq!(all.len() - 2, kept.len());
}

/// What the matcher does not follow it says, and the plugin engine gives the query to tree-sitter.
#[test]
fn queries_beyond_the_subset_are_refused_with_their_line() {
    let python = grammar(Lang::Python);
    let refused = |query: &str| Patterns::read(query, &python).err().map(|u| u.0);
    assert_eq!(refused("(call)\n(identifier)* @x\n").as_deref(), Some("line 2: a repetition"));
    assert!(refused("(expression) @e").is_some_and(|u| u.contains("no node kind")), "a supertype");
    assert!(refused("(no_such_kind) @e").is_some_and(|u| u.contains("no node kind")));
    assert!(refused("(call (#set! x y))").is_some_and(|u| u.contains("predicate")));
    assert!(refused("(call nope: (_))").is_some_and(|u| u.contains("no field `nope`")));
    assert!(refused("(call").is_some());
    assert!(refused("(call (identifier) @x").is_some());
    assert!(Patterns::read("; a comment\n(call) @c ; another\n", &python).is_ok());
}

/// Every built-in query runs on drsg's matcher (none pays tree-sitter's compilation), and its matches over
/// the wire fixtures are tree-sitter's.
#[test]
fn built_in_queries_run_on_the_own_matcher_with_tree_sitters_matches() {
    let fixtures = |lang: Lang| match lang {
        Lang::Python => include_str!("../../testdata/wire/fixtures.py"),
        Lang::TypeScript => include_str!("../../testdata/wire/fixtures.ts"),
        Lang::Tsx | Lang::JavaScript => include_str!("../../testdata/wire/fixtures.js"),
        Lang::Rust => include_str!("../../testdata/wire/fixtures.rs"),
    };
    let mut compared = 0;
    let mut matched = 0;
    for e in builtin_extractors() {
        for &lang in &e.manifest.langs {
            for (i, (file, query)) in e.sources.iter().enumerate() {
                assert!(e.runs_own(i, lang), "{file} ({}) runs on tree-sitter's engine", lang.name());
                // Files one after the other, each after a line `# ---` or `// ---`.
                let separator = if lang == Lang::Python { "\n# ---\n" } else { "\n// ---\n" };
                let compiled = Query::new(&grammar(lang), query).expect("the query compiles");
                let own = Patterns::read(query, &grammar(lang)).expect("the matcher follows the query");
                for source in fixtures(lang).split(separator) {
                    let (theirs, ours) = compare(lang, &compiled, &own, source);
                    assert_eq!(ours, theirs, "{file} ({}): drsg's matches (left) and tree-sitter's", lang.name());
                    matched += ours.len();
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 30 && matched > 300, "{compared} queries, {matched} matches");
}

/// The same comparison over every source file under `DRSG_MATCHER_TREE` (a corpus), for the record.
#[test]
#[ignore = "reads a tree named by DRSG_MATCHER_TREE"]
#[allow(clippy::disallowed_methods, reason = "a check over a corpus, run by hand")]
fn built_in_queries_match_as_tree_sitters_over_a_tree() {
    let root = std::env::var("DRSG_MATCHER_TREE").expect("DRSG_MATCHER_TREE");
    let mut queries = Vec::new();
    for e in builtin_extractors() {
        for &lang in &e.manifest.langs {
            let lang = if lang == Lang::JavaScript { Lang::Tsx } else { lang };
            for (file, query) in &e.sources {
                if !queries.iter().any(|(l, f, _, _): &(Lang, String, _, _)| *l == lang && f == file) {
                    let compiled = Query::new(&grammar(lang), query).expect("compiles");
                    let own = Patterns::read(query, &grammar(lang)).expect("followed");
                    queries.push((lang, file.clone(), compiled, own));
                }
            }
        }
    }
    let (mut files, mut matched, mut differing) = (0, 0, 0);
    let mut stack = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.ends_with("node_modules") && !path.ends_with(".git") {
                    stack.push(path);
                }
                continue;
            }
            let lang = match path.extension().and_then(|e| e.to_str()) {
                Some("py") => Lang::Python,
                Some("ts") => Lang::TypeScript,
                Some("tsx" | "js" | "jsx" | "mjs") => Lang::Tsx,
                Some("rs") => Lang::Rust,
                _ => continue,
            };
            let Ok(source) = std::fs::read_to_string(&path) else { continue };
            files += 1;
            for (_, file, compiled, own) in queries.iter().filter(|q| q.0 == lang) {
                let (theirs, ours) = compare(lang, compiled, own, &source);
                matched += theirs.len();
                if ours != theirs {
                    differing += 1;
                    let only =
                        |a: &BTreeSet<String>, b: &BTreeSet<String>| a.difference(b).cloned().collect::<Vec<_>>();
                    eprintln!(
                        "{} {file}: ours only {:?}, theirs only {:?}",
                        path.display(),
                        only(&ours, &theirs),
                        only(&theirs, &ours)
                    );
                }
            }
        }
    }
    eprintln!("{files} files, {matched} matches, {differing} (file, query) pairs differing");
    assert_eq!(differing, 0);
}
