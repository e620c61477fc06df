//! A large file read only in its candidate blocks: when a search lists
//! no lines (it counts them, or asks whether one matches) and no budget
//! can stop inside a file, a file unchanged since it was indexed, only
//! some of whose blocks hold what a match needs, is read block by block,
//! those blocks only, and searched as the tree searches it whole: every
//! line lies within one block, and a block that is no candidate holds no
//! match.
//!
//! The file is opened as the tree opens it, relative to its folder's
//! handle. When it is not as indexed (its length differs, or a read
//! falls short), nothing is decided here: the caller searches it whole.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use crate::search::{DirHandle, FileOutcome, Matcher, PartsScan, Search, open_file};

/// The candidate blocks of a large file unchanged since it was indexed,
/// where only some are: a search that lists no lines needs to read only
/// them (every line lies within one block, and a block that is no
/// candidate holds no match).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts {
    /// The file's length as indexed.
    pub(crate) len: u64,
    /// The candidate blocks, each as a range of offsets, ascending.
    pub(crate) ranges: Vec<(u64, u64)>,
}

impl Parts {
    /// The blocks `candidates` (ascending indices) of a file of `len`
    /// bytes whose blocks after the first start at `starts`.
    pub(crate) fn of(len: u64, starts: &[u64], candidates: &[u32]) -> Parts {
        let start = |k: usize| if k == 0 { 0 } else { starts[k - 1] };
        let end = |k: usize| starts.get(k).copied().unwrap_or(len);
        let ranges = candidates
            .iter()
            .map(|&k| (start(k as usize), end(k as usize)))
            .collect();
        Parts { len, ranges }
    }
}

/// The outcome of the file at `path` (`dir`: its folder's handle and its
/// name there) searched in `parts` only; `None` when the search needs the
/// whole file or the file is not as indexed: the caller then searches it
/// whole. `buffer` holds one block at a time.
pub(crate) fn search_parts<'p>(
    search: &'p Search<'p>,
    matcher: &Matcher,
    path: &'p str,
    dir: Option<&(Arc<DirHandle>, OsString)>,
    parts: &Parts,
    buffer: &mut Vec<u8>,
) -> Option<FileOutcome<'p>> {
    let mut scan = PartsScan::new(search, matcher, path)?;
    let (dir, name) = dir?;
    let mut file = open_file(dir, name).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() != parts.len {
        return None;
    }
    for &(start, end) in &parts.ranges {
        read_range(&mut file, start, end, buffer).ok()?;
        if scan.visit(buffer, start, end == parts.len).is_break() {
            break;
        }
    }
    Some(scan.finish(parts.len))
}

/// Reads the bytes from `start` to `end` of `file` into `buffer`.
fn read_range(file: &mut File, start: u64, end: u64, buffer: &mut Vec<u8>) -> std::io::Result<()> {
    let len = end
        .checked_sub(start)
        .and_then(|len| usize::try_from(len).ok())
        .ok_or_else(|| std::io::Error::other("a block that ends before it starts"))?;
    buffer.clear();
    buffer.resize(len, 0);
    file.seek(SeekFrom::Start(start))?;
    file.read_exact(buffer)
}
