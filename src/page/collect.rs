//! `collect` and `try_collect`: any source under `Limits`, without a
//! cursor.

use serde::Serialize;

use super::source::{Checked, drive, finish, interrupted};
use super::try_error::TryError;
use crate::collect::Collector;
use crate::error::Error;
use crate::{Bounded, Limits};

impl Limits {
    /// Collects `items` under these limits into a [`Bounded`].
    ///
    /// Applies the item limit (with the `limit + 1` probe, so an answer of
    /// exactly `limit` items is exact), the clamp to the ceiling, the
    /// output-bytes budget on the serialized response, the deadline, and,
    /// if asked, counts on past the limit for an exact total. The iterator
    /// is pulled lazily: at most `limit + 1` items (plus what counting
    /// pulls), and at least one item before the deadline can stop it.
    ///
    /// Can return `Exact`, `TruncatedByLimit`, or `TruncatedByBudget` with
    /// [`BudgetKind::OutputBytes`](crate::BudgetKind::OutputBytes) or
    /// [`BudgetKind::Deadline`](crate::BudgetKind::Deadline). The result
    /// has no cursor: use [`page`](Self::page) for a resumable answer.
    /// For items that may fail (rows of a database), see
    /// [`try_collect`](Self::try_collect).
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall)
    ///   when `max_bytes` cannot hold even a response with no items;
    /// - [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when an item
    ///   fails to serialize while it is measured for the byte budget.
    ///
    /// A truncated result is not an error: to require the whole answer,
    /// call [`Bounded::into_exact`] on the result.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Limits, Total};
    /// let limits = Limits::new().limit(10);
    /// let b: Bounded<u32> = limits.collect(0..25u32)?;
    /// assert!(!b.is_complete());
    /// assert!(matches!(b.completeness(), Completeness::TruncatedByLimit { .. }));
    /// assert_eq!(b.total(), Total::AtLeast(11));
    /// let json = serde_json::to_string(&b)?;
    /// assert!(json.starts_with(r#"{"complete":false"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn collect<I>(&self, items: I) -> Result<Bounded<I::Item>, Error>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        let mut collector = Collector::new(self);
        let mut iter = items.into_iter();
        let counted = drive(&mut collector, &mut iter, self);
        collector.finish(|_| None, counted)
    }

    /// Like [`collect`](Self::collect), for a source whose items may fail:
    /// the first `Err` ends the query.
    ///
    /// A source's error is never read as the end of the answer: the query
    /// fails with [`TryError::Source`], which holds the error and the items
    /// read before it, even when it comes while counting past the limit.
    ///
    /// # Errors
    ///
    /// [`TryError::Source`] when the source yields an error;
    /// [`TryError::Query`] with the errors of [`collect`](Self::collect).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Limits, Total};
    /// let rows = (0..25u32).map(Ok::<u32, std::io::Error>);
    /// let b = Limits::new().limit(10).count_total(true).try_collect(rows)?;
    /// assert_eq!(b.total(), Total::Exact(25));
    ///
    /// let failing = (0..25u32).map(|n| if n < 20 { Ok(n) } else { Err("timeout") });
    /// let err = Limits::new().limit(10).count_total(true).try_collect(failing).unwrap_err();
    /// assert_eq!(err.interrupted().map(|i| i.items().len()), Some(10));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_collect<I, T, E>(&self, items: I) -> Result<Bounded<T>, TryError<T, E>>
    where
        I: IntoIterator<Item = Result<T, E>>,
        T: Serialize,
    {
        let mut collector = Collector::new(self);
        let mut iter = Checked::new(items.into_iter(), |_: &T| true);
        let counted = drive(&mut collector, &mut iter, self);
        if let Some(fault) = iter.fault {
            return Err(interrupted(collector, fault, |_| None));
        }
        finish(collector, |_| None, counted)
    }
}
