//! The walk shared by the searchers: its files numbered in path order and
//! handed out in chunks from a queue, which whichever searcher finds it
//! running low refills by walking on; and the window that keeps the walk
//! at most `WINDOW` files ahead of the oldest outcome not yet released,
//! and the outcomes held past it under `HELD_LINES` matching lines and
//! `HELD_BYTES` bytes. The
//! files waiting to be searched hold their folders' handles: the walk
//! also stops running ahead once they hold about `FolderRoom::most`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

use crate::confine::{self, DirHandle};
use crate::engine::{self, Budgets, FileOutcome, Hits};
use crate::walk::Job;

/// How far ahead of the oldest unreleased file the walk may run, in
/// files: bounds the outcomes held for reordering.
const WINDOW: u64 = 256;

/// How many matching lines the outcomes held for reordering may hold
/// before the searchers wait for the release point to move: many files in
/// a row that match on many lines would otherwise be held whole, up to
/// `WINDOW` of them.
const HELD_LINES: u64 = 1 << 14;

/// How many bytes those lines may take (as `PackedLines::bytes` counts
/// them): lines of 64 KiB would otherwise be held 16,384 at a time.
/// Source code's lines reach `HELD_LINES` first, at about 2.5 MB.
const HELD_BYTES: u64 = 4 << 20;

/// A searcher hands on a chunk's outcomes in parts of this many matching
/// lines or bytes (or its last files'), so that one chunk is not held
/// whole; one file's search hands on its lines in parts of as many.
pub(super) const PART: HeldLines = HeldLines {
    lines: engine::PART_LINES as u64,
    bytes: engine::PART_BYTES as u64,
};

/// The most files handed to a worker at once. Chunks start at one file
/// and double, so the first results come at once, and later ones cost
/// few hand-offs between threads.
const MAX_CHUNK: usize = 32;

/// Lets the walk run at most `WINDOW` files ahead of the release point.
pub(super) struct Window {
    released: AtomicU64,
    /// Matching lines searched past the release point, not yet released,
    /// and their bytes.
    held_lines: AtomicU64,
    held_bytes: AtomicU64,
    /// How many searchers wait for the release point to move.
    waiting: AtomicUsize,
    lock: Mutex<()>,
    moved: Condvar,
}

impl Window {
    pub(super) fn new() -> Window {
        Window {
            released: AtomicU64::new(0),
            held_lines: AtomicU64::new(0),
            held_bytes: AtomicU64::new(0),
            waiting: AtomicUsize::new(0),
            lock: Mutex::new(()),
            moved: Condvar::new(),
        }
    }

    /// Returns true when file number `seq` may be taken now: the next
    /// chunk, or the next part of a chunk taken before.
    pub(super) fn admits(&self, seq: u64) -> bool {
        self.admits_with(seq, AtomicOrdering::Acquire)
    }

    /// The file at the release point is always admitted: nothing past it
    /// is held then, and the search must go on.
    fn admits_with(&self, seq: u64, order: AtomicOrdering) -> bool {
        let released = self.released.load(order);
        seq < released + WINDOW
            && (seq == released
                || (self.held_lines.load(order) < HELD_LINES
                    && self.held_bytes.load(order) < HELD_BYTES))
    }

    /// Counts the matching lines of outcomes held until their release.
    pub(super) fn hold(&self, outcomes: &[FileOutcome<'_>]) {
        let held = HeldLines::of(outcomes);
        self.held_lines
            .fetch_add(held.lines, AtomicOrdering::SeqCst);
        self.held_bytes
            .fetch_add(held.bytes, AtomicOrdering::SeqCst);
    }

    /// Blocks until file number `seq` may be taken, or the search stops.
    pub(super) fn wait_for(&self, seq: u64, budgets: &Budgets) {
        if self.admits(seq) {
            return;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.waiting.fetch_add(1, AtomicOrdering::SeqCst);
        while !self.admits_with(seq, AtomicOrdering::SeqCst) && !budgets.is_stopped() {
            guard = self.moved.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
        self.waiting.fetch_sub(1, AtomicOrdering::SeqCst);
    }

    /// Moves the release point to file number `next`, past `outcomes`
    /// (those held), waking the searchers that wait for it.
    pub(super) fn release(&self, next: u64, outcomes: &[FileOutcome<'_>]) {
        let held = HeldLines::of(outcomes);
        self.held_lines
            .fetch_sub(held.lines, AtomicOrdering::SeqCst);
        self.held_bytes
            .fetch_sub(held.bytes, AtomicOrdering::SeqCst);
        self.released.store(next, AtomicOrdering::SeqCst);
        // Waking costs a system call: only when a searcher waits.
        if self.waiting.load(AtomicOrdering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.moved.notify_all();
        }
    }

    /// Lets every searcher go, whatever number it waits for: the search
    /// stops.
    pub(super) fn release_all(&self) {
        self.release(u64::MAX - WINDOW, &[]);
    }
}

/// The matching lines of outcomes, and their bytes.
#[derive(Clone, Copy, Default)]
pub(super) struct HeldLines {
    pub(super) lines: u64,
    pub(super) bytes: u64,
}

impl HeldLines {
    pub(super) fn of(outcomes: &[FileOutcome<'_>]) -> HeldLines {
        let mut held = HeldLines::default();
        for outcome in outcomes {
            if let FileOutcome::Searched {
                hits: Hits::Lines { items, .. },
                ..
            } = outcome
            {
                held.lines += items.len() as u64;
                held.bytes += items.bytes() as u64;
            }
        }
        held
    }

    /// Adds what `outcome` holds.
    pub(super) fn add(&mut self, outcome: &FileOutcome<'_>) {
        let more = HeldLines::of(std::slice::from_ref(outcome));
        self.lines += more.lines;
        self.bytes += more.bytes;
    }

    /// Returns true when either reaches `max`'s.
    pub(super) fn reaches(self, max: HeldLines) -> bool {
        self.lines >= max.lines || self.bytes >= max.bytes
    }
}

/// The walk, shared by the searchers: each takes its next chunk of files
/// from a queue, numbered in path order, and whichever finds the queue
/// running low walks on to refill it. The walk has its own lock, so the
/// others keep taking queued files while one walks.
pub(super) struct Feed<I: Iterator<Item = Job>> {
    queue: Mutex<Queue>,
    walk: Mutex<Walking<I>>,
    /// The folders whose handles the jobs queued or handed out and not
    /// yet searched hold (counted as the walk moves from folder to
    /// folder; a chunk gives its count back when dropped).
    folders: AtomicUsize,
    /// How many jobs to keep queued ahead: none while the calling thread
    /// searches alone (walking ahead would be wasted if the search ends
    /// soon), `LOW_WATER` once others search too.
    ahead: AtomicUsize,
    /// How many folders the jobs waiting may span, and one chunk.
    room: FolderRoom,
}

/// The walk, and the folder of the last job it gave.
struct Walking<I> {
    jobs: I,
    last: Option<Arc<DirHandle>>,
}

struct Queue {
    /// The jobs, each with whether it is the first of its folder.
    jobs: VecDeque<(Job, bool)>,
    /// The number of the queue's first job.
    seq: u64,
    /// The next chunk's size: it starts at one file and doubles up to
    /// `MAX_CHUNK`, so the first results come at once and later ones cost
    /// few hand-offs.
    size: usize,
    /// The walk is over: what is queued is all that is left.
    done: bool,
}

/// Below this many queued jobs, the searcher that takes a chunk walks on
/// (if no other searcher is walking). Deep enough that a searcher seldom
/// finds the queue empty while another walks: each time it does, it
/// sleeps until the walk hands on its jobs.
const LOW_WATER: usize = 8 * MAX_CHUNK;

/// How many jobs one refill walks.
const REFILL: usize = 4 * MAX_CHUNK;

/// The size of the descriptor table a process asks for, once (see
/// `FolderRoom::of_process`).
const TABLE: usize = 256;

/// How far ahead the walk may run in folders: about how many folders the
/// jobs not yet searched may span before it stops (each job holds its
/// folder's handle), and the most one chunk's files may span, a share of
/// that, so that the walk can queue files for the other searchers while
/// a chunk is searched.
///
/// The kernel gives a process a table of 64 handles, and grows it when a
/// handle numbered past it is opened; in a process with several threads
/// each growth waits for the others (an RCU grace period): 10 to 20 ms on
/// a small machine, as long as a tenth of a whole search. A process asks
/// for a table of `TABLE` once (a table never shrinks), by duplicating a
/// handle at that number, when it makes its first tree: a command line
/// tool has one thread then, and the growth costs no wait at all. With
/// that room the walk runs further ahead, and the searchers seldom wait
/// for it. Without it (a limit of fewer handles), the walk stays within
/// the 64: with its own 24 folders (see
/// `walk/handles.rs`), the files being read (one per thread, and one for
/// each file whose search goes on in parts) and the standard streams, a
/// search on a few threads stays under 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FolderRoom {
    pub(super) most: usize,
    pub(super) chunk: usize,
}

impl FolderRoom {
    /// Within the table a process starts with.
    pub(super) const SMALL: FolderRoom = FolderRoom { most: 28, chunk: 3 };
    /// Within a table of `TABLE`, beside the walk's own folders, the
    /// files being read and what the process holds itself.
    pub(super) const LARGE: FolderRoom = FolderRoom {
        most: 120,
        chunk: 8,
    };

    /// The room this process has for a search: `LARGE` once its table has
    /// room for `TABLE` handles, else `SMALL`. Asked for through `dir`
    /// once per process, when the first tree is made (see `Tree::new`).
    pub(super) fn of_process(dir: &DirHandle) -> FolderRoom {
        static RESERVED: OnceLock<bool> = OnceLock::new();
        if *RESERVED.get_or_init(|| confine::reserve_descriptors(dir, TABLE)) {
            FolderRoom::LARGE
        } else {
            FolderRoom::SMALL
        }
    }
}

impl<I: Iterator<Item = Job>> Feed<I> {
    /// The feed of `jobs`, queued within `room`.
    pub(super) fn new(jobs: I, room: FolderRoom) -> Feed<I> {
        Feed {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                seq: 0,
                size: 1,
                done: false,
            }),
            walk: Mutex::new(Walking { jobs, last: None }),
            folders: AtomicUsize::new(0),
            ahead: AtomicUsize::new(0),
            room,
        }
    }

    /// From now on, keep `LOW_WATER` jobs queued for the searchers.
    pub(super) fn walk_ahead(&self) {
        self.ahead.store(LOW_WATER, AtomicOrdering::Relaxed);
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Walks on while the queue runs low, and the jobs not yet searched
    /// span fewer than `room.most` folders (or nothing is queued: the
    /// search must go on). The walk's lock is held until the jobs are
    /// queued, so they are queued in walk order.
    fn refill(&self, mut walk: MutexGuard<'_, Walking<I>>, budgets: &Budgets) {
        loop {
            // Early on, walk just ahead of the chunks, which start small:
            // the first file is searched at once.
            let (want, queued) = {
                let queue = self.queue();
                let floor = self.ahead.load(AtomicOrdering::Relaxed).max(1);
                if queue.done || queue.jobs.len() >= floor || budgets.is_stopped() {
                    return;
                }
                ((2 * queue.size).min(REFILL), queue.jobs.len())
            };
            let mut batch = Vec::with_capacity(want);
            let mut ended = false;
            let mut bounded = false;
            while batch.len() < want {
                if queued + batch.len() > 0
                    && self.folders.load(AtomicOrdering::Relaxed) >= self.room.most
                {
                    bounded = true;
                    break;
                }
                let Some(job) = walk.jobs.next() else {
                    ended = true;
                    break;
                };
                let first = match &job {
                    Job::File { dir, .. } => {
                        let first = !walk
                            .last
                            .as_ref()
                            .is_some_and(|last| Arc::ptr_eq(last, dir));
                        if first {
                            walk.last = Some(Arc::clone(dir));
                            self.folders.fetch_add(1, AtomicOrdering::Relaxed);
                        }
                        first
                    }
                    Job::Skip(_) => false,
                };
                batch.push((job, first));
            }
            let mut queue = self.queue();
            queue.done = ended;
            queue.jobs.extend(batch);
            if bounded {
                return;
            }
        }
    }

    /// The next chunk of jobs to search.
    pub(super) fn next_chunk(&self, window: &Window, budgets: &Budgets) -> Next<'_> {
        loop {
            if budgets.is_stopped() {
                return Next::Done;
            }
            {
                let mut queue = self.queue();
                if !queue.jobs.is_empty() {
                    let seq = queue.seq;
                    if !window.admits(seq) {
                        return Next::Full(seq);
                    }
                    // At most `size` files, spanning at most
                    // `room.chunk` folders: a chunk of many small
                    // folders would hold the walk's whole allowance
                    // (`room.most`), and the other searchers would get
                    // a file at a time.
                    let mut n = 0;
                    let mut folders = 0;
                    for (_, first) in queue.jobs.iter().take(queue.size) {
                        if *first && folders == self.room.chunk {
                            break;
                        }
                        folders += usize::from(*first);
                        n += 1;
                    }
                    let jobs: Vec<Job> = queue.jobs.drain(..n).map(|(job, _)| job).collect();
                    let chunk = Chunk {
                        jobs: jobs.into_iter(),
                        folders,
                        held: &self.folders,
                    };
                    queue.seq += n as u64;
                    queue.size = (queue.size * 2).min(MAX_CHUNK);
                    let low =
                        !queue.done && queue.jobs.len() < self.ahead.load(AtomicOrdering::Relaxed);
                    drop(queue);
                    // Walk ahead now, so that the others find files queued;
                    // not if another searcher is walking already.
                    if low {
                        if let Ok(walk) = self.walk.try_lock() {
                            self.refill(walk, budgets);
                        }
                    }
                    return Next::Chunk(seq, chunk);
                }
                if queue.done {
                    return Next::Done;
                }
            }
            // Nothing queued: walk, or wait for the searcher that walks.
            let walk = self.walk.lock().unwrap_or_else(|p| p.into_inner());
            self.refill(walk, budgets);
        }
    }
}

/// Jobs handed to a searcher, in walk order: the folders they span count
/// against `room.most` until the chunk is dropped.
pub(super) struct Chunk<'f> {
    jobs: std::vec::IntoIter<Job>,
    folders: usize,
    held: &'f AtomicUsize,
}

impl Chunk<'_> {
    /// How many jobs are left.
    pub(super) fn len(&self) -> usize {
        self.jobs.len()
    }
}

impl Iterator for Chunk<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        self.jobs.next()
    }
}

impl Drop for Chunk<'_> {
    fn drop(&mut self) {
        self.held.fetch_sub(self.folders, AtomicOrdering::Relaxed);
    }
}

/// What a searcher gets when it asks the feed for work.
pub(super) enum Next<'f> {
    /// The chunk's first number, and its jobs.
    Chunk(u64, Chunk<'f>),
    /// The window is full: the next chunk, numbered `.0`, must wait for
    /// the release point to move.
    Full(u64),
    /// The walk is over, or the search stopped.
    Done,
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
    use std::time::Duration;

    use super::{FolderRoom, TABLE};
    use crate::tree::{Hook, tree_with};
    use crate::walk::MAX_HANDLES;
    use crate::{Corpus, Limits, Query};

    /// The handles this process holds open on folders within `root`.
    #[cfg(target_os = "linux")]
    fn folders_open_within(root: &Path) -> usize {
        let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
            return 0;
        };
        fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .filter(|target| target.starts_with(root) && target.is_dir())
            .count()
    }

    /// Searches a tree holding `hit` once in each of `paths` on `threads`
    /// threads, and returns the most folder handles open within it that
    /// were seen as each file was read.
    #[cfg(target_os = "linux")]
    fn most_folders_open(paths: &[String], threads: usize) -> usize {
        let files: Vec<(&str, &str)> = paths.iter().map(|p| (p.as_str(), "hit\n")).collect();
        let (dir, tree) = tree_with(&files);
        let root = dir.path().canonicalize().unwrap();
        let most = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&most);
        let mut tree = tree.threads(threads).start_threads_after(Duration::ZERO);
        tree.before_read = Some(Hook(Arc::new(move |_: &Path| {
            seen.fetch_max(folders_open_within(&root), AtomicOrdering::SeqCst);
        })));
        let found = tree
            .search(&Query::literal("hit"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), paths.len());
        most.load(AtomicOrdering::SeqCst)
    }

    /// The paths of one file in each of `folders` folders, two levels
    /// deep, 20 to a folder above them.
    #[cfg(target_os = "linux")]
    fn one_file_in_each_of(folders: usize) -> Vec<String> {
        (0..folders)
            .map(|i| format!("a{:02}/b{i:03}/f.txt", i / 20))
            .collect()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn jobs_waiting_in_many_small_folders_hold_a_bounded_number_of_handles() {
        // One file in each of 400 folders, two levels deep: a walk running
        // ahead unbounded would hold a handle for each folder it queued.
        let paths = one_file_in_each_of(400);
        for threads in [1, 2, 4] {
            let most = most_folders_open(&paths, threads);
            // The bound, the walk's own folders (root, a, b) and a chunk
            // per thread begun in a folder counted by the one before: well
            // under the table the search counts on.
            let room = FolderRoom::LARGE;
            let bound = room.most + 3 + threads;
            assert!(
                most <= bound,
                "{threads} threads: {most} folder handles open, bound {bound}"
            );
            assert!(
                most < TABLE / 2,
                "{threads} threads: {most} folder handles open"
            );
            assert!(most > 2, "the hook saw the walk's folders");
        }
    }

    /// The number the kernel states after `label` in `/proc/self/<file>`
    /// (the first, for a line of several).
    #[cfg(target_os = "linux")]
    fn proc_number(file: &str, label: &str) -> Option<usize> {
        let text = std::fs::read_to_string(Path::new("/proc/self").join(file)).ok()?;
        text.lines()
            .find_map(|line| line.strip_prefix(label))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_parallel_search_has_room_for_its_handles_without_growing_the_table() {
        let most = most_folders_open(&one_file_in_each_of(300), 4);
        // The table was grown once, to `TABLE`, when the tree was made
        // (unless a limit on handles refused it): what the search holds
        // fits, so it never grows while the threads run.
        let allowed = proc_number("limits", "Max open files").unwrap_or(usize::MAX);
        let table = proc_number("status", "FDSize:").expect("the table's size");
        if allowed >= TABLE {
            assert!(table >= TABLE, "the table holds {table} descriptors");
        }
        assert!(most < TABLE / 2, "{most} folder handles open");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_deep_tree_of_many_small_folders_holds_a_bounded_number_of_handles() {
        // The walk's own folders (40 levels) and those of the files
        // waiting to be searched (one in each of 200 folders at the bottom)
        // share the budget.
        let deep = "d/".repeat(40);
        let paths: Vec<String> = (0..200).map(|i| format!("{deep}w{i:03}/f.txt")).collect();
        for threads in [1, 4] {
            let most = most_folders_open(&paths, threads);
            let room = FolderRoom::LARGE.most + MAX_HANDLES + threads + 3;
            assert!(
                most <= room,
                "{threads} threads: {most} folder handles open"
            );
            assert!(most > 20, "the hook saw the walk's folders");
        }
    }

    #[test]
    fn the_small_room_keeps_a_search_within_the_table_a_process_starts_with() {
        // The walk's own folders, those of the files waiting, a chunk
        // per thread and a file read by each of a few threads, and the
        // standard streams.
        let threads = 4;
        let handles = MAX_HANDLES + FolderRoom::SMALL.most + 2 * threads + 3;
        assert!(handles <= 64, "{handles} handles");
        // The same with the large room, on 32 threads, within `TABLE`.
        let handles = MAX_HANDLES + FolderRoom::LARGE.most + 2 * 32 + 3;
        assert!(handles <= TABLE, "{handles} handles");
    }
}
