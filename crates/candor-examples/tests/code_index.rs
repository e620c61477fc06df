//! The `code_index` example's queries (SQLite, keyset pages, totals from
//! `COUNT(*)`) against a naive scan of a generated source tree whose
//! definitions and calls are known by construction.

use std::collections::BTreeMap;

use candor::{Bounded, Completeness, Limits, Total};
use proptest::prelude::*;

#[allow(dead_code)] // its `main` and CLI are not used here
#[path = "../examples/code_index.rs"]
mod example;

use example::{Call, Definition, Index, Reference};

/// A generated crate: per file, its functions; per function, the names it
/// calls and the structs it uses, one per line.
#[derive(Debug, Clone)]
struct Crate {
    files: Vec<Vec<(usize, Vec<Use>)>>,
}

#[derive(Debug, Clone, Copy)]
enum Use {
    Call(usize),
    Struct(usize),
}

const FNS: usize = 6;
const STRUCTS: usize = 3;

fn fn_name(n: usize) -> String {
    format!("f{n}")
}

fn struct_name(n: usize) -> String {
    format!("S{n}")
}

fn file_path(k: usize) -> String {
    // Some files in a folder, so that path order is not file order.
    if k.is_multiple_of(2) {
        format!("m{k}.rs")
    } else {
        format!("sub/m{k}.rs")
    }
}

/// What the index must answer, worked out while writing the files.
#[derive(Debug, Default)]
struct Oracle {
    outline: BTreeMap<String, Vec<Definition>>,
    callers: BTreeMap<String, Vec<Call>>,
    references: BTreeMap<String, Vec<Reference>>,
}

fn write_tree(krate: &Crate, root: &std::path::Path) -> Oracle {
    let mut oracle = Oracle::default();
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
    for (k, fns) in krate.files.iter().enumerate() {
        let path = file_path(k);
        let mut text = String::new();
        let mut line = 0i64;
        let mut push = |text: &mut String, s: String| {
            text.push_str(&s);
            text.push('\n');
            line += 1;
            line
        };
        let outline = oracle.outline.entry(path.clone()).or_default();
        let struct_here = k % STRUCTS;
        let l = push(
            &mut text,
            format!("pub struct {};", struct_name(struct_here)),
        );
        outline.push(Definition {
            kind: "struct".into(),
            name: struct_name(struct_here),
            line: l,
            column: 12,
        });
        for (f, uses) in fns {
            let l = push(&mut text, format!("pub fn {}() {{", fn_name(*f)));
            outline.push(Definition {
                kind: "fn".into(),
                name: fn_name(*f),
                line: l,
                column: 8,
            });
            for u in uses {
                match *u {
                    Use::Call(g) => {
                        let l = push(&mut text, format!("    {}();", fn_name(g)));
                        let at = Reference {
                            path: path.clone(),
                            line: l,
                            column: 5,
                        };
                        oracle.callers.entry(fn_name(g)).or_default().push(Call {
                            caller: Some(fn_name(*f)),
                            path: path.clone(),
                            line: l,
                            column: 5,
                        });
                        oracle.references.entry(fn_name(g)).or_default().push(at);
                    }
                    Use::Struct(s) => {
                        let l = push(&mut text, format!("    let _ = {};", struct_name(s)));
                        let at = Reference {
                            path: path.clone(),
                            line: l,
                            column: 13,
                        };
                        oracle
                            .references
                            .entry(struct_name(s))
                            .or_default()
                            .push(at);
                    }
                }
            }
            push(&mut text, "}".into());
        }
        std::fs::write(root.join(&path), text).expect("write");
    }
    // The answer's order: path, then line, then column.
    for calls in oracle.callers.values_mut() {
        calls.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    }
    for refs in oracle.references.values_mut() {
        refs.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    }
    oracle
}

fn crates() -> impl Strategy<Value = Crate> {
    let a_use = prop_oneof![
        (0..FNS).prop_map(Use::Call),
        (0..STRUCTS).prop_map(Use::Struct)
    ];
    let a_fn = (0..FNS, proptest::collection::vec(a_use, 0..8));
    proptest::collection::vec(proptest::collection::vec(a_fn, 0..4), 1..5)
        .prop_map(|files| Crate { files })
}

/// Follows every page of one query and checks each against `expected`.
fn check_pages<T: Clone + PartialEq + std::fmt::Debug>(
    expected: &[T],
    limit: usize,
    mut page: impl FnMut(&Limits, Option<&candor::Cursor>) -> Bounded<T>,
) -> Result<(), TestCaseError> {
    let limits = Limits::new().limit(limit);
    let mut all: Vec<T> = Vec::new();
    let mut cursor = None;
    for _ in 0..=expected.len() + 1 {
        let b = page(&limits, cursor.as_ref());
        let rest = &expected[all.len()..];
        prop_assert_eq!(
            b.items(),
            &rest[..b.len()],
            "a page is not the next part of the answer"
        );
        if rest.len() <= limit {
            // Exactly the limit, or fewer: no false alarm.
            prop_assert!(
                b.is_complete(),
                "{} left, limit {limit}: {:?}",
                rest.len(),
                b.completeness()
            );
            prop_assert_eq!(b.items(), rest);
            prop_assert!(b.next_cursor().is_none());
        } else {
            prop_assert_eq!(
                b.completeness(),
                &Completeness::TruncatedByLimit {
                    limit,
                    requested: None
                }
            );
            prop_assert_eq!(b.len(), limit);
            prop_assert!(b.next_cursor().is_some());
        }
        // The total is exact, from COUNT(*): the whole answer on a first
        // page, at least what is left on a later one.
        prop_assert!(b.total().is_exact(), "{:?}", b.total());
        if all.is_empty() {
            prop_assert_eq!(b.total(), Total::Exact(expected.len() as u64));
        } else {
            prop_assert!(b.total().value() >= rest.len() as u64);
        }
        all.extend_from_slice(b.items());
        match b.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => {
                prop_assert_eq!(all.as_slice(), expected);
                return Ok(());
            }
        }
    }
    Err(TestCaseError::fail("paging did not end"))
}

/// Limits around the answer's size: exactly it, one below (an answer of
/// limit + 1), and a small one for several pages.
fn limits_for(len: usize, small: usize) -> Vec<usize> {
    let mut limits = vec![len.max(1), small];
    if len > 1 {
        limits.push(len - 1);
    }
    limits
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_query_pages_like_a_naive_scan(krate in crates(), small in 1..4usize) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let oracle = write_tree(&krate, dir.path());
        let index = Index::build(dir.path()).expect("the index builds");

        for f in 0..FNS {
            let name = fn_name(f);
            let expected = oracle.callers.get(&name).cloned().unwrap_or_default();
            for limit in limits_for(expected.len(), small) {
                check_pages(&expected, limit, |limits, cursor| {
                    index.callers(&name, limits, cursor).expect("a page of callers")
                })?;
            }
        }
        let names = (0..FNS).map(fn_name).chain((0..STRUCTS).map(struct_name));
        for name in names {
            let expected = oracle.references.get(&name).cloned().unwrap_or_default();
            for limit in limits_for(expected.len(), small) {
                check_pages(&expected, limit, |limits, cursor| {
                    index.references(&name, limits, cursor).expect("a page of references")
                })?;
            }
        }
        for (path, expected) in &oracle.outline {
            for limit in limits_for(expected.len(), small) {
                check_pages(expected, limit, |limits, cursor| {
                    index.outline(path, limits, cursor).expect("a page of the outline")
                })?;
            }
        }
    }
}

#[test]
fn a_cursor_of_another_query_or_an_older_index_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let krate = Crate {
        files: vec![vec![(0, vec![Use::Call(1), Use::Call(1), Use::Call(2)])]],
    };
    write_tree(&krate, dir.path());
    let index = Index::build(dir.path()).expect("the index builds");
    let limits = Limits::new().limit(1);
    let page = index.callers("f1", &limits, None).expect("a page");
    let cursor = page.next_cursor().expect("more callers").clone();
    let err = index.callers("f2", &limits, Some(&cursor)).unwrap_err();
    assert!(
        matches!(
            err.query().map(|e| e.kind()),
            Some(candor::ErrorKind::ForeignCursor { .. })
        ),
        "{err}"
    );
    // The tree changes: the old cursor is stale, not silently restarted.
    std::fs::write(dir.path().join("m0.rs"), "pub fn f0() {\n    f1();\n}\n").expect("write");
    let newer = Index::build(dir.path()).expect("the index builds");
    let err = newer.callers("f1", &limits, Some(&cursor)).unwrap_err();
    assert!(
        matches!(
            err.query().map(|e| e.kind()),
            Some(candor::ErrorKind::StaleCursor { .. })
        ),
        "{err}"
    );
}

#[test]
fn the_example_prints_the_wire_json() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let krate = Crate {
        files: vec![vec![(0, vec![Use::Call(1), Use::Call(1), Use::Call(1)])]],
    };
    write_tree(&krate, dir.path());
    let index = Index::build(dir.path()).expect("the index builds");
    let page = index
        .callers("f1", &Limits::new().limit(2), None)
        .expect("a page");
    let json = page.to_json().expect("JSON");
    assert!(
        json.starts_with(r#"{"complete":false,"truncation":{"by":"limit","limit":2"#),
        "{json}"
    );
    assert!(
        json.contains(r#""total":{"value":3,"relation":"eq"}"#),
        "{json}"
    );
    let back: Bounded<Call> = serde_json::from_str(&json).expect("the wire shape");
    assert_eq!(back, page);
}
