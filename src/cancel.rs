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
/// Run the query on another thread (from async code, a blocking task) and
/// cancel it when the caller stops waiting: the guard lives with whatever
/// awaits the query, so a timeout or a client's cancellation, which drops
/// it, ends the query too.
///
/// ```
/// use candor::{Bounded, BudgetKind, CancelToken, Limits};
///
/// let token = CancelToken::new();
/// let limits = Limits::new().cancel_token(token.clone());
/// // An answer that would never end on its own.
/// let query = std::thread::spawn(move || Bounded::collect(0..u64::MAX, &limits));
/// let guard = token.cancel_on_drop();
/// drop(guard); // the waiting side went away
/// let page = query.join().expect("the query runs")?;
/// assert!(page.len() >= 1); // at least one item, so paging advances
/// assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Cancelled));
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
