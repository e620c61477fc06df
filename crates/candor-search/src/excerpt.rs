//! Excerpts: which lines of which file an excerpt names, and how they are
//! read: through the bounded reader, only as far as the last line wanted,
//! under the read policy, the scanned-bytes budget and the deadline.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::ops::RangeInclusive;

use crate::Error;
use crate::engine::{Budgets, LongLine, Tally, show};
use crate::reader::{self, BLOCK, Ended, FileRead, Opened, Piece, Pieces, ReadRules};
use crate::run;
use crate::source::Source;
use crate::{Bounded, Budget, BudgetKind, Completeness, Cursor, Fingerprint, Limits, Total};
use crate::{Line, lines};
use candor::collector::Collector;

/// Which lines of which file an [`excerpt`](crate::Corpus::excerpt) returns.
///
/// # Example
///
/// ```
/// let e = candor_search::Excerpt::new("src/lib.rs", 10..=20).max_columns(200);
/// assert_eq!(e.get_path(), "src/lib.rs");
/// assert_eq!(e.get_lines(), 10..=20);
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
    /// let e = candor_search::Excerpt::new("a.txt", 1..=1);
    /// assert_eq!(e.get_lines(), 1..=1);
    /// ```
    #[must_use]
    pub fn new(path: impl Into<String>, lines: RangeInclusive<u64>) -> Excerpt {
        Excerpt {
            path: path.into(),
            first: *lines.start(),
            last: *lines.end(),
            max_columns: None,
        }
    }

    /// Cuts lines longer than `max_columns` bytes, and marks them as cut.
    /// Default: no cut. A limit of 0 is refused when the excerpt is read
    /// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)).
    /// With a cut, a line on disk longer than the long-line cap (16 MiB)
    /// is read in pieces and returned cut, its first `max_columns` bytes
    /// kept, rather than ending the excerpt as `long_line`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, Excerpt, Limits};
    /// let long = "y".repeat(200);
    /// let docs = Documents::new().with("a.txt", format!("short\n{long}\n"));
    /// let e = Excerpt::new("a.txt", 1..=2).max_columns(80);
    /// let lines = docs.excerpt(&e, &Limits::new(), None)?;
    /// assert!(lines.items()[0].line_cut.is_none());
    /// assert_eq!(lines.items()[1].line.len(), 80);
    /// assert_eq!(lines.items()[1].line_cut.map(|c| c.original_bytes), Some(200));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn max_columns(mut self, max_columns: usize) -> Excerpt {
        self.max_columns = Some(max_columns);
        self
    }

    /// The file's path, as [`new`](Self::new) was given it.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_search::Excerpt::new("a.txt", 1..=2).get_path(), "a.txt");
    /// ```
    #[must_use]
    pub fn get_path(&self) -> &str {
        &self.path
    }

    /// The lines, 1-based, inclusive, as [`new`](Self::new) was given
    /// them.
    ///
    /// # Example
    ///
    /// ```
    /// let e = candor_search::Excerpt::new("a.txt", 3..=9);
    /// assert_eq!(e.get_lines(), 3..=9);
    /// assert_eq!(e.get_lines().count(), 7);
    /// ```
    #[must_use]
    pub fn get_lines(&self) -> RangeInclusive<u64> {
        self.first..=self.last
    }
}

/// Reads the lines of an excerpt from `begin` into `collector`, through
/// the bounded reader: only as far as the last line wanted (or the limit's
/// probe), under the size limit, the binary rule, the scanned-bytes
/// budget and the deadline.
///
/// The caller named the file, so it is read as text whatever NUL bytes it
/// holds, as ripgrep reads a file named on its command line: its lines
/// are returned, and the excerpt says the file is binary
/// (`binary_as_text`, policy) before the line of its first NUL, or before
/// its first line when that NUL comes earlier (on the first page only).
/// A NUL past the last line wanted is not looked for.
fn read_excerpt(
    source: &impl Source,
    path: &str,
    excerpt: &Excerpt,
    begin: u64,
    limits: &Limits,
    budgets: &Budgets,
    collector: &mut Collector<Line>,
) -> (Option<Total>, Option<u64>) {
    // The file's stamp as it was opened, the version whose lines are
    // read; `None` for a document (its corpus tells its stamp).
    let mut stamp = None;
    // The lines wanted: up to `last`, and no more than the limit's probe;
    // with an exact total asked for, the lines past the probe up to
    // `last` are counted (not kept), within the count budget.
    let limit = limits.applied_limit().limit();
    let held_last = limit.map_or(excerpt.last, |l| {
        excerpt.last.min(begin.saturating_add(l as u64))
    });
    let counting = limits.get_count_total();
    let mut excerpt_lines = ExcerptLines {
        excerpt,
        budgets,
        begin,
        held_last,
        last: if counting { excerpt.last } else { held_last },
        count_budget: limits.get_max_counted().unwrap_or(u64::MAX),
        held: Vec::new(),
        line_number: 0,
        stopped_by: None,
        count_ended: false,
        long: None,
    };
    let mut step = |step: Step<'_>| excerpt_lines.step(step);
    let mut first_nul = None;
    let ended = match source.open(path) {
        // The caller named this file: any skip of it, policy or error,
        // leaves the excerpt incomplete.
        Opened::Skip(input) => {
            collector.skip(input.named());
            return (None, stamp);
        }
        Opened::Memory(bytes, known) => {
            first_nul = known.first_nul_line(bytes);
            let mut visit =
                |chunk: &[u8], base: u64, is_last: bool| step(Step::Chunk(chunk, base, is_last));
            reader::visit_memory(bytes, known, BLOCK, 0, true, &mut visit)
        }
        Opened::File(file, rules) => {
            let rules = ReadRules {
                as_text: true,
                ..rules
            };
            match FileRead::open(file, rules) {
                Ok(mut read) => {
                    stamp = read.stamp();
                    let step = RefCell::new(step);
                    let mut visit = |chunk: &[u8], base: u64, is_last: bool| {
                        (step.borrow_mut())(Step::Chunk(chunk, base, is_last))
                    };
                    let mut pieces = |piece: Piece<'_>| (step.borrow_mut())(Step::Piece(piece));
                    // With a column window narrower than a line too long to
                    // hold, such a line is read in pieces and shown cut.
                    let in_pieces = excerpt.max_columns.is_some_and(|max| max < read.max_line());
                    let pieces: Option<&mut Pieces<'_>> = in_pieces.then_some(&mut pieces);
                    let ended = read.visit_in_pieces(&mut Vec::new(), &mut visit, pieces);
                    first_nul = read.first_nul();
                    ended
                }
                Err((reason, detail)) => Ended::Skip(reason, detail),
            }
        }
    };
    let ExcerptLines {
        held,
        line_number,
        last,
        stopped_by,
        count_ended,
        ..
    } = excerpt_lines;
    let whole = matches!(ended, Ended::Whole(_)) || line_number >= last;
    let tail = match ended {
        Ended::Skip(reason, detail) => {
            collector.skip(reader::skipped(path, reason, detail).named());
            return (None, stamp);
        }
        // The lines before the cut are the file's; the rest was not read.
        Ended::Cut { reason, detail, .. } => Some(reader::skipped(path, reason, Some(detail))),
        Ended::Whole(_) | Ended::Stopped(_) => None,
    };
    let lines_from_begin = line_number.saturating_sub(begin - 1);
    // Where the file's first NUL is among the lines held: before the line
    // that holds it, or before the first line when it comes earlier (on
    // the first page: a later one resumes past it). Past the lines held,
    // a later page tells it, or it is past the excerpt.
    let mut as_text = first_nul.and_then(|n| {
        let at = held.partition_point(|l| l.byte_offset <= n.nul);
        let told = if at == 0 {
            (begin == excerpt.first).then_some(0)
        } else if at < held.len() || n.line_start <= held[at - 1].byte_offset {
            Some(at - 1)
        } else {
            None
        };
        told.map(|at| (at, n.searched_as_text(path)))
    });
    let mut full = false;
    for (i, line) in held.into_iter().enumerate() {
        if let Some((_, input)) = as_text.take_if(|(at, _)| *at == i) {
            collector.skip(input);
        }
        if collector.offer(line).is_break() {
            full = true;
            break;
        }
    }
    if let Some((_, input)) = as_text.filter(|_| !full) {
        collector.skip(input);
    }
    if let Some(tail) = tail {
        collector.skip(tail.named());
    }
    if let (false, Some(budget)) = (full, stopped_by) {
        collector.stop_with(Completeness::TruncatedByBudget {
            budget,
            clamp: None,
        });
    }
    // The lines from `begin` on, counted to the end of the excerpt (or of
    // the file) unless something ended the count first.
    let total = counting.then(|| {
        if whole && !count_ended && stopped_by.is_none() {
            Total::Exact(lines_from_begin)
        } else {
            Total::AtLeast(lines_from_begin)
        }
    });
    (total, stamp)
}

/// The lines of an excerpt as the reader hands them on: from `begin`,
/// held up to `held_last`, then counted (not kept) up to `last`, within
/// the count budget; and why the read stopped, if it did.
struct ExcerptLines<'e> {
    excerpt: &'e Excerpt,
    budgets: &'e Budgets,
    begin: u64,
    held_last: u64,
    last: u64,
    count_budget: u64,
    held: Vec<Line>,
    /// The lines read so far.
    line_number: u64,
    /// The budget that stopped the read inside the file.
    stopped_by: Option<Budget>,
    /// The count budget ended the count.
    count_ended: bool,
    /// A line too long to hold whole, as its pieces come (see
    /// `reader::Piece`): its first `max_columns` bytes are shown.
    long: Option<LongLine>,
}

impl ExcerptLines<'_> {
    /// Takes what the reader hands on; `Break` once no more of the file
    /// is needed, or a budget stopped the read.
    fn step(&mut self, step: Step<'_>) -> ControlFlow<()> {
        match step {
            Step::Chunk(chunk, base, is_last) => self.chunk(chunk, base, is_last),
            Step::Piece(piece) => self.piece(piece),
        }
    }

    /// A piece of a long line: the line is held (its first columns) or
    /// counted once its last piece comes.
    fn piece(&mut self, piece: Piece<'_>) -> ControlFlow<()> {
        let max = self.excerpt.max_columns.unwrap_or(usize::MAX);
        let line = match &mut self.long {
            Some(line) if line.start == piece.line_start => line,
            _ => self
                .long
                .insert(LongLine::new(piece.line_start, max, None, false)),
        };
        line.feed(None, piece.bytes, piece.line_ends);
        if !piece.line_ends || self.line_number >= self.last {
            return ControlFlow::Continue(());
        }
        if self.line_number >= self.held_last {
            if self.line_number - self.begin + 1 >= self.count_budget {
                self.count_ended = true;
                return ControlFlow::Break(());
            }
            self.line_number += 1;
        } else {
            self.line_number += 1;
            if self.line_number >= self.begin {
                let mut text = String::new();
                let line_cut = line.show(&mut text, &mut Vec::new());
                self.held.push(Line {
                    line_number: self.line_number,
                    byte_offset: piece.line_start,
                    line: text,
                    line_cut,
                });
            }
        }
        if self.line_number >= self.last {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// A chunk of whole lines at `base`, the file's last when `is_last`:
    /// each line held or counted, then the scan budget charged.
    fn chunk(&mut self, chunk: &[u8], base: u64, is_last: bool) -> ControlFlow<()> {
        let mut at = 0usize;
        while at < chunk.len() && self.line_number < self.last {
            let line = lines::at(chunk, at);
            if self.line_number >= self.held_last {
                // Counted only: the line exists, and is not kept.
                if self.line_number - self.begin + 1 >= self.count_budget {
                    self.count_ended = true;
                    return ControlFlow::Break(());
                }
                self.line_number += 1;
                at = line.end + 1;
                continue;
            }
            self.line_number += 1;
            if self.line_number >= self.begin {
                let mut text = String::new();
                let line_cut = show(
                    &chunk[line.start..line.content_end],
                    &[],
                    self.excerpt.max_columns,
                    &mut text,
                    &mut Vec::new(),
                );
                self.held.push(Line {
                    line_number: self.line_number,
                    byte_offset: base + at as u64,
                    line: text,
                    line_cut,
                });
            }
            at = line.end + 1;
        }
        if self.line_number >= self.last {
            // Every line wanted is read: no more of the file is needed.
            return ControlFlow::Break(());
        }
        if is_last {
            // The file (or the part before its NUL) ends here: the read
            // reports how, a cut included.
            return ControlFlow::Continue(());
        }
        // Scanned: from the first line returned, so that a resumed page
        // advances; and a page holds at least one line.
        let read = self
            .held
            .first()
            .map_or(0, |l| base + chunk.len() as u64 - l.byte_offset);
        match self.budgets.spent_inside_file(read) {
            // The deadline stops a page only once it holds a line.
            Some(budget) if budget.kind() == BudgetKind::ScannedBytes || !self.held.is_empty() => {
                self.stopped_by = Some(budget);
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

/// What the reader hands an excerpt: a chunk of whole lines (its offset
/// in the file, and whether it is the last), or a piece of a long line.
enum Step<'a> {
    Chunk(&'a [u8], u64, bool),
    Piece(Piece<'a>),
}

pub(crate) fn excerpt(
    source: &impl Source,
    excerpt: &Excerpt,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Line>, Error> {
    let (first, last) = (excerpt.first, excerpt.last);
    run::no_empty_window(excerpt.max_columns)?;
    if first == 0 {
        return Err(Error::invalid_argument("lines", "line numbers start at 1"));
    }
    if first > last {
        return Err(Error::invalid_argument(
            "lines",
            format!("the range {first}..={last} is empty: its start is after its end"),
        ));
    }
    let resolved = source.resolve_file(excerpt.get_path())?;
    let fingerprint = Fingerprint::of(&(
        "excerpt",
        &resolved.path,
        first,
        last,
        excerpt.max_columns,
        source.fingerprint(),
    ));
    let scope = source.scope(fingerprint);
    // A cursor records the line it resumes after, and the stamp of the
    // file whose lines it counted (0: none told).
    let after = match cursor {
        Some(c) => {
            let (after, stamp): (u64, u64) = source.resume_scope(scope, c).resume(c)?;
            if after < first || after >= last {
                return Err(Error::cursor_out_of_range(format!(
                    "it resumes after line {after}, outside the excerpt {first}..={last}"
                )));
            }
            Some((after, stamp))
        }
        None => None,
    };
    let mut collector: Collector<Line> = Collector::resuming(limits, cursor);
    let begin = after.map_or(first, |(a, _)| a + 1);
    let budgets = Budgets::new(limits);
    // The excerpt reads one file, under the same budgets as a search: the
    // one refusal before it is `max_files(0)`.
    let refused = budgets.spent_before_file(&Tally::default(), true, || None);
    let (counted, stamp) = match refused {
        Some(budget) => {
            collector.stop_with(Completeness::TruncatedByBudget {
                budget,
                clamp: None,
            });
            (None, None)
        }
        None => read_excerpt(
            source,
            &resolved.path,
            excerpt,
            begin,
            limits,
            &budgets,
            &mut collector,
        ),
    };
    // The file changed since the page the cursor ends: its line numbers
    // may name other text now, and lines would be shown twice or missed.
    let stamp = stamp.or_else(|| source.stamp(&resolved.path)).unwrap_or(0);
    if let Some((_, recorded)) = after.filter(|(_, recorded)| *recorded != stamp) {
        return Err(crate::ErrorKind::StaleCursor {
            cursor_generation: recorded,
            current_generation: stamp,
        }
        .into());
    }
    collector.finish(
        |kept| {
            kept.last()
                .map(|l| scope.cursor(&(l.line_number, stamp), 0))
        },
        counted,
    )
}
