//! The query runner, in two steps: preparing a query (the matcher, the
//! path filters, the cursor's resume point: the plan) and driving it
//! (the corpus's outcomes in path order into the result stage), with two
//! entry points, `collect` and `stream`. Every query of the `Corpus`
//! trait but `excerpt` runs here.

use std::ops::ControlFlow;

use crate::Error;
use crate::engine::{
    Budgets, FileOutcome, Plan, QueryKind, QuerySearch, Receiver, Refusal, ResultStage, Spares,
    StampLookup, search_file, search_more,
};
use crate::matcher::Matcher;
use crate::operation::{CountPerFile, FilesWithMatches, FindInFile, LineSearch};
use crate::position::{Order, Position};
use crate::source::Source;
use crate::{AsOf, Bounded, Cursor, Limits, Scope, StreamError, Streamed};
use crate::{FileCount, Match, Query, path};

/// Which files a query searches.
#[derive(Clone, Copy)]
enum Files<'a> {
    /// The corpus's, in path order.
    All,
    /// One file (a resolved path) and nothing else, whatever the walk's
    /// rules would say of it.
    One(&'a str),
}

/// A query prepared to run over a source: its matcher, its path filters
/// and where it resumes, and the scope of its cursors.
struct Prepared<'s, S> {
    source: &'s S,
    /// The query, for a corpus that plans from its syntax (an index).
    query: Query,
    matcher: Matcher,
    max_columns: Option<usize>,
    filters: Vec<String>,
    start: Option<Position>,
    scope: Scope,
    /// What the answer is about, when the corpus trusts its record.
    as_of: Option<AsOf>,
}

/// Prepares `query` of kind `K` over `source`, resuming at `cursor`.
fn prepare<'s, S: Source, K: QueryKind>(
    source: &'s S,
    query: &Query,
    cursor: Option<&Cursor>,
) -> Result<Prepared<'s, S>, Error> {
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
    let scope = source.scope(query.scoped_fingerprint(K::NAME, source.fingerprint()));
    let start = match cursor {
        Some(c) => Some(resume_point(source, &source.resume_scope(scope, c), c)?),
        None => None,
    };
    Ok(Prepared {
        source,
        query: query.clone(),
        matcher,
        max_columns: query.get_max_columns(),
        filters,
        start,
        scope,
        as_of: source.as_of(),
    })
}

/// The stamps a source records in its cursors, and the files its walk
/// passes before them (none for a query of one file): counted on from
/// where the page began when it resumed a cursor that recorded them
/// (`check_order` found them unchanged), else from the start.
struct SourceStamps<'s, 'p, S> {
    source: &'s S,
    walk: Option<&'p Plan<'p>>,
}

impl<S: Source> StampLookup for SourceStamps<'_, '_, S> {
    fn stamp(&self, path: &str) -> Option<u64> {
        self.source.stamp(path)
    }

    fn order_before(&self, path: &str, through: bool) -> Option<Order> {
        // A walk that fails now ends no page: the cursor then records no
        // order, and a change before it goes unnoticed.
        let plan = self.walk?;
        let from = plan
            .start
            .as_ref()
            .and_then(|at| Some((at, at.order?)))
            .filter(|(at, _)| self.source.walk_order(&at.path, path).is_le());
        self.source.order_before(plan, from, path, through).ok()
    }
}

impl<S: Source> Prepared<'_, S> {
    /// The search of this query of kind `K` under `limits`: its plan, and
    /// its budgets from now on.
    fn search<K: QueryKind>(&self, limits: &Limits) -> QuerySearch<'_> {
        let limit = limits.applied_limit().limit();
        QuerySearch {
            plan: Plan {
                query: &self.query,
                matcher: &self.matcher,
                mode: K::MODE,
                cap: limit.map(|l| l.saturating_add(1)),
                count_rest: limits.get_count_total(),
                max_columns: self.max_columns,
                start: self.start.clone(),
                filters: self.filters.clone(),
            },
            budgets: Budgets::new(limits),
            spares: Spares::default(),
        }
    }

    /// Collects the items of a query of kind `K` over `files`.
    fn collect<K: QueryKind>(
        &self,
        limits: &Limits,
        cursor: Option<&Cursor>,
        files: Files<'_>,
    ) -> Result<Bounded<K::Item>, Error> {
        let search = self.search::<K>(limits);
        let stamps = self.stamps(&search.plan, files)?;
        let mut stage = ResultStage::<K>::new(&search, limits, cursor);
        stage.set_as_of(self.as_of);
        drive(self.source, &search, &mut stage, files)?;
        stage.finish(&self.scope, &stamps)
    }

    /// Streams the items of a query of kind `K` to `receiver`.
    fn stream<K: QueryKind>(
        &self,
        limits: &Limits,
        cursor: Option<&Cursor>,
        receiver: &mut Receiver<'_, K::Item>,
    ) -> Result<Streamed, Error> {
        if limits.get_max_bytes().is_some() {
            return Err(Error::invalid_argument(
                "max_bytes",
                "a stream writes no response to bound; use search for a byte budget",
            ));
        }
        let search = self.search::<K>(limits);
        let stamps = self.stamps(&search.plan, Files::All)?;
        let mut stage = ResultStage::<K>::streaming(&search, limits, cursor, receiver);
        stage.set_as_of(self.as_of);
        drive(self.source, &search, &mut stage, Files::All)?;
        stage.finish_stream(&self.scope, &stamps)
    }

    /// What the cursors of a query over `files` record, once the cursor
    /// it resumes is checked: the files the walk passes before them too,
    /// for a walk of the whole corpus (not one file) on a corpus without
    /// a generation (a tree, an index, documents given none); a corpus
    /// with one refuses a cursor of another generation already.
    fn stamps<'p>(
        &'p self,
        plan: &'p Plan<'p>,
        files: Files<'_>,
    ) -> Result<SourceStamps<'p, 'p, S>, Error> {
        let walks = matches!(files, Files::All) && self.source.generation().is_none();
        let walk = walks.then_some(plan);
        if let Some(plan) = walk {
            self.check_order(plan)?;
        }
        Ok(SourceStamps {
            source: self.source,
            walk,
        })
    }

    /// Refuses a cursor as stale when the files the walk passes before
    /// its position, and its own file if its page counted some of it, are
    /// not those it recorded (see `Source::order_before`): a file added
    /// there since would be missed, and one removed, or its own file gone
    /// from the walk, would leave the page's `start` and total wrong.
    fn check_order(&self, plan: &Plan<'_>) -> Result<(), Error> {
        let Some(start) = &self.start else {
            return Ok(());
        };
        let Some(recorded) = start.order else {
            return Ok(());
        };
        let through = start.place.is_past_start();
        let now = self.source.order_before(plan, None, &start.path, through)?;
        if now != recorded {
            return Err(crate::ErrorKind::StaleCursor {
                cursor_generation: recorded.0,
                current_generation: now.0,
            }
            .into());
        }
        Ok(())
    }
}

/// Checks a search cursor and gives its position: an input of the corpus,
/// as the corpus writes its path, and a place in it.
///
/// The position is not resolved as a caller's path would be: the corpus
/// resumes at it in its own order, whether or not that input still
/// exists, so every cursor issued resumes (one that names a skipped
/// folder or a broken link too). The input's stamp must be unchanged
/// when the cursor resumes inside it: an edit since the cursor was issued
/// would shift its offset, so it is refused as stale (one that resumes
/// after its end does not read it again, and one at its start read
/// nothing of it). The line number at the offset,
/// when the cursor knows it, lets the search start reading there.
fn resume_point(source: &impl Source, scope: &Scope, cursor: &Cursor) -> Result<Position, Error> {
    let position = Position::of_cursor(scope, cursor)?;
    source.check_position(&position.path)?;
    // Past the end of its input, a cursor resumes after it, whatever it
    // holds now: an agent may edit a file a page listed whole. At its
    // start (a budget stopped the page before the file was read, or the
    // receiver of a stream refused its first line), nothing of it was
    // read, and any version of it is read from there.
    if !position.place.is_inside() {
        return Ok(position);
    }
    let now = source.stamp(&position.path);
    if now != position.stamp {
        return Err(crate::ErrorKind::StaleCursor {
            cursor_generation: position.stamp.unwrap_or(0),
            current_generation: now.unwrap_or(0),
        }
        .into());
    }
    Ok(position)
}

/// Drives a prepared query: the files' outcomes, in path order, into
/// `stage`. A file with many matching lines comes in parts: each is taken
/// before the next is searched, here, so that one file's lines are never
/// held whole.
fn drive<S: Source, K: QueryKind>(
    source: &S,
    search: &QuerySearch<'_>,
    stage: &mut ResultStage<'_, K>,
    files: Files<'_>,
) -> Result<(), Error> {
    // The buffer of the files this thread goes on with.
    let mut buffer = Vec::new();
    let mut take = |mut outcome: FileOutcome<'_>| {
        loop {
            let more = outcome.take_more();
            let flow = stage.take(outcome, more.is_none());
            if flow.is_break() {
                search.budgets.stop();
                return flow;
            }
            match more {
                Some(more) => {
                    let (path, at) = more.goes_on_at();
                    let flow = stage.between_parts(path, at, more.stamp());
                    if flow.is_break() {
                        search.budgets.stop();
                        return flow;
                    }
                    let open = |path: &str| source.open(path);
                    outcome = search_more(search, search.plan.matcher, *more, open, &mut buffer);
                }
                None => return flow,
            }
        }
    };
    match files {
        Files::One(path) => {
            let outcome = search_file(
                search,
                search.plan.matcher,
                path,
                || source.open(path),
                &mut Vec::new(),
            );
            let _ = take(outcome);
            Ok(())
        }
        Files::All => source.run(search, &mut take),
    }
}
pub(crate) fn search(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<Match>, Error> {
    prepare::<_, LineSearch>(source, query, cursor)?.collect::<LineSearch>(
        limits,
        cursor,
        Files::All,
    )
}

pub(crate) fn search_each(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    on_match: &mut dyn FnMut(&Match) -> ControlFlow<()>,
) -> Result<Streamed, Error> {
    // A stream resumes with the same cursors as the collected form.
    let mut receiver = |m: &Match| on_match(m).map_break(|()| Refusal::After);
    prepare::<_, LineSearch>(source, query, cursor)?.stream::<LineSearch>(
        limits,
        cursor,
        &mut receiver,
    )
}

pub(crate) fn try_search_each<E>(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
    mut on_match: impl FnMut(&Match) -> Result<(), E>,
) -> Result<Streamed, StreamError<E>> {
    let mut failed = None;
    let mut receiver = |m: &Match| match on_match(m) {
        Ok(()) => ControlFlow::Continue(()),
        Err(error) => {
            failed = Some(error);
            ControlFlow::Break(Refusal::Before)
        }
    };
    let end = prepare::<_, LineSearch>(source, query, cursor)?.stream::<LineSearch>(
        limits,
        cursor,
        &mut receiver,
    )?;
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
    prepare::<_, CountPerFile>(source, query, cursor)?.collect::<CountPerFile>(
        limits,
        cursor,
        Files::All,
    )
}

pub(crate) fn files(
    source: &impl Source,
    query: &Query,
    limits: &Limits,
    cursor: Option<&Cursor>,
) -> Result<Bounded<String>, Error> {
    prepare::<_, FilesWithMatches>(source, query, cursor)?.collect::<FilesWithMatches>(
        limits,
        cursor,
        Files::All,
    )
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
    prepare::<_, FindInFile>(source, &query, cursor)?.collect::<FindInFile>(
        limits,
        cursor,
        Files::One(&resolved.path),
    )
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
