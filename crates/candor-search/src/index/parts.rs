//! A large file read only in its candidate blocks: when a search lists
//! no lines (it counts them, or asks whether one matches; no budget stops
//! such a search inside a file), a file unchanged since it was indexed, only
//! some of whose blocks hold what a match needs, is read block by block,
//! those blocks only, and searched as the tree searches it whole: every
//! line lies within one block, and a block that is no candidate holds no
//! match.
//!
//! The file is opened as the tree opens it, relative to its folder's
//! handle. When it is not as indexed (its length differs, or a read
//! falls short), nothing is decided here: the caller searches it whole.
//! Candidate blocks side by side are read as one range, each range with
//! one positioned read.

use std::fs::File;

use crate::index::traverse::FileAt;
use crate::seam::{FileOutcome, Matcher, PartsScan, QuerySearch};

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

/// The most bytes read at once: candidate blocks side by side are read
/// as one range up to this size.
const MAX_RANGE: u64 = 1 << 20;

impl Parts {
    /// The blocks `candidates` (ascending indices) of a file of `len`
    /// bytes whose blocks after the first start at `starts`, blocks side
    /// by side joined into ranges of at most `MAX_RANGE` bytes (or one
    /// block).
    pub(crate) fn of(len: u64, starts: &[u64], candidates: &[u32]) -> Parts {
        let start = |k: usize| if k == 0 { 0 } else { starts[k - 1] };
        let end = |k: usize| starts.get(k).copied().unwrap_or(len);
        let mut ranges: Vec<(u64, u64)> = Vec::with_capacity(candidates.len());
        for &k in candidates {
            let (a, b) = (start(k as usize), end(k as usize));
            match ranges.last_mut() {
                Some(last) if last.1 == a && b - last.0 <= MAX_RANGE => last.1 = b,
                _ => ranges.push((a, b)),
            }
        }
        Parts { len, ranges }
    }
}

/// The outcome of the file at `path` (at `place`) searched in `parts`
/// only; `None` when the search needs the
/// whole file or the file is not as indexed: the caller then searches it
/// whole. `buffer` holds one block at a time.
pub(crate) fn search_parts<'p>(
    search: &'p QuerySearch<'p>,
    matcher: &Matcher,
    path: &'p str,
    place: Option<&FileAt>,
    parts: &Parts,
    buffer: &mut Vec<u8>,
) -> Option<FileOutcome<'p>> {
    let mut scan = PartsScan::new(search, matcher, path)?;
    let mut file = place?.open().ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() != parts.len {
        return None;
    }
    for &(start, end) in &parts.ranges {
        let block = read_range(&mut file, start, end, buffer).ok()?;
        if scan.visit(block, start, end == parts.len).is_break() {
            break;
        }
    }
    Some(scan.finish(parts.len))
}

/// Reads the bytes from `start` to `end` of `file` into the front of
/// `buffer`, in one call where the system gives them at once. The buffer
/// is the tree reader's too, kept initialized and never shrunk: only what
/// it grows by is zeroed.
fn read_range<'b>(
    file: &mut File,
    start: u64,
    end: u64,
    buffer: &'b mut Vec<u8>,
) -> std::io::Result<&'b [u8]> {
    let len = end
        .checked_sub(start)
        .and_then(|len| usize::try_from(len).ok())
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
    if buffer.len() < len {
        buffer.resize(len, 0);
    }
    read_at(file, &mut buffer[..len], start)?;
    Ok(&buffer[..len])
}

#[cfg(unix)]
fn read_at(file: &mut File, buffer: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, at)
}

#[cfg(not(unix))]
fn read_at(file: &mut File, buffer: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buffer)
}
