//! The index as the engine's `Source`: the tree's files in path order
//! (see `traverse.rs`), each file read and searched by the tree's own
//! reader and matcher unless the index can tell, without reading it,
//! that it holds no match: it is unchanged since it was indexed, plain
//! text, within one read block (so no budget checked between blocks
//! could stop inside it), and no candidate of the query's plan.

use std::borrow::Cow;
use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use super::Index;
use crate::error::Error;
use crate::index::grams::Candidates;
use crate::index::plan::{Need, need};
use crate::index::snapshot::Segment;
use crate::index::traverse::{Event, FileDir, Reuse, Traversal};
use crate::search::{
    BINARY_PREFIX, Entry, FileOutcome, Job, Opened, Plan, Resolved, Search, Source, no_match,
    search_file,
};
use crate::{Fingerprint, SkipReason, SkippedInput};

/// Asks whether ids are candidates, in ascending order mostly: the next
/// candidate found is kept, so that the ids before it are answered
/// without a seek.
struct Member<'g> {
    ids: Candidates<'g>,
    /// The last id sought, and the first candidate at or after it.
    last: Option<(u32, Option<u32>)>,
}

impl Member<'_> {
    fn contains(&mut self, id: u32) -> bool {
        if let Some((asked, found)) = self.last {
            if asked <= id && found.is_none_or(|f| f >= id) {
                return found == Some(id);
            }
        }
        self.ids.seek(id);
        let found = self.ids.next();
        self.last = Some((id, found));
        found == Some(id)
    }
}

impl Source for Index {
    fn fingerprint(&self) -> u64 {
        Fingerprint::of(&("index", self.tree.fingerprint())).as_u64()
    }

    fn generation(&self) -> Option<u64> {
        Some(self.snapshot().generation)
    }

    fn resolve(&self, path: &str) -> Result<Resolved, Error> {
        self.tree.resolve(path)
    }

    fn filter_path(&self, path: &str) -> Result<String, Error> {
        self.tree.filter_path(path)
    }

    fn check_position(&self, path: &str) -> Result<(), Error> {
        self.tree.check_position(path)
    }

    fn stamp(&self, path: &str) -> Option<u64> {
        self.tree.stamp(path)
    }

    fn open(&self, path: &str) -> Opened<'_> {
        self.tree.open(path)
    }

    fn files(
        &self,
        plan: &Plan<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        self.found(plan, false, &mut |found| self.each_entry(found, each))
    }

    /// The files searched as `files` yields them, on the tree's threads
    /// when it has several (as the tree searches its walk's files); with
    /// the budgets known, a file of any length that holds no match is
    /// yielded as `NoMatch` when no budget can stop inside a file.
    fn run(
        &self,
        search: &Search<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let whole = !search.budgets.may_stop_inside_file();
        if self.tree.get_threads() > 1 {
            return self.run_parallel(search, whole, take);
        }
        let mut buffer = Vec::new();
        let matcher = search.plan.matcher;
        self.found(&search.plan, whole, &mut |found| {
            self.each_entry(found, &mut |entry| match entry {
                Entry::File { path, open } => {
                    take(search_file(search, matcher, path, open, &mut buffer))
                }
                Entry::NoMatch { path, len } => take(no_match(search, path, len)),
                Entry::Skip(input) => take(FileOutcome::Skipped(input)),
            })
        })
    }
}

/// What the index's traversal finds, in path order.
enum Found<'e> {
    /// A file to read: its path, and the way to its folder.
    Read {
        path: &'e str,
        dir: &'e FileDir<'e>,
    },
    /// A file known to hold no match.
    NoMatch {
        path: &'e str,
        len: u64,
    },
    Skip(SkippedInput),
}

/// The jobs the traversal hands to the searching threads, ahead of them.
const JOBS_AHEAD: usize = 256;

impl Index {
    /// The entry of what the traversal found (the file to read opened
    /// through the tree's confined opens when it is read).
    fn each_entry(
        &self,
        found: Found<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        match found {
            Found::Read { path, dir } => {
                let open = || match dir.get(path) {
                    Some((dir, name)) => self.tree.open_at(path, &dir, &name),
                    None => Opened::Skip(vanished(path)),
                };
                each(Entry::File { path, open: &open })
            }
            Found::NoMatch { path, len } => each(Entry::NoMatch { path, len }),
            Found::Skip(input) => each(Entry::Skip(input)),
        }
    }

    /// `run` on the tree's threads: the traversal runs on a thread of its
    /// own, ahead of the searchers, and hands them its files as jobs (a
    /// file to read with its folder's handle, one known to hold no match,
    /// a skip), which the tree's scheduler searches and hands on in path
    /// order. When the searchers stop (a capped page is full), the jobs
    /// are dropped and the traversal stops at its next file.
    fn run_parallel(
        &self,
        search: &Search<'_>,
        whole: bool,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let (jobs, receive) = std::sync::mpsc::sync_channel::<Job>(JOBS_AHEAD);
        std::thread::scope(|scope| {
            let traversal = scope.spawn(move || {
                self.found(&search.plan, whole, &mut |found| {
                    let job = match found {
                        Found::Read { path, dir } => match dir.get(path) {
                            Some((dir, name)) => Job::File {
                                rel: path.to_owned(),
                                dir,
                                name,
                            },
                            None => Job::Skip(vanished(path)),
                        },
                        Found::NoMatch { path, len } => Job::Known {
                            rel: path.to_owned(),
                            len,
                        },
                        Found::Skip(input) => Job::Skip(input),
                    };
                    match jobs.send(job) {
                        Ok(()) => ControlFlow::Continue(()),
                        // The searchers stopped.
                        Err(_) => ControlFlow::Break(()),
                    }
                })
            });
            self.tree.schedule_jobs(search, receive.into_iter(), take);
            traversal
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// What the traversal finds, in path order; with `whole`, a file
    /// longer than a block may be found to hold no match too.
    fn found(
        &self,
        plan: &Plan<'_>,
        whole: bool,
        each: &mut dyn FnMut(Found<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let (snap, trust) = self.snapshot_to_query();
        let need = need(plan.query);
        let (base_lists, base_need) = match snap.base.fetch(&need) {
            Ok(lists) => (lists, Cow::Borrowed(&need)),
            Err(_) if self.rebuild => {
                // Damage found now, in an index opened to be rebuilt:
                // every file is a candidate, and the next update builds
                // the index again.
                self.damaged.store(true, Ordering::Relaxed);
                self.behind.store(true, Ordering::Relaxed);
                let any = snap
                    .base
                    .fetch(&Need::Any)
                    .map_err(|r| self.store.unusable(r))?;
                (any, Cow::Owned(Need::Any))
            }
            Err(reason) => return Err(self.store.unusable(reason)),
        };
        let mut base = Member {
            ids: base_lists.candidates(&base_need),
            last: None,
        };
        let mut delta = Member {
            ids: snap.delta.candidates(&need),
            last: None,
        };
        let start = plan.start.as_ref().map(|p| p.path.as_str());
        let traversal = Traversal {
            snap: &snap,
            tree: &self.tree,
            start,
            filters: &plan.filters,
            changed: Cell::new(false),
            trust: trust.as_ref(),
            seen: Reuse::Keep(&self.seen),
        };
        let ran = traversal.run(&mut |event| match event {
            Event::Folder { .. } => ControlFlow::Continue(()),
            Event::Skip(input) => each(Found::Skip(input)),
            Event::File {
                path,
                dir,
                recorded,
                stamp,
            } => {
                let known = recorded.filter(|f| {
                    stamp == Some(f.stamp)
                        && !f.always
                        && !f.racy
                        && start != Some(path.as_ref())
                        && (whole || f.len <= BINARY_PREFIX as u64)
                });
                if let Some(f) = known {
                    let candidate = match f.segment {
                        Segment::Base => base.contains(f.id),
                        Segment::Delta => delta.contains(f.id),
                    };
                    if !candidate {
                        return each(Found::NoMatch {
                            path: &path,
                            len: f.len,
                        });
                    }
                }
                each(Found::Read {
                    path: &path,
                    dir: &dir,
                })
            }
        });
        if traversal.changed.get() {
            self.behind.store(true, Ordering::Relaxed);
        }
        ran
    }
}

/// A file whose folder went away since the traversal stamped it.
fn vanished(path: &str) -> SkippedInput {
    SkippedInput::new(path, SkipReason::Vanished).with_detail("its folder went away")
}
