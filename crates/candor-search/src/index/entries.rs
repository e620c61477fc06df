//! What the index finds for a query, in path order: the tree's files as
//! the traversal meets them (see `traverse.rs`), each a file to read, or
//! one the index can tell holds no match without reading it: unchanged
//! since it was indexed, plain text, within one read block or shorter
//! than the scanned bytes the query allows (else the tree's read could
//! stop inside it), and no candidate of the query's plan.

use std::borrow::Cow;
use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Index, QueryTrust};
use crate::Error;
use crate::index::entry::{RecordEntry, Segment};
use crate::index::format::NO_ID;
use crate::index::grams::{Candidates, Grams};
use crate::index::manifest::{Block, Damage, Manifest};
use crate::index::parts::{Parts, search_parts};
use crate::index::plan::{Need, need};
use crate::index::snapshot::Snapshot;
use crate::index::traverse::{Event, FileAt, FileAtError, FileDir, Traversal, Trust, Wanted};
use crate::seam::{
    BINARY_PREFIX, Budgets, FileOutcome, Matcher, Opened, Plan, QuerySearch, search_file,
};
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

/// A query's candidates in one posting lists, as the places of the
/// files that hold them, in order: read as the traversal asks for them,
/// the block of the last one kept (ids ascend with places, so the next
/// is mostly in the same block, or the next).
struct CandidatePlaces<'g, 'm> {
    ids: Candidates<'g>,
    segment: Segment,
    manifest: &'m Manifest,
    /// The least id the next candidate may be.
    next: u32,
    /// The last place found, and whether none is left.
    found: Option<usize>,
    done: bool,
    /// The block read last, its number, and the place in it to go on
    /// from.
    block: Option<(usize, Arc<Block>, usize)>,
}

impl<'g, 'm> CandidatePlaces<'g, 'm> {
    fn new(ids: Candidates<'g>, segment: Segment, manifest: &'m Manifest) -> Self {
        CandidatePlaces {
            ids,
            segment,
            manifest,
            next: 0,
            found: None,
            done: false,
            block: None,
        }
    }

    /// Skips to the first candidate at or after `id`.
    fn seek(&mut self, id: u32) {
        if id > self.next {
            self.ids.seek(id);
            self.next = id;
        }
    }

    /// The place of the first file at or after `at` one of whose ids is a
    /// candidate.
    fn from(&mut self, at: usize) -> Result<Option<usize>, Damage> {
        if let Some(found) = self.found.filter(|&f| f >= at) {
            return Ok(Some(found));
        }
        if self.done {
            return Ok(None);
        }
        let m = self.manifest;
        self.seek(m.first_id(m.block_of(at), self.segment));
        loop {
            let Some(id) = self.ids.next().filter(|&id| id != NO_ID) else {
                self.done = true;
                return Ok(None);
            };
            self.next = id.saturating_add(1);
            if let Some((place, end)) = self.file_of(id)? {
                self.seek(end);
                if place >= at {
                    self.found = Some(place);
                    return Ok(Some(place));
                }
            }
        }
    }

    /// The file whose ids hold `id`: its place and where its ids end;
    /// `None` when no file has it (a file of the base changed or gone
    /// since: its ids are left unused).
    fn file_of(&mut self, id: u32) -> Result<Option<(usize, u32)>, Damage> {
        let m = self.manifest;
        let moved = match &self.block {
            Some((b, _, _)) => m.first_id(b + 1, self.segment) <= id,
            None => true,
        };
        if moved {
            let Some(b) = m.block_with_id(self.segment, id) else {
                return Ok(None);
            };
            self.block = Some((b, m.block(b)?, 0));
        }
        let Some((_, block, from)) = &mut self.block else {
            return Ok(None);
        };
        while let Some(entry) = block.entries.get(*from) {
            if let RecordEntry::File(f) = entry {
                if f.segment == self.segment {
                    if f.id > id {
                        return Ok(None);
                    }
                    let end = f.id.saturating_add(f.blocks);
                    if id < end {
                        return Ok(Some((block.first + *from, end)));
                    }
                }
            }
            *from += 1;
        }
        Ok(None)
    }
}

impl Index {
    /// The entries of `files`; with the query's `budgets`, a file longer
    /// than a read block that they cannot stop inside (see
    /// `Budgets::may_stop_inside`) may be found as `NoMatch` too, and when
    /// they charge no file (see `Budgets::charges_files`) a file that
    /// holds no match is not handed on at all: then, trusting the index
    /// (watched, or as of its generation), only the candidates and the
    /// entries every query visits are visited.
    pub(crate) fn entries(
        &self,
        plan: &Plan<'_>,
        budgets: Option<&Budgets>,
        each: &mut dyn FnMut(Found<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let (snap, trust) = self.snapshot_to_query();
        let need = need(plan.query);
        let base_lists = self.lists(&snap, &snap.base, &need)?;
        let delta_lists = self.lists(&snap, &snap.delta, &need)?;
        let mut base = Member {
            ids: base_lists.0.candidates(&base_lists.1),
            last: None,
        };
        let mut delta = Member {
            ids: delta_lists.0.candidates(&delta_lists.1),
            last: None,
        };
        let start = plan.start.as_ref().map(|p| p.path.as_str());
        let hands_no_match = budgets.is_none_or(Budgets::charges_files);
        let manifest = &*snap.entries;
        let mut wanted = [
            CandidatePlaces::new(
                base_lists.0.candidates(&base_lists.1),
                Segment::Base,
                manifest,
            ),
            CandidatePlaces::new(
                delta_lists.0.candidates(&delta_lists.1),
                Segment::Delta,
                manifest,
            ),
        ];
        let mut next_wanted = |at: usize| -> Result<Option<usize>, Damage> {
            let [b, d] = &mut wanted;
            Ok([b.from(at)?, d.from(at)?].into_iter().flatten().min())
        };
        let trust_now = match &trust {
            QueryTrust::Checked => Trust::Nothing,
            QueryTrust::Watched(seen) => Trust::Unreported(seen),
            QueryTrust::AsOf => Trust::Everything,
        };
        let sparse = !hands_no_match && !matches!(trust_now, Trust::Nothing);
        let mut candidates = Vec::new();
        let traversal = Traversal {
            snap: &snap,
            tree: &self.tree,
            start,
            filters: &plan.filters,
            changed: Cell::new(false),
            trust: trust_now,
            known: Cell::new(None),
            keep: Some(&self.last_stamps),
            fallback: self.rebuild,
            damaged: Cell::new(false),
        };
        let wanted: Option<&mut Wanted> = match sparse {
            true => Some(&mut next_wanted),
            false => None,
        };
        let ran = traversal.run(wanted, &mut |event| match event {
            Event::Folder { .. } => ControlFlow::Continue(()),
            Event::Skip(input) => each(Found::Skip(input)),
            Event::File {
                path,
                dir,
                recorded,
                stamp,
            } => {
                let unchanged = recorded.filter(|f| stamp == Some(f.stamp));
                // A file the caller named is read as text, binary or not.
                let named = plan.names(&path);
                if unchanged.is_some_and(|f| f.binary && !f.racy && start != Some(path.as_ref()))
                    && !named
                {
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
                        if !hands_no_match {
                            return ControlFlow::Continue(());
                        }
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
        if traversal.damaged.get() {
            // Found now, in an index opened to be rebuilt: the next update
            // builds it again.
            self.damaged.store(true, Ordering::Relaxed);
            self.behind.store(true, Ordering::Relaxed);
        }
        ran
    }

    /// The posting lists of `grams` that `need` reads, and the need they
    /// answer: `need`'s; or, when they are damaged in an index opened to
    /// be rebuilt, every file's (the next update builds the index again).
    fn lists<'g>(
        &self,
        _snap: &Snapshot,
        grams: &'g Grams,
        need: &Need,
    ) -> Result<(Cow<'g, Grams>, Need), Error> {
        match grams.fetch(need) {
            Ok(lists) => Ok((lists, need.clone())),
            Err(_) if self.rebuild => {
                self.damaged.store(true, Ordering::Relaxed);
                self.behind.store(true, Ordering::Relaxed);
                let any = grams
                    .fetch(&Need::Any)
                    .map_err(|r| self.store.unusable(r))?;
                Ok((any, Need::Any))
            }
            Err(reason) => Err(self.store.unusable(reason)),
        }
    }

    /// Searches a file the index found: in its candidate blocks only, when
    /// it has `parts` and the search allows (see `parts.rs`), else whole.
    pub(crate) fn search_found<'p>(
        &self,
        search: &'p QuerySearch<'p>,
        matcher: &Matcher,
        path: &'p str,
        place: Option<&FileAt>,
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
        search: &'p QuerySearch<'p>,
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
    pub(crate) fn open_in(&self, path: &str, place: Option<&FileAt>) -> Opened<'_> {
        let gone = || {
            Opened::Skip(
                SkippedInput::new(path, SkipReason::Vanished).with_detail("its folder went away"),
            )
        };
        match place.map(FileAt::open) {
            Some(Ok(file)) => self.tree.opened(path, Ok(file)),
            Some(Err(FileAtError::File(e))) => self.tree.opened(path, Err(e)),
            Some(Err(FileAtError::FolderGone)) | None => gone(),
        }
    }
}
