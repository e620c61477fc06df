//! Posting lists: the ascending ids of the files that hold a trigram, as
//! delta-varints (LEB128 of the gap to the previous id; the first id as
//! it is), with a skip entry every `SKIP` ids so that a cursor seeks in
//! O(log n) and decodes at most `SKIP` ids to reach a target.

use std::borrow::Cow;

/// Ids between two skip entries.
pub(crate) const SKIP: u32 = 64;

/// Appends `v` as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 varint at `*at`, moving past it; `None` when it is cut
/// short or does not fit a `u32`.
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        let part = u32::from(b & 0x7F);
        if shift == 28 && part > 0x0F {
            return None;
        }
        v |= part << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A list being built: ids pushed in increasing order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ListBuilder {
    /// The encoded gaps.
    pub(crate) bytes: Vec<u8>,
    /// How many ids.
    pub(crate) count: u32,
    /// The last id pushed.
    pub(crate) last: u32,
}

impl ListBuilder {
    /// Appends `id`, which is greater than every id before it.
    pub(crate) fn push(&mut self, id: u32) {
        assert!(
            self.count == 0 || id > self.last,
            "file ids must be added in increasing order"
        );
        let gap = if self.count == 0 { id } else { id - self.last };
        put_varint(&mut self.bytes, gap);
        self.count += 1;
        self.last = id;
    }

    /// The ids, in order.
    // Used by the corpus built on these postings (and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn ids(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.count as usize);
        let mut at = 0;
        let mut prev = 0u32;
        while let Some(gap) = get_varint(&self.bytes, &mut at) {
            prev = if out.is_empty() { gap } else { prev + gap };
            out.push(prev);
        }
        out
    }

    /// The list of `ids` (ascending, distinct).
    // Used by the corpus built on these postings (and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn of(ids: impl IntoIterator<Item = u32>) -> ListBuilder {
        let mut list = ListBuilder::default();
        for id in ids {
            list.push(id);
        }
        list
    }
}

/// A skip entry: the id decoded just before `offset` in a list's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Skip {
    /// The id there.
    pub(crate) id: u32,
    /// The byte offset after that id's varint, within the list.
    pub(crate) offset: u32,
}

/// Checks that `bytes` holds exactly `count` strictly ascending ids, and
/// returns the list's skip entries and its last id; `None` when it does
/// not.
pub(crate) fn scan(bytes: &[u8], count: u32) -> Option<(Vec<Skip>, Option<u32>)> {
    let mut skips = Vec::with_capacity((count / SKIP) as usize);
    let mut at = 0;
    let mut prev: Option<u32> = None;
    for n in 1..=count {
        let gap = get_varint(bytes, &mut at)?;
        let id = match prev {
            None => gap,
            Some(p) if gap > 0 => p.checked_add(gap)?,
            Some(_) => return None,
        };
        prev = Some(id);
        if n % SKIP == 0 {
            skips.push(Skip {
                id,
                offset: u32::try_from(at).ok()?,
            });
        }
    }
    (at == bytes.len()).then_some((skips, prev))
}

/// A cursor over a list (checked by `scan`), moving only forward.
#[derive(Debug, Clone)]
pub(crate) struct ListCursor<'a> {
    bytes: &'a [u8],
    skips: Cow<'a, [Skip]>,
    /// Where the next varint starts.
    at: usize,
    /// The id decoded last, if any.
    prev: Option<u32>,
    /// The current id: the first at or after the last target; `None`
    /// before the first advance, or past the end.
    current: Option<u32>,
    done: bool,
}

impl<'a> ListCursor<'a> {
    /// A cursor before the first id of `bytes`.
    pub(crate) fn new(bytes: &'a [u8], skips: Cow<'a, [Skip]>) -> ListCursor<'a> {
        ListCursor {
            bytes,
            skips,
            at: 0,
            prev: None,
            current: None,
            done: false,
        }
    }

    /// The first id at or after `target`; targets never decrease.
    pub(crate) fn advance(&mut self, target: u32) -> Option<u32> {
        if let Some(c) = self.current {
            if c >= target {
                return Some(c);
            }
        }
        if self.done {
            return None;
        }
        // The last skip entry before the target, if it is ahead of us.
        let i = self.skips.partition_point(|s| s.id < target);
        if i > 0 {
            let s = self.skips[i - 1];
            if s.offset as usize > self.at {
                self.at = s.offset as usize;
                self.prev = Some(s.id);
            }
        }
        while let Some(gap) = get_varint(self.bytes, &mut self.at) {
            // `scan` checked the list: the sum does not overflow.
            let id = match self.prev {
                None => gap,
                Some(p) => p.saturating_add(gap),
            };
            self.prev = Some(id);
            if id >= target {
                self.current = Some(id);
                return Some(id);
            }
        }
        self.done = true;
        self.current = None;
        None
    }
}
