//! Reading a file through a fixed buffer, handed on in chunks of whole
//! lines.
//!
//! No match spans a line (the matcher guarantees it), so searching a file
//! chunk by chunk, each chunk ending at a line end, finds exactly what a
//! search of the whole file would. The buffer holds one block; the
//! partial last line of a block is carried over to the front for the next
//! read (where in the buffer each read lands: `place.rs`). A line
//! longer than the buffer grows it, up to [`MAX_LINE`]. The memory of a
//! search is then a block per thread, whatever the size of the files.
//! A document held in memory is handed on in chunks the same way
//! (`memory.rs`).
//!
//! **Where a read stops.** A NUL byte in a file's first [`BINARY_PREFIX`]
//! bytes makes the whole file binary: nothing of it is handed on (no
//! chunk is, before that much of the file was read). A NUL further in
//! ends the file at the start of its line: the lines before it are handed
//! on, and the rest is skipped as binary (`Ended::Cut`). So does a line
//! longer than [`MAX_LINE`] (`long_line`), unless the visitor takes such
//! lines in pieces (`Piece`: then the buffer, grown to the cap, carries
//! the line through piece by piece), a read error (`unreadable`),
//! and a change seen while the file is read (`changed`). Nothing was
//! handed on when the stop comes at the file's start: the whole file is
//! skipped (`Ended::Skip`). Where each stop comes depends on the file's
//! bytes alone, never on how it was read, so every mode and thread count
//! finds the same lines.
//!
//! The file's size is taken when it is opened, and the read stops there,
//! which saves the read that would find the end. A file that ends sooner,
//! runs on past that size, or (read in more than one go) has another size
//! or time of change once read, changed while it was read.
//!
//! A read can stop at any line start and go on from there later
//! (`FileRead`): a file with many matching lines is searched in parts.
//!
//! **A file the caller named is read as text** (`ReadRules::as_text`), as
//! ripgrep reads a file named on its command line: a NUL byte is an
//! ordinary byte there, nothing stops at it, and the read tells where the
//! file's first NUL is (`FileRead::first_nul`), so that the answer can
//! say the file is binary. A read that began past the file's start looks
//! back for a NUL before where it began only once it meets one: the file's
//! first NUL may then lie before the part read, where an earlier page of
//! the same query met it.
//!
//! **A byte-order mark is not text.** A file (or document) that starts
//! with the UTF-8 byte-order mark `EF BB BF` is handed on from byte 3, as
//! ripgrep and editors read it: its first line starts after the mark (so
//! `^` matches there, and the line shown holds no U+FEFF), and that
//! line's offset is 3, the true offset of its first byte in the file. A
//! mark anywhere else is an ordinary character.

use std::io;
use std::ops::ControlFlow;
use std::time::SystemTime;

use crate::lines;
use crate::position::Stamp;
use crate::{SkipReason, SkippedInput};

mod input;
mod memory;
mod place;

#[cfg(test)]
pub(crate) use input::Stat;
pub(crate) use input::{AnyInput, Input, InputKind};
pub(crate) use memory::visit_memory;

/// The size of the read buffer: a small file is read in one call, a large
/// one in calls of this size.
pub(crate) const BLOCK: usize = 256 * 1024;

/// A NUL byte in a file's first this many bytes makes the whole file
/// binary; one further in ends the search of the file there. One block:
/// a file's first read decides.
pub(crate) const BINARY_PREFIX: usize = BLOCK;

/// The longest line held whole, not counting its `\n` (a `\r` before it
/// counts), whether or not it ends in one. The search of a
/// file stops at a longer line, skipping the rest as `long_line`.
#[cfg_attr(not(feature = "tree"), allow(dead_code))]
pub(crate) const MAX_LINE: usize = 16 << 20;

/// How files are read: the buffer's size, the binary rule's prefix, the
/// longest line held, the size limit, and whether a NUL byte is text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadRules {
    pub(crate) block: usize,
    /// At most `block`: the prefix is read before any chunk is handed on.
    pub(crate) binary_prefix: usize,
    pub(crate) max_line: usize,
    pub(crate) max_file_size: Option<u64>,
    /// A NUL byte is an ordinary byte: no binary rule applies, and the
    /// first NUL is only noted (a file the caller named).
    pub(crate) as_text: bool,
}

impl ReadRules {
    #[cfg_attr(not(feature = "tree"), allow(dead_code))]
    pub(crate) fn new(max_file_size: Option<u64>) -> ReadRules {
        ReadRules {
            block: BLOCK,
            binary_prefix: BINARY_PREFIX,
            max_line: MAX_LINE,
            max_file_size,
            as_text: false,
        }
    }

    /// The size of the read buffer: a block, and room to place it.
    pub(crate) fn buffer_len(&self) -> usize {
        self.block.max(1) + place::SLACK
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

    /// The first NUL byte of `bytes` (the document this is known of), and
    /// where its line starts.
    pub(crate) fn first_nul_line(&self, bytes: &[u8]) -> Option<FirstNul> {
        let nul = self.first_nul?;
        let line_start = lines::after_last_end(&bytes[..nul]).unwrap_or(0);
        Some(FirstNul {
            nul: nul as u64,
            line_start: line_start as u64,
        })
    }
}

/// The first NUL byte of a file read as text, and the start of its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FirstNul {
    pub(crate) nul: u64,
    pub(crate) line_start: u64,
}

impl FirstNul {
    /// The record that says a file the caller named at `path` is binary,
    /// and was searched as text.
    pub(crate) fn searched_as_text(&self, path: &str) -> SkippedInput {
        SkippedInput::new(path, SkipReason::BinaryAsText).with_detail(format!(
            "a NUL byte at byte {}: binary, searched as text since it was named",
            self.nul
        ))
    }
}

/// What a read as text knows of the file's first NUL byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NulSeen {
    /// None met yet.
    Unseen,
    /// The file's first NUL.
    At(FirstNul),
    /// One lies before where the read began: what the read met later is
    /// not the file's first.
    Before,
}

/// A file opened by its corpus, ready to be read; or why it cannot be.
pub(crate) enum Opened<'a> {
    /// A document already in memory, and what is known of it.
    Memory(&'a [u8], Known),
    /// A file (on disk, or any input), read under these rules.
    #[cfg_attr(not(feature = "tree"), allow(dead_code))]
    File(AnyInput, ReadRules),
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
    /// The file was handed on up to `at` (a line start), and its search
    /// ends there: the rest is skipped for `reason`, which `detail`
    /// explains.
    Cut {
        at: u64,
        reason: SkipReason,
        detail: String,
    },
    /// Nothing of the file was handed on: it is skipped for this reason.
    Skip(SkipReason, Option<String>),
}

impl Ended {
    /// The search of a file ends at `at` (a line start) for `reason`:
    /// skipped whole at its start, else cut there.
    fn early(at: u64, reason: SkipReason, detail: String) -> Ended {
        if at == 0 {
            Ended::Skip(reason, Some(detail))
        } else {
            Ended::Cut { at, reason, detail }
        }
    }

    /// The first NUL byte of a file is at `nul`, on the line that starts
    /// at `line_start`: the file is binary whole, or cut at that line.
    fn nul(nul: u64, line_start: u64, prefix: usize) -> Ended {
        if nul < prefix as u64 || line_start == 0 {
            return Ended::Skip(SkipReason::Binary, None);
        }
        Ended::Cut {
            at: line_start,
            reason: SkipReason::Binary,
            detail: format!(
                "a NUL byte at byte {nul}: only the lines before byte {line_start} were searched"
            ),
        }
    }
}

/// The UTF-8 byte-order mark: at a file's start, it is not part of its
/// first line.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many bytes of the chunk `chunk`, at offset `at` of its file, are a
/// byte-order mark, and not text: 3 for a chunk that starts the file with
/// one, else 0.
pub(crate) fn bom_len(chunk: &[u8], at: u64) -> usize {
    if at == 0 && chunk.starts_with(BOM) {
        BOM.len()
    } else {
        0
    }
}

/// `visit`, handed each chunk without the byte-order mark that may start
/// the file (see the module's docs). A chunk at the file's start holds the
/// whole mark when there is one: chunks end at line ends, or at the
/// file's end.
pub(crate) fn without_bom(
    visit: &mut VisitChunk<'_>,
) -> impl FnMut(&[u8], u64, bool) -> ControlFlow<()> {
    move |chunk: &[u8], at: u64, last: bool| {
        let mark = bom_len(chunk, at);
        visit(&chunk[mark..], at + mark as u64, last)
    }
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
/// whether it is the last. `Break` stops the reading, even after the last
/// chunk: the visitor wants no more of the file, and the read ends as
/// `Stopped` (a file's end, or the cut before its NUL, is then not
/// reported).
pub(crate) type VisitChunk<'v> = dyn FnMut(&[u8], u64, bool) -> ControlFlow<()> + 'v;

/// A piece of a line longer than `max_line`, which a visitor that takes
/// such lines gets in pieces instead of the `long_line` stop: the line's
/// bytes in order, its `\n` left out (a byte-order mark starting the file
/// too). A line is searched only once its last piece comes: a stop before
/// (a NUL in it, a change, an error) ends the read at the line's start,
/// as for any line.
pub(crate) struct Piece<'a> {
    pub(crate) bytes: &'a [u8],
    /// Where the line starts in the file.
    pub(crate) line_start: u64,
    /// The line ends with this piece.
    pub(crate) line_ends: bool,
    /// The file ends with this piece: the line has no `\n`.
    pub(crate) file_ends: bool,
}

/// Called with each piece of a long line. `Break` after a line's last
/// piece stops the reading there, as `VisitChunk`'s does after a chunk; before
/// it, it is not heeded (a line is stopped at only as a whole).
pub(crate) type Pieces<'v> = dyn FnMut(Piece<'_>) -> ControlFlow<()> + 'v;

/// How the search of a long line went on: to the end of the read, or on
/// with the lines after it, `keep` bytes of them already read and placed
/// at `front` of the buffer.
enum Long {
    Ended(Ended),
    Goes { front: usize, keep: usize },
}

/// A file being read: opened and checked, and read chunk by chunk from a
/// line start. The read can stop after any chunk and go on later from
/// any line start (`resume_at`).
pub(crate) struct FileRead {
    file: AnyInput,
    rules: ReadRules,
    /// Its size when it was opened; `0` for a size the system does not
    /// know (as in /proc): such a file is read to its end.
    expected: u64,
    modified: Option<SystemTime>,
    /// The file's stamp when it was opened: the version whose text is read.
    stamp: Option<Stamp>,
    /// Where the next chunk starts: a line start.
    base: u64,
    /// Where the file's read position is: past `base` by the part of a
    /// line carried over when the read stopped.
    position: u64,
    reads: u32,
    /// Where the first read began, once one did.
    began: Option<u64>,
    /// Read as text: what is known of the file's first NUL.
    nul: NulSeen,
}

impl FileRead {
    /// Checks what `file` is, and gets it ready to read; or gives how its
    /// read ended at once (not a regular file, too large, unreadable).
    pub(crate) fn open(
        file: AnyInput,
        rules: ReadRules,
    ) -> Result<FileRead, (SkipReason, Option<String>)> {
        let meta = file
            .stat()
            .map_err(|e| (SkipReason::Unreadable, Some(e.to_string())))?;
        match meta.kind {
            // A folder where the walk saw a file: it cannot be read as one.
            InputKind::Folder => {
                return Err((
                    SkipReason::Unreadable,
                    Some("it is a folder, not a file".to_owned()),
                ));
            }
            InputKind::Special => return Err((SkipReason::Special, None)),
            InputKind::File => {}
        }
        if rules.max_file_size.is_some_and(|max| meta.len > max) {
            return Err((SkipReason::TooLarge, None));
        }
        Ok(FileRead {
            file,
            rules,
            expected: meta.len,
            modified: meta.modified,
            stamp: meta.stamp,
            base: 0,
            position: 0,
            reads: 0,
            began: None,
            nul: NulSeen::Unseen,
        })
    }

    /// The file's stamp when it was opened (see `Source::stamp`): a
    /// cursor into the text read records it, whatever the file is by the
    /// time the cursor is written. `None` for an input that tells none.
    pub(crate) fn stamp(&self) -> Option<u64> {
        self.stamp.as_ref().map(Stamp::value)
    }

    /// Read as text: the file's first NUL byte, when the read met it (not
    /// when it lies before where the read began).
    pub(crate) fn first_nul(&self) -> Option<FirstNul> {
        match self.nul {
            NulSeen::At(first) => Some(first),
            NulSeen::Unseen | NulSeen::Before => None,
        }
    }

    /// Whether the bytes just read need a look for a NUL byte: always,
    /// but read as text once the first was met.
    fn looks_for_nul(&self) -> bool {
        !self.rules.as_text || self.nul == NulSeen::Unseen
    }

    /// Read as text, a NUL byte met at `nul`, on the line that starts at
    /// `line_start`, with the file's read position at `now`: the file's
    /// first, unless one lies before where the read began (looked for
    /// then, with reads of its own, and the position put back).
    fn note_nul(&mut self, nul: u64, line_start: u64, now: u64) -> Result<(), Ended> {
        let began = self.began.unwrap_or(0);
        let before = began > 0
            && self
                .nul_before(began, now)
                .map_err(|e| Ended::early(self.base, SkipReason::Unreadable, e.to_string()))?;
        self.nul = if before {
            NulSeen::Before
        } else {
            NulSeen::At(FirstNul { nul, line_start })
        };
        Ok(())
    }

    /// Whether the file holds a NUL byte before `end`; the read position
    /// is `now`, and is put back there.
    fn nul_before(&mut self, end: u64, now: u64) -> io::Result<bool> {
        let mut scratch = vec![0u8; usize::try_from(end).unwrap_or(usize::MAX).min(64 * 1024)];
        self.file.seek_to(0)?;
        let mut at = 0u64;
        let mut found = false;
        while at < end {
            let want = usize::try_from(end - at).map_or(scratch.len(), |w| w.min(scratch.len()));
            let n = match self.file.read(&mut scratch[..want]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.reads += 1;
            if n == 0 {
                break;
            }
            if memchr::memchr(0, &scratch[..n]).is_some() {
                found = true;
                break;
            }
            at += n as u64;
        }
        self.file.seek_to(now)?;
        Ok(found)
    }

    /// Goes on from `at`, a line start at or before where the last read
    /// stopped.
    pub(crate) fn resume_at(&mut self, at: u64) {
        self.base = at;
    }

    /// Reads on through `buffer` and hands the file to `visit` in chunks of
    /// whole lines, until its end, a stop, or a visitor's `Break`.
    ///
    /// `buffer` is reused from file to file and kept initialized; it grows
    /// only for a line longer than it, and the caller may shrink it back.
    pub(crate) fn visit(&mut self, buffer: &mut Vec<u8>, visit: &mut VisitChunk<'_>) -> Ended {
        self.visit_in_pieces(buffer, visit, None)
    }

    /// The longest line held whole.
    pub(crate) fn max_line(&self) -> usize {
        self.rules.max_line
    }

    /// `visit`, with the lines longer than `max_line` handed to `pieces`
    /// in pieces when it is given (else they stop the read: `long_line`).
    pub(crate) fn visit_in_pieces(
        &mut self,
        buffer: &mut Vec<u8>,
        visit: &mut VisitChunk<'_>,
        mut pieces: Option<&mut Pieces<'_>>,
    ) -> Ended {
        let mut visit = without_bom(visit);
        let rules = self.rules;
        let block = rules.block.max(1);
        let prefix = rules.binary_prefix.min(block) as u64;
        self.began.get_or_insert(self.base);
        if buffer.len() < rules.buffer_len() {
            buffer.resize(rules.buffer_len(), 0);
        }
        if self.position != self.base {
            if let Err(e) = self.file.seek_to(self.base) {
                return Ended::early(self.base, SkipReason::Unreadable, e.to_string());
            }
            self.position = self.base;
        }
        let known = self.expected > 0;
        // The chunk is `buffer[front..front + capacity]`; its first
        // `keep` bytes are carried over from the last read.
        let mut capacity = buffer.len() - place::SLACK;
        let mut front = place::front(buffer, self.base);
        let mut keep = 0usize;
        // Where the line ends are looked for in the buffer: from the new
        // bytes (the carried part is a line's start), or from its front
        // after a long line (the carried part is the lines after it).
        let mut scan_from_front = false;
        loop {
            let room = capacity - keep;
            // One byte more than the size taken at the open: a file that
            // grew shows it in the same call.
            let want = if known {
                let left = self.expected.saturating_sub(self.position) + 1;
                room.min(usize::try_from(left).unwrap_or(usize::MAX))
            } else {
                room
            };
            let n = match self.read_into(&mut buffer[front + keep..front + keep + want]) {
                Ok(n) => n,
                Err(ended) => return ended,
            };
            self.reads += 1;
            let found = if self.looks_for_nul() {
                memchr::memchr(0, &buffer[front + keep..front + keep + n])
            } else {
                None
            };
            if let Some(i) = found {
                if let Err(ended) = self.met_nul(buffer, (front, keep, n), i, &mut visit) {
                    return ended;
                }
            }
            let end_of_file = match self.advance(n, known, self.base) {
                Ok(end) => end,
                Err(ended) => return ended,
            };
            let filled = keep + n;
            if !end_of_file && self.position < prefix {
                // The binary rule looks at the whole prefix before any
                // line is handed on (the buffer holds a block, at least
                // the prefix). The lines read so far are looked for
                // once it is.
                keep = filled;
                scan_from_front = true;
                continue;
            }
            let end = if end_of_file {
                match self.last_lines(buffer, front, filled, &mut visit, pieces.as_deref_mut()) {
                    Ok(end) => end,
                    Err(ended) => return ended,
                }
            } else {
                // The carried part holds no line end: only new bytes can.
                let looked = if scan_from_front { 0 } else { keep };
                scan_from_front = false;
                match lines::after_last_end(&buffer[front + looked..front + filled]) {
                    Some(i) => looked + i,
                    None => {
                        if filled == capacity {
                            // A line of `max_line` bytes and its `\n` fit.
                            if capacity > rules.max_line {
                                if let Some(pieces) = pieces.as_deref_mut() {
                                    match self.long_line(buffer, front, filled, &mut visit, pieces)
                                    {
                                        Long::Ended(ended) => return ended,
                                        Long::Goes {
                                            front: moved,
                                            keep: kept,
                                        } => {
                                            front = moved;
                                            keep = kept;
                                            scan_from_front = true;
                                            continue;
                                        }
                                    }
                                }
                                return Ended::early(
                                    self.base,
                                    SkipReason::LongLine,
                                    format!(
                                        "a line at byte {} is longer than {} bytes",
                                        self.base, rules.max_line
                                    ),
                                );
                            }
                            let most = rules.max_line.saturating_add(1);
                            capacity = capacity.saturating_mul(2).min(most);
                            buffer.resize(capacity + place::SLACK, 0);
                            // The memory may have moved, and its alignment
                            // with it.
                            let moved = place::front(buffer, self.base);
                            buffer.copy_within(front..front + filled, moved);
                            front = moved;
                        }
                        keep = filled;
                        continue;
                    }
                }
            };
            let flow = visit(&buffer[front..front + end], self.base, end_of_file);
            self.base += end as u64;
            if flow.is_break() {
                return Ended::Stopped(self.base);
            }
            if end_of_file {
                return self.whole();
            }
            let next = place::front(buffer, self.base);
            buffer.copy_within(front + end..front + filled, next);
            front = next;
            keep = filled - end;
        }
    }
}

impl FileRead {
    /// Reads into `buf`, again when interrupted.
    fn read_into(&mut self, buf: &mut [u8]) -> Result<usize, Ended> {
        loop {
            match self.file.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Ended::early(
                        self.base,
                        SkipReason::Unreadable,
                        e.to_string(),
                    ));
                }
            }
        }
    }

    /// A NUL `i` bytes into the `n` bytes just read into the chunk at
    /// `buffer[front..]`, after the `keep` bytes carried over (from a line
    /// start, `base`). Read as text, it is noted and the read goes on
    /// (`Ok`); else the read ends at it, once the lines before its line
    /// are handed to `visit` (when the end is a cut after them).
    fn met_nul(
        &mut self,
        buffer: &[u8],
        (front, keep, n): (usize, usize, usize),
        i: usize,
        visit: &mut impl FnMut(&[u8], u64, bool) -> ControlFlow<()>,
    ) -> Result<(), Ended> {
        let rules = self.rules;
        let nul = self.position + i as u64;
        // The carried part starts at a line start (`base`).
        let line = lines::after_last_end(&buffer[front..front + keep + i]).unwrap_or(0);
        let line_start = self.base + line as u64;
        if rules.as_text {
            // Text: noted, and read on.
            return self.note_nul(nul, line_start, self.position + n as u64);
        }
        let prefix = rules.binary_prefix.min(rules.block.max(1));
        let ended = Ended::nul(nul, line_start, prefix);
        // The lines before the NUL's, unless the visitor wants no more of
        // the file (then the rest is not needed either).
        if line > 0
            && matches!(ended, Ended::Cut { .. })
            && visit(&buffer[front..front + line], self.base, true).is_break()
        {
            return Err(Ended::Stopped(line_start));
        }
        Err(ended)
    }

    /// At the end of the file, where the lines handed on end: at `filled`,
    /// the chunk's end, unless its last line is longer than `max_line`.
    /// Then the lines before it are handed on and the last given whole to
    /// `pieces` as its one piece, or, without `pieces`, the read ends at
    /// it (`long_line`).
    fn last_lines(
        &mut self,
        buffer: &[u8],
        front: usize,
        filled: usize,
        visit: &mut impl FnMut(&[u8], u64, bool) -> ControlFlow<()>,
        pieces: Option<&mut Pieces<'_>>,
    ) -> Result<usize, Ended> {
        // The last line may end without a `\n`: it is held whole
        // too, and no longer than `max_line` either.
        let last = lines::after_last_end(&buffer[front..front + filled]).unwrap_or(0);
        if filled - last > self.rules.max_line {
            let at = self.base + last as u64;
            if let Some(pieces) = pieces {
                // The lines before, then the last line whole, as
                // its one piece.
                if last > 0 && visit(&buffer[front..front + last], self.base, false).is_break() {
                    return Err(Ended::Stopped(at));
                }
                let line = &buffer[front + last..front + filled];
                let mark = bom_len(line, at);
                let piece = Piece {
                    bytes: &line[mark..],
                    line_start: at + mark as u64,
                    line_ends: true,
                    file_ends: true,
                };
                if pieces(piece).is_break() {
                    return Err(Ended::Stopped(self.position));
                }
                self.base = self.position;
                return Err(self.whole());
            }
            if last > 0 && visit(&buffer[front..front + last], self.base, true).is_break() {
                return Err(Ended::Stopped(at));
            }
            return Err(Ended::early(
                at,
                SkipReason::LongLine,
                format!(
                    "a line at byte {at} is longer than {} bytes",
                    self.rules.max_line
                ),
            ));
        }
        Ok(filled)
    }
    /// Counts `n` more bytes read and tells whether the file ended with
    /// them (a read of 0 bytes, or the size it had when opened reached,
    /// when that size is `known`). A read that shows the file is not as
    /// it was opened (grown past the size limit or its size, ended
    /// early) ends the file at `cut` instead.
    fn advance(&mut self, n: usize, known: bool, cut: u64) -> Result<bool, Ended> {
        self.position += n as u64;
        if self
            .rules
            .max_file_size
            .is_some_and(|max| self.position > max)
        {
            return Err(Ended::early(
                cut,
                SkipReason::TooLarge,
                "it grew past the size limit while read".to_owned(),
            ));
        }
        if n == 0 {
            if known && self.position < self.expected {
                return Err(Ended::early(
                    cut,
                    SkipReason::Changed,
                    format!(
                        "it ended at byte {}, its size was {} bytes when opened",
                        self.position, self.expected
                    ),
                ));
            }
            Ok(true)
        } else if known {
            if self.position > self.expected {
                return Err(Ended::early(
                    cut,
                    SkipReason::Changed,
                    format!(
                        "it grew past its size of {} bytes while read",
                        self.expected
                    ),
                ));
            }
            Ok(self.position == self.expected)
        } else {
            Ok(false)
        }
    }

    /// How a read that reached the file's end ends: read in more than one
    /// go, the file must still be the one whose size was taken, or its
    /// parts may be of two versions.
    fn whole(&self) -> Ended {
        if self.reads > 1 && self.expected > 0 {
            match self.file.stat() {
                Ok(now) if now.len == self.expected && now.modified == self.modified => {}
                Ok(_) => {
                    return Ended::early(
                        self.base,
                        SkipReason::Changed,
                        "it was modified while read".to_owned(),
                    );
                }
                Err(e) => {
                    return Ended::early(self.base, SkipReason::Unreadable, e.to_string());
                }
            }
        }
        Ended::Whole(self.position)
    }

    /// Reads on through a line longer than `max_line`, whose first bytes
    /// fill the buffer (`filled` bytes at `front`, from `base`, without a
    /// line end), handing it to `pieces` piece by piece until its end,
    /// through the buffer as it is. Each read is checked as in `visit`.
    fn long_line(
        &mut self,
        buffer: &mut [u8],
        front: usize,
        filled: usize,
        visit: &mut impl FnMut(&[u8], u64, bool) -> ControlFlow<()>,
        pieces: &mut Pieces<'_>,
    ) -> Long {
        let start = self.base;
        let first = &buffer[front..front + filled];
        let mark = bom_len(first, start);
        let line_start = start + mark as u64;
        let _ = pieces(Piece {
            bytes: &first[mark..],
            line_start,
            line_ends: false,
            file_ends: false,
        });
        let rules = self.rules;
        let prefix = rules.binary_prefix.min(rules.block.max(1));
        let capacity = buffer.len() - place::SLACK;
        let known = self.expected > 0;
        loop {
            let front = place::front(buffer, self.position);
            let want = if known {
                let left = self.expected.saturating_sub(self.position) + 1;
                capacity.min(usize::try_from(left).unwrap_or(usize::MAX))
            } else {
                capacity
            };
            let n = loop {
                match self.file.read(&mut buffer[front..front + want]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        return Long::Ended(Ended::early(
                            start,
                            SkipReason::Unreadable,
                            e.to_string(),
                        ));
                    }
                }
            };
            self.reads += 1;
            let at = self.position;
            let line_end = memchr::memchr(b'\n', &buffer[front..front + n]);
            let found = if self.looks_for_nul() {
                memchr::memchr(0, &buffer[front..front + n])
            } else {
                None
            };
            if let (Some(i), true) = (found, rules.as_text) {
                // In the long line, or on a line after it.
                let line_start = match line_end.filter(|&end| end < i) {
                    None => start,
                    Some(_) => {
                        at + lines::after_last_end(&buffer[front..front + i]).unwrap_or(0) as u64
                    }
                };
                if let Err(ended) = self.note_nul(at + i as u64, line_start, at + n as u64) {
                    return Long::Ended(ended);
                }
            }
            let new = &buffer[front..front + n];
            if let Some(i) = found.filter(|_| !rules.as_text) {
                let nul = at + i as u64;
                let Some(end) = line_end.filter(|&end| end < i) else {
                    // In the long line: the read ends at its start.
                    return Long::Ended(Ended::nul(nul, start, prefix));
                };
                let piece = Piece {
                    bytes: &new[..end],
                    line_start,
                    line_ends: true,
                    file_ends: false,
                };
                let next = end + 1;
                if pieces(piece).is_break() {
                    return Long::Ended(Ended::Stopped(at + next as u64));
                }
                // The whole lines between, then the cut at the NUL's line.
                let before = lines::after_last_end(&new[next..i]).map_or(next, |l| next + l);
                if before > next && visit(&new[next..before], at + next as u64, true).is_break() {
                    return Long::Ended(Ended::Stopped(at + before as u64));
                }
                return Long::Ended(Ended::nul(nul, at + before as u64, prefix));
            }
            let end_of_file = match self.advance(n, known, start) {
                Ok(end) => end,
                Err(ended) => return Long::Ended(ended),
            };
            match line_end {
                Some(end) => {
                    let piece = Piece {
                        bytes: &new[..end],
                        line_start,
                        line_ends: true,
                        file_ends: false,
                    };
                    self.base = at + end as u64 + 1;
                    if pieces(piece).is_break() {
                        return Long::Ended(Ended::Stopped(self.base));
                    }
                    // The lines after it go on through the buffer.
                    let keep = n - end - 1;
                    let moved = place::front(buffer, self.base);
                    buffer.copy_within(front + end + 1..front + n, moved);
                    return Long::Goes { front: moved, keep };
                }
                None if end_of_file => {
                    let piece = Piece {
                        bytes: new,
                        line_start,
                        line_ends: true,
                        file_ends: true,
                    };
                    if pieces(piece).is_break() {
                        return Long::Ended(Ended::Stopped(self.position));
                    }
                    self.base = self.position;
                    return Long::Ended(self.whole());
                }
                None => {
                    let _ = pieces(Piece {
                        bytes: new,
                        line_start,
                        line_ends: false,
                        file_ends: false,
                    });
                }
            }
        }
    }
}
