//! `AppliedLimit`: the item limit in force after the clamp to the
//! ceiling, and what was asked for.

use crate::Clamp;

/// The item limit in force after the clamp to the ceiling: what
/// [`Limits::applied_limit`](crate::Limits::applied_limit) returns.
///
/// # Example
///
/// ```
/// let applied = candor::Limits::new().ceiling(10).limit(40).applied_limit();
/// assert_eq!(applied.limit(), Some(10));
/// assert_eq!(applied.requested(), Some(40));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AppliedLimit {
    pub(super) limit: Option<usize>,
    pub(super) requested: Option<usize>,
}

impl AppliedLimit {
    /// The limit applied; `None` when there is neither a limit nor a
    /// ceiling.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Limits::new().limit(3).applied_limit().limit(), Some(3));
    /// ```
    #[must_use]
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// What the caller asked for, only when it was above the ceiling.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Limits::new().limit(3).applied_limit().requested(), None);
    /// ```
    #[must_use]
    pub fn requested(&self) -> Option<usize> {
        self.requested
    }

    /// The clamp, when the limit asked for was above the ceiling.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Clamp, Limits};
    /// let applied = Limits::new().ceiling(10).limit(40).applied_limit();
    /// assert_eq!(applied.clamp(), Some(Clamp::new(10, 40)));
    /// ```
    #[must_use]
    pub fn clamp(&self) -> Option<Clamp> {
        Some(Clamp::new(self.limit?, self.requested?))
    }
}
