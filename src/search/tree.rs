//! The directory-tree corpus: files on disk, walked in path order (see
//! `walk.rs`) and searched in parallel.
//!
//! The walk goes depth-first with each folder's entries sorted by name
//! (which is path order) and numbers the files. The calling thread
//! searches alone for a moment (`Tree::start_threads_after`), which is all
//! a capped query usually needs, then starts the others. No thread is set
//! aside for the walk: the searchers share it, and whichever needs work
//! takes the next chunk of files, then reads and searches them. The
//! calling thread, one of the searchers, releases their outcomes by
//! number, so the caller sees path order whatever the thread count. The moment the released prefix
//! holds `limit + 1` items, every thread stops: the cost of a capped
//! search is the work up to the cut, plus what was in flight.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::{Error, ErrorKind};
use crate::search::engine::{FileOutcome, Plan, search_opened};
use crate::search::matcher::Matcher;
use crate::search::path::normalize;
use crate::search::reader::{AfterRead, Opened, ReadRules};
use crate::search::walk::{Job, Walk, WalkOptions};
use crate::search::{Resolved, Source};
use crate::{Fingerprint, SkipReason, SkippedInput};

/// How far ahead of the oldest unreleased file the walk may run, in
/// files: bounds the outcomes held for reordering.
const WINDOW: u64 = 256;

/// A directory tree on disk, searched in parallel and in path order.
///
/// `.gitignore`, `.ignore` and `.git/info/exclude` are respected (in a git
/// repository or not, with the `ignore` crate's rule matching), hidden
/// files and folders are left out, and include/exclude globs apply, each
/// configurable. What the ignore files and the hidden-file rule leave out
/// is counted in `skipped` as `ignored` and `hidden` (policy: the result
/// stays complete), a folder counting once; what the caller's globs and
/// path filters leave out is the query's scope and is not counted.
/// Symbolic links are followed only while they stay inside the root; a
/// link out of the root, a broken link and a link loop are counted in
/// `skipped`. Nothing outside the root is ever read.
///
/// # Example
///
/// ```
/// use candor::{Corpus, Limits, Query, Tree};
/// # let dir = tempfile::tempdir()?;
/// # std::fs::create_dir(dir.path().join("src"))?;
/// # std::fs::write(dir.path().join("src/lib.rs"), "pub fn parse() {}\nfn helper() {}\n")?;
/// let tree = Tree::new(dir.path())?.threads(2);
/// let found = tree.search(&Query::regex(r"fn \w+"), &Limits::new().limit(100), None)?;
/// assert_eq!(found.items()[0].path, "src/lib.rs");
/// assert!(found.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Tree {
    root: PathBuf,
    hidden: bool,
    gitignore: bool,
    globs: Vec<String>,
    max_file_size: Option<u64>,
    threads: usize,
    solo: Duration,
    #[cfg(test)]
    before_read: Option<Hook>,
    /// Run after each read of a file, for tests that change it mid-read.
    #[cfg(test)]
    after_read: Option<Hook>,
    /// Smaller buffers, for tests of files larger than one block.
    #[cfg(test)]
    rules: Option<ReadRules>,
}

/// A test hook run before each file is read (to make it vanish, say).
#[cfg(test)]
#[derive(Clone)]
struct Hook(std::sync::Arc<dyn Fn(&Path) + Send + Sync>);

#[cfg(test)]
impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hook")
    }
}

impl Tree {
    /// The tree under `root`, a folder.
    ///
    /// Defaults: hidden files left out, ignore files respected, no globs,
    /// no size limit, one search thread per core.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Read`] when `root` cannot be resolved, and
    /// [`ErrorKind::InvalidArgument`] when it is not a folder.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?;
    /// assert!(tree.root().is_absolute());
    /// assert!(candor::Tree::new(dir.path().join("missing")).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(root: impl AsRef<Path>) -> Result<Tree, Error> {
        let given = root.as_ref();
        let root = given.canonicalize().map_err(|source| ErrorKind::Read {
            path: given.to_owned(),
            source,
        })?;
        if !root.is_dir() {
            return Err(Error::invalid_argument(
                "root",
                format!("{} is not a folder", given.display()),
            ));
        }
        Ok(Tree {
            root,
            hidden: false,
            gitignore: true,
            globs: Vec::new(),
            max_file_size: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            solo: SOLO,
            #[cfg(test)]
            before_read: None,
            #[cfg(test)]
            after_read: None,
            #[cfg(test)]
            rules: None,
        })
    }

    /// Searches hidden files and folders too. Default: false.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?.hidden(true);
    /// # let _ = tree;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn hidden(mut self, yes: bool) -> Tree {
        self.hidden = yes;
        self
    }

    /// Respects `.gitignore`, `.ignore` and `.git/info/exclude`. Default:
    /// true.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?.gitignore(false);
    /// # let _ = tree;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn gitignore(mut self, yes: bool) -> Tree {
        self.gitignore = yes;
        self
    }

    /// Adds include and exclude globs, as ripgrep's `-g`: `*.rs` keeps
    /// only matching files, `!*.min.js` leaves matching ones out. Globs are
    /// checked when a search runs. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?.globs(["*.rs", "!target/**"]);
    /// # let _ = tree;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn globs<I, S>(mut self, globs: I) -> Tree
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.globs.extend(globs.into_iter().map(Into::into));
        self
    }

    /// Leaves out files larger than `max_bytes`, counting them in
    /// `skipped` as too large (policy). Default: no limit.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?.max_file_size(10 << 20);
    /// # let _ = tree;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_file_size(mut self, max_bytes: u64) -> Tree {
        self.max_file_size = Some(max_bytes);
        self
    }

    /// Searches with `threads` threads (at least 1), which share the walk
    /// and read and search the files; the calling thread is one of them,
    /// and starts the others once the search has run for a moment (see
    /// [`Tree::start_threads_after`]). The results do not depend on it.
    /// Default: the number of cores.
    ///
    /// More threads than [`Tree::max_threads`] (8 per core) would only
    /// cost memory (each has its stack and read buffer) and hand-offs, so
    /// the count is clamped to it; [`Tree::thread_count`] says what
    /// applies.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?.threads(1);
    /// assert_eq!(tree.thread_count(), 1);
    /// let many = candor::Tree::new(dir.path())?.threads(32_000);
    /// assert_eq!(many.thread_count(), candor::Tree::max_threads());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Tree {
        self.threads = threads.clamp(1, Tree::max_threads());
        self
    }

    /// The number of threads a search uses: what
    /// [`threads`](Tree::threads) asked for, clamped to
    /// [`Tree::max_threads`].
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?.threads(2);
    /// assert_eq!(tree.thread_count(), 2.min(candor::Tree::max_threads()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn thread_count(&self) -> usize {
        self.threads
    }

    /// The most threads a search uses: 8 per core (as
    /// `std::thread::available_parallelism` counts them, 1 if unknown).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Tree::max_threads() >= 8);
    /// ```
    #[must_use]
    pub fn max_threads() -> usize {
        THREADS_PER_CORE * std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// How long a search runs on the calling thread alone before it starts
    /// the other threads. A search that ends sooner (a capped query, a
    /// small tree) pays for no thread; a longer one loses at most this
    /// much of its parallel time. The results do not depend on it.
    /// Default: 1 ms. `Duration::ZERO` starts them after the first file.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// use std::time::Duration;
    /// let tree = candor::Tree::new(dir.path())?.start_threads_after(Duration::ZERO);
    /// # let _ = tree;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn start_threads_after(mut self, alone: Duration) -> Tree {
        self.solo = alone;
        self
    }

    /// The root, as an absolute path with symbolic links resolved.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor::Tree::new(dir.path())?;
    /// assert_eq!(tree.root(), dir.path().canonicalize()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The files to search, and the inputs the walk leaves out, in path
    /// order.
    fn jobs<'p>(&'p self, plan: &'p Plan<'p>) -> Result<impl Iterator<Item = Job> + 'p, Error> {
        let walk = Walk::new(WalkOptions {
            root: &self.root,
            hidden: self.hidden,
            gitignore: self.gitignore,
            globs: &self.globs,
            start: plan.start.as_ref().map(|(path, _)| path.as_str()),
            filters: &plan.filters,
        })?;
        Ok(walk.take_while(move |_| !plan.is_stopped()))
    }

    /// The outcome of one job of the walk.
    fn outcome(
        &self,
        plan: &Plan<'_>,
        matcher: &Matcher,
        job: Job,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome {
        match job {
            Job::File { rel, abs } => self.process(plan, matcher, &rel, &abs, buffer),
            Job::Skip(input) => FileOutcome::Skipped(input),
        }
    }

    /// Reads and searches one file.
    fn process(
        &self,
        plan: &Plan<'_>,
        matcher: &Matcher,
        rel: &str,
        abs: &Path,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome {
        #[cfg(test)]
        if let Some(Hook(hook)) = &self.before_read {
            hook(abs);
        }
        if plan.reads_nothing {
            return crate::search::engine::unread(rel);
        }
        let opened = self.open_at(rel, abs);
        #[cfg(test)]
        let hook = self.after_read.as_ref().map(|Hook(hook)| move || hook(abs));
        #[cfg(test)]
        let after_read: AfterRead<'_> = hook.as_ref().map(|h| h as &(dyn Fn() + Sync));
        #[cfg(not(test))]
        let after_read: AfterRead<'_> = None;
        let outcome = search_opened(plan, matcher, rel, opened, buffer, after_read);
        // A long line grew the buffer: give the memory back.
        if buffer.len() > self.read_rules().block {
            buffer.truncate(self.read_rules().block);
            buffer.shrink_to_fit();
        }
        outcome
    }

    /// How this tree's files are read.
    fn read_rules(&self) -> ReadRules {
        #[cfg(test)]
        if let Some(rules) = self.rules {
            return rules;
        }
        ReadRules::new(self.max_file_size)
    }

    /// Opens the file at `rel` (`abs` on disk) for reading, or says why it
    /// is skipped. This is the one place a file is opened.
    fn open_at(&self, rel: &str, abs: &Path) -> Opened<'_> {
        let skip = |reason: SkipReason, e: &io::Error| {
            Opened::Skip(SkippedInput::new(rel, reason).with_detail(e.to_string()))
        };
        match File::open(abs) {
            Ok(file) => Opened::File(file, self.read_rules()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => skip(SkipReason::Vanished, &e),
            Err(e) => skip(SkipReason::Unreadable, &e),
        }
    }
}

/// Lets the walk run at most `WINDOW` files ahead of the release point.
struct Window {
    released: AtomicU64,
    /// How many searchers wait for the release point to move.
    waiting: AtomicUsize,
    lock: Mutex<()>,
    moved: Condvar,
}

impl Window {
    fn new() -> Window {
        Window {
            released: AtomicU64::new(0),
            waiting: AtomicUsize::new(0),
            lock: Mutex::new(()),
            moved: Condvar::new(),
        }
    }

    /// Returns true when file number `seq` may be taken now.
    fn admits(&self, seq: u64) -> bool {
        seq < self.released.load(AtomicOrdering::Acquire) + WINDOW
    }

    /// Blocks until file number `seq` may be taken, or the search stops.
    fn wait_for(&self, seq: u64, plan: &Plan<'_>) {
        if self.admits(seq) {
            return;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.waiting.fetch_add(1, AtomicOrdering::SeqCst);
        while seq >= self.released.load(AtomicOrdering::SeqCst) + WINDOW && !plan.is_stopped() {
            guard = self.moved.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
        self.waiting.fetch_sub(1, AtomicOrdering::SeqCst);
    }

    fn release(&self, next: u64) {
        self.released.store(next, AtomicOrdering::SeqCst);
        // Waking costs a system call: only when a searcher waits.
        if self.waiting.load(AtomicOrdering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.moved.notify_all();
        }
    }
}

/// The most threads per core (see `Tree::max_threads`).
const THREADS_PER_CORE: usize = 8;

/// How long the calling thread searches alone before it starts the
/// others, by default: a search that ends sooner pays for no thread.
const SOLO: Duration = Duration::from_millis(1);

/// The most files handed to a worker at once. Chunks start at one file
/// and double, so the first results come at once, and later ones cost
/// few hand-offs between threads.
const MAX_CHUNK: usize = 32;

impl Source for Tree {
    fn fingerprint(&self) -> u64 {
        Fingerprint::of(&(
            "tree",
            &self.root,
            self.hidden,
            self.gitignore,
            &self.globs,
            self.max_file_size,
        ))
        .as_u64()
    }

    fn generation(&self) -> Option<u64> {
        None
    }

    fn resolve(&self, path: &str) -> Result<Resolved, Error> {
        let rel = normalize(path, Some(&self.root))?;
        let abs = self.root.join(&rel);
        let real = abs.canonicalize().map_err(|_| {
            Error::from(ErrorKind::NotFound {
                path: path.to_owned(),
            })
        })?;
        if !real.starts_with(&self.root) {
            return Err(ErrorKind::OutsideRoot {
                path: path.to_owned(),
            }
            .into());
        }
        Ok(Resolved {
            // A FIFO or device named by the caller is a file here: the
            // reader skips it as `special`.
            is_file: !real.is_dir(),
            path: rel,
        })
    }

    fn open(&self, path: &str) -> Opened<'_> {
        let abs = self.root.join(path);
        // A path the caller names may be a FIFO or a device, which an open
        // for reading could wait on forever: it is not opened.
        match std::fs::metadata(&abs) {
            Ok(meta) if !meta.is_file() => {
                Opened::Skip(SkippedInput::new(path, SkipReason::Special))
            }
            _ => self.open_at(path, &abs),
        }
    }

    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let window = Window::new();
        let feed = Feed::new(self.jobs(plan)?);
        // Alone at first (with one thread, throughout): a search that ends
        // within `self.solo` (a capped query, a small tree) starts no
        // thread at all.
        let mut next = 0u64;
        let mut buffer = Vec::new();
        let solo_until = (self.threads > 1).then(|| Instant::now() + self.solo);
        loop {
            match feed.next_chunk(&window, plan) {
                Next::Chunk(_, chunk) => {
                    // Each outcome is taken as soon as it is known: the
                    // search may end in the middle of the chunk.
                    for job in chunk {
                        next += 1;
                        let outcome = self.outcome(plan, plan.matcher, job, &mut buffer);
                        if take(outcome).is_break() {
                            plan.stop.store(true, AtomicOrdering::Relaxed);
                            return Ok(());
                        }
                    }
                    window.release(next);
                }
                Next::Done => return Ok(()),
                // Not while alone: every chunk taken is released at once.
                Next::Full(_) => break,
            }
            if solo_until.is_some_and(|until| Instant::now() >= until) {
                break;
            }
        }
        // Now in parallel. No thread is set aside for the walk: whichever
        // searcher needs work takes the next chunk of files from the feed
        // (walking on when it runs low). The calling thread releases
        // outcomes in order and, while the next one is not ready, searches
        // chunks itself: it is one of the `threads` searchers, beside
        // `threads - 1` workers.
        let workers = self.threads - 1;
        let (out_tx, out_rx) = mpsc::channel::<(u64, Vec<FileOutcome>)>();
        let search_chunk =
            |chunk: Vec<Job>, matcher: &Matcher, buffer: &mut Vec<u8>| -> Vec<FileOutcome> {
                let mut outcomes = Vec::with_capacity(chunk.len());
                for job in chunk {
                    // Once stopped, nobody reads the rest of the chunk.
                    if plan.is_stopped() {
                        break;
                    }
                    outcomes.push(self.outcome(plan, matcher, job, buffer));
                }
                outcomes
            };
        feed.walk_ahead();
        std::thread::scope(|scope| {
            let window = &window;
            let feed = &feed;
            // However this thread leaves the scope, even by a panic in
            // `take`, the workers must stop, or the scope would wait for
            // them forever (one may wait for the window to move).
            let _stop = StopOnDrop {
                plan,
                window,
                only_on_panic: false,
            };
            for _ in 0..workers {
                let out_tx = out_tx.clone();
                let search_chunk = &search_chunk;
                scope.spawn(move || {
                    // A worker that panics (a bug) stops the others, which
                    // could wait for its chunk forever; the scope then
                    // hands the panic on.
                    let _stop = StopOnDrop {
                        plan,
                        window,
                        only_on_panic: true,
                    };
                    let mut buffer = Vec::new();
                    let matcher = plan.matcher.clone();
                    loop {
                        let (seq, chunk) = match feed.next_chunk(window, plan) {
                            Next::Chunk(seq, chunk) => (seq, chunk),
                            Next::Full(seq) => {
                                window.wait_for(seq, plan);
                                continue;
                            }
                            Next::Done => break,
                        };
                        let outcomes = search_chunk(chunk, &matcher, &mut buffer);
                        if plan.is_stopped() || out_tx.send((seq, outcomes)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(out_tx);
            let mut held: BTreeMap<u64, Vec<FileOutcome>> = BTreeMap::new();
            let matcher = plan.matcher;
            let mut feed_open = true;
            'receive: loop {
                while let Some(outcomes) = held.remove(&next) {
                    next += outcomes.len() as u64;
                    window.release(next);
                    for outcome in outcomes {
                        if take(outcome).is_break() {
                            plan.stop.store(true, AtomicOrdering::Relaxed);
                            break 'receive;
                        }
                    }
                }
                if let Ok((seq, outcomes)) = out_rx.try_recv() {
                    held.insert(seq, outcomes);
                    continue;
                }
                if feed_open {
                    match feed.next_chunk(window, plan) {
                        Next::Chunk(seq, chunk) => {
                            held.insert(seq, search_chunk(chunk, matcher, &mut buffer));
                            continue;
                        }
                        Next::Done => feed_open = false,
                        // The window is full: the chunk it waits for is in
                        // a worker's hands, and comes through the channel.
                        Next::Full(_) => {}
                    }
                }
                match out_rx.recv() {
                    Ok((seq, outcomes)) => {
                        held.insert(seq, outcomes);
                    }
                    // Every worker has ended. Whatever the feed still holds
                    // is searched here; otherwise what is held is all that
                    // remains.
                    Err(_) if feed_open => {}
                    Err(_) if held.contains_key(&next) => {}
                    Err(_) => break,
                }
            }
        });
        Ok(())
    }
}

/// Stops the search and wakes whoever waits for the window, when dropped
/// (with `only_on_panic`, only when dropped by a panic).
struct StopOnDrop<'a> {
    plan: &'a Plan<'a>,
    window: &'a Window,
    only_on_panic: bool,
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if self.only_on_panic && !std::thread::panicking() {
            return;
        }
        self.plan.stop.store(true, AtomicOrdering::Relaxed);
        self.window.release(u64::MAX - WINDOW);
    }
}

/// The walk, shared by the searchers: each takes its next chunk of files
/// from a queue, numbered in path order, and whichever finds the queue
/// running low walks on to refill it. The walk has its own lock, so the
/// others keep taking queued files while one walks.
struct Feed<I: Iterator<Item = Job>> {
    queue: Mutex<Queue>,
    walk: Mutex<I>,
    /// How many jobs to keep queued ahead: none while the calling thread
    /// searches alone (walking ahead would be wasted if the search ends
    /// soon), `LOW_WATER` once others search too.
    ahead: AtomicUsize,
}

struct Queue {
    jobs: VecDeque<Job>,
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
/// (if no other searcher is walking).
const LOW_WATER: usize = 2 * MAX_CHUNK;

/// How many jobs one refill walks.
const REFILL: usize = 2 * MAX_CHUNK;

impl<I: Iterator<Item = Job>> Feed<I> {
    fn new(jobs: I) -> Feed<I> {
        Feed {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                seq: 0,
                size: 1,
                done: false,
            }),
            walk: Mutex::new(jobs),
            ahead: AtomicUsize::new(0),
        }
    }

    /// From now on, keep `LOW_WATER` jobs queued for the searchers.
    fn walk_ahead(&self) {
        self.ahead.store(LOW_WATER, AtomicOrdering::Relaxed);
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Walks on while the queue runs low. The walk's lock is held until
    /// the jobs are queued, so they are queued in walk order.
    fn refill(&self, mut walk: MutexGuard<'_, I>, plan: &Plan<'_>) {
        loop {
            // Early on, walk just ahead of the chunks, which start small:
            // the first file is searched at once.
            let want = {
                let queue = self.queue();
                let floor = self.ahead.load(AtomicOrdering::Relaxed).max(1);
                if queue.done || queue.jobs.len() >= floor || plan.is_stopped() {
                    return;
                }
                (2 * queue.size).min(REFILL)
            };
            let mut batch = Vec::with_capacity(want);
            batch.extend(walk.by_ref().take(want));
            let mut queue = self.queue();
            queue.done = batch.len() < want;
            queue.jobs.extend(batch);
        }
    }

    /// The next chunk of jobs to search.
    fn next_chunk(&self, window: &Window, plan: &Plan<'_>) -> Next {
        loop {
            if plan.is_stopped() {
                return Next::Done;
            }
            {
                let mut queue = self.queue();
                if !queue.jobs.is_empty() {
                    let seq = queue.seq;
                    if !window.admits(seq) {
                        return Next::Full(seq);
                    }
                    let n = queue.size.min(queue.jobs.len());
                    let chunk: Vec<Job> = queue.jobs.drain(..n).collect();
                    queue.seq += n as u64;
                    queue.size = (queue.size * 2).min(MAX_CHUNK);
                    let low =
                        !queue.done && queue.jobs.len() < self.ahead.load(AtomicOrdering::Relaxed);
                    drop(queue);
                    // Walk ahead now, so that the others find files queued;
                    // not if another searcher is walking already.
                    if low {
                        if let Ok(walk) = self.walk.try_lock() {
                            self.refill(walk, plan);
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
            self.refill(walk, plan);
        }
    }
}

/// What a searcher gets when it asks the feed for work.
enum Next {
    /// The chunk's first number, and its jobs.
    Chunk(u64, Vec<Job>),
    /// The window is full: the next chunk, numbered `.0`, must wait for
    /// the release point to move.
    Full(u64),
    /// The walk is over, or the search stopped.
    Done,
}

crate::search::impl_corpus!(Tree);

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::{Corpus, Limits, Query};

    fn tree_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Tree) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let tree = Tree::new(dir.path()).unwrap();
        (dir, tree)
    }

    #[test]
    fn a_file_deleted_between_walk_and_read_is_counted_as_vanished() {
        for threads in [1, 3] {
            let (_dir, mut tree) =
                tree_with(&[("a.txt", "x\n"), ("b.txt", "x\n"), ("c.txt", "x\n")]);
            tree.threads = threads;
            tree.solo = Duration::ZERO;
            tree.before_read = Some(Hook(Arc::new(|path: &Path| {
                if path.ends_with("b.txt") {
                    let _ = std::fs::remove_file(path);
                }
            })));
            let found = tree
                .search(&Query::literal("x"), &Limits::new(), None)
                .unwrap();
            let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
            assert_eq!(paths, ["a.txt", "c.txt"]);
            assert_eq!(found.skipped().count(&SkipReason::Vanished), 1);
            assert_eq!(found.skipped().sample()[0].path(), "b.txt");
            // The answer may be missing b.txt's lines: it must not claim to be complete.
            assert!(found.completeness().is_exact());
            assert!(!found.is_complete());
        }
    }

    #[test]
    fn an_unreadable_file_is_counted_and_the_search_goes_on() {
        // Tests run as root, where permissions do not stop reads: replace the
        // file by a folder between walk and read, which open-for-read refuses.
        let (_dir, mut tree) = tree_with(&[("a.txt", "x\n"), ("b.txt", "x\n")]);
        tree.threads = 2;
        tree.solo = Duration::ZERO;
        tree.before_read = Some(Hook(Arc::new(|path: &Path| {
            if path.ends_with("a.txt") && path.is_file() {
                std::fs::remove_file(path).unwrap();
                std::fs::create_dir(path).unwrap();
            }
        })));
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found.items()[0].path, "b.txt");
        assert_eq!(found.skipped().count(&SkipReason::Unreadable), 1);
        assert!(found.skipped().sample()[0].detail().is_some());
        assert!(!found.is_complete());
        let json = serde_json::to_value(&found).unwrap();
        assert_eq!(json["complete"], false);
        assert_eq!(json["skipped"]["by_reason"]["unreadable"], 1);
    }

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

    /// A tree of one file, read through blocks of `block` bytes.
    fn small_blocks(name: &str, text: &[u8], block: usize) -> (tempfile::TempDir, Tree) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        let mut tree = Tree::new(dir.path()).unwrap();
        tree.rules = Some(ReadRules {
            block,
            max_line: 4 * block,
            max_file_size: None,
        });
        (dir, tree)
    }

    /// The lines holding `needle`, by a plain scan: (number, offset, text);
    /// `None` for a file holding a NUL.
    fn naive(text: &[u8], needle: &str) -> Option<Vec<(u64, u64, String)>> {
        if text.contains(&0) {
            return None;
        }
        let mut out = Vec::new();
        let mut offset = 0;
        for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            let content = line.strip_suffix(b"\n").unwrap_or(line);
            let content = content.strip_suffix(b"\r").unwrap_or(content);
            let shown = String::from_utf8_lossy(content).into_owned();
            if shown.contains(needle) {
                out.push((i as u64 + 1, offset, shown));
            }
            offset += line.len() as u64;
        }
        Some(out)
    }

    #[test]
    fn a_file_that_changes_while_read_is_skipped_as_changed() {
        let text = "line with x\n".repeat(100);
        type Change = fn(&Path);
        let changes: [(&str, Change); 3] = [
            ("grown", |path| {
                let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
                std::io::Write::write_all(&mut f, b"x appended\n").unwrap();
            }),
            ("truncated", |path| {
                let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                f.set_len(200).unwrap();
            }),
            ("rewritten", |path| {
                // The same size, other bytes: only the time of change says so.
                std::thread::sleep(Duration::from_millis(20));
                let text = "LINE WITH Y\n".repeat(100);
                std::fs::write(path, text).unwrap();
            }),
        ];
        for (what, change) in changes {
            for threads in [1, 4] {
                let (_dir, mut tree) = small_blocks("f.txt", text.as_bytes(), 64);
                tree.threads = threads;
                tree.solo = Duration::ZERO;
                let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
                let flag = Arc::clone(&done);
                tree.after_read = Some(Hook(Arc::new(move |path: &Path| {
                    // Once, after the first read.
                    if !flag.swap(true, AtomicOrdering::SeqCst) {
                        change(path);
                    }
                })));
                let found = tree
                    .search(&Query::literal("x"), &Limits::new(), None)
                    .unwrap();
                assert!(
                    found.is_empty(),
                    "{what}, {threads} threads: {:?}",
                    found.items()
                );
                assert_eq!(
                    found.skipped().count(&SkipReason::Changed),
                    1,
                    "{what}, {threads} threads"
                );
                assert!(!found.is_complete(), "{what}");
                // Unchanged since, it reads whole.
                tree.after_read = None;
                let again = tree
                    .search(&Query::literal("x"), &Limits::new(), None)
                    .unwrap();
                assert!(again.is_complete(), "{what}");
            }
        }
    }

    #[test]
    fn a_line_longer_than_the_most_held_skips_the_file_as_long_line() {
        let mut text = b"x short\n".to_vec();
        text.extend(std::iter::repeat_n(b'a', 1000));
        text.extend_from_slice(b"x\nx after\n");
        let (_dir, tree) = small_blocks("f.txt", &text, 64); // holds 256 bytes
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert!(found.is_empty());
        assert_eq!(found.skipped().count(&SkipReason::LongLine), 1);
        assert!(!found.is_complete());
        // A line that fits once the buffer grows is searched.
        let (_dir, tree) = small_blocks("f.txt", &text, 512);
        let found = tree
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 3);
        assert_eq!(found.items()[1].byte_offset, 8);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

        /// Blocks of a few bytes put chunk ends everywhere: the lines found
        /// are those of a plain scan, with CRLF, no final newline and NULs
        /// at any depth, in every mode, and pages rebuild them.
        #[test]
        fn reading_in_small_blocks_matches_a_naive_scan(
            lines in proptest::collection::vec(
                proptest::string::string_regex("[ax\\r\\x00]{0,40}").unwrap(), 0..40),
            final_newline: bool,
            block in 8usize..48,
            threads in 1usize..=4,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let (_dir, mut tree) = small_blocks("f.txt", text.as_bytes(), block);
            tree.threads = threads;
            tree.solo = Duration::ZERO;
            tree.rules = Some(ReadRules { block, max_line: 1 << 20, max_file_size: None });
            let query = Query::literal("x");
            let found = tree.search(&query, &Limits::new(), None).unwrap();
            let got: Vec<(u64, u64, String)> = found
                .iter()
                .map(|m| (m.line_number, m.byte_offset, m.line.clone()))
                .collect();
            let count = tree.count(&query, &Limits::new(), None).unwrap();
            let files = tree.files_with_matches(&query, &Limits::new(), None).unwrap();
            match naive(text.as_bytes(), "x") {
                None => {
                    proptest::prop_assert!(got.is_empty());
                    proptest::prop_assert_eq!(found.skipped().count(&SkipReason::Binary), 1);
                    proptest::prop_assert_eq!(count.skipped().count(&SkipReason::Binary), 1);
                    proptest::prop_assert_eq!(files.skipped().count(&SkipReason::Binary), 1);
                }
                Some(want) => {
                    proptest::prop_assert!(found.is_complete());
                    proptest::prop_assert_eq!(&got, &want);
                    let n = count.items().first().map_or(0, |c| c.count);
                    proptest::prop_assert_eq!(n, want.len() as u64);
                    proptest::prop_assert_eq!(files.len(), usize::from(!want.is_empty()));
                    let mut paged = Vec::new();
                    let mut cursor = None;
                    loop {
                        let page = tree
                            .search(&query, &Limits::new().limit(2), cursor.as_ref())
                            .unwrap();
                        paged.extend(page.iter().map(|m| (m.line_number, m.byte_offset, m.line.clone())));
                        match page.next_cursor() {
                            Some(c) => cursor = Some(c.clone()),
                            None => break,
                        }
                    }
                    proptest::prop_assert_eq!(paged, want);
                }
            }
        }
    }
}
