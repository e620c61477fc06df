//! The result stage: the last of the search pipeline. It takes the
//! files' outcomes already in path order (a corpus hands them over so),
//! applies the work budgets between files, offers the items to the
//! collector, and, when an exact total is asked for, counts past the
//! limit (through `count.rs`, as iterators do) on a cheaper per-file path
//! that builds no items.

use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use crate::collect::{Collector, Finished};
use crate::count::Count;
use crate::error::Error;
use crate::search::engine::file::{FileOutcome, Hits};
use crate::search::engine::plan::{Deadline, Mode, Plan};
use crate::search::engine::position::{CursorFor, Stamp};
use crate::search::item::Item;
use crate::search::path;
use crate::{Budget, BudgetKind, Completeness, Cursor, Limits, Scope, SkippedInput, Total};

/// Hands one file's hits, as items, to an `Each`, until it breaks.
pub(crate) type ToItems<T> = fn(&str, &Hits, &mut Each<'_, T>) -> ControlFlow<()>;

/// Takes the items of a file one by one: the offset to resume after the
/// item, and how to build it (from an old item, whose memory it may reuse,
/// or anew). `Break` when no more are wanted.
pub(crate) type Each<'e, T> = dyn FnMut(u64, &dyn Fn(Option<T>) -> T) -> ControlFlow<()> + 'e;

/// Why a stream's receiver stopped it, on the item it was handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// It took the item and wants no more: the next page resumes after it.
    After,
    /// It did not take the item (it failed on it): the next page resumes
    /// at it.
    Before,
}

/// A stream's receiver: each item kept, as it is kept.
pub(crate) type Sink<'s, T> = dyn FnMut(&T) -> ControlFlow<Refusal> + 's;

/// The result stage of one query. Named for its place in the pipeline:
/// it receives outcomes already in order (ordering them is the corpus's
/// work) and turns them into the result.
pub(crate) struct ResultStage<'l, T: Item> {
    collector: Collector<T>,
    limits: &'l Limits,
    mode: Mode,
    /// For each kept item, the offset to resume after it in its file.
    resume_offsets: Vec<u64>,
    files: u64,
    scanned: u64,
    /// Items in the full answer seen so far (kept and probed) before a
    /// count past the collection began.
    answer: u64,
    /// The count past the collection, once it began.
    counting: Option<Count>,
    /// Set once the count past the collection gave up.
    count_end: Option<Total>,
    /// Where the first unsearched file starts, after a work-budget stop,
    /// and the number of the line there (0: not known).
    scan_resume: Option<(String, u64)>,
    scan_resume_line: u64,
    /// Where this run began (the cursor's position), to tell whether a
    /// cursor would advance.
    began_at: Option<(String, u64)>,
    error: Option<Error>,
    stream: Option<&'l mut Sink<'l, T>>,
    /// The stream's receiver refused the last item kept.
    refused: bool,
}

impl<'l, T: Item> ResultStage<'l, T> {
    /// The stage of a collected query, resuming after `cursor` (which
    /// resumes at `began_at`) if given.
    pub(crate) fn new(
        limits: &'l Limits,
        mode: Mode,
        cursor: Option<&Cursor>,
        began_at: Option<(String, u64)>,
    ) -> Self {
        ResultStage {
            collector: Collector::resuming(limits, cursor),
            limits,
            mode,
            resume_offsets: Vec::new(),
            files: 0,
            scanned: 0,
            answer: 0,
            counting: None,
            count_end: None,
            scan_resume: None,
            scan_resume_line: 0,
            began_at,
            error: None,
            stream: None,
            refused: false,
        }
    }

    /// The stage of a stream, which hands each item kept to `sink`.
    pub(crate) fn streaming(
        limits: &'l Limits,
        mode: Mode,
        cursor: Option<&Cursor>,
        began_at: Option<(String, u64)>,
        sink: &'l mut Sink<'l, T>,
    ) -> Self {
        let mut stage = ResultStage::new(limits, mode, cursor, began_at);
        stage.collector = Collector::streaming(limits);
        stage.collector.set_start(cursor.map_or(0, Cursor::start));
        stage.stream = Some(sink);
        stage
    }

    /// Takes the next outcome in path order. `Break` when no more outcomes
    /// are wanted.
    pub(crate) fn take(
        &mut self,
        plan: &Plan<'_>,
        outcome: FileOutcome<'_>,
        to_items: ToItems<T>,
    ) -> ControlFlow<()> {
        if self.collector.is_stopped() {
            return self.count(plan, outcome);
        }
        let path = match &outcome {
            // The budgets apply between files here, and between the parts
            // of one in `between_parts`.
            FileOutcome::Searched {
                continued: true, ..
            } => None,
            FileOutcome::Searched { path, .. } => Some(path.as_ref()),
            FileOutcome::Skipped(s) => Some(s.path()),
            FileOutcome::Failed(_) => None,
        };
        // `max_files(0)` searches nothing: the first file stops it (the
        // walk's skips before it are recorded, and a cursor names a file).
        let no_files =
            self.limits.max_files == Some(0) && matches!(outcome, FileOutcome::Searched { .. });
        if let (Some(path), true) = (path, self.files > 0 || no_files) {
            if let Some(budget) = self.work_budget_spent() {
                let offset = plan.offset_in(path);
                let line = if offset > 0 {
                    plan.start_line.unwrap_or(0)
                } else {
                    0
                };
                return self.stop_by_budget((path.to_owned(), offset), line, budget);
            }
        }
        match outcome {
            FileOutcome::Failed(error) => {
                self.error = Some(error);
                ControlFlow::Break(())
            }
            FileOutcome::Skipped(input) => {
                self.skip(plan, input);
                ControlFlow::Continue(())
            }
            FileOutcome::Searched {
                path,
                scanned,
                hits,
                stopped_at,
                tail,
                more: _,
                continued,
            } => {
                self.files += u64::from(!continued);
                self.scanned += scanned;
                self.answer += contribution(self.mode, &hits);
                // The deadline stopped the search inside this file: its
                // items before the stop stand, and the next page resumes
                // at the stop (or after the last item kept).
                let stop = stopped_at
                    .map(|(at, line)| ((path.to_string(), at), line, self.budget_inside_file()));
                let (collector, stream, resume_offsets, refused) = (
                    &mut self.collector,
                    &mut self.stream,
                    &mut self.resume_offsets,
                    &mut self.refused,
                );
                let flow = to_items(&path, &hits, &mut |resume, build| {
                    collector.offer_with(build)?;
                    let mut answer = ControlFlow::Continue(());
                    if let (Some(sink), Some(last)) = (stream.as_mut(), collector.last()) {
                        answer = sink(last);
                        resume_offsets.clear();
                    }
                    resume_offsets.push(resume);
                    if let ControlFlow::Break(refusal) = answer {
                        // The receiver ended the stream, as a cancellation
                        // would: more items may exist.
                        if refusal == Refusal::Before {
                            collector.refuse_last();
                            *refused = true;
                        }
                        collector.stop_with(Completeness::TruncatedByBudget {
                            budget: Budget::new(BudgetKind::Cancelled, 0, 0),
                            clamp: None,
                        });
                        return ControlFlow::Break(());
                    }
                    ControlFlow::Continue(())
                });
                if let Hits::Lines { items, .. } = hits {
                    plan.spares.give(items);
                }
                let flow = if flow.is_break() {
                    self.after_stop(plan, stop.is_none())
                } else {
                    ControlFlow::Continue(())
                };
                // The rest of the file, past where its search ended, after
                // its lines: unless the collection stopped in them for
                // good (a count that goes on has counted them, and the
                // rest is as unsearched for it).
                if let (Some(tail), ControlFlow::Continue(())) = (tail, flow) {
                    self.skip(plan, tail);
                }
                if self.collector.is_stopped() {
                    return flow;
                }
                match stop {
                    Some((at, line, budget)) => self.stop_by_budget(at, line, budget),
                    None => ControlFlow::Continue(()),
                }
            }
        }
    }

    /// Between two parts of one file (see `FileOutcome::Searched::more`):
    /// once the scanned bytes or the deadline are spent, stops the search
    /// where the next part would start (a line start in `path`, and its
    /// number), as a stop inside the file's search does. A file whose
    /// lines match densely comes in parts so small that no part runs into
    /// a budget on its own.
    pub(crate) fn between_parts(&mut self, path: &str, at: u64, line: u64) -> ControlFlow<()> {
        if self.collector.is_stopped() {
            return ControlFlow::Continue(());
        }
        match self.spent_inside_a_file() {
            Some(budget) => self.stop_by_budget((path.to_owned(), at), line, budget),
            None => ControlFlow::Continue(()),
        }
    }

    /// Stops the search by `budget`, the next page resuming at `resume`
    /// (a path and a line start in it), whose line number is `line`.
    fn stop_by_budget(
        &mut self,
        resume: (String, u64),
        line: u64,
        budget: Budget,
    ) -> ControlFlow<()> {
        self.scan_resume = Some(resume);
        self.scan_resume_line = line;
        self.collector.stop_with(Completeness::TruncatedByBudget {
            budget,
            clamp: None,
        });
        ControlFlow::Break(())
    }

    /// The budget that stopped a file's search inside it: the scanned
    /// bytes if they are spent, else the deadline.
    fn budget_inside_file(&self) -> Budget {
        self.spent_inside_a_file()
            .unwrap_or_else(|| Deadline::spent(self.limits))
    }

    /// The budgets that can stop a search inside a file, if spent: the
    /// scanned bytes, then the deadline.
    fn spent_inside_a_file(&self) -> Option<Budget> {
        if let Some(max) = self.limits.max_scanned_bytes {
            if self.scanned >= max {
                return Some(Budget::new(BudgetKind::ScannedBytes, max, self.scanned));
            }
        }
        self.collector.deadline_passed()
    }

    fn work_budget_spent(&self) -> Option<Budget> {
        if let Some(max) = self.limits.max_files {
            if self.files >= max {
                return Some(Budget::new(BudgetKind::Files, max, self.files));
            }
        }
        self.spent_inside_a_file()
    }

    /// After the collection filled: count on if asked, else stop. A file
    /// searched only in part (`whole` false: a budget stopped it inside)
    /// was not counted whole, so no count past it is exact.
    fn after_stop(&mut self, plan: &Plan<'_>, whole: bool) -> ControlFlow<()> {
        let count = Count::after(self.limits, &self.collector, self.answer);
        let Some(count) = count.filter(|_| whole) else {
            return ControlFlow::Break(());
        };
        plan.counting_only.store(true, Ordering::Relaxed);
        self.counting = Some(count);
        self.check_count()
    }

    /// Ends the count when its budget is spent or the deadline passed:
    /// the total is then a lower bound.
    fn check_count(&mut self) -> ControlFlow<()> {
        let Some(count) = &self.counting else {
            return ControlFlow::Break(());
        };
        if count.stop(&self.collector).is_some() {
            self.count_end = Some(count.at_least());
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Records a skip (see `as_asked`).
    fn skip(&mut self, plan: &Plan<'_>, input: SkippedInput) {
        self.collector.skip(as_asked(plan, input));
    }

    /// Takes an outcome after the collection filled: only counted. Only a
    /// count that goes on gets here (any other stop broke the run).
    fn count(&mut self, plan: &Plan<'_>, outcome: FileOutcome<'_>) -> ControlFlow<()> {
        let Some(count) = self.counting.as_mut().filter(|_| self.count_end.is_none()) else {
            return ControlFlow::Break(());
        };
        match outcome {
            FileOutcome::Searched {
                hits,
                stopped_at,
                tail,
                ..
            } => {
                count.add(contribution(self.mode, &hits));
                if let Some(tail) = tail {
                    self.collector.skip(as_asked(plan, tail));
                }
                if stopped_at.is_some() {
                    // Counted in part: what was counted is a lower bound.
                    self.count_end = Some(count.at_least());
                    return ControlFlow::Break(());
                }
            }
            FileOutcome::Skipped(input) => self.collector.skip(as_asked(plan, input)),
            FileOutcome::Failed(_) => {
                self.count_end = Some(count.at_least());
                return ControlFlow::Break(());
            }
        }
        self.check_count()
    }

    fn total_hint(&self) -> Option<Total> {
        Some(match (self.count_end, &self.counting) {
            (Some(end), _) => end,
            // The producer ran out: every file was counted.
            (None, Some(count)) => count.exact(),
            (None, None) => Total::AtLeast(self.answer),
        })
    }

    /// Finishes the collection: the items kept and their disclosure.
    fn finish_parts(self, scope: &Scope, stamp: Stamp<'_>) -> Result<Finished<T>, Error> {
        let hint = self.total_hint();
        let streaming = self.stream.is_some();
        let ResultStage {
            collector,
            resume_offsets,
            refused,
            scan_resume,
            scan_resume_line,
            began_at,
            error,
            ..
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let cursor_for = CursorFor {
            scope,
            stamp,
            resume_offsets: &resume_offsets,
            scan_resume: scan_resume.as_ref(),
            scan_resume_line,
            began_at: began_at.as_ref(),
            streaming,
            at_last: refused,
            seen: collector.seen(),
        };
        collector.finish_parts(|kept| cursor_for.cursor(kept), hint)
    }

    /// Builds the result.
    pub(crate) fn finish(
        self,
        scope: &Scope,
        stamp: Stamp<'_>,
    ) -> Result<crate::Bounded<T>, Error> {
        Ok(self.finish_parts(scope, stamp)?.into_bounded())
    }

    /// Ends a stream: the same disclosure as `finish`, without the items.
    pub(crate) fn finish_stream(
        self,
        scope: &Scope,
        stamp: Stamp<'_>,
    ) -> Result<crate::Streamed, Error> {
        let f = self.finish_parts(scope, stamp)?;
        Ok(crate::Streamed::new(f.kept, f.disclosure))
    }
}

/// A skip as the caller sees it: one of a file the caller named (the file
/// of a find-in-file, or a path filter naming the file itself) leaves the
/// answer incomplete, whatever its reason, since the caller asked for it.
fn as_asked(plan: &Plan<'_>, input: SkippedInput) -> SkippedInput {
    let named = plan
        .filters
        .binary_search_by(|f| path::cmp_paths(f, input.path()))
        .is_ok();
    if named { input.named() } else { input }
}

/// How many items of the full answer a file's hits make: its matching
/// lines, or for a query of files, one for a file with any.
fn contribution(mode: Mode, hits: &Hits) -> u64 {
    match mode {
        Mode::Lines => hits.matching_lines(),
        Mode::Count | Mode::Any => u64::from(hits.matching_lines() > 0),
    }
}
