//! Work budgets and the deadline, which stop a search between files and
//! still let paging finish; and results that do not depend on the thread
//! count, at scale.

use std::time::Duration;

use candor_search::{
    Bounded, BudgetKind, Corpus, Cursor, Limits, ManualClock, Match, Query, Total, Tree,
};

use crate::fixture::{Fixture, path_order, paths_of, write_files};
use crate::pages::pages;

/// Follows cursors until the answer ends; returns all items and the number
/// of pages. Fails on a page that neither ends the answer nor advances.
fn all_pages(c: &dyn Corpus, query: &Query, limits: &Limits) -> (Vec<Match>, usize) {
    let walked = pages("paging", 10_000, |cursor| c.search(query, limits, cursor));
    let mut cursor: Option<&Cursor> = None;
    for b in &walked {
        if let Some(next) = b.next_cursor() {
            assert!(b.completeness().is_truncated(), "a cursor on an exact page");
            assert_ne!(
                Some(next.as_str()),
                cursor.map(Cursor::as_str),
                "the cursor does not advance"
            );
        }
        cursor = b.next_cursor();
    }
    let items = walked.iter().flat_map(|b| b.iter().cloned()).collect();
    (items, walked.len())
}

// ---------------------------------------------------------------------------
// Work budgets and the deadline

/// Ten files of 100 bytes; `hits` says which hold a matching line.
fn budget_files(hits: &[usize]) -> Vec<(String, Vec<u8>)> {
    (0..10)
        .map(|i| {
            let mut text = if hits.contains(&i) {
                b"needle\n".to_vec()
            } else {
                b"nothing\n".to_vec()
            };
            text.resize(99, b'.');
            text.push(b'\n');
            (format!("f{i:02}.txt"), text)
        })
        .collect()
}

#[test]
fn scanned_bytes_budget_stops_and_paging_finishes() {
    let all: Vec<usize> = (0..10).collect();
    let files = budget_files(&all);
    let f = Fixture::owned(&files);
    let q = Query::literal("needle");
    for (corpus, c) in f.all() {
        let limits = Limits::new().max_scanned_bytes(250);
        let b = c.search(&q, &limits, None).unwrap();
        let budget = b.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::ScannedBytes, "{corpus}");
        assert_eq!(budget.max(), 250, "{corpus}");
        assert!(budget.used() >= 250, "{corpus}");
        assert_eq!(b.len(), 3, "{corpus}: three files of 100 bytes reach 250");
        assert_eq!(b.total(), Total::AtLeast(3), "{corpus}");
        assert!(b.next_cursor().is_some(), "{corpus}");
        let json = b.to_json().unwrap();
        assert!(json.contains(r#""budget":"scanned_bytes""#), "{json}");
        let (items, pages) = all_pages(c, &q, &limits);
        assert_eq!(items.len(), 10, "{corpus}");
        assert!(pages >= 4, "{corpus}: {pages} pages");
        let names: Vec<&str> = items.iter().map(|m| m.path.as_str()).collect();
        let want: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, want, "{corpus}");
    }
}

#[test]
fn files_budget_stops_and_paging_finishes() {
    let files = budget_files(&[0, 4, 5, 9]);
    let f = Fixture::owned(&files);
    let q = Query::literal("needle");
    for (corpus, c) in f.all() {
        let limits = Limits::new().max_files(2);
        let b = c.search(&q, &limits, None).unwrap();
        let budget = b.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::Files, "{corpus}");
        assert_eq!((budget.max(), budget.used()), (2, 2), "{corpus}");
        assert_eq!(paths_of(&b), ["f00.txt"], "{corpus}");
        let (items, _) = all_pages(c, &q, &limits);
        let names: Vec<&str> = items.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            names,
            ["f00.txt", "f04.txt", "f05.txt", "f09.txt"],
            "{corpus}"
        );
    }
}

#[test]
fn a_budget_page_without_items_still_advances() {
    let files = budget_files(&[9]);
    let f = Fixture::owned(&files);
    let q = Query::literal("needle");
    for (corpus, c) in f.all() {
        let limits = Limits::new().max_files(3);
        let b = c.search(&q, &limits, None).unwrap();
        assert!(b.is_empty(), "{corpus}");
        assert!(b.completeness().is_truncated_by_budget(), "{corpus}");
        assert_eq!(b.total(), Total::AtLeast(0), "{corpus}");
        assert!(
            b.next_cursor().is_some(),
            "{corpus}: nothing found yet, but the scan moved on"
        );
        let (items, pages) = all_pages(c, &q, &limits);
        assert_eq!(paths_of_items(&items), ["f09.txt"], "{corpus}");
        assert_eq!(pages, 4, "{corpus}: 3 + 3 + 3 + 1 files");
        // The same with count() and files_with_matches().
        let n = c.count_per_file(&q, &limits, None).unwrap();
        assert!(n.completeness().is_truncated_by_budget(), "{corpus}");
        assert!(n.next_cursor().is_some(), "{corpus}");
    }
}

fn paths_of_items(items: &[Match]) -> Vec<&str> {
    items.iter().map(|m| m.path.as_str()).collect()
}

#[test]
fn a_deadline_stops_with_the_deadline_budget() {
    let all: Vec<usize> = (0..10).collect();
    let files = budget_files(&all);
    let f = Fixture::owned(&files);
    let q = Query::literal("needle");
    for (corpus, c) in f.all() {
        // Every reading of the clock moves it 10 ms on.
        let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
        let limits = Limits::new()
            .deadline(Duration::from_millis(35))
            .clock(clock);
        let b = c.search(&q, &limits, None).unwrap();
        let budget = b.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::Deadline, "{corpus}");
        assert_eq!(budget.max(), 35, "{corpus}");
        assert!(!b.is_empty() && b.len() < 10, "{corpus}: {} items", b.len());
        assert!(b.next_cursor().is_some(), "{corpus}");
        let json = b.to_json().unwrap();
        assert!(json.contains(r#""budget":"deadline""#), "{json}");
        let (items, _) = all_pages(c, &q, &limits);
        assert_eq!(items.len(), 10, "{corpus}");
    }
}

/// One file of 20,000 matching lines (240 KB): its search comes in parts
/// of about 25 KB, and a budget must stop it between two of them.
fn dense_file() -> Vec<(String, Vec<u8>)> {
    vec![("dense.txt".to_owned(), b"hello world\n".repeat(20_000))]
}

#[test]
fn budgets_stop_a_file_of_dense_matching_lines_between_its_parts() {
    let f = Fixture::owned(&dense_file());
    let q = Query::literal("o");
    for (corpus, c) in f.all() {
        let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
        for (kind, limits) in [
            (
                BudgetKind::ScannedBytes,
                Limits::new().max_scanned_bytes(50_000),
            ),
            (
                BudgetKind::Deadline,
                Limits::new()
                    .deadline(Duration::from_millis(35))
                    .clock(clock.clone()),
            ),
        ] {
            let b = c.search(&q, &limits, None).unwrap();
            let budget = b.completeness().budget().expect("a budget stop");
            assert_eq!(budget.kind(), kind, "{corpus}");
            assert!(b.len() < 20_000, "{corpus}: {kind:?}: {} items", b.len());
            assert!(b.next_cursor().is_some(), "{corpus}");
            let (items, pages) = all_pages(c, &q, &limits);
            assert!(pages > 2, "{corpus}: {kind:?}: {pages} pages");
            let lines: Vec<(u64, u64)> = items
                .iter()
                .map(|m| (m.line_number, m.byte_offset))
                .collect();
            let want: Vec<(u64, u64)> = (0..20_000u64).map(|i| (i + 1, 12 * i)).collect();
            assert_eq!(lines, want, "{corpus}: {kind:?}");
        }
    }
}

#[test]
fn a_deadline_already_past_still_does_one_file() {
    let all: Vec<usize> = (0..10).collect();
    let files = budget_files(&all);
    let f = Fixture::owned(&files);
    let q = Query::literal("needle");
    for (corpus, c) in f.all() {
        let clock = ManualClock::new().auto_advance(Duration::from_secs(60));
        let limits = Limits::new().deadline(Duration::from_secs(1)).clock(clock);
        let (items, pages) = all_pages(c, &q, &limits);
        assert_eq!(items.len(), 10, "{corpus}");
        // One file per page at least (the rest of a file after its last
        // item counts as one).
        assert!(pages <= 21, "{corpus}: {pages} pages");
    }
}

// ---------------------------------------------------------------------------
// Determinism and scale

/// A few hundred files in nested folders whose names sort differently as
/// strings and as paths.
fn many_files(n: usize) -> Vec<(String, Vec<u8>)> {
    let dirs = ["a", "a-b", "a.c", "a/b", "a/b-c", "b", "B", "a/b/c"];
    (0..n)
        .map(|i| {
            let dir = dirs[i % dirs.len()];
            let name = format!(
                "{dir}/f{:04}{}",
                (i * 7919) % n,
                if i % 3 == 0 { ".rs" } else { "" }
            );
            let mut text = Vec::new();
            for line in 0..(i % 5) {
                if (i + line) % 4 == 0 {
                    text.extend_from_slice(format!("needle {i} {line}\n").as_bytes());
                } else {
                    text.extend_from_slice(b"hay\r\n");
                }
            }
            if i % 97 == 0 {
                text.push(0);
            }
            (name, text)
        })
        .collect()
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let f = Fixture::owned(&many_files(400));
    let docs = &f.docs;
    let q = Query::literal("needle");
    let limit_sets = [
        Limits::new(),
        Limits::new().limit(37),
        Limits::new().limit(37).count_total(true),
        Limits::new().limit(1),
        Limits::new().max_bytes(4000),
        Limits::new().max_files(50),
    ];
    for limits in &limit_sets {
        let want = docs.search(&q, limits, None).unwrap();
        let want_counts = docs.count_per_file(&q, limits, None).unwrap();
        let mut first: Option<Bounded<Match>> = None;
        for threads in [1, 2, 8] {
            for _run in 0..3 {
                let t = Tree::new(f.dir())
                    .unwrap()
                    .threads(threads)
                    .start_threads_after(Duration::ZERO);
                let b = t.search(&q, limits, None).unwrap();
                assert_eq!(b.items(), want.items(), "{threads} threads, {limits:?}");
                assert_eq!(b.completeness(), want.completeness(), "{threads} threads");
                assert_eq!(b.total(), want.total(), "{threads} threads");
                assert_eq!(b.skipped(), want.skipped(), "{threads} threads");
                match &first {
                    Some(earlier) => {
                        assert_eq!(&b, earlier, "{threads} threads: cursor or skipped differ")
                    }
                    None => first = Some(b),
                }
                let n = t.count_per_file(&q, limits, None).unwrap();
                assert_eq!(n.items(), want_counts.items(), "{threads} threads: count");
                assert_eq!(
                    n.completeness(),
                    want_counts.completeness(),
                    "{threads} threads"
                );
            }
        }
    }
    // The whole answer is in path order.
    let all = docs.search(&q, &Limits::new(), None).unwrap();
    let paths = paths_of(&all);
    assert!(paths.windows(2).all(|w| path_order(&w[0], &w[1]).is_le()));
    assert!(all.len() > 100);
}

#[test]
fn two_thousand_files_with_limit_ten_give_the_first_ten() {
    let files = many_files(2000);
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let dir = write_files(&refs);
    let q = Query::literal("needle");
    // The oracle: every matching line of every text file, in path order.
    let mut want: Vec<(String, u64)> = Vec::new();
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| path_order(&a.0, &b.0));
    for (name, text) in sorted {
        if text.contains(&0) {
            continue;
        }
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            if line.starts_with(b"needle") {
                want.push((name.clone(), i as u64 + 1));
            }
        }
    }
    assert!(want.len() > 10);
    for threads in [1, 8] {
        let t = Tree::new(dir.path())
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = t.search(&q, &Limits::new().limit(10), None).unwrap();
        let got: Vec<(String, u64)> = b.iter().map(|m| (m.path.clone(), m.line_number)).collect();
        assert_eq!(got, want[..10].to_vec(), "{threads} threads");
        assert_eq!(b.total(), Total::AtLeast(11));
        assert!(b.next_cursor().is_some());
        let counted = t
            .search(&q, &Limits::new().limit(10).count_total(true), None)
            .unwrap();
        assert_eq!(counted.total(), Total::Exact(want.len() as u64));
        let files = t
            .files_with_matches(&q, &Limits::new().limit(10), None)
            .unwrap();
        let mut want_files: Vec<&str> = want.iter().map(|(p, _)| p.as_str()).collect();
        want_files.dedup();
        assert_eq!(files.items(), &want_files[..10], "{threads} threads");
    }
}
