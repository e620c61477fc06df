//! `CancelToken`: a query's off switch, shared between threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A handle that ends a query from elsewhere: another thread, or the drop
/// of the future that waits for it.
///
/// Given to [`Limits::cancel_token`](crate::Limits::cancel_token), it is
/// checked wherever the deadline is (between items pulled, files
/// searched). A cancelled query is not an error: it answers with what it
/// has, [`TruncatedByBudget`](crate::Completeness::TruncatedByBudget) with
/// [`BudgetKind::Cancelled`](crate::BudgetKind::Cancelled) (wire name
/// `"cancelled"`), and a cursor to resume. Clones share one switch.
///
/// # Example
///
/// From async code (here tokio), run the query on a blocking thread and
/// cancel it when the caller stops waiting: the guard lives in the future
/// that awaits the query, so a timeout or a client's cancellation, which
/// drops that future, ends the query too.
///
/// ```
/// use candor::{Bounded, BudgetKind, CancelToken, Limits};
///
/// let runtime = tokio::runtime::Runtime::new()?;
/// runtime.block_on(async {
///     let token = CancelToken::new();
///     let limits = Limits::new().cancel_token(token.clone());
///     // An answer that would never end on its own.
///     let query = tokio::task::spawn_blocking(move || Bounded::collect(0..u64::MAX, &limits));
///     let guard = token.cancel_on_drop();
///     drop(guard); // the waiting future went away
///     let page = query.await??;
///     assert!(page.len() >= 1); // at least one item, so paging advances
///     assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Cancelled));
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token not yet cancelled.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!candor::CancelToken::new().is_cancelled());
    /// ```
    #[must_use]
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels every query holding this token (or a clone of it).
    ///
    /// # Example
    ///
    /// ```
    /// let token = candor::CancelToken::new();
    /// token.clone().cancel();
    /// assert!(token.is_cancelled());
    /// ```
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Returns true once [`cancel`](Self::cancel) was called.
    ///
    /// # Example
    ///
    /// ```
    /// let token = candor::CancelToken::new();
    /// assert!(!token.is_cancelled());
    /// token.cancel();
    /// assert!(token.is_cancelled());
    /// ```
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A guard that cancels the token when dropped: hold it in the future
    /// that waits for the query.
    ///
    /// # Example
    ///
    /// ```
    /// let token = candor::CancelToken::new();
    /// {
    ///     let _guard = token.cancel_on_drop();
    ///     assert!(!token.is_cancelled());
    /// }
    /// assert!(token.is_cancelled());
    /// ```
    #[must_use = "the token is cancelled when the guard is dropped"]
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Cancels its [`CancelToken`] when dropped; see
/// [`CancelToken::cancel_on_drop`].
///
/// # Example
///
/// ```
/// let token = candor::CancelToken::new();
/// drop(token.cancel_on_drop());
/// assert!(token.is_cancelled());
/// ```
#[derive(Debug)]
pub struct CancelOnDrop(CancelToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
