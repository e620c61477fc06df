//! The index's files on disk: a header (magic, format version, kind, the
//! walk rules' fingerprint, the generation, the body's length and a
//! CRC-32) and a body: the manifest's (the entries the walk met, in
//! blocks a query reads one by one, and what finds them) or the base's
//! (its posting lists). Whatever is read is checked first: a file that
//! is corrupt, truncated, of another format version or written under
//! other walk rules is refused, never read as truth. The whole layout,
//! field by field, is in `docs/INDEX.md`.
//!
//! A manifest is read in parts, as a query needs them. Its header's CRC
//! covers its directory (the counts, and where each section lies with
//! its CRC-32); the sections are the block index (each block of entries'
//! length, first entry, first ids and CRC-32), the keys (each block's
//! first path), the special entries (those every query visits: inputs
//! left out, files not indexed or not to be trusted, folders listed
//! again), the blocks of entries (about `BLOCK_BYTES` each, in path
//! order, each path written as the length of the prefix it shares with
//! the path before it in its block and the rest), and the delta's
//! posting lists. Opening reads and checks the directory, the index, the
//! keys and the specials; a block is read and checked against its CRC
//! when a query needs one of its entries.
//!
//! A base is read in parts too: its body is the length of its head (8
//! bytes), the head (the list of every file and, for each block of the
//! trigrams' table, its first trigram and CRC-32), then the table
//! (fixed-width entries, each with its list's CRC-32) and the lists; the
//! header's CRC covers the length and the head, read and checked when
//! the base is opened, and each block of the table and each list is
//! checked against its own CRC when a query reads it.

use crate::index::entry::{FileEntry, FolderEntry, RecordEntry, Segment, SkipEntry, walk_order};
use crate::index::grams::Grams;
use crate::seam::{cmp_paths, is_plain_position, is_position};
use crate::{SkipReason, SkippedInput};

/// The first bytes of every index file.
const MAGIC: &[u8; 8] = b"CANDORIX";

/// The format version this code writes and reads.
pub(crate) const VERSION: u32 = 6;

/// The header's length in bytes.
pub(crate) const HEADER: usize = 8 + 4 + 4 + 8 + 8 + 8 + 4;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileRole {
    Manifest = 1,
    Base = 2,
}

/// A header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) kind: FileRole,
    pub(crate) rules: u64,
    pub(crate) generation: u64,
}

/// A whole base file: the header, then the length of the postings'
/// head, the head, the table and the lists; the checksum covers the
/// length and the head (each block of the table and each list carries
/// its own).
// The build writes a base in parts (`grams::write_postings`); this, the
// whole file at once, is what its tests compare it with.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn base_file(header: Header, grams: &Grams) -> Vec<u8> {
    let mut body = vec![0; 8];
    let head = grams.encode(&mut body) as u64;
    body[..8].copy_from_slice(&head.to_le_bytes());
    framed(header, &body, &body[..8 + head as usize])
}

/// The header (its checksum over `checked`), then `body`.
fn framed(header: Header, body: &[u8], checked: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len());
    put_header(
        &mut out,
        header,
        body.len() as u64,
        crc32fast::hash(checked),
    );
    out.extend_from_slice(body);
    out
}

/// Appends the header of a file whose body is `len` bytes and whose
/// checksum is `crc` (a base written in parts puts its header last).
pub(crate) fn put_header(out: &mut Vec<u8>, header: Header, len: u64, crc: u32) {
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(header.kind as u32).to_le_bytes());
    out.extend_from_slice(&header.rules.to_le_bytes());
    out.extend_from_slice(&header.generation.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
}

/// Checks a header (the first `HEADER` bytes of a file) against what is
/// expected of it, and gives the body's length and the checksum.
///
/// # Errors
///
/// What is wrong: not an index file, another version, another kind,
/// other walk rules, another generation, or truncated.
pub(crate) fn header(bytes: &[u8], expect: Header) -> Result<(u64, u32), String> {
    let mut r = Reader {
        bytes,
        at: 0,
        shared: 0,
    };
    if r.take(8).ok() != Some(&MAGIC[..]) {
        return Err("not an index file (bad magic)".into());
    }
    let version = r.u32()?;
    if version != VERSION {
        let by = if version < VERSION {
            "an older"
        } else {
            "a newer"
        };
        return Err(format!(
            "written in format version {version}, by {by} version of candor; this build \
             reads version {VERSION}: build the index again"
        ));
    }
    let kind = r.u32()?;
    if kind != expect.kind as u32 {
        return Err(format!(
            "a file of kind {kind} where kind {} was expected",
            expect.kind as u32
        ));
    }
    let rules = r.u64()?;
    if rules != expect.rules {
        return Err(
            "built under other walk rules (root, hidden, ignore files, links, globs or size limit)"
                .into(),
        );
    }
    let generation = r.u64()?;
    if generation != expect.generation {
        return Err(format!(
            "generation {generation} where {} was expected",
            expect.generation
        ));
    }
    Ok((r.u64()?, r.u32()?))
}

/// About how many bytes a block of entries holds: a query that needs one
/// entry reads and checks its block (one read of a few KiB), and the
/// block index holds 20 bytes a block.
pub(crate) const BLOCK_BYTES: usize = 4096;

/// The sections of a manifest, in the directory's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// Each block's reference: 20 bytes a block.
    Index = 0,
    /// Each block's first path.
    Keys = 1,
    /// The entries every query visits, each with its place.
    Specials = 2,
    /// The blocks of entries, each checked against the CRC in its
    /// reference.
    Blocks = 3,
    /// The delta's posting lists (see `grams`): the CRC covers their
    /// head; the table's blocks and the lists carry their own.
    Delta = 4,
}

const SECTIONS: usize = 5;

/// Where a section lies in the body, and the CRC-32 that covers it (see
/// `Section`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SectionSpan {
    pub(crate) at: u64,
    pub(crate) len: u64,
    pub(crate) crc: u32,
}

/// A manifest's directory: what the header's CRC covers, read when it is
/// opened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Directory {
    /// The generation whose build wrote the base posting lists.
    pub(crate) base_generation: u64,
    /// The stamp of the ignore files above the root.
    pub(crate) parents: u64,
    /// When the traversal that wrote this generation began to read the
    /// tree (nanoseconds since the epoch): what changed before is in it.
    pub(crate) read_ns: u64,
    /// How many entries, files in the base's lists, files in the delta's,
    /// blocks, special entries.
    pub(crate) entries: u64,
    pub(crate) base_files: u64,
    pub(crate) delta_files: u64,
    pub(crate) blocks: u64,
    pub(crate) specials: u64,
    /// The length of the delta's head (what its section's CRC covers).
    pub(crate) delta_head: u64,
    pub(crate) sections: [SectionSpan; SECTIONS],
}

/// The directory's length in bytes.
pub(crate) const DIRECTORY: usize = 10 * 8 + SECTIONS * 20;

impl Directory {
    pub(crate) fn section(&self, s: Section) -> SectionSpan {
        self.sections[s as usize]
    }

    fn encode(&self, out: &mut Vec<u8>) {
        for v in [
            self.base_generation,
            self.parents,
            self.read_ns,
            self.entries,
            self.base_files,
            self.delta_files,
            self.blocks,
            self.specials,
            self.delta_head,
            0,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for span in &self.sections {
            out.extend_from_slice(&span.at.to_le_bytes());
            out.extend_from_slice(&span.len.to_le_bytes());
            out.extend_from_slice(&span.crc.to_le_bytes());
        }
    }

    /// Reads a directory (the first `DIRECTORY` bytes of a body of
    /// `body_len` bytes), checking that its counts and sections agree.
    ///
    /// # Errors
    ///
    /// What is wrong with it.
    pub(crate) fn decode(bytes: &[u8], body_len: u64) -> Result<Directory, String> {
        let mut r = Reader {
            bytes,
            at: 0,
            shared: 0,
        };
        let mut d = Directory {
            base_generation: r.u64()?,
            parents: r.u64()?,
            read_ns: r.u64()?,
            entries: r.u64()?,
            base_files: r.u64()?,
            delta_files: r.u64()?,
            blocks: r.u64()?,
            specials: r.u64()?,
            delta_head: r.u64()?,
            ..Directory::default()
        };
        if r.u64()? != 0 {
            return Err("a reserved field is set".into());
        }
        let mut end = DIRECTORY as u64;
        for span in &mut d.sections {
            *span = SectionSpan {
                at: r.u64()?,
                len: r.u64()?,
                crc: r.u32()?,
            };
            // In order, side by side, within the body.
            if span.at != end {
                return Err("the sections are not where the directory says".into());
            }
            end = span
                .at
                .checked_add(span.len)
                .ok_or("a section past the end")?;
        }
        if end != body_len {
            return Err(format!(
                "truncated or extended: a body of {body_len} bytes where the directory says {end}"
            ));
        }
        let index = d.section(Section::Index).len;
        if Some(index) != d.blocks.checked_mul(INDEX_ENTRY as u64)
            || d.blocks > d.entries
            || (d.blocks == 0) != (d.entries == 0)
            || d.specials > d.entries
            || d.base_files.saturating_add(d.delta_files) > d.entries
            || d.delta_head > d.section(Section::Delta).len
            || d.entries > u64::from(u32::MAX)
        {
            return Err("counts that do not agree".into());
        }
        Ok(d)
    }
}

/// A block of entries' reference, in the block index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockRef {
    /// Where it lies within the blocks' section (the lengths of the blocks
    /// before it), and its length.
    pub(crate) at: u64,
    pub(crate) len: u32,
    /// The place of its first entry.
    pub(crate) first: u32,
    /// The id of the first file at or after its first entry in the base's
    /// posting lists, and in the delta's (`NO_ID`: none).
    pub(crate) ids: [u32; 2],
    pub(crate) crc: u32,
}

/// An id no file has (a file's ids end within `u32`).
pub(crate) const NO_ID: u32 = u32::MAX;

/// The length of a block's reference.
const INDEX_ENTRY: usize = 20;

/// Reads the block index: the blocks' references, in order, their
/// lengths adding up to `blocks_len`, their first entries ascending from
/// 0 below `entries`, their first ids ascending.
///
/// # Errors
///
/// What is wrong with it.
pub(crate) fn read_index(
    bytes: &[u8],
    entries: u64,
    blocks_len: u64,
) -> Result<Vec<BlockRef>, String> {
    let mut r = Reader {
        bytes,
        at: 0,
        shared: 0,
    };
    let mut out: Vec<BlockRef> = Vec::with_capacity(bytes.len() / INDEX_ENTRY);
    let mut at = 0u64;
    while r.at < bytes.len() {
        let block = BlockRef {
            at,
            len: r.u32()?,
            first: r.u32()?,
            ids: [r.u32()?, r.u32()?],
            crc: r.u32()?,
        };
        let ordered = match out.last() {
            None => block.first == 0,
            Some(last) => {
                block.first > last.first
                    && block.ids[0] >= last.ids[0]
                    && block.ids[1] >= last.ids[1]
            }
        };
        if !ordered || u64::from(block.first) >= entries || block.len == 0 {
            return Err("a block index out of order".into());
        }
        at += u64::from(block.len);
        out.push(block);
    }
    if at != blocks_len {
        return Err("blocks that do not fill their section".into());
    }
    Ok(out)
}

/// Reads the keys: each block's first path, in path order.
///
/// # Errors
///
/// What is wrong with them.
pub(crate) fn read_keys(bytes: &[u8], blocks: usize) -> Result<Vec<String>, String> {
    let mut r = Reader {
        bytes,
        at: 0,
        shared: 0,
    };
    let mut keys: Vec<String> = Vec::with_capacity(blocks);
    for _ in 0..blocks {
        let prev = keys.last().map_or("", String::as_str);
        let key = r.path(prev)?;
        if !keys.is_empty() && !walk_order(prev, &key).is_lt() {
            return Err(format!("the key {key:?} is out of path order"));
        }
        if !key.is_empty() && !is_position(&key) {
            return Err(format!("{key:?} is not a path of a tree"));
        }
        keys.push(key);
    }
    if r.at != bytes.len() {
        return Err("bytes past the keys".into());
    }
    Ok(keys)
}

/// Reads the special entries: `count` of them, each with its place
/// (ascending, below `entries`), each one every query visits.
///
/// # Errors
///
/// What is wrong with them.
pub(crate) fn read_specials(
    bytes: &[u8],
    count: u64,
    entries: u64,
) -> Result<Vec<(usize, RecordEntry)>, String> {
    let mut r = Reader {
        bytes,
        at: 0,
        shared: 0,
    };
    // Each takes at least 4 bytes: no allocation past the input.
    if count > bytes.len() as u64 / 4 {
        return Err("more special entries than the section can hold".into());
    }
    let mut out: Vec<(usize, RecordEntry)> =
        Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for _ in 0..count {
        let gap = r.varint()?;
        let at = match out.last() {
            None => gap,
            Some((last, _)) => (*last as u64).checked_add(gap + 1).ok_or("out of range")?,
        };
        if at >= entries {
            return Err("a special entry past the last entry".into());
        }
        let prev = out.last().map_or("", |(_, e)| e.path());
        let entry = r.entry(prev, &mut [0; 2])?;
        if !is_special(&entry) {
            return Err(format!("{:?} is no special entry", entry.path()));
        }
        out.push((usize::try_from(at).map_err(|_| "out of range")?, entry));
    }
    if r.at != bytes.len() {
        return Err("bytes past the special entries".into());
    }
    Ok(out)
}

/// Reads a block: the `count` entries from place `first` on, the first
/// at `key`, in path order, the ids of its files in each posting lists
/// ascending from `ids` (the first of each, exactly those).
///
/// # Errors
///
/// What is wrong with it.
pub(crate) fn read_block(
    bytes: &[u8],
    first: usize,
    count: usize,
    key: &str,
    ids: [u32; 2],
) -> Result<Vec<RecordEntry>, String> {
    let mut r = Reader {
        bytes,
        at: 0,
        shared: 0,
    };
    // Each entry takes at least 4 bytes: no allocation past the input.
    if count > bytes.len() / 4 + 1 {
        return Err("more entries than the block can hold".into());
    }
    let mut entries: Vec<RecordEntry> = Vec::with_capacity(count);
    let mut expected = ids;
    let mut met = [false; 2];
    let mut prev_escaped = false;
    for i in 0..count {
        let prev = entries.last().map_or("", RecordEntry::path);
        let entry = r.entry(prev, &mut expected)?;
        let path = entry.path();
        // The names the path shares whole with the one before were
        // checked with it: only the rest is, and compared.
        let escaped = memchr::memchr(b'\\', path.as_bytes()).is_some();
        let (valid, order) = if escaped || prev_escaped {
            (is_position(path), walk_order(prev, path))
        } else {
            let shared = &path.as_bytes()[..r.shared];
            let name = memchr::memrchr(b'/', shared).map_or(0, |i| i + 1);
            (
                is_plain_position(&path[name..]),
                cmp_paths(&prev[name..], &path[name..]),
            )
        };
        prev_escaped = escaped;
        if let RecordEntry::File(f) = &entry {
            let s = usize::from(f.segment == Segment::Delta);
            if !std::mem::replace(&mut met[s], true) && f.id != ids[s] {
                return Err(format!("{path:?} has an id out of order"));
            }
        }
        match entries.last() {
            None if path != key => return Err("a block that is not where its key says".into()),
            None => {}
            Some(last) => {
                // A folder cut short is listed right after itself, as a skip.
                let cut = matches!(
                    (last, &entry),
                    (RecordEntry::Folder(_), RecordEntry::Skip(_))
                );
                if !(order.is_lt() || (order.is_eq() && cut)) {
                    return Err(format!("{path:?} is out of path order"));
                }
            }
        }
        let root = path.is_empty()
            && match &entry {
                RecordEntry::Folder(_) => first + i == 0,
                RecordEntry::Skip(_) => true,
                RecordEntry::File(_) => false,
            };
        if !root && !valid {
            return Err(format!("{path:?} is not a path of a tree"));
        }
        entries.push(entry);
    }
    if r.at != bytes.len() {
        return Err("bytes past the block's entries".into());
    }
    Ok(entries)
}

/// Returns true when every query visits the entry, whatever its plan: an
/// input left out, a file read whatever the posting lists say (not
/// indexed, binary, changed within the build's tick) or whose stamp a
/// watched query takes (hard links), a folder listed again.
pub(crate) fn is_special(entry: &RecordEntry) -> bool {
    match entry {
        RecordEntry::Folder(f) => f.always,
        RecordEntry::File(f) => f.always || f.racy || f.linked,
        RecordEntry::Skip(_) => true,
    }
}

/// What a manifest is written from: a generation's entries, in path
/// order, and its delta's posting lists.
pub(crate) struct Written<'a> {
    pub(crate) base_generation: u64,
    pub(crate) parents: u64,
    pub(crate) read_ns: u64,
    pub(crate) entries: &'a [RecordEntry],
    pub(crate) delta: &'a Grams,
}

/// The manifest's body: the directory, then the sections (see
/// `Section`).
pub(crate) fn manifest(w: &Written<'_>) -> Vec<u8> {
    let mut blocks = Vec::new();
    let mut refs: Vec<BlockRef> = Vec::new();
    let mut keys = Vec::new();
    let mut specials = Vec::new();
    let mut files = [0u64; 2];
    let (mut prev_key, mut prev_special, mut last_special) = ("", "", None::<usize>);
    let mut block = Vec::new();
    let mut prev = "";
    let mut expected = [NO_ID; 2];
    for (at, entry) in w.entries.iter().enumerate() {
        if block.is_empty() {
            put_path(&mut keys, prev_key, entry.path());
            prev_key = entry.path();
            prev = "";
            refs.push(BlockRef {
                at: blocks.len() as u64,
                len: 0,
                first: u32::try_from(at).unwrap_or(u32::MAX),
                ids: [NO_ID; 2],
                crc: 0,
            });
            expected = [NO_ID; 2];
        }
        if let RecordEntry::File(f) = entry {
            let s = usize::from(f.segment == Segment::Delta);
            files[s] += 1;
            if let Some(r) = refs.last_mut().filter(|r| r.ids[s] == NO_ID) {
                r.ids[s] = f.id;
                expected[s] = f.id;
            }
        }
        put_entry(&mut block, prev, entry, &mut expected);
        prev = entry.path();
        if is_special(entry) {
            let gap = match last_special {
                None => at as u64,
                Some(last) => (at - last - 1) as u64,
            };
            put_varint(&mut specials, gap);
            put_entry(&mut specials, prev_special, entry, &mut [0; 2]);
            prev_special = entry.path();
            last_special = Some(at);
        }
        // A folder and the skip of its own path stay in one block: every
        // block's first path is greater than the one before.
        let next_same = w
            .entries
            .get(at + 1)
            .is_some_and(|n| n.path() == entry.path());
        if block.len() >= BLOCK_BYTES && !next_same {
            finish_block(&mut blocks, &mut block, refs.last_mut());
        }
    }
    finish_block(&mut blocks, &mut block, refs.last_mut());
    // A block without files of a posting lists points to the next file's.
    let mut next = [NO_ID; 2];
    for r in refs.iter_mut().rev() {
        for (id, next) in r.ids.iter_mut().zip(&mut next) {
            if *id == NO_ID {
                *id = *next;
            }
            *next = *id;
        }
    }
    let mut index = Vec::with_capacity(refs.len() * INDEX_ENTRY);
    for r in &refs {
        for v in [r.len, r.first, r.ids[0], r.ids[1], r.crc] {
            index.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut delta = Vec::new();
    let delta_head = w.delta.encode(&mut delta) as u64;
    let parts = [&index, &keys, &specials, &blocks, &delta];
    let mut dir = Directory {
        base_generation: w.base_generation,
        parents: w.parents,
        read_ns: w.read_ns,
        entries: w.entries.len() as u64,
        base_files: files[0],
        delta_files: files[1],
        blocks: refs.len() as u64,
        specials: last_special.map_or(0, |_| specials_count(w.entries)),
        delta_head,
        sections: [SectionSpan::default(); SECTIONS],
    };
    let mut at = DIRECTORY as u64;
    for (i, part) in parts.iter().enumerate() {
        let crc = match i {
            3 => 0,
            4 => crc32fast::hash(&part[..delta_head as usize]),
            _ => crc32fast::hash(part),
        };
        dir.sections[i] = SectionSpan {
            at,
            len: part.len() as u64,
            crc,
        };
        at += part.len() as u64;
    }
    let mut out = Vec::with_capacity(at as usize);
    dir.encode(&mut out);
    for part in parts {
        out.extend_from_slice(part);
    }
    out
}

/// How many entries are special.
fn specials_count(entries: &[RecordEntry]) -> u64 {
    entries.iter().filter(|e| is_special(e)).count() as u64
}

/// Ends the block being written: its bytes appended, its reference's
/// length and CRC set.
fn finish_block(blocks: &mut Vec<u8>, block: &mut Vec<u8>, r: Option<&mut BlockRef>) {
    if block.is_empty() {
        return;
    }
    if let Some(r) = r {
        r.len = u32::try_from(block.len()).unwrap_or(u32::MAX);
        r.crc = crc32fast::hash(block);
    }
    blocks.append(block);
}

/// A manifest's whole file: the header (its CRC over the directory), then
/// the body.
pub(crate) fn manifest_file(header: Header, body: &[u8]) -> Vec<u8> {
    framed(header, body, &body[..DIRECTORY.min(body.len())])
}

/// The tag of an entry: its kind in the low two bits, its flags above.
const FOLDER: u8 = 0;
const FILE: u8 = 1;
const SKIP: u8 = 2;

/// Writes an entry: its tag, its path after `prev`, its fields; a file's
/// id as the gap from `expected` (the end of the ids of the file before
/// it in the same posting lists), which then moves past it.
fn put_entry(out: &mut Vec<u8>, prev: &str, entry: &RecordEntry, expected: &mut [u32; 2]) {
    match entry {
        RecordEntry::Folder(f) => {
            out.push(FOLDER | u8::from(f.always) << 2);
            put_path(out, prev, &f.path);
            out.extend_from_slice(&f.stamp.to_le_bytes());
            out.push(f.ignores);
        }
        RecordEntry::File(f) => {
            let delta = f.segment == Segment::Delta;
            let cut = !f.starts.is_empty();
            out.push(
                FILE | u8::from(f.always) << 2
                    | u8::from(f.racy) << 3
                    | u8::from(f.binary) << 4
                    | u8::from(f.linked) << 5
                    | u8::from(delta) << 6
                    | u8::from(cut) << 7,
            );
            put_path(out, prev, &f.path);
            out.extend_from_slice(&f.stamp.to_le_bytes());
            put_varint(out, f.len);
            let s = usize::from(delta);
            put_varint(out, u64::from(f.id.wrapping_sub(expected[s])));
            put_varint(out, u64::from(f.blocks));
            expected[s] = f.id.saturating_add(f.blocks);
            let mut last = 0;
            for &start in &f.starts {
                put_varint(out, start - last);
                last = start;
            }
        }
        RecordEntry::Skip(s) => {
            let detail = s.input.detail();
            out.push(SKIP | u8::from(detail.is_some()) << 2);
            put_path(out, prev, s.input.path());
            put_str(out, s.input.reason().as_str());
            if let Some(d) = detail {
                put_str(out, d);
            }
        }
    }
}

/// The length of the longest common prefix of `a` and `b` that ends on a
/// character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let end = x.len().min(y.len());
    let mut n = 0;
    // Eight bytes at a time, then one at a time.
    while n + 8 <= end && x[n..n + 8] == y[n..n + 8] {
        n += 8;
    }
    while n < end && x[n] == y[n] {
        n += 1;
    }
    (0..=n).rev().find(|&i| b.is_char_boundary(i)).unwrap_or(0)
}

/// Writes `path` as the length of the prefix it shares with `prev`, then
/// the rest (paths in walk order share long prefixes).
fn put_path(out: &mut Vec<u8>, prev: &str, path: &str) {
    let shared = common_prefix(prev, path);
    put_varint(out, shared as u64);
    put_str(out, &path[shared..]);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends `v` as a LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads fields from bytes, never past their end.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
    /// How many bytes the last path read shares with the one before it.
    shared: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("truncated")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A LEB128 varint of at most 64 bits.
    fn varint(&mut self) -> Result<u64, String> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            let part = u64::from(b & 0x7F);
            if shift == 63 && part > 1 {
                break;
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number too large".into())
    }

    /// A varint that fits 32 bits.
    fn varint32(&mut self) -> Result<u32, String> {
        u32::try_from(self.varint()?).map_err(|_| "a number too large".into())
    }

    fn len(&mut self) -> Result<usize, String> {
        usize::try_from(self.varint()?).map_err(|_| "truncated".into())
    }

    fn str(&mut self) -> Result<&'b str, String> {
        let len = self.len()?;
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes).map_err(|_| "a name that is not UTF-8".into())
    }

    /// A path written by `put_path` after `prev`.
    fn path(&mut self, prev: &str) -> Result<String, String> {
        let shared = self.len()?;
        let rest = self.str()?;
        // A boundary of `prev`'s characters: the joint is UTF-8.
        let head = prev
            .get(..shared)
            .ok_or("a path sharing more than the path before it")?;
        self.shared = shared;
        let mut path = String::with_capacity(shared + rest.len());
        path.push_str(head);
        path.push_str(rest);
        Ok(path)
    }

    /// An entry written by `put_entry` after `prev`, a file's id read as
    /// the gap from `expected` (see `put_entry`). In a block, the first
    /// file of each posting lists has its id where the block's reference
    /// says: no gap.
    fn entry(&mut self, prev: &str, expected: &mut [u32; 2]) -> Result<RecordEntry, String> {
        let tag = self.u8()?;
        let path = self.path(prev)?;
        match tag & 3 {
            FOLDER if tag >> 3 == 0 => Ok(RecordEntry::Folder(FolderEntry {
                path,
                stamp: self.u64()?,
                ignores: self.u8()?,
                always: tag & 4 != 0,
            })),
            FILE => {
                let flag = |bit: u8| tag & (1 << bit) != 0;
                let (always, racy, binary, linked, delta, cut) =
                    (flag(2), flag(3), flag(4), flag(5), flag(6), flag(7));
                // Binary only with always; blocks cut only when indexed.
                if (binary && !always) || (cut && always) {
                    return Err(format!("{path:?} has bad file flags {tag}"));
                }
                let stamp = self.u64()?;
                let len = self.varint()?;
                let s = usize::from(delta);
                let gap = self.varint32()?;
                let id = expected[s]
                    .checked_add(gap)
                    .ok_or("ids past the last one")?;
                let blocks = self.varint32()?;
                let end = match blocks {
                    0 => return Err(format!("{path:?} has no id")),
                    n => id.checked_add(n).filter(|&e| e != NO_ID),
                };
                expected[s] = end.ok_or("ids past the last one")?;
                let starts: Box<[u64]> = if cut {
                    let mut last = 0u64;
                    (1..blocks)
                        .map(|_| {
                            last = last.checked_add(self.varint()?).ok_or("out of range")?;
                            Ok(last)
                        })
                        .collect::<Result<_, String>>()?
                } else {
                    Box::default()
                };
                if starts.last().is_some_and(|&s| s > len) {
                    return Err(format!("{path:?} has blocks that do not cut it"));
                }
                Ok(RecordEntry::File(FileEntry {
                    path,
                    stamp,
                    len,
                    always,
                    binary,
                    linked,
                    racy,
                    segment: if delta { Segment::Delta } else { Segment::Base },
                    id,
                    blocks,
                    starts,
                }))
            }
            SKIP if tag >> 3 == 0 => {
                let reason = SkipReason::from_wire(self.str()?);
                if !reason.is_built_in() {
                    return Err(format!("unknown skip reason {:?}", reason.as_str()));
                }
                let input = SkippedInput::new(path, reason);
                let input = match tag & 4 {
                    0 => input,
                    _ => input.with_detail(self.str()?),
                };
                Ok(RecordEntry::Skip(SkipEntry { input }))
            }
            _ => Err(format!("unknown entry tag {tag}")),
        }
    }
}

#[cfg(test)]
mod tests;
