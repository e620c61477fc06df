//! `SkipReason`: why an input was not searched, by policy or by error,
//! and its wire name.

use std::fmt;

/// Why an input was not searched.
///
/// Some reasons are policy (the caller or the corpus asked for the input to
/// be left out) and leave a result complete; the others are errors and make
/// [`Bounded::is_complete`](crate::Bounded::is_complete) false. See
/// [`SkipReason::is_error`].
///
/// # Example
///
/// ```
/// use candor::SkipReason;
/// assert!(!SkipReason::Binary.is_error());
/// assert!(SkipReason::Unreadable.is_error());
/// assert_eq!(SkipReason::TooLarge.as_str(), "too_large");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SkipReason {
    /// The input holds a NUL byte and was taken as binary (policy): whole,
    /// or from the line of a NUL found past its start (then its detail
    /// says where).
    Binary,
    /// A file or folder left out by an ignore file such as `.gitignore`
    /// (policy).
    Ignored,
    /// A hidden file or folder (its name starts with `.`), left out unless
    /// asked for (policy).
    Hidden,
    /// The input is over the caller's size limit (policy).
    TooLarge,
    /// A symbolic link leads back to a folder already being walked (policy:
    /// its content is searched through the folder itself).
    SymlinkLoop,
    /// A symbolic link points outside the corpus root and was not followed
    /// (policy: nothing outside the root is ever read).
    OutsideRoot,
    /// A symbolic link points at nothing (policy: there is no content to
    /// search).
    BrokenLink,
    /// A symbolic link that was not followed, because following links was
    /// not asked for (policy: what it points to inside the root is searched
    /// under its own path).
    Symlink,
    /// A FIFO, socket or device: never opened, since reading one can block
    /// forever or never end (policy).
    Special,
    /// The file changed while it was being read, so what was read of it
    /// may be neither its old nor its new content (error). The lines read
    /// before the change was seen are kept.
    Changed,
    /// A line of the file is longer than the longest line a search holds
    /// whole (16 MiB, not counting its `\n`; a `\r` before it counts), so
    /// the file was not searched
    /// from that line on
    /// (error: a match in it may be missing).
    LongLine,
    /// The input could not be read (error).
    Unreadable,
    /// The input disappeared between being listed and being read (error).
    Vanished,
    /// A reason named by another tool; counted as an error, since candor
    /// cannot tell whether it was policy.
    Other(String),
}

impl SkipReason {
    /// Returns true when the input was skipped because of an error, so the
    /// result cannot claim to be complete.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::SkipReason::Vanished.is_error());
    /// assert!(!candor::SkipReason::SymlinkLoop.is_error());
    /// ```
    #[must_use]
    pub fn is_error(&self) -> bool {
        match self {
            SkipReason::Binary
            | SkipReason::Ignored
            | SkipReason::Hidden
            | SkipReason::TooLarge
            | SkipReason::SymlinkLoop
            | SkipReason::OutsideRoot
            | SkipReason::BrokenLink
            | SkipReason::Symlink
            | SkipReason::Special => false,
            SkipReason::Unreadable
            | SkipReason::Vanished
            | SkipReason::Changed
            | SkipReason::LongLine
            | SkipReason::Other(_) => true,
        }
    }

    /// The wire name, such as `"binary"` or `"too_large"`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::SkipReason::OutsideRoot.as_str(), "outside_root");
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::Ignored => "ignored",
            SkipReason::Hidden => "hidden",
            SkipReason::TooLarge => "too_large",
            SkipReason::SymlinkLoop => "symlink_loop",
            SkipReason::OutsideRoot => "outside_root",
            SkipReason::BrokenLink => "broken_link",
            SkipReason::Symlink => "symlink",
            SkipReason::Special => "special",
            SkipReason::Changed => "changed",
            SkipReason::LongLine => "long_line",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Vanished => "vanished",
            SkipReason::Other(name) => name,
        }
    }

    /// Parses a wire name; unknown names become [`SkipReason::Other`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor::SkipReason;
    /// assert_eq!(SkipReason::from_wire("binary"), SkipReason::Binary);
    /// assert_eq!(SkipReason::from_wire("locked"), SkipReason::Other("locked".into()));
    /// ```
    #[must_use]
    pub fn from_wire(name: &str) -> SkipReason {
        match name {
            "binary" => SkipReason::Binary,
            "ignored" => SkipReason::Ignored,
            "hidden" => SkipReason::Hidden,
            "too_large" => SkipReason::TooLarge,
            "symlink_loop" => SkipReason::SymlinkLoop,
            "outside_root" => SkipReason::OutsideRoot,
            "broken_link" => SkipReason::BrokenLink,
            "symlink" => SkipReason::Symlink,
            "special" => SkipReason::Special,
            "changed" => SkipReason::Changed,
            "long_line" => SkipReason::LongLine,
            "unreadable" => SkipReason::Unreadable,
            "vanished" => SkipReason::Vanished,
            other => SkipReason::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
