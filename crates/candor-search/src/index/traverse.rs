//! The index's walk: the tree as it is now, in path order, from what the
//! index recorded wherever that is still true, and from the tree's own
//! walk wherever it is not.
//!
//! A folder whose stamp is unchanged (its entries and its ignore files
//! are as recorded) is not listed: its recorded entries stand, and each
//! file in it is stamped (one `fstatat`, no read) so its visitor can
//! tell a changed file. A folder whose stamp moved (an entry added,
//! removed or renamed, an ignore file edited), that cannot be opened,
//! or that is listed by every query (see `FolderEntry::always`), is
//! walked again by the tree's own walk under the tree's own rules, with
//! everything below it: the walk is exact, and only the changed part of
//! the tree pays for it. When the ignore files above the root changed,
//! when links are followed, or when the query names paths (whose rules
//! differ: a named path is searched whatever the ignore files say), the
//! whole query takes the tree's walk, and the index only tells which of
//! the files it finds are unchanged.
//!
//! Trusting the record (watched: what the watcher did not report; or
//! everything, for an answer about the generation), a query that needs
//! no file it rules out visits only the entries every query visits (see
//! `format::is_special`), those the watcher reported, its resume point's
//! and the ones it wants (its candidates): the entries between hold
//! nothing it asks for, and are never read.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::Error;
use crate::SkippedInput;
use crate::Tree;
use crate::index::check::{LastStamps, Stamped, Stamps};
use crate::index::entry::{FileEntry, FolderEntry, RecordEntry, last_name, walk_order};
use crate::index::manifest::{Block, Damage, Held, Manifest};
use crate::index::snapshot::Snapshot;
use crate::index::stamp::parents_stamp;
use crate::index::stamp::{file_stamp_at, folder_stamp_at, fs_path};
#[cfg(target_os = "linux")]
use crate::seam::open_file_beneath;
use crate::seam::{DirHandle, Job, is_within, open_dir, open_file, parse_position, stamp_at};

/// What the traversal meets, in path order.
pub(crate) enum Event<'s> {
    /// A folder entered: as recorded (`recorded`), or walked again.
    Folder {
        path: &'s str,
        /// Its handle, when walked again (a recorded folder is not
        /// opened).
        dir: Option<&'s Arc<DirHandle>>,
        recorded: Option<&'s FolderEntry>,
        via_link: bool,
    },
    /// A file, its folder's handle and its name there (or the way to
    /// them), what the index recorded of it, if anything, and its stamp
    /// now (`None` when it cannot be stamped).
    File {
        path: Cow<'s, str>,
        dir: FileDir<'s>,
        recorded: Option<&'s FileEntry>,
        stamp: Option<u64>,
    },
    /// An input the walk leaves out.
    Skip(SkippedInput),
}

/// The folder of a file: its handle, or the way to open it when a
/// visitor needs it (a recorded folder is opened only to read a file in
/// it).
pub(crate) enum FileDir<'s> {
    Open(Arc<DirHandle>, OsString),
    Lazy(&'s Dirs<'s>),
}

impl FileDir<'_> {
    /// The handle of the folder of the file at `path`, opened name by
    /// name from the root's handle (no link followed) if need be, and the
    /// file's name there.
    pub(crate) fn get(&self, path: &str) -> Option<(Arc<DirHandle>, OsString)> {
        match self {
            FileDir::Open(dir, name) => Some((Arc::clone(dir), name.clone())),
            FileDir::Lazy(dirs) => {
                let dir = dirs.open(path.rfind('/').map_or("", |i| &path[..i]))?;
                Some((dir, last_name(path)?))
            }
        }
    }
}

impl FileDir<'_> {
    /// Where the file at `path` is, for a query to open it (see `FileAt`).
    pub(crate) fn place(&self, path: &str) -> Option<FileAt> {
        match self {
            FileDir::Open(dir, name) => Some(FileAt::In(Arc::clone(dir), name.clone())),
            #[cfg(target_os = "linux")]
            FileDir::Lazy(dirs) => Some(FileAt::Beneath(Arc::clone(dirs.root), path.to_owned())),
            #[cfg(not(target_os = "linux"))]
            FileDir::Lazy(_) => self.get(path).map(|(dir, name)| FileAt::In(dir, name)),
        }
    }
}

/// Where a file is, for a query to open it, following no link and
/// never leaving the root: its folder's handle and its name there; or,
/// in a folder the traversal did not open (recorded and unchanged), the
/// root's handle and its path, opened in one call where the system can
/// (Linux's `openat2`), else name by name as the folder would be.
pub(crate) enum FileAt {
    In(Arc<DirHandle>, OsString),
    #[cfg(target_os = "linux")]
    Beneath(Arc<DirHandle>, String),
}

/// Why a file could not be opened at its place.
pub(crate) enum FileAtError {
    /// Its folder could not be opened (gone, or no longer a folder).
    FolderGone,
    /// The file itself could not be.
    File(std::io::Error),
}

impl FileAt {
    /// Opens the file for reading.
    pub(crate) fn open(&self) -> Result<std::fs::File, FileAtError> {
        match self {
            FileAt::In(dir, name) => open_file(dir, name).map_err(FileAtError::File),
            #[cfg(target_os = "linux")]
            FileAt::Beneath(root, path) => {
                if let Some(Ok(file)) = fs_path(path).map(|p| open_file_beneath(root, &p)) {
                    return Ok(file);
                }
                // Name by name, as the folder would have been opened.
                let (folder, _) = path.rsplit_once('/').unwrap_or(("", path));
                let mut dir = Arc::clone(root);
                if !folder.is_empty() {
                    for part in folder.split('/') {
                        let name = last_name(part).ok_or(FileAtError::FolderGone)?;
                        dir = Arc::new(open_dir(&dir, &name).map_err(|_| FileAtError::FolderGone)?);
                    }
                }
                let name = last_name(path).ok_or(FileAtError::FolderGone)?;
                open_file(&dir, &name).map_err(FileAtError::File)
            }
        }
    }
}

/// The folders opened for the files read, innermost last: a file's
/// folder is opened from the deepest one held on its way.
pub(crate) struct Dirs<'s> {
    root: &'s Arc<DirHandle>,
    held: RefCell<Vec<(String, Arc<DirHandle>)>>,
}

impl Dirs<'_> {
    fn open(&self, folder: &str) -> Option<Arc<DirHandle>> {
        if folder.is_empty() {
            return Some(Arc::clone(self.root));
        }
        let mut held = self.held.borrow_mut();
        while held.last().is_some_and(|(p, _)| !is_within(folder, p)) {
            held.pop();
        }
        if let Some((p, dir)) = held.last() {
            if p == folder {
                return Some(Arc::clone(dir));
            }
        }
        let mut path = held.last().map_or(String::new(), |(p, _)| p.clone());
        let mut dir = held
            .last()
            .map_or(Arc::clone(self.root), |(_, d)| Arc::clone(d));
        let rest = if path.is_empty() {
            folder
        } else {
            &folder[path.len() + 1..]
        };
        for part in rest.split('/') {
            let name = last_name(part)?;
            dir = Arc::new(open_dir(&dir, &name).ok()?);
            if !path.is_empty() {
                path.push('/');
            }
            path.push_str(part);
            held.push((path.clone(), Arc::clone(&dir)));
        }
        Some(dir)
    }
}

/// What a traversal trusts of the record without a stat.
#[derive(Clone, Copy)]
pub(crate) enum Trust<'s> {
    /// Nothing: every entry's stamp is taken and compared (the checked
    /// mode).
    Nothing,
    /// Every entry but the paths a watcher reported (and the files with
    /// other names, whose writes it may not see): the watched mode.
    Unreported(&'s HashSet<String>),
    /// Every entry as recorded, folders that every query would list
    /// again too: an answer about the index's generation, which says so.
    Everything,
}

/// The places of the entries a sparse traversal must show beyond those
/// every query is shown (see `format::is_special`): `wanted(at)` is the
/// first at or after `at`, if any (a query's candidates).
pub(crate) type Wanted<'w> = dyn FnMut(usize) -> Result<Option<usize>, Damage> + 'w;

/// Where a traversal stands: the snapshot, the tree, where to resume.
pub(crate) struct Traversal<'s> {
    pub(crate) snap: &'s Snapshot,
    pub(crate) tree: &'s Tree,
    /// The resume point: a position as the tree writes it.
    pub(crate) start: Option<&'s str>,
    /// The query's path filters (normalized); empty for the whole tree.
    pub(crate) filters: &'s [String],
    /// Set when the traversal meets a change the snapshot does not hold
    /// (a folder walked again, a file new or changed).
    pub(crate) changed: Cell<bool>,
    /// What is trusted without a stat.
    pub(crate) trust: Trust<'s>,
    /// Stamps of this generation taken earlier (by a checked query), used
    /// rather than taken again (an update after that query).
    pub(crate) known: Cell<Option<Vec<u64>>>,
    /// Where the stamps a checked traversal takes are kept (a query's,
    /// for the next update).
    pub(crate) keep: Option<&'s LastStamps>,
    /// Damage met in the record (a block whose checksum does not match)
    /// is passed by the tree's own walk, from the last entry handed on,
    /// reading every file from there (an index opened to be rebuilt);
    /// else it is refused.
    pub(crate) fallback: bool,
    /// Set when damage was met.
    pub(crate) damaged: Cell<bool>,
}

/// Why a traversal ended early.
enum Stop {
    Error(Error),
    Damage(Damage),
}

impl From<Damage> for Stop {
    fn from(d: Damage) -> Stop {
        Stop::Damage(d)
    }
}

type VisitEvent<'v, 's> = dyn FnMut(Event<'_>) -> ControlFlow<()> + 'v;

/// An entry of the record: held in its block, or one of the specials.
enum Got<'m> {
    Held(Held),
    Special(&'m RecordEntry),
}

impl Got<'_> {
    fn entry(&self) -> &RecordEntry {
        match self {
            Got::Held(held) => held.entry(),
            Got::Special(entry) => entry,
        }
    }
}

/// Reads entries in order, the block in use kept; checked, with their
/// stamps now.
struct Look<'m, 's> {
    manifest: &'m Manifest,
    stamps: Option<&'m Stamps<'s>>,
    /// The block in use, and its stamps when checked.
    block: Option<(Arc<Block>, Option<Arc<Stamped>>)>,
}

impl Look<'_, '_> {
    /// The entry at `at` and, checked, its stamp now.
    fn get(&mut self, at: usize) -> Result<(Held, Option<u64>), Damage> {
        let within = self
            .block
            .as_ref()
            .is_some_and(|(b, _)| b.first <= at && at < b.end());
        if !within {
            let b = self.manifest.block_of(at);
            self.block = Some(match self.stamps {
                Some(stamps) => {
                    let stamped = stamps.block(b)?;
                    (Arc::clone(&stamped.block), Some(stamped))
                }
                None => (self.manifest.block(b)?, None),
            });
        }
        let Some((block, stamped)) = &self.block else {
            unreachable!("a block was just read")
        };
        let stamp = stamped.as_ref().and_then(|s| s.of(at));
        Ok((Held::new(Arc::clone(block), at), stamp))
    }
}

/// The places a sparse traversal visits, in order: the special entries,
/// the entries a watcher reported, the resume point's, and the wanted.
struct Sparse<'m, 'w, 'x> {
    specials: &'m [(usize, RecordEntry)],
    reported: Vec<usize>,
    start: Option<usize>,
    wanted: &'x mut Wanted<'w>,
    /// The wanted's last answer, and the place it was asked for.
    answer: Option<(usize, Option<usize>)>,
}

impl<'m> Sparse<'m, '_, '_> {
    /// The first place at or after `at` to visit, with the entry when it
    /// is a special one.
    fn next(&mut self, at: usize) -> Result<Option<(usize, Option<&'m RecordEntry>)>, Damage> {
        let s = self.specials.partition_point(|(i, _)| *i < at);
        self.specials = &self.specials[s..];
        let r = self.reported.partition_point(|&i| i < at);
        self.reported.drain(..r);
        let wanted = match self.answer {
            Some((asked, answer)) if asked <= at && answer.is_none_or(|a| a >= at) => answer,
            _ => {
                let answer = (self.wanted)(at)?;
                self.answer = Some((at, answer));
                answer
            }
        };
        let special = self.specials.first().map(|(i, _)| *i);
        let next = [
            special,
            self.reported.first().copied(),
            self.start.filter(|&s| s >= at),
            wanted,
        ]
        .into_iter()
        .flatten()
        .min();
        Ok(next.map(|n| {
            let entry = self.specials.first().filter(|(i, _)| *i == n);
            (n, entry.map(|(_, e)| e))
        }))
    }
}

impl Traversal<'_> {
    /// Hands each event, in path order, to `visit` until it breaks. With
    /// `wanted`, and a trust that takes no stamps, the traversal is
    /// sparse: it visits only the entries every query is shown, those a
    /// watcher reported, the resume point's and the wanted ones (the
    /// entries between hold nothing the query asks for), and its cost is
    /// theirs, not the tree's.
    ///
    /// # Errors
    ///
    /// Those of the tree's walk (a bad glob), and damage in the record
    /// (see `fallback`).
    pub(crate) fn run(
        &self,
        wanted: Option<&mut Wanted<'_>>,
        visit: &mut VisitEvent<'_, '_>,
    ) -> Result<(), Error> {
        let (gitignore, parent_ignores) = self.tree.reads_ignores();
        let manifest = &self.snap.entries;
        let root = if manifest.len() == 0 {
            Ok(false)
        } else {
            manifest
                .entry(0)
                .map(|h| matches!(h.entry(), RecordEntry::Folder(f) if f.path.is_empty()))
        };
        let whole = !self.filters.is_empty() || self.tree.follows_links();
        // The path of the last file or skip handed on: a walk past damage
        // goes on after it.
        let mut last = String::new();
        let mut handed = false;
        let ran = {
            let mut tracked = |event: Event<'_>| {
                let path = match &event {
                    Event::File { path, .. } => Some(path.as_ref()),
                    Event::Skip(input) => Some(input.path()),
                    Event::Folder { .. } => None,
                };
                if let Some(path) = path {
                    last.clear();
                    last.push_str(path);
                    handed = true;
                }
                visit(event)
            };
            match root {
                Err(damage) => Err(Stop::Damage(damage)),
                Ok(root) => {
                    let unknown = !root
                        || parents_stamp(self.tree.get_root(), gitignore, parent_ignores)
                            != self.snap.parents();
                    if unknown {
                        self.changed.set(true);
                    }
                    if unknown || whole {
                        self.walk("", self.filters, self.start, None, true, &mut tracked)
                            .map(|_| ())
                    } else {
                        self.recorded(wanted, &mut tracked)
                    }
                }
            }
        };
        match ran {
            Ok(()) => Ok(()),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Damage(damage)) if self.fallback => {
                self.damaged.set(true);
                self.changed.set(true);
                let after = handed.then_some(last.as_str());
                let from = after.or(self.start);
                match self.walk("", self.filters, from, after, false, visit) {
                    Ok(_) => Ok(()),
                    Err(Stop::Error(e)) => Err(e),
                    Err(Stop::Damage(_)) => Err(manifest.unusable(&damage)),
                }
            }
            Err(Stop::Damage(damage)) => Err(manifest.unusable(&damage)),
        }
    }

    /// The tree's walk of the folder at `folder` (`""`: the whole tree),
    /// within `filters`, from `start`, past `after` (what comes before it
    /// or at it is left out); each file looked up in the record when
    /// `lookups`.
    fn walk(
        &self,
        folder: &str,
        filters: &[String],
        start: Option<&str>,
        after: Option<&str>,
        lookups: bool,
        visit: &mut VisitEvent<'_, '_>,
    ) -> Result<ControlFlow<()>, Stop> {
        let start = start.and_then(parse_position);
        let within;
        let filters = if folder.is_empty() {
            filters
        } else {
            within = [folder.to_owned()];
            &within[..]
        };
        let passed = |path: &str| after.is_some_and(|a| !walk_order(path, a).is_gt());
        // A folder walked again is no path the caller named.
        let walk = match folder.is_empty() {
            true => self.tree.walk_within(start, filters),
            false => self.tree.walk_folders(start, filters),
        };
        let mut walk = walk.map_err(Stop::Error)?.recording();
        loop {
            let job = walk.next();
            for entered in walk.take_entered() {
                // The folders on the way to `folder` were met already.
                if !is_within(&entered.rel, folder) || passed(&entered.rel) {
                    continue;
                }
                let event = Event::Folder {
                    path: &entered.rel,
                    dir: Some(&entered.dir),
                    recorded: None,
                    via_link: entered.via_link,
                };
                if visit(event).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            let flow = match job {
                None => return Ok(ControlFlow::Continue(())),
                Some(Job::Skip(input)) if passed(input.path()) => ControlFlow::Continue(()),
                Some(Job::Skip(input)) => visit(Event::Skip(input)),
                Some(Job::File { rel, .. }) if passed(&rel) => ControlFlow::Continue(()),
                Some(Job::File { rel, dir, name }) => {
                    let held = match lookups {
                        true => self.snap.entries.find(&rel)?,
                        false => None,
                    };
                    let recorded = match held.as_ref().map(Held::entry) {
                        Some(RecordEntry::File(f)) => Some(f),
                        _ => None,
                    };
                    let stamp = stamp_at(&dir, &name).ok();
                    if recorded.is_none_or(|f| stamp != Some(f.stamp) || f.racy) {
                        self.changed.set(true);
                    }
                    visit(Event::File {
                        path: Cow::Owned(rel),
                        dir: FileDir::Open(dir, name),
                        recorded,
                        stamp,
                    })
                }
            };
            if flow.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
    }

    /// The recorded entries, checked folder by folder: their stamps taken
    /// ahead on a second thread when the tree has one (the checked mode),
    /// or trusted.
    fn recorded(
        &self,
        wanted: Option<&mut Wanted<'_>>,
        visit: &mut VisitEvent<'_, '_>,
    ) -> Result<(), Stop> {
        let manifest = &*self.snap.entries;
        let first = match self.start {
            Some(start) => manifest.first_from(start)?,
            None => 0,
        };
        if !matches!(self.trust, Trust::Nothing) {
            return self.entries_from(first, None, wanted, visit);
        }
        let stamps = Stamps::new(
            manifest,
            self.tree.root_handle(),
            manifest.block_of(first),
            self.known.take(),
            self.keep.is_some(),
        );
        let helps = self.tree.get_threads() > 1 && manifest.len() - first > HELP_AFTER;
        let ran = std::thread::scope(|scope| {
            if helps {
                scope.spawn(|| stamps.help());
            }
            let ran = self.entries_from(first, Some(&stamps), None, visit);
            stamps.stop();
            ran
        });
        if let Some(keep) = self.keep {
            keep.keep(self.snap.generation, stamps);
        }
        ran
    }

    /// The recorded entries from the resume point (whose entry is at
    /// `first`, or would be), every one, or, with `wanted`, sparsely.
    fn entries_from(
        &self,
        first: usize,
        stamps: Option<&Stamps<'_>>,
        wanted: Option<&mut Wanted<'_>>,
        visit: &mut VisitEvent<'_, '_>,
    ) -> Result<(), Stop> {
        let manifest = &*self.snap.entries;
        let mut look = Look {
            manifest,
            stamps,
            block: None,
        };
        let dirs = Dirs {
            root: self.tree.root_handle(),
            held: RefCell::new(Vec::new()),
        };
        let mut at = 0;
        if let Some(start) = self.start {
            // The folders on the way to the resume point come before it
            // in path order; each is checked, and the first that changed
            // (or is not a folder the index knows) is walked again from
            // the resume point.
            let mut ancestors = vec![String::new()];
            let mut path = String::new();
            let parts: Vec<&str> = start.split('/').collect();
            for part in &parts[..parts.len().saturating_sub(1)] {
                if !path.is_empty() {
                    path.push('/');
                }
                path.push_str(part);
                ancestors.push(path.clone());
            }
            let mut known = None;
            for ancestor in &ancestors {
                let found = manifest.first_from(ancestor)?;
                let got = match found < manifest.len() {
                    true => Some(look.get(found)?),
                    false => None,
                };
                let folder = got.as_ref().and_then(|(held, stamp)| match held.entry() {
                    RecordEntry::Folder(f) if f.path == *ancestor => Some((f, *stamp)),
                    _ => None,
                });
                let checked = folder
                    .filter(|(f, stamp)| self.unchanged(f, *stamp))
                    .map(|(f, _)| visit(folder_event(f)));
                match checked {
                    Some(ControlFlow::Break(())) => return Ok(()),
                    Some(ControlFlow::Continue(())) => known = Some(found),
                    None => {
                        let folder_at = if folder.is_some() { Some(found) } else { known };
                        self.changed.set(true);
                        let folder = match folder_at {
                            Some(i) => manifest.entry(i)?.entry().path().to_owned(),
                            None => String::new(),
                        };
                        if self
                            .walk(&folder, &[], self.start, None, true, visit)?
                            .is_break()
                        {
                            return Ok(());
                        }
                        match folder_at {
                            Some(i) if !folder.is_empty() => at = manifest.end_of(i, &folder)?,
                            _ => return Ok(()),
                        }
                        break;
                    }
                }
            }
            at = at.max(first);
        }
        let mut sparse = match wanted {
            Some(wanted) => Some(Sparse {
                specials: manifest.specials(),
                reported: self.reported(at)?,
                start: self.start.map(|_| first),
                wanted,
                answer: None,
            }),
            None => None,
        };
        loop {
            let mut special = None;
            if let Some(sparse) = sparse.as_mut() {
                match sparse.next(at)? {
                    Some((next, entry)) => (at, special) = (next, entry),
                    None => return Ok(()),
                }
            }
            if at >= manifest.len() {
                return Ok(());
            }
            let (got, stamp) = match special {
                Some(entry) => (Got::Special(entry), None),
                None => {
                    let (held, stamp) = look.get(at)?;
                    (Got::Held(held), stamp)
                }
            };
            let flow = match got.entry() {
                RecordEntry::Folder(folder) if self.unchanged(folder, stamp) => {
                    at += 1;
                    visit(folder_event(folder))
                }
                RecordEntry::Folder(folder) => {
                    self.changed.set(true);
                    if self
                        .walk(&folder.path, &[], self.start, None, true, visit)?
                        .is_break()
                    {
                        return Ok(());
                    }
                    at = manifest.end_of(at, &folder.path)?;
                    ControlFlow::Continue(())
                }
                RecordEntry::File(file) => {
                    let stamp = self.file_stamp(file, stamp);
                    if stamp != Some(file.stamp) || file.racy {
                        self.changed.set(true);
                    }
                    let event = Event::File {
                        path: Cow::Borrowed(&file.path),
                        dir: FileDir::Lazy(&dirs),
                        recorded: Some(file),
                        stamp,
                    };
                    at += 1;
                    visit(event)
                }
                RecordEntry::Skip(skip) => {
                    at += 1;
                    visit(Event::Skip(skip.input.clone()))
                }
            };
            if flow.is_break() {
                return Ok(());
            }
        }
    }

    /// The places, from `at` on, of the entries the watcher reported (in
    /// the watched mode); a path it reported that the record does not
    /// hold is found by its folder, which it reported too.
    fn reported(&self, at: usize) -> Result<Vec<usize>, Damage> {
        let Trust::Unreported(seen) = self.trust else {
            return Ok(Vec::new());
        };
        let mut places = Vec::new();
        for path in seen {
            if let Some(held) = self.snap.entries.find(path)? {
                if held.at() >= at {
                    places.push(held.at());
                }
            }
        }
        places.sort_unstable();
        places.dedup();
        Ok(places)
    }

    /// Whether the recorded folder holds what it held (checked: by
    /// `stamp`, its stamp now), so that its recorded entries stand.
    fn unchanged(&self, folder: &FolderEntry, stamp: Option<u64>) -> bool {
        match self.trust {
            Trust::Everything => true,
            _ if folder.always => false,
            Trust::Nothing => stamp == Some(folder.stamp),
            Trust::Unreported(seen) if !seen.contains(&folder.path) => true,
            Trust::Unreported(_) => {
                folder_stamp_at(self.tree.root_handle(), &folder.path, folder.ignores)
                    == Some(folder.stamp)
            }
        }
    }

    /// The stamp of the recorded file now, as far as the traversal asks
    /// (checked: `stamp`, taken ahead).
    fn file_stamp(&self, file: &FileEntry, stamp: Option<u64>) -> Option<u64> {
        match self.trust {
            Trust::Nothing => stamp,
            Trust::Everything => Some(file.stamp),
            // Watched and not reported: trusted, unless a write through
            // another name could have gone unreported (asked of this file
            // alone).
            Trust::Unreported(seen) if !seen.contains(&file.path) && !file.linked => {
                Some(file.stamp)
            }
            Trust::Unreported(_) => file_stamp_at(self.tree.root_handle(), &file.path),
        }
    }
}

/// The event of a recorded folder entered.
fn folder_event(folder: &FolderEntry) -> Event<'_> {
    Event::Folder {
        path: &folder.path,
        dir: None,
        recorded: Some(folder),
        via_link: false,
    }
}

/// Below this many entries to check, no helper thread is started.
const HELP_AFTER: usize = 2048;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Read as _;
    use std::os::unix::ffi::OsStrExt as _;
    use std::sync::Arc;

    use super::{FileAt, FileAtError};
    use crate::seam::open_root;

    /// A file below the root opens in one call, or name by name, and
    /// never through a link: one in place of a folder, or of the file.
    #[test]
    fn a_place_below_the_root_opens_through_no_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f.txt"), "inside").unwrap();
        std::fs::write(outside.path().join("f.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("to-a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a/out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("f.txt"), root.join("a/b/g.txt")).unwrap();
        let handle = Arc::new(open_root(root).unwrap());
        let read = |path: &str| {
            FileAt::Beneath(Arc::clone(&handle), path.to_owned())
                .open()
                .map(|mut f| {
                    let mut text = String::new();
                    f.read_to_string(&mut text).unwrap();
                    text
                })
        };
        assert_eq!(read("a/b/f.txt").ok().as_deref(), Some("inside"));
        assert!(matches!(read("to-a/b/f.txt"), Err(FileAtError::FolderGone)));
        assert!(matches!(read("a/out/f.txt"), Err(FileAtError::FolderGone)));
        assert!(matches!(read("a/b/g.txt"), Err(FileAtError::File(_))));
        assert!(matches!(read("a/b/none.txt"), Err(FileAtError::File(_))));
        // A name that is not UTF-8, written with the tree's escapes.
        let odd = std::ffi::OsStr::from_bytes(b"odd\xff.txt");
        std::fs::write(root.join("a").join(odd), "odd").unwrap();
        assert_eq!(read("a/odd\\xff.txt").ok().as_deref(), Some("odd"));
    }
}
