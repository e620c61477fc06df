//! A binary file the caller named is searched as ripgrep searches a file
//! named on its command line: every matching line is an item, and the
//! answer says the file is binary (`binary_as_text`, policy, told once,
//! where its first NUL is), for `find_in_file`, `excerpt` and a path that
//! `Query::paths` names, on documents, trees and the index alike; a binary
//! file met in a walk is still skipped. The grep example prints such a
//! file as ripgrep does: ripgrep's own tests of it, ported, and ripgrep
//! itself when it is on PATH.
#![cfg(feature = "tree")]

use std::path::{Path, PathBuf};
use std::process::Command;

use candor_search::{Bounded, Corpus, Excerpt, Limits, Match, Query, SkipReason, Tree};
use proptest::prelude::*;

use crate::examples_cli::example;
use crate::fixture::{Fixture, agree, agree_pages};
use crate::oracle::{Spans, excerpt_lines, literal_spans, matching_lines, searched};
use crate::pages::pages;

/// The `rg` binary, when it is on PATH. With `CANDOR_REQUIRE_RG=1` (as CI
/// sets it, having installed ripgrep) a missing `rg` fails the test that
/// asks; otherwise that test says so and checks only its own oracle.
pub(crate) fn ripgrep(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(format!("rg{}", std::env::consts::EXE_SUFFIX)))
            .find(|rg| rg.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("CANDOR_REQUIRE_RG").as_deref() != Ok("1"),
            "{test}: CANDOR_REQUIRE_RG=1, and no rg on PATH"
        );
        println!("{test}: no rg on PATH: compared with the oracle alone");
    }
    found
}

/// ripgrep's major version (`rg --version`'s first line).
fn ripgrep_major(rg: &Path) -> Option<u32> {
    let out = Command::new(rg).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.lines().next()?.split_whitespace().nth(1)?;
    version.split('.').next()?.parse().ok()
}

// ---------------------------------------------------------------------------
// ripgrep's tests of a binary file named on its command line, ported

/// The line texts of ripgrep's test haystack (`tests/data/sherlock-nul.txt`,
/// the first 2,133 lines of "A Study in Scarlet" with `abcdef\0` inserted
/// as line 1870) that its tests of a named binary file print, by number.
const HAY_LINES: &[(usize, &str)] = &[
    (
        1,
        "The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle",
    ),
    (176, "\"A medical student, I suppose?\" said I."),
    (409, "\"A medical student, I suppose?\" said I."),
    (642, "\"A medical student, I suppose?\" said I."),
    (875, "\"A medical student, I suppose?\" said I."),
    (1108, "\"A medical student, I suppose?\" said I."),
    (1341, "\"A medical student, I suppose?\" said I."),
    (1574, "\"A medical student, I suppose?\" said I."),
    (1807, "\"A medical student, I suppose?\" said I."),
    (1867, "\"And yet you say he is not a medical student?\""),
    (1870, "abcdef\0"),
    (
        1871,
        "\"No. Heaven knows what the objects of his studies are. But here we",
    ),
];

/// Where the haystack's NUL byte is.
const HAY_NUL: usize = 77_041;

/// A haystack in the shape of ripgrep's: the lines its tests print at
/// their numbers, the NUL at its offset (past ripgrep's first look of
/// 64 KiB, within candor's binary prefix of 256 KiB), 2,134 lines, the
/// others filler that no pattern of the tests matches.
fn hay() -> Vec<u8> {
    let fixed = |n: usize| HAY_LINES.iter().find(|(at, _)| *at == n).map(|(_, t)| *t);
    let nul_line = 1870;
    // The filler before the NUL's line takes what its offset leaves.
    let fixed_before: usize = HAY_LINES
        .iter()
        .filter(|(n, _)| *n < nul_line)
        .map(|(_, t)| t.len() + 1)
        .sum();
    let fillers = (1..nul_line).filter(|n| fixed(*n).is_none()).count();
    let filler_bytes = HAY_NUL - "abcdef".len() - fixed_before;
    let (each, extra) = (filler_bytes / fillers, filler_bytes % fillers);
    let mut out = Vec::new();
    let mut filler = 0;
    for n in 1..=2134 {
        match fixed(n) {
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None if n < nul_line => {
                // `each` bytes with its `\n`, one more for the first `extra`.
                let len = each + usize::from(filler < extra) - 1;
                let head = format!("filler {n:04} ");
                out.extend_from_slice(head.as_bytes());
                out.extend(std::iter::repeat_n(b'z', len - head.len()));
                filler += 1;
            }
            None => out.extend_from_slice(format!("filler {n:04} after").as_bytes()),
        }
        out.push(b'\n');
    }
    assert_eq!(out.iter().position(|&b| b == 0), Some(HAY_NUL));
    out
}

/// What ripgrep prints for a file named alone, with the file's name in
/// front as it prints it beside others (`-H`, as the grep example always
/// does): `hay:1:...` and `hay: binary file matches ...`.
fn with_name(name: &str, ripgrep_output: &str) -> String {
    ripgrep_output
        .lines()
        .map(|line| match line.starts_with("binary file matches") {
            true => format!("{name}: {line}\n"),
            false => format!("{name}:{line}\n"),
        })
        .collect()
}

/// ripgrep's tests of a file named on its command line (`tests/binary.rs`
/// and `tests/misc.rs` of BurntSushi/ripgrep), as its default reads one
/// (with a memory map): each test's name, file, pattern and expected
/// output (`rg -n PATTERN FILE`). The `--no-mmap` variants of some
/// (`after_match1_explicit`, `before_match1_explicit`,
/// `before_match2_explicit`) print otherwise for the same file, by how
/// ripgrep's buffered reader meets the NUL; ripgrep's default for a file
/// named is the memory map, and so is the grep example's.
fn ripgrep_cases() -> Vec<(&'static str, &'static str, Vec<u8>, &'static str, String)> {
    let medical: String = [176, 409, 642, 875, 1108, 1341, 1574, 1807]
        .iter()
        .map(|n| format!("{n}:\"A medical student, I suppose?\" said I.\n"))
        .collect();
    vec![
        (
            "binary::mmap_match_explicit",
            "hay",
            hay(),
            "Project Gutenberg EBook",
            "1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n".into(),
        ),
        (
            "binary::mmap_match_near_nul",
            "hay",
            hay(),
            "abcdef",
            "binary file matches (found \"\\0\" byte around offset 77041)\n".into(),
        ),
        (
            "binary::mmap_match_multiple",
            "hay",
            hay(),
            "Project Gutenberg EBook|Heaven",
            "1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n\
             1871:\"No. Heaven knows what the objects of his studies are. But here we\n"
                .into(),
        ),
        (
            "binary::mmap_after_nul_match",
            "hay",
            hay(),
            "medical student",
            format!("{medical}1867:\"And yet you say he is not a medical student?\"\n"),
        ),
        (
            "misc::binary_convert_mmap",
            "file",
            b"foo\x00bar\nfoo\x00baz\n".to_vec(),
            "foo",
            "binary file matches (found \"\\0\" byte around offset 3)\n".into(),
        ),
        (
            "misc::binary_convert",
            "file",
            b"foo\x00bar\nfoo\x00baz\n".to_vec(),
            "foo",
            "binary file matches (found \"\\0\" byte around offset 3)\n".into(),
        ),
    ]
}

#[test]
fn the_grep_example_prints_a_named_binary_file_as_ripgrep_s_tests_expect() {
    let rg = ripgrep("binary_named").filter(|rg| {
        // The expectations are those of ripgrep 14 and later.
        let recent = ripgrep_major(rg).is_some_and(|major| major >= 14);
        if !recent {
            println!("binary_named: rg is older than 14: compared with the ported tests alone");
        }
        recent
    });
    for (test, name, bytes, pattern, expected) in ripgrep_cases() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), &bytes).unwrap();
        let expected = with_name(name, &expected);
        let out = Command::new(example("grep"))
            .args([pattern, name])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "{test}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A match was found: ripgrep's status, 0.
        assert_eq!(out.status.code(), Some(0), "{test}");
        if let Some(rg) = &rg {
            let by_rg = Command::new(rg)
                .args(["--no-config", "-H", "-n", pattern, name])
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&by_rg.stdout),
                expected,
                "{test}: rg"
            );
        }
        // The library's answer holds every matching line, and says the
        // file is binary, where its first NUL is.
        let tree = Tree::new(dir.path()).unwrap();
        let query = Query::regex(pattern);
        let found = tree
            .find_in_file(name, &query, &Limits::new(), None)
            .unwrap();
        let regex = regex::bytes::Regex::new(pattern).unwrap();
        let want: Vec<u64> = bytes
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, line)| regex.is_match(line))
            .map(|(i, _)| i as u64 + 1)
            .collect();
        let got: Vec<u64> = found.iter().map(|m| m.line_number).collect();
        assert_eq!(got, want, "{test}: the library's lines");
        assert!(found.is_complete(), "{test}");
        assert_eq!(
            found.skipped().count(&SkipReason::BinaryAsText),
            1,
            "{test}"
        );
        let nul = bytes.iter().position(|&b| b == 0).unwrap();
        let detail = found.skipped().sample()[0].detail().unwrap_or_default();
        assert!(
            detail.contains(&format!("at byte {nul}:")),
            "{test}: {detail}"
        );
    }
}

/// ripgrep's `-c` tests of the haystack named (`binary::mmap_match_count`
/// and `binary::after_match1_explicit_count`): every matching line is
/// counted, through `count_per_file` and the path named.
#[test]
fn a_named_binary_file_s_matching_lines_are_all_counted_as_ripgrep_s_tests_expect() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hay"), hay()).unwrap();
    let tree = Tree::new(dir.path()).unwrap();
    for (test, pattern, count) in [
        (
            "binary::mmap_match_count",
            "Project Gutenberg EBook|Heaven",
            2,
        ),
        (
            "binary::after_match1_explicit_count",
            "Project Gutenberg EBook",
            1,
        ),
    ] {
        let query = Query::regex(pattern).paths(["hay"]);
        let counts = tree.count_per_file(&query, &Limits::new(), None).unwrap();
        let got: Vec<(&str, u64)> = counts.iter().map(|c| (c.path.as_str(), c.count)).collect();
        assert_eq!(got, [("hay", count)], "{test}");
        assert!(counts.is_complete(), "{test}");
        assert_eq!(
            counts.skipped().count(&SkipReason::BinaryAsText),
            1,
            "{test}"
        );
        // Walked, the file is binary: skipped, as ripgrep skips it.
        let walked = tree
            .count_per_file(&Query::regex(pattern), &Limits::new(), None)
            .unwrap();
        assert!(walked.is_empty(), "{test}");
        assert_eq!(walked.skipped().count(&SkipReason::Binary), 1, "{test}");
    }
}

// ---------------------------------------------------------------------------
// Against the oracle

/// A named file's pieces: text, the needle, line ends, NUL bytes, bytes
/// that are not UTF-8.
const PIECES: &[&[u8]] = &[
    b"needle",
    b"x",
    b" ",
    b"\n",
    b"\n",
    b"\0",
    b"\r\n",
    "\u{e9}".as_bytes(),
    b"\xff",
    b"needle\0",
];

fn named_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec(prop::sample::select(PIECES), 0..60),
    )
        .prop_map(|(bom, pieces)| {
            let mut bytes = if bom {
                crate::oracle::BOM.to_vec()
            } else {
                Vec::new()
            };
            bytes.extend(pieces.concat());
            bytes
        })
}

/// The path of the named file, and the files beside it: a walked text
/// file and a walked binary one.
const NAMED: &str = "n/file.dat";
const WALKED: &[(&str, &[u8])] = &[
    ("w/a.txt", b"needle one\nnone\nneedle two\n"),
    ("w/b.bin", b"needle\0 in a binary\nneedle\n"),
    ("w/c.txt", b"needle three\n"),
];

type Item = (String, u64, u64, String, Spans);

fn item(m: &Match) -> Item {
    let spans = m.matches.iter().map(|s| (s.start, s.end)).collect();
    (
        m.path.clone(),
        m.line_number,
        m.byte_offset,
        m.line.clone(),
        spans,
    )
}

/// The oracle's matching lines of `bytes` (whole, or as the binary rule
/// of a walk leaves them) as items of the file at `path`.
fn oracle(path: &str, bytes: &[u8]) -> Vec<Item> {
    let needles = ["needle".to_owned()];
    let spans = move |line: &[u8]| literal_spans(line, &needles, false, false);
    matching_lines(bytes, &spans)
        .into_iter()
        .map(|h| (path.to_owned(), h.number, h.offset, h.line, h.spans))
        .collect()
}

fn told<T>(b: &Bounded<T>) -> u64 {
    b.skipped().count(&SkipReason::BinaryAsText)
}

fn told_over<T>(pages: &[Bounded<T>]) -> u64 {
    pages.iter().map(told).sum()
}

/// Checks every query of the named file on every corpus of `f`.
fn check_named(f: &Fixture, bytes: &[u8], limit: usize) -> Result<(), TestCaseError> {
    let query = Query::literal("needle");
    let first_nul = bytes.iter().position(|&b| b == 0);
    let binary = u64::from(first_nul.is_some());
    let whole = oracle(NAMED, bytes);
    let limits = Limits::new().limit(limit);

    // find_in_file: every matching line, the binary record once.
    let mut found = Vec::new();
    let mut paged = Vec::new();
    for (name, corpus) in f.all() {
        let b = corpus
            .find_in_file(NAMED, &query, &Limits::new(), None)
            .unwrap();
        prop_assert_eq!(
            b.iter().map(item).collect::<Vec<_>>(),
            whole.clone(),
            "{}",
            name
        );
        prop_assert!(b.is_complete(), "{}: {:?}", name, b.disclosure());
        prop_assert_eq!(told(&b), binary, "{}", name);
        prop_assert_eq!(b.skipped().total(), binary, "{}", name);
        if let Some(nul) = first_nul {
            let detail = b.skipped().sample()[0]
                .detail()
                .unwrap_or_default()
                .to_owned();
            prop_assert!(
                detail.contains(&format!("at byte {nul}:")),
                "{}: {}",
                name,
                detail
            );
        }
        found.push((name, b));
        let walked = pages(name, 200, |c| {
            corpus.find_in_file(NAMED, &query, &limits, c)
        });
        let items: Vec<Item> = walked.iter().flat_map(|p| p.iter().map(item)).collect();
        prop_assert_eq!(items, whole.clone(), "{}: pages", name);
        prop_assert_eq!(told_over(&walked), binary, "{}: pages tell it once", name);
        paged.push((name, walked));
    }
    agree(&found)?;
    agree_pages(&paged)?;

    // A path named beside a folder named: the file whole, the folder's
    // binary file skipped.
    let mut want = whole.clone();
    for (path, walked_bytes) in WALKED {
        if let Some(text) = searched(walked_bytes) {
            want.extend(oracle(path, text));
        }
    }
    let named = query.clone().paths([NAMED, "w"]);
    let mut results = Vec::new();
    for (name, corpus) in f.all() {
        let b = corpus.search(&named, &Limits::new(), None).unwrap();
        prop_assert_eq!(
            b.iter().map(item).collect::<Vec<_>>(),
            want.clone(),
            "{}",
            name
        );
        prop_assert!(b.is_complete(), "{}", name);
        prop_assert_eq!(told(&b), binary, "{}", name);
        prop_assert_eq!(b.skipped().count(&SkipReason::Binary), 1, "{}", name);
        let walked = pages(name, 200, |c| corpus.search(&named, &limits, c));
        let items: Vec<Item> = walked.iter().flat_map(|p| p.iter().map(item)).collect();
        prop_assert_eq!(items, want.clone(), "{}: pages", name);
        prop_assert_eq!(told_over(&walked), binary, "{}: pages", name);
        let binary_over: u64 = walked
            .iter()
            .map(|p| p.skipped().count(&SkipReason::Binary))
            .sum();
        prop_assert_eq!(binary_over, 1, "{}: pages", name);
        results.push((name, b));

        // Counted and listed: the file's one item, and the record.
        let one = query.clone().paths([NAMED]);
        let counts = corpus.count_per_file(&one, &Limits::new(), None).unwrap();
        let want_counts: Vec<(String, u64)> = match whole.len() {
            0 => Vec::new(),
            n => vec![(NAMED.to_owned(), n as u64)],
        };
        let got: Vec<(String, u64)> = counts.iter().map(|c| (c.path.clone(), c.count)).collect();
        prop_assert_eq!(got, want_counts, "{}: counts", name);
        prop_assert_eq!(told(&counts), binary, "{}: counts", name);
        let files = corpus
            .files_with_matches(&one, &Limits::new(), None)
            .unwrap();
        let want_files: Vec<String> = match whole.len() {
            0 => Vec::new(),
            _ => vec![NAMED.to_owned()],
        };
        prop_assert_eq!(files.items().to_vec(), want_files, "{}: files", name);
        prop_assert_eq!(told(&files), binary, "{}: files", name);

        // Walked (no path named), the rule of a walk applies to it too.
        let all = corpus.search(&query, &Limits::new(), None).unwrap();
        let mut walked_want = searched(bytes).map_or_else(Vec::new, |t| oracle(NAMED, t));
        for (path, walked_bytes) in WALKED {
            if let Some(text) = searched(walked_bytes) {
                walked_want.extend(oracle(path, text));
            }
        }
        prop_assert_eq!(
            all.iter().map(item).collect::<Vec<_>>(),
            walked_want,
            "{}",
            name
        );
        prop_assert_eq!(told(&all), 0, "{}: walked", name);

        // An excerpt of every line, whole and page by page.
        let excerpt = Excerpt::new(NAMED, 1..=u64::MAX);
        let lines = corpus.excerpt(&excerpt, &Limits::new(), None).unwrap();
        let want_lines = excerpt_lines(bytes, 1, u64::MAX);
        let got_lines: Vec<(u64, u64, String)> = lines
            .iter()
            .map(|l| (l.line_number, l.byte_offset, l.line.clone()))
            .collect();
        prop_assert_eq!(got_lines, want_lines, "{}: excerpt", name);
        prop_assert!(lines.is_complete(), "{}: excerpt", name);
        prop_assert_eq!(told(&lines), binary, "{}: excerpt", name);
        let excerpt_pages = pages(name, 200, |c| corpus.excerpt(&excerpt, &limits, c));
        prop_assert_eq!(told_over(&excerpt_pages), binary, "{}: excerpt pages", name);
    }
    agree(&results)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A file named, whatever NUL bytes it holds: every matching line of
    /// the oracle (which splits on `\n` alone), told binary once, on every
    /// corpus and page by page; the files walked beside it keep the rule
    /// of a walk.
    #[test]
    fn a_named_file_gives_every_matching_line_and_says_it_is_binary(
        bytes in named_bytes(),
        limit in 1usize..4,
    ) {
        let mut files: Vec<(&str, &[u8])> = WALKED.to_vec();
        files.push((NAMED, &bytes));
        let f = Fixture::new(&files);
        check_named(&f, &bytes, limit)?;
    }
}

/// A file larger than the binary prefix, with its first NUL early and
/// another past the prefix, or its only NUL past the prefix: paged a few
/// matches at a time, each page after the first reads from its cursor,
/// and a page that meets a NUL looks back for an earlier one, so the
/// record is told once, by the page that holds the first NUL's line.
#[test]
fn a_large_named_file_paged_from_its_cursors_tells_its_record_once() {
    let line = |n: usize| match n % 97 {
        0 => format!("needle {n}\n"),
        _ => format!("filler line {n} of a large file\n"),
    };
    let body = |nuls: &[usize]| -> Vec<u8> {
        (0..12_000)
            .flat_map(|n| {
                let mut l = line(n).into_bytes();
                if nuls.contains(&n) {
                    l.insert(l.len() - 1, 0);
                }
                l
            })
            .collect()
    };
    for (what, nuls) in [
        ("early and late", vec![5usize, 9_700]),
        ("late only", vec![9_700]),
        ("on a matching line", vec![97 * 50]),
    ] {
        let bytes = body(&nuls);
        assert!(bytes.len() > 256 * 1024, "{what}: past the binary prefix");
        let nul = bytes.iter().position(|&b| b == 0).unwrap();
        let first_nul_line = bytes[..nul].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let f = Fixture::new(&[(NAMED, &bytes)]);
        let whole = oracle(NAMED, &bytes);
        let query = Query::literal("needle");
        for limit in [1, 3, 7] {
            let limits = Limits::new().limit(limit);
            for (name, corpus) in f.all() {
                let walked = pages(name, 500, |c| {
                    corpus.find_in_file(NAMED, &query, &limits, c)
                });
                let items: Vec<Item> = walked.iter().flat_map(|p| p.iter().map(item)).collect();
                assert_eq!(items, whole, "{what}, limit {limit}, {name}");
                assert_eq!(told_over(&walked), 1, "{what}, limit {limit}, {name}");
                // Told by the page that holds the first item from the
                // first NUL's line on.
                let telling = walked.iter().position(|p| told(p) == 1).unwrap();
                let holder = walked
                    .iter()
                    .position(|p| p.iter().any(|m| m.line_number >= first_nul_line))
                    .unwrap_or(walked.len() - 1);
                assert_eq!(telling, holder, "{what}, limit {limit}, {name}");
            }
        }
    }
}

#[cfg(feature = "index")]
#[test]
fn the_index_answers_a_named_binary_file_as_the_tree_does() {
    use candor_search::Index;
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let late: Vec<u8> = [
        "needle\n".repeat(5),
        "x\n".repeat(140_000),
        "needle\0\nneedle\n".into(),
    ]
    .concat()
    .into_bytes();
    for (name, bytes) in [
        ("early.bin", b"needle\0 early\nneedle\n".to_vec()),
        ("late.bin", late),
        ("text.txt", b"needle\n".to_vec()),
        ("d/inner.bin", b"\0needle\n".to_vec()),
    ] {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    // Older than the build's clock tick: recorded as binary, unchanged.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for name in ["early.bin", "late.bin", "text.txt", "d/inner.bin"] {
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join(name))
            .unwrap();
        file.set_modified(hour_ago).unwrap();
    }
    let tree = Tree::new(dir.path()).unwrap().threads(1);
    let index = Index::build(tree.clone(), store.path()).unwrap();
    let query = Query::literal("needle");
    for limits in [Limits::new(), Limits::new().limit(2)] {
        for paths in [
            vec![],
            vec!["early.bin"],
            vec!["late.bin", "d"],
            vec!["d/inner.bin", "text.txt"],
        ] {
            let q = query.clone().paths(paths.clone());
            let (t, i) = (
                pages("tree", 100, |c| tree.search(&q, &limits, c)),
                pages("index", 100, |c| index.search(&q, &limits, c)),
            );
            let view = |p: &[Bounded<Match>]| -> Vec<_> {
                p.iter()
                    .map(|b| {
                        (
                            b.items().to_vec(),
                            b.completeness().clone(),
                            b.total(),
                            b.skipped().clone(),
                        )
                    })
                    .collect()
            };
            assert_eq!(view(&t), view(&i), "{paths:?} {limits:?}");
            let (t, i) = (
                tree.count_per_file(&q, &limits, None).unwrap(),
                index.count_per_file(&q, &limits, None).unwrap(),
            );
            assert_eq!(
                (t.items(), t.skipped()),
                (i.items(), i.skipped()),
                "{paths:?}"
            );
            let (t, i) = (
                tree.files_with_matches(&q, &limits, None).unwrap(),
                index.files_with_matches(&q, &limits, None).unwrap(),
            );
            assert_eq!(
                (t.items(), t.skipped()),
                (i.items(), i.skipped()),
                "{paths:?}"
            );
        }
        for file in ["early.bin", "late.bin", "d/inner.bin"] {
            let (t, i) = (
                pages("tree", 100, |c| tree.find_in_file(file, &query, &limits, c)),
                pages("index", 100, |c| {
                    index.find_in_file(file, &query, &limits, c)
                }),
            );
            let view = |p: &[Bounded<Match>]| -> Vec<_> {
                p.iter()
                    .map(|b| (b.items().to_vec(), b.skipped().clone()))
                    .collect()
            };
            assert_eq!(view(&t), view(&i), "{file} {limits:?}");
            assert_eq!(told_over(&t), 1, "{file} {limits:?}");
        }
    }
}
