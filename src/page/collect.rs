//! `Bounded::collect`: any items under `Limits`, without a cursor.

use serde::Serialize;

use super::drive::{checked, drive, finish, interrupted};
use super::items::Items;
use crate::collector::Collector;
use crate::{Bounded, Limits};

impl<T> Bounded<T> {
    /// Collects `items` under `limits` into a result, with no cursor: the
    /// whole answer, or its first part and how much is missing.
    ///
    /// Applies the item limit (with the `limit + 1` probe, so an answer of
    /// exactly `limit` items is exact), the clamp to the ceiling, the
    /// output-bytes budget on the serialized response, the deadline, and,
    /// if asked, counts on past the limit for an exact total. The items
    /// are pulled lazily: at most `limit + 1` (plus what counting pulls),
    /// and at least one before the deadline can stop it. The items need
    /// not be `'static`, `Send` or `Sync`; `Serialize` measures them for
    /// the byte budget.
    ///
    /// `items` is an iterator, or [`Fallible`](crate::Fallible) rows that
    /// may fail (see [`Items`]). Can return `Exact`, `TruncatedByLimit`, or
    /// `TruncatedByBudget` with
    /// [`BudgetKind::OutputBytes`](crate::BudgetKind::OutputBytes),
    /// [`Deadline`](crate::BudgetKind::Deadline) or
    /// [`Cancelled`](crate::BudgetKind::Cancelled). For a resumable
    /// answer, see [`page`](Self::page); to require the whole answer, call
    /// [`into_exact`](Self::into_exact) on the result.
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall)
    ///   when `max_bytes` cannot hold even a response with no items;
    /// - [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when an item
    ///   fails to serialize while it is measured for the byte budget.
    ///
    /// For `Fallible` rows these come as
    /// [`TryError::Query`](crate::TryError::Query), and a row's error as
    /// [`TryError::Source`](crate::TryError::Source), which holds the items
    /// read before it, even when it comes while counting past the limit.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Fallible, Limits, Total};
    /// let limits = Limits::new().limit(10);
    /// let b = Bounded::collect(0..25u32, &limits)?;
    /// assert!(!b.is_complete());
    /// assert!(matches!(b.completeness(), Completeness::TruncatedByLimit { .. }));
    /// assert_eq!(b.total(), Total::AtLeast(11));
    /// let json = serde_json::to_string(&b)?;
    /// assert!(json.starts_with(r#"{"complete":false"#));
    ///
    /// let failing = (0..25u32).map(|n| if n < 20 { Ok(n) } else { Err("timeout") });
    /// let err = Bounded::collect(Fallible(failing), &limits.clone().count_total(true)).unwrap_err();
    /// assert_eq!(err.interrupted().map(|i| i.items().len()), Some(10));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn collect<S>(items: S, limits: &Limits) -> Result<Bounded<T>, S::Error>
    where
        S: Items<Item = T>,
        T: Serialize,
    {
        let mut collector = Collector::new(limits);
        let mut iter = checked(items, |_: &T| true);
        let counted = drive(&mut collector, &mut iter, limits);
        if let Some(fault) = iter.fault {
            return Err(S::failure(interrupted(collector, fault, |_| None)));
        }
        finish(collector, |_| None, counted).map_err(S::failure)
    }
}
