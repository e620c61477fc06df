//! The four kinds of query (search, find in one file, count per file,
//! files with matches), each one small type: its name (part of its
//! cursors' fingerprint), what it asks of each file, and how a file's hits
//! become its items.

use std::ops::ControlFlow;

use crate::engine::{FileReport, Hits, ItemSink, QueryKind};
use crate::position::Place;
use crate::{FileCount, Match};

/// Every matching line of the corpus.
pub(crate) struct LineSearch;

/// Every matching line of one file.
pub(crate) struct FindInFile;

/// The number of matching lines of each file with any.
pub(crate) struct CountPerFile;

/// The files with a matching line.
pub(crate) struct FilesWithMatches;

impl QueryKind for LineSearch {
    type Item = Match;
    const NAME: &'static str = "search";
    const MODE: FileReport = FileReport::Lines;

    fn offer_items(path: &str, hits: &Hits, sink: &mut dyn ItemSink<Match>) -> ControlFlow<()> {
        match hits {
            Hits::Lines { items, .. } => items.offer_matches(path, sink),
            Hits::Count(_) => ControlFlow::Continue(()),
        }
    }
}

impl QueryKind for FindInFile {
    type Item = Match;
    const NAME: &'static str = "find_in_file";
    const MODE: FileReport = FileReport::Lines;

    fn offer_items(path: &str, hits: &Hits, sink: &mut dyn ItemSink<Match>) -> ControlFlow<()> {
        LineSearch::offer_items(path, hits, sink)
    }
}

impl QueryKind for CountPerFile {
    type Item = FileCount;
    const NAME: &'static str = "count";
    const MODE: FileReport = FileReport::Count;

    fn offer_items(path: &str, hits: &Hits, sink: &mut dyn ItemSink<FileCount>) -> ControlFlow<()> {
        let count = hits.matching_lines();
        if count == 0 {
            return ControlFlow::Continue(());
        }
        sink.offer(Place::End, &|_| FileCount {
            path: path.to_owned(),
            count,
        })
    }
}

impl QueryKind for FilesWithMatches {
    type Item = String;
    const NAME: &'static str = "files";
    const MODE: FileReport = FileReport::Any;

    fn offer_items(path: &str, hits: &Hits, sink: &mut dyn ItemSink<String>) -> ControlFlow<()> {
        if hits.matching_lines() == 0 {
            return ControlFlow::Continue(());
        }
        sink.offer(Place::End, &|_| path.to_owned())
    }
}
