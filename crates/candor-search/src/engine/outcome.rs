//! The outcome of one file's search (searched, skipped or failed), handed
//! on in path order; and what is left of a file searched in parts.

use std::borrow::Cow;

use crate::Error;
use crate::SkippedInput;
use crate::engine::hits::Hits;
use crate::position::Place;
use crate::reader::FileRead;

/// The outcome of one file, in path order.
///
/// The path is borrowed where it can be: an in-memory corpus would
/// otherwise copy every document's name on every query, hits or not.
pub(crate) enum FileOutcome<'p> {
    Searched {
        path: Cow<'p, str>,
        scanned: u64,
        hits: Hits,
        /// A work budget stopped the search of this file here (a line
        /// start, and its number): the hits are those before it.
        stopped_at: Option<Place>,
        /// The search of the file ended before its end (at a NUL byte, a
        /// line too long, a change or an error while read): the rest of
        /// it, skipped, and why. Boxed: few files have one, and every
        /// outcome is moved from thread to thread.
        tail: Option<Box<SkippedInput>>,
        /// These hits are one part of the file's (`PART_LINES` of them):
        /// its search goes on from here, once they are taken.
        more: Option<Box<Unfinished>>,
        /// A file the caller named, binary, searched as text: the record
        /// that says so, told before the items from its first NUL's line
        /// on (with the part whose lines hold that line).
        as_text: Option<Box<AsText>>,
        /// This outcome goes on with a file an earlier one began.
        continued: bool,
        /// The file's stamp when it was opened (see `Source::stamp`), for
        /// the cursors that resume in it: the text their places point
        /// into is that version's, whatever the file is by the time the
        /// page ends. Taken where a page may end in the file (it yields
        /// hits, or a budget stopped inside it); `None` elsewhere, and
        /// for a corpus whose inputs tell none (the cursor then asks the
        /// corpus).
        stamp: Option<u64>,
    },
    Skipped(SkippedInput),
    Failed(Error),
}

impl<'p> FileOutcome<'p> {
    /// A file searched whole.
    pub(crate) fn searched(path: Cow<'p, str>, scanned: u64, hits: Hits) -> FileOutcome<'p> {
        FileOutcome::Searched {
            path,
            scanned,
            hits,
            stopped_at: None,
            tail: None,
            more: None,
            as_text: None,
            continued: false,
            stamp: None,
        }
    }

    /// Takes out what is left of the file's search, if this outcome is one
    /// part of it.
    pub(crate) fn take_more(&mut self) -> Option<Box<Unfinished>> {
        match self {
            FileOutcome::Searched { more, .. } => more.take(),
            _ => None,
        }
    }

    /// The same outcome, owning its path (to cross threads, or to outlive
    /// the path it was searched under).
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) fn into_owned(self) -> FileOutcome<'static> {
        match self {
            FileOutcome::Searched {
                path,
                scanned,
                hits,
                stopped_at,
                tail,
                more,
                as_text,
                continued,
                stamp,
            } => FileOutcome::Searched {
                path: Cow::Owned(path.into_owned()),
                scanned,
                hits,
                stopped_at,
                tail,
                more,
                as_text,
                continued,
                stamp,
            },
            FileOutcome::Skipped(input) => FileOutcome::Skipped(input),
            FileOutcome::Failed(error) => FileOutcome::Failed(error),
        }
    }
}

/// A file the caller named that holds a NUL byte, searched as text (see
/// `SkipReason::BinaryAsText`).
pub(crate) struct AsText {
    /// Where the line of its first NUL starts: the record comes before
    /// the items from that line on.
    pub(crate) line_start: u64,
    pub(crate) input: SkippedInput,
}

/// What is left of a file's search after one part of it: where it goes
/// on, and the count so far. It owns the open file, if there is one, so a
/// file is never opened twice in one search; the next part may be searched
/// by another thread.
pub(crate) struct Unfinished {
    pub(crate) path: String,
    /// Where the search goes on: a line start.
    pub(crate) at: u64,
    /// The number of the line at `at`.
    pub(crate) line_number: u64,
    /// The file's lines listed so far.
    pub(crate) listed: usize,
    /// Where the search of the file began.
    pub(crate) start: u64,
    /// The file being read; `None` for a document, whose bytes its corpus
    /// gives again.
    pub(crate) read: Option<FileRead>,
    /// The caller named the file: it is read as text.
    pub(crate) named: bool,
}

impl Unfinished {
    /// The file, and where its search goes on (a line start, numbered).
    pub(crate) fn goes_on_at(&self) -> (&str, Place) {
        (&self.path, Place::line(self.at, self.line_number))
    }

    /// The file's stamp when it was opened, if it tells one (see
    /// `FileOutcome::Searched::stamp`).
    pub(crate) fn stamp(&self) -> Option<u64> {
        self.read.as_ref().and_then(FileRead::stamp)
    }
}
