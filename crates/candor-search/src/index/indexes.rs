//! `Indexes`: one index per folder a server is asked to search, kept for
//! the folders below the roots it was started with, built on first use
//! while a scan answers, watched, bounded in number, memory and watches,
//! and the least recently used let go first.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Duration;

use super::Index;
use crate::seam::Source;
use crate::{Corpus, Error, ErrorKind, Tree};

/// How often the keeper brings behind indexes up to date.
const UPDATE_EVERY: Duration = Duration::from_secs(1);

/// One index per folder a server is asked to search, for a server that
/// takes the folder with each call (`directory` in a tool's arguments).
///
/// **Confined to its roots.** A folder is given as a path below one of
/// the roots the pool was made with ([`root`](Indexes::root)), and is
/// opened name by name from that root's handle, never through a
/// symbolic link ([`Tree::folder`]): a call can never open a folder
/// outside them, not even by swapping a folder for a link while it is
/// opened.
///
/// **Every answer fresh.** [`serve`](Indexes::serve) gives the corpus to
/// ask: the folder's index once it is built, watched when the watch
/// budget allows and checked against the tree by stamps when not; and,
/// while the index is being built (in the background, one build at a
/// time), the folder's [`Tree`] itself, a scan. Either answers about the
/// tree as it is when asked, and [`Served::state`] says which answered.
/// An index's cursors are its tree's, so a walk begun on the scan goes on
/// on the index.
///
/// **Bounded.** At most [`max_indexes`](Indexes::max_indexes) indexes
/// are open, holding at most [`max_memory`](Indexes::max_memory) bytes
/// of their records in memory, and watching at most
/// [`max_watches`](Indexes::max_watches) folders in all; past a bound,
/// the least recently served index is let go (its files stay on disk and
/// open again quickly), and an index that would watch past the watch
/// budget is checked instead. A background thread brings indexes that
/// queries found behind up to date once a second.
///
/// **Kept outside the trees.** Each index is written in a folder of its
/// own below the pool's store folder, named for its tree's root and
/// rules. A folder that holds the store is not indexed (the index would
/// index itself): it is served by a scan.
///
/// A tree with a depth limit ([`Tree::max_depth`]) is served by a scan:
/// an index records the whole walk.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, IndexState, Indexes, Limits, Query, Tree};
/// # let home = tempfile::tempdir()?;
/// # let cache = tempfile::tempdir()?;
/// std::fs::create_dir(home.path().join("app"))?;
/// std::fs::write(home.path().join("app/main.rs"), "fn main() {}\n")?;
/// let indexes = Indexes::new(cache.path()).root(Tree::new(home.path())?);
/// // The folder a tool call names, below a root; outside one, refused.
/// let app = indexes.folder("app")?;
/// assert!(indexes.folder("/etc").is_err());
/// let served = indexes.serve(&app)?;
/// let found = served.corpus().search(&Query::literal("main"), &Limits::new(), None)?;
/// assert_eq!(found.items()[0].path, "main.rs");
/// // The first call is answered by a scan while the index builds.
/// indexes.wait_until_built(&app);
/// assert!(matches!(indexes.serve(&app)?.state(), IndexState::Ready { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Indexes {
    store: PathBuf,
    roots: Vec<Tree>,
    limits: PoolBounds,
    shared: Arc<PoolShared>,
}

/// The pool's bounds.
#[derive(Debug, Clone, Copy)]
struct PoolBounds {
    max_indexes: usize,
    max_memory: u64,
    max_watches: u64,
}

/// What the pool's callers and its keeper thread share.
#[derive(Debug, Default)]
struct PoolShared {
    state: Mutex<PoolState>,
    /// Wakes the keeper (a build asked for) and the callers waiting for a
    /// build (one finished).
    changed: Condvar,
}

#[derive(Debug, Default)]
struct PoolState {
    slots: HashMap<u64, Slot>,
    /// Builds asked for, in order.
    queue: Vec<u64>,
    /// Ticks at each serve, for least-recently-used order.
    clock: u64,
    /// Whether the keeper thread runs.
    keeper: bool,
}

#[derive(Debug)]
struct Slot {
    tree: Tree,
    store: PathBuf,
    last_used: u64,
    kind: SlotKind,
}

#[derive(Debug)]
enum SlotKind {
    /// Asked for, not built yet.
    Queued,
    /// Being opened or built now.
    Building,
    /// Open.
    Ready {
        index: Arc<Index>,
        watched: bool,
        folders: u64,
        memory: u64,
    },
    /// Not to be indexed: why.
    Unavailable(String),
}

/// The state of a folder's index when it was served.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexState {
    /// The index answered: watched (queries trust what the watcher did
    /// not report changed), or checked against the tree by stamps.
    Ready {
        /// Whether a watcher keeps it.
        watched: bool,
    },
    /// The index is being built (or waits its turn): a scan answered.
    Building,
    /// The folder is not indexed, and a scan answered: why.
    Unavailable(String),
}

/// What [`Indexes::serve`] gives: the corpus to ask, and which it is.
///
/// # Example
///
/// ```
/// use candor_search::{IndexState, Indexes, Tree};
/// # let dir = tempfile::tempdir()?;
/// # let cache = tempfile::tempdir()?;
/// let indexes = Indexes::new(cache.path()).root(Tree::new(dir.path())?);
/// let served = indexes.serve(&indexes.folder(".")?)?;
/// assert!(matches!(served.state(), IndexState::Building | IndexState::Ready { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Served {
    corpus: Arc<dyn Corpus + Send + Sync>,
    state: IndexState,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl Served {
    /// The corpus to ask: the index, or the tree while there is none.
    #[must_use]
    pub fn corpus(&self) -> &(dyn Corpus + Send + Sync) {
        &*self.corpus
    }

    /// The corpus to ask, shared (for a query run on another thread).
    #[must_use]
    pub fn to_corpus(&self) -> Arc<dyn Corpus + Send + Sync> {
        Arc::clone(&self.corpus)
    }

    /// Which answered: the index, or a scan and why.
    #[must_use]
    pub fn state(&self) -> &IndexState {
        &self.state
    }
}

impl Indexes {
    /// A pool whose indexes are written below the folder `store` (created
    /// when first needed), with no root yet: add the roots a caller may
    /// search below with [`root`](Indexes::root).
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// let indexes = candor_search::Indexes::new(cache.path());
    /// assert_eq!(indexes.get_max_indexes(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn new(store: impl AsRef<Path>) -> Indexes {
        Indexes {
            store: store.as_ref().to_owned(),
            roots: Vec::new(),
            limits: PoolBounds {
                max_indexes: 8,
                max_memory: 1 << 30,
                max_watches: 65_536,
            },
            shared: Arc::new(PoolShared::default()),
        }
    }

    /// Allows the folders below `tree`'s root, searched with `tree`'s
    /// settings unless the caller changes them. The first root is the
    /// one relative folders are read from.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Indexes, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let cache = tempfile::tempdir()?;
    /// let indexes = Indexes::new(cache.path()).root(Tree::new(dir.path())?.hidden(true));
    /// assert_eq!(indexes.get_roots().len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn root(mut self, tree: Tree) -> Indexes {
        self.roots.push(tree);
        self
    }

    /// The most indexes open at once. Default: 8.
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// let indexes = candor_search::Indexes::new(cache.path()).max_indexes(2);
    /// assert_eq!(indexes.get_max_indexes(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_indexes(mut self, n: usize) -> Indexes {
        self.limits.max_indexes = n;
        self
    }

    /// The most bytes the open indexes' records hold in memory, in all
    /// (each index's record of the walk: its paths and stamps, and its
    /// posting lists of recent changes). Default: 1 GiB.
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// let indexes = candor_search::Indexes::new(cache.path()).max_memory(256 << 20);
    /// assert_eq!(indexes.get_max_memory(), 256 << 20);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_memory(mut self, bytes: u64) -> Indexes {
        self.limits.max_memory = bytes;
        self
    }

    /// The most folders the open indexes watch, in all (on Linux, one
    /// inotify watch each; the user's limit is often 8,192 to a few
    /// hundred thousand). An index that would watch more is checked
    /// against the tree by stamps instead. Default: 65,536.
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// let indexes = candor_search::Indexes::new(cache.path()).max_watches(0); // never watch
    /// assert_eq!(indexes.get_max_watches(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_watches(mut self, folders: u64) -> Indexes {
        self.limits.max_watches = folders;
        self
    }

    /// The roots, as added.
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// assert!(candor_search::Indexes::new(cache.path()).get_roots().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_roots(&self) -> &[Tree] {
        &self.roots
    }

    /// See [`max_indexes`](Indexes::max_indexes).
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// assert_eq!(candor_search::Indexes::new(cache.path()).get_max_indexes(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_max_indexes(&self) -> usize {
        self.limits.max_indexes
    }

    /// See [`max_memory`](Indexes::max_memory).
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// assert_eq!(candor_search::Indexes::new(cache.path()).get_max_memory(), 1 << 30);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_max_memory(&self) -> u64 {
        self.limits.max_memory
    }

    /// See [`max_watches`](Indexes::max_watches).
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// assert_eq!(candor_search::Indexes::new(cache.path()).get_max_watches(), 65_536);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_max_watches(&self) -> u64 {
        self.limits.max_watches
    }

    /// The folder `path` as a tree, with its root's settings: `path`
    /// absolute and below one of the roots, or relative to the first
    /// root (`""` or `"."` is the root itself). Opened name by name from
    /// the root's handle, never through a link ([`Tree::folder`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutsideRoot`] when `path` is below no root (or the
    /// pool has none); the errors of [`Tree::folder`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{ErrorKind, Indexes, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let cache = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("src"))?;
    /// let indexes = Indexes::new(cache.path()).root(Tree::new(dir.path())?);
    /// let src = indexes.folder("src")?;
    /// assert_eq!(src.get_root(), dir.path().canonicalize()?.join("src"));
    /// let absolute = dir.path().canonicalize()?.join("src");
    /// assert_eq!(indexes.folder(absolute.to_str().unwrap())?.get_root(), src.get_root());
    /// let outside = indexes.folder("/").unwrap_err();
    /// assert!(matches!(outside.kind(), ErrorKind::OutsideRoot { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn folder(&self, path: &str) -> Result<Tree, Error> {
        let outside = || -> Error {
            ErrorKind::OutsideRoot {
                path: path.to_owned(),
            }
            .into()
        };
        if Path::new(path).is_absolute() {
            // The root the path is below, by its lexical prefix; the rest
            // is resolved from that root's handle.
            let root = self
                .roots
                .iter()
                .filter(|t| Path::new(path).starts_with(t.get_root()))
                .max_by_key(|t| t.get_root().as_os_str().len())
                .ok_or_else(outside)?;
            return root.folder(path);
        }
        self.roots.first().ok_or_else(outside)?.folder(path)
    }

    /// The corpus to ask about `tree` (a folder from
    /// [`folder`](Indexes::folder), its settings perhaps changed): its
    /// index when it is open, else its tree while the index is built in
    /// the background (the first call asks for the build). See the type's
    /// docs for the bounds and what is never indexed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutsideRoot`] when `tree`'s root is below none of the
    /// pool's roots.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Indexes, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let cache = tempfile::tempdir()?;
    /// # std::fs::write(dir.path().join("a.txt"), "needle\n")?;
    /// let indexes = Indexes::new(cache.path()).root(Tree::new(dir.path())?);
    /// let hidden_too = indexes.folder(".")?.hidden(true); // another index: other rules
    /// let found = indexes.serve(&hidden_too)?.corpus().search(&Query::literal("needle"), &Limits::new(), None)?;
    /// assert_eq!(found.len(), 1);
    /// // A tree made elsewhere is refused.
    /// # let other = tempfile::tempdir()?;
    /// assert!(indexes.serve(&Tree::new(other.path())?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn serve(&self, tree: &Tree) -> Result<Served, Error> {
        if !self
            .roots
            .iter()
            .any(|root| tree.get_root().starts_with(root.get_root()))
        {
            return Err(ErrorKind::OutsideRoot {
                path: tree.get_root().display().to_string(),
            }
            .into());
        }
        let scan = |state: IndexState| Served {
            corpus: Arc::new(tree.clone()),
            state,
        };
        if tree.get_max_depth().is_some() {
            return Ok(scan(IndexState::Unavailable(
                "a depth limit: an index records the whole walk".into(),
            )));
        }
        let key = tree.fingerprint();
        let store = self.store.join(format!("{key:016x}"));
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        let slot = state.slots.entry(key).or_insert_with(|| Slot {
            tree: tree.clone(),
            store: store.clone(),
            last_used: now,
            kind: if self.store_inside(tree) {
                SlotKind::Unavailable("the index folder is inside this tree".into())
            } else {
                SlotKind::Queued
            },
        });
        slot.last_used = now;
        let served = match &slot.kind {
            SlotKind::Ready { index, watched, .. } => Served {
                corpus: Arc::clone(index) as Arc<dyn Corpus + Send + Sync>,
                state: IndexState::Ready { watched: *watched },
            },
            SlotKind::Queued | SlotKind::Building => scan(IndexState::Building),
            SlotKind::Unavailable(why) => scan(IndexState::Unavailable(why.clone())),
        };
        if matches!(slot.kind, SlotKind::Queued) && !state.queue.contains(&key) {
            if state.queue.len() >= self.limits.max_indexes {
                // More folders asked for at once than may be open: this
                // one is asked again on its next call.
                state.slots.remove(&key);
                return Ok(scan(IndexState::Unavailable(
                    "more indexes are waiting to be built than may be open".into(),
                )));
            }
            state.queue.push(key);
            self.start_keeper(&mut state);
            self.shared.changed.notify_all();
        }
        forget_unused(
            &mut state,
            self.limits.max_indexes.saturating_mul(4).max(16),
        );
        Ok(served)
    }

    /// Waits until `tree`'s index is open, or cannot be (a folder that is
    /// not indexed, or a build that failed), for a caller that would
    /// rather wait than scan (and for tests).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{IndexState, Indexes, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let cache = tempfile::tempdir()?;
    /// let indexes = Indexes::new(cache.path()).root(Tree::new(dir.path())?);
    /// let tree = indexes.folder(".")?;
    /// let _ = indexes.serve(&tree)?;
    /// indexes.wait_until_built(&tree);
    /// assert!(matches!(indexes.serve(&tree)?.state(), IndexState::Ready { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait_until_built(&self, tree: &Tree) {
        let key = tree.fingerprint();
        let mut state = self.lock();
        while state
            .slots
            .get(&key)
            .is_some_and(|s| matches!(s.kind, SlotKind::Queued | SlotKind::Building))
        {
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// How many indexes are open now, and how many folders they watch.
    ///
    /// # Example
    ///
    /// ```
    /// # let cache = tempfile::tempdir()?;
    /// assert_eq!(candor_search::Indexes::new(cache.path()).open_now(), (0, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn open_now(&self) -> (usize, u64) {
        let state = self.lock();
        let mut open = 0;
        let mut watched_folders = 0;
        for slot in state.slots.values() {
            if let SlotKind::Ready {
                watched, folders, ..
            } = &slot.kind
            {
                open += 1;
                if *watched {
                    watched_folders += folders;
                }
            }
        }
        (open, watched_folders)
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the store folder lies within `tree` (the index would be
    /// part of what it indexes).
    fn store_inside(&self, tree: &Tree) -> bool {
        let store = self
            .store
            .canonicalize()
            .unwrap_or_else(|_| self.store.clone());
        store.starts_with(tree.get_root())
    }

    /// Starts the keeper thread once: it builds what is queued, one at a
    /// time, and updates behind indexes once a second. It holds the pool
    /// weakly and ends once the pool is dropped.
    fn start_keeper(&self, state: &mut PoolState) {
        if state.keeper {
            return;
        }
        state.keeper = true;
        let shared = Arc::downgrade(&self.shared);
        let limits = self.limits;
        std::thread::Builder::new()
            .name("candor-indexes".into())
            .spawn(move || keep(&shared, limits))
            .map_or_else(|_| state.keeper = false, drop);
    }
}

/// The keeper's loop (see `Indexes::start_keeper`).
fn keep(shared: &Weak<PoolShared>, limits: PoolBounds) {
    loop {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let job = {
            let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
            if state.queue.is_empty() {
                let (s, _) = shared
                    .changed
                    .wait_timeout(state, UPDATE_EVERY)
                    .unwrap_or_else(|p| p.into_inner());
                state = s;
            }
            match state.queue.is_empty() {
                true => None,
                false => {
                    let key = state.queue.remove(0);
                    state.slots.get_mut(&key).map(|slot| {
                        slot.kind = SlotKind::Building;
                        (key, slot.tree.clone(), slot.store.clone())
                    })
                }
            }
        };
        match job {
            Some((key, tree, store)) => build(&shared, limits, key, tree, &store),
            None => update_behind(&shared),
        }
    }
}

/// Opens or builds one index, watches it when the budget allows, and
/// makes room for it.
fn build(shared: &PoolShared, limits: PoolBounds, key: u64, tree: Tree, store: &Path) {
    // Its footprint reads the record: once, before the pool's lock.
    let opened = Index::open_or_build(tree, store).map(|index| {
        let footprint = index.footprint();
        (index, footprint)
    });
    let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
    let kind = match opened {
        Ok((_, (_, memory))) if memory > limits.max_memory => SlotKind::Unavailable(format!(
            "its record of the walk ({memory} bytes) is larger than the pool's max_memory ({})",
            limits.max_memory
        )),
        Ok((index, (folders, memory))) => {
            let watching: u64 = watched_folders(&state);
            // The watch is started with the lock let go: it updates the
            // index once (whatever changed before it ran).
            let may_watch = watching.saturating_add(folders) <= limits.max_watches;
            drop(state);
            let watched = may_watch && index.watch().unwrap_or(false);
            state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
            SlotKind::Ready {
                index: Arc::new(index),
                watched,
                folders,
                memory,
            }
        }
        Err(e) => SlotKind::Unavailable(format!("the index could not be built: {e}")),
    };
    if let Some(slot) = state.slots.get_mut(&key) {
        slot.kind = kind;
    }
    evict(&mut state, limits, key);
    shared.changed.notify_all();
}

/// Forgets the least recently served folders that are not indexed (and
/// not being built) beyond the `most` the pool remembers.
fn forget_unused(state: &mut PoolState, most: usize) {
    while state.slots.len() > most {
        let oldest = state
            .slots
            .iter()
            .filter(|(_, s)| matches!(s.kind, SlotKind::Unavailable(_)))
            .min_by_key(|(_, s)| s.last_used)
            .map(|(key, _)| *key);
        match oldest {
            Some(key) => state.slots.remove(&key),
            None => return,
        };
    }
}

/// The folders the open indexes watch.
fn watched_folders(state: &PoolState) -> u64 {
    state
        .slots
        .values()
        .map(|s| match s.kind {
            SlotKind::Ready {
                watched: true,
                folders,
                ..
            } => folders,
            _ => 0,
        })
        .sum()
}

/// Lets go of the least recently served indexes until the open ones fit
/// the bounds; `keep` (just built) goes last.
fn evict(state: &mut PoolState, limits: PoolBounds, keep: u64) {
    loop {
        let ready: Vec<(u64, u64, u64)> = state
            .slots
            .iter()
            .filter_map(|(key, s)| match s.kind {
                SlotKind::Ready { memory, .. } => Some((*key, s.last_used, memory)),
                _ => None,
            })
            .collect();
        let memory: u64 = ready.iter().map(|r| r.2).sum();
        if ready.len() <= limits.max_indexes && memory <= limits.max_memory {
            return;
        }
        let victim = ready
            .iter()
            .filter(|r| r.0 != keep)
            .min_by_key(|r| r.1)
            .or_else(|| ready.iter().find(|r| r.0 == keep))
            .map(|r| r.0);
        let Some(victim) = victim else {
            return;
        };
        // Served again, it opens from its files.
        state.slots.remove(&victim);
    }
}

/// Updates the open indexes that queries (or their watchers) found behind.
fn update_behind(shared: &PoolShared) {
    let behind: Vec<Arc<Index>> = {
        let state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        state
            .slots
            .values()
            .filter_map(|s| match &s.kind {
                SlotKind::Ready { index, .. } if index.is_behind() => Some(Arc::clone(index)),
                _ => None,
            })
            .collect()
    };
    for index in behind {
        // An update that fails leaves the index as it was: queries check
        // what it does not hold, and the next round tries again.
        let _ = index.update();
    }
}
