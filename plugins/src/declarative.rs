//! Declarative plugins: a folder with a `plugin.toml` and `.scm` queries whose capture names come from
//! [`drsg_parsers::wire::VOCABULARY`]. The built-in ones (`plugins/wire/`) are embedded here; a user's
//! are handed in as texts by the binary, which reads them from the folder `drsg.toml` names.
//!
//! `plugin.toml`:
//!
//! ```toml
//! name = "fastapi"                  # unique among the plugins
//! version = "1"
//! languages = ["python"]            # python, typescript, tsx, javascript, rust
//! extracts = ["routes", "mounts"]   # what its queries capture, for people reading it
//! triggers = ["fastapi"]            # run only on files holding one of these strings (none: every file)
//! default_method = "GET"            # the method of a route or request whose query captures none
//! mount = "replace"                 # a mount's prefix replaces the router's own (default: "prepend")
//! start_depth = 1                   # patterns start no deeper than this (for top-level constructs)
//! file_routes = "next"              # routes take their file's path (Next.js route files); no other file read
//!
//! [queries."methods.scm"]           # one query file's own triggers, on top of the plugin's
//! triggers = [".get(", ".post("]
//!
//! [queries."items.scm"]             # text appended to the path of each route the file declares
//! suffix = "/{pk}"
//! ```

use drsg_parsers::Lang;
use drsg_parsers::wire::{Extractor, FileRoutes, Manifest, PluginError};

/// A plugin's files: the manifest's name and text, and each query's name and text.
pub struct PluginFiles {
    pub manifest: (String, String),
    pub queries: Vec<(String, String)>,
}

/// The built-in declarative plugins.
pub fn builtin_extractors() -> Vec<Extractor> {
    macro_rules! plugin {
        ($dir:literal, [$($query:literal),*]) => {
            PluginFiles {
                manifest: (concat!($dir, "/plugin.toml").to_owned(), include_str!(concat!("../wire/", $dir, "/plugin.toml")).to_owned()),
                queries: vec![$((concat!($dir, "/", $query).to_owned(), include_str!(concat!("../wire/", $dir, "/", $query)).to_owned())),*],
            }
        };
    }
    let files = [
        plugin!("fastapi", ["routes.scm"]),
        plugin!("flask", ["routes.scm"]),
        plugin!("express", ["routes.scm"]),
        plugin!("http-clients-js", ["fetch.scm", "methods.scm", "generated.scm", "clients.scm"]),
        plugin!("http-clients-py", ["methods.scm", "clients.scm"]),
        plugin!("constants-py", ["constants.scm"]),
        plugin!("settings-py", ["settings.scm"]),
        plugin!("constants-js", ["constants.scm"]),
        plugin!("koa", ["routes.scm"]),
        plugin!("hono", ["routes.scm"]),
        plugin!("fastify", ["routes.scm"]),
        plugin!("nestjs", ["routes.scm"]),
        plugin!("nextjs", ["routes.scm"]),
        plugin!("django", ["routes.scm"]),
        plugin!("drf", ["routes.scm", "items.scm"]),
        plugin!("axum", ["routes.scm"]),
        plugin!("actix-web", ["routes.scm", "attributes.scm"]),
        plugin!("http-clients-rs", ["requests.scm"]),
        plugin!("proxies-js", ["rewrites.scm"]),
    ];
    files
        .iter()
        .map(|f| {
            let manifest = manifest(f).expect("a built-in plugin's manifest reads (a test checks it)");
            Extractor::new(manifest, f.queries.clone(), grammar)
        })
        .collect()
}

/// A user's plugin, checked: its manifest read and its queries compiled for each of its languages.
pub fn load(files: &PluginFiles) -> Result<Extractor, PluginError> {
    Extractor::checked(manifest(files)?, files.queries.clone(), grammar)
}

/// The grammar each dialect is parsed with (JavaScript with TSX's, as the TypeScript plugin does).
pub fn grammar(lang: Lang) -> tree_sitter::Language {
    match lang {
        Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx | Lang::JavaScript => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Lang::Python => tree_sitter_python::LANGUAGE.into(),
    }
}

fn manifest(files: &PluginFiles) -> Result<Manifest, PluginError> {
    let (file, text) = &files.manifest;
    let error = |line: u32, message: String| PluginError { file: file.clone(), line, message };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count() as u32 + 1);
        error(line, e.message().to_owned())
    })?;
    let line_of = |key: &str| text.lines().position(|l| l.trim_start().starts_with(key)).map_or(0, |i| i as u32 + 1);
    let string = |key: &str| table.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let strings = |key: &str| -> Result<Vec<String>, PluginError> {
        match table.get(key) {
            None => Ok(Vec::new()),
            Some(v) => v
                .as_array()
                .and_then(|a| a.iter().map(|s| s.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())
                .ok_or_else(|| error(line_of(key), format!("`{key}` must be a list of strings"))),
        }
    };
    let name = string("name").filter(|n| !n.is_empty()).ok_or_else(|| error(0, "`name` is missing".to_owned()))?;
    let mut langs = Vec::new();
    for l in strings("languages")? {
        langs.push(match l.as_str() {
            "python" => Lang::Python,
            "typescript" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "javascript" => Lang::JavaScript,
            "rust" => Lang::Rust,
            other => return Err(error(line_of("languages"), format!("unknown language `{other}`"))),
        });
    }
    if langs.is_empty() {
        return Err(error(line_of("languages"), "`languages` names none".to_owned()));
    }
    if files.queries.is_empty() {
        return Err(error(0, "the plugin has no `.scm` query file".to_owned()));
    }
    let mount_replaces = match string("mount").as_deref() {
        None | Some("prepend") => false,
        Some("replace") => true,
        Some(other) => {
            return Err(error(line_of("mount"), format!("`mount` is `prepend` or `replace`, not `{other}`")));
        }
    };
    let file_routes = match string("file_routes").as_deref() {
        None => None,
        Some("next") => Some(FileRoutes::Next),
        Some(other) => {
            return Err(error(line_of("file_routes"), format!("`file_routes` is `next`, not `{other}`")));
        }
    };
    let mut query_triggers = Vec::new();
    let mut query_suffixes = Vec::new();
    if let Some(queries) = table.get("queries") {
        let bad = || {
            let what = "`queries` is a table of query files, each with `triggers` (strings) or a `suffix` (a string)";
            error(line_of("[queries"), what.to_owned())
        };
        for (file, entry) in queries.as_table().ok_or_else(bad)? {
            if !files.queries.iter().any(|(q, _)| q.rsplit('/').next() == Some(file.as_str())) {
                return Err(error(line_of(&format!("[queries.\"{file}")), format!("no query file `{file}`")));
            }
            let entry = entry.as_table().ok_or_else(bad)?;
            if entry.keys().any(|k| k != "triggers" && k != "suffix") || entry.is_empty() {
                return Err(bad());
            }
            if let Some(triggers) = entry.get("triggers") {
                let triggers = triggers
                    .as_array()
                    .and_then(|a| a.iter().map(|s| s.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())
                    .ok_or_else(bad)?;
                query_triggers.push((file.clone(), triggers));
            }
            if let Some(suffix) = entry.get("suffix") {
                query_suffixes.push((file.clone(), suffix.as_str().ok_or_else(bad)?.to_owned()));
            }
        }
    }
    Ok(Manifest {
        query_triggers,
        query_suffixes,
        file_routes,
        name,
        version: string("version").unwrap_or_else(|| "0".to_owned()),
        langs,
        triggers: strings("triggers")?,
        default_method: string("default_method"),
        mount_replaces,
        start_depth: table.get("start_depth").and_then(|v| v.as_integer()).and_then(|d| u32::try_from(d).ok()),
    })
}

#[cfg(test)]
mod tests {
    use drsg_parsers::parse_file_with;
    use drsg_parsers::wire::{Handler, PathPart, WireFact};

    use super::*;

    #[test]
    fn every_built_in_plugin_compiles_for_its_languages() {
        for e in builtin_extractors() {
            let files = PluginFiles { manifest: (String::new(), String::new()), queries: e.sources.clone() };
            let checked = Extractor::checked(e.manifest.clone(), files.queries, grammar);
            assert!(checked.is_ok(), "{}: {}", e.name(), checked.err().map(|e| e.to_string()).unwrap_or_default());
        }
    }

    /// A query whose patterns may start at any node runs over the whole tree at about the cost of parsing it:
    /// every built-in query names its patterns' root kinds, save those near the root and actix-web's
    /// attributes, whose routes are a function and the attributes before it (siblings with no node of
    /// their own).
    #[test]
    fn built_in_queries_start_at_named_kinds() {
        let mut seen = Vec::new();
        for e in builtin_extractors() {
            for &lang in &e.manifest.langs {
                for file in e.whole_tree(lang) {
                    seen.push(file.to_owned());
                    assert!(
                        e.manifest.start_depth.is_some() || file == "actix-web/attributes.scm",
                        "{file} ({}) has a pattern that may start at any node",
                        lang.name()
                    );
                }
            }
        }
        assert!(seen.iter().any(|f| f == "actix-web/attributes.scm"), "{seen:?}");
    }

    fn facts(path: &str, source: &str) -> Vec<WireFact> {
        let registry = crate::builtin();
        let (plugin, lang) = registry.for_path(path).expect("a language plugin");
        parse_file_with(plugin, registry.extractors(), lang, path, source).wire
    }

    fn brief(f: &WireFact) -> String {
        let path: Vec<String> = f
            .path
            .iter()
            .map(|p| match p {
                PathPart::Text(t) => t.clone(),
                PathPart::Name(n) => format!("<{n}>"),
                PathPart::Param => "{}".to_owned(),
                PathPart::Unknown(u) => format!("<?{u}>"),
            })
            .collect();
        let handler = match &f.handler {
            Some(Handler::At(l)) => format!(" handler@{l}"),
            Some(Handler::Name(n)) => format!(" handler={n}"),
            None => String::new(),
        };
        let target = f.target.as_deref().map(|t| format!(" target={t}")).unwrap_or_default();
        format!(
            "{:?} L{} {} {} on={}{target}{handler}{}",
            f.kind,
            f.line,
            f.methods.join(","),
            path.concat(),
            f.name.as_deref().unwrap_or("-"),
            if f.replaces { " replaces" } else { "" }
        )
    }

    fn briefs(path: &str, source: &str) -> Vec<String> {
        let mut out: Vec<String> = facts(path, source).iter().map(brief).collect();
        out.sort();
        out
    }

    #[test]
    fn fastapi_routes_routers_and_mounts() {
        let source = "from fastapi import APIRouter, FastAPI\nfrom app.api import users\n\nPREFIX = \"/api\"\napp = FastAPI()\nrouter = APIRouter(prefix=\"/items\")\n\n@router.get(\"/{item_id}\")\nasync def read_item(item_id: int):\n    return item_id\n\n@app.post(PREFIX + \"/login\")\ndef login():\n    pass\n\napp.include_router(router)\napp.include_router(users.router, prefix=f\"{PREFIX}/users\")\n";
        assert_eq!(
            briefs("app/main.py", source),
            [
                "Constant L4  /api on=PREFIX",
                "Mount L16   on=app target=router",
                "Mount L17  <PREFIX>/users on=app target=users.router",
                "Route L12 POST <PREFIX>/login on=app handler@13",
                "Route L8 GET /{item_id} on=router handler@9",
                "Router L5   on=app",
                "Router L6  /items on=router",
            ]
        );
    }

    #[test]
    fn flask_routes_with_methods_and_blueprints() {
        let source = "from flask import Blueprint, Flask\n\napp = Flask(__name__)\nbp = Blueprint(\"users\", __name__, url_prefix=\"/users\")\n\n@bp.route(\"/<int:id>\", methods=[\"GET\", \"PUT\"])\ndef user(id):\n    pass\n\n@bp.route(\"/\")\ndef users():\n    pass\n\n@app.post(\"/login\")\ndef login():\n    pass\n\napp.register_blueprint(bp, url_prefix=\"/api/users\")\n";
        assert_eq!(
            briefs("app.py", source),
            [
                "Mount L18  /api/users on=app target=bp replaces",
                "Route L10 GET / on=bp handler@11",
                "Route L14 POST /login on=app handler@15",
                "Route L6 GET,PUT /<int:id> on=bp handler@7",
                "Router L3   on=app",
                "Router L4  /users on=bp",
            ]
        );
    }

    #[test]
    fn express_routes_and_clients_in_typescript() {
        let source = "import express from 'express';\nimport axios from 'axios';\nconst API = '/api';\nconst app = express();\nconst router = express.Router();\nrouter.get('/users/:id', auth, (req, res) => res.send());\nrouter.post(`${API}/users`, createUser);\napp.use('/v1', router);\nconst api = axios.create({ baseURL: 'http://localhost:3000/api' });\nexport async function load(id: string) {\n  await fetch(`/api/users/${id}`, { method: 'DELETE' });\n  return api.get('/users');\n}\n";
        assert_eq!(
            briefs("src/server.ts", source),
            [
                "Client L9  http://localhost:3000/api on=api",
                "Constant L3  /api on=API",
                "Mount L8  /v1 on=app target=router",
                "Request L11 DELETE /api/users/<id> on=fetch",
                "Request L12 GET /users on=api",
                "Route L6 GET /users/:id on=router handler@6",
                "Route L7 POST <API>/users on=router handler=createUser",
                "Router L4   on=app",
                "Router L5   on=router",
            ]
        );
    }

    #[test]
    fn python_clients() {
        let source = "import httpx\nimport requests\n\nclient = httpx.Client(base_url=\"http://api:8000\")\n\ndef sync():\n    requests.post(\"http://api:8000/items\", json={})\n    return client.get(f\"/items/{1}\")\n";
        assert_eq!(
            briefs("worker.py", source),
            [
                "Client L4  http://api:8000 on=client",
                "Request L7 POST http://api:8000/items on=requests",
                "Request L8 GET /items/{} on=client",
            ]
        );
    }

    #[test]
    fn a_malformed_plugin_is_refused_with_its_file_and_line() {
        let files = |manifest: &str, query: &str| PluginFiles {
            manifest: ("acme/plugin.toml".to_owned(), manifest.to_owned()),
            queries: vec![("acme/routes.scm".to_owned(), query.to_owned())],
        };
        let good = "name = \"acme\"\nlanguages = [\"python\"]\n";
        let query = "(call function: (identifier) @route.method) @route\n";
        assert!(load(&files(good, query)).is_ok());
        let err = load(&files("name = \"acme\"\nlanguages = [\"python\"\n", query)).err().expect("bad TOML");
        assert_eq!((err.file.as_str(), err.line), ("acme/plugin.toml", 2), "{err}");
        let err = load(&files("name = \"acme\"\nlanguages = [\"cobol\"]\n", query)).err().expect("unknown language");
        assert!(err.to_string().contains("acme/plugin.toml:2: unknown language `cobol`"), "{err}");
        let err = load(&files(good, "(call\n  function: (no_such_kind) @route)\n")).err().expect("does not compile");
        assert!(err.to_string().starts_with("acme/routes.scm:2: does not compile for python"), "{err}");
        let err = load(&files(good, "(call) @route\n(identifier) @route.verb\n")).err().expect("unknown capture");
        assert_eq!(
            err.to_string(),
            "acme/routes.scm:2: unknown capture name `@route.verb` (see the capture vocabulary)"
        );
        let err = load(&files(&format!("{good}[queries.\"routs.scm\"]\ntriggers = [\"x\"]\n"), query)).err();
        let err = err.expect("a query file it lacks");
        assert_eq!(err.to_string(), "acme/plugin.toml:3: no query file `routs.scm`");
        let err = load(&files(&format!("{good}[queries.\"routes.scm\"]\ntriggers = \"x\"\n"), query)).err();
        assert!(err.expect("triggers not a list").to_string().contains("`queries` is a table of query files"));
        for entry in ["suffix = 1\n", "prefix = \"/x\"\n"] {
            let err = load(&files(&format!("{good}[queries.\"routes.scm\"]\n{entry}"), query)).err();
            assert!(err.expect("a bad entry").to_string().contains("or a `suffix` (a string)"), "{entry}");
        }
        assert!(load(&files(&format!("{good}[queries.\"routes.scm\"]\nsuffix = \"/{{id}}\"\n"), query)).is_ok());
    }

    /// A query file with triggers of its own runs only on the files holding one of them.
    #[test]
    fn a_query_file_runs_on_the_files_holding_its_own_triggers() {
        let manifest = "name = \"acme\"\nlanguages = [\"python\"]\n[queries.\"serve.scm\"]\ntriggers = [\"serve(\"]\n";
        let files = PluginFiles {
            manifest: ("acme/plugin.toml".to_owned(), manifest.to_owned()),
            queries: vec![
                ("acme/serve.scm".to_owned(), "(call function: (identifier) @_f arguments: (_ . (string) @route.path) (#eq? @_f \"serve\")) @route\n".to_owned()),
                ("acme/mount.scm".to_owned(), "(call function: (identifier) @_f arguments: (_ . (string) @mount.prefix) (#eq? @_f \"mount\")) @mount\n".to_owned()),
            ],
        };
        let plugin = load(&files).expect("loads");
        let registry = crate::builtin();
        let (python, lang) = registry.for_path("a.py").expect("python");
        let run = |source: &str| -> Vec<String> {
            let facts = parse_file_with(python, std::slice::from_ref(&plugin), lang, "a.py", source).wire;
            facts.iter().map(brief).collect()
        };
        assert_eq!(run("serve('/a')\nmount('/b')\n"), ["Route L1  /a on=-", "Mount L2  /b on=-"]);
        // `serve (` holds no trigger of serve.scm: only the mount, whose file has none, is read.
        assert_eq!(run("serve ('/a')\nmount('/b')\n"), ["Mount L2  /b on=-"]);
    }

    #[test]
    fn proxy_rewrites_from_http_proxy_middleware_and_vite() {
        let setup = "module.exports = function(app) {\n  app.use('/api', createProxyMiddleware({\n    target: 'http://backend:8000',\n    pathRewrite: { '^/api': '' },\n  }));\n};\n";
        assert_eq!(briefs("src/setupProxy.js", setup), ["Rewrite L4  /api on=- target="]);
        let vite = "export default defineConfig({\n  server: { proxy: { '/api': {\n    target: 'http://localhost:8000',\n    rewrite: (path) => path.replace(/^\\/api/, '/v1'),\n  } } },\n});\n";
        assert_eq!(briefs("vite.config.ts", vite), ["Rewrite L4  /api on=- target=/v1"]);
        // A pattern that is more than a literal prefix is no rewrite drsg can follow.
        let wild = "app.use(proxy({ pathRewrite: { '^/api/(.*)': '/$1' } }));\n";
        assert_eq!(briefs("src/setupProxy.js", wild), Vec::<String>::new());
    }

    /// A call on a name is a request only when the name can be a client: a library's, one bound in the
    /// file, or an imported one (`import { api } from './client'`), wherever the file's imports are.
    #[test]
    fn requests_are_read_on_imported_clients_and_never_on_other_names() {
        let ts = "import { api } from './client';\nimport { store } from './store';\nconst cache = new Map();\nexport function list(key: string) {\n  cache.get('/users');\n  store.get(key);\n  return api.get('/users');\n}\n";
        // `cache` is bound here and is no client; `store` is imported, but `key` is no URL.
        assert_eq!(briefs("src/users.ts", ts), ["Request L7 GET /users on=api"]);
        let py = "from .http import client\nimport requests\n\ndef load(settings):\n    settings.get('/k')\n    requests.post('/login')\n    return client.get('/users')\n";
        assert_eq!(
            briefs("app/users.py", py),
            ["Request L6 POST /login on=requests", "Request L7 GET /users on=client"]
        );
    }
}
