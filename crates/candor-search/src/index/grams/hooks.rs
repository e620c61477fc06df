//! Entry points for the fuzz target and the benchmark, which see only the
//! crate's public items. Not part of the API: hidden from the docs, and
//! free to change.

use super::{Distinct, Grams, GramsBuilder, table};
use crate::index::plan::{self, Need};
use crate::{Error, Query};

/// Trigram postings, built from files numbered 0, 1, ... in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexGrams(Grams);

impl IndexGrams {
    /// The postings of `files`, the file at position `i` with id `i`.
    ///
    /// ```
    /// let grams = candor_search::__index_hooks::IndexGrams::build([&b"abcd"[..], b"xyz"]);
    /// assert_eq!(grams.files(), 2);
    /// ```
    pub fn build<'a>(files: impl IntoIterator<Item = &'a [u8]>) -> IndexGrams {
        let mut b = GramsBuilder::new();
        for (i, f) in files.into_iter().enumerate() {
            b.add(u32::try_from(i).unwrap_or(u32::MAX), f);
        }
        IndexGrams(b.finish())
    }

    /// The number of files.
    ///
    /// ```
    /// assert_eq!(candor_search::__index_hooks::IndexGrams::build([]).files(), 0);
    /// ```
    pub fn files(&self) -> u32 {
        self.0.files()
    }

    /// The number of distinct trigrams.
    ///
    /// ```
    /// let grams = candor_search::__index_hooks::IndexGrams::build([&b"abcd"[..]]);
    /// assert_eq!(grams.trigrams(), 2);
    /// ```
    pub fn trigrams(&self) -> usize {
        self.0.trigrams()
    }

    /// The encoding.
    ///
    /// ```
    /// use candor_search::__index_hooks::IndexGrams;
    /// let grams = IndexGrams::build([&b"abcd"[..]]);
    /// assert_eq!(IndexGrams::decode(&grams.encode())?, grams);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.0.encode(&mut out);
        out
    }

    /// Decodes an encoding.
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) when the
    /// bytes are not a valid encoding.
    ///
    /// ```
    /// assert!(candor_search::__index_hooks::IndexGrams::decode(b"x").is_err());
    /// ```
    pub fn decode(bytes: &[u8]) -> Result<IndexGrams, Error> {
        Grams::decode(bytes).map(IndexGrams)
    }

    /// The candidate files of `query`, ascending, from `from` on.
    ///
    /// ```
    /// use candor_search::{Query, __index_hooks::IndexGrams};
    /// let grams = IndexGrams::build([&b"abcd"[..], b"xyz"]);
    /// let ids: Vec<u32> = grams.candidates(&Query::literal("bcd"), 0).collect();
    /// assert_eq!(ids, [0]);
    /// ```
    pub fn candidates(&self, query: &Query, from: u32) -> impl Iterator<Item = u32> + '_ {
        let mut c = self.0.candidates(&plan::need(query));
        c.seek(from);
        c
    }
}

/// A plan, as the planner makes it, with trigrams as 24-bit keys
/// (big-endian).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Every file.
    Any,
    /// The files holding this trigram.
    Gram(u32),
    /// The files in every part.
    All(Vec<Plan>),
    /// The files in any part.
    AnyOf(Vec<Plan>),
}

/// The plan of `query`.
///
/// ```
/// use candor_search::{Query, __index_hooks::{plan, Plan}};
/// assert_eq!(plan(&Query::literal("abc")), Plan::Gram(0x61_62_63));
/// ```
pub fn plan(query: &Query) -> Plan {
    fn convert(need: &Need) -> Plan {
        match need {
            Need::Any => Plan::Any,
            Need::Gram(g) => Plan::Gram(super::key(g)),
            Need::All(v) => Plan::All(v.iter().map(convert).collect()),
            Need::AnyOf(v) => Plan::AnyOf(v.iter().map(convert).collect()),
        }
    }
    convert(&plan::need(query))
}

/// The distinct trigrams of one file at a time, as 24-bit keys.
#[derive(Default)]
pub struct Trigrams(Distinct);

impl Trigrams {
    /// The distinct trigram keys of `bytes`, in the order first seen.
    ///
    /// ```
    /// let mut t = candor_search::__index_hooks::Trigrams::default();
    /// assert_eq!(t.of(b"aaaa"), [0x61_61_61]);
    /// ```
    pub fn of(&mut self, bytes: &[u8]) -> &[u32] {
        self.0.of(bytes)
    }
}

/// Decodes arbitrary bytes as trigram postings: a clean error, or
/// postings whose candidates, for a few plans and seeks, come out
/// strictly ascending without a panic. The bytes are tried as they are,
/// and again with the checksum of each block of their trigram table
/// made to match (when their head reads), so that the checks behind the
/// checksums are reached too.
///
/// ```
/// candor_search::__index_hooks::fuzz_decode(b"CNDGRAMS\x01\x00\x00\x00");
/// ```
///
/// # Panics
///
/// When decoded postings yield candidates out of order.
pub fn fuzz_decode(bytes: &[u8]) {
    check_decoded(bytes);
    if let Some(fixed) = with_block_checksums(bytes) {
        check_decoded(&fixed);
    }
}

/// `bytes` (an encoding of postings) with the checksum of each block of
/// the table made to match the block, when the head reads and the table
/// is all there.
///
/// ```
/// use candor_search::__index_hooks::{IndexGrams, with_block_checksums};
/// let bytes = IndexGrams::build([&b"abcd"[..]]).encode();
/// assert_eq!(with_block_checksums(&bytes), Some(bytes));
/// ```
pub fn with_block_checksums(bytes: &[u8]) -> Option<Vec<u8>> {
    let (_, end, head) = Grams::decode_table(bytes).ok()?;
    // The blocks' references end the head: written again, with checksums
    // of the blocks as they are.
    let refs = end.checked_sub(head.blocks.len() * table::BLOCK_REF)?;
    let mut out = bytes[..refs].to_vec();
    for (b, block) in head.blocks.iter().enumerate() {
        let (from, to) = table::block_range(b, head.trigrams);
        let crc = crc32fast::hash(bytes.get(end + from..end + to)?);
        table::put_ref(&mut out, &table::BlockRef { crc, ..*block });
    }
    out.extend_from_slice(&bytes[end..]);
    Some(out)
}

/// `body` (a manifest's, after its header) with the checksums of its
/// sections and blocks made to match them, when its directory reads, so
/// that a fuzzer's input reaches the checks behind the checksums.
///
/// ```
/// assert_eq!(candor_search::__index_hooks::manifest_with_checksums(b"short"), None);
/// ```
pub fn manifest_with_checksums(body: &[u8]) -> Option<Vec<u8>> {
    crate::index::format::with_checksums(body)
}

/// The length of a manifest's directory: what its header's checksum
/// covers.
pub const MANIFEST_DIRECTORY: usize = crate::index::format::DIRECTORY;

fn check_decoded(bytes: &[u8]) {
    let Ok(grams) = Grams::decode(bytes) else {
        return;
    };
    let mut plans = vec![Need::Any];
    let mut keys = grams.keys.iter().copied();
    let mut gram = || {
        keys.next()
            .map(|k| Need::Gram([(k >> 16) as u8, (k >> 8) as u8, k as u8]))
    };
    if let (Some(a), Some(b)) = (gram(), gram()) {
        plans.push(a.clone());
        plans.push(Need::All(vec![a.clone(), b.clone()]));
        plans.push(Need::AnyOf(vec![a, b]));
    }
    for plan in &plans {
        let all: Vec<u32> = grams.candidates(plan).collect();
        assert!(
            all.windows(2).all(|w| w[0] < w[1]),
            "candidates out of order"
        );
        let mut c = grams.candidates(plan);
        if let Some(&mid) = all.get(all.len() / 2) {
            c.seek(mid);
            assert_eq!(c.next(), Some(mid));
            c.seek(0);
            assert_eq!(c.next(), all.first().copied());
        }
    }
}

/// Sets the size of the blocks that builds from now on cut files into
/// (at least 1 byte; `None` for the default). Any size gives the same
/// answers, only the index's size and speed change: tests set a small
/// one so that their small files take several ids.
///
/// ```
/// candor_search::__index_hooks::set_block_bytes(Some(64));
/// candor_search::__index_hooks::set_block_bytes(None);
/// ```
pub fn set_block_bytes(size: Option<u64>) {
    super::BLOCK_SIZE.store(
        size.map_or(super::BLOCK_BYTES, |s| s.max(1)),
        std::sync::atomic::Ordering::Relaxed,
    );
}
