//! A page whose items are a subset of the answer, not its first items (a
//! cluster that timed out, a Zoekt search cut by one of its limits), with
//! the stop the engine had, fitted to the output-bytes budget.
//!
//! A prefix page goes through the collector, which fits it while it
//! issues the cursor. A subset has no cursor, and its disclosure (the
//! engine's stop, `subset`, the limit reached as well, the adapter's note)
//! is known before fitting, so it is fitted here, level by level as the
//! collector does: the skipped sample yields, then the note shortens, then
//! it goes, and only then are items left out (which makes the output
//! budget the page's stop).

use serde::Serialize;

use crate::envelope::{Stated, fitted_len, json_len};
use crate::error::{Error, ErrorKind};
use crate::note::NoteForm;
use crate::{Bounded, Budget, BudgetKind, Completeness, Disclosure, Limits, Skipped, Total};

/// A subset page as the engine answered it, before the byte budget.
pub(crate) struct SubsetPage<T> {
    /// The items, in the answer's order, at most the limit.
    pub(crate) items: Vec<T>,
    /// What stopped the engine (its deadline, a per-shard budget).
    pub(crate) budget: Budget,
    /// The item limit, when the engine also found more than it.
    pub(crate) limit_reached: Option<usize>,
    /// A lower bound of the whole answer's size, items before `start`
    /// included; raised to what the page proves.
    pub(crate) at_least: u64,
    pub(crate) start: u64,
    pub(crate) skipped: Skipped,
    /// The note for the reader, in the adapter's words.
    pub(crate) note: String,
}

/// How rich a fitted page's optional parts are: how many skipped inputs
/// the sample keeps, and the note's form.
type SubsetLevel = (usize, NoteForm);

impl<T: Serialize> SubsetPage<T> {
    /// The result: every item when the page fits the byte budget, else as
    /// many as fit at the richest level where one does; an error in strict
    /// mode (a subset is never complete).
    pub(crate) fn finish(self, limits: &Limits) -> Result<Bounded<T>, Error> {
        let SubsetPage {
            mut items,
            budget,
            limit_reached,
            at_least,
            start,
            skipped,
            note,
        } = self;
        let clamp = limits.applied_limit().clamp();
        let n = items.len();
        let end = start.saturating_add(n as u64);
        let floor = end.saturating_add(u64::from(limit_reached.is_some()));
        // Without the adapter's note: what a page whose note was shortened
        // or left out holds, so that it decodes from its wire shape as it
        // is (the short note is candor's own).
        let bare = Disclosure::new(
            Completeness::TruncatedByBudget { budget, clamp },
            Total::AtLeast(at_least.max(floor)),
        )
        .with_start(start)
        .with_skipped(skipped)
        .with_subset();
        let reached = |d: &Disclosure| match limit_reached {
            Some(limit) => d.clone().with_limit_reached(limit),
            None => d.clone(),
        };
        let base = bare.clone().with_note(note);
        let whole = reached(&base);
        let disclosure = match limits.max_bytes {
            None => whole,
            Some(max) => {
                let sizes = items
                    .iter()
                    .map(|item| json_len(item))
                    .collect::<Result<Vec<usize>, Error>>()?;
                let fitting = SubsetFitting {
                    whole: [&whole, &reached(&bare)],
                    cut: [&base, &bare],
                    sizes: &sizes,
                    max,
                    stated: Stated::new(max, limits.enclosing),
                };
                let (count, disclosure) = fitting.fit()?;
                items.truncate(count);
                disclosure
            }
        };
        Bounded::from_parts(items, disclosure)
    }
}

struct SubsetFitting<'a> {
    /// The disclosure of every item: the engine's stop; with the
    /// adapter's note, then without it.
    whole: [&'a Disclosure; 2],
    /// The disclosure of a page the byte budget cut, before its stop is
    /// set: no limit reached (the page holds fewer items than the limit);
    /// with the note, then without it.
    cut: [&'a Disclosure; 2],
    sizes: &'a [usize],
    max: usize,
    /// The units of the figures a page states.
    stated: Stated,
}

impl SubsetFitting<'_> {
    fn levels(&self) -> Vec<SubsetLevel> {
        let sample = self.whole[0].skipped().sample().len();
        let mut levels: Vec<SubsetLevel> =
            (0..=sample).rev().map(|n| (n, NoteForm::Full)).collect();
        levels.push((0, NoteForm::Short));
        levels.push((0, NoteForm::Omitted));
        levels
    }

    /// The page of the first `k` items at `level`, and its length.
    fn page(&self, level: SubsetLevel, k: usize) -> Result<(usize, Disclosure), Error> {
        let n = self.sizes.len();
        let noted = usize::from(level.1 != NoteForm::Full);
        let mut d = if k < n {
            let mut d = self.cut[noted].clone();
            let clamp = d.completeness().clamp();
            d.set_completeness(Completeness::TruncatedByBudget {
                budget: Budget::new(BudgetKind::OutputBytes, self.stated.max, 0),
                clamp,
            });
            d
        } else {
            self.whole[noted].clone()
        };
        d.skipped_mut().truncate_sample(level.0);
        d.set_note(level.1);
        let item_bytes = self.sizes[..k].iter().sum::<usize>() + k.saturating_sub(1);
        let (len, budget) = fitted_len(&d, k, item_bytes, self.stated)?;
        if let Some(budget) = budget {
            let clamp = d.completeness().clamp();
            d.set_completeness(Completeness::TruncatedByBudget { budget, clamp });
        }
        Ok((len, d))
    }

    fn fits(&self, level: SubsetLevel, k: usize) -> Result<Option<Disclosure>, Error> {
        let (len, d) = self.page(level, k)?;
        Ok((len <= self.max).then_some(d))
    }

    fn fit(&self) -> Result<(usize, Disclosure), Error> {
        let n = self.sizes.len();
        let levels = self.levels();
        // Every item, at the richest level where they fit.
        for &level in &levels {
            if let Some(d) = self.fits(level, n)? {
                return Ok((n, d));
            }
        }
        // As many items as fit, at the richest level where one does.
        for &level in levels.iter().filter(|_| n > 1) {
            let Some(one) = self.fits(level, 1)? else {
                continue;
            };
            let (mut lo, mut hi, mut best) = (1, n - 1, one);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                match self.fits(level, mid)? {
                    Some(d) => {
                        lo = mid;
                        best = d;
                    }
                    None => hi = mid - 1,
                }
            }
            return Ok((lo, best));
        }
        // Not one item fits.
        let mut needed = 0;
        for &level in levels.iter().filter(|_| n > 0) {
            let (len, d) = self.page(level, 0)?;
            if len <= self.max {
                return Ok((0, d));
            }
            needed = len;
        }
        if n == 0 {
            needed = self.page(levels[levels.len() - 1], 0)?.0;
        }
        Err(ErrorKind::BudgetTooSmall {
            max_bytes: usize::try_from(self.stated.max).unwrap_or(usize::MAX),
            needed: usize::try_from(self.stated.of(needed)).unwrap_or(usize::MAX),
        }
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SkipReason;
    use crate::SkippedInput;

    fn page(n: usize, limit_reached: bool) -> SubsetPage<String> {
        let mut skipped = Skipped::new();
        for i in 0..3 {
            skipped.record(SkippedInput::new(
                format!("shard {i}"),
                SkipReason::other("shard_failure").expect("a name"),
            ));
        }
        SubsetPage {
            items: (0..n).map(|i| format!("item number {i}")).collect(),
            budget: Budget::new(BudgetKind::Deadline, 500, 512),
            limit_reached: limit_reached.then_some(n),
            at_least: 3,
            start: 40,
            skipped,
            note: "The cluster timed out: these are some of the hits.".into(),
        }
    }

    #[test]
    fn a_subset_page_never_exceeds_its_budget_and_stays_a_subset() {
        for n in [0usize, 1, 5, 20] {
            for reached in [false, true] {
                let unbounded = page(n, reached).finish(&Limits::new()).expect("fits");
                let full = unbounded.to_json().expect("json").len();
                for max in (0..=full + 10).step_by(7) {
                    let limits = Limits::new().max_bytes(max);
                    match page(n, reached).finish(&limits) {
                        Ok(b) => {
                            let len = b.to_json().expect("json").len();
                            assert!(len <= max, "{len} > {max}");
                            assert!(b.disclosure().is_subset() && b.next_cursor().is_none());
                            assert!(b.total().value() >= 40 + n as u64);
                            // The wire shape decodes into the same page.
                            let json = b.to_json().expect("json");
                            let back: Bounded<String> =
                                serde_json::from_str(&json).expect("decodes");
                            assert_eq!(back, b, "max {max}");
                            if b.len() < n {
                                let budget = b.completeness().budget().expect("a budget");
                                assert_eq!(budget.kind(), BudgetKind::OutputBytes);
                                assert_eq!(budget.used(), len as u64);
                            }
                        }
                        Err(e) => assert!(
                            matches!(e.kind(), ErrorKind::BudgetTooSmall { needed, .. } if *needed > max),
                            "{e:?}"
                        ),
                    }
                }
                // A budget that holds everything keeps the engine's stop.
                let b = page(n, reached)
                    .finish(&Limits::new().max_bytes(full))
                    .expect("fits");
                assert_eq!(b.len(), n);
                assert_eq!(b.disclosure().limit_reached(), reached.then_some(n));
                assert_eq!(
                    b.completeness().budget().map(Budget::kind),
                    Some(BudgetKind::Deadline)
                );
            }
        }
    }

    #[test]
    fn into_exact_refuses_a_subset() {
        let page = page(2, false).finish(&Limits::new()).expect("fits");
        let err = page.into_exact().expect_err("a subset is incomplete");
        assert_eq!(err.bounded().len(), 2);
    }
}
