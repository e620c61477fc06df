//! The directory-tree corpus: the public `Tree`, its settings, their
//! builder methods and getters.
//!
//! The rest of the tree, one concept per file: `as_source.rs`, the tree as
//! the engine sees it (its identity, and the paths a caller names);
//! `read.rs`, how one walked file is opened and read; `feed.rs`, the walk
//! shared by the searchers in numbered chunks; `schedule.rs`, the threads
//! and the release of their outcomes in path order. The walk itself is
//! `search/walk/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::confine::{self, DirHandle};
#[cfg(test)]
use crate::reader::ReadRules;
use crate::{Error, ErrorKind};

mod as_source;
mod feed;
#[cfg(feature = "index")]
mod index_access;
#[cfg(test)]
mod long_lines;
mod read;
mod schedule;

/// A directory tree on disk, searched in parallel and in path order.
///
/// `.gitignore`, `.ignore` and `.git/info/exclude` are respected (in a git
/// repository or not, with the `ignore` crate's rule matching), hidden
/// files and folders are left out (but for those an ignore file lets in
/// by a `!` rule, as in ripgrep), and include/exclude globs apply, each
/// configurable. What the ignore files and the hidden-file rule leave out
/// is counted in `skipped` as `ignored` and `hidden` (policy: the result
/// stays complete), a folder counting once; what the caller's globs and
/// path filters leave out is the query's scope and is not counted.
/// Symbolic links are not followed by default: each is counted in
/// `skipped` as `symlink` (policy). With [`Tree::follow_links`], they are
/// followed only while they stay inside the root; a link out of the root,
/// a broken link and a link loop are counted in `skipped`. FIFOs, sockets
/// and devices are counted as `special` and never opened. With a depth
/// limit ([`Tree::max_depth`]), each folder not entered is counted as
/// `max_depth`.
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
/// [`excerpt`](crate::Corpus::excerpt)) is searched even if an ignore rule,
/// the hidden rule or the depth limit would leave it out of a walk, and a
/// file named is read as text whatever NUL bytes it holds (see
/// [`Corpus`](crate::Corpus)). A path filter the
/// walk cannot reach is counted in `skipped` where it would have been met
/// (see [`Query::paths`](crate::Query::paths)), and the others are
/// searched.
///
/// Paths are written with `/` separators; a name that is not valid UTF-8
/// or holds a `\` is escaped so that two files never share a path (see
/// [`Match::path`](crate::Match::path)). A search cursor resumes at the
/// walk's own position, and records a stamp of the file it points into
/// (its inode, size and modification and change times) as the page read
/// it: if that file changed since, even before the page ended, the cursor
/// is refused as stale
/// ([`ErrorKind::StaleCursor`](crate::ErrorKind::StaleCursor)). A page
/// whose last item is its file's last (no matching line of it follows,
/// and nothing of it was skipped after the item) resumes after the file,
/// so that file counts as one before the cursor (below); the file gone
/// from the walk since (removed, renamed, ignored, no longer a file)
/// makes that cursor stale, as its listed items would be counted wrongly
/// or listed again, and so does it for a cursor inside the file.
///
/// A tree on disk has no generation. A cursor also records the files the
/// walk passed before it (a sum of their paths' hashes), and a page
/// resumed at it walks the names before it again, opening no file: a
/// file added or removed there since makes the cursor stale too, as its
/// matches would be missed, or the page's `start` and total would count
/// matches no longer there. A file before the cursor whose text changed
/// (an agent edits what it has paged through) leaves it good: the later
/// pages' `start` and total then count that file's matches as the
/// earlier pages saw them. A resumed page walks the names from the start
/// up to the cursor it resumes, and on from there up to the cursor it
/// gives; a first page, from the start up to its cursor.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Limits, Query, Tree};
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
    max_depth: Option<usize>,
    threads: usize,
    solo: Duration,
    /// Run before each read of a file, for tests that change it between
    /// walk and read.
    #[cfg(test)]
    before_read: Option<Hook>,
    /// Puts another input in place of each file opened, for tests of
    /// inputs that misbehave while read.
    #[cfg(test)]
    wrap_input: Option<WrapInput>,
    /// Smaller buffers, for tests of files larger than one block.
    #[cfg(test)]
    rules: Option<ReadRules>,
}

/// A test hook run with a file's path around its read (to make it
/// vanish, say).
#[cfg(test)]
#[derive(Clone)]
struct Hook(std::sync::Arc<dyn Fn(&Path) + Send + Sync>);

/// A test's input in place of a file opened, given its path.
#[cfg(test)]
#[derive(Clone)]
#[allow(clippy::type_complexity)]
struct WrapInput(
    std::sync::Arc<
        dyn Fn(&Path, Box<dyn crate::reader::Input>) -> Box<dyn crate::reader::Input> + Send + Sync,
    >,
);

#[cfg(test)]
impl std::fmt::Debug for WrapInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WrapInput")
    }
}

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
    /// let tree = candor_search::Tree::new(dir.path())?;
    /// assert!(tree.get_root().is_absolute());
    /// assert!(candor_search::Tree::new(dir.path().join("missing")).is_err());
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
        // The room a parallel search counts on, asked for now: a command
        // line tool has one thread yet, and its table grows without a wait.
        feed::FolderRoom::of_process(&root_dir);
        Ok(Tree {
            root,
            root_dir: Arc::new(root_dir),
            hidden: false,
            gitignore: true,
            parent_ignores: true,
            follow_links: false,
            globs: Vec::new(),
            max_file_size: None,
            max_depth: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            solo: SOLO,
            #[cfg(test)]
            before_read: None,
            #[cfg(test)]
            wrap_input: None,
            #[cfg(test)]
            rules: None,
        })
    }

    /// Searches hidden files and folders too. Default: false. Left out, a
    /// hidden file or folder is still searched when an ignore file lets it
    /// in by a `!` rule (`!.github/` in a `.gitignore`), as in ripgrep.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join(".env"), "TOKEN=x\n")?;
    /// let query = Query::literal("TOKEN");
    /// let shown = Tree::new(dir.path())?.hidden(true).search(&query, &Limits::new(), None)?;
    /// assert_eq!(shown.items()[0].path, ".env");
    /// let not = Tree::new(dir.path())?.search(&query, &Limits::new(), None)?;
    /// assert!(not.is_empty() && not.is_complete(), "left out by policy, and counted");
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
    /// use candor_search::{Corpus, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join(".ignore"), "out.log\n")?;
    /// std::fs::write(dir.path().join("out.log"), "panic\n")?;
    /// let query = Query::literal("panic");
    /// let all = Tree::new(dir.path())?.gitignore(false).search(&query, &Limits::new(), None)?;
    /// assert_eq!(all.len(), 1);
    /// assert!(Tree::new(dir.path())?.search(&query, &Limits::new(), None)?.is_empty());
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
    /// use candor_search::{Corpus, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("target"))?;
    /// std::fs::write(dir.path().join("lib.rs"), "fn main() {}\n")?;
    /// std::fs::write(dir.path().join("target/gen.rs"), "fn main() {}\n")?;
    /// std::fs::write(dir.path().join("notes.md"), "fn main() {}\n")?;
    /// let tree = Tree::new(dir.path())?.globs(["*.rs", "!target/**"]);
    /// let b = tree.search(&Query::literal("fn main"), &Limits::new(), None)?;
    /// let paths: Vec<&str> = b.iter().map(|m| m.path.as_str()).collect();
    /// assert_eq!(paths, ["lib.rs"]);
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
    /// use candor_search::{Corpus, Limits, Query, SkipReason, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("small.txt"), "x\n")?;
    /// std::fs::write(dir.path().join("big.txt"), "x\n".repeat(100))?;
    /// let tree = Tree::new(dir.path())?.max_file_size(10);
    /// let b = tree.search(&Query::literal("x"), &Limits::new(), None)?;
    /// assert_eq!(b.len(), 1);
    /// assert_eq!(b.skipped().count(&SkipReason::TooLarge), 1);
    /// assert!(b.is_complete(), "a size limit is policy");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_file_size(mut self, max_bytes: u64) -> Tree {
        self.max_file_size = Some(max_bytes);
        self
    }

    /// Walks at most `max_depth` folders deep, as ripgrep's `--max-depth`:
    /// the depth counts from each path a query names
    /// ([`Query::paths`](crate::Query::paths)), or from the root when it
    /// names none. Files that deep are searched; a folder that deep is not
    /// entered, and is counted once in `skipped` as `max_depth` (policy:
    /// the result stays complete), nothing below it walked. So 0 searches
    /// only the files named (a root or a folder named is not entered), and
    /// 1 their direct children. A path named is searched whatever its
    /// depth, and the folders on the way to it are entered (one at the
    /// limit is counted, and only the way is walked). Default: no limit.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Limits, Query, SkipReason, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::create_dir_all(dir.path().join("src/deep"))?;
    /// std::fs::write(dir.path().join("top.rs"), "fn main() {}\n")?;
    /// std::fs::write(dir.path().join("src/lib.rs"), "fn lib() {}\n")?;
    /// std::fs::write(dir.path().join("src/deep/inner.rs"), "fn inner() {}\n")?;
    /// let query = Query::literal("fn");
    /// let tree = Tree::new(dir.path())?.max_depth(1);
    /// assert_eq!(tree.get_max_depth(), Some(1));
    /// let top = tree.search(&query, &Limits::new(), None)?;
    /// assert_eq!(top.iter().map(|m| m.path.as_str()).collect::<Vec<_>>(), ["top.rs"]);
    /// assert_eq!(top.skipped().count(&SkipReason::MaxDepth), 1, "src, not entered");
    /// assert!(top.is_complete(), "a depth limit is policy");
    /// // From a folder named, as ripgrep counts from each path given.
    /// let below = tree.search(&query.clone().paths(["src"]), &Limits::new(), None)?;
    /// assert_eq!(below.iter().map(|m| m.path.as_str()).collect::<Vec<_>>(), ["src/lib.rs"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_depth(mut self, max_depth: usize) -> Tree {
        self.max_depth = Some(max_depth);
        self
    }

    /// The depth limit [`max_depth`](Tree::max_depth) set, if any.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor_search::Tree::new(dir.path())?;
    /// assert_eq!(tree.get_max_depth(), None);
    /// assert_eq!(tree.max_depth(3).get_max_depth(), Some(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_max_depth(&self) -> Option<usize> {
        self.max_depth
    }

    /// Searches with `threads` threads (at least 1), which share the walk
    /// and read and search the files; the calling thread is one of them,
    /// and starts the others once the search has run for a moment (see
    /// [`Tree::start_threads_after`]). The results do not depend on it.
    /// Default: the number of cores.
    ///
    /// More threads than [`Tree::max_threads`] (8 per core) would only
    /// cost memory (each has its stack and read buffer) and hand-offs, so
    /// the count is clamped to it; [`Tree::get_threads`] says what
    /// applies.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor_search::Tree::new(dir.path())?.threads(1);
    /// assert_eq!(tree.get_threads(), 1);
    /// let many = candor_search::Tree::new(dir.path())?.threads(32_000);
    /// assert_eq!(many.get_threads(), candor_search::Tree::max_threads());
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
    /// let tree = candor_search::Tree::new(dir.path())?.threads(2);
    /// assert_eq!(tree.get_threads(), 2.min(candor_search::Tree::max_threads()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_threads(&self) -> usize {
        self.threads
    }

    /// The most threads a search uses: 8 per core (as
    /// `std::thread::available_parallelism` counts them, 1 if unknown).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor_search::Tree::max_threads() >= 8);
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
    /// use std::time::Duration;
    /// use candor_search::{Corpus, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// for n in 0..20 {
    ///     std::fs::write(dir.path().join(format!("{n:02}.txt")), "x\n")?;
    /// }
    /// let query = Query::literal("x");
    /// let eager = Tree::new(dir.path())?.threads(4).start_threads_after(Duration::ZERO);
    /// let alone = Tree::new(dir.path())?.threads(1);
    /// // The same answer, in the same order, whoever searched.
    /// assert_eq!(eager.search(&query, &Limits::new(), None)?, alone.search(&query, &Limits::new(), None)?);
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
    /// use candor_search::{Corpus, Limits, Query, SkipReason, Tree};
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
    /// use candor_search::{Corpus, Limits, Query, Tree};
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

    /// The root, as an absolute path with symbolic links resolved (what
    /// [`new`](Self::new) was given, resolved).
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let tree = candor_search::Tree::new(dir.path())?;
    /// assert_eq!(tree.get_root(), dir.path().canonicalize()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_root(&self) -> &Path {
        &self.root
    }

    /// This tree's settings at another root, already opened.
    pub(crate) fn with_root(&self, root: PathBuf, root_dir: DirHandle) -> Tree {
        Tree {
            root,
            root_dir: Arc::new(root_dir),
            ..self.clone()
        }
    }
}

/// The most threads per core (see `Tree::max_threads`).
const THREADS_PER_CORE: usize = 8;

/// How long the calling thread searches alone before it starts the
/// others, by default: a search that ends sooner pays for no thread.
const SOLO: Duration = Duration::from_millis(1);

/// A tree of `files` (path and text) in a new temporary folder.
#[cfg(test)]
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
