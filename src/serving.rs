//! Serving: the MCP backend both binaries build, the rebuild the tools may ask for, logs (stderr and
//! a daily file under the database's `logs/`), and `drsg serve` itself: the HTTP endpoints on a tokio
//! runtime and, with `watch`, the fold loop on a thread of its own sharing the store's mutex.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;
use drsg_mcp::http::HttpOptions;
use drsg_mcp::{Backend, DrsgServer, Limits, ToolSet};
use drsg_planes::{SharedStore, Store};
use tokio_util::sync::CancellationToken;

use crate::config::registry;
use crate::logline::Clean;

/// `rebuild`: re-parses a plane from its own recorded tree, never another path.
pub struct TreeRebuild;

impl drsg_mcp::Writer for TreeRebuild {
    fn rebuild(&self, store: &mut Store, plane: &str, source: &str) -> Result<String, String> {
        let report = rebuild_plane(store, plane, source).map_err(|e| format!("{e:#}"))?;
        Ok(format!(
            "rebuilt plane {} from {}: {} files, {} symbols, {} edges in {:.1} s",
            report.plane, report.root, report.files, report.symbols, report.edges, report.seconds
        ))
    }
}

/// Re-indexes plane `plane` from its `synced_root` with the options it was built with.
pub fn rebuild_plane(store: &mut Store, plane: &str, source: &str) -> anyhow::Result<drsg_indexer::RunReport> {
    let rebuilt = drsg_indexer::sync::rebuild(store, registry(), plane, source, &drsg_indexer::Silent);
    rebuilt.map_err(|err| match err {
        drsg_indexer::FoldError::NotCode(_) => {
            anyhow::anyhow!("plane `{plane}` is not a code plane; rebuild its code plane, which records it too")
        }
        drsg_indexer::FoldError::TreeGone { root, .. } => {
            anyhow::anyhow!("plane `{plane}` was read from {root}, which is gone; index the tree again where it is now")
        }
        drsg_indexer::FoldError::Index(err) => {
            anyhow::Error::new(err).context(format!("rebuilding plane {plane} failed; it is unchanged"))
        }
        other => anyhow::Error::new(other),
    })
}

/// The backend of a server (or of one command) on `store`: the built-in verbs, the tree's files on
/// disk, revisions from git, and the rebuild.
pub fn backend(store: Arc<SharedStore>) -> Backend {
    Backend {
        verbs: drsg_query::verbs::Registry::builtin(),
        store,
        files: Box::new(crate::files::DiskFiles),
        revisions: Box::new(crate::revisions::GitRevisions { registry: registry() }),
        cwd: std::env::current_dir().ok(),
        writer: Some(Box::new(TreeRebuild)),
    }
}

/// Logs to stderr and, when `logs` is given, to a file there rotated daily (a week kept, at most
/// `logline::MAX_DAY_BYTES` a day). The level
/// comes from `DRSG_LOG` (default `info`; `warn` with `-q`, `debug` with `-v`). Keep the guard until the process ends: it flushes the file.
pub fn start_logging(logs: Option<&Path>, name: &str) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = || {
        tracing_subscriber::EnvFilter::try_from_env("DRSG_LOG").unwrap_or_else(|_| {
            tracing_subscriber::EnvFilter::new(match crate::verbosity() {
                ..0 => "warn",
                0 => "info,rmcp=warn,hyper=warn",
                _ => "debug,rmcp=info,hyper=info",
            })
        })
    };
    // Each record one line, its control characters escaped and its length capped (`logline`).
    // Stderr passes a bounded number of records a second; when it is a file nothing rotates (`drsg init`
    // sends the server's there), `DRSG_STDERR_LIMIT` bounds it in bytes too.
    let limit = std::env::var("DRSG_STDERR_LIMIT").ok().and_then(|v| v.parse::<u64>().ok());
    let stderr_writer = match limit {
        Some(cap) => Clean::capped_total(std::io::stderr, cap),
        None => Clean::unbounded(std::io::stderr),
    };
    let stderr = tracing_subscriber::fmt::layer().with_writer(stderr_writer.rate_limited()).with_ansi(false);
    let file = logs.and_then(|dir| {
        tracing_appender::rolling::RollingFileAppender::builder()
            .rotation(tracing_appender::rolling::Rotation::DAILY)
            .filename_prefix(name)
            .filename_suffix("log")
            .max_log_files(7)
            .build(dir)
            .ok()
    });
    let (file_layer, guard) = match file {
        Some(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            (Some(tracing_subscriber::fmt::layer().with_writer(Clean::daily(writer)).with_ansi(false)), Some(guard))
        }
        None => (None, None),
    };
    let _ = tracing_subscriber::registry().with(filter()).with(stderr).with(file_layer).try_init();
    guard
}

/// What `drsg serve` runs.
pub struct ServeOptions {
    pub addr: String,
    pub tools: ToolSet,
    /// `watch --dir`: the checkout to follow, and poll instead of events.
    pub watch: Option<(PathBuf, Option<u64>)>,
}

/// The address `HOST:PORT` names: an IP address as written, or a host name resolved, its loopback
/// address first (`localhost:7700` is `127.0.0.1:7700`, IPv4 before IPv6).
fn bind_address(written: &str) -> anyhow::Result<SocketAddr> {
    if let Ok(addr) = written.parse() {
        return Ok(addr);
    }
    let refused =
        || format!("`{written}` is not an address or a host name that resolves (HOST:PORT, e.g. 127.0.0.1:7700)");
    let mut found: Vec<SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(written).with_context(refused)?.collect();
    found.sort_by_key(|a| (!a.ip().is_loopback(), !a.is_ipv4()));
    found.into_iter().next().with_context(refused)
}

/// `drsg serve`: serves `db` until stopped (Ctrl-C, SIGTERM, `POST /shutdown`).
pub fn serve(db: &Path, options: ServeOptions) -> anyhow::Result<()> {
    let http = HttpOptions::from_env().map_err(anyhow::Error::msg)?;
    let limits = Limits::from_env().map_err(anyhow::Error::msg)?;
    let addr = bind_address(&options.addr)?;
    http.check_bind(&addr).map_err(anyhow::Error::msg)?;
    // Open (and, when watching, index) before binding: a client never reaches a half-built plane.
    let (store, watched) = match &options.watch {
        Some((dir, _)) => {
            let root = dir.canonicalize().with_context(|| format!("cannot read the tree at {}", dir.display()))?;
            let mut store = crate::open_for_write(db)?;
            let plane = crate::watching::plane_for_root(&mut store, registry(), &root, &mut |l| crate::log_line(l))?;
            (store, Some(plane))
        }
        None => {
            if !db.exists() {
                anyhow::bail!(
                    "no database at {}; build one with `drsg index DIR --db {0}`, or serve and follow a checkout \
                     with `drsg serve watch --dir DIR`",
                    db.display()
                );
            }
            (crate::open_for_read(db)?, None)
        }
    };
    let logs = store.location().map(|d| d.join(drsg_planes::LOGS_DIR));
    let _guard = start_logging(logs.as_deref(), "serve");
    let listener =
        std::net::TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr} (is it in use?)"))?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let store = Arc::new(SharedStore::new(store));
    let server = DrsgServer::new(backend(store.clone()), options.tools, limits);
    let stop = CancellationToken::new();
    let stop_watch = Arc::new(AtomicBool::new(false));
    let watcher = match (watched, options.watch) {
        (Some(plane), Some((_, poll_ms))) => {
            let (store, stop_flag) = (store.clone(), stop_watch.clone());
            let mode = crate::watching::mode(poll_ms);
            Some(std::thread::Builder::new().name("drsg-watch".into()).spawn(move || {
                let result = crate::watching::watch_plane(
                    &store,
                    registry(),
                    &plane,
                    mode,
                    &stop_flag,
                    &mut |line| tracing::info!(target: "drsg::watch", "{line}"),
                );
                if let Err(err) = &result {
                    tracing::error!("the watch loop stopped: {err:#}; serving what the plane holds");
                }
                // A watch that cannot go on leaves the server up: answers say how stale they are.
                result
            })?)
        }
        _ => None,
    };
    tracing::info!(
        %bound,
        token = http.token.is_some(),
        db = %db.display(),
        "serving /mcp, /rpc and /health"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let signals = stop.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("stop signal received");
            signals.cancel();
        });
        drsg_mcp::http::serve(listener, server, http, stop).await
    });
    stop_watch.store(true, Ordering::Relaxed);
    if let Some(watcher) = watcher {
        let _ = watcher.join();
    }
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    tracing::info!("stopped");
    served.context("the server failed")
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::bind_address;

    #[test]
    fn a_host_name_is_resolved_to_its_loopback_address() {
        let addr = |written: &str| bind_address(written).map(|a| a.to_string()).map_err(|e| e.to_string());
        assert_eq!(addr("127.0.0.1:7700"), Ok("127.0.0.1:7700".to_owned()));
        assert_eq!(addr("[::1]:7700"), Ok("[::1]:7700".to_owned()));
        let local = addr("localhost:7700");
        assert!(matches!(local.as_deref(), Ok("127.0.0.1:7700" | "[::1]:7700")), "{local:?}");
        let err = addr("localhost").err().unwrap_or_default();
        assert!(err.contains("`localhost` is not an address or a host name that resolves"), "{err}");
    }
}
