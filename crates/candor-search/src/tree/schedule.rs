//! The scheduler: the files of the walk searched in parallel, their
//! outcomes handed on in path order.
//!
//! The calling thread searches alone for a moment
//! (`Tree::start_threads_after`), which is all a capped query usually
//! needs, then starts the others. No thread is set aside for the walk: the
//! searchers share it (see `feed.rs`), and whichever needs work takes the
//! next chunk of files, then reads and searches them. The calling thread,
//! one of the searchers, releases their outcomes by number, so the caller
//! sees path order whatever the thread count. The moment the released
//! prefix holds `limit + 1` items, every thread stops: the cost of a
//! capped search is the work up to the cut, plus what was in flight.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::mpsc;
use std::thread::ThreadId;
use std::time::Instant;

use super::Tree;
use super::feed::{Chunk, Feed, FolderRoom, HeldLines, Next, PART, Window};
use crate::Error;
use crate::engine::{Budgets, FileOutcome, Plan, QuerySearch, Returns};
use crate::matcher::Matcher;
use crate::path::parse_position;
use crate::walk::{Job, Walk, WalkOptions};

/// A part's vector holds the outcomes of at most a chunk's files; each
/// thread keeps this many emptied ones.
const MAX_PART: usize = 64;
const KEPT_PARTS: usize = 4;

impl Tree {
    /// The walk of this tree under its own rules, resuming at `start`
    /// (names from the root) and within `filters` (normalized paths the
    /// caller named: the depth limit counts from each).
    pub(crate) fn walk_within<'p>(
        &'p self,
        start: Option<Vec<Vec<u8>>>,
        filters: &'p [String],
    ) -> Result<Walk<'p>, Error> {
        self.walk_with(start, filters, false)
    }

    /// The walk of this tree within `folders`, which the caller did not
    /// name (an index walking them again): as the whole tree's walk meets
    /// them, the depth limit counted from the root.
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) fn walk_folders<'p>(
        &'p self,
        start: Option<Vec<Vec<u8>>>,
        folders: &'p [String],
    ) -> Result<Walk<'p>, Error> {
        self.walk_with(start, folders, true)
    }

    fn walk_with<'p>(
        &'p self,
        start: Option<Vec<Vec<u8>>>,
        filters: &'p [String],
        depth_from_root: bool,
    ) -> Result<Walk<'p>, Error> {
        Walk::new(WalkOptions {
            root: &self.root,
            root_dir: &self.root_dir,
            hidden: self.hidden,
            gitignore: self.gitignore,
            parent_ignores: self.parent_ignores,
            follow_links: self.follow_links,
            globs: &self.globs,
            start,
            filters,
            max_depth: self.max_depth,
            depth_from_root,
        })
    }

    /// The files to search, and the inputs the walk leaves out, in path
    /// order.
    pub(super) fn jobs<'p>(
        &'p self,
        plan: &'p Plan<'p>,
    ) -> Result<impl Iterator<Item = Job> + 'p, Error> {
        // A position `check_position` accepted.
        let start = plan.start.as_ref().and_then(|p| parse_position(&p.path));
        let walk = self.walk_within(start, &plan.filters)?;
        Ok(walk)
    }

    /// Hands the outcome of each file of the walk, in path order, to
    /// `take`, until it breaks or the files run out.
    pub(super) fn schedule(
        &self,
        search: &QuerySearch<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let budgets = &search.budgets;
        let window = Window::new();
        let jobs = self.jobs(&search.plan)?;
        let room = FolderRoom::of_process(&self.root_dir);
        let feed = Feed::new(jobs.take_while(|_| !budgets.is_stopped()), room);
        // Alone at first (with one thread, throughout): a search that ends
        // within `self.solo` (a capped query, a small tree) starts no
        // thread at all.
        let mut next = 0u64;
        let mut buffer = Vec::new();
        if self.search_alone(search, &feed, &window, take, &mut next, &mut buffer) {
            return Ok(());
        }
        // Now in parallel. No thread is set aside for the walk: whichever
        // searcher needs work takes the next chunk of files from the feed
        // (walking on when it runs low). The calling thread releases
        // outcomes in order and, while the next one is not ready, searches
        // chunks itself: it is one of the `threads` searchers, beside
        // `threads - 1` workers.
        let workers = self.threads - 1;
        let (out_tx, out_rx) = mpsc::channel::<NumberedPart>();
        // The parts' vectors, emptied by this thread, go back to the
        // thread that filled them (see `Returns`).
        let parts: Returns<Vec<FileOutcome<'static>>> =
            Returns::new(KEPT_PARTS * MAX_PART, MAX_PART, Vec::capacity);
        // Searches the next files of a chunk, until they hold about
        // `PART`'s matching lines or bytes: a chunk of files that match on
        // many lines is handed on in parts, not held whole until its last
        // file.
        let search_part = |jobs: &mut Chunk<'_>,
                           matcher: &Matcher,
                           buffer: &mut Vec<u8>|
         -> Vec<FileOutcome<'static>> {
            let mut outcomes = parts.take().unwrap_or_default();
            let mut held = HeldLines::default();
            while !held.reaches(PART) {
                // Once stopped, nobody reads the rest of the chunk.
                if budgets.is_stopped() {
                    break;
                }
                let Some(job) = jobs.next() else { break };
                let outcome = self.outcome(search, matcher, job, buffer);
                held.add(&outcome);
                outcomes.push(outcome);
            }
            outcomes
        };
        feed.walk_ahead();
        let searchers = &Searchers {
            feed: &feed,
            window: &window,
            budgets,
            search_part,
        };
        std::thread::scope(|scope| {
            let window = &window;
            // However this thread leaves the scope, even by a panic in
            // `take`, the workers must stop, or the scope would wait for
            // them forever (one may wait for the window to move).
            let _stop = StopOnDrop {
                budgets,
                window,
                only_on_panic: false,
            };
            for _ in 0..workers {
                let out_tx = out_tx.clone();
                scope.spawn(move || {
                    // A worker that panics (a bug) stops the others, which
                    // could wait for its chunk forever; the scope then
                    // hands the panic on.
                    let _stop = StopOnDrop {
                        budgets,
                        window,
                        only_on_panic: true,
                    };
                    let matcher = search.plan.matcher.clone();
                    search_chunks(searchers, &out_tx, &matcher);
                });
            }
            drop(out_tx);
            let matcher = search.plan.matcher;
            release_in_order(searchers, &out_rx, &parts, matcher, take, next, &mut buffer);
        });
        Ok(())
    }

    /// The search's start, on the calling thread alone: the outcomes of
    /// the feed's chunks, taken as soon as each is known, until the
    /// search ends (true) or `solo` has passed with files left (false:
    /// the others start). `next` counts the files taken.
    fn search_alone<I: Iterator<Item = Job>>(
        &self,
        search: &QuerySearch<'_>,
        feed: &Feed<I>,
        window: &Window,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
        next: &mut u64,
        buffer: &mut Vec<u8>,
    ) -> bool {
        let budgets = &search.budgets;
        let solo_until = (self.threads > 1).then(|| Instant::now() + self.solo);
        loop {
            match feed.next_chunk(window, budgets) {
                Next::Chunk(_, chunk) => {
                    // Each outcome is taken as soon as it is known: the
                    // search may end in the middle of the chunk.
                    for job in chunk {
                        *next += 1;
                        let outcome = self.outcome(search, search.plan.matcher, job, buffer);
                        if take(outcome).is_break() {
                            budgets.stop();
                            return true;
                        }
                    }
                    window.release(*next, &[]);
                }
                Next::Done => return true,
                // Not while alone: every chunk taken is released at once.
                Next::Full(_) => return false,
            }
            if solo_until.is_some_and(|until| Instant::now() >= until) {
                return false;
            }
        }
    }
}

/// A part of a chunk's outcomes, as a worker sends it to the releasing
/// thread: its first file's number, the thread that filled its vector
/// (which gets the vector back, see `Returns`), and the outcomes.
type NumberedPart = (u64, ThreadId, Vec<FileOutcome<'static>>);

/// What every searching thread shares: the feed of files, the window of
/// outcomes in flight, the budgets, and the search of a chunk's next
/// part (until it holds about `PART`'s matching lines or bytes).
struct Searchers<'a, I: Iterator<Item = Job>, F> {
    feed: &'a Feed<I>,
    window: &'a Window,
    budgets: &'a Budgets,
    search_part: F,
}

/// A worker's loop: takes the feed's next chunk of files as the window
/// admits it, searches it part by part, and sends each part's outcomes,
/// numbered, to the releasing thread; until the feed runs out, the
/// search stops or nobody receives.
fn search_chunks<I, F>(
    searchers: &Searchers<'_, I, F>,
    out_tx: &mpsc::Sender<NumberedPart>,
    matcher: &Matcher,
) where
    I: Iterator<Item = Job>,
    F: Fn(&mut Chunk<'_>, &Matcher, &mut Vec<u8>) -> Vec<FileOutcome<'static>>,
{
    let Searchers {
        feed,
        window,
        budgets,
        search_part,
    } = searchers;
    let mut buffer = Vec::new();
    let me = std::thread::current().id();
    loop {
        let (mut seq, mut jobs) = match feed.next_chunk(window, budgets) {
            Next::Chunk(seq, chunk) => (seq, chunk),
            Next::Full(seq) => {
                window.wait_for(seq, budgets);
                continue;
            }
            Next::Done => return,
        };
        while jobs.len() > 0 {
            // Past the release point with too many lines held, the next
            // part waits, as a new chunk would: a chunk admitted whole is
            // not held whole.
            window.wait_for(seq, budgets);
            if budgets.is_stopped() {
                return;
            }
            let part = search_part(&mut jobs, matcher, &mut buffer);
            if budgets.is_stopped() {
                return;
            }
            window.hold(&part);
            let sent = part.len() as u64;
            if out_tx.send((seq, me, part)).is_err() {
                return;
            }
            seq += sent;
        }
    }
}

/// The calling thread's loop once the workers run: releases the
/// outcomes in order to `take` (from `next` on), and while the next one
/// is not ready, searches chunks of the feed itself, part by part, as the
/// window admits them; until `take` breaks or every outcome is released.
fn release_in_order<I, F>(
    searchers: &Searchers<'_, I, F>,
    out_rx: &mpsc::Receiver<NumberedPart>,
    parts: &Returns<Vec<FileOutcome<'static>>>,
    matcher: &Matcher,
    take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    mut next: u64,
    buffer: &mut Vec<u8>,
) where
    I: Iterator<Item = Job>,
    F: Fn(&mut Chunk<'_>, &Matcher, &mut Vec<u8>) -> Vec<FileOutcome<'static>>,
{
    let Searchers {
        feed,
        window,
        budgets,
        search_part,
    } = searchers;
    let mut held: BTreeMap<u64, (ThreadId, Vec<FileOutcome<'static>>)> = BTreeMap::new();
    let me = std::thread::current().id();
    let mut feed_open = true;
    // The chunk this thread searches itself, part by part, between
    // releases: its first file's number, and the files left.
    let mut own: Option<(u64, Chunk<'_>)> = None;
    loop {
        while let Some((owner, mut outcomes)) = held.remove(&next) {
            next += outcomes.len() as u64;
            window.release(next, &outcomes);
            for outcome in outcomes.drain(..) {
                if take(outcome).is_break() {
                    budgets.stop();
                    return;
                }
            }
            parts.give(owner, outcomes);
        }
        if let Ok((seq, owner, outcomes)) = out_rx.try_recv() {
            held.insert(seq, (owner, outcomes));
            continue;
        }
        if let Some((seq, jobs)) = &mut own {
            // The next part waits, as the workers' do, until the
            // window admits it: past the release point with too
            // many lines held, for the others' outcomes.
            if window.admits(*seq) || budgets.is_stopped() {
                let part = search_part(jobs, matcher, buffer);
                window.hold(&part);
                let at = *seq;
                *seq += part.len() as u64;
                if jobs.len() == 0 || budgets.is_stopped() {
                    own = None;
                }
                if !part.is_empty() {
                    held.insert(at, (me, part));
                }
                continue;
            }
        } else if feed_open {
            match feed.next_chunk(window, budgets) {
                Next::Chunk(seq, chunk) => {
                    own = Some((seq, chunk));
                    continue;
                }
                Next::Done => feed_open = false,
                // The window is full: the chunk it waits for is in
                // a worker's hands, and comes through the channel.
                Next::Full(_) => {}
            }
        }
        match out_rx.recv() {
            Ok((seq, owner, outcomes)) => {
                held.insert(seq, (owner, outcomes));
            }
            // Every worker has ended. Whatever the feed still holds
            // is searched here; otherwise what is held is all that
            // remains.
            Err(_) if feed_open || own.is_some() => {}
            Err(_) if held.contains_key(&next) => {}
            Err(_) => break,
        }
    }
}

/// Stops the search and wakes whoever waits for the window, when dropped
/// (with `only_on_panic`, only when dropped by a panic).
struct StopOnDrop<'a> {
    budgets: &'a Budgets,
    window: &'a Window,
    only_on_panic: bool,
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if self.only_on_panic && !std::thread::panicking() {
            return;
        }
        self.budgets.stop();
        self.window.release_all();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::Ordering as AtomicOrdering;
    use std::time::Duration;

    use super::super::{Hook, tree_with};
    use crate::{Corpus, Limits, Query};

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let files: Vec<(String, String)> = (0..600)
            .map(|i| (format!("d{:02}/f{i:03}.txt", i % 20), "hit\n".to_owned()))
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let (_dir, mut tree) = tree_with(&refs);
        tree.threads = 4;
        tree.solo = Duration::ZERO;
        // Whichever thread reads it, one early file panics; the others go
        // on until the window is full, and must be stopped.
        tree.before_read = Some(Hook(Arc::new(|path: &Path| {
            assert!(!path.ends_with("d05/f005.txt"), "a bug while reading");
        })));
        for _ in 0..5 {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tree.search(&Query::literal("hit"), &Limits::new(), None)
            }));
            assert!(outcome.is_err(), "the panic comes back to the caller");
        }
    }

    #[test]
    fn a_capped_search_stops_early_and_keeps_path_order() {
        let files: Vec<(String, String)> = (0..300)
            .map(|i| (format!("d{}/f{:03}.txt", i % 7, i), "hit\n".repeat(3)))
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let (_dir, tree) = tree_with(&refs);
        let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut first = None;
        for threads in [1, 2, 8] {
            let counter = Arc::clone(&read);
            counter.store(0, AtomicOrdering::SeqCst);
            let mut tree = tree
                .clone()
                .threads(threads)
                .start_threads_after(Duration::ZERO);
            tree.before_read = Some(Hook(Arc::new(move |_: &Path| {
                counter.fetch_add(1, AtomicOrdering::SeqCst);
            })));
            let found = tree
                .search(&Query::literal("hit"), &Limits::new().limit(10), None)
                .unwrap();
            assert_eq!(found.len(), 10);
            assert!(found.completeness().is_truncated_by_limit());
            // 4 files hold the first 11 lines; the rest is what was in flight.
            let files_read = read.load(AtomicOrdering::SeqCst);
            assert!(files_read < 300, "read {files_read} files for 11 lines");
            let items = found.items().to_vec();
            match &first {
                None => first = Some(items),
                Some(f) => assert_eq!(f, &items, "threads {threads}"),
            }
        }
    }
}
