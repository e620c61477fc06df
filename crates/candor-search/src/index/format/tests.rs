//! The manifest's format: what is written reads back as it was, through
//! every way a query finds an entry (by place, by path, by a file's id,
//! a folder's end, the special entries), each checked against a naive
//! search of the entries; a byte changed anywhere is refused where it is
//! read, never read as other entries.

use std::cmp::Ordering;
use std::path::PathBuf;

use proptest::prelude::*;

use super::{DIRECTORY, Directory, NO_ID, Written, is_special, manifest};
use crate::index::entry::{FileEntry, FolderEntry, RecordEntry, Segment, SkipEntry, walk_order};
use crate::index::grams::{Disk, Grams};
use crate::index::manifest::{Likeness, Manifest};
use crate::seam::{cmp_paths, is_within};
use crate::{SkipReason, SkippedInput};

/// Opens the manifest of `entries` from memory.
fn open(entries: &[RecordEntry]) -> Result<Manifest, String> {
    let delta = Grams::default();
    let body = manifest(&Written {
        base_generation: 3,
        parents: 4,
        read_ns: 5,
        entries,
        delta: &delta,
    });
    open_body(body)
}

fn open_body(body: Vec<u8>) -> Result<Manifest, String> {
    let dir = Directory::decode(body.get(..DIRECTORY).ok_or("short")?, body.len() as u64)?;
    Manifest::open(Disk::memory(body), dir, PathBuf::from("idx/gen-1.manifest"))
}

fn folder(path: &str, always: bool) -> RecordEntry {
    RecordEntry::Folder(FolderEntry {
        path: path.to_owned(),
        stamp: 17,
        ignores: 1,
        always,
    })
}

fn file(path: &str, segment: Segment, id: u32, blocks: u32) -> FileEntry {
    FileEntry {
        path: path.to_owned(),
        stamp: 7,
        len: 9 * u64::from(blocks),
        always: false,
        binary: false,
        linked: false,
        racy: false,
        segment,
        id,
        blocks,
        starts: Box::default(),
    }
}

/// A walk's entries: the folders of `paths` and the paths as files,
/// skips or folders cut short, in path order; files in the base or the
/// delta (ids ascending in each, with gaps where files went), some of
/// them special.
fn walk(paths: Vec<(String, u8)>) -> Vec<RecordEntry> {
    let mut all: Vec<(String, Option<u8>)> = Vec::new();
    for (path, kind) in paths {
        let mut folder = String::new();
        for part in path
            .split('/')
            .collect::<Vec<_>>()
            .split_last()
            .map_or(&[][..], |(_, f)| f)
        {
            if !folder.is_empty() {
                folder.push('/');
            }
            folder.push_str(part);
            all.push((folder.clone(), None));
        }
        all.push((path, Some(kind)));
    }
    all.sort_by(|a, b| cmp_paths(&a.0, &b.0).then(a.1.is_some().cmp(&b.1.is_some())));
    all.dedup_by(|a, b| a.0 == b.0);
    // A path that is a folder of another is a folder.
    let folders: Vec<String> = all
        .iter()
        .filter(|(p, _)| all.iter().any(|(q, _)| q != p && is_within(q, p)))
        .map(|(p, _)| p.clone())
        .collect();
    let mut ids = [0u32; 2];
    let mut entries = vec![folder("", false)];
    for (path, kind) in all {
        let kind = kind.unwrap_or(0);
        if folders.contains(&path) {
            entries.push(folder(&path, kind % 11 == 1));
            if kind % 13 == 2 {
                // Cut short: its skip right after it.
                entries.push(RecordEntry::Skip(SkipEntry {
                    input: SkippedInput::new(path.clone(), SkipReason::Unreadable)
                        .with_detail("cut short"),
                }));
            }
            continue;
        }
        if kind % 7 == 3 {
            entries.push(RecordEntry::Skip(SkipEntry {
                input: SkippedInput::new(path, SkipReason::Binary),
            }));
            continue;
        }
        let segment = if kind % 3 == 0 {
            Segment::Delta
        } else {
            Segment::Base
        };
        let s = usize::from(segment == Segment::Delta);
        let blocks = u32::from(kind % 4) + 1;
        // A gap: the ids of a file gone since.
        ids[s] += u32::from(kind % 5 == 4) * 2;
        let mut f = file(&path, segment, ids[s], blocks);
        ids[s] += blocks;
        f.always = kind % 17 == 5;
        f.binary = f.always && kind % 2 == 0;
        f.racy = kind % 19 == 6;
        f.linked = kind % 23 == 7;
        if blocks > 1 && !f.always && kind % 2 == 1 {
            f.starts = (1..u64::from(blocks)).map(|k| k * 9 - 1).collect();
        }
        entries.push(RecordEntry::File(f));
    }
    entries
}

fn paths() -> impl Strategy<Value = Vec<(String, u8)>> {
    let name = prop::sample::select(vec![
        "a",
        "b",
        "c d",
        "\u{e9}t\u{e9}",
        "x\\\\y",
        "long-name-of-a-file.rs",
        "z",
        "\u{1F600}",
    ]);
    let path = prop::collection::vec(name, 1..5).prop_map(|n| n.join("/"));
    prop::collection::vec((path, any::<u8>()), 0..400)
}

/// The place of the first entry at or after `path`, naively.
fn naive_first_from(entries: &[RecordEntry], path: &str) -> usize {
    entries
        .iter()
        .position(|e| walk_order(e.path(), path) != Ordering::Less)
        .unwrap_or(entries.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_manifest_reads_back_every_way_a_query_finds_an_entry(paths in paths()) {
        let entries = walk(paths);
        let m = open(&entries).expect("a walk's manifest opens");
        prop_assert_eq!(m.len(), entries.len());
        prop_assert_eq!(&m.all().unwrap(), &entries);
        prop_assert_eq!(m.compare(&entries).unwrap(), Likeness::Same);
        let specials: Vec<(usize, RecordEntry)> = entries
            .iter()
            .cloned()
            .enumerate()
            .filter(|(_, e)| is_special(e))
            .collect();
        prop_assert_eq!(m.specials(), &specials[..]);
        for (at, entry) in entries.iter().enumerate() {
            let held = m.entry(at).unwrap();
            prop_assert_eq!(held.entry(), entry);
            let path = entry.path();
            prop_assert_eq!(m.first_from(path).unwrap(), naive_first_from(&entries, path));
            // A path between entries, and one past the last.
            let beyond = format!("{path}/~");
            prop_assert_eq!(m.first_from(&beyond).unwrap(), naive_first_from(&entries, &beyond));
            let found = m.find(path).unwrap().map(|h| h.at());
            prop_assert_eq!(found, Some(naive_first_from(&entries, path)));
            if let RecordEntry::Folder(f) = entry {
                let end = entries[at + 1..]
                    .iter()
                    .position(|e| !is_within(e.path(), &f.path))
                    .map_or(entries.len(), |i| at + 1 + i);
                prop_assert_eq!(m.end_of(at, &f.path).unwrap(), end);
            }
            if let RecordEntry::File(f) = entry {
                // The block that holds a file's id is found by the id.
                let b = m.block_with_id(f.segment, f.id).unwrap();
                prop_assert!(m.load_block(b).unwrap().entries.iter().any(|e| e == entry));
                prop_assert!(m.first_id(b, f.segment) <= f.id);
                prop_assert!(m.first_id(b + 1, f.segment) > f.id);
            }
        }
        prop_assert_eq!(m.first_id(m.block_count(), Segment::Base), NO_ID);
    }

    /// Damage anywhere in a manifest is refused where it is read: when it
    /// is opened, or by the block that holds it; what reads still holds
    /// the entries written.
    #[test]
    fn a_byte_changed_anywhere_is_never_read_as_other_entries(
        paths in paths(),
        at in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let entries = walk(paths);
        let delta = Grams::default();
        let mut body = manifest(&Written {
            base_generation: 3,
            parents: 4,
            read_ns: 5,
            entries: &entries,
            delta: &delta,
        });
        // The directory is covered by the header's CRC, checked before.
        let at = DIRECTORY + at.index(body.len() - DIRECTORY);
        body[at] ^= 1 << bit;
        let Ok(m) = open_body(body) else {
            return Ok(());
        };
        for (place, entry) in entries.iter().enumerate() {
            if let Ok(held) = m.entry(place) {
                prop_assert_eq!(held.entry(), entry);
            }
        }
        prop_assert!(m.specials().iter().all(|(i, e)| entries[*i] == *e));
    }
}

#[test]
fn ids_out_of_order_are_refused() {
    let base = |path: &str, id, blocks| RecordEntry::File(file(path, Segment::Base, id, blocks));
    for files in [
        vec![base("a", 0, 3), base("b", 2, 1)],
        vec![base("a", 4, 1), base("b", 0, 1)],
        vec![base("a", u32::MAX - 1, 2)],
    ] {
        let mut entries = vec![folder("", false)];
        entries.extend(files);
        let read = open(&entries).and_then(|m| m.all().map_err(|d| d.0));
        let error = read.expect_err("refused");
        assert!(error.contains("id"), "{error}");
    }
}

#[test]
fn blocks_past_the_end_of_their_file_are_refused() {
    let mut f = file("a", Segment::Base, 0, 3);
    f.len = 10;
    f.starts = vec![4, 11].into();
    let read =
        open(&[folder("", false), RecordEntry::File(f)]).and_then(|m| m.all().map_err(|d| d.0));
    let error = read.expect_err("refused");
    assert!(error.contains("blocks"), "{error}");
}

#[test]
fn a_folder_and_its_skip_stay_in_one_block() {
    // Paths long enough that every entry fills a block.
    let long = "x".repeat(super::BLOCK_BYTES);
    let entries = vec![
        folder("", false),
        folder(&long, true),
        RecordEntry::Skip(SkipEntry {
            input: SkippedInput::new(long.clone(), SkipReason::Unreadable),
        }),
        RecordEntry::File(file(&format!("{long}y"), Segment::Base, 0, 1)),
    ];
    let m = open(&entries).unwrap();
    assert_eq!(m.all().unwrap(), entries);
    assert_eq!(m.block_of(1), m.block_of(2));
    assert_ne!(m.block_of(2), m.block_of(3));
}
