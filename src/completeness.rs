//! Why a result is, or is not, the whole answer.

use std::fmt;

/// Whether a [`Bounded`](crate::Bounded) holds the whole answer, and if not,
/// what stopped it.
///
/// The engine records the reason as it stops; a caller never has to work it
/// out from the numbers.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Completeness, Limits};
///
/// let b = Bounded::collect(0..10u32, &Limits::new().limit(3))?;
/// assert_eq!(
///     b.completeness(),
///     &Completeness::TruncatedByLimit { limit: 3, requested: None }
/// );
/// assert!(b.completeness().is_truncated());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive] // a new stop reason must not break callers
pub enum Completeness {
    /// No item of the full answer is missing.
    Exact,
    /// The item limit was reached and at least one more item exists: the
    /// engine found item `limit + 1` before stopping.
    TruncatedByLimit {
        /// The limit that was applied.
        limit: usize,
        /// What the caller asked for, when it was above the engine's ceiling
        /// and was clamped to `limit`; `None` when nothing was clamped.
        requested: Option<usize>,
    },
    /// A budget ran out before the answer was complete.
    TruncatedByBudget {
        /// Which budget, its maximum and what was used.
        budget: Budget,
        /// The item limit, when the caller asked for more than the engine's
        /// ceiling and it was clamped: disclosed whatever stopped the result.
        clamp: Option<Clamp>,
    },
}

impl Completeness {
    /// Returns true when no item of the full answer is missing.
    ///
    /// Skipped inputs are not part of this: see
    /// [`Bounded::is_complete`](crate::Bounded::is_complete).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Completeness::Exact.is_exact());
    /// ```
    #[must_use]
    pub fn is_exact(&self) -> bool {
        matches!(self, Completeness::Exact)
    }

    /// Returns true when items of the full answer are missing.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Completeness;
    /// let c = Completeness::TruncatedByLimit { limit: 10, requested: None };
    /// assert!(c.is_truncated());
    /// ```
    #[must_use]
    pub fn is_truncated(&self) -> bool {
        !self.is_exact()
    }

    /// Returns true when the item limit stopped the result.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Completeness;
    /// let c = Completeness::TruncatedByLimit { limit: 10, requested: Some(500) };
    /// assert!(c.is_truncated_by_limit());
    /// ```
    #[must_use]
    pub fn is_truncated_by_limit(&self) -> bool {
        matches!(self, Completeness::TruncatedByLimit { .. })
    }

    /// Returns true when a budget stopped the result.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Budget, BudgetKind, Completeness};
    /// let c = Completeness::TruncatedByBudget {
    ///     budget: Budget::new(BudgetKind::OutputBytes, 4096, 4001),
    ///     clamp: None,
    /// };
    /// assert!(c.is_truncated_by_budget());
    /// ```
    #[must_use]
    pub fn is_truncated_by_budget(&self) -> bool {
        matches!(self, Completeness::TruncatedByBudget { .. })
    }

    /// The budget that stopped the result, if one did.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Budget, BudgetKind, Completeness};
    /// let budget = Budget::new(BudgetKind::Files, 100, 100);
    /// let c = Completeness::TruncatedByBudget { budget, clamp: None };
    /// assert_eq!(c.budget(), Some(&budget));
    /// assert_eq!(Completeness::Exact.budget(), None);
    /// ```
    #[must_use]
    pub fn budget(&self) -> Option<&Budget> {
        match self {
            Completeness::TruncatedByBudget { budget, .. } => Some(budget),
            _ => None,
        }
    }

    /// The clamp of the item limit, when the caller asked for more than the
    /// engine's ceiling: present whatever stopped the result (the limit, a
    /// budget or the deadline).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, BudgetKind, Clamp, Limits};
    /// // The byte budget binds long before the clamped limit of 1000.
    /// let b = Bounded::collect(0..5000u32, &Limits::new().ceiling(1000).limit(100_000).max_bytes(300))?;
    /// assert_eq!(b.completeness().budget().map(|b| b.kind()), Some(BudgetKind::OutputBytes));
    /// assert_eq!(b.completeness().clamp(), Some(Clamp::new(1000, 100_000)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn clamp(&self) -> Option<Clamp> {
        match self {
            Completeness::Exact => None,
            Completeness::TruncatedByLimit { limit, requested } => {
                requested.map(|requested| Clamp::new(*limit, requested))
            }
            Completeness::TruncatedByBudget { clamp, .. } => *clamp,
        }
    }

    /// Returns true when the stop proves that at least one more item exists
    /// beyond those returned.
    ///
    /// The item limit and the output-bytes budget stop only once the next
    /// item has been found, so the total is then at least `len + 1`. The
    /// scanned-bytes, files and deadline budgets stop the work itself,
    /// before it is known whether anything more would have been found.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Budget, BudgetKind, Completeness};
    /// let deadline = Completeness::TruncatedByBudget {
    ///     budget: Budget::new(BudgetKind::Deadline, 50, 51),
    ///     clamp: None,
    /// };
    /// assert!(!deadline.proves_more());
    /// ```
    #[must_use]
    pub fn proves_more(&self) -> bool {
        match self {
            Completeness::Exact => false,
            Completeness::TruncatedByLimit { .. } => true,
            Completeness::TruncatedByBudget { budget, .. } => {
                matches!(budget.kind, BudgetKind::OutputBytes | BudgetKind::Shard)
            }
        }
    }
}

/// The clamp of the item limit: the caller asked for `requested` items,
/// above the engine's ceiling, and `limit` was applied.
///
/// # Example
///
/// ```
/// let clamp = candor::Clamp::new(1000, 100_000);
/// assert_eq!(clamp.limit(), 1000);
/// assert_eq!(clamp.requested(), 100_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Clamp {
    limit: usize,
    requested: usize,
}

impl Clamp {
    /// A clamp of `requested` down to `limit`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Clamp::new(10, 50).limit(), 10);
    /// ```
    #[must_use]
    pub fn new(limit: usize, requested: usize) -> Clamp {
        Clamp { limit, requested }
    }

    /// The limit applied (the engine's ceiling).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Clamp::new(10, 50).limit(), 10);
    /// ```
    #[must_use]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The limit the caller asked for.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Clamp::new(10, 50).requested(), 50);
    /// ```
    #[must_use]
    pub fn requested(&self) -> usize {
        self.requested
    }
}

/// A budget that ran out: which one, its maximum and what was used.
///
/// Units depend on the kind: bytes for [`BudgetKind::OutputBytes`] and
/// [`BudgetKind::ScannedBytes`], files for [`BudgetKind::Files`],
/// milliseconds for [`BudgetKind::Deadline`].
///
/// # Example
///
/// ```
/// use candor::{Budget, BudgetKind};
/// let b = Budget::new(BudgetKind::ScannedBytes, 1 << 20, 1 << 20);
/// assert_eq!(b.kind(), BudgetKind::ScannedBytes);
/// assert_eq!(b.max(), 1 << 20);
/// assert_eq!(b.used(), 1 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Budget {
    kind: BudgetKind,
    max: u64,
    used: u64,
    needed: Option<u64>,
}

impl Budget {
    /// Creates a budget record.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Budget::new(candor::BudgetKind::Deadline, 200, 203);
    /// assert_eq!(b.used(), 203);
    /// ```
    #[must_use]
    pub fn new(kind: BudgetKind, max: u64, used: u64) -> Self {
        Budget {
            kind,
            max,
            used,
            needed: None,
        }
    }

    /// For an output-bytes budget too small for one item: a budget whose
    /// page holds the next item, so that a reader knows what to ask for
    /// instead of meeting a dead end. It is measured as if more items
    /// followed (with a cursor, a truncation, and the longest total a page
    /// of that budget can state: asked with it, a query reads on), so a
    /// page can need a little less. In the units of the budget asked for
    /// (see [`Limits::enclosing`](crate::Limits::enclosing)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Budget, BudgetKind};
    /// let b = Budget::new(BudgetKind::OutputBytes, 300, 240).with_needed(455);
    /// assert_eq!(b.needed(), Some(455));
    /// ```
    #[must_use]
    pub fn with_needed(mut self, needed: u64) -> Self {
        self.needed = Some(needed);
        self
    }

    /// An output-bytes budget whose page holds the next item, when this
    /// budget held none (see [`with_needed`](Self::with_needed)).
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Budget::new(candor::BudgetKind::Files, 10, 10);
    /// assert_eq!(b.needed(), None);
    /// ```
    #[must_use]
    pub fn needed(&self) -> Option<u64> {
        self.needed
    }

    /// Which budget ran out.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Budget::new(candor::BudgetKind::Files, 10, 10);
    /// assert_eq!(b.kind(), candor::BudgetKind::Files);
    /// ```
    #[must_use]
    pub fn kind(&self) -> BudgetKind {
        self.kind
    }

    /// The budget's maximum, in the kind's unit.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Budget::new(candor::BudgetKind::Files, 10, 10);
    /// assert_eq!(b.max(), 10);
    /// ```
    #[must_use]
    pub fn max(&self) -> u64 {
        self.max
    }

    /// What was used when the result stopped, in the kind's unit.
    ///
    /// For [`BudgetKind::OutputBytes`] this is the size of the serialized
    /// response that was returned, never above `max`.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Budget::new(candor::BudgetKind::OutputBytes, 4096, 3990);
    /// assert!(b.used() <= b.max());
    /// ```
    #[must_use]
    pub fn used(&self) -> u64 {
        self.used
    }
}

/// The kinds of budget a query can run out of.
///
/// # Example
///
/// ```
/// use candor::BudgetKind;
/// assert_eq!(BudgetKind::OutputBytes.as_str(), "output_bytes");
/// assert_eq!("deadline".parse::<BudgetKind>(), Ok(BudgetKind::Deadline));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum BudgetKind {
    /// The size of the serialized JSON response, envelope included.
    OutputBytes,
    /// Bytes of input read and searched.
    ScannedBytes,
    /// Input files (or documents) searched.
    Files,
    /// Wall-clock time, in milliseconds.
    Deadline,
    /// The query was cancelled through its
    /// [`CancelToken`](crate::CancelToken); its `max` and `used` are 0.
    Cancelled,
    /// A merged result was cut where one of its parts (shards) stopped by
    /// its own limit or response budget, before the merge's own limit:
    /// that part has more items, placed after the page's last. `max` and
    /// `used` are the items the part returned.
    Shard,
    /// The count budget ([`Limits::max_counted`](crate::Limits::max_counted)):
    /// it cuts only the count of the total past the limit
    /// ([`Disclosure::total_cut_by`](crate::Disclosure::total_cut_by)),
    /// never the items. `max` and `used` are items counted.
    Counted,
}

impl BudgetKind {
    /// The wire name: `"output_bytes"`, `"scanned_bytes"`, `"files"`,
    /// `"deadline"`, `"cancelled"`, `"shard"` or `"counted"`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::BudgetKind::Files.as_str(), "files");
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            BudgetKind::OutputBytes => "output_bytes",
            BudgetKind::ScannedBytes => "scanned_bytes",
            BudgetKind::Files => "files",
            BudgetKind::Deadline => "deadline",
            BudgetKind::Cancelled => "cancelled",
            BudgetKind::Shard => "shard",
            BudgetKind::Counted => "counted",
        }
    }

    /// The unit of `max` and `used` for this kind, for messages.
    pub(crate) fn unit(&self) -> &'static str {
        match self {
            BudgetKind::OutputBytes | BudgetKind::ScannedBytes => "bytes",
            BudgetKind::Files => "files",
            BudgetKind::Deadline | BudgetKind::Cancelled => "ms",
            BudgetKind::Shard | BudgetKind::Counted => "items",
        }
    }
}

impl fmt::Display for BudgetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for BudgetKind {
    type Err = UnknownBudgetKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "output_bytes" => Ok(BudgetKind::OutputBytes),
            "scanned_bytes" => Ok(BudgetKind::ScannedBytes),
            "files" => Ok(BudgetKind::Files),
            "deadline" => Ok(BudgetKind::Deadline),
            "cancelled" => Ok(BudgetKind::Cancelled),
            "shard" => Ok(BudgetKind::Shard),
            "counted" => Ok(BudgetKind::Counted),
            _ => Err(UnknownBudgetKind(name.to_owned())),
        }
    }
}

/// The error of parsing a [`BudgetKind`] from an unknown name.
///
/// # Example
///
/// ```
/// let err = "memory".parse::<candor::BudgetKind>().unwrap_err();
/// assert_eq!(err.to_string(), "unknown budget kind \"memory\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown budget kind {0:?}")]
pub struct UnknownBudgetKind(String);
