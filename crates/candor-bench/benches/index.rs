//! The index's posting lists compared with roaring bitmaps: encoded size,
//! single-threaded build time, and the time to compute the candidates of
//! a few plans (a rare literal, a common word, an alternation, a
//! case-insensitive word), whole and capped at 100.
//!
//! The files are those of the folder named by `CANDOR_INDEX_CORPUS`
//! (read in path order, links not followed, files holding a NUL left out
//! as the tree's binary rule does), or else a generated corpus of about
//! 16 MiB. Sizes and build times are printed once, before the timings.
//!
//! Run: `CANDOR_INDEX_CORPUS=DIR cargo bench -p candor-bench --bench index`
//! (add `-- --quick` for a short run).

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use candor_search::__index_hooks::{IndexGrams, Plan, Trigrams, plan};
use candor_search::Query;
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

impl RoaringGrams {
    fn build(files: &[Vec<u8>]) -> RoaringGrams {
        let mut t = Trigrams::default();
        let mut lists: HashMap<u32, RoaringBitmap> = HashMap::new();
        let mut all = RoaringBitmap::new();
        for (i, f) in files.iter().enumerate() {
            let id = i as u32;
            all.push(id);
            for &k in t.of(f) {
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

    fn candidates(&self, plan: &Plan) -> RoaringBitmap {
        match plan {
            Plan::Any => self.all.clone(),
            Plan::Gram(k) => self.lists.get(k).cloned().unwrap_or_default(),
            Plan::All(parts) => {
                let mut parts: Vec<RoaringBitmap> =
                    parts.iter().map(|p| self.candidates(p)).collect();
                parts.sort_by_key(RoaringBitmap::len);
                let mut it = parts.into_iter();
                let first = it.next().unwrap_or_else(|| self.all.clone());
                it.fold(first, |acc, b| acc & b)
            }
            Plan::AnyOf(parts) => parts
                .iter()
                .fold(RoaringBitmap::new(), |acc, p| acc | self.candidates(p)),
        }
    }
}

fn main() {
    let (files, source) = match std::env::var_os("CANDOR_INDEX_CORPUS") {
        Some(dir) => {
            let mut files = Vec::new();
            read_tree(Path::new(&dir), &mut files);
            (files, "the folder of CANDOR_INDEX_CORPUS")
        }
        None => (generated(), "a generated corpus"),
    };
    let bytes: usize = files.iter().map(Vec::len).sum();
    eprintln!(
        "{source}: {} files, {:.1} MiB (files with a NUL left out)",
        files.len(),
        bytes as f64 / 1048576.0
    );

    let started = Instant::now();
    let grams = IndexGrams::build(files.iter().map(Vec::as_slice));
    let varint_build = started.elapsed();
    let encoded = grams.encode();
    let started = Instant::now();
    let decoded = IndexGrams::decode(&encoded).expect("decodes");
    let decode = started.elapsed();
    assert_eq!(decoded, grams);

    let started = Instant::now();
    let roaring = RoaringGrams::build(&files);
    let roaring_build = started.elapsed();
    let roaring_size = roaring.size();

    let pct = |n: usize| 100.0 * n as f64 / bytes as f64;
    eprintln!("distinct trigrams: {}", grams.trigrams());
    eprintln!(
        "delta-varint: {:.1} MiB ({:.1}% of the files), build {:.2?} on 1 thread, decode and check {:.2?}",
        encoded.len() as f64 / 1048576.0,
        pct(encoded.len()),
        varint_build,
        decode
    );
    eprintln!(
        "roaring:      {:.1} MiB ({:.1}% of the files), build {:.2?} on 1 thread",
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
    for (name, q) in &queries {
        let p = plan(q);
        let mine = grams.candidates(q, 0).count();
        let theirs = roaring.candidates(&p).len();
        assert_eq!(mine as u64, theirs, "{name}");
        eprintln!("{name}: {mine} candidate files");
    }

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("index_candidates");
    for (name, q) in &queries {
        let p = plan(q);
        group.bench_function(format!("delta_varint/{name}/all"), |b| {
            b.iter(|| black_box(grams.candidates(black_box(q), 0).count()))
        });
        group.bench_function(format!("delta_varint/{name}/first100"), |b| {
            b.iter(|| black_box(grams.candidates(black_box(q), 0).take(100).count()))
        });
        group.bench_function(format!("roaring/{name}/all"), |b| {
            b.iter(|| black_box(roaring.candidates(black_box(&p)).len()))
        });
        group.bench_function(format!("roaring/{name}/first100"), |b| {
            b.iter(|| black_box(roaring.candidates(black_box(&p)).iter().take(100).count()))
        });
    }
    group.finish();
    c.final_summary();
}
