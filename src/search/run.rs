//! The query runner: compiles a query, resolves its path filters and
//! cursor, plans the per-file work, asks the corpus for its files'
//! outcomes in path order and hands each to the result stage. Every query
//! of the `Corpus` trait but `excerpt` runs here.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Error;
use std::ops::ControlFlow;

use crate::search::engine::{self, Deadline, FileOutcome, Plan, Refusal, ResultStage, Sink};
use crate::search::item::Item;
use crate::search::matcher::Matcher;
use crate::search::operation::{COUNT, FILES, FIND_IN_FILE, Operation, SEARCH};
use crate::search::source::Source;
use crate::search::{FileCount, Match, Query, path};
use crate::{Bounded, Cursor, Limits, Scope, StreamError, Streamed};

/// Runs one query over `source`.
/// With `only`, searches that one file (a resolved path) and nothing
/// else, whatever the walk's rules would say of it.
fn run_query<S: Source, T: Item>(
    source: &S,
    operation: Operation<T>,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    stream: Option<&mut Sink<'_, T>>,
    only: Option<&str>,
) -> Result<Outcome<T>, Error> {
    let Operation {
        name: operation,
        mode,
        to_items,
    } = operation;
    no_empty_window(query.get_max_columns())?;
    let matcher = Matcher::new(query)?;
    // A named path that cannot be searched (missing, say) is no error: the
    // corpus counts it in `skipped`, as an input the caller asked for, and
    // searches the others. It stays a filter, so it never widens the query.
    let mut filters = query
        .get_paths()
        .iter()
        .map(|p| source.filter_path(p))
        .collect::<Result<Vec<_>, _>>()?;
    filters.sort_by(|a, b| path::cmp_paths(a, b));
    filters.dedup();
    if filters.iter().any(String::is_empty) {
        filters.clear();
    }
    let scope = source.scope(query.scoped_fingerprint(operation, source.fingerprint()));
    let (start, start_line) = match cursor {
        Some(c) => {
            let (path, offset, line) = resume_point(source, &scope, c)?;
            (Some((path, offset)), line)
        }
        None => (None, None),
    };
    let limit = limits.applied_limit().limit();
    let plan = Plan {
        query,
        matcher: &matcher,
        mode,
        cap: limit.map(|l| l.saturating_add(1)),
        count_rest: limits.count_total,
        max_columns: query.get_max_columns(),
        start: start.clone(),
        start_line,
        filters,
        counting_only: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        deadline: Deadline::of(limits),
        max_scanned_bytes: limits.max_scanned_bytes,
        reads_nothing: limits.max_files == Some(0),
        spares: engine::Spares::default(),
    };
    let streaming = stream.is_some();
    let mut stage = match stream {
        Some(sink) => {
            if limits.max_bytes.is_some() {
                return Err(Error::invalid_argument(
                    "max_bytes",
                    "a stream writes no response to bound; use search for a byte budget",
                ));
            }
            ResultStage::streaming(limits, mode, cursor, start, sink)
        }
        None => ResultStage::new(limits, mode, cursor, start),
    };
    // The buffer of the files this thread goes on with.
    let mut buffer = Vec::new();
    let mut take = |mut outcome: FileOutcome<'_>| {
        // A file with many matching lines comes in parts: each is taken
        // before the next is searched, here, so that one file's lines are
        // never held whole.
        loop {
            let more = outcome.take_more();
            let flow = stage.take(&plan, outcome, to_items);
            if flow.is_break() {
                plan.stop.store(true, Ordering::Relaxed);
                return flow;
            }
            match more {
                Some(more) => {
                    let (path, at, line) = more.goes_on_at();
                    let flow = stage.between_parts(path, at, line);
                    if flow.is_break() {
                        plan.stop.store(true, Ordering::Relaxed);
                        return flow;
                    }
                    let open = |path: &str| source.open(path);
                    outcome = engine::search_more(&plan, plan.matcher, *more, open, &mut buffer);
                }
                None => return flow,
            }
        }
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
        stage
            .finish_stream(&scope, &|path| source.stamp(path))
            .map(Outcome::Streamed)
    } else {
        stage
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
/// refused as stale. The line number at the offset, when the cursor
/// knows it, lets the search start reading there.
fn resume_point(
    source: &impl Source,
    scope: &Scope,
    cursor: &Cursor,
) -> Result<(String, u64, Option<u64>), Error> {
    let position = engine::read_position(scope, cursor)?;
    source.check_position(&position.path)?;
    let now = source.stamp(&position.path);
    if now != position.stamp {
        return Err(crate::ErrorKind::StaleCursor {
            cursor_generation: position.stamp,
            current_generation: now,
        }
        .into());
    }
    Ok((position.path, position.offset, position.line))
}

pub(crate) fn search(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Match>, Error> {
    run_query(source, SEARCH, query, limits, cursor, None, None).map(Outcome::collected)
}

pub(crate) fn search_each(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    on_match: &mut dyn FnMut(&Match) -> ControlFlow<()>,
) -> Result<Streamed, Error> {
    // A stream resumes with the same cursors as the collected form.
    let mut sink = |m: &Match| on_match(m).map_break(|()| Refusal::After);
    run_query(source, SEARCH, query, limits, cursor, Some(&mut sink), None).map(Outcome::streamed)
}

pub(crate) fn try_search_each<E>(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    mut on_match: impl FnMut(&Match) -> Result<(), E>,
) -> Result<Streamed, StreamError<E>> {
    let mut failed = None;
    let mut sink = |m: &Match| match on_match(m) {
        Ok(()) => ControlFlow::Continue(()),
        Err(error) => {
            failed = Some(error);
            ControlFlow::Break(Refusal::Before)
        }
    };
    let end = run_query(source, SEARCH, query, limits, cursor, Some(&mut sink), None)
        .map(Outcome::streamed)?;
    match failed {
        Some(error) => Err(StreamError::Callback {
            end: Box::new(end),
            error,
        }),
        None => Ok(end),
    }
}

pub(crate) fn count_per_file(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<FileCount>, Error> {
    run_query(source, COUNT, query, limits, cursor, None, None).map(Outcome::collected)
}

pub(crate) fn files(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<String>, Error> {
    run_query(source, FILES, query, limits, cursor, None, None).map(Outcome::collected)
}

pub(crate) fn find_in_file(
    source: &impl Source,
    path: &str,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Match>, Error> {
    let resolved = source.resolve_file(path)?;
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

/// Refuses a column limit of 0: its window shows nothing of a line.
pub(crate) fn no_empty_window(max_columns: Option<usize>) -> Result<(), Error> {
    if max_columns == Some(0) {
        return Err(Error::invalid_argument(
            "max_columns",
            "must be at least 1: a window of 0 bytes shows nothing of a line",
        ));
    }
    Ok(())
}
