//! The stamps a checked query compares, taken ahead of it on a second
//! thread, a block of the manifest at a time: the helper reads the next
//! block, takes the stamps of its entries and leaves both for the
//! query's thread, at most `AHEAD` blocks ahead of it (what is held stays
//! bounded however large the tree); the query's thread, needing a block
//! the helper is still filling, fills the helper's next block meanwhile
//! rather than wait, and fills a block no thread claimed itself. So
//! checking an unchanged tree costs about half its stats' time on two
//! cores. Each stamp is one `fstatat` by path from the root's handle (no
//! folder is opened); the query uses a stamp only once every folder above
//! it was found unchanged, so a folder swapped for a link is seen at the
//! folder.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::index::entry::RecordEntry;
use crate::index::manifest::{Block, Damage, Manifest};
use crate::index::stamp::{file_stamp_at, folder_stamp_at, now_ns};
use crate::seam::DirHandle;

/// A stamp not taken.
pub(crate) const PENDING: u64 = 0;
/// A stamp that could not be taken.
const FAILED: u64 = 1;

/// A block's state: not claimed, claimed and being filled, filled.
const FREE: u8 = 0;
const TAKEN: u8 = 1;
const DONE: u8 = 2;

/// How many blocks (about 130 entries each) the helper may fill ahead of
/// the query's thread.
const AHEAD: usize = 32;

/// A block of the manifest and its entries' stamps now (`None` where one
/// could not be taken).
#[derive(Debug)]
pub(crate) struct Stamped {
    pub(crate) block: Arc<Block>,
    stamps: Vec<u64>,
}

impl Stamped {
    /// The stamp now of the entry at `at` (within the block).
    pub(crate) fn of(&self, at: usize) -> Option<u64> {
        let value = self.stamps[at - self.block.first];
        (value != FAILED).then_some(value)
    }
}

type Filled = Result<Arc<Stamped>, Damage>;

/// A block's place among those being stamped.
#[derive(Default)]
struct BlockSlot {
    state: AtomicU8,
    filled: Mutex<Option<Filled>>,
}

/// The entries' stamps now, a block at a time, as they are taken.
pub(crate) struct Stamps<'s> {
    manifest: &'s Manifest,
    root: &'s DirHandle,
    slots: Vec<BlockSlot>,
    /// The next block the helper claims.
    next: AtomicUsize,
    /// The block the query's thread asked for last.
    reached: AtomicUsize,
    stop: AtomicBool,
    /// Stamps of the same generation another traversal took, by place.
    known: Option<Vec<u64>>,
    /// The stamps the query's thread was given, by place, when they are
    /// kept for an update (see `LastStamps`).
    kept: Option<Mutex<Vec<u64>>>,
    /// When the first stamp was taken.
    began_ns: u64,
    /// Woken when a block is filled, or the query's thread moves on.
    moved: (Mutex<()>, Condvar),
}

impl<'s> Stamps<'s> {
    /// The stamps of `manifest`'s entries, the helper starting at block
    /// `first`; `known` are stamps taken earlier (of the same generation)
    /// to use rather than take again; `keep` keeps those given out.
    pub(crate) fn new(
        manifest: &'s Manifest,
        root: &'s DirHandle,
        first: usize,
        known: Option<Vec<u64>>,
        keep: bool,
    ) -> Stamps<'s> {
        Stamps {
            manifest,
            root,
            slots: (0..manifest.block_count())
                .map(|_| BlockSlot::default())
                .collect(),
            next: AtomicUsize::new(first),
            reached: AtomicUsize::new(first),
            stop: AtomicBool::new(false),
            known,
            kept: keep.then(|| Mutex::new(vec![PENDING; manifest.len()])),
            began_ns: now_ns(),
            moved: (Mutex::new(()), Condvar::new()),
        }
    }

    /// Takes the stamp of `entry` (a folder's or a file's).
    fn take(&self, entry: &RecordEntry) -> u64 {
        let stamp = match entry {
            RecordEntry::Folder(f) => folder_stamp_at(self.root, &f.path, f.ignores),
            RecordEntry::File(f) => file_stamp_at(self.root, &f.path),
            RecordEntry::Skip(_) => None,
        };
        stamp.filter(|&s| s > FAILED).unwrap_or(FAILED)
    }

    /// Reads block `b` and takes its entries' stamps.
    fn fill(&self, b: usize) -> Filled {
        let block = self.manifest.load_block(b)?;
        let mut stamps = Vec::with_capacity(block.entries.len());
        for (i, entry) in block.entries.iter().enumerate() {
            let known = self.known.as_ref().and_then(|k| k.get(block.first + i));
            stamps.push(match known {
                Some(&v) if v != PENDING => v,
                _ => self.take(entry),
            });
        }
        Ok(Arc::new(Stamped {
            block: Arc::new(block),
            stamps,
        }))
    }

    /// Fills block `b`, claimed by this thread, for the other.
    fn fill_for_later(&self, b: usize) {
        let filled = self.fill(b);
        *self.slots[b]
            .filled
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(filled);
        self.slots[b].state.store(DONE, Ordering::Release);
        self.moved.1.notify_all();
    }

    /// Claims block `b`, unless a thread did.
    fn claim(&self, b: usize) -> bool {
        self.slots[b]
            .state
            .compare_exchange(FREE, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Claims the next block in order not claimed yet, within `AHEAD` of
    /// the query's thread.
    fn claim_next(&self) -> Option<usize> {
        loop {
            let b = self.next.load(Ordering::Acquire);
            if b >= self.slots.len() || b > self.reached.load(Ordering::Acquire) + AHEAD {
                return None;
            }
            if self
                .next
                .compare_exchange(b, b + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
                && self.claim(b)
            {
                return Some(b);
            }
        }
    }

    /// Waits a moment for the other thread.
    fn wait(&self) {
        let guard = self.moved.0.lock().unwrap_or_else(|p| p.into_inner());
        let _ = self
            .moved
            .1
            .wait_timeout(guard, Duration::from_millis(1))
            .unwrap_or_else(|p| p.into_inner());
    }

    /// Block `b` and its entries' stamps, for the query's thread: the
    /// helper's if it filled them, else filled here.
    ///
    /// # Errors
    ///
    /// The block's damage.
    pub(crate) fn block(&self, b: usize) -> Filled {
        if self.reached.fetch_max(b, Ordering::AcqRel) < b {
            self.moved.1.notify_all();
        }
        let filled = loop {
            match self.slots[b].state.load(Ordering::Acquire) {
                FREE => {
                    if self.claim(b) {
                        let filled = self.fill(b);
                        self.slots[b].state.store(DONE, Ordering::Release);
                        break filled;
                    }
                }
                DONE => {
                    let left = self.slots[b]
                        .filled
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .take();
                    break left.unwrap_or_else(|| self.fill(b));
                }
                // The helper is filling it: fill its next block meanwhile,
                // or wait for it.
                _ => match self.claim_next() {
                    Some(ahead) => self.fill_for_later(ahead),
                    None => self.wait(),
                },
            }
        };
        if let (Some(kept), Ok(stamped)) = (&self.kept, &filled) {
            let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
            let first = stamped.block.first;
            kept[first..first + stamped.stamps.len()].copy_from_slice(&stamped.stamps);
        }
        filled
    }

    /// The helper: claims and fills block after block, until stopped.
    pub(crate) fn help(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            match self.claim_next() {
                Some(b) => self.fill_for_later(b),
                None if self.next.load(Ordering::Acquire) >= self.slots.len() => return,
                None => self.wait(),
            }
        }
    }

    /// Stops the helper.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.moved.1.notify_all();
    }

    /// The stamps given out, by place (`PENDING` where none was), and
    /// when the first was taken; `None` unless kept.
    fn into_kept(self) -> Option<(Vec<u64>, u64)> {
        let kept = self.kept?.into_inner().unwrap_or_else(|p| p.into_inner());
        Some((kept, self.began_ns))
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
pub(crate) struct LastStamps(Mutex<Option<Kept>>);

/// The stamps of a generation, by place, and when they began to be taken.
#[derive(Debug)]
pub(crate) struct Kept {
    pub(crate) generation: u64,
    pub(crate) stamps: Vec<u64>,
    pub(crate) began_ns: u64,
}

impl LastStamps {
    /// Keeps what `stamps` gave out of `generation`.
    pub(crate) fn keep(&self, generation: u64, stamps: Stamps<'_>) {
        if let Some((stamps, began_ns)) = stamps.into_kept() {
            *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Kept {
                generation,
                stamps,
                began_ns,
            });
        }
    }

    /// The stamps kept of `generation`, given up.
    pub(crate) fn take(&self, generation: u64) -> Option<Kept> {
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match kept.take() {
            Some(k) if k.generation == generation => Some(k),
            _ => None,
        }
    }
}
