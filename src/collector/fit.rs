//! Fitting a finished result to its output-bytes budget: the optional
//! parts of the disclosure yield, level by level, before the last item
//! does.

use crate::envelope::{Stated, fitted_len};
use crate::error::{Error, ErrorKind};
use crate::note::NoteForm;
use crate::{Budget, BudgetKind, Clamp, Completeness, Cursor, Disclosure, Skipped};

/// Fits a response to its byte budget. The optional parts of the
/// disclosure are the skipped sample, the truncation note and the running
/// total of the walk's skips (`skipped.so_far`); the levels go from all
/// of them to none: the sample shrinks one input at a time, then the note
/// shortens, then it goes, then the running total does (the page still
/// counts its own skips, and its cursor still carries the total on).
///
/// - An answer that fits whole stays exact, at the richest level where it
///   fits: the sample yields before an exact answer loses an item.
/// - Otherwise the result is cut, at the richest level where one item
///   fits, with as many items as fit there: the optional parts yield
///   before the last item does.
/// - With no item fitting at any level, the page holds none (at the
///   poorest level), and if even that does not fit, the budget is too small.
#[derive(Clone, Copy)]
pub(super) struct Fitting<'a> {
    pub(super) base: &'a Disclosure,
    /// The JSON size of each item.
    pub(super) sizes: &'a [usize],
    /// The budget, in bytes of JSON.
    pub(super) max: usize,
    /// The units of the figures a page states (`max`, `used`, `needed`):
    /// those of the JSON, or of the response that encloses it.
    pub(super) stated: Stated,
    pub(super) clamp: Option<Clamp>,
    /// The cursor after the first `k` items.
    pub(super) cursor_at: &'a dyn Fn(usize) -> Option<Cursor>,
    /// The skips a page of the first `k` items reports, when it is cut
    /// before the last item (it resumes after item `k`).
    pub(super) skipped_at: &'a dyn Fn(usize) -> Skipped,
    /// Measures pages with the longest lower-bound total a page of this
    /// budget can state: a page asked for with a larger budget reads on,
    /// and the items it then sees raise its total.
    pub(super) longest_total: bool,
}

pub(super) struct Fitted {
    pub(super) count: usize,
    pub(super) disclosure: Disclosure,
}

impl Fitting<'_> {
    fn levels(&self) -> Vec<Level> {
        let sample = self.base.skipped().sample().len();
        let mut levels: Vec<Level> = (0..=sample)
            .rev()
            .map(|n| (n, NoteForm::Full, true))
            .collect();
        levels.push((0, NoteForm::Short, true));
        levels.push((0, NoteForm::Omitted, true));
        if !self.base.skipped_before().is_empty() {
            levels.push((0, NoteForm::Omitted, false));
        }
        levels
    }

    /// The response of the first `k` items at `level`, if it fits.
    fn try_fit(&self, level: Level, k: usize, n: usize) -> Result<Fit, Error> {
        self.try_fit_needing(level, k, n, None)
    }

    /// `try_fit`, for a page cut before its first item that says what a
    /// page holding that item needs (`needed`).
    fn try_fit_needing(
        &self,
        level: Level,
        k: usize,
        n: usize,
        needed: Option<u64>,
    ) -> Result<Fit, Error> {
        let mut d = self.base.clone();
        if self.longest_total && d.total().is_lower_bound() {
            // Fewer items than the budget has bytes are kept before it
            // stops the page, and one more proves it.
            let most = d.start().saturating_add(self.max as u64).saturating_add(1);
            d.set_total(crate::Total::AtLeast(d.total().value().max(most)));
        }
        if k < n {
            // The items left out prove there is more; the next page
            // resumes after item `k`, and meets the skips beyond it.
            let mut budget = Budget::new(BudgetKind::OutputBytes, self.stated.max, 0);
            if let Some(needed) = needed {
                budget = budget.with_needed(needed);
            }
            d.set_completeness(Completeness::TruncatedByBudget {
                budget,
                clamp: self.clamp,
            });
            let cursor = (self.cursor_at)(k);
            if cursor.is_some() {
                *d.skipped_mut() = (self.skipped_at)(k);
            }
            d.set_next_cursor(cursor);
        }
        d.skipped_mut().truncate_sample(level.0);
        // An exact page has no note, whatever the level: its form stays
        // the one a decoder reads back.
        if d.completeness().is_truncated() {
            d.set_note(level.1);
        }
        if !level.2 {
            d = d.with_skipped_before(crate::SkipTally::default());
        }
        let item_bytes = self.sizes[..k].iter().sum::<usize>() + k.saturating_sub(1);
        let (len, budget) = fitted_len(&d, k, item_bytes, self.stated)?;
        if let Some(budget) = budget {
            d.set_completeness(Completeness::TruncatedByBudget {
                budget,
                clamp: self.clamp,
            });
        }
        Ok(if len <= self.max {
            Fit::Fits(Box::new(d))
        } else {
            Fit::Over(len)
        })
    }

    pub(super) fn fit(&self, n: usize) -> Result<Fitted, Error> {
        let levels = self.levels();
        if self.base.completeness().is_exact() {
            // The whole answer, at the richest level where it fits.
            for &level in &levels {
                if let Fit::Fits(disclosure) = self.try_fit(level, n, n)? {
                    return Ok(Fitted {
                        count: n,
                        disclosure: *disclosure,
                    });
                }
            }
        }
        if n > 0 {
            if let Some(fitted) = self.fit_items(&levels, n)? {
                return Ok(fitted);
            }
        }
        self.fit_no_item(&levels, n)
    }

    /// The page of the most of the `n` items that fit, at the richest
    /// level where one does; `None` when not one item fits.
    fn fit_items(&self, levels: &[Level], n: usize) -> Result<Option<Fitted>, Error> {
        let exact = self.base.completeness().is_exact();
        for &level in levels {
            // All the items, with the stop the collector found (a limit
            // stop writes a shorter envelope than a cut by the budget
            // would): fitting more items here than by cutting is possible.
            // An exact answer was tried whole before.
            if !exact {
                if let Fit::Fits(all) = self.try_fit(level, n, n)? {
                    return Ok(Some(Fitted {
                        count: n,
                        disclosure: *all,
                    }));
                }
            }
            let Fit::Fits(one) = self.try_fit(level, 1, n)? else {
                continue;
            };
            // The most items that fit at this level, cut by the budget: at
            // least one, fewer than all.
            let (mut lo, mut hi, mut best) = (1, n - 1, one);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                match self.try_fit(level, mid, n)? {
                    Fit::Fits(d) => {
                        lo = mid;
                        best = d;
                    }
                    Fit::Over(_) => hi = mid - 1,
                }
            }
            return Ok(Some(Fitted {
                count: lo,
                disclosure: *best,
            }));
        }
        Ok(None)
    }

    /// Not one item fits: a page without items, at the richest level
    /// where that fits. Without a cursor such a page is a dead end, so it
    /// says how large a budget a page holding the next item needs; where
    /// even that does not fit, the budget is too small.
    fn fit_no_item(&self, levels: &[Level], n: usize) -> Result<Fitted, Error> {
        let mut needed = 0;
        let dead_end = n > 0 && (self.cursor_at)(0).is_none();
        for (at, &level) in levels.iter().enumerate() {
            match self.try_fit(level, 0, n)? {
                Fit::Fits(disclosure) if !dead_end => {
                    return Ok(Fitted {
                        count: 0,
                        disclosure: *disclosure,
                    });
                }
                Fit::Fits(_) => {
                    let one = self.stated.of(self.needed_for_one(n)?);
                    for &poorer in &levels[at..] {
                        if let Fit::Fits(d) = self.try_fit_needing(poorer, 0, n, Some(one))? {
                            return Ok(Fitted {
                                count: 0,
                                disclosure: *d,
                            });
                        }
                    }
                    return Err(self.too_small(one));
                }
                Fit::Over(len) => needed = len,
            }
        }
        let poorest = levels[levels.len() - 1];
        let needed = self.needed_for_any(poorest, n, needed, dead_end)?;
        Err(self.too_small(self.stated.of(needed)))
    }

    /// The least budget of a page at the `poorest` level, where a page
    /// without items needs `needed` at `max`: a page of every item read
    /// when that is shorter, one holding the first item for a
    /// `dead_end`.
    fn needed_for_any(
        &self,
        poorest: Level,
        n: usize,
        needed: usize,
        dead_end: bool,
    ) -> Result<usize, Error> {
        // The response names its budget (`max`), so at a budget of
        // `needed` it can be longer than it is at `max`: the smallest
        // budget that fits is the least fixed point, reached from below.
        let mut needed = self.least_budget(poorest, 0, n, needed)?;
        // Every item read, with the stop the collector found, can be
        // shorter than no items cut by the budget, which carries a note:
        // the smaller of the two is what a retry needs. (Unless that stop
        // is the output-bytes budget itself, whose size depends on it.)
        let stopped_by_output = self
            .base
            .completeness()
            .budget()
            .is_some_and(|budget| budget.kind() == BudgetKind::OutputBytes);
        if !stopped_by_output {
            if let Fit::Over(len) = self.try_fit(poorest, n, n)? {
                needed = needed.min(len);
            }
        }
        // A page without items and without a cursor is a dead end: what
        // a retry needs is a page that holds the first item.
        if dead_end {
            needed = needed.max(self.needed_for_one(n)?);
        }
        Ok(needed)
    }

    /// The error of a budget too small for any page, where a page needs
    /// a budget of `needed` (in the units stated).
    fn too_small(&self, needed: u64) -> Error {
        ErrorKind::BudgetTooSmall {
            max_bytes: usize::try_from(self.stated.max).unwrap_or(usize::MAX),
            needed: usize::try_from(needed).unwrap_or(usize::MAX),
        }
        .into()
    }
}

impl Fitting<'_> {
    /// The smallest budget, in bytes of JSON, whose page holds the first
    /// item, at the poorest level.
    fn needed_for_one(&self, n: usize) -> Result<usize, Error> {
        let poorest = *self.levels().last().expect("levels are never empty");
        // As if more items followed: the page holding the first item then
        // has a cursor too, where cursors can be issued; and its total is
        // as long as one a page of that budget can state, so that asking
        // with the budget found gives that page.
        let n = n.max(2);
        let padded = Fitting {
            longest_total: true,
            ..*self
        };
        let first = match padded.try_fit(poorest, 1, n)? {
            Fit::Over(len) => len,
            Fit::Fits(_) => self.max,
        };
        padded.least_budget(poorest, 1, n, first)
    }

    /// The smallest budget, in bytes of JSON, whose page of the first `k`
    /// items fits at `level`, from a first guess `needed`: the response
    /// names its budget, so that budget is the least fixed point of its
    /// own length, reached from below. The page is measured with the
    /// longest `max` a budget of that share states, so that every budget
    /// that gives the JSON that share, or more, holds it too.
    fn least_budget(
        &self,
        level: Level,
        k: usize,
        n: usize,
        mut needed: usize,
    ) -> Result<usize, Error> {
        for _ in 0..4 {
            let at_needed = Fitting {
                max: needed,
                stated: self.stated.at(needed),
                ..*self
            };
            match at_needed.try_fit(level, k, n)? {
                Fit::Fits(_) => break,
                Fit::Over(len) => needed = len,
            }
        }
        Ok(needed)
    }
}

/// How much of the optional parts a page keeps: the sample's length, the
/// note's form, and whether it states the walk's skips so far.
type Level = (usize, NoteForm, bool);

enum Fit {
    Fits(Box<Disclosure>),
    /// The response's length, over the budget.
    Over(usize),
}

/// The stop of a collection whose next item the budget refused; the
/// figures are written when the page is fitted.
pub(super) fn output_bytes(max: usize, clamp: Option<Clamp>) -> Completeness {
    Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::OutputBytes, max as u64, 0),
        clamp,
    }
}
