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
    /// Not a skip: a file the caller named (the one file to search or to
    /// excerpt, or a path given explicitly) holds a NUL byte, so it is
    /// binary, and it was searched as text all the same, as ripgrep
    /// searches a file named on its command line: every matching line is
    /// returned, those that hold NUL bytes too (policy: nothing of it was
    /// left out). Counted once per file, where its first NUL byte is, and
    /// its detail says at which byte.
    BinaryAsText,
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
    /// A folder at the tree's depth limit (see `Tree::max_depth`), not
    /// entered (policy): nothing below it was walked. Each such folder
    /// counts once.
    MaxDepth,
    /// The file changed while it was being read, so what was read of it
    /// may be neither its old nor its new content (error). The lines read
    /// before the change was seen are kept.
    Changed,
    /// A line of the file is longer than the longest line a search holds
    /// whole (16 MiB, not counting its `\n`; a `\r` before it counts), so
    /// the file was not searched
    /// from that line on
    /// (error: a match in it may be missing). With a column window and a
    /// query whose matches are at most a known length long, such a line
    /// is searched in pieces instead (see `Query::max_columns`).
    LongLine,
    /// The input could not be read (error).
    Unreadable,
    /// The input disappeared between being listed and being read (error).
    Vanished,
    /// A reason named by another tool (a search cluster's failed shard, a
    /// file an index left out). Its wire name must not be empty nor one of
    /// the names above: make it with [`SkipReason::other`], which checks
    /// that. Each skip recorded for it says whether it is an error
    /// ([`SkippedInput::new`](crate::SkippedInput::new) counts it as one
    /// unless [`SkippedInput::policy`](crate::SkippedInput::policy) says
    /// otherwise), since candor cannot tell.
    Other(String),
}

/// The wire names of the reasons candor defines, which a reason named by
/// another tool may not take.
const BUILT_IN: [&str; 15] = [
    "binary",
    "binary_as_text",
    "ignored",
    "hidden",
    "too_large",
    "symlink_loop",
    "outside_root",
    "broken_link",
    "symlink",
    "special",
    "max_depth",
    "changed",
    "long_line",
    "unreadable",
    "vanished",
];

/// The longest wire name a reason named by another tool may have, in bytes.
pub(crate) const MAX_OTHER_LEN: usize = 64;

impl SkipReason {
    /// A reason named by another tool, such as `"shard_failure"`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// when `name` is empty, longer than 64 bytes, holds a control
    /// character, or is the wire name of a reason candor defines (so that
    /// a custom reason never reads as a built-in one on the wire).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::SkipReason;
    /// let reason = SkipReason::other("shard_failure")?;
    /// assert_eq!(reason.as_str(), "shard_failure");
    /// assert!(SkipReason::other("binary").is_err());
    /// assert!(SkipReason::other("").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn other(name: impl Into<String>) -> Result<SkipReason, crate::Error> {
        let name = name.into();
        match other_name_fault(&name) {
            Some(why) => Err(crate::Error::invalid_argument("reason", why)),
            None => Ok(SkipReason::Other(name)),
        }
    }

    /// The kind of skip this reason makes by default: true for an error
    /// (the result cannot claim to be complete), false for policy.
    ///
    /// The reasons candor defines have a fixed kind; a skip of a policy
    /// reason becomes an error when the caller named the input
    /// ([`SkippedInput::named`](crate::SkippedInput::named)). A reason
    /// named by another tool counts as an error unless its skip is marked
    /// [`policy`](crate::SkippedInput::policy).
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
            | SkipReason::BinaryAsText
            | SkipReason::Ignored
            | SkipReason::Hidden
            | SkipReason::TooLarge
            | SkipReason::SymlinkLoop
            | SkipReason::OutsideRoot
            | SkipReason::BrokenLink
            | SkipReason::Symlink
            | SkipReason::Special
            | SkipReason::MaxDepth => false,
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
            SkipReason::BinaryAsText => "binary_as_text",
            SkipReason::Ignored => "ignored",
            SkipReason::Hidden => "hidden",
            SkipReason::TooLarge => "too_large",
            SkipReason::SymlinkLoop => "symlink_loop",
            SkipReason::OutsideRoot => "outside_root",
            SkipReason::BrokenLink => "broken_link",
            SkipReason::Symlink => "symlink",
            SkipReason::Special => "special",
            SkipReason::MaxDepth => "max_depth",
            SkipReason::Changed => "changed",
            SkipReason::LongLine => "long_line",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Vanished => "vanished",
            SkipReason::Other(name) => name,
        }
    }

    /// Returns true for the reasons candor defines, whose kind is fixed;
    /// false for [`SkipReason::Other`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor::SkipReason;
    /// assert!(SkipReason::Binary.is_built_in());
    /// assert!(!SkipReason::other("locked")?.is_built_in());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_built_in(&self) -> bool {
        !matches!(self, SkipReason::Other(_))
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
            "binary_as_text" => SkipReason::BinaryAsText,
            "ignored" => SkipReason::Ignored,
            "hidden" => SkipReason::Hidden,
            "too_large" => SkipReason::TooLarge,
            "symlink_loop" => SkipReason::SymlinkLoop,
            "outside_root" => SkipReason::OutsideRoot,
            "broken_link" => SkipReason::BrokenLink,
            "symlink" => SkipReason::Symlink,
            "special" => SkipReason::Special,
            "max_depth" => SkipReason::MaxDepth,
            "changed" => SkipReason::Changed,
            "long_line" => SkipReason::LongLine,
            "unreadable" => SkipReason::Unreadable,
            "vanished" => SkipReason::Vanished,
            other => SkipReason::Other(other.to_owned()),
        }
    }
}

/// Why `name` cannot name a reason of another tool, if it cannot.
pub(crate) fn other_name_fault(name: &str) -> Option<String> {
    if name.is_empty() {
        Some("a skip reason's name is empty".into())
    } else if name.len() > MAX_OTHER_LEN {
        Some(format!(
            "a skip reason's name is {} bytes, the most is {MAX_OTHER_LEN}",
            name.len()
        ))
    } else if name.chars().any(char::is_control) {
        Some(format!(
            "the skip reason {name:?} holds a control character"
        ))
    } else if BUILT_IN.contains(&name) {
        Some(format!(
            "{name:?} names a reason candor defines; use SkipReason's own variant"
        ))
    } else {
        None
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
