//! `drsg init` and `drsg stop`: one command leaves a repository with a served, watching plane and a
//! `.mcp.json` that clients read; another stops the server.
//!
//! What a server needs to be found again lives in `serve.json` in the database directory (mode
//! 0600: it holds the token): its pid, address, token and log. `init` reuses a live server, and
//! restarts a dead one on the same address and token (the plane resumes from its sync point).
//!
//! `init` starts the server detached (`drsg serve … watch`, after indexing when there is no plane
//! yet), waits for `/health`, and upserts `.mcp.json` and `.gitignore`; files holding the token are
//! written 0600. It declares the server in each editor's project file the checkout has
//! (`.mcp.json`; `.cursor/mcp.json`, `.vscode/mcp.json` where those folders exist), merged with
//! what they hold, 0600 and ignored by git. Two `init`s of one database take turns on a lock file
//! in the temporary directory named by a hash of its path, so the second finds the first's server
//! and reuses it.
//!
//! Nothing reads `/proc`: a live server is one that answers `/health` with the recorded pid, and
//! `holder` names the live server behind a lock error (the recorded server answers `/health` with
//! the pid the lock holds). `stop` asks the server to stop over HTTP, waits for the lock
//! (`drsg_planes::lock_state`) to be released, and only then signals, TERM and then KILL through
//! the system's `kill`, when the lock's pid is the recorded one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::{Value, json};

/// The record of a started server, in the database directory.
pub const RECORD_FILE: &str = drsg_planes::SERVE_RECORD;
/// How long `init` waits for a started server's `/health`.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// A server `init` started, as recorded.
#[derive(Debug, Clone)]
struct Record {
    pid: Option<u32>,
    addr: String,
    token: String,
    log: PathBuf,
}

impl Record {
    fn read(db: &Path) -> Option<Record> {
        let text = std::fs::read_to_string(db.join(RECORD_FILE)).ok()?;
        let value: Value = serde_json::from_str(&text).ok()?;
        Some(Record {
            pid: value.get("pid").and_then(Value::as_u64).map(|p| p as u32),
            addr: value.get("addr")?.as_str()?.to_owned(),
            token: value.get("token")?.as_str()?.to_owned(),
            log: PathBuf::from(value.get("log").and_then(Value::as_str).unwrap_or_default()),
        })
    }

    fn write(&self, db: &Path) -> anyhow::Result<()> {
        let value = json!({"pid": self.pid, "addr": self.addr, "token": self.token, "log": self.log});
        write_private(&db.join(RECORD_FILE), &format!("{value:#}\n"))
    }

    fn authorization(&self) -> String {
        format!("Bearer {}", self.token)
    }
}

/// A live drsg server holding a database.
#[derive(Debug, Clone)]
pub struct Holder {
    pub addr: String,
    pub pid: u32,
    token: String,
}

impl Holder {
    /// The `Authorization` header it expects.
    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.token)
    }
}

/// The server behind `err`, when `err` says the database at `db` is held (its lock) and the
/// server recorded in the database answers `/health` as the lock's holder.
pub fn holder(db: &Path, err: &anyhow::Error) -> Option<Holder> {
    let locked = err.chain().find_map(|cause| match cause.downcast_ref::<drsg_planes::Error>() {
        Some(drsg_planes::Error::Locked { pid, .. }) => Some(*pid),
        _ => None,
    })?;
    let record = Record::read(db)?;
    let serving = crate::block_on(drsg_mcp::relay::served_by(&record.addr))?;
    // The lock's pid when it could be read, else the recorded one: the answering server is the holder.
    (Some(serving) == locked.or(record.pid)).then_some(Holder { addr: record.addr, pid: serving, token: record.token })
}

/// What `drsg init` did, for its closing lines.
pub struct Initialized {
    pub plane: Option<String>,
    pub url: String,
    pub pid: u32,
    pub log: PathBuf,
    pub reused: bool,
    /// The editor files holding the server (`.mcp.json` first).
    pub editor_files: Vec<PathBuf>,
}

/// The database `init`/`stop` use: `--db`/`$DRSG_DB`, else `graph.drsg` at the checkout's root.
pub fn database_for(root: &Path, flag: Option<PathBuf>) -> PathBuf {
    let chosen = flag.or_else(|| std::env::var_os("DRSG_DB").filter(|v| !v.is_empty()).map(PathBuf::from));
    match chosen {
        Some(path) if path.is_absolute() => path,
        Some(path) => std::env::current_dir().map(|cwd| cwd.join(&path)).unwrap_or(path),
        None => root.join(drsg_planes::DEFAULT_DB_NAME),
    }
}

/// The checkout `init` sets up: DIR's canonical path, which must be in a git checkout.
pub fn checkout(dir: &Path) -> anyhow::Result<PathBuf> {
    let root = dir.canonicalize().with_context(|| format!("cannot read the tree at {}", dir.display()))?;
    if drsg_indexer::Repo::discover(&root).is_none() {
        anyhow::bail!(
            "{} is not in a git checkout; `drsg init` serves a plane that follows commits. For a plain \
             directory, use `drsg index` and `drsg-mcp`",
            root.display()
        );
    }
    Ok(root)
}

/// `drsg init`.
pub fn init(root: &Path, db: &Path) -> anyhow::Result<Initialized> {
    // Two `init`s in one checkout take turns: the second waits for the first, then finds its server.
    let turn = init_lock(db)?;
    turn.lock().with_context(|| format!("cannot take the init lock of {}", db.display()))?;
    let existed = db.exists();
    let record = Record::read(db);
    // Live: the recorded server answers `/health` with the recorded pid.
    if let Some(record) = &record
        && let Some(pid) = record.pid
        && crate::block_on(drsg_mcp::relay::served_by(&record.addr)) == Some(pid)
    {
        ignore_in_git(root)?;
        let editor_files = upsert_editor_files(root, record)?;
        // The server holds the database: the plane is whatever it serves.
        let plane = None;
        let pid = record.pid.unwrap_or_default();
        let log = record.log.clone();
        return Ok(Initialized { plane, url: url(&record.addr), pid, log, reused: true, editor_files });
    }
    // No live server: build the plane if there is none (with a progress bar), then start one.
    let plane = {
        let mut store = crate::open_for_write(db).context(
            "cannot open the database to set it up (a server that is not answering may hold it: `drsg stop`)",
        )?;
        let registry = crate::config::registry();
        let existing = drsg_indexer::sync::plane_of_root(&store, root)?;
        let indexed = existing.map(|plane| (plane, None)).map_or_else(
            || {
                drsg_indexer::prepare_announced_dialects(root, registry);
                let options = drsg_indexer::IndexOptions { source: Some("init".into()), ..Default::default() };
                let bar = crate::Bar::new();
                let indexed = drsg_indexer::sync::index_if_missing(&mut store, registry, root, &options, &bar);
                bar.finish();
                indexed
            },
            Ok,
        );
        match indexed {
            Ok((plane, None)) => plane,
            Ok((plane, Some(report))) => {
                crate::emit(&crate::render_index_summary(&report, db));
                plane
            }
            Err(err) => {
                // Nothing set up: a database this run created goes, and nothing else was written.
                drop(store);
                if !existed {
                    let _ = std::fs::remove_dir_all(db);
                }
                return Err(anyhow::Error::new(err).context(format!("cannot set up {}", root.display())));
            }
        }
    };
    ignore_in_git(root)?;
    // Only our own record is trusted for the address and token: a `.mcp.json` may come with the
    // checkout, and could name a public address or a token others know.
    let token = record.as_ref().map(|r| r.token.clone()).map_or_else(new_token, Ok)?;
    let addr = record.as_ref().map(|r| r.addr.clone()).filter(|a| is_loopback(a));
    let logs = db.join(drsg_planes::LOGS_DIR);
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let log = logs.join("serve.out");
    let (pid, addr) = match addr {
        Some(addr) => match start(root, db, &addr, &token, &log) {
            Ok(pid) => (pid, addr),
            // The recorded port is taken by something else now: take another.
            Err(err) if err.to_string().contains("cannot listen") => {
                let addr = free_address()?;
                (start(root, db, &addr, &token, &log)?, addr)
            }
            Err(err) => return Err(err),
        },
        None => {
            let addr = free_address()?;
            (start(root, db, &addr, &token, &log)?, addr)
        }
    };
    let record = Record { pid: Some(pid), addr, token, log: log.clone() };
    record.write(db)?;
    let editor_files = upsert_editor_files(root, &record)?;
    Ok(Initialized { plane: Some(plane), url: url(&record.addr), pid, log, reused: false, editor_files })
}

/// `drsg stop`: whether a server was running (and is now stopped).
///
/// A server that answers is asked to stop (`POST /shutdown`); one that holds the database but no
/// longer answers, or does not stop within the grace period, gets SIGTERM and then SIGKILL, but only
/// when the process holding the database's lock is the one recorded (so the signal reaches a drsg
/// server of this database, never a process that reused the pid). Nothing here reads `/proc`.
pub fn stop(db: &Path) -> anyhow::Result<bool> {
    let Some(mut record) = Record::read(db) else { return Ok(false) };
    let Some(pid) = record.pid else { return Ok(false) };
    let grace = stop_grace()?;
    let answering = crate::block_on(drsg_mcp::relay::served_by(&record.addr)) == Some(pid);
    let holder = lock_holder(db)?;
    if !answering && holder.is_none() {
        // Not running: the record is stale.
        record.pid = None;
        record.write(db)?;
        return Ok(false);
    }
    let mut stopped = false;
    if answering {
        let auth = record.authorization();
        crate::block_on(drsg_mcp::relay::shutdown(&record.addr, Some(&auth)))
            .map_err(|e| anyhow::anyhow!("asking the server (pid {pid}, {}) to stop: {e}", record.addr))?;
        stopped = wait_for_release(db, grace)?;
    }
    if !stopped {
        match lock_holder(db)? {
            None => stopped = true,
            Some(Some(holder)) if holder == pid => {
                for signal in ["TERM", "KILL"] {
                    say_signal(pid, signal);
                    send_signal(pid, signal)?;
                    if wait_for_release(db, grace)? {
                        stopped = true;
                        break;
                    }
                }
            }
            Some(other) => anyhow::bail!(
                "{} is held by {}, not by the recorded server (pid {pid}); stop that process yourself",
                db.display(),
                other.map_or_else(|| "a process that recorded no pid".to_owned(), |p| format!("pid {p}"))
            ),
        }
    }
    if !stopped {
        anyhow::bail!("the server (pid {pid}) still holds {} after SIGKILL", db.display());
    }
    // Keep the address and token: the next `init` restarts on them, and `.mcp.json` stays valid.
    record.pid = None;
    record.write(db)?;
    Ok(true)
}

/// How long `stop` waits for a server to let go of the database before the next step:
/// `DRSG_STOP_GRACE_SECS` (default 15).
fn stop_grace() -> anyhow::Result<Duration> {
    match std::env::var("DRSG_STOP_GRACE_SECS") {
        Err(_) => Ok(Duration::from_secs(15)),
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| *s > 0.0 && s.is_finite())
            .map(Duration::from_secs_f64)
            .with_context(|| format!("DRSG_STOP_GRACE_SECS is a number of seconds above 0, not `{text}`")),
    }
}

/// The process holding the database's lock: `None` when none does, `Some(None)` when one does
/// but its pid is not recorded.
fn lock_holder(db: &Path) -> anyhow::Result<Option<Option<u32>>> {
    match drsg_planes::lock_state(db).with_context(|| format!("cannot read the lock of {}", db.display()))? {
        drsg_planes::LockState::Free => Ok(None),
        drsg_planes::LockState::Held { pid } => Ok(Some(pid)),
    }
}

/// Waits up to `grace` for the database's lock to be released; whether it was.
fn wait_for_release(db: &Path, grace: Duration) -> anyhow::Result<bool> {
    let started = Instant::now();
    loop {
        if lock_holder(db)?.is_none() {
            return Ok(true);
        }
        if started.elapsed() > grace {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The file two `drsg init`s of one database take turns on: in the temporary directory, named by a
/// hash of the database's path (the database may not exist yet, and nothing is left in the checkout).
fn init_lock(db: &Path) -> anyhow::Result<std::fs::File> {
    let full = std::path::absolute(db).unwrap_or_else(|_| db.to_owned());
    // Stable across runs and builds, unlike the standard hasher.
    let hash = drsg_parsers::fnv1a(full.to_string_lossy().as_bytes());
    let path = std::env::temp_dir().join(format!("drsg-init-{hash:016x}.lock"));
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open the init lock {}", path.display()))
}

/// Bytes the server's stderr (`logs/serve.out`) takes in one run; the file is set aside at the next
/// start once it is larger.
const SERVE_OUT_LIMIT: u64 = 8 * 1024 * 1024;

/// One line on stderr (unless `-q`) before a signal is sent.
fn say_signal(pid: u32, signal: &str) {
    if crate::verbosity() >= 0 {
        eprintln!("drsg: the server (pid {pid}) did not let go of the database; sending SIG{signal}");
    }
}

/// Sends `signal` (`TERM`, `KILL`) to `pid` with the system's `kill`, which every Unix has.
fn send_signal(pid: u32, signal: &str) -> anyhow::Result<()> {
    // It may have exited meanwhile: `kill` then fails, and the lock tells; only a `kill` that cannot
    // run is an error.
    Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("cannot run `kill` to signal the server")?;
    Ok(())
}

fn start(root: &Path, db: &Path, addr: &str, token: &str, log: &Path) -> anyhow::Result<u32> {
    // The server's stderr: at most `SERVE_OUT_LIMIT` bytes a run (its records go to the daily log files
    // too); the previous run's is kept beside it as `serve.out.1` when it grew large.
    if std::fs::metadata(log).is_ok_and(|m| m.len() > SERVE_OUT_LIMIT) {
        let _ = std::fs::rename(log, log.with_extension("out.1"));
    }
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("cannot open the server's log {}", log.display()))?;
    let start_of_log = out.metadata().map(|m| m.len()).unwrap_or(0);
    let exe = std::env::current_exe().context("cannot find the drsg executable to start the server")?;
    let mut command = Command::new(exe);
    command
        .arg("--db")
        .arg(db)
        .args(["serve", "--addr", addr, "watch", "--dir"])
        .arg(root)
        .current_dir(root)
        .env("DRSG_TOKEN", token)
        .env("DRSG_STDERR_LIMIT", SERVE_OUT_LIMIT.to_string())
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    #[cfg(unix)]
    {
        // Its own process group: a Ctrl-C in the terminal that ran `init` does not reach it.
        use std::os::unix::process::CommandExt as _;
        command.process_group(0);
    }
    let mut child = command.spawn().context("cannot start `drsg serve`")?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            let tail = log_tail(log, start_of_log);
            anyhow::bail!("`drsg serve` exited ({status}) before answering:\n{tail}");
        }
        // Our child, not whatever else took the port meanwhile.
        if crate::block_on(drsg_mcp::relay::served_by(addr)) == Some(child.id()) {
            return Ok(child.id());
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            anyhow::bail!(
                "`drsg serve` did not answer /health within {} s; see {}",
                START_TIMEOUT.as_secs(),
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn log_tail(log: &Path, from: u64) -> String {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text[(from as usize).min(text.len())..]).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// A free loopback port, as `127.0.0.1:PORT`.
fn free_address() -> anyhow::Result<String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").context("cannot find a free loopback port")?;
    Ok(probe.local_addr()?.to_string())
}

/// 32 random bytes from the OS, as 64 hex digits.
fn new_token() -> anyhow::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read random bytes for the token from /dev/urandom")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn url(addr: &str) -> String {
    format!("http://{addr}/mcp")
}

fn is_loopback(addr: &str) -> bool {
    addr.parse::<std::net::SocketAddr>().is_ok_and(|a| a.ip().is_loopback())
}

/// A project-scoped MCP configuration file of an editor: where it lives in the checkout, the key
/// that holds its servers, and how it spells a server over HTTP.
struct EditorFile {
    /// Relative to the checkout's root.
    path: &'static str,
    /// Written only when the checkout has this folder (the editor's own), except `.mcp.json`.
    folder: Option<&'static str>,
    servers_key: &'static str,
    /// Whether the entry names its transport (`"type": "http"`).
    typed: bool,
}

/// The files `init` keeps: Claude Code's `.mcp.json` (which `drsg-mcp` also reads), Cursor's
/// `.cursor/mcp.json` and VS Code's `.vscode/mcp.json` where those folders exist. Never a user's
/// global configuration.
const EDITOR_FILES: &[EditorFile] = &[
    EditorFile { path: ".mcp.json", folder: None, servers_key: "mcpServers", typed: true },
    EditorFile { path: ".cursor/mcp.json", folder: Some(".cursor"), servers_key: "mcpServers", typed: false },
    EditorFile { path: ".vscode/mcp.json", folder: Some(".vscode"), servers_key: "servers", typed: true },
];

/// The editor files of this checkout (see [`EDITOR_FILES`]); a folder that is a symbolic link is
/// passed over (it could lead out of the checkout).
fn editor_files(root: &Path) -> Vec<(&'static EditorFile, PathBuf)> {
    EDITOR_FILES
        .iter()
        .filter(|file| {
            file.folder.is_none_or(|folder| {
                std::fs::symlink_metadata(root.join(folder)).is_ok_and(|meta| meta.file_type().is_dir())
            })
        })
        .map(|file| (file, root.join(file.path)))
        .collect()
}

/// Upserts the `drsg` server into every editor file of the checkout; the files written.
fn upsert_editor_files(root: &Path, record: &Record) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (file, path) in editor_files(root) {
        upsert_mcp_json(&path, file, record)?;
        written.push(path);
    }
    Ok(written)
}

/// Sets the `drsg` server in an editor's MCP file, keeping everything else in it.
fn upsert_mcp_json(path: &Path, file: &EditorFile, record: &Record) -> anyhow::Result<()> {
    let mut config = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => json!({}),
        Ok(text) => serde_json::from_str::<Value>(&text).ok().filter(Value::is_object).with_context(|| {
            format!("{} is not a JSON object; fix or remove it, then run `drsg init` again", path.display())
        })?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(err) => return Err(anyhow::Error::new(err).context(format!("cannot read {}", path.display()))),
    };
    let key = file.servers_key;
    let servers = config.as_object_mut().expect("checked to be an object").entry(key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        anyhow::bail!("`{key}` in {} is not an object; fix it, then run `drsg init` again", path.display());
    };
    let mut entry = json!({"url": url(&record.addr), "headers": {"Authorization": record.authorization()}});
    if file.typed {
        entry["type"] = "http".into();
    }
    servers.insert("drsg".into(), entry);
    write_private(path, &format!("{}\n", serde_json::to_string_pretty(&config)?))
}

/// Adds `*.drsg` and the editor files (which hold the token) to the checkout's `.gitignore` when
/// missing.
fn ignore_in_git(root: &Path) -> anyhow::Result<()> {
    let path = root.join(".gitignore");
    refuse_link(&path)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(anyhow::Error::new(err).context(format!("cannot read {}", path.display()))),
    };
    let present: Vec<&str> = text.lines().map(str::trim).collect();
    let entries = std::iter::once("*.drsg").chain(editor_files(root).into_iter().map(|(file, _)| file.path));
    let missing: Vec<&str> = entries.filter(|entry| !present.contains(entry)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut add = String::new();
    if !text.is_empty() && !text.ends_with('\n') {
        add.push('\n');
    }
    for entry in missing {
        add.push_str(entry);
        add.push('\n');
    }
    file.write_all(add.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

/// Refuses to write through a symbolic link: a checkout could plant one pointing anywhere.
fn refuse_link(path: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            anyhow::bail!("{} is a symbolic link; drsg init writes only regular files", path.display())
        }
        _ => Ok(()),
    }
}

/// Writes a file only this user can read (it holds the token), replacing it whole: a new file of a
/// fresh name (never an existing one or a link) renamed over it.
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    refuse_link(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.{}.drsg-tmp", std::process::id(), new_token()?.split_at(8).0));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
    }
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}", path.display())
    })
}
