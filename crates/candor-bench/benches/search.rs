//! Text-search benchmarks on a generated corpus and on real source text.
//!
//! The corpus is about 16 MiB of Rust-like source in 800 documents, made
//! from a fixed seed, so runs are comparable. Each matcher kind (one
//! literal, several literals, regex with a literal prefix, regex with a
//! leading repetition, case-insensitive) is measured on a rare and a common
//! query, listing every match ("full") and capped at 100 ("limit100"); and
//! the cheap counting path (`count_total`) against building every item.
//! The same corpus is also written to a temporary folder and searched as a
//! `Tree`, with 1 and 2 threads. A tree of many small files in many
//! folders, with ignore files at three levels, measures what a rare
//! literal costs there: the walk and the work per file, from the
//! repository's root and from a folder below it (`tree_walk`). One long line of dense matches among
//! invalid bytes, at three sizes, shows whether time grows with its size
//! alone.
//!
//! The generated corpus hides how a matcher behaves on real text (an
//! engine's prefilter can fire on common letters), so the engine each
//! query kind goes to is measured again on real Rust source: the `.rs`
//! files of the local cargo registry (`$CARGO_HOME/registry/src`, or
//! `~/.cargo/registry/src`), read in path order up to 32 MiB. When that
//! folder is absent the `real` group is skipped with a note.
//!
//! Run: `cargo bench -p candor-bench --bench search` (add `-- --quick` for a
//! short run).

use std::hint::black_box;

use candor_search::{Corpus, Documents, Limits, Query, Tree};
use criterion::{BenchmarkId, Criterion, Throughput};

const WORDS: &[&str] = &[
    "fn", "let", "mut", "self", "impl", "struct", "pub", "match", "return", "value", "result",
    "parse", "buffer", "index", "render", "state", "config", "error", "Some", "None", "Ok", "Err",
    "String", "Vec", "usize", "u64", "iter", "map", "collect", "into",
];

/// A deterministic xorshift generator: the corpus is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn corpus() -> Vec<(String, String)> {
    let mut rng = Rng(0x5eed_cafe_f00d_1234);
    (0..800)
        .map(|i| {
            let mut text = String::new();
            while text.len() < 20_000 {
                let indent = rng.below(4) * 4;
                text.extend(std::iter::repeat_n(' ', indent));
                for w in 0..(3 + rng.below(9)) {
                    if w > 0 {
                        text.push(' ');
                    }
                    text.push_str(WORDS[rng.below(WORDS.len())]);
                    if rng.below(1000) == 0 {
                        text.push_str("Typography");
                    }
                }
                text.push_str(";\n");
            }
            (format!("crate{:02}/src/module{:03}.rs", i % 40, i), text)
        })
        .collect()
}

fn queries() -> Vec<(&'static str, Query)> {
    vec![
        ("literal_rare", Query::literal("Typography")),
        ("literal_common", Query::literal("result")),
        (
            "literals3_common",
            Query::literals(["parse", "render", "config"]),
        ),
        ("regex_prefix", Query::regex(r"fn\s+\w+")),
        (
            "regex_leading_repetition",
            Query::regex(r"\w+Typography\w*"),
        ),
        (
            "case_insensitive",
            Query::literal("typography").case_insensitive(true),
        ),
        ("whole_word", Query::literal("map").whole_word(true)),
    ]
}

fn documents(c: &mut Criterion) {
    let files = corpus();
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    let docs: Documents<'_> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let mut group = c.benchmark_group("documents");
    group.throughput(Throughput::Bytes(bytes as u64));
    for (name, query) in queries() {
        group.bench_with_input(BenchmarkId::new("full", name), &query, |b, q| {
            b.iter(|| black_box(docs.search(q, &Limits::new(), None).unwrap().len()))
        });
        group.bench_with_input(BenchmarkId::new("limit100", name), &query, |b, q| {
            b.iter(|| {
                black_box(
                    docs.search(q, &Limits::new().limit(100), None)
                        .unwrap()
                        .len(),
                )
            })
        });
    }
    let common = Query::literal("result");
    group.bench_function("count_total_limit100/literal_common", |b| {
        b.iter(|| {
            let limits = Limits::new().limit(100).count_total(true);
            black_box(docs.search(&common, &limits, None).unwrap().total())
        })
    });
    group.bench_function("count/literal_common", |b| {
        b.iter(|| {
            black_box(
                docs.count_per_file(&common, &Limits::new(), None)
                    .unwrap()
                    .len(),
            )
        })
    });
    group.finish();
}

fn tree(c: &mut Criterion) {
    let files = corpus();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in &files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut group = c.benchmark_group("tree");
    group.sample_size(20);
    let common = Query::literal("result");
    for threads in [1, 2] {
        let tree = Tree::new(dir.path()).unwrap().threads(threads);
        group.bench_function(BenchmarkId::new("full/literal_common", threads), |b| {
            b.iter(|| black_box(tree.search(&common, &Limits::new(), None).unwrap().len()))
        });
        group.bench_function(BenchmarkId::new("limit100/literal_common", threads), |b| {
            b.iter(|| {
                black_box(
                    tree.search(&common, &Limits::new().limit(100), None)
                        .unwrap()
                        .len(),
                )
            })
        });
    }
    group.finish();
}

/// A repository of many small files in many folders, with ignore files
/// at three levels (anchored, unanchored, folder-only and `**` rules, and
/// a `!` rule): where a search's cost is its walk and its per-file work,
/// not its scan. 6,000 files of about 1 KiB in 1,200 folders, below a
/// folder holding `.git`.
fn small_tree() -> tempfile::TempDir {
    let mut rng = Rng(0x0dd_f11e_5eed_0042);
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git/info")).unwrap();
    let write = |path: std::path::PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        repo.join(".gitignore"),
        "target/\n*.log\n/build\n**/gen/*.rs\n!keep.log\n",
    );
    for a in 0..10 {
        let top = repo.join(format!("pkg{a:02}"));
        write(top.join(".gitignore"), "/dist\nnode_modules/\n*.tmp\n");
        for b in 0..12 {
            let mid = top.join(format!("mod{b:02}"));
            if b % 4 == 0 {
                write(mid.join(".ignore"), "fixtures/**/*.snap\n/local.rs\n");
            }
            for c in 0..10 {
                let leaf = mid.join(if c == 9 {
                    "gen".to_owned()
                } else {
                    format!("part{c}")
                });
                for f in 0..5 {
                    let mut text = String::new();
                    while text.len() < 1000 {
                        text.push_str(WORDS[rng.below(WORDS.len())]);
                        text.push(if rng.below(8) == 0 { '\n' } else { ' ' });
                    }
                    if rng.below(200) == 0 {
                        text.push_str("Typography\n");
                    }
                    let ext = ["rs", "ts", "log", "md", "rs"][f];
                    write(leaf.join(format!("file{f}.{ext}")), &text);
                }
            }
        }
    }
    dir
}

fn tree_walk(c: &mut Criterion) {
    let dir = small_tree();
    let repo = dir.path().join("repo");
    let mut group = c.benchmark_group("tree_walk");
    group.sample_size(20);
    let rare = Query::literal("Typography");
    for threads in [1, 2] {
        // The whole repository, and one package: its rules come from the
        // folder above the tree's root.
        for (name, root) in [("repo", repo.clone()), ("package", repo.join("pkg03"))] {
            let tree = Tree::new(&root).unwrap().threads(threads);
            let id = format!("{name}/literal_rare");
            group.bench_function(BenchmarkId::new(id, threads), |b| {
                b.iter(|| black_box(tree.search(&rare, &Limits::new(), None).unwrap().len()))
            });
        }
    }
    group.finish();
}

/// Real Rust source, in path order, up to `cap` bytes: the `.rs` files of
/// the local cargo registry, if there is one.
fn real_corpus(cap: usize) -> Option<Vec<(String, String)>> {
    let root = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))?
        .join("registry")
        .join("src");
    let mut stack = vec![root.clone()];
    let mut paths = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => {
                    paths.push(path)
                }
                _ => {}
            }
        }
    }
    paths.sort();
    let mut files = Vec::new();
    let mut total = 0;
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if total + text.len() > cap {
            break;
        }
        total += text.len();
        let name = path.strip_prefix(&root).unwrap_or(&path);
        files.push((name.to_string_lossy().replace('\\', "/"), text));
    }
    (!files.is_empty()).then_some(files)
}

/// The query kinds whose engine is chosen by measurement, on real text.
fn real_queries() -> Vec<(&'static str, Query)> {
    vec![
        ("literal_rare", Query::literal("Typography")),
        ("literal_common", Query::literal("self")),
        (
            "literal_ci_rare",
            Query::literal("typography").case_insensitive(true),
        ),
        (
            "literal_ci_common",
            Query::literal("error").case_insensitive(true),
        ),
        (
            "literals3",
            Query::literals(["unsafe", "transmute", "MaybeUninit"]),
        ),
        (
            "literals3_ci",
            Query::literals(["unsafe", "transmute", "maybeuninit"]).case_insensitive(true),
        ),
        ("whole_word", Query::literal("map").whole_word(true)),
        ("regex_prefix", Query::regex(r"fn\s+\w+")),
        ("regex_leading_repetition", Query::regex(r"\w+Error\w*")),
        (
            "regex_optional_group",
            Query::regex(r"impl(?:<[^>]*>)?\s+Display"),
        ),
    ]
}

fn real(c: &mut Criterion) {
    let Some(files) = real_corpus(32 << 20) else {
        eprintln!("note: no cargo registry sources found; skipping the real-text benchmarks");
        return;
    };
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    let docs: Documents<'_> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let mut group = c.benchmark_group("real");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    for (name, query) in real_queries() {
        group.bench_with_input(BenchmarkId::new("full", name), &query, |b, q| {
            b.iter(|| black_box(docs.search(q, &Limits::new(), None).unwrap().len()))
        });
    }
    group.finish();
}

/// Many small documents (0.5 to 6 KiB, about 60 MiB in all) of
/// Rust-like text; one in 500 holds `Typography`.
fn small_documents() -> Vec<(String, String)> {
    let mut rng = Rng(0x0dd_ba11_5eed_0042);
    (0..20_000)
        .map(|i| {
            let size = 512 + rng.below(5 * 1024 + 512);
            let mut text = String::with_capacity(size + 80);
            let rare_line = (rng.below(500) == 0).then(|| rng.below(size / 40 + 1));
            let mut line = 0;
            while text.len() < size {
                text.extend(std::iter::repeat_n(' ', rng.below(4) * 4));
                for w in 0..(3 + rng.below(9)) {
                    if w > 0 {
                        text.push(' ');
                    }
                    text.push_str(WORDS[rng.below(WORDS.len())]);
                }
                if rare_line == Some(line) {
                    text.push_str(" Typography");
                }
                text.push_str(";\n");
                line += 1;
            }
            // Name order is the order made (and laid out in memory), as
            // when a corpus is loaded from a walk: neither side of the
            // comparison jumps around memory.
            (format!("pkg{:03}/src/file{:05}.rs", i / 70, i), text)
        })
        .collect()
}

fn many_documents(c: &mut Criterion) {
    let files = small_documents();
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    let docs: Documents<'_> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let query = Query::literal("Typography");
    let finder = memchr::memmem::Finder::new("Typography");
    // The same answer both ways, or the comparison means nothing.
    let raw: usize = files
        .iter()
        .map(|(_, t)| finder.find_iter(t.as_bytes()).count())
        .sum();
    let found = docs.search(&query, &Limits::new(), None).unwrap();
    assert!(raw > 0 && found.is_complete() && found.len() == raw);
    let mut group = c.benchmark_group("many_documents");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("memmem/literal_rare", |b| {
        b.iter(|| {
            black_box(
                files
                    .iter()
                    .map(|(_, t)| finder.find_iter(t.as_bytes()).count())
                    .sum::<usize>(),
            )
        })
    });
    group.bench_function("search/literal_rare", |b| {
        b.iter(|| black_box(docs.search(&query, &Limits::new(), None).unwrap().len()))
    });
    group.finish();
}

/// One line of `a` and a lone continuation byte, repeated, at three sizes:
/// every `a` matches, and the line is not UTF-8. The time per byte must
/// stay level as the line grows (placing each span on the shown line once
/// took a walk from the line's start: time grew with the square).
fn long_lines(c: &mut Criterion) {
    let mut group = c.benchmark_group("long_line");
    group.sample_size(10);
    for kib in [64usize, 256, 1024] {
        let mut line = b"a\x80".repeat(kib * 512);
        line.push(b'\n');
        group.throughput(Throughput::Bytes(line.len() as u64));
        let docs = Documents::new().with("line.txt", line);
        let query = Query::literal("a");
        group.bench_function(BenchmarkId::new("dense_invalid", kib), |b| {
            b.iter(|| black_box(docs.search(&query, &Limits::new(), None).unwrap().len()))
        });
    }
    group.finish();
}

// A hand-written main: `criterion_group!` defines an undocumented public
// function, which the crate's `missing_docs` lint refuses.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    documents(&mut c);
    many_documents(&mut c);
    long_lines(&mut c);
    tree(&mut c);
    tree_walk(&mut c);
    real(&mut c);
    c.final_summary();
}
