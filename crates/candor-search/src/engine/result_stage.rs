//! The result stage: the last of the search pipeline. It takes the
//! files' outcomes already in path order (a corpus hands them over so),
//! applies the work budgets between files, offers the items to the
//! collector, and, when an exact total is asked for, counts past the
//! limit (through `count.rs`, as iterators do) on a cheaper per-file path
//! that builds no items.

use std::ops::ControlFlow;

use crate::Error;
use crate::engine::budgets::Tally;
use crate::engine::hits::Hits;
use crate::engine::kind::QueryKind;
use crate::engine::outcome::FileOutcome;
use crate::engine::resume::{ResumeAfter, StampLookup};
use crate::engine::search::QuerySearch;
use crate::engine::sink::ItemSink;
use crate::path;
use crate::position::Place;
use crate::{AsOf, Budget, BudgetKind, Completeness, Cursor, Limits, Scope, SkippedInput, Total};
use candor::collector::Count;
use candor::collector::{Collector, Finished};

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
pub(crate) type Receiver<'s, T> = dyn FnMut(&T) -> ControlFlow<Refusal> + 's;

/// The result stage of one query. Named for its place in the pipeline:
/// it receives outcomes already in order (ordering them is the corpus's
/// work) and turns them into the result.
pub(crate) struct ResultStage<'l, K: QueryKind> {
    search: &'l QuerySearch<'l>,
    collector: Collector<K::Item>,
    limits: &'l Limits,
    /// For each kept item, where to resume after it in its file, and the
    /// file's stamp when it was read (see `FileOutcome::Searched::stamp`).
    after_items: Vec<(Place, Option<u64>)>,
    /// The work charged so far.
    tally: Tally,
    /// Items in the full answer seen so far (kept and probed) before a
    /// count past the collection began.
    answer: u64,
    /// The count past the collection, once it began.
    counting: Option<Count>,
    /// Set once the count past the collection gave up.
    count_end: Option<Total>,
    /// Where the search resumes after a work-budget stop (the first file
    /// not searched, or where a file's search stopped), and the file's
    /// stamp when it was read, if it was.
    scan_resume: Option<(String, Place, Option<u64>)>,
    error: Option<Error>,
    stream: Option<&'l mut Receiver<'l, K::Item>>,
    /// The stream's receiver refused the last item kept.
    refused: bool,
    /// The last item kept is one of the file whose outcomes are being
    /// taken (in this part of it or an earlier one).
    item_in_file: bool,
}

impl<'l, K: QueryKind> ResultStage<'l, K> {
    /// The stage of a collected query, resuming after `cursor` (which
    /// resumes at the plan's start) if given.
    pub(crate) fn new(
        search: &'l QuerySearch<'l>,
        limits: &'l Limits,
        cursor: Option<&Cursor>,
    ) -> Self {
        ResultStage {
            search,
            collector: Collector::resuming(limits, cursor),
            limits,
            after_items: Vec::new(),
            tally: Tally::default(),
            answer: 0,
            counting: None,
            count_end: None,
            scan_resume: None,
            error: None,
            stream: None,
            refused: false,
            item_in_file: false,
        }
    }

    /// The stage of a stream, which hands each item kept to `receiver`.
    pub(crate) fn streaming(
        search: &'l QuerySearch<'l>,
        limits: &'l Limits,
        cursor: Option<&Cursor>,
        receiver: &'l mut Receiver<'l, K::Item>,
    ) -> Self {
        let mut stage = ResultStage::new(search, limits, cursor);
        stage.collector = Collector::streaming(limits);
        stage.collector.resume_after(cursor);
        stage.stream = Some(receiver);
        stage
    }

    /// Says that the answer trusts the corpus's record as of `as_of` (see
    /// `Source::as_of`), before any outcome is taken.
    pub(crate) fn set_as_of(&mut self, as_of: Option<AsOf>) {
        self.collector.set_as_of(as_of);
    }

    /// Takes the next outcome in path order; `last_part` when no part of
    /// its file follows it. `Break` when no more outcomes are wanted.
    pub(crate) fn take(&mut self, outcome: FileOutcome<'_>, last_part: bool) -> ControlFlow<()> {
        if self.collector.is_stopped() {
            return self.count(outcome);
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
        if let Some(path) = path {
            let is_file = matches!(outcome, FileOutcome::Searched { .. });
            let collector = &self.collector;
            let spent = self
                .search
                .budgets
                .spent_before_file(&self.tally, is_file, || collector.deadline_passed());
            if let Some(budget) = spent {
                // The next page starts at this file: where the run began
                // in it, if it began there (the line known only past the
                // file's start), else at its start.
                let place = match self.search.plan.start_in(path) {
                    Place::Line { offset: 0, .. } => Place::START,
                    place => place,
                };
                // Not read yet: its stamp is the corpus's at the page's end.
                return self.stop_by_budget(path.to_owned(), place, None, budget);
            }
        }
        match outcome {
            FileOutcome::Failed(error) => {
                self.error = Some(error);
                ControlFlow::Break(())
            }
            FileOutcome::Skipped(input) => {
                self.skip(input);
                ControlFlow::Continue(())
            }
            FileOutcome::Searched {
                path,
                scanned,
                hits,
                stopped_at,
                tail,
                more: _,
                as_text,
                continued,
                stamp,
            } => {
                self.tally.charge(scanned, continued);
                self.answer += K::answer_items(&hits);
                // The deadline stopped the search inside this file: its
                // items before the stop stand, and the next page resumes
                // at the stop (or after the last item kept).
                let stop = stopped_at.map(|at| (path.to_string(), at, self.budget_inside_file()));
                let search = self.search;
                let filters = &search.plan.filters;
                let mut sink = StageSink {
                    collector: &mut self.collector,
                    stream: &mut self.stream,
                    after_items: &mut self.after_items,
                    refused: &mut self.refused,
                    as_text: as_text.map(|a| (a.line_start, as_asked(filters, a.input))),
                    stamp,
                    kept_any: false,
                };
                let mut flow = K::offer_items(&path, &hits, &mut sink);
                self.item_in_file = sink.kept_any || (continued && self.item_in_file);
                // Told after the items, when none comes from its line on.
                let told = match (sink.as_text.take(), flow) {
                    (Some((_, input)), ControlFlow::Continue(())) => {
                        self.collector.skip(input);
                        true
                    }
                    _ => false,
                };
                // The file's last item kept, with nothing of the file after
                // it (no line, no skip): the next page resumes after the
                // file, not inside it, so that an edit to the file leaves
                // the cursor good (no text it would resume in is read
                // again).
                let whole = last_part && stopped_at.is_none() && tail.is_none() && !told;
                if whole && flow.is_continue() && self.item_in_file {
                    if let Some((place, _)) = self.after_items.last_mut() {
                        *place = Place::End;
                    }
                }
                if let Hits::Lines { items, .. } = hits {
                    self.search.spares.give(items);
                }
                flow = if flow.is_break() {
                    self.after_stop(stop.as_ref().map(|(_, _, budget)| *budget))
                } else {
                    ControlFlow::Continue(())
                };
                // The rest of the file, past where its search ended, after
                // its lines: unless the collection stopped in them for
                // good (a count that goes on has counted them, and the
                // rest is as unsearched for it).
                if let (Some(tail), ControlFlow::Continue(())) = (tail, flow) {
                    self.skip(*tail);
                }
                if self.collector.is_stopped() {
                    return flow;
                }
                match stop {
                    Some((path, at, budget)) => self.stop_by_budget(path, at, stamp, budget),
                    None => ControlFlow::Continue(()),
                }
            }
        }
    }

    /// Between two parts of one file (see `FileOutcome::Searched::more`):
    /// once the scanned bytes or the deadline are spent, stops the search
    /// where the next part would start (`at`, a line start in `path`, the
    /// file stamped `stamp` when it was read), as a stop inside the
    /// file's search does. A file whose lines match densely comes in
    /// parts so small that no part runs into a budget on its own.
    pub(crate) fn between_parts(
        &mut self,
        path: &str,
        at: Place,
        stamp: Option<u64>,
    ) -> ControlFlow<()> {
        if self.collector.is_stopped() {
            return ControlFlow::Continue(());
        }
        match self.spent_between_parts() {
            Some(budget) => self.stop_by_budget(path.to_owned(), at, stamp, budget),
            None => ControlFlow::Continue(()),
        }
    }

    /// Stops the search by `budget`, the next page resuming at `at` in
    /// `path`, the file stamped `stamp` when it was read (`None`: not
    /// read, or no stamp taken).
    fn stop_by_budget(
        &mut self,
        path: String,
        at: Place,
        stamp: Option<u64>,
        budget: Budget,
    ) -> ControlFlow<()> {
        self.scan_resume = Some((path, at, stamp));
        self.collector.stop_with(Completeness::TruncatedByBudget {
            budget,
            clamp: None,
        });
        ControlFlow::Break(())
    }

    /// The budgets that can stop a search between the parts of a file, if
    /// spent: the scanned bytes, then the deadline (as the collector
    /// measures it).
    fn spent_between_parts(&self) -> Option<Budget> {
        let collector = &self.collector;
        self.search
            .budgets
            .spent_between_parts(&self.tally, || collector.deadline_passed())
    }

    /// The budget that stopped a file's search inside it: the scanned
    /// bytes if they are spent, else the deadline.
    fn budget_inside_file(&self) -> Budget {
        self.spent_between_parts()
            .unwrap_or_else(|| self.search.budgets.deadline_spent())
    }

    /// After the collection filled: count on if asked, else stop. A file
    /// searched only in part (`cut_inside`: the budget that stopped it
    /// inside) was not counted whole, so no count past it is exact: that
    /// budget cut the count.
    fn after_stop(&mut self, cut_inside: Option<Budget>) -> ControlFlow<()> {
        let Some(count) = Count::after(self.limits, &self.collector, self.answer) else {
            return ControlFlow::Break(());
        };
        if let Some(budget) = cut_inside {
            self.collector.cut_count(budget);
            return ControlFlow::Break(());
        }
        self.search.budgets.start_counting();
        self.counting = Some(count);
        self.check_count()
    }

    /// Ends the count when its budget is spent or the deadline passed:
    /// the total is then a lower bound.
    fn check_count(&mut self) -> ControlFlow<()> {
        let Some(count) = &self.counting else {
            return ControlFlow::Break(());
        };
        if let Some(budget) = count.stop(&self.collector) {
            self.count_end = Some(count.at_least());
            self.collector.cut_count(budget);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Records a skip (see `as_asked`).
    fn skip(&mut self, input: SkippedInput) {
        self.collector
            .skip(as_asked(&self.search.plan.filters, input));
    }

    /// Takes an outcome after the collection filled: only counted. Only a
    /// count that goes on gets here (any other stop broke the run).
    fn count(&mut self, outcome: FileOutcome<'_>) -> ControlFlow<()> {
        let Some(count) = self.counting.as_mut().filter(|_| self.count_end.is_none()) else {
            return ControlFlow::Break(());
        };
        let filters = &self.search.plan.filters;
        match outcome {
            FileOutcome::Searched {
                hits,
                stopped_at,
                tail,
                as_text,
                scanned,
                ..
            } => {
                count.add(K::answer_items(&hits));
                if let Some(as_text) = as_text {
                    self.collector.skip(as_asked(filters, as_text.input));
                }
                if let Some(tail) = tail {
                    self.collector.skip(as_asked(filters, *tail));
                }
                if stopped_at.is_some() {
                    // Counted in part: what was counted is a lower bound,
                    // cut by the budget that stopped the file's search.
                    self.count_end = Some(count.at_least());
                    // The work charged stops before the count, so the
                    // file's own bytes say whether they were the budget.
                    let budget = self
                        .search
                        .budgets
                        .spent_inside_file(scanned)
                        .unwrap_or_else(|| self.budget_inside_file());
                    self.collector.cut_count(budget);
                    return ControlFlow::Break(());
                }
            }
            FileOutcome::Skipped(input) => self.collector.skip(as_asked(filters, input)),
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
    fn finish_parts(
        self,
        scope: &Scope,
        stamps: &dyn StampLookup,
    ) -> Result<Finished<K::Item>, Error> {
        let hint = self.total_hint();
        let streaming = self.stream.is_some();
        let ResultStage {
            search,
            collector,
            after_items,
            refused,
            scan_resume,
            error,
            ..
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let resume = ResumeAfter {
            scope,
            stamps,
            after_items: &after_items,
            scan_resume: scan_resume.as_ref(),
            began_at: search.plan.start.as_ref(),
            streaming,
            at_last: refused,
            seen: collector.seen(),
        };
        collector.finish_parts(|kept| resume.cursor(kept), hint)
    }

    /// Builds the result.
    pub(crate) fn finish(
        self,
        scope: &Scope,
        stamps: &dyn StampLookup,
    ) -> Result<crate::Bounded<K::Item>, Error> {
        self.finish_parts(scope, stamps)?.into_bounded()
    }

    /// Ends a stream: the same disclosure as `finish`, without the items.
    pub(crate) fn finish_stream(
        self,
        scope: &Scope,
        stamps: &dyn StampLookup,
    ) -> Result<crate::Streamed, Error> {
        Ok(self.finish_parts(scope, stamps)?.into_streamed())
    }
}

/// The sink a file's items are offered to: the collector, and a stream's
/// receiver when there is one.
struct StageSink<'s, 'l, T> {
    collector: &'s mut Collector<T>,
    stream: &'s mut Option<&'l mut Receiver<'l, T>>,
    after_items: &'s mut Vec<(Place, Option<u64>)>,
    refused: &'s mut bool,
    /// The record that a named file is binary, and the start of the line
    /// it is told before: it comes before the first item that does not
    /// end before that line (a file's one item, for a count or a list of
    /// files), so that the page that holds that item tells it.
    as_text: Option<(u64, SkippedInput)>,
    /// The file's stamp when it was read, kept with each item's place.
    stamp: Option<u64>,
    /// An item of this outcome was kept.
    kept_any: bool,
}

impl<T: crate::item::Item> ItemSink<T> for StageSink<'_, '_, T> {
    fn offer(&mut self, after: Place, build: &dyn Fn(Option<T>) -> T) -> ControlFlow<()> {
        if let Some((line_start, _)) = &self.as_text {
            if after.offset().is_none_or(|ends| ends > *line_start) {
                if let Some((_, input)) = self.as_text.take() {
                    self.collector.skip(input);
                }
            }
        }
        self.collector.offer_with(build)?;
        let mut answer = ControlFlow::Continue(());
        if let (Some(receiver), Some(last)) = (self.stream.as_mut(), self.collector.last()) {
            answer = receiver(last);
            self.after_items.clear();
        }
        self.after_items.push((after, self.stamp));
        self.kept_any = true;
        if let ControlFlow::Break(refusal) = answer {
            // The receiver ended the stream, as a cancellation would: more
            // items may exist.
            if refusal == Refusal::Before {
                self.collector.refuse_last();
                *self.refused = true;
            }
            self.collector.stop_with(Completeness::TruncatedByBudget {
                budget: Budget::new(BudgetKind::Cancelled, 0, 0),
                clamp: None,
            });
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// A skip as the caller sees it: one of a file the caller named (the file
/// of a find-in-file, or a path filter naming the file itself), or of a
/// folder or link on the way to a path the caller named (a link out of
/// the root, broken or looping, a folder that cannot be read: the path
/// below it is not searched), leaves the answer incomplete, whatever its
/// reason, since the caller asked for it.
fn as_asked(filters: &[String], input: SkippedInput) -> SkippedInput {
    // The path named itself, or one below it.
    let named = filters.iter().any(|f| path::is_within(f, input.path()));
    if named { input.named() } else { input }
}
