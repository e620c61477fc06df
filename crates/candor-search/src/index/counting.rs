//! The counting phase on several threads. Once a query only counts (its
//! page is full and it counts on, or it lists nothing), no budget stops a
//! file inside it, and a file's outcome no longer depends on the files
//! before it: the files the index finds are then gathered in batches,
//! searched by the tree's threads, and their outcomes handed on in path
//! order, as one thread would hand them on.
//!
//! A batch holds at most `BATCH_FILES` files to read and about
//! `BATCH_BYTES` of them, so what is held is bounded (outcomes that only
//! count, and a folder handle per file), and a stop (a spent budget of
//! files, the caller's cancellation, a count that reached its cap) is
//! seen within one batch: files of the batch past it are searched for
//! nothing, their outcomes dropped.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Index;
use crate::index::entries::Found;
use crate::index::parts::Parts;
use crate::index::traverse::{FileAt, FileDir};
use crate::seam::{FileOutcome, QuerySearch};
use crate::{SkipReason, SkippedInput};

/// The most files to read a batch holds.
const BATCH_FILES: usize = 64;
/// About the most bytes of files to read a batch holds (by their indexed
/// lengths; a file changed since counts none).
const BATCH_BYTES: u64 = 8 << 20;

/// An entry waiting in a batch, owning what it needs.
enum Waiting {
    File {
        path: String,
        place: Option<FileAt>,
        parts: Option<Parts>,
    },
    Skip(SkippedInput),
}

/// The entries gathered since the last batch was searched.
pub(crate) struct Batch {
    threads: usize,
    waiting: Vec<Waiting>,
    files: usize,
    bytes: u64,
    /// Each thread's read buffer, kept from batch to batch.
    buffers: Vec<Vec<u8>>,
}

impl Batch {
    /// An empty batch, to be searched on `threads` threads.
    pub(crate) fn new(threads: usize) -> Batch {
        Batch {
            threads: threads.max(1),
            waiting: Vec::new(),
            files: 0,
            bytes: 0,
            buffers: Vec::new(),
        }
    }

    /// Whether `found` may wait in a batch: once the search only counts,
    /// on more than one thread (a search that lists no lines is stopped
    /// inside a file by no budget, so a file's count does not depend on
    /// the files before it). The plan's start is never batched: it is
    /// found first, if at all, and no batch is begun before it.
    pub(crate) fn admits(&self, search: &QuerySearch<'_>) -> bool {
        self.threads > 1 && search.budgets.is_counting_only()
    }

    /// Adds `found` to the batch, and searches the batch when it is full.
    pub(crate) fn push(
        &mut self,
        index: &Index,
        search: &QuerySearch<'_>,
        found: Found<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        match found {
            Found::File {
                path,
                dir,
                len,
                parts,
            } => {
                let bytes = match &parts {
                    Some(parts) => parts.ranges.iter().map(|(a, b)| b - a).sum(),
                    None => len.unwrap_or(0),
                };
                self.wait_to_read(path, dir, parts, bytes);
            }
            // A count needs no outcome of it.
            Found::NoMatch { .. } => {}
            // When no file may be read, the engine says what it gives one.
            Found::Binary { path, dir } if search.budgets.refuses_files() => {
                self.wait_to_read(path, dir, None, 0);
            }
            Found::Binary { path, .. } => {
                let input = SkippedInput::new(path, SkipReason::Binary);
                if self.waiting.is_empty() {
                    return take(FileOutcome::Skipped(input));
                }
                self.waiting.push(Waiting::Skip(input));
            }
            // Nothing to read before it: handed on at once.
            Found::Skip(input) if self.waiting.is_empty() => {
                return take(FileOutcome::Skipped(input));
            }
            Found::Skip(input) => self.waiting.push(Waiting::Skip(input)),
        }
        if self.files >= BATCH_FILES || self.bytes >= BATCH_BYTES {
            return self.flush(index, search, take);
        }
        ControlFlow::Continue(())
    }

    /// Adds a file to read, `bytes` of it.
    fn wait_to_read(&mut self, path: &str, dir: &FileDir<'_>, parts: Option<Parts>, bytes: u64) {
        self.waiting.push(Waiting::File {
            path: path.to_owned(),
            place: dir.place(path),
            parts,
        });
        self.files += 1;
        self.bytes = self.bytes.saturating_add(bytes);
    }

    /// Searches the files waiting on the batch's threads, and hands every
    /// entry's outcome on in path order.
    pub(crate) fn flush(
        &mut self,
        index: &Index,
        search: &QuerySearch<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if self.waiting.is_empty() {
            return ControlFlow::Continue(());
        }
        let waiting = std::mem::take(&mut self.waiting);
        let threads = self.threads.min(self.files).max(1);
        (self.files, self.bytes) = (0, 0);
        self.buffers.resize_with(threads, Vec::new);
        let next = AtomicUsize::new(0);
        // Each thread takes the next file to read, in path order.
        let work = |buffer: &mut Vec<u8>, first: bool| {
            let own;
            let matcher = if first {
                search.plan.matcher
            } else {
                own = search.plan.matcher.clone();
                &own
            };
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = waiting.get(i) else { break };
                if search.budgets.is_stopped() {
                    break;
                }
                if let Waiting::File { path, place, parts } = entry {
                    let outcome = index.search_found(
                        search,
                        matcher,
                        path,
                        place.as_ref(),
                        parts.as_ref(),
                        buffer,
                    );
                    done.push((i, outcome.into_owned()));
                }
            }
            done
        };
        let work = &work;
        let (mine, rest) = self.buffers.split_first_mut().expect("one buffer at least");
        let mut done = std::thread::scope(|scope| {
            let handles: Vec<_> = rest
                .iter_mut()
                .map(|buffer| scope.spawn(move || work(buffer, false)))
                .collect();
            let mut done = work(mine, true);
            for handle in handles {
                let theirs = handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                done.extend(theirs);
            }
            done
        });
        // The outcomes in the order of their entries: each file's where it
        // waited, between the entries handed on as they are.
        done.sort_unstable_by_key(|(i, _)| *i);
        let mut done = done.into_iter().peekable();
        for (i, entry) in waiting.into_iter().enumerate() {
            let flow = match entry {
                Waiting::File { .. } => match done.next_if(|(at, _)| *at == i) {
                    Some((_, outcome)) => take(outcome),
                    // Not searched: the search was stopped.
                    None => ControlFlow::Break(()),
                },
                Waiting::Skip(input) => take(FileOutcome::Skipped(input)),
            };
            flow?;
        }
        ControlFlow::Continue(())
    }
}
