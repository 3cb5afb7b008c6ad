//! One open database shared by the threads of a server: the writing handle behind a mutex (the
//! write gate, which folds and rebuilds hold) and a few read-only handles that read verbs take in
//! turn, so reads run beside each other and beside a write.
//!
//! A server asks for this handle: up to four reader handles, taken in turn, each call within a
//! deadline; `SharedStore::single` has no readers, for a process answering one call.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use crate::{Result, Store};

/// Reader handles a shared store keeps.
const READERS: usize = 4;

/// A store shared by threads (see the module's comment).
pub struct SharedStore {
    writer: Mutex<Store>,
    readers: Mutex<Vec<Store>>,
    returned: Condvar,
    /// Whether reads have handles of their own (none for a database in memory).
    reads_apart: bool,
}

/// Why a shared store was not reached in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// A write held the writing handle past the deadline.
    Writing,
    /// Every reader was in use until the deadline.
    Readers,
}

impl SharedStore {
    /// Shares `store`, opening up to four reader handles beside it (none for a database in
    /// memory, whose reads then take the writing handle).
    pub fn new(store: Store) -> SharedStore {
        let mut readers = Vec::new();
        for _ in 0..READERS {
            match store.reader() {
                Ok(Some(reader)) => readers.push(reader),
                Ok(None) => break,
                Err(err) => {
                    tracing::warn!(%err, "no reader handle: reads share the writing handle");
                    break;
                }
            }
        }
        SharedStore::with_readers(store, readers)
    }

    /// Shares `store` with no reader handles: every read takes the writing handle (a process
    /// that answers one call).
    pub fn single(store: Store) -> SharedStore {
        SharedStore::with_readers(store, Vec::new())
    }

    fn with_readers(store: Store, readers: Vec<Store>) -> SharedStore {
        let reads_apart = !readers.is_empty();
        SharedStore { writer: Mutex::new(store), readers: Mutex::new(readers), returned: Condvar::new(), reads_apart }
    }

    /// The writing handle back (the readers are closed).
    pub fn into_inner(self) -> Store {
        self.writer.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The writing handle, waiting as long as it takes (a fold of the watch loop).
    pub fn lock(&self) -> MutexGuard<'_, Store> {
        self.writer.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `write` on the writing handle; `Err(Busy::Writing)` when it was only free after `until`
    /// (the write is then not run).
    pub fn write<R>(&self, until: Option<Instant>, write: impl FnOnce(&mut Store) -> R) -> Result<R, Busy> {
        let mut store = self.lock();
        if until.is_some_and(|until| Instant::now() >= until) {
            return Err(Busy::Writing);
        }
        Ok(write(&mut store))
    }

    /// Runs `read` on one snapshot of a reader handle, waiting until `until` for a free one (on the
    /// writing handle when there are none). The outer `Err` when the deadline passed; the inner one
    /// when the snapshot could not be taken.
    pub fn read<R>(&self, until: Option<Instant>, read: impl FnOnce(&Store) -> R) -> Result<Result<R>, Busy> {
        if !self.reads_apart {
            return self.write(until, |store| Ok(read(store)));
        }
        let mut free = self.readers.lock().unwrap_or_else(|p| p.into_inner());
        let reader = loop {
            if let Some(reader) = free.pop() {
                break reader;
            }
            free = match until {
                None => self.returned.wait(free).unwrap_or_else(|p| p.into_inner()),
                Some(until) => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Busy::Readers);
                    }
                    self.returned.wait_timeout(free, left).unwrap_or_else(|p| p.into_inner()).0
                }
            };
        };
        drop(free);
        let out = reader.snapshot(read);
        self.readers.lock().unwrap_or_else(|p| p.into_inner()).push(reader);
        self.returned.notify_one();
        Ok(out)
    }
}
