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

use std::ffi::OsString;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::SkippedInput;
use crate::error::{Error, ErrorKind};
use crate::index::snapshot::{Entry, FileEntry, FolderEntry, Snapshot, last_name};
use crate::index::stamp::{folder_stamp, parents_stamp};
use crate::search::{DirHandle, Job, Tree, is_within, open_dir, parse_position, stamp_at};

/// What the traversal meets, in path order.
pub(crate) enum Event<'s> {
    /// A folder entered: as recorded (`recorded`), or walked again.
    Folder {
        path: &'s str,
        dir: &'s Arc<DirHandle>,
        recorded: Option<&'s FolderEntry>,
        via_link: bool,
    },
    /// A file, its folder's handle and its name there, what the index
    /// recorded of it, if anything, and its stamp now (`None` when it
    /// cannot be stamped).
    File {
        path: String,
        dir: Arc<DirHandle>,
        name: OsString,
        recorded: Option<&'s FileEntry>,
        stamp: Option<u64>,
    },
    /// An input the walk leaves out.
    Skip(SkippedInput),
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
        let mut walk = self.tree.walk_within(start, filters)?.recording();
        loop {
            let job = walk.next();
            for entered in walk.take_entered() {
                // The folders on the way to `folder` were met already.
                if !is_within(&entered.rel, folder) {
                    continue;
                }
                let event = Event::Folder {
                    path: &entered.rel,
                    dir: &entered.dir,
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
                        path: rel,
                        dir,
                        name,
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

    /// The recorded entries, checked folder by folder.
    fn recorded(&self, visit: &mut Visit<'_, '_>) -> Result<(), Error> {
        let entries = &self.snap.entries;
        // The folders the entries being visited are in, innermost last.
        let mut stack: Vec<(usize, Arc<DirHandle>)> = Vec::new();
        let mut at = 0;
        if let Some(start) = self.start {
            // The folders on the way to the resume point come before it
            // in path order; each is checked, and the first that changed
            // is walked again from the resume point.
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
            for ancestor in &ancestors {
                let found = self.snap.first_from(ancestor);
                let is_folder =
                    matches!(entries.get(found), Some(Entry::Folder(f)) if f.path == *ancestor);
                let checked = if is_folder {
                    self.enter(found, &mut stack, visit)?
                } else {
                    // Not a folder the index knows: the innermost one it
                    // knows is walked again from the resume point.
                    None
                };
                match checked {
                    Some(ControlFlow::Break(())) => return Ok(()),
                    Some(ControlFlow::Continue(())) => continue,
                    None => {
                        self.changed.set(true);
                        let (folder_at, folder) = match (is_folder, stack.last()) {
                            (true, _) => (found, ancestor.clone()),
                            (false, Some((i, _))) => (*i, entries[*i].path().to_owned()),
                            (false, None) => (0, String::new()),
                        };
                        if self.walk(&folder, &[], visit)?.is_break() {
                            return Ok(());
                        }
                        if folder.is_empty() {
                            return Ok(());
                        }
                        stack.retain(|(i, _)| *i != folder_at);
                        at = self.snap.end_of(folder_at);
                        break;
                    }
                }
            }
            at = at.max(self.snap.first_from(start));
        }
        while let Some(entry) = entries.get(at) {
            match entry {
                Entry::Folder(_) => match self.enter(at, &mut stack, visit)? {
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
                    let dir = parent_of(entries, &mut stack, &file.path)?;
                    let name = last_name(&file.path).ok_or_else(|| unusable(&file.path))?;
                    let stamp = stamp_at(&dir, &name).ok();
                    if stamp != Some(file.stamp) || file.racy {
                        self.changed.set(true);
                    }
                    let event = Event::File {
                        path: file.path.clone(),
                        dir,
                        name,
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

    /// Checks the recorded folder at `at`: unchanged, it is entered (its
    /// handle pushed on `stack`) and visited: `Some(flow)`; changed (or
    /// unopened), `None`, and the caller walks it again.
    fn enter(
        &self,
        at: usize,
        stack: &mut Vec<(usize, Arc<DirHandle>)>,
        visit: &mut Visit<'_, '_>,
    ) -> Result<Option<ControlFlow<()>>, Error> {
        let entries = &self.snap.entries;
        let Entry::Folder(folder) = &entries[at] else {
            return Ok(None);
        };
        if folder.always {
            return Ok(None);
        }
        let dir = if folder.path.is_empty() {
            stack.clear();
            Arc::clone(self.tree.root_handle())
        } else {
            let parent = parent_of(entries, stack, &folder.path)?;
            let name = last_name(&folder.path).ok_or_else(|| unusable(&folder.path))?;
            match open_dir(&parent, &name) {
                Ok(dir) => Arc::new(dir),
                Err(_) => return Ok(None),
            }
        };
        if folder_stamp(&dir, folder.ignores) != Some(folder.stamp) {
            return Ok(None);
        }
        stack.push((at, Arc::clone(&dir)));
        let flow = visit(Event::Folder {
            path: &folder.path,
            dir: &dir,
            recorded: Some(folder),
            via_link: false,
        });
        Ok(Some(flow))
    }
}

/// The handle of the folder that holds `path`: the innermost folder on
/// `stack` that is its parent (the folders left are popped).
fn parent_of(
    entries: &[Entry],
    stack: &mut Vec<(usize, Arc<DirHandle>)>,
    path: &str,
) -> Result<Arc<DirHandle>, Error> {
    let parent = path.rfind('/').map_or("", |i| &path[..i]);
    while let Some((i, dir)) = stack.last() {
        let folder = entries[*i].path();
        if folder == parent {
            return Ok(Arc::clone(dir));
        }
        if is_within(parent, folder) {
            break;
        }
        stack.pop();
    }
    Err(unusable(path))
}

/// The error of an index whose entries are not a walk's.
fn unusable(path: &str) -> Error {
    ErrorKind::UnusableIndex {
        path: std::path::PathBuf::new(),
        reason: format!("its entry {path:?} is not below a folder it lists"),
    }
    .into()
}
