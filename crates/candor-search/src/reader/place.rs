//! Where in the read buffer a read lands.
//!
//! The kernel copies a file's bytes from its page cache into the buffer.
//! On some processors (AMD's, measured), that copy is about half again as
//! slow when the destination lies a few bytes past the source's offset
//! within a cache line, as it does for a buffer from `malloc`, whose
//! first byte sits 16 bytes into a page, and a read from a file's start.
//! Reading a whole tree, that is a third of a search's time. So each
//! chunk is placed in the buffer at the same offset, modulo [`ALIGN`], as
//! its first byte has in the file: every read then lands at the offset
//! its source has, whatever the buffer's address and the lines carried
//! over.

/// Reads land at the offset their source has in the file, modulo this:
/// a cache line.
pub(super) const ALIGN: usize = 64;

/// The room a buffer needs beyond its block for the placement: up to
/// `ALIGN - 1` bytes to reach an aligned address, and as many again to
/// match the file's offset.
pub(super) const SLACK: usize = 2 * ALIGN;

/// Where, in `buffer`, a chunk whose first byte is at `base` in the file
/// starts: at most `SLACK - 2`.
pub(super) fn front(buffer: &[u8], base: u64) -> usize {
    let to_aligned = buffer.as_ptr().addr().wrapping_neg() % ALIGN;
    // Lossless: the remainder is under `ALIGN`.
    to_aligned + (base % ALIGN as u64) as usize
}

#[cfg(all(test, feature = "tree"))]
mod tests {
    use super::*;
    use crate::reader::{AnyInput, Ended, FileRead, ReadRules};

    #[test]
    fn a_chunk_starts_at_its_file_offset_modulo_a_cache_line() {
        let buffer = vec![0u8; 4 * ALIGN];
        for base in [0u64, 1, 15, 16, 63, 64, 65, 4096 + 17, u64::MAX] {
            for skew in 0..ALIGN {
                let part = &buffer[skew..];
                let at = front(part, base);
                assert!(at <= SLACK - 2);
                let address = part[at..].as_ptr().addr();
                assert_eq!(address % ALIGN, (base % ALIGN as u64) as usize);
            }
        }
    }

    #[test]
    fn every_chunk_read_lies_at_its_file_offset_modulo_a_cache_line() {
        // Lines of every length up to past the block, so chunks start
        // anywhere, lines are carried over, and the buffer grows (moving).
        let mut text = Vec::new();
        for i in 0..400usize {
            text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, (i * 7) % 301));
            text.push(b'\n');
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, &text).unwrap();
        for block in [64, 100, 256, 4096] {
            let rules = ReadRules {
                block,
                binary_prefix: block,
                max_line: 1024,
                max_file_size: None,
                as_text: false,
            };
            let file = std::fs::File::open(&path).unwrap();
            let Ok(mut read) = FileRead::open(AnyInput::File(file), rules) else {
                panic!("not opened");
            };
            let mut buffer = Vec::new();
            let mut seen = Vec::new();
            let ended = read.visit(&mut buffer, &mut |chunk, at, _| {
                assert_eq!(at, seen.len() as u64);
                let address = chunk.as_ptr().addr();
                assert_eq!(address % ALIGN, (at % ALIGN as u64) as usize);
                seen.extend_from_slice(chunk);
                std::ops::ControlFlow::Continue(())
            });
            assert!(matches!(ended, Ended::Whole(_)), "block {block}");
            assert_eq!(seen, text, "block {block}");
        }
    }
}
