//! Text search: a [`Query`] runs a matcher over a corpus within
//! [`Limits`](crate::Limits) and returns a [`Bounded`](crate::Bounded).

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;

use crate::collect::Collector;
use crate::error::Error;
use crate::{Bounded, Cursor, Limits, Scope, SkippedInput, Streamed};

#[cfg(feature = "tree")]
mod confine;
mod corpus;
mod engine;
mod item;
mod matcher;
mod path;
mod query;
mod reader;
#[cfg(feature = "tree")]
mod tree;
#[cfg(feature = "tree")]
mod walk;

pub use corpus::{DocBytes, Documents};
pub use item::{FileCount, Line, LineCut, Match, Span};
pub use query::{PatternKind, Query};
#[cfg(feature = "tree")]
pub use tree::Tree;

use engine::{Deadline, FileOutcome, Hits, Item, Mode, Ordered, Plan, ToItems};
use matcher::Matcher;

mod sealed {
    pub trait Sealed {}
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
/// A file holding a NUL byte anywhere is binary: it yields no items, and
/// is counted in `skipped` (policy). The rule is the same in every query
/// and with any thread count, so a file is read to its end (or its first
/// NUL) even when its matching lines are no longer needed; the lines found
/// meanwhile are held until then (at most `limit + 1` of them, or, in a
/// stream without a limit, all of that one file's). Files on disk are read
/// through a buffer of 256 KiB per thread, whatever their size; a line
/// longer than 16 MiB is not held, and its file is skipped as
/// `long_line` (an error: the result is not complete). A file that
/// changes while it is read is skipped as `changed` (an error). Lines end
/// at `\n`; a `\r` at the end of a line
/// is not part of it (it cannot be matched and is not returned), while a
/// `\r` elsewhere is an ordinary character.
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
    /// pattern; [`OutsideRoot`](crate::ErrorKind::OutsideRoot) or
    /// [`NotFound`](crate::ErrorKind::NotFound) for a bad path filter; the
    /// cursor errors (foreign, stale, tampered, malformed, out of range);
    /// [`BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall); and
    /// [`Incomplete`](crate::ErrorKind::Incomplete) in strict mode. A file
    /// that cannot be read is not an error: it is counted in `skipped`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Limits, Query, Total};
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
    /// # Errors
    ///
    /// Those of [`search`](Self::search), and
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) when
    /// `max_bytes` is set. In strict mode the error holds the stream's end
    /// ([`Error::stream_end`](crate::Error::stream_end)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\ny\nx\n");
    /// let mut seen = 0;
    /// let end = docs.search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| seen += 1)?;
    /// assert_eq!((seen, end.count()), (2, 2));
    /// assert!(end.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn search_each(
        &self,
        query: &Query,
        limits: &Limits,
        cursor: Option<&Cursor>,
        on_match: &mut dyn FnMut(&Match),
    ) -> Result<Streamed, Error>;

    /// Counts the matching lines of each file that has any, one item per
    /// file. The total counts files.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\nx\n").with("b.txt", "y\n");
    /// let counts = docs.count(&Query::literal("x"), &Limits::new(), None)?;
    /// assert_eq!((counts.items()[0].path.as_str(), counts.items()[0].count), ("a.txt", 2));
    /// assert_eq!(counts.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn count(
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
    /// use candor::{Corpus, Documents, Limits, Query};
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
    /// paths it is given: no hidden-file or ignore rule applies to it, only
    /// the read policy (the size limit, the binary rule, the scanned-bytes
    /// and files budgets, the deadline). A FIFO, socket or device is not
    /// opened: it is counted in `skipped` as `special`.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search), and
    /// [`NotFound`](crate::ErrorKind::NotFound) when `path` is a folder or
    /// not in the corpus.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Limits, Query};
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
    /// lines asked for, in blocks of about 256 KiB: a NUL in the blocks
    /// read makes it binary (skipped, no lines); one further on is not
    /// looked for. The scanned-bytes budget
    /// counts from the first line returned, the deadline is checked per
    /// block, and either stops the excerpt with a cursor.
    ///
    /// # Errors
    ///
    /// [`NotFound`](crate::ErrorKind::NotFound) or
    /// [`OutsideRoot`](crate::ErrorKind::OutsideRoot) for a bad path,
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) for a bad
    /// line range, the cursor errors, and those of the limits.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Excerpt, Limits};
    /// let docs = Documents::new().with("a.txt", "one\ntwo\nthree\nfour\n");
    /// let lines = docs.excerpt(&Excerpt::new("a.txt", 2..=3), &Limits::new(), None)?;
    /// let text: Vec<&str> = lines.iter().map(|l| l.line.as_str()).collect();
    /// assert_eq!(text, ["two", "three"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn excerpt(
        &self,
        excerpt: &Excerpt,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Line>, Error>;
}

/// Which lines of which file an [`excerpt`](Corpus::excerpt) returns.
///
/// # Example
///
/// ```
/// let e = candor::Excerpt::new("src/lib.rs", 10..=20).max_columns(200);
/// assert_eq!(e.path(), "src/lib.rs");
/// assert_eq!(e.lines(), (10, 20));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Excerpt {
    path: String,
    first: u64,
    last: u64,
    max_columns: Option<usize>,
}

impl Excerpt {
    /// Lines `lines` (1-based, inclusive) of the file at `path`.
    ///
    /// # Example
    ///
    /// ```
    /// let e = candor::Excerpt::new("a.txt", 1..=1);
    /// assert_eq!(e.lines(), (1, 1));
    /// ```
    #[must_use]
    pub fn new(path: impl Into<String>, lines: std::ops::RangeInclusive<u64>) -> Excerpt {
        Excerpt {
            path: path.into(),
            first: *lines.start(),
            last: *lines.end(),
            max_columns: None,
        }
    }

    /// Cuts lines longer than `max_columns` bytes, and marks them as cut.
    /// Default: no cut.
    ///
    /// # Example
    ///
    /// ```
    /// let e = candor::Excerpt::new("a.txt", 1..=5).max_columns(80);
    /// # let _ = e;
    /// ```
    #[must_use]
    pub fn max_columns(mut self, max_columns: usize) -> Excerpt {
        self.max_columns = Some(max_columns);
        self
    }

    /// The file's path.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Excerpt::new("a.txt", 1..=2).path(), "a.txt");
    /// ```
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The first and last line, 1-based, inclusive.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Excerpt::new("a.txt", 3..=9).lines(), (3, 9));
    /// ```
    #[must_use]
    pub fn lines(&self) -> (u64, u64) {
        (self.first, self.last)
    }
}

/// Implements [`Corpus`] for a [`Source`], each query by its shared
/// implementation.
macro_rules! impl_corpus {
    ($corpus:ty) => {
        impl $crate::search::sealed::Sealed for $corpus {}

        impl $crate::search::Corpus for $corpus {
            fn search(
                &self,
                query: &$crate::search::Query,
                limits: &$crate::Limits,
                cursor: Option<&$crate::Cursor>,
            ) -> Result<$crate::Bounded<$crate::search::Match>, $crate::Error> {
                $crate::search::search_impl(self, query, limits, cursor)
            }

            fn search_each(
                &self,
                query: &$crate::search::Query,
                limits: &$crate::Limits,
                cursor: Option<&$crate::Cursor>,
                on_match: &mut dyn FnMut(&$crate::search::Match),
            ) -> Result<$crate::Streamed, $crate::Error> {
                $crate::search::search_each_impl(self, query, limits, cursor, on_match)
            }

            fn count(
                &self,
                query: &$crate::search::Query,
                limits: &$crate::Limits,
                cursor: Option<&$crate::Cursor>,
            ) -> Result<$crate::Bounded<$crate::search::FileCount>, $crate::Error> {
                $crate::search::count_impl(self, query, limits, cursor)
            }

            fn files_with_matches(
                &self,
                query: &$crate::search::Query,
                limits: &$crate::Limits,
                cursor: Option<&$crate::Cursor>,
            ) -> Result<$crate::Bounded<String>, $crate::Error> {
                $crate::search::files_impl(self, query, limits, cursor)
            }

            fn find_in_file(
                &self,
                path: &str,
                query: &$crate::search::Query,
                limits: &$crate::Limits,
                cursor: Option<&$crate::Cursor>,
            ) -> Result<$crate::Bounded<$crate::search::Match>, $crate::Error> {
                $crate::search::find_in_file_impl(self, path, query, limits, cursor)
            }

            fn excerpt(
                &self,
                excerpt: &$crate::search::Excerpt,
                limits: &$crate::Limits,
                cursor: Option<&$crate::Cursor>,
            ) -> Result<$crate::Bounded<$crate::search::Line>, $crate::Error> {
                $crate::search::excerpt_impl(self, excerpt, limits, cursor)
            }
        }
    };
}
pub(crate) use impl_corpus;

/// What the engine needs of a corpus.
pub(crate) trait Source: Sync {
    /// Identifies the corpus (its root and options), for cursors.
    fn fingerprint(&self) -> u64;
    fn generation(&self) -> Option<u64>;
    /// Normalizes and confines a caller's path; fails when it leaves the
    /// corpus or does not exist. A path the caller names is found whatever
    /// the hidden and ignore rules say; on a tree, it is found name by name
    /// from the root's handle, through no link unless links are followed.
    fn resolve(&self, path: &str) -> Result<Resolved, Error>;
    /// Checks a cursor's position: a path exactly as the corpus writes
    /// its inputs' paths. It need not exist any more (the search resumes
    /// after where it was); it is never opened.
    fn check_position(&self, path: &str) -> Result<(), Error>;
    /// What changes when the input at `path` changes (on a tree: its
    /// inode, size and modification time), recorded in a search cursor
    /// and compared when it is resumed; `0` when the corpus has nothing to
    /// tell (then its generation does that work).
    fn stamp(&self, path: &str) -> u64;
    /// Opens one file named by a resolved path (a caller's, or the
    /// walk's), for the reader: no hidden or ignore rule applies here,
    /// only the read policy, which the reader applies.
    fn open(&self, path: &str) -> reader::Opened<'_>;
    /// Hands the outcome of each file, in path order, to `take`, until it
    /// breaks or the files run out.
    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error>;
}

/// A caller's path, normalized and found in the corpus.
pub(crate) struct Resolved {
    pub(crate) path: String,
    pub(crate) is_file: bool,
}

fn scope_of(source: &impl Source, fingerprint: crate::Fingerprint) -> Scope {
    let scope = Scope::new(fingerprint);
    match source.generation() {
        Some(g) => scope.generation(g),
        None => scope,
    }
}

/// One kind of query: its name (part of its cursors' fingerprint), what it
/// asks of each file, and how a file's hits become items.
struct Operation<T> {
    name: &'static str,
    mode: Mode,
    to_items: ToItems<T>,
}

const SEARCH: Operation<Match> = Operation {
    name: "search",
    mode: Mode::Lines,
    to_items: lines_items,
};
const FIND_IN_FILE: Operation<Match> = Operation {
    name: "find_in_file",
    mode: Mode::Lines,
    to_items: lines_items,
};
const COUNT: Operation<FileCount> = Operation {
    name: "count",
    mode: Mode::Count,
    to_items: count_items,
};
const FILES: Operation<String> = Operation {
    name: "files",
    mode: Mode::Any,
    to_items: file_items,
};

/// Runs one query over `source`.
/// With `only`, searches that one file (a resolved path) and nothing
/// else, whatever the walk's rules would say of it.
fn run_query<S: Source, T: Item>(
    source: &S,
    operation: Operation<T>,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    stream: Option<&mut dyn FnMut(&T)>,
    only: Option<&str>,
) -> Result<Outcome<T>, Error> {
    let Operation {
        name: operation,
        mode,
        to_items,
    } = operation;
    let matcher = Matcher::new(query)?;
    let mut filters = query
        .path_filter()
        .iter()
        .map(|p| source.resolve(p).map(|r| r.path))
        .collect::<Result<Vec<_>, _>>()?;
    filters.sort_by(|a, b| path::cmp_paths(a, b));
    filters.dedup();
    if filters.iter().any(String::is_empty) {
        filters.clear();
    }
    let scope = scope_of(
        source,
        query.scoped_fingerprint(operation, source.fingerprint()),
    );
    let start = match cursor {
        Some(c) => Some(resume_point(source, &scope, c)?),
        None => None,
    };
    let limit = limits.applied_limit().limit();
    let plan = Plan {
        matcher: &matcher,
        mode,
        cap: limit.map(|l| l.saturating_add(1)),
        count_rest: limits.count_total,
        max_columns: query.max_columns_value(),
        start: start.clone(),
        filters,
        counting_only: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        deadline: Deadline::of(limits),
        max_scanned_bytes: limits.max_scanned_bytes,
        reads_nothing: limits.max_files == Some(0),
    };
    let streaming = stream.is_some();
    let mut ordered = match stream {
        Some(sink) => {
            if limits.max_bytes.is_some() {
                return Err(Error::invalid_argument(
                    "max_bytes",
                    "a stream writes no response to bound; use search for a byte budget",
                ));
            }
            Ordered::streaming(limits, mode, start, sink)
        }
        None => Ordered::new(limits, mode, start),
    };
    ordered.collector.set_start(cursor.map_or(0, Cursor::start));
    let mut take = |outcome: FileOutcome<'_>| {
        let flow = ordered.take(&plan, outcome, to_items);
        if flow.is_break() {
            plan.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        flow
    };
    match only {
        // `max_files(0)`: nothing is read.
        Some(path) if plan.reads_nothing => {
            let _ = take(engine::unread(path));
        }
        Some(path) => {
            let outcome = engine::search_opened(
                &plan,
                plan.matcher,
                path,
                source.open(path),
                &mut Vec::new(),
                None,
            );
            let _ = take(outcome);
        }
        None => source.run(&plan, &mut take)?,
    }
    if streaming {
        ordered
            .finish_stream(&scope, &|path| source.stamp(path))
            .map(Outcome::Streamed)
    } else {
        ordered
            .finish(&scope, &|path| source.stamp(path))
            .map(Outcome::Collected)
    }
}

enum Outcome<T> {
    Collected(Bounded<T>),
    Streamed(Streamed),
}

impl<T> Outcome<T> {
    fn collected(self) -> Bounded<T> {
        match self {
            Outcome::Collected(b) => b,
            Outcome::Streamed(_) => unreachable!("a collected run yields a collected outcome"),
        }
    }

    fn streamed(self) -> Streamed {
        match self {
            Outcome::Streamed(s) => s,
            Outcome::Collected(_) => unreachable!("a streamed run yields a streamed outcome"),
        }
    }
}

/// Checks a search cursor and gives its position: an input of the corpus,
/// as the corpus writes its path, and an offset in it.
///
/// The position is not resolved as a caller's path would be: the corpus
/// resumes at it in its own order, whether or not that input still
/// exists, so every cursor issued resumes (one that names a skipped
/// folder or a broken link too). The input's stamp must be unchanged: an
/// edit since the cursor was issued would shift its offset, so it is
/// refused as stale.
fn resume_point(
    source: &impl Source,
    scope: &Scope,
    cursor: &Cursor,
) -> Result<(String, u64), Error> {
    let (path, offset, stamp): (String, u64, Vec<u8>) = scope.resume(cursor)?;
    let stamp = <[u8; 8]>::try_from(stamp.as_slice())
        .map(u64::from_le_bytes)
        .map_err(|_| Error::malformed_cursor("its stamp is not 8 bytes"))?;
    source.check_position(&path)?;
    let now = source.stamp(&path);
    if now != stamp {
        return Err(crate::ErrorKind::StaleCursor {
            cursor_generation: stamp,
            current_generation: now,
        }
        .into());
    }
    Ok((path, offset))
}

fn lines_items(path: &str, hits: Hits, spares: &mut Vec<Match>) -> Vec<(Match, u64)> {
    match hits {
        Hits::Lines { items, .. } => items.into_matches(path, spares),
        Hits::Count(_) => Vec::new(),
    }
}

fn count_items(path: &str, hits: Hits, _: &mut Vec<FileCount>) -> Vec<(FileCount, u64)> {
    let n = match hits {
        Hits::Count(n) => n,
        Hits::Lines { items, rest, .. } => items.len() as u64 + rest,
    };
    if n == 0 {
        return Vec::new();
    }
    vec![(
        FileCount {
            path: path.to_owned(),
            count: n,
        },
        u64::MAX,
    )]
}

fn file_items(path: &str, hits: Hits, _: &mut Vec<String>) -> Vec<(String, u64)> {
    let any = match hits {
        Hits::Count(n) => n > 0,
        Hits::Lines { items, rest, .. } => !items.is_empty() || rest > 0,
    };
    if any {
        vec![(path.to_owned(), u64::MAX)]
    } else {
        Vec::new()
    }
}

fn search_impl(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Match>, Error> {
    run_query(source, SEARCH, query, limits, cursor, None, None).map(Outcome::collected)
}

fn search_each_impl(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    on_match: &mut dyn FnMut(&Match),
) -> Result<Streamed, Error> {
    // A stream resumes with the same cursors as the collected form.
    run_query(source, SEARCH, query, limits, cursor, Some(on_match), None).map(Outcome::streamed)
}

fn count_impl(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<FileCount>, Error> {
    run_query(source, COUNT, query, limits, cursor, None, None).map(Outcome::collected)
}

fn files_impl(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<String>, Error> {
    run_query(source, FILES, query, limits, cursor, None, None).map(Outcome::collected)
}

fn find_in_file_impl(
    source: &impl Source,
    path: &str,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Match>, Error> {
    let resolved = named_file(source, path)?;
    // The path is part of the query's fingerprint, so a cursor of another
    // file is refused; the file is searched alone, not through the walk.
    let query = query.clone().paths([resolved.path.clone()]);
    run_query(
        source,
        FIND_IN_FILE,
        &query,
        limits,
        cursor,
        None,
        Some(&resolved.path),
    )
    .map(Outcome::collected)
}

/// Resolves a path the caller names as one file: anything but a folder
/// (a FIFO or device is then skipped by the reader, as `special`).
fn named_file(source: &impl Source, path: &str) -> Result<Resolved, Error> {
    let resolved = source.resolve(path)?;
    if !resolved.is_file {
        return Err(crate::ErrorKind::NotFound {
            path: path.to_owned(),
        }
        .into());
    }
    Ok(resolved)
}

/// Reads the lines of an excerpt from `begin` into `collector`, through
/// the bounded reader: only as far as the last line wanted (or the limit's
/// probe), under the size limit, the binary rule, the scanned-bytes
/// budget and the deadline.
///
/// The binary rule of an excerpt is that of the bytes it reads: a NUL in
/// them (at least the first block) makes the file binary, and no line of
/// it is returned. A NUL further on is not looked for.
fn read_excerpt(
    source: &impl Source,
    path: &str,
    excerpt: &Excerpt,
    begin: u64,
    limits: &Limits,
    collector: &mut Collector<Line>,
) {
    let (_, last) = excerpt.lines();
    // The lines wanted: up to `last`, and no more than the limit's probe.
    let limit = limits.applied_limit().limit();
    let last = limit.map_or(last, |l| last.min(begin.saturating_add(l as u64)));
    let deadline = Deadline::of(limits);
    let mut held: Vec<Line> = Vec::new();
    let mut line_number = 0u64;
    let mut stopped_by = None;
    let mut visit = |chunk: &[u8], base: u64, is_last: bool| -> ControlFlow<()> {
        let mut at = 0usize;
        while at < chunk.len() && line_number < last {
            line_number += 1;
            let end = memchr::memchr(b'\n', &chunk[at..]).map_or(chunk.len(), |i| at + i);
            if line_number >= begin {
                // The line's content: without the `\r` of a `\r\n` ending.
                let content_end = if end > at && chunk[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                };
                let mut text = String::new();
                let line_cut = engine::show(
                    &chunk[at..content_end],
                    &[],
                    excerpt.max_columns,
                    &mut text,
                    &mut Vec::new(),
                );
                held.push(Line {
                    line_number,
                    byte_offset: base + at as u64,
                    line: text,
                    line_cut,
                });
            }
            at = end + 1;
        }
        if line_number >= last || is_last {
            return ControlFlow::Break(());
        }
        // Scanned: from the first line returned, so that a resumed page
        // advances; and a page holds at least one line.
        let read = held
            .first()
            .map_or(0, |l| base + chunk.len() as u64 - l.byte_offset);
        if let Some(max) = limits.max_scanned_bytes.filter(|&max| read >= max) {
            stopped_by = Some(crate::Budget::new(
                crate::BudgetKind::ScannedBytes,
                max,
                read,
            ));
            return ControlFlow::Break(());
        }
        if !held.is_empty() && deadline.as_ref().is_some_and(Deadline::passed) {
            stopped_by = Some(crate::Budget::new(
                crate::BudgetKind::Deadline,
                limits
                    .deadline
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                limits
                    .deadline
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            ));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let ended = match source.open(path) {
        reader::Opened::Skip(input) => {
            collector.skip(input);
            return;
        }
        reader::Opened::Memory(bytes, known) => {
            reader::visit_memory(bytes, known, reader::BLOCK, &mut visit)
        }
        reader::Opened::File(file, rules) => {
            reader::visit_file(file, rules, &mut Vec::new(), None, &mut visit)
        }
    };
    if let reader::Ended::Skip(reason, detail) = ended {
        let input = SkippedInput::new(path, reason);
        collector.skip(match detail {
            Some(detail) => input.with_detail(detail),
            None => input,
        });
        return;
    }
    for line in held {
        if collector.offer(line).is_break() {
            return;
        }
    }
    if let Some(budget) = stopped_by {
        collector.stop_with(crate::Completeness::TruncatedByBudget {
            budget,
            clamp: None,
        });
    }
}

fn excerpt_impl(
    source: &impl Source,
    excerpt: &Excerpt,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Line>, Error> {
    let (first, last) = excerpt.lines();
    if first == 0 {
        return Err(Error::invalid_argument("lines", "line numbers start at 1"));
    }
    if first > last {
        return Err(Error::invalid_argument(
            "lines",
            format!("the range {first}..={last} is empty: its start is after its end"),
        ));
    }
    let resolved = named_file(source, excerpt.path())?;
    let fingerprint = crate::Fingerprint::of(&(
        "excerpt",
        &resolved.path,
        first,
        last,
        excerpt.max_columns,
        source.fingerprint(),
    ));
    let scope = scope_of(source, fingerprint);
    let after = match cursor {
        Some(c) => {
            let after: u64 = scope.resume(c)?;
            if after < first || after >= last {
                return Err(Error::cursor_out_of_range(format!(
                    "it resumes after line {after}, outside the excerpt {first}..={last}"
                )));
            }
            Some(after)
        }
        None => None,
    };
    let mut collector: Collector<Line> = Collector::resuming(limits, cursor);
    let begin = after.map_or(first, |a| a + 1);
    if limits.max_files == Some(0) {
        // Nothing is read.
        collector.stop_with(crate::Completeness::TruncatedByBudget {
            budget: crate::Budget::new(crate::BudgetKind::Files, 0, 0),
            clamp: None,
        });
    } else {
        read_excerpt(
            source,
            &resolved.path,
            excerpt,
            begin,
            limits,
            &mut collector,
        );
    }
    collector.finish(
        |kept| kept.last().map(|l| scope.cursor(&l.line_number)),
        None,
        limits.strict,
    )
}
