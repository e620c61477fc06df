//! Pages and cursors on every corpus: excerpt and `find_in_file` pages,
//! cursors bound to their query and corpus (altered, stale and foreign
//! ones refused), and the item limit.

use candor_search::{
    Bounded, Completeness, Corpus, Cursor, Documents, ErrorKind, Excerpt, Limits, Match, Query,
    SkipReason, Total,
};

use crate::fixture::{Fixture, paths_of, tree, write_files};

// ---------------------------------------------------------------------------
// Excerpts: paging, binary files, foreign cursors

#[test]
fn excerpt_pages_rebuild_the_range() {
    let text: String = (1..=23).map(|n| format!("line {n}\n")).collect();
    let files: &[(&str, &[u8])] = &[("t.txt", text.as_bytes())];
    let f = Fixture::new(files);
    let excerpt = Excerpt::new("t.txt", 3..=20);
    for (corpus, c) in f.all() {
        let mut got = Vec::new();
        let mut cursor: Option<Cursor> = None;
        let mut pages = 0;
        loop {
            pages += 1;
            let b = c
                .excerpt(&excerpt, &Limits::new().limit(4), cursor.as_ref())
                .expect(corpus);
            got.extend(b.iter().map(|l| l.line.clone()));
            match b.next_cursor() {
                Some(next) => {
                    assert!(b.completeness().is_truncated_by_limit(), "{corpus}");
                    cursor = Some(next.clone());
                }
                None => {
                    assert!(b.is_complete(), "{corpus}");
                    break;
                }
            }
        }
        let want: Vec<String> = (3..=20).map(|n| format!("line {n}")).collect();
        assert_eq!(got, want, "{corpus}");
        assert_eq!(pages, 5, "{corpus}: 18 lines in pages of 4");
        // A cursor of this excerpt does not fit another one.
        let first = c
            .excerpt(&excerpt, &Limits::new().limit(4), None)
            .expect(corpus);
        let other = Excerpt::new("t.txt", 3..=21);
        let err = c
            .excerpt(&other, &Limits::new(), first.next_cursor())
            .expect_err(corpus);
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{corpus}: {err}"
        );
    }
}

/// An excerpt's cursor names a line of the file as its page read it: the
/// file edited since (lines put in above, so that the line now holds
/// other text), the cursor is refused as stale, never resumed at a line
/// of the new text; unchanged, it resumes.
#[test]
fn an_excerpt_cursor_is_stale_once_its_file_changed() {
    let text: String = (1..=20).map(|n| format!("line {n}\n")).collect();
    let dir = write_files(&[("f.txt", text.as_bytes())]);
    let t = tree(&dir);
    let excerpt = Excerpt::new("f.txt", 1..=20);
    let limits = Limits::new().limit(5);
    let first = t.excerpt(&excerpt, &limits, None).unwrap();
    let cursor = first.next_cursor().expect("more").clone();
    let again = t.excerpt(&excerpt, &limits, Some(&cursor)).unwrap();
    assert_eq!(again.items()[0].line, "line 6");
    std::fs::write(
        dir.path().join("f.txt"),
        format!("new a\nnew b\nnew c\n{text}"),
    )
    .unwrap();
    let err = t.excerpt(&excerpt, &limits, Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    std::fs::remove_file(dir.path().join("f.txt")).unwrap();
    let err = t.excerpt(&excerpt, &limits, Some(&cursor)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::StaleCursor { .. } | ErrorKind::NotFound { .. }
        ),
        "{err}"
    );
}

#[test]
fn excerpt_of_a_binary_file_reads_it_as_text_and_says_so() {
    let f = Fixture::new(&[("b.bin", b"x\n\x00\n")]);
    for (corpus, c) in f.all() {
        let b = c
            .excerpt(&Excerpt::new("b.bin", 1..=2), &Limits::new(), None)
            .expect(corpus);
        let lines: Vec<&str> = b.iter().map(|l| l.line.as_str()).collect();
        assert_eq!(lines, ["x", "\0"], "{corpus}");
        assert!(b.is_complete(), "{corpus}");
        assert_eq!(b.skipped().count(&SkipReason::Binary), 0, "{corpus}");
        assert_eq!(b.skipped().count(&SkipReason::BinaryAsText), 1, "{corpus}");
        // Page by page, told by the page that holds the NUL's line.
        let first = c
            .excerpt(&Excerpt::new("b.bin", 1..=2), &Limits::new().limit(1), None)
            .expect(corpus);
        assert_eq!(
            first.skipped().count(&SkipReason::BinaryAsText),
            0,
            "{corpus}"
        );
        let second = c
            .excerpt(
                &Excerpt::new("b.bin", 1..=2),
                &Limits::new().limit(1),
                first.next_cursor(),
            )
            .expect(corpus);
        assert_eq!(
            second.skipped().count(&SkipReason::BinaryAsText),
            1,
            "{corpus}"
        );
    }
}

// ---------------------------------------------------------------------------
// find_in_file

#[test]
fn find_in_file_refuses_folders_and_missing_files() {
    let f = Fixture::new(&[("d/a.txt", b"x\n"), ("b.txt", b"x\n")]);
    for (corpus, c) in f.all() {
        for path in ["d", "missing.txt", "d/missing.txt", ""] {
            let err = c
                .find_in_file(path, &Query::literal("x"), &Limits::new(), None)
                .unwrap_err();
            // A folder (of names, for documents) is no file; the root is
            // none of either.
            if path == "d" {
                assert!(
                    matches!(err.kind(), ErrorKind::NotAFile { .. }),
                    "{corpus}: {path:?}: {err}"
                );
            } else if path.is_empty() {
                assert!(
                    matches!(
                        err.kind(),
                        ErrorKind::NotAFile { .. } | ErrorKind::NotFound { .. }
                    ),
                    "{corpus}: {path:?}: {err}"
                );
            } else {
                assert!(
                    matches!(err.kind(), ErrorKind::NotFound { .. }),
                    "{corpus}: {path:?}: {err}"
                );
            }
        }
        let err = c
            .find_in_file("../b.txt", &Query::literal("x"), &Limits::new(), None)
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::OutsideRoot { .. }),
            "{corpus}: {err}"
        );
        let found = c
            .find_in_file("./d//a.txt", &Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&found), ["d/a.txt"], "{corpus}");
    }
}

#[test]
fn find_in_file_pages_stay_in_the_file() {
    let text: String = (0..9).map(|n| format!("x {n}\n")).collect();
    let files: &[(&str, &[u8])] = &[
        ("a.txt", b"x\n"),
        ("b.txt", text.as_bytes()),
        ("c.txt", b"x\n"),
    ];
    let f = Fixture::new(files);
    for (corpus, c) in f.all() {
        let mut lines = Vec::new();
        let mut cursor: Option<Cursor> = None;
        loop {
            let b = c
                .find_in_file(
                    "b.txt",
                    &Query::literal("x"),
                    &Limits::new().limit(4),
                    cursor.as_ref(),
                )
                .unwrap();
            assert!(b.iter().all(|m| m.path == "b.txt"), "{corpus}");
            lines.extend(b.iter().map(|m| m.line_number));
            match b.next_cursor() {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        assert_eq!(lines, (1..=9).collect::<Vec<u64>>(), "{corpus}");
        // Its cursors belong to find_in_file, not to search.
        let page = c
            .find_in_file("b.txt", &Query::literal("x"), &Limits::new().limit(1), None)
            .unwrap();
        let err = c
            .search(&Query::literal("x"), &Limits::new(), page.next_cursor())
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{corpus}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------
// Cursors

#[test]
fn cursors_are_bound_to_their_query_and_corpus() {
    let files: &[(&str, &[u8])] = &[("a.txt", b"x y\nx y\n"), ("b.txt", b"x y\n")];
    let f = Fixture::new(files);
    let other_dir = write_files(files);
    let other_tree = tree(&other_dir);
    let x = Query::literal("x");
    for (corpus, c) in f.all() {
        let page = c.search(&x, &Limits::new().limit(1), None).unwrap();
        let cursor = page.next_cursor().expect("more to come");
        let foreign = |r: Result<Bounded<Match>, candor_search::Error>, what: &str| {
            let err = r.expect_err(what);
            assert!(
                matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
                "{corpus}: {what}: {err}"
            );
        };
        foreign(
            c.search(&Query::literal("y"), &Limits::new(), Some(cursor)),
            "another pattern",
        );
        foreign(
            c.search(&Query::regex("x"), &Limits::new(), Some(cursor)),
            "another kind",
        );
        foreign(
            c.search(
                &x.clone().case_insensitive(true),
                &Limits::new(),
                Some(cursor),
            ),
            "another option",
        );
        foreign(
            c.search(&x.clone().paths(["a.txt"]), &Limits::new(), Some(cursor)),
            "another path filter",
        );
        foreign(
            other_tree.search(&x, &Limits::new(), Some(cursor)),
            "another corpus",
        );
        let err = c
            .count_per_file(&x, &Limits::new(), Some(cursor))
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{corpus}: count: {err}"
        );
        // Limits are not part of the query: any limit resumes.
        let rest = c.search(&x, &Limits::new().limit(7), Some(cursor)).unwrap();
        assert_eq!(rest.len(), 2, "{corpus}");
        // A token that round-trips through text resumes the same.
        let parsed = Cursor::parse(cursor.as_str()).unwrap();
        let again = c
            .search(&x, &Limits::new().limit(7), Some(&parsed))
            .unwrap();
        assert_eq!(rest, again, "{corpus}");
    }
}

#[test]
fn altered_tokens_are_refused() {
    let f = Fixture::new(&[("a.txt", b"x\nx\n")]);
    let page = f
        .tree1()
        .search(&Query::literal("x"), &Limits::new().limit(1), None)
        .unwrap();
    let token = page.next_cursor().unwrap().as_str().to_owned();
    let mut altered = Vec::new();
    for i in 0..token.len() {
        let mut bytes = token.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        altered.push(String::from_utf8(bytes).unwrap());
    }
    altered.push(token[..token.len() - 1].to_owned());
    altered.push(format!("{token}A"));
    altered.push(String::new());
    altered.push("not a token!".to_owned());
    altered.push("A".repeat(10_000));
    for bad in altered {
        let err = Cursor::parse(&bad).expect_err(&bad);
        assert!(
            matches!(
                err.kind(),
                ErrorKind::TamperedCursor | ErrorKind::MalformedCursor { .. }
            ),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_cursor_to_a_vanished_or_shrunk_file_is_refused() {
    let dir = write_files(&[("a.txt", b"x\nx\nx\n"), ("b.txt", b"x\n")]);
    let t = tree(&dir);
    let q = Query::literal("x");
    let first = t.search(&q, &Limits::new().limit(1), None).unwrap();
    let cursor = first.next_cursor().unwrap().clone();
    // Shrunk so that the offset is no longer a line start.
    std::fs::write(dir.path().join("a.txt"), b"xxx").unwrap();
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    // Gone.
    std::fs::remove_file(dir.path().join("a.txt")).unwrap();
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    // Replaced by a folder.
    std::fs::create_dir(dir.path().join("a.txt")).unwrap();
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

/// An edit in place that keeps the size and puts the modification time
/// back (`touch -r`, `cp -p` over the file, `rsync --inplace -t`) still
/// makes the cursor stale: the change time moves all the same.
#[test]
fn a_cursor_to_a_file_edited_in_place_with_its_time_put_back_is_refused() {
    let dir = write_files(&[("a.txt", b"x 1\nx 2\nx 3\n"), ("b.txt", b"x\n")]);
    let t = tree(&dir);
    let q = Query::literal("x");
    let first = t.search(&q, &Limits::new().limit(1), None).unwrap();
    let cursor = first.next_cursor().unwrap().clone();
    let path = dir.path().join("a.txt");
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    // The change time has a clock tick's resolution: let it move.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, b"y 1\nx 2\nx 3\n").unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(modified).unwrap();
    drop(file);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 12);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified
    );
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

#[test]
fn documents_cursors_notice_changes() {
    let q = Query::literal("x");
    let v1 = Documents::new().with("a.txt", "x\nx\n").generation(1);
    let page = v1.search(&q, &Limits::new().limit(1), None).unwrap();
    let cursor = page.next_cursor().unwrap();
    let v2 = Documents::new().with("a.txt", "x\nx\n").generation(2);
    let err = v2.search(&q, &Limits::new(), Some(cursor)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::StaleCursor {
                cursor_generation: 1,
                current_generation: 2
            }
        ),
        "{err}"
    );
    // Without generations, a change to the document the cursor resumes
    // in makes it stale, whatever its size.
    let before = Documents::new().with("a.txt", "x\nx\n");
    let page = before.search(&q, &Limits::new().limit(1), None).unwrap();
    for text in ["x\nx\nx\n", "x\ny\n"] {
        let after = Documents::new().with("a.txt", text);
        let err = after
            .search(&q, &Limits::new(), page.next_cursor())
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::StaleCursor { .. }),
            "{text:?}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------
// The item limit

#[test]
fn limit_zero_returns_nothing_but_says_whether_anything_exists() {
    let f = Fixture::new(&[("a.txt", b"x\n"), ("b.txt", b"y\n")]);
    for (corpus, c) in f.all() {
        let some = c
            .search(&Query::literal("x"), &Limits::new().limit(0), None)
            .unwrap();
        assert!(some.is_empty(), "{corpus}");
        assert_eq!(
            some.completeness(),
            &Completeness::TruncatedByLimit {
                limit: 0,
                requested: None
            },
            "{corpus}"
        );
        assert_eq!(some.total(), Total::AtLeast(1), "{corpus}");
        let none = c
            .search(&Query::literal("z"), &Limits::new().limit(0), None)
            .unwrap();
        assert!(none.is_complete(), "{corpus}");
        assert_eq!(none.total(), Total::Exact(0), "{corpus}");
        let counted = c
            .search(
                &Query::regex("x|y"),
                &Limits::new().limit(0).count_total(true),
                None,
            )
            .unwrap();
        assert_eq!(counted.total(), Total::Exact(2), "{corpus}");
    }
}

#[test]
fn exactly_limit_items_is_not_truncated() {
    let f = Fixture::new(&[("a.txt", b"x\nx\n"), ("b.txt", b"x\n")]);
    for (corpus, c) in f.all() {
        let b = c
            .search(&Query::literal("x"), &Limits::new().limit(3), None)
            .unwrap();
        assert!(b.is_complete(), "{corpus}: {:?}", b.completeness());
        assert!(b.next_cursor().is_none(), "{corpus}");
        let b = c
            .search(&Query::literal("x"), &Limits::new().limit(2), None)
            .unwrap();
        assert_eq!(b.total(), Total::AtLeast(3), "{corpus}");
    }
}

#[test]
fn the_ceiling_clamps_and_says_so() {
    let f = Fixture::new(&[("a.txt", b"x\nx\nx\nx\n")]);
    for (corpus, c) in f.all() {
        let b = c
            .search(
                &Query::literal("x"),
                &Limits::new().ceiling(2).limit(10),
                None,
            )
            .unwrap();
        assert_eq!(b.len(), 2, "{corpus}");
        assert_eq!(
            b.completeness(),
            &Completeness::TruncatedByLimit {
                limit: 2,
                requested: Some(10)
            },
            "{corpus}"
        );
        let json = b.to_json().unwrap();
        assert!(json.contains(r#""requested":10"#), "{json}");
    }
}

#[test]
fn into_exact_refuses_a_truncated_search_and_keeps_it() {
    let f = Fixture::new(&[("a.txt", b"x\nx\nx\n")]);
    for (corpus, c) in f.all() {
        let incomplete = c
            .search(&Query::literal("x"), &Limits::new().limit(2), None)
            .unwrap()
            .into_exact()
            .unwrap_err();
        assert_eq!(incomplete.bounded().len(), 2, "{corpus}");
        assert!(incomplete.bounded().next_cursor().is_some(), "{corpus}");
        let all = c
            .search(&Query::literal("x"), &Limits::new(), None)
            .unwrap()
            .into_exact()
            .unwrap();
        assert_eq!(all.len(), 3, "{corpus}");
    }
}

/// A page that a budget stopped before it kept an item resumes at the
/// start of the next file, which it did not read: that file edited or
/// removed since, the cursor resumes (nothing of it was counted), and
/// the walk goes on as the tree is now.
#[test]
fn a_cursor_at_the_start_of_an_unread_file_outlives_its_change() {
    let dir = write_files(&[("a.txt", b"n\n"), ("g.txt", b"n\n"), ("h.txt", b"x5\n")]);
    let t = tree(&dir).threads(1);
    let q = Query::literal("x");
    for budget in [
        Limits::new().max_files(1),
        Limits::new().max_scanned_bytes(2),
    ] {
        let first = t.search(&q, &budget, None).unwrap();
        assert!(first.is_empty(), "{first:?}");
        let cursor = first.next_cursor().expect("a cursor").clone();
        std::fs::write(dir.path().join("g.txt"), b"x new\n").unwrap();
        let rest = t
            .search(&q, &Limits::new(), Some(&cursor))
            .expect("resumes after g.txt was edited");
        let paths: Vec<&str> = rest.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["g.txt", "h.txt"]);
        std::fs::remove_file(dir.path().join("g.txt")).unwrap();
        let rest = t
            .search(&q, &Limits::new(), Some(&cursor))
            .expect("resumes after g.txt was removed");
        let paths: Vec<&str> = rest.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["h.txt"]);
        assert!(rest.is_complete());
        std::fs::write(dir.path().join("g.txt"), b"n\n").unwrap();
    }
}
