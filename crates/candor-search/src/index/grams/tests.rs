//! Properties of the postings: candidates are exactly the files whose
//! trigrams satisfy the plan (brute force over the files is the oracle),
//! in order, lazily and from any seek; merging and encoding change
//! nothing; decoding arbitrary bytes never panics; postings built in a
//! small budget, spilled and merged, are those built in memory (the
//! builder that holds every list in memory is the oracle), and written
//! in parts they are the bytes encoded whole.

use std::collections::HashSet;

use proptest::prelude::*;

use super::{Distinct, Grams, GramsBuilder, Postings, SpillTo, split_blocks, write_postings};
use crate::index::plan::{Gram, Need};

/// Files over a small alphabet, so trigrams repeat across files.
fn files() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(
        prop::collection::vec(prop::sample::select(b"abcx\xFF".to_vec()), 0..40),
        0..30,
    )
}

/// Plans over the trigrams of the same alphabet.
fn plan() -> impl Strategy<Value = Need> {
    let gram = prop::collection::vec(prop::sample::select(b"abcx\xFF".to_vec()), 3)
        .prop_map(|v| Need::Gram([v[0], v[1], v[2]]));
    let leaf = prop_oneof![8 => gram, 1 => Just(Need::Any)];
    leaf.prop_recursive(3, 20, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Need::All),
            prop::collection::vec(inner, 0..4).prop_map(Need::AnyOf),
        ]
    })
}

fn trigrams(bytes: &[u8]) -> HashSet<Gram> {
    bytes.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
}

/// The ids (see `id`) whose file satisfies `plan`.
fn brute_force(files: &[Vec<u8>], plan: &Need) -> Vec<u32> {
    files
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            let grams = trigrams(f);
            plan.holds(&|g| grams.contains(g))
        })
        .map(|(i, _)| id(i))
        .collect()
}

/// File `i`'s id: from 3 on, four in a row, then a gap of 2 (runs of
/// ids and gaps both).
fn id(i: usize) -> u32 {
    3 + i as u32 + i as u32 / 4
}

fn build(files: &[Vec<u8>]) -> Grams {
    let mut b = GramsBuilder::new();
    for (i, f) in files.iter().enumerate() {
        b.add(id(i), f);
    }
    b.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn candidates_are_the_files_the_plan_lets_through(
        files in files(),
        plan in plan(),
        split in any::<prop::sample::Index>(),
        interleave in any::<bool>(),
        seek in 0u32..80,
    ) {
        let expected = brute_force(&files, &plan);
        let grams = build(&files);
        prop_assert_eq!(grams.candidates(&plan).collect::<Vec<_>>(), expected.clone());

        // Built on two threads (a prefix and the rest, or odd and even
        // files), then merged.
        let mut a = GramsBuilder::new();
        let mut b = GramsBuilder::new();
        let cut = split.index(files.len() + 1);
        for (i, f) in files.iter().enumerate() {
            let first = if interleave { i % 2 == 0 } else { i < cut };
            if first { a.add(id(i), f) } else { b.add(id(i), f) }
        }
        let merged = b.merge(a).finish();
        prop_assert_eq!(&merged, &grams);

        // Finished in two parts, then merged.
        let (mut a, mut b) = (GramsBuilder::new(), GramsBuilder::new());
        for (i, f) in files.iter().enumerate() {
            if i < cut { a.add(id(i), f) } else { b.add(id(i), f) }
        }
        let merged = b.finish().merge(a.finish()).expect("well formed");
        prop_assert_eq!(&merged, &grams);

        // Encoded and decoded.
        let mut bytes = Vec::new();
        grams.encode(&mut bytes);
        let decoded = Grams::decode(&bytes).expect("decodes");
        prop_assert_eq!(&decoded, &grams);

        // A seek forward, then one backward.
        let mut c = decoded.candidates(&plan);
        let first = c.next();
        prop_assert_eq!(first, expected.first().copied());
        c.seek(seek);
        let after: Vec<u32> = expected.iter().copied().filter(|&i| i >= seek).collect();
        prop_assert_eq!(c.by_ref().collect::<Vec<_>>(), after);
        c.seek(0);
        prop_assert_eq!(c.collect::<Vec<_>>(), expected);
    }

    #[test]
    fn decoding_damaged_bytes_never_panics(
        files in files(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = Vec::new();
        build(&files).encode(&mut bytes);
        let at = flip.index(bytes.len());
        let mut damaged = bytes.clone();
        damaged[at] = byte;
        for attempt in [&bytes[..cut.index(bytes.len())], &damaged[..]] {
            if let Ok(grams) = Grams::decode(attempt) {
                let ids: Vec<u32> = grams.candidates(&Need::Any).collect();
                prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
            }
            // Also with the table's checksums made to match the damage.
            super::decode_check::fuzz_decode(attempt);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A file cut into blocks: exactly as many parts as asked, end to
    /// end, and every line (every match's trigrams) within one part.
    #[test]
    fn blocks_hold_whole_lines(
        bytes in prop::collection::vec(prop::sample::select(b"ab\n\r".to_vec()), 0..200),
        blocks in 1u32..12,
        size in 1u64..40,
    ) {
        let parts = split_blocks(&bytes, blocks, size);
        prop_assert_eq!(parts.len(), blocks as usize);
        prop_assert_eq!(parts.concat(), bytes.clone());
        // Where each part starts: no line begins before a start and
        // ends after it, so each start is 0, the end, or follows a `\n`.
        let mut at = 0;
        for part in &parts {
            prop_assert!(at == 0 || at == bytes.len() || bytes[at - 1] == b'\n');
            at += part.len();
        }
        // The line-based oracle: each line's trigrams are in one part.
        for line in bytes.split(|&b| b == b'\n') {
            if line.is_empty() {
                continue;
            }
            let start = line.as_ptr() as usize - bytes.as_ptr() as usize;
            let holder = parts.iter().find(|p| {
                let from = p.as_ptr() as usize - bytes.as_ptr() as usize;
                from <= start && start + line.len() <= from + p.len()
            });
            prop_assert!(holder.is_some(), "line at {} spans blocks", start);
        }
    }
}

#[test]
fn a_large_file_takes_one_id_per_block_begun() {
    let size = super::BLOCK_BYTES;
    assert_eq!(super::blocks_for(0, size), 1);
    assert_eq!(super::blocks_for(size, size), 1);
    assert_eq!(super::blocks_for(size + 1, size), 2);
    assert_eq!(super::blocks_for(u64::MAX, size), 1 << 16);
    assert_eq!(super::blocks_for(7, 2), 4);
    // A size of 0 counts as 1.
    assert_eq!(super::blocks_for(3, 0), 3);
    // A part past the bytes' end is empty; the last takes what is left.
    let parts = split_blocks(b"ab\ncd\n", 4, 2);
    assert_eq!(parts, [&b"ab\n"[..], b"cd\n", b"", b""]);
    let parts = split_blocks(b"abcdefgh", 3, 2);
    assert_eq!(parts, [&b"abcdefgh"[..], b"", b""]);
}

#[test]
fn long_lists_seek_forward_and_back() {
    let mut b = GramsBuilder::new();
    for i in 0..10_000u32 {
        let bytes: &[u8] = if i % 3 == 0 { b"abcd" } else { b"bcde" };
        b.add(i * 5, bytes);
    }
    let grams = b.finish();
    let plan = Need::All(vec![Need::Gram(*b"abc"), Need::Gram(*b"bcd")]);
    let mut c = grams.candidates(&plan);
    c.seek(30_001);
    assert_eq!(c.next(), Some(30_015));
    assert_eq!(c.next(), Some(30_030));
    c.seek(7);
    assert_eq!(c.next(), Some(15));
    assert_eq!(grams.candidates(&plan).count(), 3334);
    assert_eq!(grams.candidates(&Need::Gram(*b"zzz")).count(), 0);
    assert_eq!(grams.candidates(&Need::Any).count(), 10_000);
}

#[test]
fn other_formats_are_refused_by_name() {
    let mut bytes = Vec::new();
    build(&[b"abcd".to_vec()]).encode(&mut bytes);
    for bad in [&b"nonsense"[..], &bytes[..bytes.len() - 1], b""] {
        let e = Grams::decode(bad).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                crate::ErrorKind::InvalidArgument { name: "index", .. }
            ),
            "{e}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Grams::decode(&longer).is_err());
    let mut other_version = bytes;
    // The version before runs of ids.
    other_version[8] = 3;
    let e = Grams::decode(&other_version).unwrap_err();
    assert!(e.to_string().contains("version 3"), "{e}");
}

#[test]
fn the_fuzz_corpus_replays() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/index_grams");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fuzz corpus")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 4);
    let mut decoded = 0;
    for file in files {
        let bytes = std::fs::read(&file).expect("a corpus file");
        super::decode_check::fuzz_decode(&bytes);
        decoded += usize::from(Grams::decode(&bytes).is_ok());
    }
    assert!(decoded >= 4, "the corpus holds valid indexes");
}

#[test]
fn a_damaged_list_reads_as_every_file() {
    let files = [b"abcd".to_vec(), b"xyz".to_vec(), b"abc".to_vec()];
    let mut bytes = Vec::new();
    build(&files).encode(&mut bytes);
    // The lists end the encoding, the last one `xyz`'s (one id): its
    // varint is made to run past the end.
    let last = bytes.len() - 1;
    bytes[last] |= 0x80;
    let grams = Grams::decode(&bytes).expect("the structure is sound");
    let plan = Need::Gram(*b"xyz");
    assert_eq!(
        grams.candidates(&plan).collect::<Vec<_>>(),
        [id(0), id(1), id(2)]
    );
    assert_eq!(
        grams.candidates(&Need::Gram(*b"abc")).collect::<Vec<_>>(),
        [id(0), id(2)]
    );
}

/// The ids `first`, then each one `gaps` after the one before (gaps of 1
/// make runs of ids in a row).
fn ids_of(first: u32, gaps: &[u32]) -> Vec<u32> {
    let mut ids = vec![first];
    for &g in gaps {
        ids.push(ids[ids.len() - 1] + g);
    }
    ids
}

/// Gaps between ids: mostly 1 (runs), some small, some of several bytes.
fn gaps(max: usize) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(
        prop_oneof![6 => Just(1u32), 3 => 2u32..5, 1 => 100u32..70_000],
        0..max,
    )
}

/// The one encoding of ascending `ids`, written plainly: the first id,
/// then each gap, except that 3 or more ids in a row after an id are
/// written as a 0 and their number.
fn naive_encoding(ids: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let gap = if i == 0 { ids[0] } else { ids[i] - ids[i - 1] };
        if i > 0 && gap == 1 {
            let row = ids[i..]
                .iter()
                .zip(&ids[i - 1..])
                .take_while(|(a, b)| **a == **b + 1)
                .count();
            if row >= 3 {
                super::put_varint(&mut out, 0);
                super::put_varint(&mut out, row as u32);
            } else {
                out.extend(std::iter::repeat_n(1u8, row));
            }
            i += row;
            continue;
        }
        super::put_varint(&mut out, gap);
        i += 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A list's bytes are its one encoding, however it was put together
    /// (pushed id by id, or two lists appended), and a cursor finds in
    /// it, from any target on, what a binary search of the ids finds.
    #[test]
    fn lists_with_runs_read_back_and_join(
        first in prop_oneof![Just(0u32), 1u32..300],
        gaps in gaps(60),
        cut in any::<prop::sample::Index>(),
        targets in prop::collection::vec(0u32..400_000, 0..12),
    ) {
        use super::postings::{ListBuilder, ListCursor, scan};
        let ids = ids_of(first, &gaps);
        let list = ListBuilder::of(ids.iter().copied());
        prop_assert_eq!(&list.bytes, &naive_encoding(&ids));
        prop_assert_eq!(list.ids(), ids.clone());
        prop_assert_eq!(scan(&list.bytes, list.count), Some(ids.last().copied()));
        prop_assert_eq!(scan(&list.bytes, list.count + 1), None);

        // Two parts appended: the list of both.
        let at = cut.index(ids.len() + 1);
        let (a, b) = (ListBuilder::of(ids[..at].iter().copied()), ListBuilder::of(ids[at..].iter().copied()));
        let mut joined = a.clone();
        prop_assert_eq!(joined.append(&b.bytes, b.count, b.last, b.tail()), Some(()));
        prop_assert_eq!(&joined.bytes, &list.bytes);
        prop_assert_eq!((joined.count, joined.last, joined.tail()), (list.count, list.last, list.tail()));
        // And pushed on after.
        let mut more = joined.clone();
        let mut longer = list.clone();
        for id in [list.last + 1, list.last + 2, list.last + 9] {
            more.push(id);
            longer.push(id);
        }
        prop_assert_eq!(&more.bytes, &longer.bytes);

        let max = ids.last().copied().unwrap_or(0) + 5;
        let mut cursor = ListCursor::new(&list.bytes, list.count, max, None);
        let mut sorted = targets.clone();
        sorted.sort_unstable();
        for t in sorted {
            let expected = ids.get(ids.partition_point(|&i| i < t)).copied();
            prop_assert_eq!(cursor.advance(t), expected);
        }
    }
}

/// The postings of `files` (file `i` as the block `ids[i]`) built within
/// `budget` bytes on `threads` threads, spilled to `dir`; and the same
/// written in parts at `at` in a file of `dir`, read back.
fn spilled(
    files: &[Vec<u8>],
    ids: &[u32],
    budget: usize,
    threads: usize,
    dir: &std::path::Path,
    at: u64,
) -> (Grams, Vec<u8>) {
    let build = || {
        let to = SpillTo {
            dir: dir.to_owned(),
            budget,
        };
        let mut postings = Postings::new(to, threads);
        let mut distinct = Distinct::default();
        for (f, &id) in files.iter().zip(ids) {
            postings.add(id, distinct.of(f)).expect("spilled");
        }
        postings.into_lists().expect("read back")
    };
    let grams = Grams::from_lists(&mut build()).expect("merged");
    let path = dir.join("written");
    std::fs::create_dir_all(dir).expect("a folder");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .expect("a file");
    let (len, crc) = write_postings(&mut build(), &mut file, at).expect("written");
    drop(file);
    let bytes = std::fs::read(&path).expect("read");
    std::fs::remove_file(&path).expect("removed");
    let written = bytes[usize::try_from(at).expect("small")..].to_vec();
    assert_eq!(written.len() as u64, len);
    let head = u64::from_le_bytes(written[..8].try_into().expect("8 bytes"));
    let checked = &written[..8 + usize::try_from(head).expect("small")];
    assert_eq!(crc32fast::hash(checked), crc);
    (grams, written)
}

/// What `write_postings` must write for `grams`: the length of the head,
/// then the encoding.
fn encoded_with_head(grams: &Grams) -> Vec<u8> {
    let mut out = vec![0; 8];
    let head = grams.encode(&mut out) as u64;
    out[..8].copy_from_slice(&head.to_le_bytes());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// However small the budget (one pair: a run per pair, the runs
    /// merged as they pile up) and however many threads sort a run, the
    /// postings are those the in-memory builder makes, and written in
    /// parts they are its encoding; no spill file is left behind.
    #[test]
    fn spilled_postings_are_the_postings_built_in_memory(
        files in files(),
        first in 0u32..5,
        gaps in gaps(30),
        budget in 0usize..80,
        threads in 1usize..4,
        at in 0u64..50,
    ) {
        let folder = tempfile::tempdir().expect("a folder");
        let dir = folder.path().join("index");
        let ids = ids_of(first, &gaps);
        let files = &files[..files.len().min(ids.len())];
        let mut b = GramsBuilder::new();
        for (f, &id) in files.iter().zip(&ids) {
            b.add(id, f);
        }
        let expected = b.finish();
        let (grams, written) = spilled(files, &ids, budget, threads, &dir, at);
        prop_assert_eq!(&grams, &expected);
        prop_assert_eq!(written, encoded_with_head(&expected));
        let left: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        prop_assert!(left.is_empty(), "left behind: {:?}", left);
    }
}

/// Lists long enough to be sorted by counting (thousands of ids in one
/// bucket), with runs of ids in a row and gaps of several bytes, split
/// across spilled runs anywhere.
#[test]
fn long_lists_spill_and_merge_as_built_in_memory() {
    let ids: Vec<u32> = (0..9_000u32).map(|i| i + i / 1000 * 300).collect();
    let files: Vec<Vec<u8>> = (0..9_000u32)
        .map(|i| match i % 7 {
            0 => b"abcd".to_vec(),
            1 => format!("abc{}", i % 300).into_bytes(),
            2 => Vec::new(),
            _ => b"bcde\xFF".to_vec(),
        })
        .collect();
    let mut b = GramsBuilder::new();
    for (f, &id) in files.iter().zip(&ids) {
        b.add(id, f);
    }
    let expected = b.finish();
    let folder = tempfile::tempdir().expect("a folder");
    for budget in [8 * 1000, 8 * 4099, 8 * 50_000] {
        for threads in [1, 3] {
            let (grams, written) = spilled(&files, &ids, budget, threads, folder.path(), 3);
            assert_eq!(grams, expected, "budget {budget}, {threads} threads");
            assert_eq!(written, encoded_with_head(&expected));
        }
    }
}

/// A damaged head that says its lists are nearly `u64::MAX` bytes long is
/// refused as cut short, whatever the file's length: the bytes it says
/// follow are never a sum that wraps around (the `index_grams` fuzz
/// target found one).
#[test]
fn a_head_whose_lists_are_longer_than_any_file_is_cut_short() {
    use super::Head;
    use super::table::ListBounds;
    let head = Head {
        trigrams: 3,
        blocks: Vec::new(),
        bounds: ListBounds {
            files: 1,
            lists: u64::MAX - 1,
        },
    };
    for len in [0, 3 * super::table::ENTRY as u64, u64::MAX - 1, u64::MAX] {
        let err = head.check_len(len).expect_err("no file is that long");
        assert!(err.to_string().contains("cut short"), "{len}: {err}");
    }
}
