//! The index corpus (feature `index`): `Index`, a `Tree` whose queries
//! read only the files that may match, and that is never wrong about the
//! tree as it is when asked.
//!
//! One concept per file: `plan/`, what a file must contain for a query
//! to match in it (planned from the matcher's syntax tree); `grams/`, the
//! trigram posting lists of the files; `entry.rs`, an entry of the record
//! of the tree (a folder, a file, an input left out); `manifest.rs`, a
//! generation's entries read from its file a block at a time;
//! `snapshot.rs`, one generation (its entries, its posting lists);
//! `stamp.rs`, what tells a change without a read; `check.rs`, the stamps
//! a checked query takes ahead of it; `traverse.rs`, the tree as it is
//! now, from the entries where they still hold and the tree's walk where
//! they do not (every entry, or only those a query needs); `build.rs`, a
//! generation written down from a traversal; `format.rs`, the files on
//! disk; `store.rs`, the folder and its atomic switch; `entries.rs`, what
//! the index finds for a query, in path order; `parts.rs`, a large file
//! read in its candidate blocks only; `counting.rs`, the counting phase
//! on several threads; `as_source.rs`, the index as the engine's source.
//! `docs/INDEX.md` gives the format on disk, field by field.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::Tree;
use crate::seam::{Order, Source};
use crate::{AsOf, Error, ErrorKind};

mod as_source;
mod build;
mod check;
mod counting;
mod entries;
mod entry;
pub(crate) mod format;
pub(crate) mod grams;
mod indexes;
mod manifest;
mod parts;
pub(crate) mod plan;
mod snapshot;
mod stamp;
mod store;
mod traverse;
mod watch;

pub use indexes::{IndexState, Indexes, Served};

pub(crate) use build::BuildSettings;
use build::Builder;
use check::LastStamps;
use entry::{RecordEntry, Segment};
use format::Written;
use grams::SpillTo;
use manifest::Likeness;
use snapshot::Snapshot;
use store::{LoadError, NewBase, Store};
use traverse::{Traversal, Trust};
use watch::Watching;

/// A [`Tree`] with an index on disk: every [`Corpus`](crate::Corpus)
/// query gives the same items, order, totals and `skipped` as the tree
/// gives on the same files, and reads only the files that may match.
/// Its cursors are the tree's: a page of the tree resumes on its index,
/// and the other way round (a scan answers while the index is built,
/// then the index), and they are as long, so a page fitted to
/// `max_bytes`, which counts the cursor, is cut where the tree's is.
/// Like the tree's, a cursor is refused as stale
/// ([`ErrorKind::StaleCursor`]) when the file it resumes in changed, a
/// file before it was added or removed, or its own file left the walk,
/// since it was issued (see **Cursors survive updates** below).
///
/// The index records, in path order, what the tree's walk met (folders,
/// files, the inputs it left out) with each one's stamp, and the files'
/// trigrams. A query walks that record instead of the tree, and
/// **checks** it as it goes: a folder whose stamp moved (an entry added,
/// removed or renamed, an ignore file changed) is walked again with the
/// tree's own rules, and so is everything below it; a file whose stamp
/// (device, inode, size, modification and change times) moved is read;
/// an unchanged file is read only when the query's plan says it may
/// match. Checking costs stats, not reads, and a capped page checks only
/// as far as its cut. So an answer is about the tree as it is when
/// asked, whether or not the index was updated since.
///
/// **What a query costs.** Checked (the default), a query stats every
/// entry of the record as far as its cut (about a microsecond each, on
/// two threads), and reads the files that changed and those its plan
/// lets through: the cost of a stat of the tree, plus its candidates.
/// Watched ([`watch`](Index::watch)), a query visits only the files its
/// plan lets through (found from the posting lists), the entries every
/// query visits (inputs left out, files not indexed, folders listed
/// again) and what the watcher reported since the last update: its cost
/// follows its answer, its page and the changes, not the tree's size.
/// Not checking the tree ([`check_tree(false)`](Index::check_tree)), the
/// same, and the answer says as of when. A budget of files or scanned
/// bytes makes a query pass every file it rules out (it counts them), as
/// the tree's search does.
///
/// **A rewrite within one clock tick.** A file rewritten with the same
/// size within the file system's clock tick could keep its stamp. A
/// file or folder whose modification time lies within a tick of the
/// start of the build that recorded it is never trusted: every query
/// reads (or lists) it again, until an [`update`](Index::update) made
/// after the tick records it. The tick is 2 s (FAT's, the coarsest) for
/// a time in whole seconds, 50 ms for one with a fraction of a second (a
/// file system that keeps nanoseconds, stamped from the kernel's coarse
/// clock). Any later rewrite moves the change time, which the stamp
/// holds.
///
/// **Generations.** Each build or update writes a new generation beside
/// the current one and then switches a pointer to it by a rename: a
/// crash leaves the previous generation usable, and a reader sees one
/// or the other. A damaged index, one of another format version or
/// built under other walk rules is refused
/// ([`ErrorKind::UnusableIndex`]), never read as truth.
///
/// **Cursors survive updates.** A cursor resumes as a [`Tree`]'s does:
/// in the file it stopped in, at its place there (or after the file,
/// when its page held the file's last item), and on in path order. It
/// records that file's stamp (device, inode, size, modification and
/// change times, taken from the tree as the tree's cursors take it, not
/// from the index), and the files the walk passes up to it (a sum of
/// their paths' hashes). It is refused as stale
/// ([`ErrorKind::StaleCursor`]) when the file it resumes inside changed,
/// when a file before it was added or removed, or when the file its page
/// listed last is no longer one of the walk's (removed, renamed, ignored,
/// no longer a file); an excerpt's cursor, when its file changed. An
/// update, a compaction, the watcher, or another process opening the
/// index from disk in between changes nothing of that: pages go on
/// while files elsewhere in the tree are edited. The files after the
/// cursor's are read as they are when the next page comes to them (a
/// file added there is found, one removed is not). The text of the files
/// before it is not read again: a later page's `start` counts the items
/// the earlier pages held, and its total (with
/// [`count_total`](crate::Limits::count_total)) adds what the tree holds
/// from the cursor on now, so an `eq` total is exact for a tree whose
/// files before the cursor were not edited while it was paged. Cursors
/// issued by earlier versions, which named the index's generation,
/// resume the same way.
///
/// **Damage, not forgery.** The checksums catch damage (a flipped bit, a
/// torn or cut write, another index's file in its place). They cannot
/// catch a file rewritten on purpose with its checksums made to match:
/// whoever can write the index's folder can make it leave files out, as
/// with any cache a process trusts. Keep the folder where only those who
/// may change the answers write.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Index, Limits, Query, Tree};
/// # let dir = tempfile::tempdir()?;
/// # let store = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.rs"), "fn parse() {}\n")?;
/// std::fs::write(dir.path().join("b.rs"), "fn other() {}\n")?;
/// let index = Index::open_or_build(Tree::new(dir.path())?, store.path().join("idx"))?;
/// let found = index.search(&Query::literal("parse"), &Limits::new(), None)?;
/// assert_eq!(found.items()[0].path, "a.rs");
/// // A file changed since the build is seen: the answer is about the tree now.
/// std::fs::write(dir.path().join("b.rs"), "fn parse_more() {}\n")?;
/// assert_eq!(index.search(&Query::literal("parse"), &Limits::new(), None)?.len(), 2);
///
/// // A cursor survives an update: only a change to the file it resumes
/// // in, or a file added or removed before it, would make it stale.
/// let first = index.search(&Query::literal("parse"), &Limits::new().limit(1), None)?;
/// std::fs::write(dir.path().join("c.rs"), "fn parse_late() {}\n")?;
/// index.update()?;
/// let next = index.search(&Query::literal("parse"), &Limits::new(), first.next_cursor())?;
/// assert_eq!((next.start(), next.len()), (1, 2), "b.rs and c.rs");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Index {
    tree: Tree,
    store: Store,
    current: RwLock<Arc<Snapshot>>,
    /// One update at a time.
    updating: Mutex<()>,
    /// A query (or the watcher) met a change this generation does not
    /// hold.
    behind: Arc<AtomicBool>,
    /// The watcher, in the watched mode.
    watching: Mutex<Option<Watching>>,
    /// Opened by `open_or_build`: damage that a query finds (a block of
    /// the trigram table or a posting list whose checksum does not
    /// match) is answered by reading every file the query checks, and
    /// the next update builds the index again; else it is refused.
    rebuild: bool,
    /// A query found the base's posting lists damaged.
    damaged: AtomicBool,
    /// The stamps the last checked query took, for the next update.
    last_stamps: LastStamps,
    /// How its updates write their posting lists.
    settings: BuildSettings,
    /// Unwatched, a query checks the record against the tree (else its
    /// answer is about the generation, and says so).
    check_tree: bool,
    /// The files the walk passes before a path, as counted for a cursor
    /// while watched with nothing reported (see `as_source.rs`).
    orders: Mutex<HashMap<OrderKey, Order>>,
}

/// What a kept count of the files before a path is about: the
/// generation, the query's path filters, the path, and whether the path
/// itself is counted (see `Source::order_before`).
type OrderKey = (u64, Vec<String>, String, bool);

/// What a query trusts of the index without checking the tree.
pub(crate) enum QueryTrust {
    /// Nothing: every stamp is compared.
    Checked,
    /// What the watcher did not report.
    Watched(HashSet<String>),
    /// Everything: the answer is about the generation, and says so.
    AsOf,
}

impl Index {
    /// Builds an index of `tree` at the folder `path` (created if
    /// missing): a new generation from a full walk and a read of every
    /// file, on the tree's threads.
    ///
    /// Memory, whatever the size of the tree, besides the walk's record
    /// (a path and a few numbers per file and folder): each thread holds
    /// one file at a time (files over 16 MiB are not indexed, and every
    /// query reads them); the trigram lists are built in a buffer of
    /// 64 MiB (and as much again while it is sorted), spilled to a file
    /// in the index's folder when it fills, and merged into the index's
    /// files as they are written. The spill file has no name from the
    /// moment it is made where the system allows it (unix), so not even
    /// a crash leaves it behind; elsewhere it is removed when the build
    /// ends, whether it succeeds or fails. Queries read the lists from
    /// the index's files, as after [`open`](Index::open).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Write`] when the index's files cannot be written, and
    /// the errors of the tree's walk (a bad glob).
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = candor_search::Index::build(candor_search::Tree::new(dir.path())?, store.path())?;
    /// assert!(index.generation() > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(tree: Tree, path: impl AsRef<Path>) -> Result<Index, Error> {
        Index::build_with(tree, path.as_ref(), BuildSettings::default())
    }

    /// [`Index::build`] with `settings`, which its updates keep (the
    /// tests' way to small blocks and early spills).
    pub(crate) fn build_with(
        tree: Tree,
        path: &Path,
        settings: BuildSettings,
    ) -> Result<Index, Error> {
        let store = Store {
            dir: path.to_owned(),
            rules: tree.fingerprint(),
        };
        let previous = store.current().ok();
        let snap = full_build(&tree, &store, previous, settings)?;
        let mut index = Index::with(tree, store, snap);
        index.settings = settings;
        Ok(index)
    }

    /// Opens the index of `tree` at `path`, as it was last written.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnusableIndex`] when there is none, or it is corrupt,
    /// truncated, of another format version or built under other walk
    /// rules than `tree`'s.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{ErrorKind, Index, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let missing = Index::open(Tree::new(dir.path())?, store.path());
    /// assert!(matches!(missing.unwrap_err().kind(), ErrorKind::UnusableIndex { .. }));
    /// Index::build(Tree::new(dir.path())?, store.path())?;
    /// // Other walk rules: refused.
    /// let other = Index::open(Tree::new(dir.path())?.hidden(true), store.path());
    /// assert!(matches!(other.unwrap_err().kind(), ErrorKind::UnusableIndex { .. }));
    /// assert!(Index::open(Tree::new(dir.path())?, store.path()).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(tree: Tree, path: impl AsRef<Path>) -> Result<Index, Error> {
        let store = Store {
            dir: path.as_ref().to_owned(),
            rules: tree.fingerprint(),
        };
        match store.load(None) {
            Ok(snap) => Ok(Index::with(tree, store, snap)),
            Err(LoadError::Unusable(e)) => Err(e),
            Err(LoadError::Missing) => Err(ErrorKind::UnusableIndex {
                path: store.dir.clone(),
                reason: "there is no index here".into(),
            }
            .into()),
        }
    }

    /// Opens the index of `tree` at `path`, or builds it when there is
    /// none or it cannot be used (see [`open`](Index::open)).
    ///
    /// Damage that shows only when a query reads it (a part of the
    /// posting lists whose checksum does not match) is not refused as
    /// [`open`](Index::open)'s index refuses it: that query reads every
    /// file it checks (the tree's answer, at the cost of a scan), the
    /// index reports itself [behind](Index::is_behind), and the next
    /// [`update`](Index::update) builds it again.
    ///
    /// # Errors
    ///
    /// Those of [`build`](Index::build).
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// std::fs::write(store.path().join("CURRENT"), "garbage")?;
    /// let index = candor_search::Index::open_or_build(candor_search::Tree::new(dir.path())?, store.path())?;
    /// assert!(index.generation() > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_or_build(tree: Tree, path: impl AsRef<Path>) -> Result<Index, Error> {
        let store = Store {
            dir: path.as_ref().to_owned(),
            rules: tree.fingerprint(),
        };
        let mut index = match store.load(None) {
            Ok(snap) => Index::with(tree, store, snap),
            Err(_) => Index::build(tree, path)?,
        };
        index.rebuild = true;
        Ok(index)
    }

    fn with(tree: Tree, store: Store, snap: Snapshot) -> Index {
        Index {
            tree,
            store,
            current: RwLock::new(Arc::new(snap)),
            updating: Mutex::new(()),
            behind: Arc::new(AtomicBool::new(false)),
            watching: Mutex::new(None),
            rebuild: false,
            damaged: AtomicBool::new(false),
            last_stamps: LastStamps::default(),
            settings: BuildSettings::default(),
            check_tree: true,
            orders: Mutex::new(HashMap::new()),
        }
    }

    /// The folders the current generation records (a watcher watches
    /// each), and about how many bytes its record of the walk holds in
    /// memory at most (the manifest's block index, keys and special
    /// entries, and the blocks it keeps decoded).
    pub(crate) fn footprint(&self) -> (u64, u64) {
        let snap = self.snapshot();
        (snap.entries.folders(), snap.entries.held_bytes())
    }

    /// The generation queries run on now.
    fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.current.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// The generation a query runs on and what it trusts: in the watched
    /// mode, what the watcher did not report since the generation was
    /// read from the tree (both read under the generation's lock, which an
    /// update holds while it switches them); unwatched and not checking
    /// the tree, everything.
    fn snapshot_to_query(&self) -> (Arc<Snapshot>, QueryTrust) {
        let passed = self.pass_barrier();
        let current = self.current.read().unwrap_or_else(|p| p.into_inner());
        let watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
        let seen = watching
            .as_ref()
            .filter(|_| passed)
            .and_then(|w| w.seen.lock().unwrap_or_else(|p| p.into_inner()).to_check());
        let trust = match seen {
            Some(seen) => QueryTrust::Watched(seen),
            None if watching.is_none() && !self.check_tree => QueryTrust::AsOf,
            None => QueryTrust::Checked,
        };
        (Arc::clone(&current), trust)
    }

    /// Watched, waits until the watcher has reported every change made
    /// before now (see `watch.rs`); false when that cannot be known, and
    /// the caller must check everything.
    fn pass_barrier(&self) -> bool {
        let barrier = {
            let watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
            watching.as_ref().map(|w| Arc::clone(&w.barrier))
        };
        barrier.is_none_or(|b| b.pass())
    }

    /// What an update starts from: the current generation, the paths the
    /// watcher reported since it was read (`None`: check everything), and
    /// the number of the watcher's last event (`None`: not watched), all
    /// read under the generation's lock.
    fn to_update(&self) -> (Arc<Snapshot>, Option<HashSet<String>>, Option<u64>) {
        let passed = self.pass_barrier();
        let current = self.current.read().unwrap_or_else(|p| p.into_inner());
        let watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
        let (trust, upto) = match watching.as_ref() {
            Some(w) => {
                let seen = w.seen.lock().unwrap_or_else(|p| p.into_inner());
                (seen.to_check().filter(|_| passed), Some(seen.now()))
            }
            None => (None, None),
        };
        (Arc::clone(&current), trust, upto)
    }

    /// Installs `snap` as the current generation; the watcher's reports
    /// up to `upto` are forgotten with the same lock held.
    fn install(&self, snap: Snapshot, upto: Option<u64>) {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        if let Some(upto) = upto {
            let watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(w) = watching.as_ref() {
                w.seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .forget(upto);
            }
        }
        *current = Arc::new(snap);
    }

    /// Watches the tree: from now on, queries trust every file and folder
    /// the watcher did not report changed, without a stat (the watched
    /// mode), and check only the others. The index is brought up to date
    /// once the watcher runs, by an update that checks the whole tree
    /// (an index opened from disk may be older than the tree), and until
    /// that update is done nothing is trusted, so nothing changed before
    /// the watcher ran is missed.
    ///
    /// A watcher reports a change a moment after it is made, so each query
    /// (and update) first waits until the watcher has reported every
    /// change made before it began: it creates and removes a file of its
    /// own in a folder of its own beside the index's files (`.watch-*`),
    /// which the same watcher watches, and waits for that file's event
    /// (on Linux, inotify reports one watcher's events in the order of
    /// the changes). Where the watcher gives no such order (other
    /// systems), or that event does not come within 2 s, the query checks
    /// everything.
    ///
    /// A watcher reports a change under the name it was made through. A
    /// file that has another name (a hard link, perhaps outside the tree)
    /// when it is indexed is stat'ed by every query; a file given another
    /// name after the index last read it, then written through that name,
    /// is not seen until the watcher reports it for another reason (the
    /// checked mode sees it: its change time moved). A write through a
    /// shared memory map (`mmap`) makes no event at all: a file changed
    /// only that way is not seen either, until it is written otherwise or
    /// an update checks the tree while it is not watched.
    ///
    /// Returns false, and stays in the checked mode, when the tree cannot
    /// be watched (on Linux, more folders than the user's inotify watch
    /// limit). When the watcher may have lost events (a queue overflow),
    /// queries check everything until the next [`update`](Index::update):
    /// the fallback is exact. Call `update` now and then (when
    /// [`is_behind`](Index::is_behind)) so that the changes the watcher
    /// reports are indexed.
    ///
    /// # Errors
    ///
    /// Those of [`update`](Index::update).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Index, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = Index::build(Tree::new(dir.path())?, store.path())?;
    /// let watched = index.watch()?;
    /// std::fs::write(dir.path().join("a.txt"), "needle\n")?;
    /// let found = index.search(&Query::literal("needle"), &Limits::new(), None)?;
    /// assert_eq!(found.len(), 1, "watched: {watched}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn watch(&self) -> Result<bool, Error> {
        let started = Watching::start(
            self.tree.get_root(),
            &self.store.dir,
            Arc::clone(&self.behind),
        );
        let Ok(watching) = started else {
            return Ok(false);
        };
        *self.watching.lock().unwrap_or_else(|p| p.into_inner()) = Some(watching);
        // Whatever changed before the watcher ran is read now.
        self.update()?;
        Ok(true)
    }

    /// Whether a query checks the index against the tree as it goes
    /// (the default, `true`), when no watcher does: a folder whose stamp
    /// moved is walked again, a file whose stamp moved is read. Set to
    /// `false`, a query trusts the index as its generation recorded the
    /// tree, without a stat: its cost is the files that may match and
    /// the entries every query visits (inputs left out, files not
    /// indexed), whatever the tree's size, and every answer says so and
    /// as of when ([`Disclosure::as_of`](crate::Disclosure::as_of): the
    /// time the generation last read the tree, `"as_of"` on the wire). A
    /// file changed since is read as it is now if the index finds it a
    /// candidate; one added since is missed, one removed is skipped as
    /// vanished. [`update`](Index::update) brings the index up to date,
    /// and the answers' time with it. In the watched mode (see
    /// [`watch`](Index::watch)) queries trust what the watcher did not
    /// report, checking the rest, and their answers are about the tree
    /// as it is: this setting does not apply.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Index, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("a.rs"), "fn parse() {}\n")?;
    /// let index = Index::build(Tree::new(dir.path())?, store.path())?.check_tree(false);
    /// let found = index.search(&Query::literal("parse"), &Limits::new(), None)?;
    /// assert_eq!(found.len(), 1);
    /// assert!(found.disclosure().as_of().is_some(), "an answer about the index as of then");
    /// assert!(found.to_json()?.contains("\"as_of\""));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn check_tree(mut self, check: bool) -> Index {
        self.check_tree = check;
        self
    }

    /// Whether a query checks the index against the tree (see
    /// [`check_tree`](Index::check_tree)).
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = candor_search::Index::build(candor_search::Tree::new(dir.path())?, store.path())?;
    /// assert!(index.get_check_tree());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_check_tree(&self) -> bool {
        self.check_tree
    }

    /// The time the answers of a query made now are about, when they
    /// trust the index without checking the tree: not checking it, and
    /// not watched.
    pub(crate) fn as_of_now(&self) -> Option<AsOf> {
        if self.check_tree {
            return None;
        }
        let watching = self.watching.lock().unwrap_or_else(|p| p.into_inner());
        if watching.is_some() {
            return None;
        }
        Some(AsOf::from_unix_ms(self.snapshot().read_ns / 1_000_000))
    }

    /// The current generation's number. Every build and update that
    /// changes anything makes a new one, larger than the last.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = candor_search::Index::build(candor_search::Tree::new(dir.path())?, store.path())?;
    /// let before = index.generation();
    /// assert!(!index.update()?, "nothing changed");
    /// std::fs::write(dir.path().join("new.txt"), "x\n")?;
    /// # std::thread::sleep(std::time::Duration::from_millis(10));
    /// assert!(index.update()?);
    /// assert!(index.generation() > before);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.snapshot().generation
    }

    /// Returns true when a query since the last build or update met a
    /// change in the tree that the index does not hold yet (a folder
    /// listed again, a file new or changed): an [`update`](Index::update)
    /// would make the next queries cheaper. The answers were right either
    /// way.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Index, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = Index::build(Tree::new(dir.path())?, store.path())?;
    /// std::fs::write(dir.path().join("new.txt"), "x\n")?;
    /// let found = index.search(&Query::literal("x"), &Limits::new(), None)?;
    /// assert_eq!(found.len(), 1);
    /// assert!(index.is_behind());
    /// index.update()?;
    /// # std::thread::sleep(std::time::Duration::from_millis(10));
    /// # let _ = index.search(&Query::literal("x"), &Limits::new(), None)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_behind(&self) -> bool {
        self.behind.load(Ordering::Relaxed)
    }

    /// The tree this index is of.
    ///
    /// # Example
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = candor_search::Index::build(candor_search::Tree::new(dir.path())?, store.path())?;
    /// assert_eq!(index.get_tree().get_root(), dir.path().canonicalize()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn get_tree(&self) -> &Tree {
        &self.tree
    }

    /// Brings the index up to date with the tree (watched, as far as the
    /// watcher reported changes; else checking every stamp): the folders
    /// that changed are walked again, the files that changed or are new are
    /// read into a small delta over the base, the files gone are
    /// dropped, and the result is written as a new generation (compacted
    /// into a new base when the delta has grown large). Returns whether
    /// anything changed; when nothing did, no generation is written.
    ///
    /// Queries need no update to be right (they check the tree as they
    /// go); an update makes them cheaper again. Queries running meanwhile
    /// see the old generation or the new one.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Write`] when the index's files cannot be written, and
    /// the errors of the tree's walk.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Index, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = Index::build(Tree::new(dir.path())?, store.path())?;
    /// std::fs::write(dir.path().join("a.txt"), "needle\n")?;
    /// index.update()?;
    /// let found = index.search(&Query::literal("needle"), &Limits::new(), None)?;
    /// assert_eq!(found.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update(&self) -> Result<bool, Error> {
        self.update_with(false)
    }

    /// Brings the index up to date with the tree **as the last checked
    /// query saw it**: as [`update`](Index::update), except that the
    /// stamps that query took are not taken again (a query that
    /// stopped at its cut took those before it; the others are taken
    /// now). For a process that runs one query and then updates the
    /// index (a command-line tool), this halves the stats.
    ///
    /// A change made after that query took its stamp may be left out of
    /// the new generation; it is seen as any change is: the next query
    /// checks it, reads it, and reports the index [behind](Index::is_behind),
    /// and the next update records it. Answers are right either way.
    /// With no such query since the last update (or in the watched mode),
    /// this is `update`.
    ///
    /// # Errors
    ///
    /// Those of [`update`](Index::update).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Index, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// # let store = tempfile::tempdir()?;
    /// let index = Index::build(Tree::new(dir.path())?, store.path())?;
    /// std::fs::write(dir.path().join("a.txt"), "needle\n")?;
    /// let found = index.search(&Query::literal("needle"), &Limits::new(), None)?;
    /// assert_eq!(found.len(), 1);
    /// if index.is_behind() {
    ///     assert!(index.update_as_seen()?);
    /// }
    /// assert!(!index.is_behind());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update_as_seen(&self) -> Result<bool, Error> {
        self.update_with(true)
    }

    fn update_with(&self, as_seen: bool) -> Result<bool, Error> {
        let _one = self.updating.lock().unwrap_or_else(|p| p.into_inner());
        // The watcher's reports up to now are read from the tree below.
        let (old, trust, upto) = self.to_update();
        self.behind.store(false, Ordering::Relaxed);
        let built_ns = stamp::now_ns();
        // Stamps a query took, used as they are: the generation is about
        // the tree as of when they were taken.
        let known = match (as_seen, &trust) {
            (true, None) => self.last_stamps.take(old.generation),
            _ => None,
        };
        let read_ns = known
            .as_ref()
            .map_or(built_ns, |k| k.began_ns.min(built_ns));
        let (gitignore, parent_ignores) = self.tree.reads_ignores();
        let parents = stamp::parents_stamp(self.tree.get_root(), gitignore, parent_ignores);
        let spill = SpillTo {
            dir: self.store.dir.clone(),
            budget: self.settings.budget,
        };
        let block_bytes = self.settings.block_bytes;
        let mut builder = Builder::new(&self.tree, built_ns, Segment::Delta, spill, block_bytes);
        let traversal = Traversal {
            snap: &old,
            tree: &self.tree,
            start: None,
            filters: &[],
            changed: Cell::new(false),
            // Watched, what the watcher did not report is trusted here
            // too: an update after one change reads that change.
            trust: trust.as_ref().map_or(Trust::Nothing, Trust::Unreported),
            known: Cell::new(known.map(|k| k.stamps)),
            keep: None,
            fallback: false,
            damaged: Cell::new(false),
        };
        let mut damaged = self.damaged.load(Ordering::Relaxed);
        match traversal.run(None, &mut |event| builder.visit(event)) {
            Ok(()) => {}
            // Damage in the record: built again, when asked.
            Err(e) if self.rebuild && matches!(e.kind(), ErrorKind::UnusableIndex { .. }) => {
                damaged = true;
            }
            Err(e) => return Err(e),
        }
        let (entries, delta) = builder.finish()?;
        // Damaged, or unreadable now, the record is unlike the walk's.
        let likeness = match damaged {
            false => old.entries.compare(&entries).unwrap_or(Likeness::Different),
            true => Likeness::Different,
        };
        if parents == old.parents() && likeness == Likeness::Same {
            // Nothing changed: the same generation, read from the tree now.
            let mut same = Snapshot::clone(&old);
            same.read_ns = read_ns;
            self.install(same, upto);
            return Ok(false);
        }
        // No file came or went (only texts changed, or folders and
        // skips): the counts of the files before a path kept for cursors
        // hold for the new generation too.
        let same_files = likeness != Likeness::Different;
        let (base_files, delta_files) = segment_sizes(&entries);
        // The delta is held in memory while it is written into the
        // manifest: past a size, a new base is built (in bounded memory)
        // instead.
        let snap = if damaged
            || delta_files > COMPACT_AFTER + base_files / 8
            || delta.pairs() > DELTA_MAX_PAIRS
        {
            drop((entries, delta));
            full_build(&self.tree, &self.store, Some(old.generation), self.settings)?
        } else {
            let spilled = |e| self.store.spill_error(e);
            let mut lists = delta.into_lists().map_err(spilled)?;
            let delta = grams::Grams::from_lists(&mut lists).map_err(spilled)?;
            drop(lists);
            let generation = next_generation(Some(old.generation));
            let written = Written {
                base_generation: old.base_generation(),
                parents,
                read_ns,
                entries: &entries,
                delta: &delta,
            };
            self.store.write(generation, &written, None)?;
            drop((entries, delta));
            let reuse = Some((old.base_generation(), &old.base));
            let snap = self.store.open_generation(generation, reuse)?;
            if same_files {
                self.carry_orders(old.generation, generation);
            }
            snap
        };
        self.install(snap, upto);
        if damaged {
            self.damaged.store(false, Ordering::Relaxed);
        }
        Ok(true)
    }
}

/// How many files of `entries` the base's posting lists hold, and the
/// delta's.
fn segment_sizes(entries: &[RecordEntry]) -> (usize, usize) {
    let mut sizes = (0, 0);
    for e in entries {
        if let RecordEntry::File(f) = e {
            match f.segment {
                Segment::Base => sizes.0 += 1,
                Segment::Delta => sizes.1 += 1,
            }
        }
    }
    sizes
}

/// A delta of more files than this (and an eighth of the base) is
/// compacted into a new base.
const COMPACT_AFTER: usize = 256;

/// A delta of more (trigram, id) pairs than this is compacted into a new
/// base: a delta is held in memory (on source text, 1 to 2 bytes a pair).
const DELTA_MAX_PAIRS: u64 = 16 << 20;

/// A generation number after `previous`: the time in nanoseconds, so
/// that an index removed and built again does not reuse the numbers of
/// the cursors issued under the old one.
fn next_generation(previous: Option<u64>) -> u64 {
    stamp::now_ns().max(previous.map_or(1, |p| p.saturating_add(1)))
}

/// A full build of `tree`: a new base, its posting lists built as
/// `settings` say (spilled to the store's folder past their budget), written to
/// a file of the store as they are merged, then the generation that
/// builds on it, written as the current one of `store` and opened from
/// there.
fn full_build(
    tree: &Tree,
    store: &Store,
    previous: Option<u64>,
    settings: BuildSettings,
) -> Result<Snapshot, Error> {
    build_base(tree, store, previous, settings)?.write(store)
}

/// A full build whose base is written (under a temporary name, removed
/// if it is dropped) and whose generation is not yet.
struct Built {
    generation: u64,
    parents: u64,
    read_ns: u64,
    entries: Vec<RecordEntry>,
    base: NewBase,
}

/// The first half of `full_build`: the walk, and the base's file.
fn build_base(
    tree: &Tree,
    store: &Store,
    previous: Option<u64>,
    settings: BuildSettings,
) -> Result<Built, Error> {
    let built_ns = stamp::now_ns();
    let (gitignore, parent_ignores) = tree.reads_ignores();
    let parents = stamp::parents_stamp(tree.get_root(), gitignore, parent_ignores);
    let spill = SpillTo {
        dir: store.dir.clone(),
        budget: settings.budget,
    };
    let mut builder = Builder::new(tree, built_ns, Segment::Base, spill, settings.block_bytes);
    let empty = Snapshot::empty();
    Traversal {
        snap: &empty,
        tree,
        start: None,
        filters: &[],
        changed: Cell::new(false),
        trust: Trust::Nothing,
        known: Cell::new(None),
        keep: None,
        fallback: false,
        damaged: Cell::new(false),
    }
    .run(None, &mut |event| builder.visit(event))?;
    let (entries, postings) = builder.finish()?;
    let generation = next_generation(previous);
    let mut lists = postings.into_lists().map_err(|e| store.spill_error(e))?;
    let base = store.write_base(generation, &mut lists)?;
    Ok(Built {
        generation,
        parents,
        read_ns: built_ns,
        entries,
        base,
    })
}

impl Built {
    /// The second half of `full_build`: the generation written as the
    /// current one of `store` (its base renamed to its own name), and
    /// opened from there.
    fn write(self, store: &Store) -> Result<Snapshot, Error> {
        let Built {
            generation,
            parents,
            read_ns,
            entries,
            base,
        } = self;
        let grams = Arc::new(base.grams.clone());
        let written = Written {
            base_generation: generation,
            parents,
            read_ns,
            entries: &entries,
            delta: &grams::Grams::default(),
        };
        store.write(generation, &written, Some(base))?;
        drop(entries);
        store.open_generation(generation, Some((generation, &grams)))
    }
}
