//! An entry of an index's record: what the walk met, in path order (a
//! folder it entered, a file it found, an input it left out), each file
//! with its stamp and its place in the posting lists; and the walk's
//! order of paths.

use std::cmp::Ordering;
use std::ffi::OsString;

use crate::SkippedInput;
use crate::seam::{cmp_paths, os_name, parse_position};

/// What the walk met, in path order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RecordEntry {
    Folder(FolderEntry),
    File(FileEntry),
    Skip(SkipEntry),
}

/// A folder the walk entered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FolderEntry {
    pub(crate) path: String,
    /// The folder's stamp, with its ignore files' (see `stamp.rs`).
    pub(crate) stamp: u64,
    /// Which ignore files it had (see `stamp::IGNORES`).
    pub(crate) ignores: u8,
    /// Listed again by every query: reached through a link, changed
    /// within the clock tick of the build, or holding an input the walk
    /// could not read.
    pub(crate) always: bool,
}

/// A file the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileEntry {
    pub(crate) path: String,
    /// Its stamp when it was indexed (see `stamp.rs`).
    pub(crate) stamp: u64,
    /// Its length then.
    pub(crate) len: u64,
    /// Read by every query, whatever the posting lists say: it was not
    /// indexed as plain text (binary, a line too long, a byte-order mark,
    /// too large, unreadable).
    pub(crate) always: bool,
    /// Binary as the tree reads it: a NUL byte in its first
    /// `BINARY_PREFIX` bytes or its first line, so that the tree skips
    /// it whole (reason `binary`) once it reads that far. Unchanged since,
    /// a query skips it so without reading it. Only with `always`.
    pub(crate) binary: bool,
    /// It had more than one name (hard links) when indexed: a write
    /// through another name, perhaps outside the tree, reaches no watch of
    /// the tree's folders, so a watched query stats it as a checked one
    /// does.
    pub(crate) linked: bool,
    /// Read by every query until an update indexes it again: it changed
    /// within the clock tick of the build that read it (a rewrite of the
    /// same size in that tick would keep its stamp).
    pub(crate) racy: bool,
    /// Its posting lists: the base's or the delta's, and its ids there:
    /// `id..id + blocks`, one per block of its text (see
    /// `grams::split_blocks`), at least one.
    pub(crate) segment: Segment,
    pub(crate) id: u32,
    pub(crate) blocks: u32,
    /// Where its blocks after the first start, when it was indexed as
    /// plain text: `blocks - 1` offsets, ascending (an empty block starts
    /// where the next does); empty when its blocks were not cut (a file
    /// not indexed, or of one block). A query that only counts reads a
    /// large file's candidate blocks only.
    pub(crate) starts: Box<[u64]>,
}

/// Which posting lists a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segment {
    Base,
    Delta,
}

/// An input the walk left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkipEntry {
    pub(crate) input: SkippedInput,
}

impl RecordEntry {
    pub(crate) fn path(&self) -> &str {
        match self {
            RecordEntry::Folder(f) => &f.path,
            RecordEntry::File(f) => &f.path,
            RecordEntry::Skip(s) => s.input.path(),
        }
    }
}

/// The walk's order of two paths as a tree writes them: component by
/// component, each name's bytes as the file system spells them (a name
/// written with escapes, `\\` or `\xhh`, sorts by its bytes, not by
/// its writing).
pub(crate) fn walk_order(a: &str, b: &str) -> Ordering {
    if !a.contains('\\') && !b.contains('\\') {
        return cmp_paths(a, b);
    }
    let names = |p: &str| -> Vec<Vec<u8>> {
        if p.is_empty() {
            return Vec::new();
        }
        parse_position(p).unwrap_or_else(|| p.split('/').map(|n| n.as_bytes().to_vec()).collect())
    };
    names(a).cmp(&names(b))
}

/// The last name of `path`, as the file system spells it.
pub(crate) fn last_name(path: &str) -> Option<OsString> {
    let last = path.rsplit('/').next()?;
    if !last.contains('\\') {
        return Some(OsString::from(last));
    }
    let mut names = parse_position(last)?;
    Some(os_name(names.pop()?))
}
