//! Limits: the item limit, its ceiling, budgets and a deadline.

mod applied;
mod enclosing;
mod get;

pub use applied::AppliedLimit;
pub use enclosing::Enclosing;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::CancelToken;
use crate::clock::{Clock, SystemClock};

/// Everything that may stop a query before its full answer: an item limit
/// (and the engine's ceiling for it), a budget on the serialized response,
/// budgets on the work (bytes scanned, files), and a deadline. Plus one
/// switch: counting past the limit for an exact total.
///
/// A settings value, and nothing more: a query takes it
/// ([`Bounded::collect`](crate::Bounded::collect),
/// [`Bounded::page`](crate::Bounded::page),
/// [`Bounded::merge`](crate::Bounded::merge), and every query of a
/// `candor_search::Corpus`). Setters take and return it, named after
/// what they set (`max_bytes(1024)`); each getter is that name with `get_`
/// (`get_max_bytes()`). Unset means unlimited. A limit of `0` is legal:
/// nothing is returned, and the result still says whether anything
/// exists.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Completeness, Limits, Total};
///
/// let limits = Limits::new().limit(10);
/// assert_eq!(limits.get_limit(), Some(10));
/// let b = Bounded::collect(0..25u32, &limits)?;
/// assert!(matches!(b.completeness(), Completeness::TruncatedByLimit { .. }));
/// assert_eq!(b.total(), Total::AtLeast(11));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Limits {
    pub(crate) limit: Option<usize>,
    pub(crate) ceiling: Option<usize>,
    pub(crate) max_bytes: Option<usize>,
    /// The response that encloses the JSON, whose budget `max_bytes` is
    /// a share of: the figures a result states are in its units.
    pub(crate) enclosing: Option<Enclosing>,
    pub(crate) max_scanned_bytes: Option<u64>,
    pub(crate) max_files: Option<u64>,
    pub(crate) deadline: Option<Duration>,
    /// When the deadline's time started, if before the query.
    pub(crate) started: Option<Instant>,
    pub(crate) count_total: bool,
    pub(crate) max_counted: Option<u64>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) cancel: Option<CancelToken>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new()
    }
}

impl Limits {
    /// No limit, no budget, no deadline; totals not counted past the limit.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..3u8, &candor::Limits::new())?;
    /// assert!(b.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn new() -> Limits {
        Limits {
            limit: None,
            ceiling: None,
            max_bytes: None,
            enclosing: None,
            max_scanned_bytes: None,
            max_files: None,
            deadline: None,
            started: None,
            count_total: false,
            max_counted: None,
            clock: Arc::new(SystemClock),
            cancel: None,
        }
    }

    /// The most items to return. Default: unlimited (up to the
    /// [`ceiling`](Self::ceiling), if one is set).
    ///
    /// Truncation is detected by finding item `limit + 1`, so an answer of
    /// exactly `limit` items is [`Exact`](crate::Completeness::Exact).
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..3u8, &candor::Limits::new().limit(3))?;
    /// assert!(b.is_complete()); // exactly 3: no false alarm
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Limits {
        self.limit = Some(limit);
        self
    }

    /// The engine's maximum for [`limit`](Self::limit). A larger limit is
    /// clamped to the ceiling and, whenever the result is truncated, by the
    /// limit or by a budget, the clamp is disclosed
    /// ([`Completeness::clamp`](crate::Completeness::clamp)): `requested`
    /// holds what was asked. Without a limit the ceiling is the limit.
    /// Default: no ceiling.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Limits};
    /// let b = Bounded::collect(0..50u32, &Limits::new().ceiling(5).limit(100))?;
    /// assert_eq!(
    ///     b.completeness(),
    ///     &Completeness::TruncatedByLimit { limit: 5, requested: Some(100) }
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn ceiling(mut self, ceiling: usize) -> Limits {
        self.ceiling = Some(ceiling);
        self
    }

    /// The most bytes of the serialized JSON response, envelope included:
    /// `serde_json::to_string(&result)?.len() <= max_bytes` always holds.
    /// Default: unlimited.
    ///
    /// Items that would not fit are left out and the result is
    /// [`TruncatedByBudget`](crate::Completeness::TruncatedByBudget) with
    /// [`BudgetKind::OutputBytes`](crate::BudgetKind::OutputBytes). Under a
    /// tight budget the optional parts of the response yield before the
    /// last item does: the skipped sample shrinks (its counts stay), then
    /// the truncation note shortens, then it goes, then the running total
    /// of a walk's skips (`skipped.so_far`, which the cursor still
    /// carries on). So whenever the required
    /// fields and one item fit, a page holds at least one item and a
    /// cursor, and following cursors always ends. A budget too small for
    /// the required fields alone is an error.
    ///
    /// A page cut by this budget states its `max`, and what it `used`: its
    /// own length, the least `max_bytes` that holds it. A page that holds
    /// no item states what one `needs`: a `max_bytes` whose page holds the
    /// next item. Setting this replaces an [`enclosing`](Self::enclosing)
    /// budget: the figures are then those of the JSON.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..1000u32, &candor::Limits::new().max_bytes(400))?;
    /// assert!(serde_json::to_string(&b)?.len() <= 400);
    /// assert!(!b.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_bytes(mut self, max_bytes: usize) -> Limits {
        self.max_bytes = Some(max_bytes);
        self.enclosing = None;
        self
    }

    /// A byte budget on a response that encloses the JSON (such as an MCP
    /// tool result, which sends it twice beside a line of text): the JSON
    /// gets its share, [`Enclosing::json_budget`], as
    /// [`max_bytes`](Self::max_bytes), and every output-bytes figure the
    /// result states is in the enclosing budget's units, the units its
    /// reader asked in. `max` is the enclosing `max_bytes`; `used` is the
    /// least enclosing budget whose share holds the page
    /// ([`Enclosing::bytes_for`] its length); `needed`, on a page that
    /// holds no item, an enclosing budget whose page holds the next
    /// item, so that asking again with it gives that page; a budget too
    /// small for any page ([`ErrorKind::BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall))
    /// says both in those units too. Setting [`max_bytes`](Self::max_bytes)
    /// afterwards replaces it. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Enclosing, Limits};
    /// let enclosing = Enclosing::new(1500, 3, 672)?;
    /// let limits = Limits::new().enclosing(enclosing);
    /// assert_eq!(limits.get_max_bytes(), Some(276)); // the JSON's share
    /// let b = Bounded::collect((0..100).map(|n| format!("item {n}")), &limits)?;
    /// assert!(b.to_json()?.len() <= 276);
    /// let budget = b.completeness().budget().expect("cut by the budget");
    /// assert_eq!(budget.max(), 1500); // the enclosing budget, as asked
    /// assert_eq!(budget.used(), enclosing.bytes_for(b.to_json()?.len()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn enclosing(mut self, enclosing: Enclosing) -> Limits {
        self.max_bytes = Some(enclosing.json_budget());
        self.enclosing = Some(enclosing);
        self
    }

    /// The most bytes of input a search reads. Default: unlimited.
    ///
    /// Checked between files and, when a search lists lines, within a
    /// large file between blocks of a few hundred KiB, and between parts
    /// of 2,048 matching lines (the next page resumes at the line where it
    /// stopped; a count or a list of files takes a file whole). At least
    /// a block or a part of one input is always searched, so that paging
    /// advances. A tree searching on several threads may begin a large
    /// file ahead of the answer, while lines are still listed: when the
    /// limit fills before that file's turn, the file was still searched as
    /// a listing is, stopped inside by this budget, and a total counted
    /// past the limit ([`count_total`](Limits::count_total)) ends there as
    /// a lower bound, where one thread would have counted the file whole.
    /// Which of the two a run gives depends on the threads' timing.
    /// Used by the search engine; collecting an iterator has no input bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// // A search (`candor_search`) stops reading once 1 MiB was read.
    /// let limits = Limits::new().max_scanned_bytes(1 << 20);
    /// assert_eq!(limits.get_max_scanned_bytes(), Some(1 << 20));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_scanned_bytes(mut self, max_scanned_bytes: u64) -> Limits {
        self.max_scanned_bytes = Some(max_scanned_bytes);
        self
    }

    /// The most input files (or documents) a search reads. Default:
    /// unlimited.
    ///
    /// `0` is honoured: nothing is read, and the result is truncated by
    /// the files budget (`used` 0) when the corpus holds any file, with a
    /// cursor at the first one. Used by the search engine; collecting an
    /// iterator has no files.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// // A search (`candor_search`) reads at most 100 files.
    /// let limits = Limits::new().max_files(100);
    /// assert_eq!(limits.get_max_files(), Some(100));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_files(mut self, max_files: u64) -> Limits {
        self.max_files = Some(max_files);
        self
    }

    /// The most wall-clock time a query may take, measured from its start
    /// with the [`clock`](Self::clock). Default: none.
    ///
    /// The deadline is checked between units of work (items pulled, files
    /// searched, and, when a search lists lines, blocks of a few hundred
    /// KiB within a file), and at
    /// least one unit is always done, so a query under a
    /// deadline still advances from page to page.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// let b = candor::Bounded::collect(0..10u8, &candor::Limits::new().deadline(Duration::from_secs(5)))?;
    /// assert!(b.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn deadline(mut self, deadline: Duration) -> Limits {
        self.deadline = Some(deadline);
        self
    }

    /// Counts the [`deadline`](Self::deadline) from `started`, an instant
    /// of the [`clock`](Self::clock) before the query starts (when a
    /// request arrived, before it waited its turn), rather than from the
    /// query's start: the time since then counts against the deadline,
    /// and an answer cut by it states the deadline as given and the time
    /// used since `started`, the figures its reader knows. Default: the
    /// query's start.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::{Bounded, BudgetKind, Clock, Limits, ManualClock};
    /// let clock = ManualClock::new();
    /// let arrived = clock.now();
    /// clock.advance(Duration::from_millis(30)); // waiting its turn
    /// let limits = Limits::new()
    ///     .clock(clock.clone())
    ///     .deadline(Duration::from_millis(30))
    ///     .deadline_from(arrived);
    /// let b = Bounded::collect(0..10u32, &limits)?;
    /// let budget = b.completeness().budget().expect("the deadline passed");
    /// assert_eq!(budget.kind(), BudgetKind::Deadline);
    /// assert_eq!((budget.max(), budget.used()), (30, 30));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn deadline_from(mut self, started: Instant) -> Limits {
        self.started = Some(started);
        self
    }

    /// The time left of the deadline now, by the clock: `None` without
    /// one. What a cluster is given of it.
    #[cfg(any(feature = "opensearch", feature = "zoekt"))]
    pub(crate) fn time_left(&self) -> Option<Duration> {
        let deadline = self.deadline?;
        let spent = match self.started {
            Some(started) => self.clock.now().saturating_duration_since(started),
            None => Duration::ZERO,
        };
        Some(deadline.saturating_sub(spent))
    }

    /// A handle that ends the query from elsewhere, checked wherever the
    /// deadline is. A cancelled query answers with what it has,
    /// [`TruncatedByBudget`](crate::Completeness::TruncatedByBudget) with
    /// [`BudgetKind::Cancelled`](crate::BudgetKind::Cancelled), and a
    /// cursor when it is resumable. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, BudgetKind, CancelToken, Limits};
    /// let token = CancelToken::new();
    /// token.cancel();
    /// let b = Bounded::collect(0..100u32, &Limits::new().cancel_token(token))?;
    /// assert_eq!(b.len(), 1);
    /// assert_eq!(b.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Cancelled));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn cancel_token(mut self, token: CancelToken) -> Limits {
        self.cancel = Some(token);
        self
    }

    /// Keeps counting past the limit, without keeping the items, so that
    /// `total` is exact. Default: off, and a truncated result's total is a
    /// lower bound.
    ///
    /// This is the one way to ask for an exact total. Counting has its own
    /// budget, [`max_counted`](Self::max_counted), and stops at the
    /// deadline, a cancellation, or once the scanned bytes are spent; if it
    /// stops early the total stays a lower bound with what was counted, and
    /// the result names what cut the count
    /// ([`Bounded::total_cut_by`](crate::Bounded::total_cut_by), `total.cut_by`
    /// on the wire) beside what cut the items (the limit). A
    /// [`Keyset`](crate::Keyset) that can count
    /// ([`Keyset::count`](crate::Keyset::count)) answers with its count
    /// instead of being read on.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Limits, Total};
    /// let b = Bounded::collect(0..25u32, &Limits::new().limit(10).count_total(true))?;
    /// assert_eq!(b.len(), 10);
    /// assert_eq!(b.total(), Total::Exact(25));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn count_total(mut self, count_total: bool) -> Limits {
        self.count_total = count_total;
        self
    }

    /// The counting budget: the most items of the full answer counted in
    /// all when [`count_total`](Self::count_total) is on. Default:
    /// unlimited. When it runs out the total stays a lower bound with what
    /// was counted, and the result says so
    /// ([`BudgetKind::Counted`](crate::BudgetKind::Counted) in
    /// [`Bounded::total_cut_by`](crate::Bounded::total_cut_by)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Limits, Total};
    /// let b = Bounded::collect(0..1000u32, &Limits::new().limit(10).count_total(true).max_counted(100))?;
    /// assert_eq!(b.total(), Total::AtLeast(100));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_counted(mut self, max_counted: u64) -> Limits {
        self.max_counted = Some(max_counted);
        self
    }

    /// The clock that measures the [`deadline`](Self::deadline). Default:
    /// [`SystemClock`].
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::{Bounded, Limits, ManualClock};
    /// let clock = ManualClock::new();
    /// let limits = Limits::new().clock(clock.clone()).deadline(Duration::from_secs(1));
    /// // Time passes only when the test says so: the deadline is far.
    /// assert!(Bounded::collect(0..3u32, &limits)?.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn clock(mut self, clock: impl Clock + 'static) -> Limits {
        self.clock = Arc::new(clock);
        self
    }

    /// The item limit in force after the clamp, and what was requested when
    /// the clamp changed it.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Clamp, Limits};
    /// let clamped = Limits::new().ceiling(100).limit(500).applied_limit();
    /// assert_eq!(clamped.limit(), Some(100));
    /// assert_eq!(clamped.clamp(), Some(Clamp::new(100, 500)));
    /// assert_eq!(Limits::new().limit(50).applied_limit().clamp(), None);
    /// assert_eq!(Limits::new().ceiling(100).applied_limit().limit(), Some(100));
    /// assert_eq!(Limits::new().applied_limit().limit(), None);
    /// ```
    #[must_use]
    pub fn applied_limit(&self) -> AppliedLimit {
        match (self.limit, self.ceiling) {
            (Some(l), Some(c)) if l > c => AppliedLimit {
                limit: Some(c),
                requested: Some(l),
            },
            (Some(l), _) => AppliedLimit {
                limit: Some(l),
                requested: None,
            },
            (None, c) => AppliedLimit {
                limit: c,
                requested: None,
            },
        }
    }
}
