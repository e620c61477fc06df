//! The tree as the engine's `Source`: its identity for cursors, and the
//! paths a caller names (path filters, `find_in_file`, `excerpt`, a
//! cursor's position), found, stamped and opened name by name from the
//! root's handle. The walk's files take the scheduler's way
//! (`schedule.rs`).

use std::ops::ControlFlow;

use super::Tree;
use crate::confine::{self, Kind, Target, Unresolved};
use crate::engine::{FileOutcome, Plan, QuerySearch};
use crate::path::{os_name, parse_position, parse_tree_path};
use crate::reader::Opened;
use crate::source::Entry;
use crate::source::{Resolved, Source};
use crate::walk::Job;
use crate::{Error, ErrorKind};
use crate::{Fingerprint, SkipReason, SkippedInput};

impl Tree {
    /// Finds the caller's path `path` (read as `names`) name by name
    /// from the root's handle. A link on the way is refused unless links
    /// are followed; hidden and ignore rules do not apply to a named path.
    fn locate(&self, path: &str, names: Vec<Vec<u8>>) -> Result<Target, Error> {
        self.locate_following(path, names, self.follow_links)
    }

    /// [`locate`](Tree::locate), following links or not as `follow` says.
    fn locate_following(
        &self,
        path: &str,
        names: Vec<Vec<u8>>,
        follow: bool,
    ) -> Result<Target, Error> {
        let components = names.into_iter().map(os_name).collect();
        confine::resolve(&self.root_dir, &self.root, components, follow).map_err(|why| match why {
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
        })
    }
}

impl Tree {
    /// A tree of the folder `path` below this tree's root, with this
    /// tree's settings: for a server that takes the folder to search with
    /// each call, confined to the roots it was started with.
    ///
    /// `path` is relative to the root (`/` separators), or absolute and
    /// below the root. It is opened name by name from the root's handle,
    /// never through a symbolic link (whether or not this tree follows
    /// links in its walk), so that a folder swapped for a link while it
    /// is opened cannot lead outside; `..` may not leave the root. The
    /// new tree's root is this root joined with `path` as given, and its
    /// folder handle is the one opened here.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutsideRoot`] when `path` leaves the root,
    /// [`ErrorKind::NotFound`] when it is missing,
    /// [`ErrorKind::InvalidArgument`] when it goes through a symbolic link
    /// or is not a folder.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, ErrorKind, Limits, Query, Tree};
    /// # let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("src"))?;
    /// std::fs::write(dir.path().join("src/lib.rs"), "fn parse() {}\n")?;
    /// std::fs::write(dir.path().join("notes.txt"), "parse later\n")?;
    /// let root = Tree::new(dir.path())?;
    /// let src = root.folder("src")?;
    /// let found = src.search(&Query::literal("parse"), &Limits::new(), None)?;
    /// assert_eq!(found.items()[0].path, "lib.rs"); // paths are the folder's own
    /// assert!(matches!(root.folder("../..").unwrap_err().kind(), ErrorKind::OutsideRoot { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn folder(&self, path: &str) -> Result<Tree, Error> {
        let (names, _) = parse_tree_path(path, &self.root)?;
        let mut root = self.root.clone();
        root.extend(names.iter().cloned().map(os_name));
        let target = self
            .locate_following(path, names, false)
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidArgument { name: "path", .. } => Error::invalid_argument(
                    "path",
                    format!(
                        "{path:?} goes through a symbolic link: a folder to search is opened name \
                         by name, never through a link (whether or not links are followed in its \
                         walk); name the folder the link leads to"
                    ),
                ),
                _ => e,
            })?;
        let dir = match (target.name, target.kind) {
            (None, _) => target.parent,
            (Some(name), Kind::Dir) => {
                confine::open_dir(&target.parent, &name).map_err(|source| ErrorKind::Read {
                    path: root.clone(),
                    source,
                })?
            }
            (Some(_), _) => {
                return Err(Error::invalid_argument(
                    "path",
                    format!("{path:?} is not a folder"),
                ));
            }
        };
        Ok(self.with_root(root, dir))
    }
}

impl Source for Tree {
    fn fingerprint(&self) -> u64 {
        Fingerprint::of(&(
            "tree",
            &self.root,
            self.hidden,
            self.gitignore,
            &self.globs,
            self.max_file_size,
            // Both change which files the walk reaches; the thread settings
            // do not change the answer and are left out.
            self.follow_links,
            self.parent_ignores,
            self.max_depth,
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

    fn filter_path(&self, path: &str) -> Result<String, Error> {
        // The walk meets the path, or counts it as skipped where it would
        // have (see `walk/mod.rs`).
        parse_tree_path(path, &self.root).map(|(_, rel)| rel)
    }

    /// Name by name, each name's bytes as the folder's listing holds
    /// them: an escaped name (`\\`, `\xhh`) sorts by its bytes, not by
    /// its writing.
    fn walk_order(&self, a: &str, b: &str) -> std::cmp::Ordering {
        if !a.contains('\\') && !b.contains('\\') {
            return crate::path::cmp_paths(a, b);
        }
        match (parse_position(a), parse_position(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => crate::path::cmp_paths(a, b),
        }
    }

    fn check_position(&self, path: &str) -> Result<(), Error> {
        match parse_position(path) {
            Some(_) => Ok(()),
            None => Err(Error::cursor_out_of_range(format!(
                "it names {path:?}, which is not a path of this tree"
            ))),
        }
    }

    /// The stamp of the file the path leads to, as it is opened: through
    /// the links the tree follows, its last name's too (a cursor into a
    /// file reached through a link records the stamp of the file read,
    /// which changes when it is rewritten; the link's would not).
    fn stamp(&self, path: &str) -> Option<u64> {
        let names = parse_position(path)?.into_iter().map(os_name).collect();
        let target = confine::resolve(&self.root_dir, &self.root, names, self.follow_links).ok()?;
        let name = target.name.unwrap_or_else(|| ".".into());
        // A stamp of 0 is none: a cursor writes none as 0.
        confine::stamp_at(&target.parent, &name)
            .ok()
            .filter(|&stamp| stamp != 0)
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
            Ok(confine::RegularOpen::File(file, _)) => {
                Opened::File(self.input(&rel, file), self.read_rules())
            }
            Ok(confine::RegularOpen::Special) => {
                Opened::Skip(SkippedInput::new(&rel, SkipReason::Special))
            }
            Err(e) => self.open_error(&rel, &e),
        }
    }

    fn files(
        &self,
        plan: &Plan<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        for job in self.jobs(plan)? {
            let flow = match job {
                Job::File { rel, dir, name } => {
                    let open = || self.open_at(&rel, &dir, &name);
                    each(Entry::File {
                        path: &rel,
                        open: &open,
                    })
                }
                Job::Skip(input) => each(Entry::Skip(input)),
            };
            if flow.is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The files searched in parallel (see `schedule.rs`), their outcomes
    /// handed on in path order: the same as `files` searched one after the
    /// other gives.
    fn run(
        &self,
        search: &QuerySearch<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        self.schedule(search, take)
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;
    use std::time::Duration;

    use super::super::tree_with;
    use super::Tree;
    use crate::Error;
    use crate::engine::Plan;
    use crate::reader::Opened;
    use crate::source::{Entry, Resolved, Source};
    use crate::{Corpus, Limits, Query};

    /// The tree searched through `Source::files` one file after the
    /// other, as any corpus that does not override `run` is.
    struct OneByOne(Tree);

    impl Source for OneByOne {
        fn fingerprint(&self) -> u64 {
            self.0.fingerprint()
        }
        fn generation(&self) -> Option<u64> {
            self.0.generation()
        }
        fn resolve(&self, path: &str) -> Result<Resolved, Error> {
            self.0.resolve(path)
        }
        fn filter_path(&self, path: &str) -> Result<String, Error> {
            self.0.filter_path(path)
        }
        fn check_position(&self, path: &str) -> Result<(), Error> {
            self.0.check_position(path)
        }
        fn walk_order(&self, a: &str, b: &str) -> std::cmp::Ordering {
            self.0.walk_order(a, b)
        }
        fn stamp(&self, path: &str) -> Option<u64> {
            self.0.stamp(path)
        }
        fn open(&self, path: &str) -> Opened<'_> {
            self.0.open(path)
        }
        fn files(
            &self,
            plan: &Plan<'_>,
            each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
        ) -> Result<(), Error> {
            self.0.files(plan, each)
        }
    }

    #[test]
    fn the_parallel_run_answers_as_the_files_searched_one_by_one() {
        let files: Vec<(String, String)> = (0..120)
            .map(|i| {
                let text = format!("hit {i}\n{}", "miss\nhit again\n".repeat(i % 5));
                (format!("d{}/f{i:03}.txt", i % 6), text)
            })
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let (_dir, tree) = tree_with(&refs);
        let parallel = tree.clone().threads(4).start_threads_after(Duration::ZERO);
        let one_by_one = OneByOne(tree);
        let query = Query::literal("hit");
        for limits in [
            Limits::new(),
            Limits::new().limit(7),
            Limits::new().limit(7).count_total(true),
            Limits::new().max_files(9),
            Limits::new().max_files(0),
        ] {
            let (mut a, mut b) = (None, None);
            loop {
                let x = parallel.search(&query, &limits, a.as_ref()).unwrap();
                let y = one_by_one.search(&query, &limits, b.as_ref()).unwrap();
                assert_eq!(x, y, "{limits:?}");
                match (x.next_cursor(), y.next_cursor()) {
                    (Some(c), Some(d)) => (a, b) = (Some(c.clone()), Some(d.clone())),
                    _ => break,
                }
            }
            let x = parallel.count_per_file(&query, &limits, None).unwrap();
            let y = one_by_one.count_per_file(&query, &limits, None).unwrap();
            assert_eq!(x, y, "{limits:?}");
        }
    }
}
