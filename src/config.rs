//! `drsg.toml`: a repository's settings for drsg, found at the root of the tree being read (or of the
//! git work tree holding it), or named with `--config`. Today it names the folder of the repository's
//! own declarative plugins:
//!
//! ```toml
//! [plugins]
//! dir = "tools/drsg-plugins"   # relative to drsg.toml; one folder per plugin (plugin.toml + *.scm)
//! builtin = false              # leave the built-in declarative plugins out (default: true)
//! ```
//!
//! Each plugin of the folder is read and checked (`drsg_plugins::declarative::load`); a refused one
//! is said on stderr while the others load. `registry_for` builds the process's registry once, from
//! the built-in plugins and those of the config of the tree a command reads; `built_by` is what it
//! records in a plane, which `DiskFiles::built_by` hands the answers, so that a plane built by other
//! plugins says so.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Context as _;

/// The file `--config` named, for the whole process.
static EXPLICIT: OnceLock<PathBuf> = OnceLock::new();

/// Records the `--config` flag.
pub fn set_explicit(path: Option<PathBuf>) {
    if let Some(path) = path {
        let _ = EXPLICIT.set(path);
    }
}

/// What a `drsg.toml` says.
#[derive(Debug)]
pub struct Config {
    /// The file read, if any.
    pub file: Option<PathBuf>,
    /// The folder of the repository's declarative plugins.
    pub plugins_dir: Option<PathBuf>,
    /// Whether the built-in declarative plugins run (`[plugins] builtin`, default true).
    pub builtin_plugins: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config { file: None, plugins_dir: None, builtin_plugins: true }
    }
}

/// The config for the tree at `root`: `--config`'s file, else `drsg.toml` at `root`, else at the root
/// of the git work tree holding it; none is an empty config. A file that does not read is an error.
pub fn for_root(root: &Path) -> anyhow::Result<Config> {
    let file = match EXPLICIT.get() {
        Some(explicit) => Some(explicit.clone()),
        None => {
            let top = drsg_indexer::Repo::discover(root).map(|r| r.workdir().to_path_buf());
            [Some(root.to_path_buf()), top].into_iter().flatten().map(|d| d.join("drsg.toml")).find(|f| f.is_file())
        }
    };
    let Some(file) = file else { return Ok(Config::default()) };
    let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        anyhow::anyhow!("{}:{line}: {}", file.display(), e.message())
    })?;
    let dir = table.get("plugins").and_then(|p| p.get("dir"));
    let plugins_dir = match dir {
        None => None,
        Some(toml::Value::String(dir)) => Some(file.parent().unwrap_or(Path::new(".")).join(dir)),
        Some(_) => anyhow::bail!("{}: `[plugins] dir` must be a string", file.display()),
    };
    let builtin_plugins = match table.get("plugins").and_then(|p| p.get("builtin")) {
        None => true,
        Some(toml::Value::Boolean(on)) => *on,
        Some(_) => anyhow::bail!("{}: `[plugins] builtin` must be true or false", file.display()),
    };
    Ok(Config { file: Some(file), plugins_dir, builtin_plugins })
}

/// The declarative plugins of `config`'s folder, one per sub-folder holding a `plugin.toml`, and why each
/// refused one was refused (the others load).
pub fn load_plugins(config: &Config) -> (Vec<drsg_parsers::wire::Extractor>, Vec<String>) {
    let (mut loaded, mut refused) = (Vec::new(), Vec::new());
    let Some(dir) = &config.plugins_dir else { return (loaded, refused) };
    let mut folders: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => {
            entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.join("plugin.toml").is_file()).collect()
        }
        Err(err) => {
            refused.push(format!("{}: cannot read the plugin folder: {err}", dir.display()));
            return (loaded, refused);
        }
    };
    folders.sort();
    for folder in folders {
        let name = |p: &Path| p.strip_prefix(dir).unwrap_or(p).to_string_lossy().into_owned();
        let manifest = folder.join("plugin.toml");
        let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", name(p)));
        let files = (|| -> Result<drsg_plugins::declarative::PluginFiles, String> {
            let mut queries = Vec::new();
            let mut scm: Vec<PathBuf> = std::fs::read_dir(&folder)
                .map_err(|e| format!("{}: {e}", name(&folder)))?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "scm"))
                .collect();
            scm.sort();
            for q in scm {
                queries.push((name(&q), read(&q)?));
            }
            Ok(drsg_plugins::declarative::PluginFiles { manifest: (name(&manifest), read(&manifest)?), queries })
        })();
        match files.and_then(|f| drsg_plugins::declarative::load(&f).map_err(|e| e.to_string())) {
            Ok(plugin) => loaded.push(plugin),
            Err(why) => refused.push(why),
        }
    }
    (loaded, refused)
}

static REGISTRY: std::sync::OnceLock<drsg_parsers::Registry> = std::sync::OnceLock::new();

/// The parsers for the whole life of the process: the built-in plugins and the declarative plugins of
/// the `drsg.toml` of the tree at `root` (or `--config`'s), read on the first call.
pub fn registry_for(root: &Path) -> &'static drsg_parsers::Registry {
    REGISTRY.get_or_init(|| {
        let registry = drsg_plugins::builtin();
        match for_root(root) {
            Ok(config) => {
                let (loaded, refused) = load_plugins(&config);
                for why in refused {
                    eprintln!("warning: plugin refused: {why}; the other plugins are loaded");
                }
                let registry = if config.builtin_plugins { registry } else { registry.without_extractors() };
                registry.with_extractors(loaded)
            }
            Err(err) => {
                eprintln!("warning: {err:#}; no plugin of the repository's is loaded");
                registry
            }
        }
    })
}

/// [`registry_for`] the working directory, unless a command set it up for its tree first.
pub fn registry() -> &'static drsg_parsers::Registry {
    registry_for(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
}

/// What the plugins of this process record in a plane's `built_by`.
pub fn built_by() -> serde_json::Value {
    static BUILT_BY: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    BUILT_BY.get_or_init(|| serde_json::to_value(registry().fingerprints()).unwrap_or_default()).clone()
}
