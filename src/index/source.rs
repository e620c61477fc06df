//! The index as the engine's `Source`: the tree's files in path order
//! (see `traverse.rs`), each file read and searched by the tree's own
//! reader and matcher unless the index can tell, without reading it,
//! that it holds no match: it is unchanged since it was indexed, plain
//! text, and no candidate of the query's plan.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use super::Index;
use crate::error::Error;
use crate::index::grams::need;
use crate::index::snapshot::Segment;
use crate::index::traverse::{Event, Traversal};
use crate::search::{BINARY_PREFIX, FileOutcome, Job, Opened, Plan, Resolved, Source, no_hits};
use crate::{Fingerprint, SkipReason, SkippedInput};

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

    fn stamp(&self, path: &str) -> u64 {
        self.tree.stamp(path)
    }

    fn open(&self, path: &str) -> Opened<'_> {
        self.tree.open(path)
    }

    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let (snap, trust) = self.snapshot_to_query();
        let need = need(plan.query);
        let mut base = snap.base.candidates(&need);
        let mut delta = snap.delta.candidates(&need);
        let start = plan.start.as_ref().map(|(path, _)| path.as_str());
        // Within one block, a file's outcome cannot depend on the budgets
        // checked between blocks (scanned bytes, the deadline).
        let whole_without_reading = plan.max_scanned_bytes.is_none() && plan.deadline.is_none();
        let mut buffer = Vec::new();
        let traversal = Traversal {
            snap: &snap,
            tree: &self.tree,
            start,
            filters: &plan.filters,
            changed: Cell::new(false),
            trust: trust.as_ref(),
        };
        let ran = traversal.run(&mut |event| {
            if plan.is_stopped() {
                return ControlFlow::Break(());
            }
            let outcome = match event {
                Event::Folder { .. } => return ControlFlow::Continue(()),
                Event::Skip(input) => FileOutcome::Skipped(input),
                Event::File {
                    path,
                    dir,
                    name,
                    recorded,
                    stamp,
                } => {
                    let known = recorded.filter(|f| {
                        stamp == Some(f.stamp)
                            && !f.always
                            && !f.racy
                            && !plan.reads_nothing
                            && start != Some(path.as_str())
                            && (f.len <= BINARY_PREFIX as u64 || whole_without_reading)
                    });
                    let candidate = known.is_none_or(|f| {
                        let ids = match f.segment {
                            Segment::Base => &mut base,
                            Segment::Delta => &mut delta,
                        };
                        ids.seek(f.id) == Some(f.id)
                    });
                    match known {
                        Some(f) if !candidate => {
                            no_hits(plan, plan.matcher, &path, f.len).into_owned()
                        }
                        _ => match dir.get(&path) {
                            Some(dir) => self.tree.outcome(
                                plan,
                                plan.matcher,
                                Job::File {
                                    rel: path,
                                    dir,
                                    name,
                                },
                                &mut buffer,
                            ),
                            None => FileOutcome::Skipped(
                                SkippedInput::new(path, SkipReason::Vanished)
                                    .with_detail("its folder went away"),
                            ),
                        },
                    }
                }
            };
            take(outcome)
        });
        if traversal.changed.get() {
            self.behind.store(true, Ordering::Relaxed);
        }
        ran
    }
}
