//! The four kinds of query (search, find in one file, count, files with
//! matches): each one's name (part of its cursors' fingerprint), what it
//! asks of each file, and how a file's hits become its items.

use std::ops::ControlFlow;

use crate::search::engine::{Each, Hits, Mode, ToItems};
use crate::search::{FileCount, Match};

/// One kind of query: its name (part of its cursors' fingerprint), what it
/// asks of each file, and how a file's hits become items.
pub(crate) struct Operation<T> {
    pub(crate) name: &'static str,
    pub(crate) mode: Mode,
    pub(crate) to_items: ToItems<T>,
}

pub(crate) const SEARCH: Operation<Match> = Operation {
    name: "search",
    mode: Mode::Lines,
    to_items: lines_items,
};
pub(crate) const FIND_IN_FILE: Operation<Match> = Operation {
    name: "find_in_file",
    mode: Mode::Lines,
    to_items: lines_items,
};
pub(crate) const COUNT: Operation<FileCount> = Operation {
    name: "count",
    mode: Mode::Count,
    to_items: count_items,
};
pub(crate) const FILES: Operation<String> = Operation {
    name: "files",
    mode: Mode::Any,
    to_items: file_items,
};

fn lines_items(path: &str, hits: &Hits, each: &mut Each<'_, Match>) -> ControlFlow<()> {
    match hits {
        Hits::Lines { items, .. } => items.each_match(path, each),
        Hits::Count(_) => ControlFlow::Continue(()),
    }
}

fn count_items(path: &str, hits: &Hits, each: &mut Each<'_, FileCount>) -> ControlFlow<()> {
    let count = hits.matching_lines();
    if count == 0 {
        return ControlFlow::Continue(());
    }
    each(u64::MAX, &|_| FileCount {
        path: path.to_owned(),
        count,
    })
}

fn file_items(path: &str, hits: &Hits, each: &mut Each<'_, String>) -> ControlFlow<()> {
    if hits.matching_lines() == 0 {
        return ControlFlow::Continue(());
    }
    each(u64::MAX, &|_| path.to_owned())
}
