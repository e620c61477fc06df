//! Peak heap of a directory search: bounded by a read buffer per thread
//! and the result, neither by the size of the corpus nor by the size of
//! its files.
//!
//! This binary counts every allocation of the process, so it holds a
//! single test (tests in one binary run in parallel and would count each
//! other's memory).

#![allow(unsafe_code)] // The counting allocator below, and nothing else.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use candor_search::{Corpus, Documents, Excerpt, JsonStream, Limits, Match, Query, Tree};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the
// counters are plain atomics and allocate nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // Counted as the old and the new block both held, which a
            // moving reallocation briefly does.
            let now = IN_USE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(now, Ordering::Relaxed);
            IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Writes `folders` folders of 50 files of about 8 KiB, where every
/// 100th file mentions the needle, and one file of 1 MiB.
fn write_tree(root: &Path, folders: usize) {
    let line = "some ordinary text of a source file, nothing to find here\n";
    let plain = line.repeat(8 * 1024 / line.len());
    let mut n = 0;
    for folder in 0..folders {
        let dir = root.join(format!("d{folder:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for file in 0..50 {
            let text = if n % 100 == 0 {
                format!("{plain}the needle\n")
            } else {
                plain.clone()
            };
            std::fs::write(dir.join(format!("f{file:02}.txt")), text).unwrap();
            n += 1;
        }
    }
    std::fs::write(root.join("big.txt"), line.repeat((1 << 20) / line.len())).unwrap();
}

/// A tree of `files` files holding `text`, searched on `threads` threads
/// from the start.
fn same_files(files: usize, text: &str, threads: usize) -> (tempfile::TempDir, Tree) {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..files {
        std::fs::write(dir.path().join(format!("f{i:03}.txt")), text).unwrap();
    }
    let tree = Tree::new(dir.path())
        .unwrap()
        .threads(threads)
        .start_threads_after(Duration::ZERO);
    (dir, tree)
}

/// The peak heap, above what was in use before, while `run` runs.
fn peak_of(run: impl FnOnce()) -> usize {
    let before = IN_USE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    run();
    PEAK.load(Ordering::SeqCst) - before
}

#[test]
fn peak_memory_does_not_grow_with_the_corpus() {
    const MIB: usize = 1 << 20;
    let small = tempfile::tempdir().unwrap();
    let large = tempfile::tempdir().unwrap();
    write_tree(small.path(), 4); // 200 files, 1.6 MiB
    write_tree(large.path(), 40); // 2,000 files, 16 MiB
    let query = Query::literal("needle");
    for threads in [1, 4] {
        let stream = |dir: &Path| {
            let tree = Tree::new(dir)
                .unwrap()
                .threads(threads)
                .start_threads_after(Duration::ZERO);
            let mut found = 0;
            let peak = peak_of(|| {
                let end = tree
                    .search_each(&query, &Limits::new(), None, &mut |_: &Match| {
                        found += 1;
                        ControlFlow::Continue(())
                    })
                    .unwrap();
                assert!(end.is_complete());
            });
            (peak, found)
        };
        let (small_peak, small_found) = stream(small.path());
        let (large_peak, large_found) = stream(large.path());
        assert_eq!((small_found, large_found), (2, 20));
        // Files are read through a buffer of 256 KiB per thread, not
        // whole: the 1 MiB file costs no more than the others.
        assert!(
            small_peak < MIB / 2 * (threads + 1),
            "threads {threads}: {small_peak}"
        );
        assert!(
            large_peak < 4 * MIB * threads,
            "threads {threads}: {large_peak} bytes for a 17 MiB corpus"
        );
        // Ten times the corpus, the same peak give or take 64 KiB: what
        // may grow is the root's listing (40 names instead of 4), and the
        // walk's queue and the reordering window, both bounded. Holding
        // even 100 bytes per file of the corpus would add 200 KB.
        // With several threads, how many of them start (and take their
        // 256 KiB read buffer) depends on timing, not on the corpus: allow
        // one buffer for each thread beyond the first.
        let buffers = (threads - 1) * 256 * 1024;
        assert!(
            large_peak < small_peak + 64 * 1024 + buffers,
            "threads {threads}: {small_peak} -> {large_peak} bytes"
        );
        eprintln!(
            "threads {threads}: peak {small_peak} B (1.6 MiB corpus), {large_peak} B (17 MiB)"
        );

        // Collected, the result is the rest of the bound.
        let tree = Tree::new(large.path())
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let collected = peak_of(|| {
            let b = tree.search(&query, &Limits::new(), None).unwrap();
            assert_eq!(b.len(), 20);
        });
        assert!(
            collected < large_peak + 64 * 1024,
            "threads {threads}: {collected}"
        );
    }

    large_files_cost_no_more_than_small_ones();
    a_json_stream_with_a_file_spill_stays_flat();
    runs_of_dense_files_are_held_in_lines_not_files();
    one_file_s_matching_lines_are_handed_on_in_parts();
    long_matching_lines_are_held_in_bytes_not_lines();
    a_line_of_many_matches_costs_only_its_shown_window();
    a_line_over_the_cap_costs_its_window_not_its_length();
}

/// Writes `len` bytes of lines to `path`, a 1 MiB block at a time, with
/// the needle on one line of the first block and four of the last.
fn write_large(path: &Path, len: usize) {
    use std::io::Write as _;
    const BLOCK: usize = 1 << 20;
    let line = "ordinary text of a large log file, nothing to find on this line\n";
    let plain = line.repeat(BLOCK / line.len());
    let mut block = plain.clone().into_bytes();
    block.resize(BLOCK, b'.');
    *block.last_mut().unwrap() = b'\n';
    let mut first = block.clone();
    first[..7].copy_from_slice(b"needle ");
    let mut last = block.clone();
    for i in 0..4 {
        let at = (i + 1) * 100 * line.len();
        last[at..at + 7].copy_from_slice(b"needle ");
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let blocks = len / BLOCK;
    for i in 0..blocks {
        let b = if i == 0 {
            &first
        } else if i == blocks - 1 {
            &last
        } else {
            &block
        };
        out.write_all(b).unwrap();
    }
    out.flush().unwrap();
}

/// A file of 256 MiB, then 16 files of 64 MiB, each with 5 matching
/// lines: searched on 1 and 4 threads, the peak heap stays within a
/// fixed bound, 512 KiB per thread plus 512 KiB, the result included (5
/// or 80 short lines). Reading them whole would take 256 MiB or more.
fn large_files_cost_no_more_than_small_ones() {
    const MIB: usize = 1 << 20;
    let one = tempfile::tempdir().unwrap();
    write_large(&one.path().join("big.log"), 256 * MIB);
    let many = tempfile::tempdir().unwrap();
    for i in 0..16 {
        write_large(&many.path().join(format!("part{i:02}.log")), 64 * MIB);
    }
    let query = Query::literal("needle");
    for threads in [1, 4] {
        for (dir, lines) in [(one.path(), 5), (many.path(), 80)] {
            let tree = Tree::new(dir)
                .unwrap()
                .threads(threads)
                .start_threads_after(Duration::ZERO);
            let peak = peak_of(|| {
                let found = tree.search(&query, &Limits::new(), None).unwrap();
                assert_eq!(found.len(), lines);
                assert!(found.is_complete());
            });
            eprintln!("threads {threads}, {lines} lines: peak {peak} B");
            assert!(
                peak < MIB / 2 * (threads + 1),
                "threads {threads}: a peak of {peak} bytes for {lines} lines"
            );
        }
    }
}

/// 100,000 items, about 7 MiB of JSON: a `JsonStream` that spills to a
/// file holds a fixed part of them (at most 64 KiB pending, and a copy
/// buffer while it writes), where one in memory holds them all.
fn a_json_stream_with_a_file_spill_stays_flat() {
    use std::io::Write;

    /// Counts the bytes written and keeps none.
    struct Counted(u64);
    impl Write for Counted {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len() as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    const ITEMS: usize = 100_000;
    // A stream's end for that many items, found before anything is measured.
    let docs = candor_search::Documents::new().with("x.txt", "x\n".repeat(ITEMS));
    let end = docs
        .search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(end.count(), ITEMS);
    let text = "a line of text that matched, with \"quotes\" to escape";
    let mut written = Counted(0);
    let in_file = peak_of(|| {
        let mut json = JsonStream::with_spill(tempfile::tempfile().unwrap());
        for n in 0..ITEMS {
            json.push(&(n, text)).unwrap();
        }
        json.write(&end, &mut written).unwrap();
    });
    assert!(written.0 > 6 << 20, "{} bytes", written.0);
    let mut in_memory_written = Counted(0);
    let in_memory = peak_of(|| {
        let mut json = JsonStream::new();
        for n in 0..ITEMS {
            json.push(&(n, text)).unwrap();
        }
        json.write(&end, &mut in_memory_written).unwrap();
    });
    assert_eq!(in_memory_written.0, written.0);
    eprintln!(
        "a JsonStream of {ITEMS} items: peak {in_file} B spilled to a file, {in_memory} B in memory"
    );
    assert!(in_file < 256 * 1024, "a peak of {in_file} bytes");
    assert!(in_memory > 6 << 20, "a peak of {in_memory} bytes");
}

/// 400 files of 2,000 matching lines each, streamed on 4 threads: the
/// outcomes held for reordering are bounded in matching lines (about
/// 16,000), not only in files (256), so the peak stays near what a few
/// files hold. Bounded in files alone, 256 of these files would be held:
/// 512,000 lines.
fn runs_of_dense_files_are_held_in_lines_not_files() {
    const MIB: usize = 1 << 20;
    const FILES: usize = 400;
    const LINES: usize = 2_000;
    let text: String = (0..LINES).map(|n| format!("needle {n}\n")).collect();
    let (_dir, tree) = same_files(FILES, &text, 4);
    // What one file's lines cost, held as a result.
    let one_file = peak_of(|| {
        let one = tree
            .find_in_file("f000.txt", &Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert_eq!(one.len(), LINES);
    });
    let mut found = 0;
    let peak = peak_of(|| {
        let end = tree
            .search_each(
                &Query::literal("needle"),
                &Limits::new(),
                None,
                &mut |_: &Match| {
                    found += 1;
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
        assert!(end.is_complete());
    });
    assert_eq!(found, FILES * LINES);
    eprintln!(
        "{FILES} files of {LINES} matching lines: peak {peak} B; one file held whole: {one_file} B"
    );
    // Bounded in lines, parts of a chunk included, the peak measured
    // 5.2 MB; when a chunk admitted once was searched whole it measured
    // 17-19 MB, and bounded in files alone 42 MB. The bound leaves room
    // for the threads' timing.
    assert!(one_file > MIB / 2, "one file's result: {one_file} bytes");
    assert!(peak < 12 * MIB, "a peak of {peak} bytes");
}

/// One file of 40 MB whose 3.6 million lines all match, streamed without
/// a limit, from disk on 1 and 4 threads and from memory: its lines are
/// handed on in parts of 2,048, so the peak is a read buffer per thread
/// and a part, not the file's lines (held whole, they took about 1 GB).
fn one_file_s_matching_lines_are_handed_on_in_parts() {
    use std::io::Write as _;
    const MIB: usize = 1 << 20;
    const LINES: usize = 3_600_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dense.txt");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for n in 0..LINES {
        writeln!(out, "needle {n}").unwrap();
    }
    out.flush().unwrap();
    drop(out);
    std::fs::write(dir.path().join("z.txt"), "needle last\n").unwrap();
    let query = Query::literal("needle");
    for threads in [1, 4] {
        let tree = Tree::new(dir.path())
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let mut found = 0;
        let mut last = String::new();
        let peak = peak_of(|| {
            let end = tree
                .search_each(&query, &Limits::new(), None, &mut |m: &Match| {
                    found += 1;
                    if found == LINES {
                        last.clone_from(&m.line);
                    }
                    ControlFlow::Continue(())
                })
                .unwrap();
            assert!(end.is_complete());
        });
        assert_eq!(found, LINES + 1);
        assert_eq!(last, format!("needle {}", LINES - 1));
        eprintln!("one file of {LINES} matching lines, {threads} threads: peak {peak} B");
        assert!(
            peak < 4 * MIB * threads,
            "threads {threads}: a peak of {peak} bytes"
        );
    }
    let docs = Documents::new().with("dense.txt", std::fs::read(&path).unwrap());
    let mut found = 0;
    let peak = peak_of(|| {
        let end = docs
            .search_each(&query, &Limits::new(), None, &mut |_: &Match| {
                found += 1;
                ControlFlow::Continue(())
            })
            .unwrap();
        assert!(end.is_complete());
    });
    assert_eq!(found, LINES);
    eprintln!("one document of {LINES} matching lines: peak {peak} B");
    assert!(peak < 2 * MIB, "documents: a peak of {peak} bytes");
}

/// 48 files of 48 matching lines of 64 KiB (144 MiB), streamed on 4
/// threads to a slow consumer: the searchers run ahead, and what they hold
/// for reordering is bounded in bytes, not only in lines (16,384 lines of
/// 64 KiB would be 1 GiB; here every line of the corpus could be held).
fn long_matching_lines_are_held_in_bytes_not_lines() {
    const MIB: usize = 1 << 20;
    const FILES: usize = 48;
    const LINES: usize = 48;
    let line = format!("needle {}\n", "a".repeat(64 * 1024 - 8));
    let (_dir, tree) = same_files(FILES, &line.repeat(LINES), 4);
    let mut found = 0;
    let peak = peak_of(|| {
        let end = tree
            .search_each(
                &Query::literal("needle"),
                &Limits::new(),
                None,
                &mut |m: &Match| {
                    assert_eq!(m.line.len(), line.len() - 1);
                    found += 1;
                    std::thread::sleep(Duration::from_micros(100));
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
        assert!(end.is_complete());
    });
    assert_eq!(found, FILES * LINES);
    eprintln!("{FILES} files of {LINES} matching lines of 64 KiB, 4 threads: peak {peak} B");
    assert!(peak < 16 * MIB, "a peak of {peak} bytes");
}

/// One line of 8 MiB, where `x*` matches (empty) at every character and
/// `b` at every byte, searched with a column limit: only the matches the
/// shown window can hold are kept, not 8 million (128 MiB of spans).
fn a_line_of_many_matches_costs_only_its_shown_window() {
    const MIB: usize = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut text = "b".repeat(8 * MIB);
    text.push_str("\nxbx\r\n");
    std::fs::write(dir.path().join("wide.txt"), &text).unwrap();
    let docs = Documents::new().with("wide.txt", text.clone());
    for query in [
        Query::regex("x*"),
        Query::literal("b"),
        Query::regex(r"\bb+"),
    ] {
        let query = query.max_columns(200);
        for threads in [1, 4] {
            let tree = Tree::new(dir.path()).unwrap().threads(threads);
            let peak = peak_of(|| {
                let found = tree.search(&query, &Limits::new(), None).unwrap();
                assert!(!found.completeness().is_truncated());
                let first = &found.items()[0];
                assert!(first.line.len() <= 200 && first.line_cut.is_some());
                assert!(!first.matches.is_empty());
            });
            eprintln!("a line of 8 MiB, {threads} threads, {query:?}: peak {peak} B");
            // The line itself is held while it is searched (up to the
            // long-line cap), in a buffer that doubles to hold it.
            assert!(
                peak < 36 * MIB,
                "{query:?}, {threads} threads: a peak of {peak} bytes"
            );
        }
        let peak = peak_of(|| {
            let found = docs.search(&query, &Limits::new(), None).unwrap();
            assert!(!found.completeness().is_truncated() && found.items()[0].line_cut.is_some());
        });
        assert!(
            peak < 4 * MIB,
            "{query:?}, documents: a peak of {peak} bytes"
        );
    }
}

/// Writes a file of one line of `len` bytes (a match near its start, one
/// in its middle and one at its end) between two short lines, 1 MiB at a
/// time.
fn write_one_long_line(path: &Path, len: usize) {
    use std::io::Write as _;
    const MIB: usize = 1 << 20;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    file.write_all(b"needle first\n").unwrap();
    let block = "abcdefg ".repeat(MIB / 8).into_bytes();
    for i in 0..len / MIB {
        let mut block = block.clone();
        if i == 0 || i == len / MIB / 2 {
            block[1000..1006].copy_from_slice(b"needle");
        }
        if i + 1 == len / MIB {
            block[MIB - 6..].copy_from_slice(b"needle");
        }
        file.write_all(&block).unwrap();
    }
    file.write_all(b"\nneedle last\n").unwrap();
}

/// A line over the 16 MiB cap, searched and excerpted with a column
/// window: read in pieces through the read buffer, keeping only the
/// bytes its window may show. A line three times longer costs the same.
fn a_line_over_the_cap_costs_its_window_not_its_length() {
    const MIB: usize = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut peaks = Vec::new();
    for len in [20 * MIB, 60 * MIB] {
        let path = dir.path().join("wide.txt");
        write_one_long_line(&path, len);
        let tree = Tree::new(dir.path()).unwrap().threads(1);
        let query = Query::literal("needle").max_columns(200);
        let search = peak_of(|| {
            let found = tree.search(&query, &Limits::new(), None).unwrap();
            assert!(found.is_complete(), "{:?}", found.skipped());
            assert_eq!(found.len(), 3);
            let cut = found.items()[1].line_cut.unwrap();
            assert_eq!(cut.original_bytes, len as u64);
            let count = tree.count_per_file(&query, &Limits::new(), None).unwrap();
            assert_eq!(count.items()[0].count, 3);
        });
        let excerpt = Excerpt::new("wide.txt", 1..=3).max_columns(200);
        let excerpted = peak_of(|| {
            let lines = tree.excerpt(&excerpt, &Limits::new(), None).unwrap();
            assert!(lines.is_complete(), "{:?}", lines.skipped());
            assert_eq!(lines.items()[1].line.len(), 200);
        });
        eprintln!("a line of {len} bytes: search peak {search} B, excerpt peak {excerpted} B");
        // The read buffer grows to the cap (16 MiB, doubling: the old and
        // the new block are briefly both held), and no further.
        assert!(
            search < 26 * MIB && excerpted < 26 * MIB,
            "{search} {excerpted}"
        );
        peaks.push((search, excerpted));
    }
    let ((s20, e20), (s60, e60)) = (peaks[0], peaks[1]);
    assert!(s60 < s20 + 64 * 1024, "search: {s20} -> {s60} bytes");
    assert!(e60 < e20 + 64 * 1024, "excerpt: {e20} -> {e60} bytes");
}
