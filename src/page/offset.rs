//! Paging an iterator or `Fallible` rows: the source is read again from
//! its start for every page, the items of earlier pages skipped, and the
//! cursor holds how many there were.

use serde::Serialize;

use super::drive::{Checked, StopCause, checked, drive, finish, interrupted};
use super::items::Items;
use super::page_source::PageSource;
use super::try_error::{Interrupted, TryError};
use crate::collector::Collector;
use crate::error::Error;
use crate::{Bounded, Cursor, CursorKey, Limits, Scope};

/// The key of an offset page's cursor: how many items of the source came
/// before it. Its encoding starts with a mark no canonical varint starts
/// with, so the cursor of an offset page and that of a `Keyset` under the
/// same scope (an integer key, say) are never taken for each other: either
/// way the cursor is refused as malformed instead of resuming at the wrong
/// place.
struct PageOffset(u64);

/// `0x80 0x00` would be a zero written in two bytes: no key of candor's
/// own encodes so.
const PAGE_MARK: [u8; 2] = [0x80, 0x00];

impl CursorKey for PageOffset {
    fn encode_key(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&PAGE_MARK);
        self.0.encode_key(out);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        *input = input.strip_prefix(&PAGE_MARK[..])?;
        u64::decode_key(input).map(PageOffset)
    }
}

/// An ordered source read from its start on every page: the items of
/// earlier pages are skipped, and the cursor holds how many there were.
impl<S: Items> PageSource for S {
    type Item = S::Item;
    type Error = S::Error;

    fn page(
        self,
        limits: &Limits,
        scope: &Scope,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<S::Item>, S::Error>
    where
        S::Item: Serialize,
    {
        page_from(limits, scope, cursor, checked(self, |_: &S::Item| true)).map_err(S::failure)
    }
}

/// `page` over a source already checked for faults.
fn page_from<T, E, I, C>(
    limits: &Limits,
    scope: &Scope,
    cursor: Option<&Cursor>,
    mut iter: Checked<I, C, E>,
) -> Result<Bounded<T>, TryError<T, E>>
where
    I: Iterator<Item = Result<T, E>>,
    C: FnMut(&T) -> bool,
    T: Serialize,
{
    let offset = match cursor {
        Some(c) => scope.resume::<PageOffset>(c)?.0,
        None => 0,
    };
    let mut skipped_over = 0u64;
    while skipped_over < offset {
        if iter.next().is_none() {
            if let Some(StopCause::Source(error)) = iter.fault {
                return Err(TryError::Source(Box::new(Interrupted {
                    items: Vec::new(),
                    next_cursor: None,
                    error,
                })));
            }
            return Err(Error::cursor_out_of_range(format!(
                "it resumes after item {offset}, but the source holds only {skipped_over} items"
            ))
            .into());
        }
        skipped_over += 1;
    }
    let cursor_for = |kept: &[T]| {
        (!kept.is_empty()).then(|| scope.unplaced(&PageOffset(offset + kept.len() as u64)))
    };
    let mut collector = Collector::new(limits);
    collector.set_start(offset);
    let counted = drive(&mut collector, &mut iter, limits);
    if let Some(fault) = iter.fault {
        return Err(interrupted(collector, fault, cursor_for));
    }
    finish(collector, cursor_for, counted)
}
