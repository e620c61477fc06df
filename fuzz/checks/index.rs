//! The `index` check: arbitrary bytes as an index's files, read by
//! `Index::open` over a small tree. Each input is a clean error, or an
//! index whose answers are the tree's own, or that say they are not
//! complete: never a panic, never a wrong answer marked complete.
//!
//! The first byte picks the file the rest replaces (the manifest or the
//! base's posting lists), whether the rest is the whole file or only
//! its body, under a header made valid for it (right magic, version,
//! rules, generation, length and checksum), and whether the checksums
//! behind the header's are made valid too (a manifest's sections and
//! blocks, a base's table's blocks), so that the decoders behind them
//! are reached (a manifest's body keeps the pristine base's generation
//! in its first 8 bytes, so that its base is found; a manifest's header
//! checksum covers its directory, a base's its first 8 bytes, the length
//! of its head, and the head, and each posting list has its own).
//! The tree's stamps (inodes, times in
//! nanoseconds) are not in any input: a forged entry cannot pass for an
//! unchanged one.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use candor_search::{Corpus, Index, Limits, Query, Tree};

/// The tree, and a pristine index of it (its folder).
struct Fixture {
    _tree: tempfile::TempDir,
    root: PathBuf,
    _store: tempfile::TempDir,
    index: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let tree = tempfile::tempdir().expect("a temporary folder");
        let root = tree.path().to_path_buf();
        for (name, text) in [
            ("a.txt", "foo bar\nhello\n"),
            ("b/c.txt", "nothing\n"),
            ("b/d.txt", "foo\n"),
            ("e.bin", "foo\0\n"),
            (".gitignore", "*.log\n"),
            ("f.log", "foo\n"),
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
            std::fs::write(path, text).expect("a file");
        }
        let store = tempfile::tempdir().expect("a temporary folder");
        let index = store.path().join("idx");
        // Blocks of 4 bytes: each file takes several ids, as a large one
        // does (any size answers the same).
        candor_search::__index_hooks::set_block_bytes(Some(4));
        Index::build(Tree::new(&root).expect("a tree"), &index).expect("an index");
        candor_search::__index_hooks::set_block_bytes(None);
        Fixture {
            _tree: tree,
            root,
            _store: store,
            index,
        }
    })
}

/// CRC-32 (IEEE), as the index's files carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// The file of the pristine index whose name ends with `suffix`.
fn file_ending(dir: &Path, suffix: &str) -> PathBuf {
    std::fs::read_dir(dir)
        .expect("the index's folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .expect("an index file")
}

/// Checks one input; true when the index it makes opened (and its
/// answers were checked).
pub fn check(data: &[u8]) -> bool {
    let fixture = fixture();
    let Some((&mode, rest)) = data.split_first() else {
        return false;
    };
    let store = tempfile::tempdir().expect("a temporary folder");
    let index_dir = store.path().join("idx");
    std::fs::create_dir(&index_dir).expect("a folder");
    for entry in std::fs::read_dir(&fixture.index)
        .expect("the index")
        .flatten()
    {
        std::fs::copy(entry.path(), index_dir.join(entry.file_name())).expect("a copy");
    }
    let target = file_ending(
        &index_dir,
        if mode & 1 == 0 { ".manifest" } else { ".grams" },
    );
    let bytes = if mode & 2 == 0 {
        rest.to_vec()
    } else {
        // The header of the file replaced, made valid for this body; a
        // manifest's body names the pristine base (its first 8 bytes).
        let old = std::fs::read(&target).expect("an index file");
        let mut rest = rest.to_vec();
        if mode & 1 == 0 && rest.len() >= 8 {
            rest[..8].copy_from_slice(&old[44..52]);
        }
        if mode & 1 == 0 && mode & 4 != 0 {
            // The sections and blocks made to match their checksums, so
            // that their entries are read too.
            if let Some(fixed) = candor_search::__index_hooks::manifest_with_checksums(&rest) {
                rest = fixed;
            }
        }
        if mode & 1 == 1 && mode & 4 != 0 {
            // The blocks of the trigram table made to match their
            // checksums, so that their entries are read too.
            if let Some(fixed) = rest
                .get(8..)
                .and_then(candor_search::__index_hooks::with_block_checksums)
            {
                rest.truncate(8);
                rest.extend_from_slice(&fixed);
            }
        }
        let rest = &rest[..];
        let checked = if mode & 1 == 0 {
            let directory = candor_search::__index_hooks::MANIFEST_DIRECTORY;
            &rest[..directory.min(rest.len())]
        } else {
            let head = rest
                .get(..8)
                .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
            &rest[..usize::try_from(head.saturating_add(8))
                .map_or(rest.len(), |h| h.min(rest.len()))]
        };
        let mut bytes = old[..32].to_vec();
        bytes.extend_from_slice(&(rest.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32(checked).to_le_bytes());
        bytes.extend_from_slice(rest);
        bytes
    };
    std::fs::write(&target, bytes).expect("a write");
    let tree = Tree::new(&fixture.root).expect("a tree").threads(1);
    let Ok(index) = Index::open(tree.clone(), &index_dir) else {
        return false;
    };
    let queries = [
        Query::literal("foo"),
        Query::literal("hello"),
        Query::literals(["bar", "nothing"]),
        Query::regex("o+"),
    ];
    let limits = Limits::new();
    for (round, query) in queries.iter().enumerate() {
        let truth = tree
            .search(query, &limits, None)
            .expect("the tree's answer");
        let answer = match index.search(query, &limits, None) {
            Ok(answer) => answer,
            Err(_) => continue,
        };
        if answer.is_complete() {
            assert_eq!(answer.items(), truth.items(), "{query:?}: items");
            assert_eq!(answer.total(), truth.total(), "{query:?}: total");
        }
        if round == 1 {
            // An update writes a new generation from what it reads.
            let _ = index.update();
        }
    }
    true
}
