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

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::Error;
use crate::SkippedInput;
use crate::index::check::{LastStamps, Stamps};
use crate::index::snapshot::{Entry, FileEntry, FolderEntry, Snapshot, last_name};
use crate::index::stamp::parents_stamp;
use crate::index::stamp::{file_stamp_at, fs_path};
#[cfg(target_os = "linux")]
use crate::open_file_beneath;
use crate::{DirHandle, Job, Tree, is_within, open_dir, open_file, parse_position, stamp_at};

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
    /// Where the file at `path` is, for a query to open it (see `Place`).
    pub(crate) fn place(&self, path: &str) -> Option<Place> {
        match self {
            FileDir::Open(dir, name) => Some(Place::In(Arc::clone(dir), name.clone())),
            #[cfg(target_os = "linux")]
            FileDir::Lazy(dirs) => Some(Place::Beneath(Arc::clone(dirs.root), path.to_owned())),
            #[cfg(not(target_os = "linux"))]
            FileDir::Lazy(_) => self.get(path).map(|(dir, name)| Place::In(dir, name)),
        }
    }
}

/// Where a file is, for a query to open it, following no link and
/// never leaving the root: its folder's handle and its name there; or,
/// in a folder the traversal did not open (recorded and unchanged), the
/// root's handle and its path, opened in one call where the system can
/// (Linux's `openat2`), else name by name as the folder would be.
pub(crate) enum Place {
    In(Arc<DirHandle>, OsString),
    #[cfg(target_os = "linux")]
    Beneath(Arc<DirHandle>, String),
}

/// Why a file could not be opened at its place.
pub(crate) enum PlaceError {
    /// Its folder could not be opened (gone, or no longer a folder).
    FolderGone,
    /// The file itself could not be.
    File(std::io::Error),
}

impl Place {
    /// Opens the file for reading.
    pub(crate) fn open(&self) -> Result<std::fs::File, PlaceError> {
        match self {
            Place::In(dir, name) => open_file(dir, name).map_err(PlaceError::File),
            #[cfg(target_os = "linux")]
            Place::Beneath(root, path) => {
                if let Some(Ok(file)) = fs_path(path).map(|p| open_file_beneath(root, &p)) {
                    return Ok(file);
                }
                // Name by name, as the folder would have been opened.
                let (folder, _) = path.rsplit_once('/').unwrap_or(("", path));
                let mut dir = Arc::clone(root);
                if !folder.is_empty() {
                    for part in folder.split('/') {
                        let name = last_name(part).ok_or(PlaceError::FolderGone)?;
                        dir = Arc::new(open_dir(&dir, &name).map_err(|_| PlaceError::FolderGone)?);
                    }
                }
                let name = last_name(path).ok_or(PlaceError::FolderGone)?;
                open_file(&dir, &name).map_err(PlaceError::File)
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
    pub(crate) changed: std::cell::Cell<bool>,
    /// With a watcher: the paths it reported; every other recorded entry
    /// is trusted without a stat.
    pub(crate) trust: Option<&'s HashSet<String>>,
    /// What becomes of the stamps taken (see `LastStamps`).
    pub(crate) reuse: Reuse<'s>,
}

/// What a traversal does with the stamps a checked one takes.
#[derive(Clone, Copy)]
pub(crate) enum Reuse<'s> {
    /// Nothing.
    No,
    /// Kept for the next update (a query).
    Keep(&'s LastStamps),
    /// Those kept are used, and the others taken (an update).
    Use(&'s LastStamps),
}

type Visit<'v, 's> = dyn FnMut(Event<'_>) -> ControlFlow<()> + 'v;

impl Traversal<'_> {
    /// Hands each event, in path order, to `visit` until it breaks.
    ///
    /// # Errors
    ///
    /// Those of the tree's walk (a bad glob).
    pub(crate) fn run(&self, visit: &mut Visit<'_, '_>) -> Result<(), Error> {
        let (gitignore, parent_ignores) = self.tree.reads_ignores();
        let unknown = !matches!(self.snap.entries.first(), Some(Entry::Folder(f)) if f.path.is_empty())
            || parents_stamp(self.tree.get_root(), gitignore, parent_ignores) != self.snap.parents;
        if unknown {
            self.changed.set(true);
        }
        if unknown || !self.filters.is_empty() || self.tree.follows_links() {
            let _ = self.walk("", self.filters, visit)?;
            return Ok(());
        }
        self.recorded(visit)
    }

    /// The tree's walk of the folder at `folder` (`""`: the whole tree),
    /// within `filters`, from the resume point; each file looked up in
    /// the snapshot.
    fn walk(
        &self,
        folder: &str,
        filters: &[String],
        visit: &mut Visit<'_, '_>,
    ) -> Result<ControlFlow<()>, Error> {
        let start = self.start.and_then(parse_position);
        let within;
        let filters = if folder.is_empty() {
            filters
        } else {
            within = [folder.to_owned()];
            &within[..]
        };
        // A folder walked again is no path the caller named.
        let walk = match folder.is_empty() {
            true => self.tree.walk_within(start, filters)?,
            false => self.tree.walk_folders(start, filters)?,
        };
        let mut walk = walk.recording();
        loop {
            let job = walk.next();
            for entered in walk.take_entered() {
                // The folders on the way to `folder` were met already.
                if !is_within(&entered.rel, folder) {
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
            let event = match job {
                None => return Ok(ControlFlow::Continue(())),
                Some(Job::Skip(input)) => Event::Skip(input),
                Some(Job::File { rel, dir, name }) => {
                    let recorded = match self.snap.find(&rel) {
                        Some(Entry::File(f)) => Some(f),
                        _ => None,
                    };
                    let stamp = stamp_at(&dir, &name).ok();
                    if recorded.is_none_or(|f| stamp != Some(f.stamp) || f.racy) {
                        self.changed.set(true);
                    }
                    Event::File {
                        path: Cow::Owned(rel),
                        dir: FileDir::Open(dir, name),
                        recorded,
                        stamp,
                    }
                }
            };
            if visit(event).is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
    }

    /// The recorded entries, checked folder by folder, their stamps
    /// taken ahead on a second thread when the tree has one.
    fn recorded(&self, visit: &mut Visit<'_, '_>) -> Result<(), Error> {
        let first = self.start.map_or(0, |s| self.snap.first_from(s));
        let mut stamps = Stamps::new(self.snap, self.tree.root_handle(), first);
        if let (Reuse::Use(last), None) = (self.reuse, self.trust) {
            if let Some(known) = last.take(self.snap.generation) {
                stamps = stamps.with(&known);
            }
        }
        let dirs = Dirs {
            root: self.tree.root_handle(),
            held: RefCell::new(Vec::new()),
        };
        let helps = self.trust.is_none()
            && self.tree.get_threads() > 1
            && self.snap.entries.len() - first > HELP_AFTER;
        std::thread::scope(|scope| {
            if helps {
                scope.spawn(|| stamps.help());
            }
            let ran = self.recorded_with(&stamps, &dirs, visit);
            stamps.stop();
            ran
        })?;
        if let (Reuse::Keep(last), None) = (self.reuse, self.trust) {
            last.keep(self.snap.generation, &stamps);
        }
        Ok(())
    }

    fn recorded_with(
        &self,
        stamps: &Stamps<'_>,
        dirs: &Dirs<'_>,
        visit: &mut Visit<'_, '_>,
    ) -> Result<(), Error> {
        let entries = &self.snap.entries;
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
                let found = self.snap.first_from(ancestor);
                let is_folder =
                    matches!(entries.get(found), Some(Entry::Folder(f)) if f.path == *ancestor);
                let checked = if is_folder {
                    self.enter(found, stamps, visit)
                } else {
                    None
                };
                match checked {
                    Some(ControlFlow::Break(())) => return Ok(()),
                    Some(ControlFlow::Continue(())) => known = Some(found),
                    None => {
                        let folder_at = if is_folder { Some(found) } else { known };
                        self.changed.set(true);
                        let folder = folder_at.map_or("", |i| entries[i].path());
                        if self.walk(folder, &[], visit)?.is_break() {
                            return Ok(());
                        }
                        match folder_at {
                            Some(i) if !folder.is_empty() => at = self.snap.end_of(i),
                            _ => return Ok(()),
                        }
                        break;
                    }
                }
            }
            at = at.max(self.snap.first_from(start));
        }
        while let Some(entry) = entries.get(at) {
            match entry {
                Entry::Folder(_) => match self.enter(at, stamps, visit) {
                    Some(ControlFlow::Break(())) => return Ok(()),
                    Some(ControlFlow::Continue(())) => at += 1,
                    None => {
                        self.changed.set(true);
                        if self.walk(entry.path(), &[], visit)?.is_break() {
                            return Ok(());
                        }
                        at = self.snap.end_of(at);
                    }
                },
                Entry::File(file) => {
                    let stamp = match self.trust {
                        // Watched and not reported: trusted, unless a
                        // write through another name could have gone
                        // unreported (asked of this file alone).
                        Some(seen) if !seen.contains(&file.path) => match file.linked {
                            false => Some(file.stamp),
                            true => file_stamp_at(self.tree.root_handle(), &file.path),
                        },
                        _ => stamps.of(at),
                    };
                    if stamp != Some(file.stamp) || file.racy {
                        self.changed.set(true);
                    }
                    let event = Event::File {
                        path: Cow::Borrowed(&file.path),
                        dir: FileDir::Lazy(dirs),
                        recorded: Some(file),
                        stamp,
                    };
                    if visit(event).is_break() {
                        return Ok(());
                    }
                    at += 1;
                }
                Entry::Skip(skip) => {
                    if visit(Event::Skip(skip.input.clone())).is_break() {
                        return Ok(());
                    }
                    at += 1;
                }
            }
        }
        Ok(())
    }

    /// Checks the recorded folder at `at`: unchanged, it is visited
    /// (`Some(flow)`); changed or gone, `None`, and the caller walks it
    /// again.
    fn enter(
        &self,
        at: usize,
        stamps: &Stamps<'_>,
        visit: &mut Visit<'_, '_>,
    ) -> Option<ControlFlow<()>> {
        let Entry::Folder(folder) = &self.snap.entries[at] else {
            return None;
        };
        let unchanged = match self.trust {
            Some(seen) if !seen.contains(&folder.path) => true,
            _ => stamps.of(at) == Some(folder.stamp),
        };
        if folder.always || !unchanged {
            return None;
        }
        Some(visit(Event::Folder {
            path: &folder.path,
            dir: None,
            recorded: Some(folder),
            via_link: false,
        }))
    }
}

/// Below this many entries to check, no helper thread is started.
const HELP_AFTER: usize = 2048;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Read as _;
    use std::os::unix::ffi::OsStrExt as _;
    use std::sync::Arc;

    use super::{Place, PlaceError};
    use crate::open_root;

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
            Place::Beneath(Arc::clone(&handle), path.to_owned())
                .open()
                .map(|mut f| {
                    let mut text = String::new();
                    f.read_to_string(&mut text).unwrap();
                    text
                })
        };
        assert_eq!(read("a/b/f.txt").ok().as_deref(), Some("inside"));
        assert!(matches!(read("to-a/b/f.txt"), Err(PlaceError::FolderGone)));
        assert!(matches!(read("a/out/f.txt"), Err(PlaceError::FolderGone)));
        assert!(matches!(read("a/b/g.txt"), Err(PlaceError::File(_))));
        assert!(matches!(read("a/b/none.txt"), Err(PlaceError::File(_))));
        // A name that is not UTF-8, written with the tree's escapes.
        let odd = std::ffi::OsStr::from_bytes(b"odd\xff.txt");
        std::fs::write(root.join("a").join(odd), "odd").unwrap();
        assert_eq!(read("a/odd\\xff.txt").ok().as_deref(), Some("odd"));
    }
}
