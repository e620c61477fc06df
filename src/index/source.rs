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
use crate::index::traverse::{Event, Reuse, Traversal};
use crate::search::{
    BINARY_PREFIX, Entry, FileOutcome, Opened, Plan, Resolved, Search, Source, no_match,
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
    /// Whether one of the `blocks` ids from `id` on (a file's) is a
    /// candidate.
    fn contains(&mut self, id: u32, blocks: u32) -> bool {
        let end = id.saturating_add(blocks);
        if let Some((asked, found)) = self.last {
            if asked <= id && found.is_none_or(|f| f >= id) {
                return found.is_some_and(|f| f < end);
            }
        }
        self.ids.seek(id);
        let found = self.ids.next();
        self.last = Some((id, found));
        found.is_some_and(|f| f < end)
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
        self.entries(plan, false, each)
    }

    /// The files searched one after the other, as `files` yields them;
    /// with the budgets known, a file of any length that holds no match
    /// is yielded as `NoMatch` when no budget can stop inside a file.
    fn run(
        &self,
        search: &Search<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let mut buffer = Vec::new();
        let matcher = search.plan.matcher;
        let whole = !search.budgets.may_stop_inside_file();
        self.entries(&search.plan, whole, &mut |entry| match entry {
            Entry::File { path, open } => {
                take(search_file(search, matcher, path, open, &mut buffer))
            }
            Entry::NoMatch { path, len } => take(no_match(search, path, len)),
            Entry::Skip(input) => take(FileOutcome::Skipped(input)),
        })
    }
}

impl Index {
    /// The entries of `files`; with `whole`, a file longer than a block
    /// may be yielded as `NoMatch` too.
    fn entries(
        &self,
        plan: &Plan<'_>,
        whole: bool,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
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
            reuse: Reuse::Keep(&self.last_stamps),
        };
        let ran = traversal.run(&mut |event| match event {
            Event::Folder { .. } => ControlFlow::Continue(()),
            Event::Skip(input) => each(Entry::Skip(input)),
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
                        Segment::Base => base.contains(f.id, f.blocks),
                        Segment::Delta => delta.contains(f.id, f.blocks),
                    };
                    if !candidate {
                        return each(Entry::NoMatch {
                            path: &path,
                            len: f.len,
                        });
                    }
                }
                let open = || match dir.get(&path) {
                    Some((dir, name)) => self.tree.open_at(&path, &dir, &name),
                    None => Opened::Skip(
                        SkippedInput::new(path.as_ref(), SkipReason::Vanished)
                            .with_detail("its folder went away"),
                    ),
                };
                each(Entry::File {
                    path: &path,
                    open: &open,
                })
            }
        });
        if traversal.changed.get() {
            self.behind.store(true, Ordering::Relaxed);
        }
        ran
    }
}
