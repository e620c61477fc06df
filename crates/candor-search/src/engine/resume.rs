//! Where the next page of a search starts, after the items kept: the
//! position a search cursor records.

use crate::item::Item;
use crate::position::{Order, Place, Position};
use crate::{Cursor, Scope};

/// What a search cursor records of a file, to notice on resuming that it
/// changed (see `Source::stamp`): asked only for a file whose stamp was
/// not taken when it was read (one not read, or a document).
pub(crate) trait StampLookup {
    fn stamp(&self, path: &str) -> Option<u64>;
    /// The files the walk passes before `path`, and `path` itself when
    /// `through` (see `Source::order_before`), recorded in the cursor so
    /// that a file added or removed before it since, or its own file gone
    /// from the walk, is noticed; `None` when they cannot be told.
    fn order_before(&self, path: &str, through: bool) -> Option<Order>;
}

/// Where the next page starts, after the items kept.
pub(crate) struct ResumeAfter<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) stamps: &'a dyn StampLookup,
    /// For each item kept, where to resume after it in its file (a
    /// stream keeps only the last), and the file's stamp when it was read.
    pub(crate) after_items: &'a [(Place, Option<u64>)],
    /// Where the search resumes after a work-budget stop, and the file's
    /// stamp when it was read, if it was.
    pub(crate) scan_resume: Option<&'a (String, Place, Option<u64>)>,
    /// Where this run began (the cursor's position), to tell whether a
    /// cursor would advance.
    pub(crate) began_at: Option<&'a Position>,
    pub(crate) streaming: bool,
    /// The last item was refused by a stream's receiver: the cursor
    /// resumes at it, not after it.
    pub(crate) at_last: bool,
    /// Items of the answer the collector saw.
    pub(crate) seen: u64,
}

impl ResumeAfter<'_> {
    /// The cursor after `kept`, or `None` when resuming would not advance.
    pub(crate) fn cursor<T: Item>(&self, kept: &[T]) -> Option<Cursor> {
        if let Some(last) = kept.last() {
            let index = if self.streaming { 0 } else { kept.len() - 1 };
            let (after, read) = self
                .after_items
                .get(index)
                .copied()
                .unwrap_or((Place::End, None));
            let path = last.path();
            let place = match last.line_start().filter(|_| self.at_last) {
                Some(at) => at,
                None => after,
            };
            return Some(self.cursor_at(path, place, read));
        }
        // Nothing kept: resume where scanning stopped, if no item was found
        // before it and that is past where this run began.
        let (path, place, read) = self.scan_resume?;
        let began_here = self
            .began_at
            .is_some_and(|b| &b.path == path && b.place.offset() == place.offset());
        if self.seen > 0 || began_here {
            return None;
        }
        Some(self.cursor_at(path, *place, *read))
    }

    /// The cursor that resumes at `place` in `path`, with the stamp the
    /// page took of the file when it read it (`read`), and the files the
    /// walk passes before it.
    fn cursor_at(&self, path: &str, place: Place, read: Option<u64>) -> Cursor {
        // The stamp of the version whose text the place points into, not
        // of the file as it is now: one rewritten since makes the cursor
        // stale, not a resume into other text.
        let stamp = read.or_else(|| self.stamps.stamp(path));
        Position::new(path, place, stamp)
            .with_order(self.stamps.order_before(path, place.is_past_start()))
            .to_cursor(self.scope)
    }
}
