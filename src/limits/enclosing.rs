//! `Enclosing`: a byte budget on a response that carries the result's JSON
//! inside it (an MCP tool result), and the share of it the JSON gets.

use crate::error::Error;

/// A byte budget on a response that encloses the result's JSON, such as an
/// MCP tool result, which sends the JSON twice beside a line of text.
///
/// The enclosing response takes at most `copies` bytes for each byte of
/// the JSON, plus `reserved` bytes of its own; so the JSON gets
/// `(max_bytes - reserved) / copies` bytes ([`json_budget`](Self::json_budget)),
/// and a JSON of `n` bytes fits every budget of at least
/// `n * copies + reserved` ([`bytes_for`](Self::bytes_for)).
///
/// Set on [`Limits::enclosing`](crate::Limits::enclosing), it makes every
/// output-bytes figure a result states (`max`, `used`, `needed`, and those
/// of [`ErrorKind::BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall)) a
/// figure of the enclosing budget, in the units the reader asked in: `max`
/// is `max_bytes`, `used` the least `max_bytes` whose share holds the page,
/// `needed` a `max_bytes` whose page holds the next item. Asking
/// again with `needed` gives a page that holds it.
///
/// # Example
///
/// ```
/// use candor::Enclosing;
/// // The JSON is sent three times over at most, beside 672 bytes of frame.
/// let enclosing = Enclosing::new(3000, 3, 672)?;
/// assert_eq!(enclosing.json_budget(), 776); // (3000 - 672) / 3
/// assert_eq!(enclosing.bytes_for(776), 3000);
/// assert!(Enclosing::new(3000, 0, 672).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Enclosing {
    max_bytes: usize,
    copies: usize,
    reserved: usize,
}

impl Enclosing {
    /// A budget of `max_bytes` on the enclosing response, which takes at
    /// most `copies` bytes for each byte of the JSON and `reserved` bytes
    /// of its own.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// naming `copies` when it is 0: the JSON is sent at least once.
    ///
    /// # Example
    ///
    /// ```
    /// let enclosing = candor::Enclosing::new(4096, 2, 100)?;
    /// assert_eq!(enclosing.max_bytes(), 4096);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(max_bytes: usize, copies: usize, reserved: usize) -> Result<Enclosing, Error> {
        if copies == 0 {
            return Err(Error::invalid_argument(
                "copies",
                "must be at least 1: the JSON is sent at least once",
            ));
        }
        Ok(Enclosing::within(max_bytes, copies, reserved))
    }

    /// `new`, for callers whose `copies` is known to be at least 1.
    pub(crate) const fn within(max_bytes: usize, copies: usize, reserved: usize) -> Enclosing {
        Enclosing {
            max_bytes,
            copies: if copies == 0 { 1 } else { copies },
            reserved,
        }
    }

    /// The budget of the enclosing response, in bytes.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Enclosing::new(3000, 3, 672)?.max_bytes(), 3000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The most bytes the enclosing response takes for each byte of JSON.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Enclosing::new(3000, 3, 672)?.copies(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn copies(&self) -> usize {
        self.copies
    }

    /// The bytes the enclosing response keeps for itself, besides the
    /// JSON's copies.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Enclosing::new(3000, 3, 672)?.reserved(), 672);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn reserved(&self) -> usize {
        self.reserved
    }

    /// The JSON's share of the budget: `(max_bytes - reserved) / copies`
    /// (0 when `max_bytes` is below `reserved`).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Enclosing::new(1500, 3, 672)?.json_budget(), 276);
    /// assert_eq!(candor::Enclosing::new(600, 3, 672)?.json_budget(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn json_budget(&self) -> usize {
        self.max_bytes.saturating_sub(self.reserved) / self.copies
    }

    /// The least budget whose share holds `json_bytes` of JSON:
    /// `json_bytes * copies + reserved`.
    ///
    /// # Example
    ///
    /// ```
    /// let enclosing = candor::Enclosing::new(1500, 3, 672)?;
    /// assert_eq!(enclosing.bytes_for(451), 2025);
    /// assert_eq!(enclosing.with_max_bytes(2025).json_budget(), 451);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn bytes_for(&self, json_bytes: usize) -> u64 {
        (json_bytes as u64)
            .saturating_mul(self.copies as u64)
            .saturating_add(self.reserved as u64)
    }

    /// The same response, with a budget of `max_bytes`.
    ///
    /// # Example
    ///
    /// ```
    /// let enclosing = candor::Enclosing::new(1500, 3, 672)?.with_max_bytes(3000);
    /// assert_eq!(enclosing.json_budget(), 776);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Enclosing {
        self.max_bytes = max_bytes;
        self
    }

    /// The largest budget whose share is `json_bytes`: its figure has the
    /// most digits a budget of that share can write.
    pub(crate) fn largest_for(&self, json_bytes: usize) -> u64 {
        self.bytes_for(json_bytes)
            .saturating_add(self.copies as u64 - 1)
    }
}
