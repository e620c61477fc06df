//! The stamps a checked query compares, taken ahead of it on a second
//! thread: the recorded entries are cut into chunks, each claimed once,
//! the helper's in order and the query's thread's as it needs them, so
//! that checking an unchanged tree costs about half its stats' time on
//! two cores. The query's thread, needing a stamp of a chunk the helper
//! is still filling, claims and fills the helper's next chunk meanwhile
//! rather than take the same stats again. Each stamp is one `fstatat` by path from the
//! root's handle (no folder is opened); the query uses a stamp only once
//! every folder above it was found unchanged, so a folder swapped for a
//! link is seen at the folder.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};

use crate::DirHandle;
use crate::index::snapshot::{Entry, Snapshot};
use crate::index::stamp::{file_stamp_at, folder_stamp_at};

/// Entries per chunk.
const CHUNK: usize = 64;

/// A stamp not taken yet.
const PENDING: u64 = 0;
/// A stamp that could not be taken.
const FAILED: u64 = 1;

/// A chunk's state: not claimed, claimed and being filled, filled.
const FREE: u8 = 0;
const TAKEN: u8 = 1;
const DONE: u8 = 2;

/// The entries' stamps now, as they are taken.
pub(crate) struct Stamps<'s> {
    snap: &'s Snapshot,
    root: &'s DirHandle,
    values: Vec<AtomicU64>,
    chunks: Vec<AtomicU8>,
    /// The next chunk the helper claims (the query's thread claims the
    /// chunks it needs, wherever they are).
    next: AtomicUsize,
    stop: AtomicBool,
}

impl<'s> Stamps<'s> {
    /// The stamps of `snap`'s entries from `first` on.
    pub(crate) fn new(snap: &'s Snapshot, root: &'s DirHandle, first: usize) -> Stamps<'s> {
        let n = snap.entries.len();
        Stamps {
            snap,
            root,
            values: (0..n).map(|_| AtomicU64::new(PENDING)).collect(),
            chunks: (0..n.div_ceil(CHUNK))
                .map(|_| AtomicU8::new(FREE))
                .collect(),
            next: AtomicUsize::new(first / CHUNK),
            stop: AtomicBool::new(false),
        }
    }

    /// Takes the stamp of entry `at` (a folder's or a file's).
    fn take(&self, at: usize) -> u64 {
        let stamp = match &self.snap.entries[at] {
            Entry::Folder(f) => folder_stamp_at(self.root, &f.path, f.ignores),
            Entry::File(f) => file_stamp_at(self.root, &f.path),
            Entry::Skip(_) => None,
        };
        stamp.filter(|&s| s > FAILED).unwrap_or(FAILED)
    }

    /// Fills a chunk this thread claimed.
    fn fill(&self, chunk: usize) {
        let end = ((chunk + 1) * CHUNK).min(self.values.len());
        for at in chunk * CHUNK..end {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if self.values[at].load(Ordering::Relaxed) == PENDING {
                self.values[at].store(self.take(at), Ordering::Release);
            }
        }
        self.chunks[chunk].store(DONE, Ordering::Release);
    }

    /// Claims `chunk`, unless a thread did.
    fn claim(&self, chunk: usize) -> bool {
        self.chunks[chunk]
            .compare_exchange(FREE, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Claims the next chunk in order not claimed yet, if any is left.
    fn claim_next(&self) -> Option<usize> {
        loop {
            let chunk = self.next.fetch_add(1, Ordering::AcqRel);
            if chunk >= self.chunks.len() {
                return None;
            }
            if self.claim(chunk) {
                return Some(chunk);
            }
        }
    }

    /// The stamp of entry `at` now (`None` when it cannot be taken): the
    /// helper's if it took it, else taken here, with the rest of its
    /// chunk when no thread claimed the chunk.
    pub(crate) fn of(&self, at: usize) -> Option<u64> {
        let chunk = at / CHUNK;
        loop {
            let value = self.values[at].load(Ordering::Acquire);
            if value != PENDING {
                return (value != FAILED).then_some(value);
            }
            match self.chunks[chunk].load(Ordering::Acquire) {
                FREE => {
                    if self.claim(chunk) {
                        self.fill(chunk);
                    }
                }
                // Filled, yet not this one: the filling thread stopped.
                DONE => break,
                // The helper is filling it: fill the next chunk
                // meanwhile, or wait for it when none is left.
                _ => match self.claim_next() {
                    Some(ahead) => self.fill(ahead),
                    None if self.stop.load(Ordering::Relaxed) => break,
                    None => std::thread::yield_now(),
                },
            }
        }
        let value = self.take(at);
        (value != FAILED).then_some(value)
    }

    /// The helper: claims and fills chunk after chunk, until stopped.
    pub(crate) fn help(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            match self.claim_next() {
                Some(chunk) => self.fill(chunk),
                None => return,
            }
        }
    }

    /// Stops the helper.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Takes as known the stamps of `seen` (those another traversal of
    /// the same generation took).
    pub(crate) fn with(self, seen: &[u64]) -> Stamps<'s> {
        for (value, &known) in self.values.iter().zip(seen) {
            value.store(known, Ordering::Relaxed);
        }
        self
    }

    /// The stamps taken (`PENDING` where none was).
    fn values(&self) -> Vec<u64> {
        self.values
            .iter()
            .map(|v| v.load(Ordering::Acquire))
            .collect()
    }
}

/// The stamps the last checked query took, kept for the next update of
/// the same generation: an update after a query (as a command line tool
/// runs one) does not stat the tree twice.
///
/// An update may use stamps taken earlier, where a query may not: an
/// entry it keeps because its stamp was unchanged then held what the
/// index holds then, and a change since moves its stamp, which the next
/// query checks and the next update reads.
#[derive(Debug, Default)]
pub(crate) struct LastStamps(Mutex<Option<(u64, Vec<u64>)>>);

impl LastStamps {
    /// Keeps what `stamps` took of `generation`.
    pub(crate) fn keep(&self, generation: u64, stamps: &Stamps<'_>) {
        let values = stamps.values();
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((generation, values));
    }

    /// The stamps kept of `generation`, given up.
    pub(crate) fn take(&self, generation: u64) -> Option<Vec<u64>> {
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match kept.take() {
            Some((g, values)) if g == generation => Some(values),
            _ => None,
        }
    }
}
