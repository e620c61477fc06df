//! The public `Corpus` trait: the queries every corpus answers, each with
//! its contract. It is sealed, and implemented once, for every corpus the
//! crate has: each query runs through the corpus's private `Source`
//! implementation (`run.rs`, and `excerpt.rs` for excerpts).

use std::ops::ControlFlow;

#[cfg(doc)]
use crate::Documents;
use crate::Error;
#[cfg(all(doc, feature = "tree"))]
use crate::Tree;
use crate::source::Source;
use crate::{Bounded, Cursor, Limits, StreamError, Streamed};
use crate::{Excerpt, FileCount, Line, Match, Query, excerpt, run};

mod sealed {
    /// Implemented by the crate's corpora only.
    pub trait Sealed {}

    impl<S: crate::source::Source> Sealed for S {}
}

/// Where a search can run: in-memory [`Documents`], or a directory
/// [`Tree`] on disk (feature `tree`).
///
/// Every query returns a [`Bounded`] (or, streamed, a [`Streamed`]) whose
/// items are in path order, then byte offset: paths compare component by
/// component, which is the order of a depth-first walk with each folder's
/// entries sorted by name. The limit is applied after every filter, and the
/// cut is taken in that order, so the first N are the same N on every run
/// and with any number of threads.
///
/// **Binary files.** A file with a NUL byte in its first 256 KiB (or on
/// its first line) is binary: it yields no items, and is counted in
/// `skipped` as `binary` (policy: the answer stays complete). A NUL
/// further in ends the file's search at the start of its line: the lines
/// before it are searched, and the file is also counted in `skipped` as
/// `binary`, its detail saying where the NUL is and where the search
/// ended. The rule depends on the file's bytes alone, so every query, with
/// any thread count, finds the same lines; a query that needs no more of a
/// file (its lines past the limit, or a match found for
/// `files_with_matches`) reads it no further, and then reports no cut it
/// did not reach.
///
/// **A binary file the caller named** (the file of
/// [`find_in_file`](Corpus::find_in_file) or
/// [`excerpt`](Corpus::excerpt), or a file that [`Query::paths`] names
/// itself) is searched whatever NUL bytes it holds, as ripgrep searches a
/// file named on its command line: a NUL is an ordinary byte, every
/// matching line is an item (those that hold NUL bytes too), and the
/// answer says the file is binary: it is counted once in `skipped` as
/// `binary_as_text`, with the offset of its first NUL in the detail
/// (policy: nothing of it was left out, and the answer stays complete).
/// That record comes where the line of the first NUL comes in the answer,
/// so that the page holding that line (or the file's one item, for
/// [`count_per_file`](Corpus::count_per_file) and
/// [`files_with_matches`](Corpus::files_with_matches)) tells it, once.
///
/// **Reading.** Files on disk are read through a buffer of 256 KiB per
/// thread, whatever their size, and a file's matching lines are handed on
/// in parts of 2,048 (or 512 KiB), so the memory of a search does not
/// grow with its files. A line longer than 16 MiB (not counting its `\n`;
/// a `\r` before it counts, and a last line without one is measured the
/// same) is not held:
/// the file's search ends before it, and the rest is skipped as
/// `long_line` (an error: the result is not complete, and its `total`
/// counts only what was searched); with a column window
/// ([`Query::max_columns`](crate::Query::max_columns), for a query whose
/// matches are at most a known length long, or
/// [`Excerpt::max_columns`](crate::Excerpt::max_columns)), such a line is
/// read in pieces and shown cut instead, in memory bounded by the window.
/// A file that changes while it is read, or
/// cannot be read to its end, is cut where that is seen, as `changed` or
/// `unreadable` (errors); lines found before are kept (a stream has
/// already handed them on). A stop at a file's start skips it whole. A
/// change is seen by the file's size and time of change: a rewrite in
/// place that keeps the size, within one tick of the file system's clock,
/// is not seen, and the lines found may then mix the two versions.
/// [`Documents`] are held in memory already: a document's lines are
/// searched whole whatever their length, so where the same bytes on disk
/// hold a line over 16 MiB, the two answers differ (and the tree's says
/// so).
///
/// **Lines** end at `\n`; a `\r` at the end of a line is not part of it (it
/// cannot be matched and is not returned), while a `\r` elsewhere is an
/// ordinary character. A UTF-8 byte-order mark (`EF BB BF`) that starts a
/// file is not text, as in ripgrep and editors: the first line starts
/// after it (`^` matches there, and the line returned holds no U+FEFF),
/// at byte offset 3, the line's true offset in the file. A byte-order
/// mark anywhere else is an ordinary character.
///
/// This trait is sealed: candor implements it for its corpora.
pub trait Corpus: sealed::Sealed {
    /// Lists the matching lines, each with its path, 1-based line number,
    /// byte offset and match ranges, resuming at `cursor` if given.
    ///
    /// Can return `Exact`, `TruncatedByLimit` (item `limit + 1` was found),
    /// or `TruncatedByBudget` (output bytes, scanned bytes, files or
    /// deadline). With [`Limits::count_total`](crate::Limits::count_total)
    /// the total counts every matching line, without building items past
    /// the limit.
    ///
    /// # Errors
    ///
    /// [`InvalidPattern`](crate::ErrorKind::InvalidPattern) for a bad
    /// pattern; [`OutsideRoot`](crate::ErrorKind::OutsideRoot) for a path
    /// filter that leaves the root; the cursor errors (foreign, stale,
    /// tampered, malformed, out of range); and
    /// [`BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall). A file that
    /// cannot be read is not an error: it is counted in `skipped`; so is a
    /// path filter that names nothing (see
    /// [`Query::paths`](crate::Query::paths)); nor is a truncated result
    /// (to require the whole answer, see [`Bounded::into_exact`]).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query, Total};
    /// let docs = Documents::new()
    ///     .with("a.rs", "fn main() {}\nfn helper() {}\n")
    ///     .with("b.rs", "fn other() {}\n");
    /// let page = docs.search(&Query::literal("fn"), &Limits::new().limit(2), None)?;
    /// assert_eq!(page.len(), 2);
    /// assert_eq!(page.total(), Total::AtLeast(3));
    /// let rest = docs.search(&Query::literal("fn"), &Limits::new().limit(2), page.next_cursor())?;
    /// assert_eq!(rest.items()[0].path, "b.rs");
    /// assert!(rest.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn search(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Match>, Error>;

    /// Like [`search`](Self::search), but hands each match to `on_match`
    /// as soon as its place in the order is certain, and ends with the same
    /// disclosure. The output-bytes budget does not apply to a stream and
    /// is refused.
    ///
    /// `on_match` returns [`ControlFlow::Break`] to stop the stream after
    /// the match it was handed: the end then says the stream is truncated,
    /// as a cancellation does
    /// ([`BudgetKind::Cancelled`](crate::BudgetKind::Cancelled)), and its
    /// cursor resumes after that match. For a callback that can fail, see
    /// [`try_search_each`](Self::try_search_each).
    ///
    /// Memory: files are read through a fixed buffer, one file's matching
    /// lines are handed on in parts of 2,048, and the matches of the files
    /// searched ahead of the one handed on are bounded (a tree holds at
    /// most 256 files and about 16,000 matching lines ahead). So a stream
    /// over a file whose millions of lines all match holds a part at a
    /// time, not the file's lines.
    ///
    /// # Errors
    ///
    /// Those of [`search`](Self::search), and
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) when
    /// `max_bytes` is set.
    ///
    /// # Example
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use candor_search::{BudgetKind, Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\ny\nx\nx\n");
    /// let mut seen = 0;
    /// let end = docs.search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {
    ///     seen += 1;
    ///     ControlFlow::Continue(())
    /// })?;
    /// assert_eq!((seen, end.count()), (3, 3));
    /// assert!(end.is_complete());
    ///
    /// // Stop after the first match: the end says so, with a cursor after it.
    /// let end = docs.search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| ControlFlow::Break(()))?;
    /// assert_eq!(end.count(), 1);
    /// assert_eq!(end.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Cancelled));
    /// let rest = docs.search(&Query::literal("x"), &Limits::new(), end.next_cursor())?;
    /// assert_eq!(rest.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn search_each(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
        on_match: &mut dyn FnMut(&Match) -> ControlFlow<()>,
    ) -> Result<Streamed, Error>;

    /// Like [`search_each`](Self::search_each), for a callback that can
    /// fail (an index that a failed insert leaves behind): the first `Err`
    /// stops the stream before the match it was handed, which is not
    /// counted, and comes back as [`StreamError::Callback`] with the
    /// stream's end so far, whose cursor resumes at that match.
    ///
    /// # Errors
    ///
    /// [`StreamError::Callback`] when `on_match` fails;
    /// [`StreamError::Query`] with the errors of
    /// [`search_each`](Self::search_each).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query, StreamError};
    /// let docs = Documents::new().with("a.txt", "x 1\nx 2\nx 3\n");
    /// let mut stored = Vec::new();
    /// let mut store = |line: &str| if stored.len() < 2 { stored.push(line.to_owned()); Ok(()) } else { Err("disk full") };
    /// let Err(StreamError::Callback { end, error }) =
    ///     docs.try_search_each(&Query::literal("x"), &Limits::new(), None, |m| store(&m.line))
    /// else {
    ///     panic!("the third insert fails");
    /// };
    /// assert_eq!((end.count(), error), (2, "disk full"));
    /// // Resuming at the match that failed: nothing is lost.
    /// let rest = docs.search(&Query::literal("x"), &Limits::new(), end.next_cursor())?;
    /// assert_eq!(rest.items()[0].line, "x 3");
    /// assert_eq!(rest.start(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn try_search_each<E>(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
        on_match: impl FnMut(&Match) -> Result<(), E>,
    ) -> Result<Streamed, StreamError<E>>
    where
        Self: Sized;

    /// Counts the matching lines of each file that has any, one item per
    /// file (a [`FileCount`], whose `count` is the file's matching lines).
    /// The total counts files, as `count` on the wire counts the items of
    /// the response.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\nx\n").with("b.txt", "y\n");
    /// let counts = docs.count_per_file(&Query::literal("x"), &Limits::new(), None)?;
    /// assert_eq!((counts.items()[0].path.as_str(), counts.items()[0].count), ("a.txt", 2));
    /// assert_eq!(counts.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn count_per_file(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<FileCount>, Error>;

    /// Lists the paths of the files with at least one matching line.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\n").with("b.txt", "y\n");
    /// let files = docs.files_with_matches(&Query::literal("y"), &Limits::new(), None)?;
    /// assert_eq!(files.items(), &["b.txt"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn files_with_matches(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<String>, Error>;

    /// [`search`](Self::search) confined to the one file at `path`.
    ///
    /// The file is searched because it is named, as ripgrep searches the
    /// paths it is given: no hidden-file, ignore or depth rule applies to
    /// it, only the read policy (the size limit, the scanned-bytes and
    /// files budgets, the deadline). A binary file is searched as text
    /// and said to be binary (see **A binary file the caller named**
    /// above). A FIFO, socket or device is not opened: it is counted in
    /// `skipped` as `special`, and the answer is not complete. The query's
    /// path filters ([`Query::paths`]) do not apply: `path` is the one
    /// file searched.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search), and
    /// [`NotFound`](crate::ErrorKind::NotFound) when `path` is not in the
    /// corpus, [`NotAFile`](crate::ErrorKind::NotAFile) when it is a
    /// folder.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\n").with("b.txt", "x\n");
    /// let found = docs.find_in_file("b.txt", &Query::literal("x"), &Limits::new(), None)?;
    /// assert_eq!(found.items()[0].path, "b.txt");
    /// assert_eq!(found.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn find_in_file(
        &self,
        path: &str,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Match>, Error>;

    /// The lines of one file that `excerpt` names, under the limits (the
    /// item limit counts lines).
    ///
    /// As for [`find_in_file`](Self::find_in_file), only the read policy
    /// applies to the named file, and the file is read only as far as the
    /// lines asked for, in blocks of about 256 KiB. A binary file is read
    /// as text, its lines returned whatever NUL bytes they hold, and the
    /// excerpt says the file is binary (`binary_as_text` in `skipped`,
    /// policy), before the line of its first NUL, or before the first line
    /// when that NUL comes earlier; a NUL past the last line asked for is
    /// not looked for. The scanned-bytes budget
    /// counts from the first line returned, the deadline is checked per
    /// block, and either stops the excerpt with a cursor. A cursor records
    /// the file's stamp as its page read it (a document's bytes, hashed):
    /// resumed after the file changed, it is refused as stale
    /// ([`StaleCursor`](crate::ErrorKind::StaleCursor)), as the line it
    /// resumes after may now hold other text.
    ///
    /// # Errors
    ///
    /// [`NotFound`](crate::ErrorKind::NotFound),
    /// [`NotAFile`](crate::ErrorKind::NotAFile) (a folder) or
    /// [`OutsideRoot`](crate::ErrorKind::OutsideRoot) for a bad path,
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) for a bad
    /// line range, the cursor errors (a stale one: the file changed), and
    /// those of the limits.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Excerpt, Limits};
    /// let docs = Documents::new().with("a.txt", "one\ntwo\nthree\nfour\n");
    /// let lines = docs.excerpt(&Excerpt::new("a.txt", 2..=3), &Limits::new(), None)?;
    /// let text: Vec<&str> = lines.iter().map(|l| l.line.as_str()).collect();
    /// assert_eq!(text, ["two", "three"]);
    ///
    /// // A page of one line; the file changes before the next page.
    /// let first = docs.excerpt(&Excerpt::new("a.txt", 1..=4), &Limits::new().limit(1), None)?;
    /// let edited = Documents::new().with("a.txt", "zero\none\ntwo\nthree\nfour\n");
    /// let err = edited
    ///     .excerpt(&Excerpt::new("a.txt", 1..=4), &Limits::new(), first.next_cursor())
    ///     .unwrap_err();
    /// assert!(matches!(err.kind(), candor_search::ErrorKind::StaleCursor { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn excerpt(
        &self,
        excerpt: &Excerpt,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Line>, Error>;
}

impl<S: Source> Corpus for S {
    fn search(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Match>, Error> {
        run::search(self, query, limits, cursor)
    }

    fn search_each(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
        on_match: &mut dyn FnMut(&Match) -> ControlFlow<()>,
    ) -> Result<Streamed, Error> {
        run::search_each(self, query, limits, cursor, on_match)
    }

    fn try_search_each<E>(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
        on_match: impl FnMut(&Match) -> Result<(), E>,
    ) -> Result<Streamed, StreamError<E>> {
        run::try_search_each(self, query, limits, cursor, on_match)
    }

    fn count_per_file(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<FileCount>, Error> {
        run::count_per_file(self, query, limits, cursor)
    }

    fn files_with_matches(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<String>, Error> {
        run::files(self, query, limits, cursor)
    }

    fn find_in_file(
        &self,
        path: &str,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Match>, Error> {
        run::find_in_file(self, path, query, limits, cursor)
    }

    fn excerpt(
        &self,
        excerpt: &Excerpt,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Line>, Error> {
        excerpt::excerpt(self, excerpt, limits, cursor)
    }
}
