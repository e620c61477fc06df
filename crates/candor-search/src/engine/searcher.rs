//! The per-file searcher: one file, opened when the budgets allow it,
//! read chunk by chunk from the plan's start in it (its chunks searched
//! by `scan.rs`), and its outcome; a file with many matching lines in
//! parts, each outcome saying where the next goes on.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::ControlFlow;

use crate::engine::hits::Hits;
use crate::engine::outcome::{AsText, FileOutcome, Unfinished};
use crate::engine::scan::FileScan;
use crate::engine::search::QuerySearch;
use crate::matcher::Matcher;
use crate::position::Place;
use crate::reader::{
    BLOCK, Ended, FileRead, Known, Opened, Piece, ReadRules, bom_len, skipped, visit_memory,
};
use crate::{Error, ErrorKind, SkipReason, SkippedInput};

/// Searches one file from the plan's start in it (a line start), opening
/// it with `open` unless no file may be read (`max_files(0)`: its place
/// is then handed on unread, and the result stage stops there), reading
/// it through `buffer` chunk by chunk (see `reader.rs`): from its start,
/// or from the plan's start when the cursor knows the line number there
/// (the file is unchanged since: its stamp says so).
///
/// The binary rule is the same in every mode and with any thread count
/// (see `reader.rs`): a NUL byte near the start makes the whole file
/// binary, one further in ends its search at the start of its line. A
/// file the caller named (`Plan::names`) is read as text instead, as
/// ripgrep reads a file named on its command line: its outcome then
/// carries the record that says it is binary (`AsText`), where its
/// first NUL is. A file whose lines are no longer needed (past the cap,
/// or one found for `Any`) is read no further, once its start was
/// checked for the rule.
/// Its matching lines are handed on in parts of `PART_LINES`: an outcome
/// with `more` is one part, and `search_more` goes on with the file.
///
/// `matcher` is the plan's, or a clone of it: each thread searching with
/// its own clone avoids contention on the regex engine's shared caches.
pub(crate) fn search_file<'p, 'o>(
    search: &QuerySearch<'_>,
    matcher: &Matcher,
    path: &'p str,
    open: impl FnOnce() -> Opened<'o>,
    buffer: &mut Vec<u8>,
) -> FileOutcome<'p> {
    search_path(search, matcher, Cow::Borrowed(path), |_| open(), buffer)
}

/// `search_file` for a path the caller gives up (a tree's walk makes one
/// for each file): the outcome, which crosses threads, owns it without a
/// copy. `open` is given the path.
#[cfg(feature = "tree")]
pub(crate) fn search_owned<'o>(
    search: &QuerySearch<'_>,
    matcher: &Matcher,
    path: String,
    open: impl FnOnce(&str) -> Opened<'o>,
    buffer: &mut Vec<u8>,
) -> FileOutcome<'static> {
    search_path(search, matcher, Cow::Owned(path), open, buffer)
}

/// `search_file`, the path borrowed or owned.
fn search_path<'p, 'o>(
    search: &QuerySearch<'_>,
    matcher: &Matcher,
    path: Cow<'p, str>,
    open: impl FnOnce(&str) -> Opened<'o>,
    buffer: &mut Vec<u8>,
) -> FileOutcome<'p> {
    if search.budgets.refuses_files() {
        return FileOutcome::searched(path, 0, Hits::Count(0));
    }
    let start = match search.plan.start_in(&path) {
        Place::Line { offset, .. } => offset,
        // Resuming after the whole file: nothing of it is left to search.
        Place::End => {
            return match open(&path) {
                Opened::Skip(input) => FileOutcome::Skipped(input),
                _ => FileOutcome::searched(path, 0, FileScan::new(search, matcher, 0).finish()),
            };
        }
    };
    // A page resumed inside the file reads it from there.
    let (from, line_number) = search.plan.read_from(&path).unwrap_or((0, 1));
    let named = search.plan.names(&path);
    let reading = match open(&path) {
        Opened::Skip(input) => return FileOutcome::Skipped(input),
        Opened::Memory(bytes, known) => {
            if start == 0 && holds_no_match(matcher, bytes, known) {
                return FileOutcome::searched(
                    path,
                    bytes.len() as u64,
                    FileScan::new(search, matcher, 0).finish(),
                );
            }
            let at = usize::try_from(from).unwrap_or(usize::MAX);
            Reading::Memory(bytes, known, at)
        }
        Opened::File(file, rules) => {
            let rules = ReadRules {
                as_text: named,
                ..rules
            };
            match FileRead::open(file, rules) {
                Ok(mut read) => {
                    // The cursor's stamp was checked against the file's
                    // name; the file opened may have changed since: its
                    // offset would then point into other text.
                    if let Some(error) = changed_since_cursor(search, &path, start, &read) {
                        return FileOutcome::Failed(error);
                    }
                    read.resume_at(from);
                    Reading::File(read)
                }
                Err((reason, detail)) => {
                    return FileOutcome::Skipped(skipped(&path, reason, detail));
                }
            }
        }
    };
    let mut scan = FileScan::new(search, matcher, start);
    scan.line_number = line_number;
    search_part(scan, path, reading, from, named, buffer)
}

/// The error for a search that resumes inside the file at `path` (at
/// `start`, past its first byte) opened as `read`, when the file opened
/// is not the version the cursor was issued for: its stamp differs from
/// the cursor's.
fn changed_since_cursor(
    search: &QuerySearch<'_>,
    path: &str,
    start: u64,
    read: &FileRead,
) -> Option<Error> {
    let cursor = search.plan.start.as_ref().filter(|_| start > 0)?;
    let now = read.stamp();
    if cursor.path != path || now == cursor.stamp {
        return None;
    }
    Some(
        ErrorKind::StaleCursor {
            cursor_generation: cursor.stamp.unwrap_or(0),
            current_generation: now.unwrap_or(0),
        }
        .into(),
    )
}

/// Returns true when a document in memory is known, from one scan, to
/// hold no matching line: most documents of a selective query hold none,
/// and their outcome is then known without the line-by-line machinery.
/// Only for a text document of one block, searched from its start, where
/// nothing else (the binary rule, a budget checked between blocks) could
/// change that outcome.
fn holds_no_match(matcher: &Matcher, bytes: &[u8], known: Known) -> bool {
    known.first_nul.is_none()
        && known.utf8
        && bytes.len() <= BLOCK
        && matcher.next_line(&bytes[bom_len(bytes, 0)..], 0).is_none()
}

/// Goes on with a file's search after one part of it. `reopen` gives a
/// document's bytes again.
pub(crate) fn search_more<'r>(
    search: &QuerySearch<'_>,
    matcher: &Matcher,
    more: Unfinished,
    reopen: impl FnOnce(&str) -> Opened<'r>,
    buffer: &mut Vec<u8>,
) -> FileOutcome<'static> {
    let Unfinished {
        path,
        at,
        line_number,
        listed,
        start,
        read,
        named,
    } = more;
    let reading = match read {
        Some(mut read) => {
            read.resume_at(at);
            Reading::File(read)
        }
        None => match reopen(&path) {
            Opened::Memory(bytes, known) => {
                Reading::Memory(bytes, known, usize::try_from(at).unwrap_or(usize::MAX))
            }
            // A document's corpus gives its bytes; only a bug gets here.
            _ => {
                return FileOutcome::Skipped(SkippedInput::new(path, SkipReason::Vanished));
            }
        },
    };
    let mut scan = FileScan::new(search, matcher, start);
    scan.line_number = line_number;
    scan.listed = listed;
    scan.first = false;
    let mut outcome = search_part(scan, Cow::Owned(path), reading, at, named, buffer);
    if let FileOutcome::Searched { continued, .. } = &mut outcome {
        *continued = true;
    }
    outcome
}

/// How a file's bytes are read.
enum Reading<'b> {
    /// A document's bytes, and where to go on from.
    Memory(&'b [u8], Known, usize),
    File(FileRead),
}

/// Searches a file from `begin` (its start, or where its last part ended)
/// until its end, a stop, or a part's worth of lines; `named`, as text.
fn search_part<'p>(
    mut scan: FileScan<'_, '_>,
    path: Cow<'p, str>,
    reading: Reading<'_>,
    begin: u64,
    named: bool,
    buffer: &mut Vec<u8>,
) -> FileOutcome<'p> {
    let start = scan.start;
    let mut first_nul = None;
    if let Reading::Memory(bytes, known, _) = &reading {
        scan.utf8 = known.utf8;
        if named {
            first_nul = known.first_nul_line(bytes);
        }
    }
    let (ended, mut read) = match reading {
        Reading::Memory(bytes, known, from) => {
            let mut visit = |chunk: &[u8], base: u64, last: bool| scan.visit(chunk, base, last);
            (
                visit_memory(bytes, known, BLOCK, from, named, &mut visit),
                None,
            )
        }
        // A line too long to hold whole is taken in pieces when the scan
        // can show it from them (see `long_line.rs`).
        Reading::File(mut read) if scan.takes_pieces(read.max_line()) => {
            let scan = RefCell::new(&mut scan);
            let mut visit =
                |chunk: &[u8], base: u64, last: bool| scan.borrow_mut().visit(chunk, base, last);
            let mut pieces = |piece: Piece<'_>| scan.borrow_mut().piece(piece);
            let ended = read.visit_in_pieces(buffer, &mut visit, Some(&mut pieces));
            (ended, Some(read))
        }
        Reading::File(mut read) => {
            let mut visit = |chunk: &[u8], base: u64, last: bool| scan.visit(chunk, base, last);
            (read.visit(buffer, &mut visit), Some(read))
        }
    };
    if scan.bad_start {
        return FileOutcome::Failed(Error::cursor_out_of_range(format!(
            "offset {start} is not the start of a line of {path:?}"
        )));
    }
    if let Some(read) = &read {
        first_nul = read.first_nul();
    }
    let begin = begin.max(start);
    // The record that the named file is binary, with the part whose
    // lines hold its first NUL's line (`begin` to `end`), and only
    // from the query's start on (an earlier page told it before). One
    // whose lines are not listed is told with its one outcome.
    let lists = scan.lists_lines();
    let as_text = |end: u64| {
        first_nul
            .filter(|n| n.line_start >= begin && (!lists || n.line_start < end))
            .map(|n| {
                Box::new(AsText {
                    line_start: n.line_start,
                    input: n.searched_as_text(&path),
                })
            })
    };
    let ended_whole = matches!(ended, Ended::Whole(_));
    let (end, stopped_at, tail) = match ended {
        Ended::Skip(reason, detail) => {
            return FileOutcome::Skipped(skipped(&path, reason, detail));
        }
        Ended::Whole(len) => {
            if start > len {
                return FileOutcome::Failed(Error::cursor_out_of_range(format!(
                    "offset {start} is not the start of a line of {path:?} ({len} bytes)"
                )));
            }
            (len, None, None)
        }
        Ended::Stopped(at) => match scan.paused {
            Some(paused) => {
                // A page may end in the part: its cursor records the stamp.
                let stamp = read.as_ref().and_then(FileRead::stamp);
                let more = Unfinished {
                    path: path.clone().into_owned(),
                    at: paused,
                    line_number: scan.line_number,
                    listed: scan.listed + scan.items.len(),
                    start,
                    read: read.take(),
                    named,
                };
                return FileOutcome::Searched {
                    scanned: paused.saturating_sub(begin),
                    hits: scan.finish(),
                    as_text: as_text(paused),
                    path,
                    stopped_at: None,
                    tail: None,
                    more: Some(Box::new(more)),
                    continued: false,
                    stamp,
                };
            }
            // Nothing more of the file was wanted: it was searched as far
            // as it was read.
            None if scan.done => (at, None, None),
            None => (at, Some(Place::line(at, scan.line_number)), None),
        },
        Ended::Cut { at, reason, detail } => (
            at,
            None,
            Some(Box::new(skipped(&path, reason, Some(detail)))),
        ),
    };
    // A whole file's lines hold every line; a search stopped or cut at
    // `end` holds those before it.
    let as_text = as_text(if ended_whole { u64::MAX } else { end });
    let hits = scan.finish();
    // Only where a page may end in the file is its stamp needed: most
    // files of a search yield nothing.
    let stamp = if hits.matching_lines() > 0 || stopped_at.is_some() {
        read.as_ref().and_then(FileRead::stamp)
    } else {
        None
    };
    FileOutcome::Searched {
        scanned: end.saturating_sub(begin),
        hits,
        as_text,
        path,
        stopped_at,
        tail,
        more: None,
        continued: false,
        stamp,
    }
}

/// The outcome of a whole file of `len` bytes that its corpus knows holds
/// no matching line (see `Entry::NoMatch`): what `search_file` would give
/// it, without reading it.
pub(crate) fn no_match<'p>(search: &QuerySearch<'_>, path: &'p str, len: u64) -> FileOutcome<'p> {
    let scanned = if search.budgets.refuses_files() {
        0
    } else {
        len
    };
    FileOutcome::searched(
        Cow::Borrowed(path),
        scanned,
        FileScan::new(search, search.plan.matcher, 0).finish(),
    )
}

/// A file searched only in some of its parts, when its corpus knows that
/// every line of it that may match lies in them (an index whose blocks
/// hold whole lines): what `search_file` gives it, for a search that
/// lists no lines (it counts them, or asks whether one matches), which no
/// budget stops inside a file, the parts read as the corpus gives
/// them. The corpus must know the file is plain text as a whole (no NUL
/// byte, no byte-order mark, no line too long to hold), as the reader
/// would have found it.
#[cfg_attr(not(feature = "index"), allow(dead_code))]
pub(crate) struct PartsScan<'p, 'm> {
    scan: FileScan<'p, 'm>,
    path: &'p str,
}

#[cfg_attr(not(feature = "index"), allow(dead_code))]
impl<'p, 'm> PartsScan<'p, 'm> {
    /// A scan of the file at `path`, or `None` when this search needs the
    /// whole file: it lists lines (their numbers count every line before
    /// them), or may read no file.
    pub(crate) fn new(
        search: &'p QuerySearch<'p>,
        matcher: &'m Matcher,
        path: &'p str,
    ) -> Option<PartsScan<'p, 'm>> {
        // A search that lists no lines is never stopped inside a file by
        // a budget (the reader checks them only while it lists lines), so
        // reading some parts gives what reading all would.
        if search.budgets.refuses_files() {
            return None;
        }
        let scan = FileScan::new(search, matcher, 0);
        (!scan.lists_lines()).then_some(PartsScan { scan, path })
    }

    /// Searches one part: whole lines at offset `at` of the file, `last`
    /// when it ends the file. `Break` when nothing more of the file is
    /// wanted.
    pub(crate) fn visit(&mut self, part: &[u8], at: u64, last: bool) -> ControlFlow<()> {
        self.scan.visit(part, at, last)
    }

    /// The file's outcome: searched whole, `len` bytes scanned.
    pub(crate) fn finish(self, len: u64) -> FileOutcome<'p> {
        FileOutcome::searched(Cow::Borrowed(self.path), len, self.scan.finish())
    }
}
