//! Reading a file through a fixed buffer, handed on in chunks of whole
//! lines.
//!
//! No match spans a line (the matcher guarantees it), so searching a file
//! chunk by chunk, each chunk ending at a line end, finds exactly what a
//! search of the whole file would. The buffer holds one block; the
//! partial last line of a block is carried over to the front for the next
//! read. A line longer than the buffer grows it, up to [`MAX_LINE`]: a
//! file with a longer line is skipped (`long_line`), never cut silently.
//! The memory of a search is then a block per thread, whatever the size
//! of the files.
//!
//! The file's size is taken when it is opened, and the read stops there,
//! which saves the read that would find the end. A file that ends sooner,
//! runs on past that size, or (read in more than one go) has another size
//! or time of change once read, changed while it was read: it is skipped
//! as `changed` (an error), since what was read of it may be neither its
//! old nor its new content.

use std::fs::File;
use std::io::{self, Read as _};
use std::ops::ControlFlow;

use crate::search::lines;
use crate::{SkipReason, SkippedInput};

/// The size of the read buffer: a small file is read in one call, a large
/// one in calls of this size.
pub(crate) const BLOCK: usize = 256 * 1024;

/// The longest line held whole. A file holding a longer line is skipped
/// as `long_line`.
#[cfg_attr(not(feature = "tree"), allow(dead_code))]
pub(crate) const MAX_LINE: usize = 16 << 20;

/// How files are read: the buffer's size, the longest line held, and the
/// size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadRules {
    pub(crate) block: usize,
    pub(crate) max_line: usize,
    pub(crate) max_file_size: Option<u64>,
}

impl ReadRules {
    #[cfg_attr(not(feature = "tree"), allow(dead_code))]
    pub(crate) fn new(max_file_size: Option<u64>) -> ReadRules {
        ReadRules {
            block: BLOCK,
            max_line: MAX_LINE,
            max_file_size,
        }
    }
}

/// What is known of a document's bytes whatever the query: found once,
/// when the document is added, rather than on every query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Known {
    /// Where its first NUL byte is, if it has one (then it is binary).
    pub(crate) first_nul: Option<usize>,
    /// Whether it is all valid UTF-8 (then so is each of its chunks,
    /// which end at line ends).
    pub(crate) utf8: bool,
}

impl Known {
    /// What `bytes` hold; `utf8` when the caller already knows they are
    /// (they came from a `str`).
    pub(crate) fn of(bytes: &[u8], utf8: bool) -> Known {
        Known {
            first_nul: memchr::memchr(0, bytes),
            utf8: utf8 || std::str::from_utf8(bytes).is_ok(),
        }
    }
}

/// A file opened by its corpus, ready to be read; or why it cannot be.
pub(crate) enum Opened<'a> {
    /// A document already in memory, and what is known of it.
    Memory(&'a [u8], Known),
    /// A file on disk, read under these rules.
    #[cfg_attr(not(feature = "tree"), allow(dead_code))]
    File(File, ReadRules),
    /// Not read, and why.
    Skip(SkippedInput),
}

/// How a read ended.
#[derive(Debug)]
pub(crate) enum Ended {
    /// The whole file was read: its length.
    Whole(u64),
    /// The visitor asked to stop after the chunk that ends at this offset
    /// (a line start).
    Stopped(u64),
    /// The file was not read to its end, for this reason.
    Skip(SkipReason, Option<String>),
}

/// The skipped input of a file at `path` whose read ended with `reason`
/// and its `detail` (see `Ended::Skip`).
pub(crate) fn skipped(path: &str, reason: SkipReason, detail: Option<String>) -> SkippedInput {
    let input = SkippedInput::new(path, reason);
    match detail {
        Some(detail) => input.with_detail(detail),
        None => input,
    }
}

/// Called with each chunk of whole lines, its offset in the file, and
/// whether it is the last. `Break` stops the reading.
pub(crate) type Visit<'v> = dyn FnMut(&[u8], u64, bool) -> ControlFlow<()> + 'v;

/// A test hook, run after each read of a file.
pub(crate) type AfterRead<'h> = Option<&'h (dyn Fn() + Sync)>;

/// Hands a document's bytes to `visit` in chunks of whole lines of about
/// `block` bytes, unless it turns out binary: as for a file, a NUL in a
/// block stops it there, before that block is visited. Where the first
/// NUL is was found when the document was added (`known`), so no block
/// is scanned for it again.
pub(crate) fn visit_memory(
    haystack: &[u8],
    known: Known,
    block: usize,
    visit: &mut Visit<'_>,
) -> Ended {
    debug_assert_eq!(known, Known::of(haystack, known.utf8));
    let len = haystack.len();
    let mut at = 0usize;
    loop {
        let mut end = at.saturating_add(block.max(1)).min(len);
        if end < len {
            end = match lines::after_last_end(&haystack[at..end]) {
                Some(i) => at + i,
                None => lines::after_first_end(&haystack[end..]).map_or(len, |i| end + i),
            };
        }
        let last = end == len;
        // The blocks before this one held no NUL: the first is in this
        // block exactly when it is before the block's end.
        if known.first_nul.is_some_and(|nul| nul < end) {
            return Ended::Skip(SkipReason::Binary, None);
        }
        let flow = visit(&haystack[at..end], at as u64, last);
        if last {
            return Ended::Whole(len as u64);
        }
        if flow.is_break() {
            return Ended::Stopped(end as u64);
        }
        at = end;
    }
}

/// Reads `file` through `buffer` and hands it to `visit` in chunks of
/// whole lines, unless it turns out binary, too large, changed, or to
/// hold a line longer than `rules.max_line`.
///
/// A NUL byte anywhere makes a file binary: reading stops at the block
/// that holds it. `buffer` is reused from file to file and kept
/// initialized; it grows only for a line longer than it, and the caller
/// may shrink it back.
pub(crate) fn visit_file(
    mut file: File,
    rules: ReadRules,
    buffer: &mut Vec<u8>,
    after_read: AfterRead<'_>,
    visit: &mut Visit<'_>,
) -> Ended {
    let unreadable = |e: io::Error| Ended::Skip(SkipReason::Unreadable, Some(e.to_string()));
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(e) => return unreadable(e),
    };
    if meta.is_dir() {
        // A folder where the walk saw a file: it cannot be read as one.
        return Ended::Skip(
            SkipReason::Unreadable,
            Some("it is a folder, not a file".to_owned()),
        );
    }
    if !meta.is_file() {
        return Ended::Skip(SkipReason::Special, None);
    }
    let expected = meta.len();
    if rules.max_file_size.is_some_and(|max| expected > max) {
        return Ended::Skip(SkipReason::TooLarge, None);
    }
    let modified = meta.modified().ok();
    // A size of 0 may be a file whose size the system does not know (as
    // in /proc): such a file is read to its end.
    let known = expected > 0;
    let block = rules.block.max(1);
    if buffer.len() < block {
        buffer.resize(block, 0);
    }
    let changed = |what: String| Ended::Skip(SkipReason::Changed, Some(what));
    let mut keep = 0usize;
    let mut base = 0u64;
    let mut total = 0u64;
    let mut reads = 0u32;
    loop {
        let room = buffer.len() - keep;
        // One byte more than the size taken at the open: a file that grew
        // shows it in the same call.
        let want = if known {
            room.min(usize::try_from(expected - total + 1).unwrap_or(usize::MAX))
        } else {
            room
        };
        let n = loop {
            match file.read(&mut buffer[keep..keep + want]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return unreadable(e),
            }
        };
        reads += 1;
        if let Some(hook) = after_read {
            hook();
        }
        if memchr::memchr(0, &buffer[keep..keep + n]).is_some() {
            return Ended::Skip(SkipReason::Binary, None);
        }
        total += n as u64;
        if rules.max_file_size.is_some_and(|max| total > max) {
            return Ended::Skip(SkipReason::TooLarge, None);
        }
        let end_of_file = if n == 0 {
            if known && total < expected {
                return changed(format!(
                    "it ended at byte {total}, its size was {expected} bytes when opened"
                ));
            }
            true
        } else if known {
            if total > expected {
                return changed(format!(
                    "it grew past its size of {expected} bytes while read"
                ));
            }
            total == expected
        } else {
            false
        };
        let filled = keep + n;
        let end = if end_of_file {
            filled
        } else {
            // The carried part holds no line end: only new bytes can.
            match lines::after_last_end(&buffer[keep..filled]) {
                Some(i) => keep + i,
                None => {
                    if filled == buffer.len() {
                        if buffer.len() >= rules.max_line {
                            return Ended::Skip(
                                SkipReason::LongLine,
                                Some(format!(
                                    "a line at byte {base} is longer than {} bytes",
                                    rules.max_line
                                )),
                            );
                        }
                        let grown = buffer.len().saturating_mul(2).min(rules.max_line);
                        buffer.resize(grown, 0);
                    }
                    keep = filled;
                    continue;
                }
            }
        };
        let flow = visit(&buffer[..end], base, end_of_file);
        base += end as u64;
        if end_of_file {
            // Read in more than one go, the file must still be the one
            // whose size was taken, or its parts may be of two versions.
            if reads > 1 && known {
                match file.metadata() {
                    Ok(now) if now.len() == expected && now.modified().ok() == modified => {}
                    Ok(_) => return changed("it was modified while read".to_owned()),
                    Err(e) => return unreadable(e),
                }
            }
            return Ended::Whole(total);
        }
        if flow.is_break() {
            return Ended::Stopped(base);
        }
        buffer.copy_within(end..filled, 0);
        keep = filled - end;
    }
}
