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
use std::ffi::{OsStr, OsString};
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::{Error, ErrorKind};
use crate::search::confine::{self, DirHandle, Kind, Target, Unresolved};
use crate::search::engine::{FileOutcome, Plan, search_opened};
use crate::search::matcher::Matcher;
use crate::search::path::{parse_position, parse_tree_path};
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
/// Symbolic links are not followed by default: each is counted in
/// `skipped` as `symlink` (policy). With [`Tree::follow_links`], they are
/// followed only while they stay inside the root; a link out of the root,
/// a broken link and a link loop are counted in `skipped`. FIFOs, sockets
/// and devices are counted as `special` and never opened.
///
/// Nothing outside the root is read, even while the tree changes during a
/// search: the root is opened once, and every folder and file below it is
/// opened relative to its parent folder's handle, one name at a time,
/// never through a link the policy does not follow (on unix; elsewhere,
/// each name is checked before it is opened, which a concurrent change
/// can defeat). The one exception is the ignore files of the folders
/// above the root, read by default as git does (see
/// [`Tree::parent_ignores`]).
///
/// A path the caller names ([`Query::paths`](crate::Query::paths),
/// [`find_in_file`](crate::Corpus::find_in_file),
/// [`excerpt`](crate::Corpus::excerpt)) is searched even if an ignore rule
/// or the hidden rule would leave it out of a walk.
///
/// Paths are written with `/` separators; a name that is not valid UTF-8
/// or holds a `\` is escaped so that two files never share a path (see
/// [`Match::path`](crate::Match::path)). A search cursor resumes at the
/// walk's own position, and records a stamp of the file it points into
/// (its inode, size and modification time): if that file changed, the
/// cursor is refused as stale
/// ([`ErrorKind::StaleCursor`](crate::ErrorKind::StaleCursor)).
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
    /// The root, opened once: every open below it goes through this
    /// handle, so renaming or replacing the root's path later does not
    /// redirect the tree.
    root_dir: Arc<DirHandle>,
    hidden: bool,
    gitignore: bool,
    parent_ignores: bool,
    follow_links: bool,
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
    /// Defaults: hidden files left out, ignore files respected (those
    /// above the root too), symbolic links not followed, no globs, no size
    /// limit, one search thread per core. The root is opened here, once:
    /// the tree keeps searching that folder even if its path is later
    /// renamed or replaced.
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
        let root_dir = confine::open_root(&root).map_err(|source| ErrorKind::Read {
            path: given.to_owned(),
            source,
        })?;
        Ok(Tree {
            root,
            root_dir: Arc::new(root_dir),
            hidden: false,
            gitignore: true,
            parent_ignores: true,
            follow_links: false,
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

    /// Follows symbolic links inside the root. Default: false: a link is
    /// not followed, and is counted in `skipped` as `symlink` (policy).
    ///
    /// When true, a link is followed only while it leads inside the root
    /// (a link out of it is counted as `outside_root`), never into a
    /// folder the walk is already in (`symlink_loop`), and a broken link
    /// is counted as `broken_link`. Each link is resolved name by name
    /// from the root's handle, so a link swapped in during a search cannot
    /// lead outside the root either. A caller's path (a path filter,
    /// `find_in_file`, `excerpt`) through a link is refused unless links
    /// are followed.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Limits, Query, SkipReason, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("src"))?;
    /// std::fs::write(dir.path().join("src/lib.rs"), "fn parse() {}\n")?;
    /// # #[cfg(unix)] {
    /// std::os::unix::fs::symlink("src", dir.path().join("lib"))?;
    /// let query = Query::literal("parse");
    /// let plain = Tree::new(dir.path())?.search(&query, &Limits::new(), None)?;
    /// assert_eq!(plain.len(), 1);
    /// assert_eq!(plain.skipped().count(&SkipReason::Symlink), 1);
    /// let followed = Tree::new(dir.path())?.follow_links(true).search(&query, &Limits::new(), None)?;
    /// let paths: Vec<&str> = followed.iter().map(|m| m.path.as_str()).collect();
    /// assert_eq!(paths, ["lib/lib.rs", "src/lib.rs"]);
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn follow_links(mut self, yes: bool) -> Tree {
        self.follow_links = yes;
        self
    }

    /// Reads the ignore files of the folders above the root, up to the
    /// repository's root (git's rule, which ripgrep follows too), when
    /// ignore files are respected. Default: true.
    ///
    /// These files are outside the root: they are read through their
    /// folder's handle, never through a symbolic link, only when they are
    /// regular files, and only up to 4 MiB. With false, nothing above the
    /// root is ever read.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Limits, Query, Tree};
    /// # let top = tempfile::tempdir()?;
    /// std::fs::write(top.path().join(".ignore"), "*.log\n")?;
    /// std::fs::create_dir(top.path().join("root"))?;
    /// std::fs::write(top.path().join("root/a.log"), "x\n")?;
    /// let root = top.path().join("root");
    /// let query = Query::literal("x");
    /// let honoured = Tree::new(&root)?.search(&query, &Limits::new(), None)?;
    /// assert_eq!(honoured.len(), 0);
    /// let alone = Tree::new(&root)?.parent_ignores(false).search(&query, &Limits::new(), None)?;
    /// assert_eq!(alone.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn parent_ignores(mut self, yes: bool) -> Tree {
        self.parent_ignores = yes;
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

    /// Finds the caller's path `path` (read as `names`) name by name
    /// from the root's handle. A link on the way is refused unless links
    /// are followed; hidden and ignore rules do not apply to a named path.
    fn locate(&self, path: &str, names: Vec<Vec<u8>>) -> Result<Target, Error> {
        let components = names.into_iter().map(os_name).collect();
        confine::resolve(&self.root_dir, &self.root, components, self.follow_links).map_err(|why| {
            match why {
                Unresolved::Outside => ErrorKind::OutsideRoot {
                    path: path.to_owned(),
                }
                .into(),
                Unresolved::Link => Error::invalid_argument(
                    "path",
                    format!(
                        "{path:?} goes through a symbolic link, and this tree does not follow links"
                    ),
                ),
                Unresolved::Loop => Error::invalid_argument(
                    "path",
                    format!("{path:?} goes through a loop of symbolic links"),
                ),
                Unresolved::Missing(_) => ErrorKind::NotFound {
                    path: path.to_owned(),
                }
                .into(),
            }
        })
    }

    /// The files to search, and the inputs the walk leaves out, in path
    /// order.
    fn jobs<'p>(&'p self, plan: &'p Plan<'p>) -> Result<impl Iterator<Item = Job> + 'p, Error> {
        let walk = Walk::new(WalkOptions {
            root: &self.root,
            root_dir: &self.root_dir,
            hidden: self.hidden,
            gitignore: self.gitignore,
            parent_ignores: self.parent_ignores,
            follow_links: self.follow_links,
            globs: &self.globs,
            // A position `check_position` accepted.
            start: plan
                .start
                .as_ref()
                .and_then(|(path, _)| parse_position(path)),
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
    ) -> FileOutcome<'static> {
        match job {
            Job::File { rel, dir, name } => self.process(plan, matcher, &rel, &dir, &name, buffer),
            Job::Skip(input) => FileOutcome::Skipped(input),
        }
    }

    /// Reads and searches one file.
    fn process(
        &self,
        plan: &Plan<'_>,
        matcher: &Matcher,
        rel: &str,
        dir: &DirHandle,
        name: &OsStr,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome<'static> {
        #[cfg(test)]
        if let Some(Hook(hook)) = &self.before_read {
            hook(&self.root.join(rel));
        }
        if plan.reads_nothing {
            return crate::search::engine::unread(rel).into_owned();
        }
        let opened = self.open_at(rel, dir, name);
        #[cfg(test)]
        let abs = self.root.join(rel);
        #[cfg(test)]
        let hook = self
            .after_read
            .as_ref()
            .map(|Hook(hook)| move || hook(&abs));
        #[cfg(test)]
        let after_read: AfterRead<'_> = hook.as_ref().map(|h| h as &(dyn Fn() + Sync));
        #[cfg(not(test))]
        let after_read: AfterRead<'_> = None;
        // Owned: the outcome crosses to the thread that orders them.
        let outcome = search_opened(plan, matcher, rel, opened, buffer, after_read).into_owned();
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

    /// Opens the walked file `name` of the folder `dir` (at `rel`) for
    /// reading, or says why it is skipped: relative to the folder the walk
    /// listed, without following a link or blocking on a FIFO swapped in
    /// since the listing. This is the one place a walked file is opened.
    fn open_at(&self, rel: &str, dir: &DirHandle, name: &OsStr) -> Opened<'_> {
        match confine::open_file(dir, name) {
            Ok(file) => Opened::File(file, self.read_rules()),
            Err(e) => self.open_error(rel, &e),
        }
    }

    /// The skip for a file that could not be opened.
    fn open_error(&self, rel: &str, e: &io::Error) -> Opened<'_> {
        let reason = if e.kind() == io::ErrorKind::NotFound {
            SkipReason::Vanished
        } else if confine::is_swapped(e) {
            SkipReason::Changed
        } else if confine::is_socket(e) {
            return Opened::Skip(SkippedInput::new(rel, SkipReason::Special));
        } else {
            SkipReason::Unreadable
        };
        Opened::Skip(SkippedInput::new(rel, reason).with_detail(e.to_string()))
    }
}

/// A file name from its bytes.
#[cfg(unix)]
fn os_name(bytes: Vec<u8>) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

/// A file name from its bytes (valid UTF-8 elsewhere than on unix, where
/// names are not bytes).
#[cfg(not(unix))]
fn os_name(bytes: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&bytes).into_owned())
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
        let (names, rel) = parse_tree_path(path, &self.root)?;
        let target = self.locate(path, names)?;
        Ok(Resolved {
            // A FIFO or device named by the caller is a file here: it is
            // never opened, and the reader counts it as `special`.
            is_file: target.kind != Kind::Dir,
            path: rel,
        })
    }

    fn check_position(&self, path: &str) -> Result<(), Error> {
        match parse_position(path) {
            Some(_) => Ok(()),
            None => Err(Error::cursor_out_of_range(format!(
                "it names {path:?}, which is not a path of this tree"
            ))),
        }
    }

    fn stamp(&self, path: &str) -> u64 {
        let Some(mut names) = parse_position(path) else {
            return 0;
        };
        let Some(last) = names.pop() else {
            return 0;
        };
        let folders = names.into_iter().map(os_name).collect();
        let Ok(target) = confine::resolve(&self.root_dir, &self.root, folders, self.follow_links)
        else {
            return 0;
        };
        let folder = match &target.name {
            Some(name) => match confine::open_dir(&target.parent, name) {
                Ok(folder) => folder,
                Err(_) => return 0,
            },
            None => target.parent,
        };
        confine::stamp_at(&folder, &os_name(last)).unwrap_or(0)
    }

    fn open(&self, path: &str) -> Opened<'_> {
        let not_read = |reason: SkipReason, detail: String| {
            Opened::Skip(SkippedInput::new(path, reason).with_detail(detail))
        };
        let (names, rel) = match parse_tree_path(path, &self.root) {
            Ok(parsed) => parsed,
            Err(e) => return not_read(SkipReason::Unreadable, e.to_string()),
        };
        let target = match self.locate(path, names) {
            Ok(target) => target,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound { .. }) => {
                return not_read(SkipReason::Vanished, e.to_string());
            }
            Err(e) => return not_read(SkipReason::Unreadable, e.to_string()),
        };
        let Some(name) = target.name else {
            return not_read(SkipReason::Unreadable, "the root is a folder".to_owned());
        };
        // Name by name from the root's handle, no link followed on the
        // way, and a FIFO or device refused before any read can block.
        match confine::open_regular(&target.parent, &name) {
            Ok(confine::Opened::File(file, _)) => Opened::File(file, self.read_rules()),
            Ok(confine::Opened::Special) => {
                Opened::Skip(SkippedInput::new(&rel, SkipReason::Special))
            }
            Err(e) => self.open_error(&rel, &e),
        }
    }

    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
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
        let (out_tx, out_rx) = mpsc::channel::<(u64, Vec<FileOutcome<'static>>)>();
        let search_chunk = |chunk: Vec<Job>,
                            matcher: &Matcher,
                            buffer: &mut Vec<u8>|
         -> Vec<FileOutcome<'static>> {
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
            let mut held: BTreeMap<u64, Vec<FileOutcome<'static>>> = BTreeMap::new();
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
