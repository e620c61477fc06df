//! Postings written to a file as they are merged, in the bytes
//! `Grams::encode` gives: the head's length depends only on the number
//! of lists and the list of every file, both known before the merge, so
//! the table and the lists are written in their places as they come, and
//! the head last, in the room left for it. No list is held longer than
//! it takes to write it.

use std::fs::File;
use std::io::{self, Seek as _, SeekFrom, Write as _};

use super::put_head;
use super::spill::Lists;
use super::table::{self, GramBlockRef, Table};

/// The bytes gathered before one write.
const CHUNK: usize = 1 << 20;

/// Writes the postings of `lists` at `at` in `file`: the length of the
/// head (8 bytes, little-endian), then what `Grams::encode` writes.
/// Returns the length of all that, and the CRC-32 of the head's length
/// and the head (what a base file's header checks).
///
/// # Errors
///
/// When the file cannot be written, or the lists cannot be read back.
pub(crate) fn write_postings(
    lists: &mut Lists,
    file: &mut File,
    at: u64,
) -> io::Result<(u64, u32)> {
    let trigrams = lists.trigrams;
    let room = vec![
        GramBlockRef {
            first: 0,
            start: 0,
            crc: 0
        };
        trigrams.div_ceil(table::BLOCK)
    ];
    let all = std::mem::take(&mut lists.all);
    let mut head = Vec::new();
    put_head(&mut head, trigrams, &all.bytes, all.count, 0, &room);
    let head_len = head.len();
    let table_at = at + 8 + head_len as u64;
    let lists_at = table_at + (trigrams * table::ENTRY) as u64;
    let mut entries = Out::new(table_at);
    let mut data = Out::new(lists_at);
    let mut table = Table::default();
    let mut written = 0;
    while let Some((key, list)) = lists.next()? {
        written += 1;
        if written > trigrams {
            break;
        }
        table.push(&mut entries.buf, key, list.count, &list.bytes);
        entries.flush_if_full(file)?;
        data.put(file, &list.bytes)?;
    }
    if written != trigrams {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the spilled runs do not hold the trigrams they were counted with",
        ));
    }
    entries.flush(file)?;
    data.flush(file)?;
    let lists_len = data.at - lists_at;
    head.clear();
    head.extend_from_slice(&(head_len as u64).to_le_bytes());
    put_head(
        &mut head,
        trigrams,
        &all.bytes,
        all.count,
        lists_len,
        &table.finish(),
    );
    file.seek(SeekFrom::Start(at))?;
    file.write_all(&head)?;
    let len = data.at - at;
    Ok((len, crc32fast::hash(&head)))
}

/// A region of the file written in order, through a buffer.
struct Out {
    /// Where the buffer's bytes go.
    at: u64,
    buf: Vec<u8>,
}

impl Out {
    fn new(at: u64) -> Out {
        Out {
            at,
            buf: Vec::with_capacity(CHUNK),
        }
    }

    fn put(&mut self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        if self.buf.len() + bytes.len() > CHUNK {
            self.flush(file)?;
        }
        if bytes.len() >= CHUNK {
            self.write(file, bytes)
        } else {
            self.buf.extend_from_slice(bytes);
            Ok(())
        }
    }

    fn flush_if_full(&mut self, file: &mut File) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush(file)?;
        }
        Ok(())
    }

    fn flush(&mut self, file: &mut File) -> io::Result<()> {
        let buf = std::mem::take(&mut self.buf);
        self.write(file, &buf)?;
        self.buf = buf;
        self.buf.clear();
        Ok(())
    }

    fn write(&mut self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        file.seek(SeekFrom::Start(self.at))?;
        file.write_all(bytes)?;
        self.at += bytes.len() as u64;
        Ok(())
    }
}
