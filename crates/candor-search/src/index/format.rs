//! The index's files on disk: a header (magic, format version, kind, the
//! walk rules' fingerprint, the generation, the body's length and a
//! CRC-32) and a body; the manifest's body (the entries in walk order,
//! each path written as the length of the prefix it shares with the path
//! before it and the rest, then the delta's posting lists) and the
//! base's (its posting lists). Reading checks
//! every field and every entry: a file that is corrupt, truncated, of
//! another format version or written under other walk rules is refused,
//! never read as truth.
//!
//! A manifest is read whole, and its header's CRC covers its whole body.
//! A base is read in parts: its body is the length of its head (8 bytes),
//! the head (the list of every file and, for each block of the trigrams'
//! table, its first trigram and CRC-32), then the table (fixed-width
//! entries, each with its list's CRC-32) and the lists; the header's CRC
//! covers the length and the head, read and checked when the base is
//! opened, and each block of the table and each list is checked against
//! its own CRC when a query reads it.

use std::sync::Arc;

use crate::index::grams::Grams;
use crate::index::snapshot::{
    Entry, FileEntry, FolderEntry, Segment, SkipEntry, Snapshot, walk_order,
};
use crate::{SkipReason, SkippedInput};
use crate::{cmp_paths, is_plain_position, is_position, is_within};

/// The first bytes of every index file.
const MAGIC: &[u8; 8] = b"CANDORIX";

/// The format version this code writes and reads.
pub(crate) const VERSION: u32 = 5;

/// The header's length in bytes.
pub(crate) const HEADER: usize = 8 + 4 + 4 + 8 + 8 + 8 + 4;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Manifest = 1,
    Base = 2,
}

/// A header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) kind: Kind,
    pub(crate) rules: u64,
    pub(crate) generation: u64,
}

/// A whole file: the header, then `body`.
pub(crate) fn file(header: Header, body: &[u8]) -> Vec<u8> {
    framed(header, body, body)
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
    let mut r = Reader { bytes, at: 0 };
    if r.take(8).ok() != Some(&MAGIC[..]) {
        return Err("not an index file (bad magic)".into());
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(format!(
            "format version {version}, and this build reads version {VERSION}"
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

/// Checks a whole file against what is expected of it, and gives its
/// body.
///
/// # Errors
///
/// What is wrong: that of `header`, or a body truncated, extended, or
/// whose checksum does not match.
pub(crate) fn body(bytes: &[u8], expect: Header) -> Result<&[u8], String> {
    let (len, crc) = header(bytes, expect)?;
    let body = &bytes[HEADER.min(bytes.len())..];
    if body.len() as u64 != len {
        return Err(format!(
            "truncated or extended: a body of {} bytes where the header says {len}",
            body.len()
        ));
    }
    if crc32fast::hash(body) != crc {
        return Err("the checksum does not match: the file is corrupt".into());
    }
    Ok(body)
}

/// The manifest's body.
pub(crate) fn manifest(snap: &Snapshot) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = "";
    out.extend_from_slice(&snap.base_generation.to_le_bytes());
    out.extend_from_slice(&snap.parents.to_le_bytes());
    out.extend_from_slice(&(snap.entries.len() as u64).to_le_bytes());
    for entry in &snap.entries {
        match entry {
            Entry::Folder(f) => {
                out.push(0);
                put_path(&mut out, prev, &f.path);
                out.extend_from_slice(&f.stamp.to_le_bytes());
                out.push(f.ignores);
                out.push(u8::from(f.always));
            }
            Entry::File(f) => {
                out.push(1);
                put_path(&mut out, prev, &f.path);
                out.extend_from_slice(&f.stamp.to_le_bytes());
                out.extend_from_slice(&f.len.to_le_bytes());
                out.push(
                    u8::from(f.always)
                        | u8::from(f.racy) << 1
                        | u8::from(f.binary) << 2
                        | u8::from(f.linked) << 3,
                );
                out.push(match f.segment {
                    Segment::Base => 0,
                    Segment::Delta => 1,
                });
                out.extend_from_slice(&f.id.to_le_bytes());
                out.extend_from_slice(&f.blocks.to_le_bytes());
                let starts = u32::try_from(f.starts.len()).unwrap_or(0);
                out.extend_from_slice(&starts.to_le_bytes());
                for start in &f.starts[..starts as usize] {
                    out.extend_from_slice(&start.to_le_bytes());
                }
            }
            Entry::Skip(s) => {
                out.push(2);
                put_path(&mut out, prev, s.input.path());
                put_str(&mut out, s.input.reason().as_str());
                match s.input.detail() {
                    Some(d) => {
                        out.push(1);
                        put_str(&mut out, d);
                    }
                    None => out.push(0),
                }
            }
        }
        prev = entry.path();
    }
    let mut delta = Vec::new();
    snap.delta.encode(&mut delta);
    out.extend_from_slice(&(delta.len() as u64).to_le_bytes());
    out.extend_from_slice(&delta);
    out
}

/// What a manifest's body holds, before its base is read.
pub(crate) struct Manifest {
    pub(crate) base_generation: u64,
    pub(crate) parents: u64,
    pub(crate) entries: Vec<Entry>,
    pub(crate) delta: Grams,
}

/// Reads a manifest's body, checking that its entries are a walk's: in
/// path order, each below a folder listed before it, each file's ids
/// (one or more, consecutive) after the ids of the file before it in the
/// same posting lists.
///
/// # Errors
///
/// What is wrong with it.
pub(crate) fn read_manifest(body: &[u8]) -> Result<Manifest, String> {
    let mut r = Reader { bytes: body, at: 0 };
    let base_generation = r.u64()?;
    let parents = r.u64()?;
    let count = r.u64()?;
    // Each entry takes at least 6 bytes: no allocation past the input.
    if count > body.len() as u64 / 6 {
        return Err("more entries than the file can hold".into());
    }
    let mut entries: Vec<Entry> = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut walk = WalkCheck::default();
    for _ in 0..count {
        let prev = entries.last().map_or("", Entry::path);
        let entry = match r.u8()? {
            0 => Entry::Folder(FolderEntry {
                path: r.path(prev)?,
                stamp: r.u64()?,
                ignores: r.u8()?,
                always: r.flag()?,
            }),
            1 => {
                let (path, stamp, len, flags) = (r.path(prev)?, r.u64()?, r.u64()?, r.u8()?);
                // Binary (4) only with always (1).
                if flags > 15 || (flags & 4 != 0 && flags & 1 == 0) {
                    return Err(format!("bad file flags {flags}"));
                }
                Entry::File(FileEntry {
                    path,
                    stamp,
                    len,
                    always: flags & 1 != 0,
                    binary: flags & 4 != 0,
                    linked: flags & 8 != 0,
                    racy: flags & 2 != 0,
                    segment: match r.u8()? {
                        0 => Segment::Base,
                        1 => Segment::Delta,
                        s => return Err(format!("unknown posting lists {s}")),
                    },
                    id: r.u32()?,
                    blocks: r.u32()?,
                    starts: r.starts()?,
                })
            }
            2 => {
                let path = r.path(prev)?;
                let reason = SkipReason::from_wire(&r.str()?);
                if !reason.is_built_in() {
                    return Err(format!("unknown skip reason {:?}", reason.as_str()));
                }
                let input = SkippedInput::new(path, reason);
                let input = match r.u8()? {
                    0 => input,
                    1 => input.with_detail(r.str()?),
                    f => return Err(format!("bad detail flag {f}")),
                };
                Entry::Skip(SkipEntry { input })
            }
            t => return Err(format!("unknown entry tag {t}")),
        };
        walk.next(entries.last(), &entry)?;
        entries.push(entry);
    }
    let delta_len = r.u64()?;
    let delta_bytes = r.take_u64(delta_len)?;
    if r.at != body.len() {
        return Err("bytes past the manifest's end".into());
    }
    let delta = Grams::decode(delta_bytes).map_err(|e| e.to_string())?;
    Ok(Manifest {
        base_generation,
        parents,
        entries,
        delta,
    })
}

/// The rules of a walk (see `read_manifest`), checked entry by entry as
/// the manifest is read, while the entry before is still in the cache.
#[derive(Default)]
struct WalkCheck {
    /// The folders that hold the previous entry (and it, if a folder),
    /// outermost first, each as the length of its path: a prefix of the
    /// previous entry's.
    folders: Vec<usize>,
    /// Whether the previous entry's path holds an escape.
    escaped: bool,
    /// Where the ids of the last file met in the base's posting lists
    /// end, and in the delta's.
    ids: [Option<u32>; 2],
}

impl WalkCheck {
    /// Checks `entry`, read after `last`.
    fn next(&mut self, last: Option<&Entry>, entry: &Entry) -> Result<(), String> {
        let path = entry.path();
        let prev = last.map_or("", Entry::path);
        let escaped = memchr::memchr(b'\\', path.as_bytes()).is_some();
        let root = path.is_empty() && matches!(entry, Entry::Folder(_) | Entry::Skip(_));
        let (valid, order) = if escaped || self.escaped {
            (is_position(path), walk_order(prev, path))
        } else {
            // The names before the first byte that differs are the
            // previous path's, already checked.
            let shared = common_prefix(prev, path);
            let name = memchr::memrchr(b'/', &path.as_bytes()[..shared]).map_or(0, |i| i + 1);
            (
                is_plain_position(&path[name..]),
                cmp_paths(&prev[name..], &path[name..]),
            )
        };
        self.escaped = escaped;
        if !root && !valid {
            return Err(format!("{path:?} is not a path of a tree"));
        }
        if last.is_some() {
            // A folder cut short is listed right after itself, as a skip.
            let cut =
                order.is_eq() && matches!((last, entry), (Some(Entry::Folder(_)), Entry::Skip(_)));
            if !order.is_lt() && !cut {
                return Err(format!("{path:?} is out of path order"));
            }
        }
        while let Some(&len) = self.folders.last() {
            if is_within(path, &prev[..len]) {
                break;
            }
            self.folders.pop();
        }
        // What is left on the stack holds `path`: a prefix of it, equal
        // to a prefix of `path` exactly when their lengths are.
        let top = self.folders.last().copied();
        let parent = memchr::memrchr(b'/', path.as_bytes()).unwrap_or(0);
        let placed = match entry {
            Entry::Folder(_) if path.is_empty() => top.is_none(),
            Entry::Skip(_) if path.is_empty() => true,
            Entry::Skip(_) => top.is_some_and(|f| f == parent || f == path.len()),
            _ => top == Some(parent),
        };
        if !placed {
            return Err(format!("{path:?} is not below the folder listed before it"));
        }
        match entry {
            Entry::Folder(_) => self.folders.push(path.len()),
            Entry::File(f) => {
                let slot = &mut self.ids[usize::from(f.segment == Segment::Delta)];
                if slot.is_some_and(|end| end > f.id) {
                    return Err(format!("{path:?} has an id out of order"));
                }
                let end = match f.blocks {
                    0 => return Err(format!("{path:?} has no id")),
                    n => f.id.checked_add(n).ok_or("ids past the last one")?,
                };
                *slot = Some(end);
                // Where its blocks start, if recorded: one start per block
                // after the first, ascending, within the file.
                let cut = f.starts.len() as u64 == u64::from(f.blocks) - 1
                    && f.starts.windows(2).all(|w| w[0] <= w[1])
                    && f.starts.last().is_none_or(|&s| s <= f.len)
                    && !f.always;
                if !f.starts.is_empty() && !cut {
                    return Err(format!("{path:?} has blocks that do not cut it"));
                }
            }
            Entry::Skip(_) => {}
        }
        Ok(())
    }
}

/// The snapshot of a manifest and its base's posting lists.
pub(crate) fn snapshot(generation: u64, manifest: Manifest, base: Arc<Grams>) -> Snapshot {
    Snapshot {
        generation,
        base_generation: manifest.base_generation,
        parents: manifest.parents,
        entries: manifest.entries,
        base,
        delta: manifest.delta,
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
    out.extend_from_slice(&(shared as u32).to_le_bytes());
    put_str(out, &path[shared..]);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Reads fields from a body, never past its end.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("truncated")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn take_u64(&mut self, n: u64) -> Result<&'b [u8], String> {
        self.take(usize::try_from(n).map_err(|_| "truncated")?)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn flag(&mut self) -> Result<bool, String> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            f => Err(format!("bad flag {f}")),
        }
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

    /// A count, then as many offsets.
    fn starts(&mut self) -> Result<Box<[u64]>, String> {
        let count = self.u32()?;
        let bytes = self.take_u64(u64::from(count) * 8)?;
        Ok(bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect())
    }

    fn str(&mut self) -> Result<String, String> {
        let len = self.u32()?;
        let bytes = self.take(len as usize)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| "a name that is not UTF-8".into())
    }

    /// A path written by `put_path` after `prev`.
    fn path(&mut self, prev: &str) -> Result<String, String> {
        let shared = self.u32()? as usize;
        let len = self.u32()? as usize;
        let rest = self.take(len)?;
        let rest = std::str::from_utf8(rest).map_err(|_| "a name that is not UTF-8")?;
        // A boundary of `prev`'s characters: the joint is UTF-8.
        let head = prev
            .get(..shared)
            .ok_or("a path sharing more than the path before it")?;
        let mut path = String::with_capacity(shared + len);
        path.push_str(head);
        path.push_str(rest);
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, id: u32, blocks: u32) -> Entry {
        cut(path, id, blocks, &[])
    }

    /// A file of 9 bytes whose blocks after the first start at `starts`.
    fn cut(path: &str, id: u32, blocks: u32, starts: &[u64]) -> Entry {
        Entry::File(FileEntry {
            path: path.to_owned(),
            stamp: 7,
            len: 9,
            always: false,
            binary: false,
            linked: false,
            racy: false,
            segment: Segment::Base,
            id,
            blocks,
            starts: starts.into(),
        })
    }

    fn read(files: Vec<Entry>) -> Result<Manifest, String> {
        let mut snap = Snapshot::empty();
        snap.entries.push(Entry::Folder(FolderEntry {
            path: String::new(),
            stamp: 1,
            ignores: 0,
            always: false,
        }));
        snap.entries.extend(files);
        read_manifest(&manifest(&snap))
    }

    #[test]
    fn the_ids_of_files_are_runs_in_path_order() {
        let read_back = read(vec![file("a", 0, 3), file("b", 3, 1), file("c", 9, 2)]);
        let entries = read_back.expect("a walk").entries;
        assert!(matches!(&entries[1], Entry::File(f) if f.id == 0 && f.blocks == 3));
        // Runs that overlap, run backwards or are empty are refused.
        for files in [
            vec![file("a", 0, 3), file("b", 2, 1)],
            vec![file("a", 4, 1), file("b", 0, 1)],
            vec![file("a", 0, 0)],
            vec![file("a", u32::MAX, 2)],
        ] {
            let error = read(files).err().expect("refused");
            assert!(error.contains("id"), "{error}");
        }
    }

    #[test]
    fn the_blocks_of_a_file_cut_it_in_order() {
        let read_back = read(vec![cut("a", 0, 3, &[4, 9]), cut("b", 3, 2, &[0])]);
        let entries = read_back.expect("a walk").entries;
        assert!(matches!(&entries[1], Entry::File(f) if *f.starts == [4, 9]));
        // Not one start per block after the first, out of order, or past
        // the file's end: refused.
        for files in [
            vec![cut("a", 0, 3, &[4])],
            vec![cut("a", 0, 1, &[4])],
            vec![cut("a", 0, 3, &[5, 4])],
            vec![cut("a", 0, 2, &[10])],
        ] {
            let error = read(files).err().expect("refused");
            assert!(error.contains("blocks"), "{error}");
        }
    }
}
