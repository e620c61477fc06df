//! The four kinds of query (search, find in one file, count, files with
//! matches): each one's name (part of its cursors' fingerprint), what it
//! asks of each file, and how a file's hits become its items.

use crate::search::engine::{Hits, Mode, ToItems};
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

fn lines_items(path: &str, hits: Hits, spares: &mut Vec<Match>) -> Vec<(Match, u64)> {
    match hits {
        Hits::Lines { items, .. } => items.into_matches(path, spares),
        Hits::Count(_) => Vec::new(),
    }
}

fn count_items(path: &str, hits: Hits, _: &mut Vec<FileCount>) -> Vec<(FileCount, u64)> {
    let n = hits.matching_lines();
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
    if hits.matching_lines() > 0 {
        vec![(path.to_owned(), u64::MAX)]
    } else {
        Vec::new()
    }
}
