//! Posting lists: the ascending ids of the files that hold a trigram, as
//! delta-varints (LEB128 of the gap to the previous id; the first id as
//! it is), where a gap of 0, which no two ids can have, starts a run: the
//! varint after it counts the ids that follow the previous one, each one
//! more than the one before (files in a row that share a trigram, the
//! blocks of a large file). A list is written one way only: a run of
//! `MIN_RUN` ids or more as a run, a shorter one as gaps of 1. Lists are
//! read by a forward cursor that checks each id as it decodes it.
//!
//! A cursor decodes only as far as its target: a capped page reads the
//! lists' prefixes, and seeking decodes forward (about a nanosecond per
//! id, a run at once) rather than through a skip table, which would cost
//! a pass over every list read, or space, to check.

/// The fewest ids in a row written as a run (a run of 2 would take as
/// many bytes as two gaps of 1).
const MIN_RUN: u32 = 3;

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

/// A list being built: ids pushed in increasing order, its bytes always
/// the list's one encoding.
#[derive(Debug, Clone, Default)]
pub(crate) struct ListBuilder {
    /// The encoded gaps.
    pub(crate) bytes: Vec<u8>,
    /// How many ids.
    pub(crate) count: u32,
    /// The last id pushed.
    pub(crate) last: u32,
    /// How many ids in a row end the list (each one more than the one
    /// before, after an id that is not): written as gaps of 1 while
    /// fewer than `MIN_RUN`, then as a run whose count ends the bytes.
    run: u32,
}

impl ListBuilder {
    /// Appends `id`, which is greater than every id before it.
    pub(crate) fn push(&mut self, id: u32) {
        assert!(
            self.count == 0 || id > self.last,
            "file ids must be added in increasing order"
        );
        if self.count > 0 && id == self.last + 1 {
            self.extend_run(1);
        } else {
            let gap = if self.count == 0 { id } else { id - self.last };
            put_varint(&mut self.bytes, gap);
            self.run = 0;
        }
        self.count += 1;
        self.last = id;
    }

    /// Writes `n` more ids in a row at the end of the run that ends the
    /// list (the ids themselves are counted by the caller).
    fn extend_run(&mut self, n: u32) {
        let before = self.run;
        let run = before.saturating_add(n);
        if run < MIN_RUN {
            self.bytes.extend(std::iter::repeat_n(1, n as usize));
        } else {
            // The gaps of 1 written so far, or the run's count, replaced.
            let written = if before < MIN_RUN {
                before as usize
            } else {
                varint_len(before) + 1
            };
            self.bytes.truncate(self.bytes.len() - written);
            self.bytes.push(0);
            put_varint(&mut self.bytes, run);
        }
        self.run = run;
    }

    /// Empties the list, keeping its buffer.
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.count = 0;
        self.last = 0;
        self.run = 0;
    }

    /// How many ids in a row end the list (see `append`).
    pub(crate) fn tail(&self) -> u32 {
        self.run
    }

    /// Appends the list `bytes` of `count` ids, the last of which is
    /// `last` and the last `tail` of which are in a row (its `tail()`),
    /// whose first is greater than this list's last: the list of both,
    /// as if their ids had been pushed one by one. `None` when `bytes` is
    /// not such a list (this list is then left unusable).
    pub(crate) fn append(&mut self, bytes: &[u8], count: u32, last: u32, tail: u32) -> Option<()> {
        if count == 0 {
            return Some(());
        }
        let total = self.count.checked_add(count)?;
        let mut items = ListItems::new(bytes);
        let first = items.next()?.ok()?.id;
        if self.count > 0 && first <= self.last {
            return None;
        }
        // The ids in a row after the first join this list's own row (or
        // start one); from the first larger gap on, the bytes are what
        // pushing the ids would write, and the row they end in is `tail`.
        self.push(first);
        loop {
            let at = items.at;
            match items.next() {
                None => break,
                Some(Ok(item)) if item.gap == 1 => {
                    let n = item.run.max(1);
                    self.extend_run(n);
                    self.count = self.count.checked_add(n)?;
                    self.last = item.id;
                }
                Some(Ok(_)) => {
                    self.bytes.extend_from_slice(&bytes[at..]);
                    self.run = tail;
                    self.count = total;
                    self.last = last;
                    break;
                }
                Some(Err(())) => return None,
            }
        }
        (self.count == total && self.last == last).then_some(())
    }

    /// The ids, in order.
    // Used by the corpus built on these postings (and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn ids(&self) -> Vec<u32> {
        ids(&self.bytes)
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

/// The ids of a list's bytes, as far as they read.
// Used by the corpus built on these postings (and the tests).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn ids(bytes: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut items = ListItems::new(bytes);
    while let Some(Ok(item)) = items.next() {
        match item.run {
            0 => out.push(item.id),
            n => out.extend((1..=n).map(|k| item.id - n + k)),
        }
    }
    out
}

/// The bytes of `v` as a varint.
fn varint_len(v: u32) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// One item of a list: an id after a gap, or a run of ids in a row.
#[derive(Debug, Clone, Copy)]
struct Item {
    /// The id (the last of a run).
    id: u32,
    /// The gap to the id before (the first id's is itself); 1 for a run.
    gap: u32,
    /// The ids of a run (0: not a run).
    run: u32,
}

/// The items of a list's bytes, checked: `Err` at the first that is cut
/// short, overflows, or is a run of no ids or one that is first.
struct ListItems<'a> {
    bytes: &'a [u8],
    at: usize,
    prev: Option<u32>,
}

impl<'a> ListItems<'a> {
    fn new(bytes: &'a [u8]) -> ListItems<'a> {
        ListItems {
            bytes,
            at: 0,
            prev: None,
        }
    }
}

impl Iterator for ListItems<'_> {
    type Item = Result<Item, ()>;

    fn next(&mut self) -> Option<Result<Item, ()>> {
        if self.at == self.bytes.len() {
            return None;
        }
        let item = (|| {
            let v = get_varint(self.bytes, &mut self.at)?;
            let Some(prev) = self.prev else {
                return Some(Item {
                    id: v,
                    gap: v,
                    run: 0,
                });
            };
            if v > 0 {
                let id = prev.checked_add(v)?;
                return Some(Item { id, gap: v, run: 0 });
            }
            let run = get_varint(self.bytes, &mut self.at).filter(|&r| r > 0)?;
            let id = prev.checked_add(run)?;
            Some(Item { id, gap: 1, run })
        })();
        match item {
            Some(item) => {
                self.prev = Some(item.id);
                Some(Ok(item))
            }
            None => {
                self.at = self.bytes.len();
                Some(Err(()))
            }
        }
    }
}

/// Checks that `bytes` holds exactly `count` strictly ascending ids, and
/// returns the last one (`Some(None)` for an empty list); `None` when it
/// does not.
pub(crate) fn scan(bytes: &[u8], count: u32) -> Option<Option<u32>> {
    let mut ids = 0u32;
    let mut last = None;
    for item in ListItems::new(bytes) {
        let item = item.ok()?;
        ids = ids.checked_add(item.run.max(1)).filter(|&n| n <= count)?;
        last = Some(item.id);
    }
    (ids == count).then_some(last)
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
    /// The ids of the current run after `prev`, not yet given.
    run: u32,
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
            run: 0,
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
            if let (Some(prev), true) = (self.prev, self.run > 0) {
                // A run: its ids before the target are passed at once.
                let id = target.max(prev + 1);
                let passed = id - prev;
                if passed > self.run {
                    self.read += self.run;
                    self.prev = Some(prev + self.run);
                    self.run = 0;
                    continue;
                }
                self.read += passed;
                self.run -= passed;
                self.prev = Some(id);
                self.current = Some(id);
                return Some(id);
            }
            if self.read == self.count {
                if self.at != self.bytes.len() {
                    self.fault();
                    continue;
                }
                self.current = None;
                return None;
            }
            let id = match (get_varint(self.bytes, &mut self.at), self.prev) {
                (Some(first), None) => Some(first),
                (Some(0), Some(_)) if self.start_run() => continue,
                (Some(gap), Some(p)) if gap > 0 => p.checked_add(gap),
                _ => None,
            };
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

    /// After a gap of 0 (read just now): reads the run's count, and
    /// whether it is one the list can hold (its ids within the list's
    /// count and the greatest id).
    fn start_run(&mut self) -> bool {
        let Some(prev) = self.prev else {
            return false;
        };
        let Some(run) = get_varint(self.bytes, &mut self.at) else {
            return false;
        };
        let fits = run > 0
            && run <= self.count - self.read
            && prev.checked_add(run).is_some_and(|end| end <= self.max);
        if fits {
            self.run = run;
        }
        fits
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
        self.run = 0;
    }
}
