//! `Query`: what to look for, and how.

use std::hash::{Hash, Hasher};

use crate::Fingerprint;

/// The kind of pattern a [`Query`] holds.
///
/// # Example
///
/// ```
/// use candor_search::{PatternKind, Query};
/// assert_eq!(Query::regex(r"fn \w+").get_kind(), PatternKind::Regex);
/// assert_eq!(Query::literals(["a", "b"]).get_kind(), PatternKind::Literals);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PatternKind {
    /// One literal string, matched byte for byte.
    Literal,
    /// Several literal strings; a line matches if any of them occurs.
    /// Where two could match at the same place, the earlier one given
    /// wins.
    Literals,
    /// A regular expression, in the syntax of the `regex` crate.
    Regex,
}

/// What to search for: a literal, several literals or a regex, with
/// options for case and whole words, an optional path filter, and a
/// column limit for the lines returned.
///
/// Matching is line-oriented: a match never spans a line terminator. In a
/// regex, `.` and classes never match `\n`, `^`/`$` (and `\A`/`\z`) match
/// at line boundaries, and `$` matches before `\r\n`.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Documents, Limits, Query};
///
/// let docs = Documents::new().with("src/app.ts", "export const BaseTypographyProps = 1;\n");
/// let query = Query::regex(r"\w+Typography\w*").case_insensitive(true);
/// let found = docs.search(&query, &Limits::new().limit(100), None)?;
/// assert_eq!(found.items()[0].line_number, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Query {
    kind: PatternKind,
    patterns: Vec<String>,
    case_insensitive: bool,
    whole_word: bool,
    max_columns: Option<usize>,
    paths: Vec<String>,
}

impl Query {
    fn new(kind: PatternKind, patterns: Vec<String>) -> Query {
        Query {
            kind,
            patterns,
            case_insensitive: false,
            whole_word: false,
            max_columns: None,
            paths: Vec::new(),
        }
    }

    /// Searches for one literal string.
    ///
    /// A search refuses an empty literal (it would match everywhere; the
    /// regex `^` lists every line) and one holding a `\n` (no match spans
    /// a line) as [`InvalidPattern`](crate::ErrorKind::InvalidPattern).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, ErrorKind, Limits, Query};
    ///
    /// let q = Query::literal("TODO");
    /// assert_eq!(q.get_patterns(), &["TODO"]);
    /// let docs = Documents::new().with("a.txt", "TODO\n");
    /// let e = docs.search(&Query::literal(""), &Limits::new(), None).unwrap_err();
    /// assert!(matches!(e.kind(), ErrorKind::InvalidPattern { .. }));
    /// ```
    #[must_use]
    pub fn literal(needle: impl Into<String>) -> Query {
        Query::new(PatternKind::Literal, vec![needle.into()])
    }

    /// Searches for any of several literal strings. Each is refused as
    /// [`Query::literal`] refuses one, and so are more than 100,000.
    ///
    /// # Example
    ///
    /// ```
    /// let q = candor_search::Query::literals(["TODO", "FIXME"]);
    /// assert_eq!(q.get_patterns().len(), 2);
    /// ```
    #[must_use]
    pub fn literals<I, S>(needles: I) -> Query
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Query::new(
            PatternKind::Literals,
            needles.into_iter().map(Into::into).collect(),
        )
    }

    /// Searches for a regular expression (the `regex` crate's syntax).
    ///
    /// Each line matches as it would with the `regex` crate's `str` API
    /// run on that line alone: matches are leftmost-first and do not
    /// overlap, and an empty match never splits a character. A line that
    /// is not UTF-8 is matched byte by byte, as the `regex` crate's bytes
    /// API matches it: an invalid byte matches no character class (`.`,
    /// `\W` and a `U+FFFD` in the pattern find nothing there), only a byte
    /// class such as `(?-u:\xFF)`. Where an empty match may fall follows
    /// the line returned: never strictly inside one of its characters,
    /// where each invalid sequence is one U+FFFD and a lone continuation
    /// byte (0x80-0xBF) is one too, so `^` matches every line. A pattern
    /// that can match only a line terminator (`\n`, or `a\nb`) is an
    /// [`InvalidPattern`](crate::ErrorKind::InvalidPattern) error: no match
    /// spans a line. A pattern that
    /// can match part of a character (a byte class such as `(?-u:\xA9)`)
    /// reports the whole characters its match touches, so every span falls
    /// on character boundaries of the line returned.
    ///
    /// The pattern is compiled when a search runs; an invalid one is an
    /// [`InvalidPattern`](crate::ErrorKind::InvalidPattern) error then, and
    /// so is one whose compiled program would exceed 10 MiB (such as
    /// `[\s\S]{65535}`, which would otherwise take minutes to run).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, ErrorKind, Limits, Query};
    ///
    /// let docs = Documents::new().with("a.txt", "xy\nx1y\n");
    /// let b = docs.search(&Query::regex(r"x(?:\d+)?y"), &Limits::new(), None)?;
    /// assert_eq!(b.len(), 2);
    /// assert!(b.is_complete());
    ///
    /// let huge = docs.search(&Query::regex(r"[\s\S]{65535}"), &Limits::new(), None);
    /// assert!(matches!(
    ///     huge.unwrap_err().kind(),
    ///     ErrorKind::InvalidPattern { pattern, .. } if pattern == r"[\s\S]{65535}"
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn regex(pattern: impl Into<String>) -> Query {
        Query::new(PatternKind::Regex, vec![pattern.into()])
    }

    /// Matches regardless of case (Unicode simple case folding).
    /// Default: false.
    ///
    /// # Example
    ///
    /// ```
    /// let q = candor_search::Query::literal("todo").case_insensitive(true);
    /// assert!(q.get_case_insensitive());
    /// ```
    #[must_use]
    pub fn case_insensitive(mut self, yes: bool) -> Query {
        self.case_insensitive = yes;
        self
    }

    /// Matches only whole words: the character before a match and the one
    /// after it are not word characters (Unicode letters, digits, `_`), or
    /// are the line's edge. Bytes that are not valid UTF-8 count as
    /// non-word characters: the pattern sees each invalid sequence (one
    /// U+FFFD in the line returned) as one character of its length,
    /// U+0000, U+0080 or U+FFFF. A class that holds it (`.`, `\W`) then
    /// matches there, where without whole words it does not (see
    /// [`Query::regex`]): on such lines, whole words are not only a filter
    /// of the same query's matches. Default: false.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.rs", "let cat = concat;\n");
    /// let b = docs.search(&Query::literal("cat").whole_word(true), &Limits::new(), None)?;
    /// assert_eq!(b.items()[0].matches.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn whole_word(mut self, yes: bool) -> Query {
        self.whole_word = yes;
        self
    }

    /// Cuts returned lines longer than `max_columns` bytes to a window of
    /// that size around the first match, and marks them as cut. Default:
    /// no cut.
    ///
    /// The window is measured in the line's bytes and holds whole
    /// characters: a window narrower than the first match's character (a
    /// limit below 4) can hold none of it, and the item's `matches` is then
    /// empty (or one empty match, for an empty match at the line's end);
    /// an invalid UTF-8 sequence in it is shown as U+FFFD (3 bytes),
    /// so the shown line can be longer than the window. A search with a
    /// limit of 0 fails with [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
    ///
    /// The limit also bounds what a matching line costs: only the matches
    /// the window can show are kept. Without it an item holds its whole
    /// line (up to the long-line cap) and every match in it, which for a
    /// pattern such as `x*` (an empty match at every character) is
    /// millions of spans.
    ///
    /// With a window, a line on disk longer than the long-line cap
    /// (16 MiB) no longer ends its file's search as `long_line`, when the
    /// query's matches are at most a known length long (literals without
    /// whole words; a regex whose longest match is at most 64 KiB, which
    /// cannot match empty, without whole words, a Unicode `\b` or a class
    /// of raw bytes such as `(?-u:\xFF)`, whose matches are widened to
    /// whole characters): it is read in pieces, found, counted and shown
    /// cut as a shorter line would be, in memory bounded by the window.
    /// Another query skips it as before, and a NUL met in such a line
    /// then comes after the skip: the file is `long_line` (an error), not
    /// `binary`.
    ///
    /// # Example
    ///
    /// ```
    /// let q = candor_search::Query::literal("x").max_columns(200);
    /// assert_eq!(q.get_max_columns(), Some(200));
    /// ```
    #[must_use]
    pub fn max_columns(mut self, max_columns: usize) -> Query {
        self.max_columns = Some(max_columns);
        self
    }

    /// Restricts the search to these files or folders, relative to the
    /// corpus root with `/` separators. Applied before the limit. Default:
    /// the whole corpus.
    ///
    /// A path that leaves the root (`..`, an absolute path elsewhere) is
    /// refused when the search runs. A path that cannot be searched is
    /// counted in `skipped` where it comes in path order, and the other
    /// paths are searched, as ripgrep does: one that names nothing (or
    /// lies below a file) as `vanished`, an error, so the result is not
    /// complete; on a [`Tree`](crate::Tree), one that is or goes through
    /// a symbolic link the tree does not follow, or that leads out of the
    /// root, as the walk counts such a link.
    ///
    /// A path named is searched as ripgrep searches the paths it is
    /// given: whatever the hidden, ignore and depth rules say (a
    /// [`Tree::max_depth`](crate::Tree::max_depth) counts from each path
    /// named), and a file named that holds NUL bytes is searched as text
    /// and said to be binary (`binary_as_text`, see
    /// [`Corpus`](crate::Corpus)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query, SkipReason};
    /// let docs = Documents::new().with("src/a.rs", "x\n").with("tests/b.rs", "x\n");
    /// let b = docs.search(&Query::literal("x").paths(["src"]), &Limits::new(), None)?;
    /// assert_eq!(b.len(), 1);
    /// let named = Query::literal("x").paths(["src", "nope"]);
    /// let b = docs.search(&named, &Limits::new(), None)?;
    /// assert_eq!(b.len(), 1);
    /// assert_eq!(b.skipped().count(&SkipReason::Vanished), 1);
    /// assert!(!b.is_complete(), "a path named was not searched");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn paths<I, S>(mut self, paths: I) -> Query
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.paths = paths.into_iter().map(Into::into).collect();
        self
    }

    /// The kind of pattern, as the constructor set it
    /// ([`literal`](Self::literal), [`literals`](Self::literals) or
    /// [`regex`](Self::regex)).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_search::Query::literal("x").get_kind(), candor_search::PatternKind::Literal);
    /// ```
    #[must_use]
    pub fn get_kind(&self) -> PatternKind {
        self.kind
    }

    /// The pattern or patterns, as the constructor was given them.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_search::Query::regex("a+").get_patterns(), &["a+"]);
    /// ```
    #[must_use]
    pub fn get_patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether matching ignores case (see
    /// [`case_insensitive`](Self::case_insensitive)).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!candor_search::Query::literal("x").get_case_insensitive());
    /// assert!(candor_search::Query::literal("x").case_insensitive(true).get_case_insensitive());
    /// ```
    #[must_use]
    pub fn get_case_insensitive(&self) -> bool {
        self.case_insensitive
    }

    /// Whether only whole words match (see [`whole_word`](Self::whole_word)).
    ///
    /// # Example
    ///
    /// ```
    /// assert!(!candor_search::Query::literal("x").get_whole_word());
    /// assert!(candor_search::Query::literal("x").whole_word(true).get_whole_word());
    /// ```
    #[must_use]
    pub fn get_whole_word(&self) -> bool {
        self.whole_word
    }

    /// The column limit, if one is set (see
    /// [`max_columns`](Self::max_columns)).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_search::Query::literal("x").get_max_columns(), None);
    /// assert_eq!(candor_search::Query::literal("x").max_columns(120).get_max_columns(), Some(120));
    /// ```
    #[must_use]
    pub fn get_max_columns(&self) -> Option<usize> {
        self.max_columns
    }

    /// The path filter (see [`paths`](Self::paths)); empty for the whole
    /// corpus.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor_search::Query::literal("x").get_paths().is_empty());
    /// let q = candor_search::Query::literal("x").paths(["src/lib.rs"]);
    /// assert_eq!(q.get_paths(), ["src/lib.rs"]);
    /// ```
    #[must_use]
    pub fn get_paths(&self) -> &[String] {
        &self.paths
    }

    /// The pattern as shown in messages.
    pub(crate) fn pattern_text(&self) -> String {
        self.patterns.join("|")
    }

    /// The fingerprint of this query run as `operation` on a corpus with
    /// the given fingerprint.
    pub(crate) fn scoped_fingerprint(&self, operation: &str, corpus: u64) -> Fingerprint {
        struct FingerprintInput<'a>(&'a Query, &'a str, u64);
        impl Hash for FingerprintInput<'_> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.0.hash(state);
                self.1.hash(state);
                self.2.hash(state);
            }
        }
        Fingerprint::of(&FingerprintInput(self, operation, corpus))
    }
}
