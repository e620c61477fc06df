//! What the disclosure costs over a plain `take(limit)`.
//!
//! Measures the core only (no search): collecting the first L = 1000 items
//! of a source under `Limits`, against the plain `iter.take(L).collect()`
//! that a tool without disclosure would write. Two sources: a range of
//! `u64` (the cheapest possible items, so the overhead shows in full) and
//! a `Vec<String>` of 100,000 path-like strings, cloned item by item.
//!
//! - `collect/*`: `Bounded::collect(iter, &Limits::new().limit(L))` vs `take(L)`; the
//!   collect pulls one more item (the `limit + 1` probe).
//! - `budget/*`: the same collect with a byte budget too large to bind
//!   (`max_bytes(1 << 40)`), so every item's JSON size is measured; vs no
//!   budget.
//! - `fit/*`: a byte budget that binds, so the response is fitted at the
//!   end (items dropped, the note and sample shortened under a tight one):
//!   64 KiB and 400 bytes, over the strings.
//! - `json/*`: the wire shape of a 1000-item result, built as a `String`
//!   (`to_json`) vs streamed to a writer (`write_json`).
//! - `page/*`: the second page of `Bounded::page` (cursor decoding, skipping
//!   the first L items, a new cursor) vs `skip(L).take(L)`. The page's
//!   source yields owned items, so for strings it clones the L skipped
//!   items too, which the plain `iter().skip(L).take(L).cloned()` does not.
//!
//! Run with `cargo bench -p candor --bench core`. For a quick run:
//! `cargo bench -p candor --bench core -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use candor::{Bounded, Fingerprint, Limits, Scope};
use criterion::Criterion;

const L: usize = 1000;
const SOURCE_LEN: u64 = 100_000;

fn strings() -> Vec<String> {
    (0..SOURCE_LEN)
        .map(|n| format!("src/module_{}/file_{}.rs:{}", n % 97, n, n * 7 % 1000))
        .collect()
}

fn collect(c: &mut Criterion) {
    let words = strings();
    let mut group = c.benchmark_group("collect");
    group.bench_function("u64/plain_take", |b| {
        b.iter(|| black_box((0..black_box(SOURCE_LEN)).take(L).collect::<Vec<_>>()))
    });
    group.bench_function("u64/limits_collect", |b| {
        let limits = Limits::new().limit(L);
        b.iter(|| black_box(Bounded::collect(0..black_box(SOURCE_LEN), &limits).unwrap()))
    });
    group.bench_function("string/plain_take", |b| {
        b.iter(|| black_box(words.iter().take(L).cloned().collect::<Vec<_>>()))
    });
    group.bench_function("string/limits_collect", |b| {
        let limits = Limits::new().limit(L);
        b.iter(|| black_box(Bounded::collect(words.iter().cloned(), &limits).unwrap()))
    });
    group.finish();
}

fn budget(c: &mut Criterion) {
    let words = strings();
    let mut group = c.benchmark_group("budget");
    let plain = Limits::new().limit(L);
    let budgeted = Limits::new().limit(L).max_bytes(1 << 40);
    group.bench_function("u64/no_budget", |b| {
        b.iter(|| black_box(Bounded::collect(0..black_box(SOURCE_LEN), &plain).unwrap()))
    });
    group.bench_function("u64/max_bytes", |b| {
        b.iter(|| black_box(Bounded::collect(0..black_box(SOURCE_LEN), &budgeted).unwrap()))
    });
    group.bench_function("string/no_budget", |b| {
        b.iter(|| black_box(Bounded::collect(words.iter().cloned(), &plain).unwrap()))
    });
    group.bench_function("string/max_bytes", |b| {
        b.iter(|| black_box(Bounded::collect(words.iter().cloned(), &budgeted).unwrap()))
    });
    group.finish();
}

fn fit(c: &mut Criterion) {
    let words = strings();
    let mut group = c.benchmark_group("fit");
    let binding = Limits::new().max_bytes(64 << 10);
    let tight = Limits::new().max_bytes(400);
    group.bench_function("string/64KiB", |b| {
        b.iter(|| black_box(Bounded::collect(words.iter().cloned(), &binding).unwrap()))
    });
    group.bench_function("string/400B", |b| {
        b.iter(|| black_box(Bounded::collect(words.iter().cloned(), &tight).unwrap()))
    });
    group.finish();
}

fn json(c: &mut Criterion) {
    let words = strings();
    let result = Bounded::collect(words.iter().cloned(), &Limits::new().limit(L)).unwrap();
    let mut group = c.benchmark_group("json");
    group.bench_function("string/to_json", |b| {
        b.iter(|| black_box(result.to_json().unwrap()))
    });
    group.bench_function("string/write_json", |b| {
        b.iter(|| result.write_json(std::io::sink()).unwrap())
    });
    group.finish();
}

fn page(c: &mut Criterion) {
    let words = strings();
    let scope = Scope::new(Fingerprint::of("bench: second page"));
    let limits = Limits::new().limit(L);
    let first = Bounded::page(0..SOURCE_LEN, &limits, &scope, None).unwrap();
    let cursor = first.next_cursor().expect("more than one page").clone();
    let mut group = c.benchmark_group("page");
    group.bench_function("u64/plain_skip_take", |b| {
        b.iter(|| {
            black_box(
                (0..black_box(SOURCE_LEN))
                    .skip(L)
                    .take(L)
                    .collect::<Vec<_>>(),
            )
        })
    });
    group.bench_function("u64/second_page", |b| {
        b.iter(|| {
            black_box(
                Bounded::page(
                    0..black_box(SOURCE_LEN),
                    &limits,
                    &scope,
                    Some(black_box(&cursor)),
                )
                .unwrap(),
            )
        })
    });
    group.bench_function("string/plain_skip_take", |b| {
        b.iter(|| black_box(words.iter().skip(L).take(L).cloned().collect::<Vec<_>>()))
    });
    group.bench_function("string/second_page", |b| {
        b.iter(|| {
            black_box(
                Bounded::page(
                    words.iter().cloned(),
                    &limits,
                    &scope,
                    Some(black_box(&cursor)),
                )
                .unwrap(),
            )
        })
    });
    group.finish();
}

// What `criterion_main!` expands to, written out: `criterion_group!`
// generates an undocumented `pub fn`, which `missing_docs` refuses.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    collect(&mut c);
    budget(&mut c);
    fit(&mut c);
    json(&mut c);
    page(&mut c);
    c.final_summary();
}
