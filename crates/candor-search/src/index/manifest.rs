//! A generation's entries as queries read them: left in the manifest's
//! file, a block at a time. Opening reads the directory, the block index,
//! the keys (each block's first path) and the special entries (those
//! every query visits); a query reads the blocks it needs and no others:
//! a block by its place, the block that holds a path (found by the keys),
//! or the block that holds a file's id in the posting lists (found by the
//! index's first ids). Each block is checked against its CRC when read,
//! and the blocks read last are kept, decoded, for the next queries.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::index::entry::{RecordEntry, Segment, walk_order};
use crate::index::format::{self, BlockRef, Directory, NO_ID, Section};
use crate::index::grams::Disk;
use crate::seam::is_within;
use crate::{Error, ErrorKind};

/// How a manifest's entries compare with a walk's (see
/// `Manifest::compare`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Likeness {
    /// The same entries.
    Same,
    /// The same files, by path and in the same order, whatever their
    /// stamps; folders or skips may differ. The files a walk passes
    /// before any path are then the same.
    SameFiles,
    /// Files came or went.
    Different,
}

/// The path of a file's entry; `None` for a folder or a skip.
fn file_path(entry: &RecordEntry) -> Option<&str> {
    match entry {
        RecordEntry::File(f) => Some(&f.path),
        _ => None,
    }
}

/// Damage found in a part of the manifest read after it was opened: a
/// block whose CRC or structure does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage(pub(crate) String);

/// A block of entries, decoded: the place of its first entry, and the
/// entries.
#[derive(Debug)]
pub(crate) struct Block {
    pub(crate) first: usize,
    pub(crate) entries: Vec<RecordEntry>,
}

impl Block {
    /// The place just past its last entry.
    pub(crate) fn end(&self) -> usize {
        self.first + self.entries.len()
    }
}

/// An entry and the block that holds it.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    block: Arc<Block>,
    at: usize,
}

impl Held {
    pub(crate) fn new(block: Arc<Block>, at: usize) -> Held {
        Held { block, at }
    }

    pub(crate) fn entry(&self) -> &RecordEntry {
        &self.block.entries[self.at - self.block.first]
    }

    /// Its place.
    pub(crate) fn at(&self) -> usize {
        self.at
    }
}

/// The most blocks kept decoded (about 130 entries each).
const CACHED: usize = 256;

/// The blocks read last, decoded, each with when it was last asked for.
#[derive(Debug, Default)]
struct Cache {
    blocks: HashMap<usize, (Arc<Block>, u64)>,
    tick: u64,
}

/// A generation's entries, read from its manifest as they are needed.
#[derive(Debug)]
pub(crate) struct Manifest {
    /// The manifest's body.
    body: Disk,
    dir: Directory,
    blocks: Vec<BlockRef>,
    keys: Vec<String>,
    specials: Vec<(usize, RecordEntry)>,
    cache: Mutex<Cache>,
    /// Where it was read from, for what a damaged block says.
    path: PathBuf,
}

impl Manifest {
    /// Opens the manifest whose body is `body`: its directory (checked
    /// already), its block index, keys and special entries, each read
    /// and checked against its CRC.
    ///
    /// # Errors
    ///
    /// What is wrong with them.
    pub(crate) fn open(body: Disk, dir: Directory, path: PathBuf) -> Result<Manifest, String> {
        let section = |s: Section| -> Result<Vec<u8>, String> {
            let span = dir.section(s);
            let len = usize::try_from(span.len).map_err(|_| "too large")?;
            let bytes = body
                .read(span.at, len)
                .map_err(|e| format!("cannot read it: {e}"))?;
            if crc32fast::hash(&bytes) != span.crc {
                return Err("the checksum does not match: the file is corrupt".into());
            }
            Ok(bytes)
        };
        let blocks_len = dir.section(Section::Blocks).len;
        let blocks = format::read_index(&section(Section::Index)?, dir.entries, blocks_len)?;
        let keys = format::read_keys(&section(Section::Keys)?, blocks.len())?;
        let specials =
            format::read_specials(&section(Section::Specials)?, dir.specials, dir.entries)?;
        let span = dir.section(Section::Blocks);
        Ok(Manifest {
            body: body.window(span.at, span.len),
            blocks,
            keys,
            specials,
            cache: Mutex::new(Cache::default()),
            path,
            dir,
        })
    }

    /// The directory.
    pub(crate) fn directory(&self) -> &Directory {
        &self.dir
    }

    /// How many entries.
    pub(crate) fn len(&self) -> usize {
        self.dir.entries as usize
    }

    /// How many blocks.
    pub(crate) fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// The entries every query visits, with their places, in order.
    pub(crate) fn specials(&self) -> &[(usize, RecordEntry)] {
        &self.specials
    }

    /// Damage found in a block, as the index's error.
    pub(crate) fn unusable(&self, damage: &Damage) -> Error {
        ErrorKind::UnusableIndex {
            path: self
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            reason: format!("manifest {}: {}", self.path.display(), damage.0),
        }
        .into()
    }

    /// The first id, in the posting lists of `segment`, of the files at or
    /// after block `b`'s first entry (`NO_ID`: none).
    pub(crate) fn first_id(&self, b: usize, segment: Segment) -> u32 {
        let s = usize::from(segment == Segment::Delta);
        self.blocks.get(b).map_or(NO_ID, |r| r.ids[s])
    }

    /// The last block whose first id in the posting lists of `segment` is
    /// at or before `id`: the one that holds the file with that id, if any
    /// does.
    pub(crate) fn block_with_id(&self, segment: Segment, id: u32) -> Option<usize> {
        let s = usize::from(segment == Segment::Delta);
        self.blocks
            .partition_point(|r| r.ids[s] <= id)
            .checked_sub(1)
    }

    /// The block that holds the entry at `at`.
    pub(crate) fn block_of(&self, at: usize) -> usize {
        self.blocks
            .partition_point(|b| b.first as usize <= at)
            .saturating_sub(1)
    }

    /// Reads and checks block `b`, not kept for later queries (a query
    /// that reads every block, once).
    pub(crate) fn load_block(&self, b: usize) -> Result<Block, Damage> {
        let r = self.blocks[b];
        let bytes = self
            .body
            .read(r.at, r.len as usize)
            .map_err(|e| Damage(format!("cannot read a block of entries: {e}")))?;
        if crc32fast::hash(&bytes) != r.crc {
            return Err(Damage(
                "a block of entries' checksum does not match: the file is corrupt".into(),
            ));
        }
        let first = r.first as usize;
        let end = self
            .blocks
            .get(b + 1)
            .map_or(self.len(), |n| n.first as usize);
        let entries = format::read_block(&bytes, first, end - first, &self.keys[b], r.ids)
            .map_err(|e| Damage(format!("a block of entries: {e}")))?;
        Ok(Block { first, entries })
    }

    /// Block `b`, from the blocks kept, or read, checked and kept.
    pub(crate) fn block(&self, b: usize) -> Result<Arc<Block>, Damage> {
        {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            cache.tick += 1;
            let tick = cache.tick;
            if let Some((block, asked)) = cache.blocks.get_mut(&b) {
                *asked = tick;
                return Ok(Arc::clone(block));
            }
        }
        let block = Arc::new(self.load_block(b)?);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.blocks.len() >= CACHED {
            let oldest = cache
                .blocks
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(&k, _)| k);
            if let Some(oldest) = oldest {
                cache.blocks.remove(&oldest);
            }
        }
        let tick = cache.tick;
        cache.blocks.insert(b, (Arc::clone(&block), tick));
        Ok(block)
    }

    /// The entry at `at` (below `len()`).
    pub(crate) fn entry(&self, at: usize) -> Result<Held, Damage> {
        Ok(Held::new(self.block(self.block_of(at))?, at))
    }

    /// The place of the first entry at or after `path`, in path order.
    pub(crate) fn first_from(&self, path: &str) -> Result<usize, Damage> {
        let b = self.keys.partition_point(|k| walk_order(k, path).is_lt());
        // The block before the first whose key is not before `path` holds
        // the entries between.
        let Some(b) = b.checked_sub(1) else {
            return Ok(0);
        };
        let block = self.block(b)?;
        let i = block
            .entries
            .partition_point(|e| walk_order(e.path(), path).is_lt());
        Ok(block.first + i)
    }

    /// The entry at `path`, if any.
    pub(crate) fn find(&self, path: &str) -> Result<Option<Held>, Damage> {
        let at = self.first_from(path)?;
        if at >= self.len() {
            return Ok(None);
        }
        let held = self.entry(at)?;
        Ok((held.entry().path() == path).then_some(held))
    }

    /// The place just past the entries within the folder at `at` (whose
    /// path is `folder`).
    pub(crate) fn end_of(&self, at: usize, folder: &str) -> Result<usize, Damage> {
        if folder.is_empty() {
            return Ok(self.len());
        }
        // Entries up to the folder and within it come first.
        let within = |p: &str| is_within(p, folder) || !walk_order(p, folder).is_gt();
        let b = self.keys.partition_point(|k| within(k)).saturating_sub(1);
        let b = b.max(self.block_of(at));
        let block = self.block(b)?;
        let i = block.entries.partition_point(|e| within(e.path()));
        Ok(block.first + i)
    }

    /// How its entries compare with `entries`, every block read once.
    pub(crate) fn compare(&self, entries: &[RecordEntry]) -> Result<Likeness, Damage> {
        let mut same = entries.len() == self.len();
        let mut files = entries.iter().filter_map(file_path);
        for b in 0..self.blocks.len() {
            let block = self.load_block(b)?;
            same = same && block.entries[..] == entries[block.first..block.end()];
            for old in block.entries.iter().filter_map(file_path) {
                if files.next() != Some(old) {
                    return Ok(Likeness::Different);
                }
            }
        }
        Ok(match (same, files.next()) {
            (_, Some(_)) => Likeness::Different,
            (true, None) => Likeness::Same,
            (false, None) => Likeness::SameFiles,
        })
    }

    /// How many folders it records (each block read; a block that cannot
    /// be read counts none: a query finds its damage).
    pub(crate) fn folders(&self) -> u64 {
        (0..self.blocks.len())
            .filter_map(|b| self.load_block(b).ok())
            .map(|block| {
                let folders = block.entries.iter();
                folders
                    .filter(|e| matches!(e, RecordEntry::Folder(_)))
                    .count() as u64
            })
            .sum()
    }

    /// About how many bytes it holds in memory at most: its block index,
    /// keys and special entries, and the blocks it keeps decoded (a
    /// block's entries estimated from the keys' lengths).
    pub(crate) fn held_bytes(&self) -> u64 {
        const ENTRY: usize = 96;
        let keys: usize = self.keys.iter().map(|k| k.len() + 24).sum();
        let specials: usize = self.specials.len() * (ENTRY + 64);
        let index = self.blocks.len() * std::mem::size_of::<BlockRef>();
        let per_block = self.len().div_ceil(self.blocks.len().max(1));
        let path = keys / self.keys.len().max(1);
        let cached = CACHED.min(self.blocks.len()) * per_block * (path + ENTRY);
        (keys + specials + index + cached) as u64
    }

    /// Every entry, every block read (for tests).
    #[cfg(test)]
    pub(crate) fn all(&self) -> Result<Vec<RecordEntry>, Damage> {
        let mut out = Vec::with_capacity(self.len());
        for b in 0..self.blocks.len() {
            out.extend(self.load_block(b)?.entries);
        }
        Ok(out)
    }
}
