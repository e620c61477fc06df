//! `Incomplete<T>`: the error of `Bounded::into_exact`, which still holds
//! the whole result.

use std::fmt;

use super::Bounded;
use crate::summary::incomplete_summary;

/// The error of [`Bounded::into_exact`]: the result was not complete. It
/// still holds the whole result, items and disclosure.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Limits};
/// let b = Bounded::collect(0..5u32, &Limits::new().limit(2))?;
/// let incomplete = b.into_exact().unwrap_err();
/// assert_eq!(incomplete.bounded().len(), 2);
/// let b = incomplete.into_bounded();
/// assert!(!b.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Incomplete<T>(Box<Bounded<T>>);

impl<T> Bounded<T> {
    /// The items, only if they are the complete answer.
    ///
    /// # Errors
    ///
    /// An [`Incomplete`] that still holds the whole result when
    /// [`is_complete`](Self::is_complete) is false. It converts into
    /// [`Error`](crate::Error) with `?`.
    ///
    /// # Example
    ///
    /// ```
    /// let all = candor::Bounded::collect(0..3u8, &candor::Limits::new())?.into_exact()?;
    /// assert_eq!(all, vec![0, 1, 2]);
    ///
    /// let cut = candor::Bounded::collect(0..3u8, &candor::Limits::new().limit(1))?;
    /// assert!(cut.into_exact().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_exact(self) -> Result<Vec<T>, Incomplete<T>> {
        if self.is_complete() {
            Ok(self.into_parts().0)
        } else {
            Err(Incomplete::new(self))
        }
    }
}

impl<T> Incomplete<T> {
    pub(crate) fn new(bounded: Bounded<T>) -> Self {
        Incomplete(Box::new(bounded))
    }

    /// The incomplete result.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Bounded::collect(0..3u8, &candor::Limits::new().limit(1))?.into_exact().unwrap_err();
    /// assert_eq!(err.bounded().items(), &[0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bounded(&self) -> &Bounded<T> {
        &self.0
    }

    /// Gives back the incomplete result.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Bounded::collect(0..3u8, &candor::Limits::new().limit(1))?.into_exact().unwrap_err();
    /// assert_eq!(err.into_bounded().total(), candor::Total::AtLeast(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_bounded(self) -> Bounded<T> {
        *self.0
    }
}

impl<T> fmt::Display for Incomplete<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "incomplete result: {}",
            incomplete_summary(b.disclosure(), b.len())
        )
    }
}

impl<T: fmt::Debug> std::error::Error for Incomplete<T> {}
