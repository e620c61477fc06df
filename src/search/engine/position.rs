//! A search cursor's key: where the next page starts, as the input's path
//! as the corpus writes it (its own position in the corpus's order, read
//! back without asking the file system), the offset of a line start in
//! it and that line's number when known (so that a page resumes reading
//! there, not from the file's start), and the input's stamp (to notice on
//! resuming that it changed).
//! Written here after the items kept, and read back here on resuming.

use crate::error::Error;
use crate::search::item::Item;
use crate::{Cursor, Scope};

/// What a search cursor records of the input it points at, to notice on
/// resuming that it changed (see `Source::stamp`).
pub(crate) type Stamp<'a> = &'a dyn Fn(&str) -> u64;

/// The key as a cursor holds it. The stamp is fixed width, so that a
/// cursor's length does not depend on the stamp's value (nor the
/// response's size on it).
type Key = (String, (u64, u64), Vec<u8>);

/// The key of `offset` in `path`, the start of line `line` (`0`: not
/// known).
fn key(path: &str, offset: u64, line: u64, stamp: u64) -> Key {
    (
        path.to_owned(),
        (offset, line),
        stamp.to_le_bytes().to_vec(),
    )
}

/// Where a search resumes: an input's path, the offset of a line start in
/// it, that line's number if the cursor knows it, and the input's stamp
/// when the cursor was issued.
pub(crate) struct Position {
    pub(crate) path: String,
    pub(crate) offset: u64,
    pub(crate) line: Option<u64>,
    pub(crate) stamp: u64,
}

/// Reads a search cursor of `scope`: where it resumes.
///
/// # Errors
///
/// Those of [`Scope::resume`], and a malformed cursor whose stamp is not
/// one.
pub(crate) fn read(scope: &Scope, cursor: &Cursor) -> Result<Position, Error> {
    let (path, (offset, line), stamp): Key = scope.resume(cursor)?;
    let stamp = <[u8; 8]>::try_from(stamp.as_slice())
        .map(u64::from_le_bytes)
        .map_err(|_| Error::malformed_cursor("its stamp is not 8 bytes"))?;
    Ok(Position {
        path,
        offset,
        line: (line > 0).then_some(line),
        stamp,
    })
}

/// Where the next page starts, after the items kept.
pub(crate) struct CursorFor<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) stamp: Stamp<'a>,
    /// For each item kept, the offset to resume after it in its file (a
    /// stream keeps only the last).
    pub(crate) resume_offsets: &'a [u64],
    /// Where the first unsearched file starts, after a work-budget stop,
    /// and the number of the line there (0: not known).
    pub(crate) scan_resume: Option<&'a (String, u64)>,
    pub(crate) scan_resume_line: u64,
    /// Where this run began (the cursor's position), to tell whether a
    /// cursor would advance.
    pub(crate) began_at: Option<&'a (String, u64)>,
    pub(crate) streaming: bool,
    /// The last item was refused by a stream's receiver: the cursor
    /// resumes at it, not after it.
    pub(crate) at_last: bool,
    /// Items of the answer the collector saw.
    pub(crate) seen: u64,
}

impl CursorFor<'_> {
    /// The cursor after `kept`, or `None` when resuming would not advance.
    pub(crate) fn cursor<T: Item>(&self, kept: &[T]) -> Option<Cursor> {
        if let Some(last) = kept.last() {
            let index = if self.streaming { 0 } else { kept.len() - 1 };
            let after = self.resume_offsets.get(index).copied().unwrap_or(u64::MAX);
            let path = last.path();
            let (offset, line) = match last.line_start().filter(|_| self.at_last) {
                Some(at) => at,
                None => (after, last.next_line().unwrap_or(0)),
            };
            return Some(
                self.scope
                    .unplaced(&key(path, offset, line, (self.stamp)(path))),
            );
        }
        // Nothing kept: resume where scanning stopped, if no item was found
        // before it and that is past where this run began.
        let at = self.scan_resume?;
        if self.seen > 0 || self.began_at == Some(at) {
            return None;
        }
        let (path, offset) = at;
        Some(self.scope.unplaced(&key(
            path,
            *offset,
            self.scan_resume_line,
            (self.stamp)(path),
        )))
    }
}
