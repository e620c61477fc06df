//! How many items the full answer holds.

use std::fmt;
use std::ops::Add;

/// How many items the full answer holds: an exact figure or a lower bound.
///
/// Totals add, and a lower bound absorbs an exact figure:
/// `Exact(a) + AtLeast(b) == AtLeast(a + b)`.
///
/// # Example
///
/// ```
/// use candor::Total;
/// assert_eq!(Total::Exact(3) + Total::Exact(4), Total::Exact(7));
/// assert_eq!(Total::Exact(3) + Total::AtLeast(4), Total::AtLeast(7));
/// assert!(Total::AtLeast(7).is_lower_bound());
/// assert_eq!(Total::AtLeast(7).value(), 7);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Total {
    /// The full answer holds exactly this many items.
    Exact(u64),
    /// The full answer holds at least this many items.
    AtLeast(u64),
}

impl Total {
    /// The figure: exact, or the lower bound.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Total::Exact(12).value(), 12);
    /// ```
    #[must_use]
    pub fn value(&self) -> u64 {
        match *self {
            Total::Exact(n) | Total::AtLeast(n) => n,
        }
    }

    /// Returns true for an exact figure.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Total::Exact(12).is_exact());
    /// ```
    #[must_use]
    pub fn is_exact(&self) -> bool {
        matches!(self, Total::Exact(_))
    }

    /// Returns true for a lower bound.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Total::AtLeast(12).is_lower_bound());
    /// ```
    #[must_use]
    pub fn is_lower_bound(&self) -> bool {
        matches!(self, Total::AtLeast(_))
    }

    /// The wire relation: `"eq"` for an exact figure, `"gte"` for a lower
    /// bound.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Total::AtLeast(1).relation(), "gte");
    /// ```
    #[must_use]
    pub fn relation(&self) -> &'static str {
        match self {
            Total::Exact(_) => "eq",
            Total::AtLeast(_) => "gte",
        }
    }
}

impl Add for Total {
    type Output = Total;

    fn add(self, other: Total) -> Total {
        let sum = self.value().saturating_add(other.value());
        if self.is_exact() && other.is_exact() {
            Total::Exact(sum)
        } else {
            Total::AtLeast(sum)
        }
    }
}

impl fmt::Display for Total {
    /// `12` for an exact total, `at least 12` for a lower bound.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Total::Exact(n) => write!(f, "{n}"),
            Total::AtLeast(n) => write!(f, "at least {n}"),
        }
    }
}
