//! What the index finds for a query, in path order: the tree's files as
//! the traversal meets them (see `traverse.rs`), each a file to read, or
//! one the index can tell holds no match without reading it: unchanged
//! since it was indexed, plain text, within one read block or shorter
//! than the scanned bytes the query allows (else the tree's read could
//! stop inside it), and no candidate of the query's plan.

use std::borrow::Cow;
use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use super::Index;
use crate::Error;
use crate::index::grams::Candidates;
use crate::index::parts::{Parts, search_parts};
use crate::index::plan::{Need, need};
use crate::index::snapshot::Segment;
use crate::index::traverse::{Event, FileDir, Place, PlaceError, Reuse, Traversal};
use crate::{BINARY_PREFIX, Budgets, FileOutcome, Matcher, Opened, Plan, Search, search_file};
use crate::{SkipReason, SkippedInput};

/// One entry the index finds, in path order.
pub(crate) enum Found<'a> {
    /// A file to read: its path, its folder (or the way to it), its
    /// length as indexed when it is unchanged since, and, for a large file
    /// only some of whose blocks are candidates, those blocks.
    File {
        path: &'a str,
        dir: &'a FileDir<'a>,
        len: Option<u64>,
        parts: Option<Parts>,
    },
    /// A file that holds no match, `len` bytes long.
    NoMatch { path: &'a str, len: u64 },
    /// A file unchanged since it was found binary (see
    /// `FileEntry::binary`): the tree skips it, once it may read a file.
    Binary { path: &'a str, dir: &'a FileDir<'a> },
    /// An input the walk leaves out.
    Skip(SkippedInput),
}

/// Asks whether ids are candidates, in ascending order mostly: the next
/// candidate found is kept, so that the ids before it are answered
/// without a seek.
struct Member<'g> {
    ids: Candidates<'g>,
    /// The last id sought, and the first candidate at or after it.
    last: Option<(u32, Option<u32>)>,
}

impl Member<'_> {
    /// Which of the `blocks` ids from `id` on (a file's) are candidates,
    /// into `out`, as indices from `id`.
    fn blocks(&mut self, id: u32, blocks: u32, out: &mut Vec<u32>) {
        out.clear();
        let end = id.saturating_add(blocks);
        let mut found = match self.last {
            Some((asked, found)) if asked <= id && found.is_none_or(|f| f >= id) => found,
            _ => {
                self.ids.seek(id);
                self.ids.next()
            }
        };
        while let Some(f) = found.filter(|&f| f < end) {
            out.push(f - id);
            found = self.ids.next();
        }
        self.last = Some((end, found));
    }
}

impl Index {
    /// The entries of `files`; with the query's `budgets`, a file longer
    /// than a read block that they cannot stop inside (see
    /// `Budgets::may_stop_inside`) may be found as `NoMatch` too.
    pub(crate) fn entries(
        &self,
        plan: &Plan<'_>,
        budgets: Option<&Budgets>,
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
        let mut candidates = Vec::new();
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
            Event::Skip(input) => each(Found::Skip(input)),
            Event::File {
                path,
                dir,
                recorded,
                stamp,
            } => {
                let unchanged = recorded.filter(|f| stamp == Some(f.stamp));
                if unchanged.is_some_and(|f| f.binary && !f.racy && start != Some(path.as_ref())) {
                    return each(Found::Binary {
                        path: &path,
                        dir: &dir,
                    });
                }
                let known = unchanged.filter(|f| {
                    !f.always
                        && !f.racy
                        && start != Some(path.as_ref())
                        && (f.len <= BINARY_PREFIX as u64
                            || budgets.is_some_and(|b| !b.may_stop_inside(f.len)))
                });
                let mut parts = None;
                if let Some(f) = known {
                    let member = match f.segment {
                        Segment::Base => &mut base,
                        Segment::Delta => &mut delta,
                    };
                    member.blocks(f.id, f.blocks, &mut candidates);
                    if candidates.is_empty() {
                        return each(Found::NoMatch {
                            path: &path,
                            len: f.len,
                        });
                    }
                    // Only some blocks are candidates, and where they
                    // start is recorded.
                    let cut = f.starts.len() + 1 == f.blocks as usize;
                    if cut && candidates.len() < f.blocks as usize {
                        parts = Some(Parts::of(f.len, &f.starts, &candidates));
                    }
                }
                each(Found::File {
                    path: &path,
                    dir: &dir,
                    len: unchanged.map(|f| f.len),
                    parts,
                })
            }
        });
        if traversal.changed.get() {
            self.behind.store(true, Ordering::Relaxed);
        }
        ran
    }

    /// Searches a file the index found: in its candidate blocks only, when
    /// it has `parts` and the search allows (see `parts.rs`), else whole.
    pub(crate) fn search_found<'p>(
        &self,
        search: &'p Search<'p>,
        matcher: &Matcher,
        path: &'p str,
        place: Option<&Place>,
        parts: Option<&Parts>,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome<'p> {
        if let Some(parts) = parts {
            if let Some(outcome) = search_parts(search, matcher, path, place, parts, buffer) {
                return outcome;
            }
        }
        search_file(search, matcher, path, || self.open_in(path, place), buffer)
    }

    /// The outcome of a file found binary: skipped as the tree skips it,
    /// or, when no file may be read, what the engine gives a file it may
    /// not open.
    pub(crate) fn binary<'p>(
        &self,
        search: &'p Search<'p>,
        matcher: &Matcher,
        path: &'p str,
        dir: &FileDir<'_>,
        buffer: &mut Vec<u8>,
    ) -> FileOutcome<'p> {
        if search.budgets.refuses_files() {
            let open = || self.open_in(path, dir.place(path).as_ref());
            return search_file(search, matcher, path, open, buffer);
        }
        FileOutcome::Skipped(SkippedInput::new(path, SkipReason::Binary))
    }

    /// Opens the file at `path` at its place, by the tree's rules; a
    /// folder that went away is a skip.
    pub(crate) fn open_in(&self, path: &str, place: Option<&Place>) -> Opened<'_> {
        let gone = || {
            Opened::Skip(
                SkippedInput::new(path, SkipReason::Vanished).with_detail("its folder went away"),
            )
        };
        match place.map(Place::open) {
            Some(Ok(file)) => self.tree.opened(path, Ok(file)),
            Some(Err(PlaceError::File(e))) => self.tree.opened(path, Err(e)),
            Some(Err(PlaceError::FolderGone)) | None => gone(),
        }
    }
}
