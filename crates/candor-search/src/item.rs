//! The items a search returns: matching lines, per-file counts, lines;
//! and what the engine needs of any item: the path that orders it.

use serde::{Deserialize, Serialize};

use crate::position::Place;

/// One matching line of a text search.
///
/// Wire shape:
/// `{"path":"src/app.ts","line_number":120,"byte_offset":4810,"line":"...","matches":[{"start":13,"end":23}]}`,
/// plus `"line_cut": {"original_bytes": ..., "kept_from": ...}` when the
/// line was longer than the column limit.
///
/// Decoding checks what the search guarantees, so a client can slice
/// `line` by each span: `line_number` is at least 1, each span is a range
/// of whole characters within `line`, the spans are in order without
/// overlapping or repeating, and a cut keeps from within the original
/// line. Anything else is refused, and so is a field the wire shape does
/// not have.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Documents, Limits, Query};
/// let docs = Documents::new().with("a.txt", "one\ntwo fish\n");
/// let b = docs.search(&Query::literal("fish"), &Limits::new(), None)?;
/// let m = &b.items()[0];
/// assert_eq!((m.path.as_str(), m.line_number, m.byte_offset), ("a.txt", 2, 4));
/// assert_eq!(m.line, "two fish");
/// assert_eq!((m.matches[0].start, m.matches[0].end), (4, 8));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "MatchFields")]
#[cfg_attr(feature = "schemars", schemars(deny_unknown_fields))]
#[non_exhaustive]
pub struct Match {
    /// The file's path relative to the corpus root, with `/` separators
    /// (for in-memory documents, the document's name). Two different files
    /// never share one: on a [`Tree`](crate::Tree), a name that is not
    /// valid UTF-8 or that holds a `\` is written with `\` as `\\` and
    /// each byte outside valid UTF-8 as `\xhh` (two lowercase hex
    /// digits); every other name is written as it is. Given back to
    /// [`find_in_file`](crate::Corpus::find_in_file),
    /// [`excerpt`](crate::Corpus::excerpt) or
    /// [`Query::paths`](crate::Query::paths), the path names the same
    /// file.
    pub path: String,
    /// The line's number in the file, 1-based.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub line_number: u64,
    /// The byte offset of the line's start in the file. A UTF-8
    /// byte-order mark that starts the file is not part of its first line
    /// (as in ripgrep and editors): that line starts after it, at offset
    /// 3, so `byte_offset` plus a span's ends are always the match's
    /// offsets in the file.
    pub byte_offset: u64,
    /// The line without its terminator (`\n` or `\r\n`), as lossy UTF-8;
    /// when cut, the kept part around the first match. The first line
    /// holds no byte-order mark (see `byte_offset`).
    pub line: String,
    /// The matches' byte ranges within `line`.
    pub matches: Vec<Span>,
    /// Present when the line was longer than the column limit and cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_cut: Option<LineCut>,
}

impl Match {
    /// Returns true when the line was cut at the column limit.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query};
    /// let long = format!("{}needle{}", "x".repeat(5000), "y".repeat(5000));
    /// let docs = Documents::new().with("long.txt", long);
    /// let b = docs.search(&Query::literal("needle").max_columns(100), &Limits::new(), None)?;
    /// assert!(b.items()[0].is_cut());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.line_cut.is_some()
    }
}

/// A byte range `start..end` within a [`Match`]'s `line`.
///
/// # Example
///
/// ```
/// let span = candor_search::Span { start: 4, end: 8 };
/// assert_eq!(span.len(), 4);
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// The first byte of the match.
    pub start: usize,
    /// One past the last byte of the match.
    pub end: usize,
}

impl Span {
    /// The span's length in bytes: `0` for a span whose `end` is not
    /// after its `start` (a span built by hand can be so; the search
    /// never returns one). It never panics.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_search::Span { start: 2, end: 2 }.len(), 0);
    /// assert_eq!(candor_search::Span { start: 5, end: 2 }.len(), 0);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Returns true for an empty span: [`len`](Self::len) is 0, which a
    /// hand-built span whose `end` is before its `start` is too.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor_search::Span { start: 2, end: 2 }.is_empty());
    /// assert!(candor_search::Span { start: 5, end: 2 }.is_empty());
    /// assert!(!candor_search::Span { start: 2, end: 5 }.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How a line longer than the column limit was cut.
///
/// # Example
///
/// ```
/// let cut = candor_search::LineCut { original_bytes: 81234, kept_from: 4700 };
/// assert!(cut.kept_from < cut.original_bytes);
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineCut {
    /// The original line's length in bytes.
    pub original_bytes: u64,
    /// Where the kept part starts in the original line, in bytes.
    pub kept_from: u64,
}

/// A [`Match`] as read from the wire, before it is checked.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchFields {
    path: String,
    line_number: u64,
    byte_offset: u64,
    line: String,
    matches: Vec<Span>,
    #[serde(default)]
    line_cut: Option<LineCut>,
}

impl TryFrom<MatchFields> for Match {
    type Error = String;

    fn try_from(f: MatchFields) -> Result<Match, String> {
        check_line(f.line_number, f.line_cut)?;
        let mut previous: Option<Span> = None;
        for s in &f.matches {
            let (start, end) = (s.start, s.end);
            if start > end
                || end > f.line.len()
                || !f.line.is_char_boundary(start)
                || !f.line.is_char_boundary(end)
            {
                return Err(format!(
                    "the match {start}..{end} is not a range of whole characters of the line ({} bytes)",
                    f.line.len()
                ));
            }
            if let Some(p) = previous.filter(|p| start < p.end || p == s) {
                return Err(format!(
                    "the matches {}..{} and {start}..{end} are out of order, overlap or repeat",
                    p.start, p.end
                ));
            }
            previous = Some(*s);
        }
        Ok(Match {
            path: f.path,
            line_number: f.line_number,
            byte_offset: f.byte_offset,
            line: f.line,
            matches: f.matches,
            line_cut: f.line_cut,
        })
    }
}

/// What a decoded line must be: numbered from 1, and if cut, kept from
/// within the original line.
fn check_line(line_number: u64, cut: Option<LineCut>) -> Result<(), String> {
    if line_number == 0 {
        return Err("line_number is 0: lines are numbered from 1".to_owned());
    }
    match cut {
        // A window can start at the line's end: an empty match there,
        // with a column limit narrower than the last character.
        Some(c) if c.kept_from > c.original_bytes => Err(format!(
            "line_cut keeps from byte {} of a line of {} bytes",
            c.kept_from, c.original_bytes
        )),
        _ => Ok(()),
    }
}

/// How many lines of one file match: the items of
/// [`Corpus::count_per_file`](crate::Corpus::count_per_file).
///
/// Wire shape: `{"path": "src/lib.rs", "count": 3}`.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Documents, Limits, Query};
/// let docs = Documents::new().with("a.txt", "fish\nfish fish\nno\n");
/// let b = docs.count_per_file(&Query::literal("fish"), &Limits::new(), None)?;
/// assert_eq!(b.items()[0].count, 2); // lines, not occurrences
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct FileCount {
    /// The file's path relative to the corpus root.
    pub path: String,
    /// The number of matching lines in the file, as `search` would list
    /// them.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub count: u64,
}

/// One line of a file, as [`excerpt`](crate::Corpus::excerpt) returns it.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Documents, Excerpt, Limits};
/// let docs = Documents::new().with("a.txt", "one\ntwo\nthree\n");
/// let b = docs.excerpt(&Excerpt::new("a.txt", 2..=3), &Limits::new(), None)?;
/// assert_eq!(b.items()[0].line, "two");
/// assert_eq!(b.items()[1].line_number, 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "LineFields")]
#[cfg_attr(feature = "schemars", schemars(deny_unknown_fields))]
#[non_exhaustive]
pub struct Line {
    /// The line's number, 1-based.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub line_number: u64,
    /// The byte offset of the line's start in the file (after the
    /// byte-order mark that may start the file, as for
    /// [`Match::byte_offset`]).
    pub byte_offset: u64,
    /// The line without its terminator, as lossy UTF-8; when cut, its
    /// first bytes up to the column limit.
    pub line: String,
    /// Present when the line was longer than the column limit and cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_cut: Option<LineCut>,
}

/// A [`Line`] as read from the wire, before it is checked (as a
/// [`Match`]'s line is).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineFields {
    line_number: u64,
    byte_offset: u64,
    line: String,
    #[serde(default)]
    line_cut: Option<LineCut>,
}

impl TryFrom<LineFields> for Line {
    type Error = String;

    fn try_from(f: LineFields) -> Result<Line, String> {
        check_line(f.line_number, f.line_cut)?;
        Ok(Line {
            line_number: f.line_number,
            byte_offset: f.byte_offset,
            line: f.line,
            line_cut: f.line_cut,
        })
    }
}

/// An item a query produces, with the path that orders it.
pub(crate) trait Item: Serialize + Send + Sync + 'static {
    fn path(&self) -> &str;

    /// Where this item's line starts and its number, where a cursor at
    /// the item (not after it) resumes, if the item is a line.
    fn line_start(&self) -> Option<Place> {
        None
    }
}

impl Item for Match {
    fn path(&self) -> &str {
        &self.path
    }

    fn line_start(&self) -> Option<Place> {
        Some(Place::line(self.byte_offset, self.line_number))
    }
}

impl Item for FileCount {
    fn path(&self) -> &str {
        &self.path
    }
}

impl Item for String {
    fn path(&self) -> &str {
        self
    }
}
