//! The trigram postings of an index: for each trigram of the files' raw
//! bytes, the ascending ids of the files (or, for a file over
//! `BLOCK_BYTES`, of its blocks) that hold it (delta-varint lists with
//! runs of ids in a row, see `postings`), built, encoded and decoded.
//!
//! An index's build adds each file's distinct trigrams (`Distinct`: a
//! 2 MiB bitmap removes repeated ones within a file) to `Postings`, which
//! holds a bounded buffer of (trigram, id) pairs and spills it to the
//! index's folder in sorted runs (`spill`); the runs merged are written
//! to a base file as they come (`write`), or kept in memory (a delta).
//! `GramsBuilder`, which holds each trigram's list in memory as it grows
//! (per builder about twice the encoded size of its lists), builds the
//! postings of the tests, and is the spilled build's oracle.
//!
//! The encoding (integers LEB128 varints unless said otherwise):
//! `MAGIC`, the format version, the number of trigram lists; the list of
//! all ids (count, byte length, bytes); the length of the trigrams' lists
//! end to end (8 bytes); a reference to each block of the table (see
//! `table`): the head. Then the table, fixed-width entries in ascending
//! trigram order (count, where the list ends, its CRC-32); then the
//! lists' bytes, in the same order, and nothing after them. Decoding
//! checks the structure (format, version, the blocks' order and
//! checksums, trigram order, counts and lengths) and the list of every
//! file; a trigram's list is checked as a query reads it, as far as it
//! reads it, and one found damaged reads as every file from there on.
//! Postings read from a base file keep their table and lists in the
//! file (`decode_head`): a query reads the blocks of the table and the
//! lists its plan names (`fetch`), each checked against its CRC, so
//! damage that would still read as ascending ids is refused too;
//! postings decoded whole (a manifest's delta) are covered by their
//! container's checksum.

mod candidates;
#[cfg(test)]
mod decode_check;
mod disk;
mod postings;
mod spill;
mod table;
#[cfg(test)]
mod tests;
mod write;

use std::borrow::Cow;
use std::cmp::Ordering;
#[cfg(test)]
use std::collections::HashMap;
#[cfg(test)]
use std::hash::{BuildHasherDefault, Hasher};

use crate::Error;
use crate::index::plan::{Gram, Need};

pub(crate) use candidates::Candidates;
use candidates::Node;
pub(crate) use disk::Disk;
use postings::{ListBuilder, ListCursor, get_varint, ids, put_varint, scan};
pub(crate) use spill::{BUDGET, Lists, Postings, SpillTo};
use table::{GramBlockRef, ListBounds};
pub(crate) use write::write_postings;

/// The first bytes of an encoded `Grams`.
const MAGIC: &[u8; 8] = b"CNDGRAMS";
/// The version of the encoding (4: runs of ids in a row; see
/// `postings`).
const VERSION: u32 = 4;

/// A trigram as a 24-bit key, big-endian, so keys sort as trigrams do.
fn key(gram: &Gram) -> u32 {
    (u32::from(gram[0]) << 16) | (u32::from(gram[1]) << 8) | u32::from(gram[2])
}

/// The bytes of text one id stands for, at most, unless a build is set
/// to another size (see `BuildSettings`): a larger file takes
/// one id per block of about this size, so that a query whose trigrams
/// all occur in it, but never within one block, does not read it, and a
/// search that only counts reads its candidate blocks only. Chosen by
/// measurement on a tree of crate sources: against 256 KiB, an index 18%
/// larger and a build about 15% slower, for 43% fewer bytes read by the
/// exact total of a word found in large generated files.
pub(crate) const BLOCK_BYTES: u64 = 64 * 1024;

/// The most ids one file takes.
const MAX_BLOCKS: u64 = 1 << 16;

/// How many ids a file of `len` bytes takes when it is cut into blocks of
/// `size` bytes (at least 1): one per block begun.
pub(crate) fn blocks_for(len: u64, size: u64) -> u32 {
    let blocks = len.div_ceil(size.max(1)).clamp(1, MAX_BLOCKS);
    u32::try_from(blocks).unwrap_or(1)
}

/// `bytes` cut into exactly `blocks` parts (some may be empty): each but
/// the last ends just after the first `\n` at or past the next multiple
/// of `size`, or at the end. Every line lies within one part; a match,
/// which never spans lines, has every trigram it needs in one part.
pub(crate) fn split_blocks(bytes: &[u8], blocks: u32, size: u64) -> Vec<&[u8]> {
    let size = usize::try_from(size).unwrap_or(usize::MAX).max(1);
    let mut parts = Vec::with_capacity(blocks as usize);
    let mut start = 0;
    for k in 1..=blocks as usize {
        let end = if k == blocks as usize {
            bytes.len()
        } else {
            let from = k.saturating_mul(size).max(start);
            match bytes
                .get(from..)
                .and_then(|rest| memchr::memchr(b'\n', rest))
            {
                Some(i) => from + i + 1,
                None => bytes.len(),
            }
        };
        parts.push(&bytes[start..end]);
        start = end;
    }
    parts
}

/// A multiplicative hasher for 24-bit keys (the standard one costs more
/// than the rest of the indexing of a trigram).
#[cfg(test)]
#[derive(Default)]
struct KeyHasher(u64);

#[cfg(test)]
impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The lists of a builder, by trigram key.
#[cfg(test)]
type KeyLists = HashMap<u32, ListBuilder, BuildHasherDefault<KeyHasher>>;

/// The distinct trigrams of one file at a time, in the order first seen,
/// with a bitmap of every trigram (2 MiB, allocated on first use).
#[derive(Default)]
pub(crate) struct Distinct {
    /// One bit per trigram key: seen in the current file.
    seen: Vec<u64>,
    /// The keys seen in the current file.
    keys: Vec<u32>,
}

impl Distinct {
    /// The distinct trigram keys of `bytes`.
    pub(crate) fn of(&mut self, bytes: &[u8]) -> &[u32] {
        for &k in &self.keys {
            self.seen[(k >> 6) as usize] = 0;
        }
        self.keys.clear();
        if bytes.len() < 3 {
            return &self.keys;
        }
        if self.seen.is_empty() {
            self.seen = vec![0; (1 << 24) / 64];
        }
        for w in bytes.windows(3) {
            let k = key(&[w[0], w[1], w[2]]);
            let (word, bit) = ((k >> 6) as usize, 1u64 << (k & 63));
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                self.keys.push(k);
            }
        }
        &self.keys
    }
}

/// Collects the trigrams of files, one file at a time.
#[cfg(test)]
pub(crate) struct GramsBuilder {
    /// Each trigram's list so far.
    lists: KeyLists,
    /// The ids of every file added.
    all: ListBuilder,
    /// The distinct trigrams of the file being added.
    distinct: Distinct,
}

#[cfg(test)]
impl GramsBuilder {
    /// An empty builder.
    pub(crate) fn new() -> Self {
        GramsBuilder {
            lists: KeyLists::default(),
            all: ListBuilder::default(),
            distinct: Distinct::default(),
        }
    }

    /// Adds the file `id` with its bytes. File ids are given in
    /// increasing order (path order), each once.
    ///
    /// # Panics
    ///
    /// When `id` is not greater than every id added before.
    pub(crate) fn add(&mut self, id: u32, bytes: &[u8]) {
        self.all.push(id);
        for &k in self.distinct.of(bytes) {
            self.lists.entry(k).or_default().push(id);
        }
    }

    /// Merges a builder filled on another thread (disjoint ids).
    // Used by the corpus built on these postings (and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn merge(mut self, other: GramsBuilder) -> Self {
        self.all = merge_lists(std::mem::take(&mut self.all), other.all);
        for (k, list) in other.lists {
            match self.lists.remove(&k) {
                Some(mine) => {
                    self.lists.insert(k, merge_lists(mine, list));
                }
                None => {
                    self.lists.insert(k, list);
                }
            }
        }
        self
    }

    /// The postings, ready to query or encode.
    pub(crate) fn finish(self) -> Grams {
        let mut entries: Vec<(u32, ListBuilder)> = self.lists.into_iter().collect();
        entries.sort_unstable_by_key(|(k, _)| *k);
        let mut grams = Grams::default();
        let well_formed = grams.push_list(&self.all.bytes, self.all.count);
        debug_assert!(well_formed.is_some(), "a built list is well formed");
        for (k, list) in &entries {
            grams.keys.push(*k);
            grams.push_list(&list.bytes, list.count);
        }
        grams
    }
}

/// The union of two lists of disjoint ids.
// Used by the corpus built on these postings (and the tests).
#[cfg_attr(not(test), allow(dead_code))]
fn merge_lists(a: ListBuilder, b: ListBuilder) -> ListBuilder {
    if b.count == 0 {
        return a;
    }
    if a.count == 0 {
        return b;
    }
    let (a, b) = (a.ids(), b.ids());
    let mut ids = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let take_a = j >= b.len() || (i < a.len() && a[i] <= b[j]);
        let id = if take_a { a[i] } else { b[j] };
        if take_a {
            i += 1;
        } else {
            j += 1;
        }
        if ids.last() != Some(&id) {
            ids.push(id);
        }
    }
    ListBuilder::of(ids)
}

/// The trigram postings of a set of files.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Grams {
    /// The trigram keys, ascending; list `i + 1` is key `i`'s (list 0
    /// holds every file's id).
    keys: Vec<u32>,
    /// Each list's ids.
    counts: Vec<u32>,
    /// Where each list's bytes start in `data` (one more entry: the end).
    starts: Vec<usize>,
    /// Every list's bytes, end to end.
    data: Vec<u8>,
    /// The greatest file id.
    last: Option<u32>,
    /// Read from a file list by list (see `decode_head`): the fields
    /// above hold only the list of every file, the trigrams' table and
    /// lists are read from here as a query needs them.
    disk: Option<OnDisk>,
}

/// The trigrams' table and lists left in their file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OnDisk {
    /// The file: the table, then the lists.
    disk: Disk,
    /// What the head says of them.
    head: Head,
}

/// What the head of postings says of the table and lists after it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Head {
    /// The number of trigrams.
    trigrams: usize,
    /// The table's blocks.
    blocks: Vec<GramBlockRef>,
    /// What the table's entries must agree with.
    bounds: ListBounds,
}

impl Head {
    /// The length of the table, in bytes.
    fn table_len(&self) -> usize {
        self.trigrams * table::ENTRY
    }

    /// Checks that the table and lists following the head are `len`
    /// bytes, as the head says.
    fn check_len(&self, len: u64) -> Result<(), Error> {
        // A damaged head may say its lists are nearly `u64::MAX` bytes:
        // more than any file holds, never a sum that wraps around.
        let expected = (self.table_len() as u64).checked_add(self.bounds.lists);
        match expected {
            Some(expected) if expected == len => Ok(()),
            Some(expected) if expected < len => Err(bad("bytes after the end")),
            _ => Err(bad("cut short")),
        }
    }
}

impl Grams {
    /// Appends a list; the first one is the list of every file, which is
    /// checked here (the others are checked when a query reads them).
    fn push_list(&mut self, bytes: &[u8], count: u32) -> Option<()> {
        if self.starts.is_empty() {
            self.last = scan(bytes, count)?;
            self.starts.push(0);
        }
        self.data.extend_from_slice(bytes);
        self.counts.push(count);
        self.starts.push(self.data.len());
        Some(())
    }

    /// The number of files.
    #[cfg(test)]
    pub(crate) fn files(&self) -> u32 {
        self.counts.first().copied().unwrap_or(0)
    }

    /// The bytes of list `i`.
    fn bytes(&self, i: usize) -> &[u8] {
        let (from, to) = (self.starts[i], self.starts[i + 1]);
        &self.data[from..to]
    }

    /// The list of every file, and its count.
    fn all(&self) -> (Node<'_>, u32) {
        match (self.counts.first(), self.last) {
            (Some(&count), Some(last)) => (
                Node::List(ListCursor::new(self.bytes(0), count, last, None)),
                count,
            ),
            _ => (Node::Empty, 0),
        }
    }

    /// List `i`'s cursor and count. The cursor checks the list as it
    /// reads it; a list found damaged reads as every file from there on
    /// (see `ListCursor`): slower, never wrong.
    fn list(&self, i: usize) -> (Node<'_>, u32) {
        let (Some(last), Some(&count)) = (self.last, self.counts.get(i)) else {
            return (Node::Empty, 0);
        };
        let all = (self.bytes(0), self.counts[0]);
        let cursor = ListCursor::new(self.bytes(i), count, last, Some(all));
        (Node::List(cursor), count)
    }

    /// The ids of files that may match, ascending, lazily, so a capped
    /// page stops early; `seek(id)` skips to the first candidate >= id
    /// (a cursor resumes by seeking, not by rescanning).
    pub(crate) fn candidates(&self, need: &Need) -> Candidates<'_> {
        Candidates::new(self.node(need).0)
    }

    /// The cursors of `need`, and an estimate of how many ids they yield
    /// (for ordering an intersection rarest first).
    fn node(&self, need: &Need) -> (Node<'_>, u32) {
        let all = || self.all();
        match need {
            Need::Any => all(),
            Need::Gram(g) => match self.keys.binary_search(&key(g)) {
                Ok(i) => self.list(i + 1),
                Err(_) => (Node::Empty, 0),
            },
            Need::All(needs) => {
                let mut parts: Vec<(Node<'_>, u32)> = needs
                    .iter()
                    .filter(|n| **n != Need::Any)
                    .map(|n| self.node(n))
                    .collect();
                if parts.is_empty() {
                    return all();
                }
                parts.sort_by_key(|(_, n)| *n);
                let least = parts[0].1;
                if least == 0 {
                    return (Node::Empty, 0);
                }
                (
                    Node::And(parts.into_iter().map(|(n, _)| n).collect()),
                    least,
                )
            }
            Need::AnyOf(needs) => {
                if needs.contains(&Need::Any) {
                    return all();
                }
                let parts: Vec<(Node<'_>, u32)> = needs
                    .iter()
                    .map(|n| self.node(n))
                    .filter(|(_, n)| *n > 0)
                    .collect();
                let sum = parts.iter().fold(0u32, |s, (_, n)| s.saturating_add(*n));
                match parts.len() {
                    0 => (Node::Empty, 0),
                    _ => (Node::Or(parts.into_iter().map(|(n, _)| n).collect()), sum),
                }
            }
        }
    }

    /// The postings of `lists`, in memory.
    ///
    /// # Errors
    ///
    /// When the lists cannot be read back from their spill file.
    pub(crate) fn from_lists(lists: &mut Lists) -> std::io::Result<Grams> {
        let mut grams = Grams::default();
        let all = std::mem::take(&mut lists.all);
        grams.push_list(&all.bytes, all.count).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "a malformed list of files")
        })?;
        grams.keys.reserve(lists.trigrams);
        grams.counts.reserve(lists.trigrams);
        grams.starts.reserve(lists.trigrams);
        while let Some((key, list)) = lists.next()? {
            grams.keys.push(key);
            grams.push_list(&list.bytes, list.count);
        }
        Ok(grams)
    }

    /// Merges postings finished from builders of disjoint files (a
    /// builder finished early bounds the memory of a build; see the
    /// module docs).
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) (named
    /// `index`) when a list of either is damaged (possible only in
    /// postings decoded from damaged bytes).
    // Used by the corpus built on these postings (and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn merge(self, other: Grams) -> Result<Grams, Error> {
        let damaged =
            || Error::invalid_argument("index", "trigram postings: malformed posting list");
        let list = |g: &Grams, i: usize| -> Result<ListBuilder, Error> {
            let bytes = g.bytes(i);
            let count = g.counts[i];
            scan(bytes, count).ok_or_else(damaged)?;
            Ok(ListBuilder::of(ids(bytes)))
        };
        if self.disk.is_some() || other.disk.is_some() {
            return Err(damaged());
        }
        if self.starts.is_empty() {
            return Ok(other);
        }
        if other.starts.is_empty() {
            return Ok(self);
        }
        let mut out = Grams::default();
        let all = merge_lists(list(&self, 0)?, list(&other, 0)?);
        out.push_list(&all.bytes, all.count).ok_or_else(damaged)?;
        let (mut i, mut j) = (0, 0);
        while i < self.keys.len() || j < other.keys.len() {
            let order = match (self.keys.get(i), other.keys.get(j)) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            let (k, merged) = match order {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                    let merged = merge_lists(list(&self, i)?, list(&other, j)?);
                    (self.keys[i - 1], merged)
                }
                Ordering::Less => {
                    i += 1;
                    (self.keys[i - 1], list(&self, i)?)
                }
                Ordering::Greater => {
                    j += 1;
                    (other.keys[j - 1], list(&other, j)?)
                }
            };
            out.keys.push(k);
            out.push_list(&merged.bytes, merged.count);
        }
        Ok(out)
    }

    /// Appends the encoding of these postings to `out`, and returns the
    /// length of its head (everything before the trigrams' table).
    ///
    /// # Panics
    ///
    /// When the postings were read list by list from a file (they are
    /// only ever written as built or merged).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> usize {
        assert!(self.disk.is_none(), "postings on disk are not encoded");
        let start = out.len();
        let list = |i: usize| &self.data[self.starts[i]..self.starts[i + 1]];
        let (all, all_count) = if self.counts.is_empty() {
            (&[][..], 0)
        } else {
            (list(0), self.counts[0])
        };
        let lists = &self.data[self.starts.get(1).copied().unwrap_or(0)..];
        let mut entries = Vec::with_capacity(self.keys.len() * table::ENTRY);
        let blocks = table::encode(
            self.keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (k, self.counts[i + 1], list(i + 1))),
            &mut entries,
        );
        put_head(
            out,
            self.keys.len(),
            all,
            all_count,
            lists.len() as u64,
            &blocks,
        );
        let head = out.len() - start;
        out.extend_from_slice(&entries);
        out.extend_from_slice(lists);
        head
    }

    /// Decodes postings written by `encode`. Never panics on arbitrary
    /// bytes. The lists' checksums are not checked here (the container
    /// of bytes read whole checks them whole); a list's structure is
    /// checked as a query reads it.
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) (named
    /// `index`) when the bytes are not a valid encoding: another format
    /// or version, cut short, trailing bytes, a block of the table that
    /// does not match its checksum, or a list whose ids are not ascending
    /// or do not match its count and length.
    #[cfg(test)]
    pub(crate) fn decode(bytes: &[u8]) -> Result<Grams, Error> {
        let (mut grams, end, head) = Grams::decode_table(bytes)?;
        let rest = &bytes[end..];
        head.check_len(rest.len() as u64)?;
        let table_len = head.table_len();
        let base = grams.data.len();
        grams.keys.reserve(head.trigrams);
        grams.counts.reserve(head.trigrams);
        grams.starts.reserve(head.trigrams);
        for b in 0..head.blocks.len() {
            let (from, to) = table::block_range(b, head.trigrams);
            let block = table::entries(&rest[from..to], &head.blocks, b, head.bounds)
                .map_err(|r| bad(&r))?;
            for e in block {
                grams.keys.push(e.key);
                grams.counts.push(e.count);
                // Below the lists' length, itself below the input's.
                grams.starts.push(base + e.end as usize);
            }
        }
        grams.data.extend_from_slice(&rest[table_len..]);
        Ok(grams)
    }

    /// Decodes the head of postings written by `encode` (see its return
    /// value), whose table and lists are left in `disk`: a query reads
    /// the blocks of the table and the lists it needs (see `fetch`), each
    /// checked against its checksum.
    ///
    /// # Errors
    ///
    /// As `decode`'s, and when `head` is not exactly a head, or the
    /// bytes in `disk` are not as long as the head says.
    pub(crate) fn decode_head(bytes: &[u8], disk: Disk) -> Result<Grams, Error> {
        let (mut grams, end, head) = Grams::decode_table(bytes)?;
        if end != bytes.len() {
            return Err(bad("bytes after the head"));
        }
        head.check_len(disk.data_len())?;
        grams.disk = Some(OnDisk { disk, head });
        Ok(grams)
    }

    /// Decodes the head of `bytes`: the postings with only the list of
    /// every file, where the head ends, and what the head says of the
    /// table and lists that follow it.
    fn decode_table(bytes: &[u8]) -> Result<(Grams, usize, Head), Error> {
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or_else(|| bad("not a trigram index"))?;
        let mut at = 0;
        let mut int = |what: &str| get_varint(rest, &mut at).ok_or_else(|| bad(what));
        let version = int("cut short")?;
        if version != VERSION {
            return Err(bad(&format!(
                "format version {version}, this build reads {VERSION}"
            )));
        }
        let n = int("cut short")? as usize;
        let all_count = int("cut short")?;
        let all_len = int("cut short")? as usize;
        let mut grams = Grams::default();
        let all = rest
            .get(at..)
            .and_then(|r| r.get(..all_len))
            .ok_or_else(|| bad("cut short"))?;
        at += all_len;
        grams
            .push_list(all, all_count)
            .ok_or_else(|| bad("malformed list of files"))?;
        let lists = rest.get(at..at + 8).ok_or_else(|| bad("cut short"))?;
        at += 8;
        let bounds = ListBounds {
            files: all_count,
            lists: u64::from_le_bytes(lists.try_into().unwrap_or_default()),
        };
        // No more trigrams than keys, nor than blocks the head holds:
        // refused before anything is allocated for them.
        if n > 1 << 24
            || n.div_ceil(table::BLOCK) > rest.len().saturating_sub(at) / table::BLOCK_REF
        {
            return Err(bad("cut short"));
        }
        let blocks = table::get_refs(rest, &mut at, n, bounds)?;
        let head = Head {
            trigrams: n,
            blocks,
            bounds,
        };
        Ok((grams, MAGIC.len() + at, head))
    }

    /// The postings `need` reads: these, when they are in memory; else
    /// the list of every file and the lists of `need`'s trigrams, found
    /// in the blocks of the table that hold them and read from the file,
    /// each block and list checked against its checksum.
    ///
    /// # Errors
    ///
    /// What is wrong: a block or list that cannot be read, or whose
    /// checksum or structure does not match.
    pub(crate) fn fetch(&self, need: &Need) -> Result<Cow<'_, Grams>, String> {
        let Some(OnDisk { disk, head }) = &self.disk else {
            return Ok(Cow::Borrowed(self));
        };
        let mut wanted = Vec::new();
        wanted_keys(need, &mut wanted);
        wanted.sort_unstable();
        wanted.dedup();
        let mut out = Grams {
            last: self.last,
            ..Grams::default()
        };
        if let Some(&count) = self.counts.first() {
            out.data.extend_from_slice(self.bytes(0));
            out.counts.push(count);
            out.starts.extend([0, out.data.len()]);
        }
        let table_len = head.table_len() as u64;
        let mut block: Option<(usize, Vec<table::GramEntry>)> = None;
        for key in wanted {
            let Some(b) = table::block_of(&head.blocks, key) else {
                continue;
            };
            if block.as_ref().is_none_or(|(read, _)| *read != b) {
                let (from, to) = table::block_range(b, head.trigrams);
                let bytes = disk
                    .read(from as u64, to - from)
                    .map_err(|e| format!("base: cannot read the trigram table: {e}"))?;
                let entries = table::entries(&bytes, &head.blocks, b, head.bounds)
                    .map_err(|r| format!("base: {r}: the file is corrupt"))?;
                block = Some((b, entries));
            }
            let entries = block.as_ref().map_or(&[][..], |(_, e)| e.as_slice());
            let Ok(i) = entries.binary_search_by_key(&key, |e| e.key) else {
                continue;
            };
            let e = entries[i];
            // Within the lists' bytes, whose length fits the file.
            let len = (e.end - e.start) as usize;
            let bytes = disk
                .read(table_len + e.start, len)
                .map_err(|e| format!("base: cannot read a posting list: {e}"))?;
            if crc32fast::hash(&bytes) != e.crc {
                return Err(
                    "base: a posting list's checksum does not match: the file is corrupt".into(),
                );
            }
            out.keys.push(key);
            out.data.extend_from_slice(&bytes);
            out.counts.push(e.count);
            out.starts.push(out.data.len());
        }
        Ok(Cow::Owned(out))
    }
}

/// Appends the head of postings of `trigrams` lists (see the module
/// docs): the list of every file, `all`, with its count, the length of
/// the trigrams' lists end to end, and the references of the table's
/// blocks. Its length depends on the number of lists and the list of
/// every file only.
fn put_head(
    out: &mut Vec<u8>,
    trigrams: usize,
    all: &[u8],
    all_count: u32,
    lists_len: u64,
    blocks: &[GramBlockRef],
) {
    out.extend_from_slice(MAGIC);
    put_varint(out, VERSION);
    put_varint(out, trigrams as u32);
    put_varint(out, all_count);
    put_varint(out, all.len() as u32);
    out.extend_from_slice(all);
    out.extend_from_slice(&lists_len.to_le_bytes());
    for block in blocks {
        table::put_ref(out, block);
    }
}

/// The trigram keys `need` names.
fn wanted_keys(need: &Need, out: &mut Vec<u32>) {
    match need {
        Need::Any => {}
        Need::Gram(g) => out.push(key(g)),
        Need::All(needs) | Need::AnyOf(needs) => {
            for n in needs {
                wanted_keys(n, out);
            }
        }
    }
}

/// The error of postings that are not a valid encoding.
fn bad(what: &str) -> Error {
    Error::invalid_argument("index", format!("trigram postings: {what}"))
}
