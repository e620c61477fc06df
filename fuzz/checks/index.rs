//! The `index` and `index_grams` checks: arbitrary bytes as an index's
//! files, read by `Index::open` over a small tree through the public API
//! alone. Each input is a clean error, or an index whose answers are the
//! tree's own, or that say they are not complete: never a panic, never a
//! wrong answer marked complete.
//!
//! `check`: the first byte picks the file the rest replaces (the
//! manifest or the base's posting lists), whether the rest is the whole
//! file or only its body, under a header made valid for it (right magic,
//! version, rules, generation, length and checksum), and whether the
//! checksums behind the header's are made valid too (a manifest's
//! sections and blocks, a base's table's blocks and lists), so that the
//! decoders behind them are reached (a manifest's body keeps the
//! pristine base's generation in its first 8 bytes, so that its base is
//! found; a manifest's header checksum covers its directory, a base's
//! its first 8 bytes, the length of its head, and the head, and each
//! posting list has its own).
//!
//! `check_postings`: the bytes are the base's posting lists as they are
//! encoded (the head, the table, the lists), put in the base with the
//! length of their head, every checksum and the header made valid.
//!
//! The layout is the index's format 6, transcribed here from the
//! format's description: the checks see only what a user sees. The
//! tree's stamps (inodes, times in nanoseconds) are not in any input: a
//! forged entry cannot pass for an unchanged one.

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
        // A file of several blocks of 64 KiB, each a line of `foo` near
        // its end (and one across the first cut), `hello` at the end.
        let mut large = String::new();
        for k in 0..3 {
            while large.len() < (k + 1) * 65_536 - 40 {
                large.push_str("filler text; a line left as is\n");
            }
            large.push_str("foo at a block's end\n");
        }
        large.push_str("hello\n");
        for (name, text) in [
            ("a.txt", "foo bar\nhello\n"),
            ("b/large.txt", large.as_str()),
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
        Index::build(Tree::new(&root).expect("a tree"), &index).expect("an index");
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

/// The length of the header every index file opens with.
const HEADER: usize = 44;
/// A manifest's directory: ten 8-byte fields (the base's generation, the
/// parents' stamp, when its walk began, the counts of entries, base
/// files, delta files, blocks and specials, the length of the delta's
/// head, a reserved field), then five sections (the block index, the
/// keys, the specials, the blocks, the delta), each where it lies
/// (8 bytes), its length (8) and its CRC-32 (4).
const FIELDS: usize = 10 * 8;
const SECTION: usize = 20;
const DIRECTORY: usize = FIELDS + 5 * SECTION;
/// A block's reference in a manifest's block index; its first 4 bytes
/// are the block's length, its last 4 the block's CRC-32.
const INDEX_ENTRY: usize = 20;
/// The trigram table: 128 entries a block, 19 bytes an entry (trigram,
/// count, where its list ends, the list's CRC-32), 15 bytes a block's
/// reference in the head (first trigram, where its first list starts,
/// the block's CRC-32).
const TABLE_BLOCK: usize = 128;
const TABLE_ENTRY: usize = 19;
const BLOCK_REF: usize = 15;

/// The 8 little-endian bytes of `bytes` at `at`.
fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

/// `n` bytes of `bytes` from `at`, as a range that lies within them.
fn span(bytes: &[u8], at: u64, n: u64) -> Option<std::ops::Range<usize>> {
    let at = usize::try_from(at).ok()?;
    let end = at.checked_add(usize::try_from(n).ok()?)?;
    (end <= bytes.len()).then_some(at..end)
}

/// `body` (a manifest's, after its header) with the checksums of its
/// blocks and sections made to match them, as far as its directory
/// reads.
fn manifest_with_checksums(body: &[u8]) -> Option<Vec<u8>> {
    if body.len() < DIRECTORY {
        return None;
    }
    let mut out = body.to_vec();
    let section = |s: usize| -> Option<(u64, u64)> {
        Some((
            u64_at(body, FIELDS + s * SECTION)?,
            u64_at(body, FIELDS + s * SECTION + 8)?,
        ))
    };
    let blocks = u64_at(body, 6 * 8)?;
    let delta_head = u64_at(body, 8 * 8)?;
    let (index_at, _) = section(0)?;
    let (mut at, _) = section(3)?;
    for b in 0..blocks.min((body.len() / INDEX_ENTRY) as u64) {
        let r = span(
            &out,
            index_at.checked_add(b * INDEX_ENTRY as u64)?,
            INDEX_ENTRY as u64,
        )?;
        let len = u32::from_le_bytes(out[r.start..r.start + 4].try_into().ok()?);
        let block = span(&out, at, u64::from(len))?;
        let crc = crc32(&out[block]);
        out[r.start + 16..r.end].copy_from_slice(&crc.to_le_bytes());
        at += u64::from(len);
    }
    for s in [0, 1, 2, 4] {
        let (from, len) = section(s)?;
        let len = if s == 4 { delta_head } else { len };
        let crc = crc32(&out[span(&out, from, len)?]);
        let field = FIELDS + s * SECTION + 16;
        out[field..field + 4].copy_from_slice(&crc.to_le_bytes());
    }
    Some(out)
}

/// A LEB128 varint of at most 32 bits at `*at`.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Where the head of encoded posting lists ends, and their number of
/// trigrams, when the head reads.
fn postings_head(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut at = 8;
    bytes.get(..8).filter(|m| *m == b"CNDGRAMS")?;
    let _version = varint(bytes, &mut at)?;
    let trigrams = usize::try_from(varint(bytes, &mut at)?).ok()?;
    let _ids = varint(bytes, &mut at)?;
    let all = usize::try_from(varint(bytes, &mut at)?).ok()?;
    let refs = trigrams.div_ceil(TABLE_BLOCK).checked_mul(BLOCK_REF)?;
    let end = at.checked_add(all)?.checked_add(8)?.checked_add(refs)?;
    (end <= bytes.len()).then_some((end, trigrams))
}

/// Encoded posting lists with the checksums of their lists and of the
/// blocks of their table made to match them, as far as they read.
fn postings_with_checksums(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let Some((head, trigrams)) = postings_head(bytes) else {
        return out;
    };
    let refs = head - trigrams.div_ceil(TABLE_BLOCK) * BLOCK_REF;
    let table = head..head
        .saturating_add(trigrams.saturating_mul(TABLE_ENTRY))
        .min(bytes.len());
    let lists = table.end;
    for b in 0..trigrams.div_ceil(TABLE_BLOCK) {
        let r = refs + b * BLOCK_REF;
        let mut start = u64_at(&out, r + 3).unwrap_or(0);
        let from = head + b * TABLE_BLOCK * TABLE_ENTRY;
        let to = (from + TABLE_BLOCK * TABLE_ENTRY).min(table.end);
        if from >= to {
            break;
        }
        for e in (from..to).step_by(TABLE_ENTRY) {
            let Some(end) = u64_at(&out, e + 7).filter(|_| e + TABLE_ENTRY <= to) else {
                break;
            };
            if let Some(list) = start
                .checked_add(lists as u64)
                .and_then(|at| span(&out, at, end.saturating_sub(start)))
            {
                let crc = crc32(&out[list]);
                out[e + 15..e + 19].copy_from_slice(&crc.to_le_bytes());
            }
            start = end;
        }
        let crc = crc32(&out[from..to]);
        out[r + 11..r + 15].copy_from_slice(&crc.to_le_bytes());
    }
    out
}

/// A base's body for encoded posting lists: the length of their head,
/// then them.
fn base_body(postings: &[u8]) -> Vec<u8> {
    let head = postings_head(postings).map_or(postings.len(), |(end, _)| end);
    let mut body = (head as u64).to_le_bytes().to_vec();
    body.extend_from_slice(postings);
    body
}

/// `old`'s header made valid for `body`, then `body`, whose first
/// `checked` bytes the header's checksum covers.
fn with_header(old: &[u8], body: &[u8], checked: usize) -> Vec<u8> {
    let mut bytes = old[..HEADER - 12].to_vec();
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32(&body[..checked.min(body.len())]).to_le_bytes());
    bytes.extend_from_slice(body);
    bytes
}

/// How many bytes of a base's body its header's checksum covers: the
/// length of the head, and the head.
fn base_checked(body: &[u8]) -> usize {
    let head = u64_at(body, 0).unwrap_or(0);
    usize::try_from(head.saturating_add(8)).map_or(body.len(), |h| h.min(body.len()))
}

/// Checks one input; true when the index it makes opened (and its
/// answers were checked).
pub fn check(data: &[u8]) -> bool {
    let Some((&mode, rest)) = data.split_first() else {
        return false;
    };
    let manifest = mode & 1 == 0;
    let suffix = if manifest { ".manifest" } else { ".grams" };
    with_file_replaced(suffix, |old| {
        if mode & 2 == 0 {
            return rest.to_vec();
        }
        // The header of the file replaced, made valid for this body; a
        // manifest's body names the pristine base (its first 8 bytes).
        let mut rest = rest.to_vec();
        if manifest && rest.len() >= 8 {
            rest[..8].copy_from_slice(&old[HEADER..HEADER + 8]);
        }
        if manifest && mode & 4 != 0 {
            // The sections and blocks made to match their checksums, so
            // that their entries are read too.
            if let Some(fixed) = manifest_with_checksums(&rest) {
                rest = fixed;
            }
        }
        if !manifest && mode & 4 != 0 && rest.len() > 8 {
            // The table's blocks and the lists made to match their
            // checksums, so that their entries are read too.
            let fixed = postings_with_checksums(&rest[8..]);
            rest.truncate(8);
            rest.extend_from_slice(&fixed);
        }
        let checked = if manifest {
            DIRECTORY
        } else {
            base_checked(&rest)
        };
        with_header(old, &rest, checked)
    })
}

/// Checks one input as the base's encoded posting lists, with the
/// length of their head, their checksums and the header made valid;
/// true when the index opened (and its answers were checked).
pub fn check_postings(data: &[u8]) -> bool {
    with_file_replaced(".grams", |old| {
        let body = base_body(&postings_with_checksums(data));
        with_header(old, &body, base_checked(&body))
    })
}

/// Copies the pristine index, replaces its file whose name ends with
/// `suffix` by what `make` makes of its bytes, opens it and compares its
/// answers with the tree's.
fn with_file_replaced(suffix: &str, make: impl FnOnce(&[u8]) -> Vec<u8>) -> bool {
    let fixture = fixture();
    let store = tempfile::tempdir().expect("a temporary folder");
    let index_dir = store.path().join("idx");
    std::fs::create_dir(&index_dir).expect("a folder");
    for entry in std::fs::read_dir(&fixture.index)
        .expect("the index")
        .flatten()
    {
        std::fs::copy(entry.path(), index_dir.join(entry.file_name())).expect("a copy");
    }
    let target = file_ending(&index_dir, suffix);
    let old = std::fs::read(&target).expect("an index file");
    std::fs::write(&target, make(&old)).expect("a write");
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
