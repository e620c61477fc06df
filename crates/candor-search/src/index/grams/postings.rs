//! Posting lists: the ascending ids of the files that hold a trigram, as
//! delta-varints (LEB128 of the gap to the previous id; the first id as
//! it is), read by a forward cursor that checks each id as it decodes it.
//!
//! A cursor decodes only as far as its target: a capped page reads the
//! lists' prefixes, and seeking decodes forward (about a nanosecond per
//! id) rather than through a skip table, which would cost a pass over
//! every list read, or space, to check.

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

    /// Empties the list, keeping its buffer.
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.count = 0;
        self.last = 0;
    }

    /// Appends the list of `count` ids encoded in `bytes`, whose last is
    /// `last` and whose first is greater than this list's last: the list
    /// of both, as if their ids had been pushed one by one. `None`, and
    /// this list unchanged, when `bytes` does not start with such an id.
    pub(crate) fn append(&mut self, bytes: &[u8], count: u32, last: u32) -> Option<()> {
        if count == 0 {
            return Some(());
        }
        let total = self.count.checked_add(count)?;
        if self.count == 0 {
            self.bytes.extend_from_slice(bytes);
        } else {
            // The other list's first id is written whole: it becomes a gap.
            let mut at = 0;
            let first = get_varint(bytes, &mut at)?;
            let gap = first.checked_sub(self.last).filter(|&g| g > 0)?;
            put_varint(&mut self.bytes, gap);
            self.bytes.extend_from_slice(&bytes[at..]);
        }
        self.count = total;
        self.last = last;
        Some(())
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

/// Checks that `bytes` holds exactly `count` strictly ascending ids, and
/// returns the last one (`Some(None)` for an empty list); `None` when it
/// does not.
pub(crate) fn scan(bytes: &[u8], count: u32) -> Option<Option<u32>> {
    let mut at = 0;
    let mut prev: Option<u32> = None;
    for _ in 0..count {
        let gap = get_varint(bytes, &mut at)?;
        prev = Some(match prev {
            None => gap,
            Some(p) if gap > 0 => p.checked_add(gap)?,
            Some(_) => return None,
        });
    }
    (at == bytes.len()).then_some(prev)
}

/// A cursor over a list, moving only forward. It checks the list as it
/// reads it (well-formed varints, ascending ids, none past the last
/// file, its count and length); from the first fault on it reads its
/// fallback, the list of every file, instead: a damaged list never hides
/// a file.
#[derive(Debug, Clone)]
pub(crate) struct ListCursor<'a> {
    /// The list's encoded ids.
    bytes: &'a [u8],
    /// The ids the list holds.
    count: u32,
    /// The greatest id a list may hold.
    max: u32,
    /// The list read after a fault (already checked), with its count.
    fallback: Option<(&'a [u8], u32)>,
    /// Where the next varint starts.
    at: usize,
    /// How many ids were decoded.
    read: u32,
    /// The id decoded last, if any.
    prev: Option<u32>,
    /// The first id at or after the last target; `None` before the
    /// first advance, or past the end.
    current: Option<u32>,
}

impl<'a> ListCursor<'a> {
    /// A cursor before the first of the `count` ids of `bytes`, none
    /// greater than `max`, reading `fallback` after a fault.
    pub(crate) fn new(
        bytes: &'a [u8],
        count: u32,
        max: u32,
        fallback: Option<(&'a [u8], u32)>,
    ) -> ListCursor<'a> {
        ListCursor {
            bytes,
            count,
            max,
            fallback,
            at: 0,
            read: 0,
            prev: None,
            current: None,
        }
    }

    /// The first id at or after `target`; targets never decrease.
    pub(crate) fn advance(&mut self, target: u32) -> Option<u32> {
        if let Some(c) = self.current {
            if c >= target {
                return Some(c);
            }
        }
        loop {
            if self.read == self.count {
                if self.at != self.bytes.len() {
                    self.fault();
                    continue;
                }
                self.current = None;
                return None;
            }
            let id = get_varint(self.bytes, &mut self.at).and_then(|gap| match self.prev {
                None => Some(gap),
                Some(p) if gap > 0 => p.checked_add(gap),
                Some(_) => None,
            });
            let Some(id) = id.filter(|&id| id <= self.max) else {
                self.fault();
                continue;
            };
            self.read += 1;
            self.prev = Some(id);
            if id >= target {
                self.current = Some(id);
                return Some(id);
            }
        }
    }

    /// Goes over to the fallback list, from its start (the ids before
    /// the target are skipped again by `advance`).
    fn fault(&mut self) {
        match self.fallback.take() {
            Some((bytes, count)) => {
                self.bytes = bytes;
                self.count = count;
            }
            // The fallback itself was checked when it was decoded; were
            // it damaged all the same, it ends here.
            None => {
                self.bytes = &[];
                self.count = 0;
            }
        }
        self.at = 0;
        self.read = 0;
        self.prev = None;
    }
}
