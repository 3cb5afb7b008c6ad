//! drsg-watch (placeholder until the watcher lands).
