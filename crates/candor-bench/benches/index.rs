//! The index's posting lists against roaring bitmaps of the same
//! trigrams: the index's size on disk and its build time on one thread,
//! against the roaring bitmaps' encoded size and build time (one bitmap
//! per trigram, one id per file); then the time the index takes to
//! answer a few queries (a rare literal, a common word, an alternation,
//! a case-insensitive word): the first page of 100 matches, and the
//! exact count of matching files. Everything goes through the public
//! API (`Index::build`, `Corpus`).
//!
//! The files are those of the folder named by `CANDOR_INDEX_CORPUS`
//! (hidden files and ignore rules included, links not followed; the
//! bitmaps take the files without a NUL, as the tree's binary rule
//! does), or else a generated corpus of about 16 MiB written to a
//! temporary folder. Sizes and build times are printed once, before the
//! timings.
//!
//! Run: `CANDOR_INDEX_CORPUS=DIR cargo bench -p candor-bench --bench index`
//! (add `-- --quick` for a short run).

use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use candor_search::{Corpus, Index, Limits, Query, Tree};
use criterion::Criterion;
use roaring::RoaringBitmap;

/// The files of `dir`, in path order.
fn read_tree(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            read_tree(&e.path(), out);
        } else if kind.is_file() {
            if let Ok(bytes) = std::fs::read(e.path()) {
                if memchr_nul(&bytes) {
                    continue;
                }
                out.push(bytes);
            }
        }
    }
}

fn memchr_nul(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// About 16 MiB of Rust-like text from a fixed seed.
fn generated() -> Vec<Vec<u8>> {
    const WORDS: &[&str] = &[
        "fn", "let", "mut", "self", "impl", "struct", "pub", "match", "return", "value", "result",
        "parse", "buffer", "index", "render", "state", "config", "error", "Some", "None", "Ok",
        "Err", "String", "Vec", "usize", "u64", "iter", "map", "collect", "into", "unwrap",
    ];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..2000)
        .map(|i| {
            let mut f = Vec::new();
            while f.len() < 8000 {
                f.extend_from_slice(WORDS[(next() % WORDS.len() as u64) as usize].as_bytes());
                f.push(if next() % 8 == 0 { b'\n' } else { b' ' });
            }
            if i % 97 == 0 {
                f.extend_from_slice(b"catch_unwind(PhantomPinned)\n");
            }
            f
        })
        .collect()
}

/// Roaring bitmaps of the same trigrams.
struct RoaringGrams {
    all: RoaringBitmap,
    lists: HashMap<u32, RoaringBitmap>,
}

/// The distinct trigrams of `bytes`, as 24-bit keys.
fn trigrams(bytes: &[u8], seen: &mut HashSet<u32>) -> Vec<u32> {
    seen.clear();
    bytes
        .windows(3)
        .map(|w| (u32::from(w[0]) << 16) | (u32::from(w[1]) << 8) | u32::from(w[2]))
        .filter(|k| seen.insert(*k))
        .collect()
}

impl RoaringGrams {
    fn build(files: &[Vec<u8>]) -> RoaringGrams {
        let mut seen = HashSet::new();
        let mut lists: HashMap<u32, RoaringBitmap> = HashMap::new();
        let mut all = RoaringBitmap::new();
        for (i, f) in files.iter().enumerate() {
            let id = i as u32;
            all.push(id);
            for k in trigrams(f, &mut seen) {
                lists.entry(k).or_default().push(id);
            }
        }
        RoaringGrams { all, lists }
    }

    /// Bytes of a plain encoding: each list's key (3 bytes), length (4)
    /// and serialized bitmap.
    fn size(&self) -> usize {
        self.all.serialized_size()
            + self
                .lists
                .values()
                .map(|b| 7 + b.serialized_size())
                .sum::<usize>()
    }
}

/// The bytes of the files in `dir`, and below.
fn folder_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => folder_size(&e.path()),
                    _ => e.metadata().map_or(0, |m| m.len()),
                })
                .sum()
        })
        .unwrap_or(0)
}

fn main() {
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let (root, source) = match std::env::var_os("CANDOR_INDEX_CORPUS") {
        Some(dir) => (dir.into(), "the folder of CANDOR_INDEX_CORPUS"),
        None => {
            let root = scratch.path().join("tree");
            for (i, f) in generated().iter().enumerate() {
                let path = root.join(format!("d{:02}/f{i:04}.rs", i / 50));
                std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
                std::fs::write(path, f).expect("write");
            }
            // Past the clock tick within which a build does not trust
            // a file it reads (it would read it on every query instead
            // of indexing it): two seconds, for file systems that keep
            // whole seconds.
            std::thread::sleep(std::time::Duration::from_millis(2_100));
            (root, "a generated corpus")
        }
    };
    let mut files = Vec::new();
    read_tree(&root, &mut files);
    let bytes: usize = files.iter().map(Vec::len).sum();
    eprintln!(
        "{source}: {} files, {:.1} MiB (files with a NUL left out)",
        files.len(),
        bytes as f64 / 1048576.0
    );

    let tree = Tree::new(&root)
        .expect("a tree")
        .hidden(true)
        .gitignore(false)
        .parent_ignores(false)
        .threads(1);
    let store = scratch.path().join("index");
    let started = Instant::now();
    let index = Index::build(tree.clone(), &store).expect("an index");
    let index_build = started.elapsed();
    let index_size = folder_size(&store) as usize;

    let started = Instant::now();
    let roaring = RoaringGrams::build(&files);
    let roaring_build = started.elapsed();
    let roaring_size = roaring.size();

    let pct = |n: usize| 100.0 * n as f64 / bytes as f64;
    eprintln!("distinct trigrams: {}", roaring.lists.len());
    eprintln!(
        "index:   {:.1} MiB on disk ({:.1}% of the files; posting lists and the record of the walk), build {:.2?} on 1 thread",
        index_size as f64 / 1048576.0,
        pct(index_size),
        index_build
    );
    eprintln!(
        "roaring: {:.1} MiB ({:.1}% of the files; posting lists only), build {:.2?} on 1 thread",
        roaring_size as f64 / 1048576.0,
        pct(roaring_size),
        roaring_build
    );

    let queries = [
        ("rare literal", Query::literal("PhantomPinned")),
        ("common word", Query::literal("return").whole_word(true)),
        (
            "alternation",
            Query::regex(r"(?:catch_unwind|unwrap_or_default)\("),
        ),
        (
            "case-insensitive word",
            Query::literal("error")
                .case_insensitive(true)
                .whole_word(true),
        ),
    ];
    let first100 = Limits::new().limit(100);
    let counted = Limits::new();
    for (name, q) in &queries {
        let mine = index.count_per_file(q, &counted, None).expect("an answer");
        let theirs = tree.count_per_file(q, &counted, None).expect("an answer");
        assert_eq!(mine.items(), theirs.items(), "{name}");
        eprintln!("{name}: {} matching files", mine.len());
    }

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("index_queries");
    for (name, q) in &queries {
        group.bench_function(format!("{name}/first100"), |b| {
            b.iter(|| black_box(index.search(black_box(q), &first100, None).map(|p| p.len())))
        });
        group.bench_function(format!("{name}/files_counted"), |b| {
            b.iter(|| {
                black_box(
                    index
                        .count_per_file(black_box(q), &counted, None)
                        .map(|p| p.len()),
                )
            })
        });
    }
    group.finish();
    c.final_summary();
}
