//! Inputs that were not searched, counted by reason.

mod reason;

use std::collections::BTreeMap;

pub use reason::SkipReason;

/// How many entries [`Skipped::sample`] keeps; the counts cover them all.
///
/// # Example
///
/// ```
/// use candor::{SKIPPED_SAMPLE_LEN, SkipReason, Skipped, SkippedInput};
/// let mut skipped = Skipped::new();
/// for n in 0..SKIPPED_SAMPLE_LEN + 3 {
///     skipped.record(SkippedInput::new(format!("f{n}"), SkipReason::Binary));
/// }
/// assert_eq!(skipped.sample().len(), SKIPPED_SAMPLE_LEN);
/// assert_eq!(skipped.total(), SKIPPED_SAMPLE_LEN as u64 + 3);
/// ```
pub const SKIPPED_SAMPLE_LEN: usize = 5;

/// One skipped input, kept in the bounded sample of [`Skipped`].
///
/// # Example
///
/// ```
/// use candor::{SkipReason, SkippedInput};
/// let s = SkippedInput::new("img/logo.png", SkipReason::Binary);
/// assert_eq!(s.path(), "img/logo.png");
/// assert_eq!(s.reason(), &SkipReason::Binary);
/// assert_eq!(s.detail(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SkippedInput {
    path: String,
    reason: SkipReason,
    detail: Option<String>,
    /// Whether this skip leaves the answer incomplete.
    error: bool,
}

impl SkippedInput {
    /// Records that the input named `path` was skipped for `reason`, an
    /// error skip when [`SkipReason::is_error`] says so.
    ///
    /// # Example
    ///
    /// ```
    /// let s = candor::SkippedInput::new("a.bin", candor::SkipReason::Binary);
    /// assert_eq!(s.path(), "a.bin");
    /// assert!(!s.is_error());
    /// ```
    #[must_use]
    pub fn new(path: impl Into<String>, reason: SkipReason) -> Self {
        let error = reason.is_error();
        SkippedInput {
            path: path.into(),
            reason,
            detail: None,
            error,
        }
    }

    /// Marks the input as one the caller named (the one file to search
    /// or to excerpt, or a path given explicitly): the caller asked for
    /// it, so its skip leaves the answer incomplete whatever the reason,
    /// policy or error. Two reasons stay policy:
    /// [`SkipReason::BinaryAsText`] says a named file was searched (as
    /// text), not that anything of it was left out; and
    /// [`SkipReason::MaxDepth`] is the depth the caller set, which counts
    /// from the paths named (a folder named is not entered at depth 0, as
    /// the caller asked).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, SkippedInput};
    /// let s = SkippedInput::new("logo.png", SkipReason::Binary).named();
    /// assert!(s.is_error());
    /// let searched = SkippedInput::new("logo.png", SkipReason::BinaryAsText).named();
    /// assert!(!searched.is_error());
    /// ```
    #[must_use]
    pub fn named(mut self) -> Self {
        if !matches!(self.reason, SkipReason::BinaryAsText | SkipReason::MaxDepth) {
            self.error = true;
        }
        self
    }

    /// Marks the skip as policy: the input was left out on purpose, and
    /// the answer stays complete. Meant for a reason named by another tool
    /// ([`SkipReason::other`]), which counts as an error otherwise. The
    /// reasons candor defines keep their kind: a policy skip of an error
    /// reason (`unreadable`, `vanished`, ...) is refused by
    /// [`Bounded::from_parts`](crate::Bounded::from_parts).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, SkippedInput};
    /// // A cluster's shard left out by the engine's own pre-filter.
    /// let s = SkippedInput::new("shard 3", SkipReason::other("pre_filtered")?).policy();
    /// assert!(!s.is_error());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn policy(mut self) -> Self {
        self.error = false;
        self
    }

    /// Adds a short detail, such as the operating system's error message.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, SkippedInput};
    /// let s = SkippedInput::new("a.txt", SkipReason::Unreadable).with_detail("permission denied");
    /// assert_eq!(s.detail(), Some("permission denied"));
    /// ```
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The input's name (for a directory corpus, its path relative to the
    /// root, with `/` separators).
    ///
    /// # Example
    ///
    /// ```
    /// let s = candor::SkippedInput::new("a.bin", candor::SkipReason::Binary);
    /// assert_eq!(s.path(), "a.bin");
    /// ```
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why it was skipped.
    ///
    /// # Example
    ///
    /// ```
    /// let s = candor::SkippedInput::new("a.bin", candor::SkipReason::Binary);
    /// assert!(!s.reason().is_error());
    /// ```
    #[must_use]
    pub fn reason(&self) -> &SkipReason {
        &self.reason
    }

    /// A short detail, when one was recorded.
    ///
    /// # Example
    ///
    /// ```
    /// let s = candor::SkippedInput::new("a.bin", candor::SkipReason::Binary);
    /// assert!(s.detail().is_none());
    /// ```
    #[must_use]
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// Returns true when this skip leaves the answer incomplete: its
    /// reason is an error, or the caller named the input.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, SkippedInput};
    /// assert!(SkippedInput::new("a.txt", SkipReason::Unreadable).is_error());
    /// assert!(!SkippedInput::new("a.bin", SkipReason::Binary).is_error());
    /// ```
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.error
    }

    /// Rebuilds an entry from the wire, with its kind as written there.
    pub(crate) fn from_wire(path: String, reason: SkipReason, error: bool) -> Self {
        SkippedInput {
            path,
            reason,
            detail: None,
            error,
        }
    }
}

/// What was not searched: every skipped input counted by reason, and a
/// bounded sample of them by name.
///
/// # Example
///
/// ```
/// use candor::{SkipReason, Skipped, SkippedInput};
/// let mut skipped = Skipped::new();
/// skipped.record(SkippedInput::new("logo.png", SkipReason::Binary));
/// skipped.record(SkippedInput::new("dump.sql", SkipReason::TooLarge));
/// assert_eq!(skipped.total(), 2);
/// assert_eq!(skipped.count(&SkipReason::Binary), 1);
/// assert!(!skipped.has_errors());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped {
    total: u64,
    by_reason: BTreeMap<SkipReason, u64>,
    /// Of `by_reason`, the skips that are errors (never zero).
    errors: BTreeMap<SkipReason, u64>,
    sample: Vec<SkippedInput>,
}

impl Skipped {
    /// An empty record.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Skipped::new().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Skipped::default()
    }

    /// Counts one skipped input, keeping it in the sample while the sample
    /// has room: at most [`SKIPPED_SAMPLE_LEN`] entries, inputs skipped for
    /// an error first, then those skipped by policy, each in the order
    /// recorded. An error displaces a policy entry from a full sample, so
    /// that `hidden` or `binary` entries never hide an unreadable file.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, Skipped, SkippedInput, SKIPPED_SAMPLE_LEN};
    /// let mut s = Skipped::new();
    /// for n in 0..SKIPPED_SAMPLE_LEN {
    ///     s.record(SkippedInput::new(format!(".hidden{n}"), SkipReason::Hidden));
    /// }
    /// s.record(SkippedInput::new("x", SkipReason::Vanished));
    /// assert!(s.has_errors());
    /// assert_eq!(s.sample()[0].path(), "x");
    /// assert_eq!(s.sample().len(), SKIPPED_SAMPLE_LEN);
    /// ```
    pub fn record(&mut self, input: SkippedInput) {
        self.total = self.total.saturating_add(1);
        let n = self.by_reason.entry(input.reason.clone()).or_insert(0);
        *n = n.saturating_add(1);
        if input.error {
            let n = self.errors.entry(input.reason.clone()).or_insert(0);
            *n = n.saturating_add(1);
        }
        self.keep_in_sample(input);
    }

    fn keep_in_sample(&mut self, input: SkippedInput) {
        if input.error {
            let at = self
                .sample
                .iter()
                .position(|s| !s.error)
                .unwrap_or(self.sample.len());
            if at < SKIPPED_SAMPLE_LEN {
                self.sample.insert(at, input);
                self.sample.truncate(SKIPPED_SAMPLE_LEN);
            }
        } else if self.sample.len() < SKIPPED_SAMPLE_LEN {
            self.sample.push(input);
        }
    }

    /// Adds every count of `other` to this record, and its sample while
    /// there is room (errors first, as in [`record`](Self::record)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, Skipped, SkippedInput};
    /// let mut a = Skipped::new();
    /// a.record(SkippedInput::new("x", SkipReason::Binary));
    /// let mut b = Skipped::new();
    /// b.record(SkippedInput::new("y", SkipReason::Binary));
    /// a.absorb(b);
    /// assert_eq!(a.count(&SkipReason::Binary), 2);
    /// ```
    pub fn absorb(&mut self, other: Skipped) {
        self.total = self.total.saturating_add(other.total);
        for (reason, n) in other.by_reason {
            let slot = self.by_reason.entry(reason).or_insert(0);
            *slot = slot.saturating_add(n);
        }
        for (reason, n) in other.errors {
            let slot = self.errors.entry(reason).or_insert(0);
            *slot = slot.saturating_add(n);
        }
        for input in other.sample {
            self.keep_in_sample(input);
        }
    }

    /// How many inputs were skipped, for every reason.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Skipped::new().total(), 0);
    /// ```
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// How many inputs were skipped for `reason`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Skipped::new().count(&candor::SkipReason::Binary), 0);
    /// ```
    #[must_use]
    pub fn count(&self, reason: &SkipReason) -> u64 {
        self.by_reason.get(reason).copied().unwrap_or(0)
    }

    /// How many inputs were skipped because of an error, for every reason:
    /// those that leave the answer incomplete.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, Skipped, SkippedInput};
    /// let mut s = Skipped::new();
    /// s.record(SkippedInput::new("a.bin", SkipReason::Binary));
    /// s.record(SkippedInput::new("named.bin", SkipReason::Binary).named());
    /// assert_eq!(s.total(), 2);
    /// assert_eq!(s.error_total(), 1);
    /// ```
    #[must_use]
    pub fn error_total(&self) -> u64 {
        self.errors
            .values()
            .fold(0u64, |sum, n| sum.saturating_add(*n))
    }

    /// How many inputs were skipped, and how many of them because of an
    /// error, without the reasons.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, Skipped, SkippedInput};
    /// let mut s = Skipped::new();
    /// s.record(SkippedInput::new("a.bin", SkipReason::Binary));
    /// s.record(SkippedInput::new("gone.txt", SkipReason::Vanished));
    /// assert_eq!((s.tally().total(), s.tally().errors()), (2, 1));
    /// ```
    #[must_use]
    pub fn tally(&self) -> SkipTally {
        SkipTally::new(self.total, self.error_total())
    }

    /// The error skips by reason, in a fixed order: for each reason, how
    /// many of the inputs counted by [`by_reason`](Self::by_reason) leave
    /// the answer incomplete.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{SkipReason, Skipped, SkippedInput};
    /// let mut s = Skipped::new();
    /// s.record(SkippedInput::new("gone.txt", SkipReason::Vanished));
    /// s.record(SkippedInput::new("a.bin", SkipReason::Binary));
    /// let errors: Vec<_> = s.errors_by_reason().collect();
    /// assert_eq!(errors, vec![(&SkipReason::Vanished, 1)]);
    /// ```
    pub fn errors_by_reason(&self) -> impl Iterator<Item = (&SkipReason, u64)> {
        self.errors.iter().map(|(r, n)| (r, *n))
    }

    /// The counts by reason, in a fixed order.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Skipped::new().by_reason().count(), 0);
    /// ```
    pub fn by_reason(&self) -> impl Iterator<Item = (&SkipReason, u64)> {
        self.by_reason.iter().map(|(r, n)| (r, *n))
    }

    /// A bounded sample of the skipped inputs, at most
    /// [`SKIPPED_SAMPLE_LEN`].
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Skipped::new().sample().is_empty());
    /// ```
    #[must_use]
    pub fn sample(&self) -> &[SkippedInput] {
        &self.sample
    }

    /// Returns true when nothing was skipped.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Skipped::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Returns true when an input was skipped because of an error.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!candor::Skipped::new().has_errors());
    /// ```
    #[must_use]
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Rebuilds a record from its parts (used when decoding the wire shape).
    /// Checks the rules of a `Skipped`: `total` is the sum of the counts by
    /// reason, no count is zero, and the sample is bounded, names only
    /// reasons counted, and no more of each than counted.
    pub(crate) fn check(&self) -> Result<(), String> {
        let sum = self
            .by_reason
            .values()
            .try_fold(0u64, |sum, n| sum.checked_add(*n))
            .ok_or("skipped.by_reason overflows")?;
        if sum != self.total {
            return Err(format!(
                "skipped.total is {} but its counts by reason add up to {sum}",
                self.total
            ));
        }
        if let Some((reason, _)) = self.by_reason.iter().find(|(_, n)| **n == 0) {
            return Err(format!("skipped.by_reason counts 0 inputs as {reason}"));
        }
        for reason in self.by_reason.keys() {
            if let SkipReason::Other(name) = reason {
                if let Some(why) = reason::other_name_fault(name) {
                    return Err(why);
                }
            }
        }
        for (reason, errors) in &self.errors {
            let n = self.count(reason);
            if *errors == 0 || *errors > n {
                return Err(format!(
                    "skipped.errors counts {errors} inputs as {reason}, of {n} skipped for it"
                ));
            }
        }
        for (reason, n) in &self.by_reason {
            if reason.is_built_in() && reason.is_error() && self.errors.get(reason) != Some(n) {
                return Err(format!(
                    "{reason} is an error reason, so every skip of it is an error"
                ));
            }
        }
        if self.sample.len() > SKIPPED_SAMPLE_LEN {
            return Err(format!(
                "skipped.sample holds {} inputs, the most is {SKIPPED_SAMPLE_LEN}",
                self.sample.len()
            ));
        }
        for (reason, n) in &self.by_reason {
            let errors = self.errors.get(reason).copied().unwrap_or(0);
            let of = |error: bool| {
                self.sample
                    .iter()
                    .filter(|s| &s.reason == reason && s.error == error)
                    .count() as u64
            };
            let (sampled_errors, sampled_policy) = (of(true), of(false));
            if sampled_errors > errors || sampled_policy > n - errors {
                return Err(format!(
                    "skipped.sample holds {sampled_errors} error and {sampled_policy} policy skips as {reason}, \
                     but {errors} and {} are counted",
                    n - errors
                ));
            }
        }
        if let Some(s) = self
            .sample
            .iter()
            .find(|s| !self.by_reason.contains_key(&s.reason))
        {
            return Err(format!(
                "skipped.sample names {:?} as {}, a reason not counted",
                s.path, s.reason
            ));
        }
        Ok(())
    }

    /// Keeps only the first `len` inputs of the sample; the counts stay.
    pub(crate) fn truncate_sample(&mut self, len: usize) {
        self.sample.truncate(len);
    }

    pub(crate) fn from_parts(
        total: u64,
        by_reason: BTreeMap<SkipReason, u64>,
        errors: BTreeMap<SkipReason, u64>,
        sample: Vec<SkippedInput>,
    ) -> Self {
        Skipped {
            total,
            by_reason,
            errors,
            sample,
        }
    }
}

/// How many inputs were skipped, and how many of them because of an
/// error: what a walk's pages skipped so far
/// ([`Bounded::skipped_so_far`](crate::Bounded::skipped_so_far)), or
/// before a page ([`Cursor::skipped_before`](crate::Cursor::skipped_before)).
/// Tallies add.
///
/// # Example
///
/// ```
/// use candor::SkipTally;
/// let a = SkipTally::new(10, 1);
/// let b = SkipTally::new(2, 0);
/// assert_eq!(a + b, SkipTally::new(12, 1));
/// assert_eq!((a + b).policy(), 11);
/// // More errors than inputs is not a tally: the errors are capped.
/// assert_eq!(SkipTally::new(1, 5).errors(), 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SkipTally {
    total: u64,
    errors: u64,
}

impl SkipTally {
    /// `total` inputs skipped, `errors` of them because of an error (at
    /// most `total`).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::SkipTally::new(3, 1).total(), 3);
    /// ```
    #[must_use]
    pub fn new(total: u64, errors: u64) -> SkipTally {
        SkipTally {
            total,
            errors: errors.min(total),
        }
    }

    /// How many inputs were skipped, for every reason.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::SkipTally::new(3, 1).total(), 3);
    /// ```
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// How many were skipped because of an error: those that leave an
    /// answer incomplete.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::SkipTally::new(3, 1).errors(), 1);
    /// ```
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// How many were left out by policy (hidden, ignored, binary, too
    /// large, a link not followed): `total - errors`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::SkipTally::new(3, 1).policy(), 2);
    /// ```
    #[must_use]
    pub fn policy(&self) -> u64 {
        self.total - self.errors
    }

    /// Returns true when nothing was skipped.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::SkipTally::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

impl std::ops::Add for SkipTally {
    type Output = SkipTally;

    fn add(self, other: SkipTally) -> SkipTally {
        SkipTally {
            total: self.total.saturating_add(other.total),
            errors: self.errors.saturating_add(other.errors),
        }
    }
}
