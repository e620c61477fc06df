//! The table of trigrams: one fixed-width entry per trigram, in
//! ascending trigram order, cut into blocks of `BLOCK` entries. The head
//! of the postings names each block's first trigram, where its first
//! list starts and its CRC-32, so a query that needs a few trigrams reads
//! and checks a few blocks (a binary search in the head, one read each),
//! not the whole table.
//!
//! An entry is `ENTRY` bytes: the trigram (3 bytes, big-endian), its
//! list's count of ids (4 bytes), where its list ends within the lists'
//! bytes (8 bytes; it starts where the entry before it ends, or where its
//! block starts) and the list's CRC-32 (4 bytes), integers
//! little-endian.

use crate::Error;
use crate::index::grams::{bad, key};

/// Entries per block.
pub(crate) const BLOCK: usize = 128;
/// The bytes of one entry.
pub(crate) const ENTRY: usize = 3 + 4 + 8 + 4;
/// The bytes of one block's reference in the head.
pub(crate) const BLOCK_REF: usize = 3 + 8 + 4;

/// A block's reference, as the head holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GramBlockRef {
    /// The block's first trigram key.
    pub(crate) first: u32,
    /// Where the block's first list starts within the lists' bytes.
    pub(crate) start: u64,
    /// The CRC-32 of the block's entries.
    pub(crate) crc: u32,
}

/// One trigram's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GramEntry {
    pub(crate) key: u32,
    pub(crate) count: u32,
    /// Where the list starts and ends within the lists' bytes.
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) crc: u32,
}

/// What a block's entries must agree with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ListBounds {
    /// The ids in the list of every file: no list holds more.
    pub(crate) files: u32,
    /// The length of the lists' bytes: no list ends past it.
    pub(crate) lists: u64,
}

/// Appends the table of `entries` (key, count, list's bytes) to `out`,
/// and gives the blocks' references.
pub(crate) fn encode<'a>(
    entries: impl Iterator<Item = (u32, u32, &'a [u8])>,
    out: &mut Vec<u8>,
) -> Vec<GramBlockRef> {
    let mut table = Table::default();
    for (key, count, list) in entries {
        table.push(out, key, count, list);
    }
    table.finish()
}

/// The table written entry by entry, in ascending trigram order, to a
/// buffer that may be emptied between entries (the blocks' checksums are
/// taken as the entries are written).
#[derive(Default)]
pub(crate) struct Table {
    blocks: Vec<GramBlockRef>,
    /// How many entries were written.
    entries: usize,
    /// Where the last list ends within the lists' bytes.
    end: u64,
    /// The checksum of the current block's entries so far.
    crc: crc32fast::Hasher,
}

impl Table {
    /// Appends the entry of the list `list` of `count` ids of `key` to
    /// `out`.
    pub(crate) fn push(&mut self, out: &mut Vec<u8>, key: u32, count: u32, list: &[u8]) {
        if self.entries % BLOCK == 0 {
            self.close();
            self.blocks.push(GramBlockRef {
                first: key,
                start: self.end,
                crc: 0,
            });
        }
        self.entries += 1;
        self.end += list.len() as u64;
        let at = out.len();
        out.extend_from_slice(&key.to_be_bytes()[1..]);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&self.end.to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(list).to_le_bytes());
        self.crc.update(&out[at..]);
    }

    /// The blocks' references.
    pub(crate) fn finish(mut self) -> Vec<GramBlockRef> {
        self.close();
        self.blocks
    }

    /// Sets the checksum of the last block to that of its entries.
    fn close(&mut self) {
        let crc = std::mem::take(&mut self.crc).finalize();
        if let Some(last) = self.blocks.last_mut() {
            last.crc = crc;
        }
    }
}

/// Appends a block's reference to the head.
pub(crate) fn put_ref(out: &mut Vec<u8>, block: &GramBlockRef) {
    out.extend_from_slice(&block.first.to_be_bytes()[1..]);
    out.extend_from_slice(&block.start.to_le_bytes());
    out.extend_from_slice(&block.crc.to_le_bytes());
}

/// Reads the references of the blocks of `n` entries from `bytes` at
/// `at`, checking that they ascend and lie within `bounds`.
///
/// # Errors
///
/// When they are cut short or out of order.
pub(crate) fn get_refs(
    bytes: &[u8],
    at: &mut usize,
    n: usize,
    bounds: ListBounds,
) -> Result<Vec<GramBlockRef>, Error> {
    let count = n.div_ceil(BLOCK);
    let size = count
        .checked_mul(BLOCK_REF)
        .ok_or_else(|| bad("cut short"))?;
    let raw = bytes
        .get(*at..)
        .and_then(|r| r.get(..size))
        .ok_or_else(|| bad("cut short"))?;
    *at += size;
    let mut blocks: Vec<GramBlockRef> = Vec::with_capacity(count);
    for r in raw.chunks_exact(BLOCK_REF) {
        let block = GramBlockRef {
            first: key(&[r[0], r[1], r[2]]),
            start: u64::from_le_bytes(r[3..11].try_into().unwrap_or_default()),
            crc: u32::from_le_bytes(r[11..15].try_into().unwrap_or_default()),
        };
        let in_order = match blocks.last() {
            Some(prev) => prev.first < block.first && prev.start <= block.start,
            None => block.start == 0,
        };
        if !in_order || block.start > bounds.lists {
            return Err(bad("trigram blocks out of order"));
        }
        blocks.push(block);
    }
    Ok(blocks)
}

/// The entries of block `b` of `blocks`, from its bytes, checked: its
/// checksum, its keys ascending from its first one and below the next
/// block's, each list within the lists' bytes and of a length its count
/// allows (one byte at least, five an id at most).
///
/// # Errors
///
/// What is wrong with the block.
pub(crate) fn entries(
    bytes: &[u8],
    blocks: &[GramBlockRef],
    b: usize,
    bounds: ListBounds,
) -> Result<Vec<GramEntry>, String> {
    let block = blocks[b];
    if crc32fast::hash(bytes) != block.crc {
        return Err("a block of the trigram table does not match its checksum".into());
    }
    let next = blocks.get(b + 1);
    let mut out: Vec<GramEntry> = Vec::with_capacity(bytes.len() / ENTRY);
    let mut start = block.start;
    for r in bytes.chunks_exact(ENTRY) {
        let entry = GramEntry {
            key: key(&[r[0], r[1], r[2]]),
            count: u32::from_le_bytes(r[3..7].try_into().unwrap_or_default()),
            start,
            end: u64::from_le_bytes(r[7..15].try_into().unwrap_or_default()),
            crc: u32::from_le_bytes(r[15..19].try_into().unwrap_or_default()),
        };
        let keyed = match out.last() {
            Some(prev) => prev.key < entry.key,
            None => entry.key == block.first,
        } && next.is_none_or(|n| entry.key < n.first);
        let len = entry.end.checked_sub(entry.start);
        let sized = len.is_some_and(|len| {
            entry.count > 0
                && entry.count <= bounds.files
                && len >= 1
                && len <= u64::from(entry.count) * 5
        });
        if !keyed || !sized || entry.end > bounds.lists {
            return Err("a malformed entry in the trigram table".into());
        }
        start = entry.end;
        out.push(entry);
    }
    let follows = next.map_or(bounds.lists, |n| n.start);
    if out.is_empty() || start != follows {
        return Err(
            "a block of the trigram table does not end where what follows it starts".into(),
        );
    }
    Ok(out)
}

/// The byte range of block `b`'s entries within a table of `n` entries.
pub(crate) fn block_range(b: usize, n: usize) -> (usize, usize) {
    let from = b * BLOCK;
    (from * ENTRY, (n.min(from + BLOCK)) * ENTRY)
}

/// The block that would hold `key`: the last whose first key is at most
/// `key`.
pub(crate) fn block_of(blocks: &[GramBlockRef], key: u32) -> Option<usize> {
    blocks.partition_point(|b| b.first <= key).checked_sub(1)
}
