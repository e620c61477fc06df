//! The texts a reader acts on (the disclosure line, `truncation.note`, and
//! the text of a tool error), produced by the code for every kind of
//! answer, against the table of docs/TEXTS.md: the table shows what the
//! code writes, so it cannot drift. The table's last column (what the
//! reader does next) is the document's own.

use std::time::Duration;

use candor_mcp::{PageArgs, Policy, respond, tool_result};
use candor_search::{
    AsOf, Bounded, Budget, BudgetKind, CancelToken, Completeness, Corpus, Disclosure, Documents,
    Fingerprint, Limits, ManualClock, Query, Scope, SkipReason, Skipped, SkippedInput, Total,
};
use serde_json::Value;

use crate::arguments::texts;
use crate::fixture::{tree, write_files};

/// One row of the table: the kind of answer, the line a client shows
/// (or a tool error's text), and the note on the wire.
struct Row {
    kind: &'static str,
    line: String,
    note: String,
}

const NONE: &str = "—";

fn row<T: serde::Serialize>(kind: &'static str, page: &Bounded<T>, noun: &str) -> Row {
    let wire: Value = serde_json::to_value(page).expect("JSON");
    let note = wire["truncation"]["note"]
        .as_str()
        .map_or(NONE.to_owned(), str::to_owned);
    Row {
        kind,
        line: page.summary(noun),
        note,
    }
}

/// A tool result's texts: the disclosure line (or the error) and the note.
fn tool_row(kind: &'static str, result: &rmcp::model::CallToolResult) -> Row {
    let note = result
        .structured_content
        .as_ref()
        .and_then(|v| v["truncation"]["note"].as_str())
        .map_or(NONE.to_owned(), str::to_owned);
    Row {
        kind,
        line: texts(result)[0].to_owned(),
        note,
    }
}

fn words(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| format!("item {i}"))
}

/// Every kind of answer, as the code writes it.
fn rows() -> Vec<Row> {
    let scope = Scope::new(Fingerprint::of("numbers"));
    let mut rows = Vec::new();

    // Complete answers.
    rows.push(row(
        "complete",
        &Bounded::collect(0..3u32, &Limits::new()).unwrap(),
        "matches",
    ));
    rows.push(row(
        "complete, one item",
        &Bounded::exact(vec![7u32]),
        "matches",
    ));
    let counted = Limits::new().limit(10).count_total(true);
    let first = Bounded::page(0..25u32, &counted, &scope, None).unwrap();
    let second = Bounded::page(0..25u32, &counted, &scope, first.next_cursor()).unwrap();
    let last = Bounded::page(0..25u32, &counted, &scope, second.next_cursor()).unwrap();
    rows.push(row("the last page", &last, "matches"));

    // The item limit.
    let limit = Limits::new().limit(1000);
    rows.push(row(
        "limit, with a cursor",
        &Bounded::page(0..5000u32, &limit, &scope, None).unwrap(),
        "matches",
    ));
    rows.push(row(
        "limit, without a cursor",
        &Bounded::collect(0..5000u32, &limit).unwrap(),
        "matches",
    ));
    rows.push(row(
        "limit, total counted",
        &Bounded::page(0..25u32, &counted, &scope, None).unwrap(),
        "matches",
    ));
    rows.push(row(
        "limit above the ceiling",
        &Bounded::collect(0..50u32, &Limits::new().ceiling(5).limit(100)).unwrap(),
        "matches",
    ));

    // Counts (a limit of 0).
    rows.push(row(
        "count only, exact",
        &Bounded::collect(0..1421u32, &Limits::new().limit(0).count_total(true)).unwrap(),
        "matches",
    ));
    rows.push(row(
        "count only, not counted",
        &Bounded::collect(0..1421u32, &Limits::new().limit(0)).unwrap(),
        "matches",
    ));
    rows.push(row(
        "count only, count cut",
        &Bounded::collect(
            0..100_000u32,
            &Limits::new().limit(0).count_total(true).max_counted(5000),
        )
        .unwrap(),
        "matches",
    ));

    // A count past the limit that was cut.
    rows.push(row(
        "total cut by the count budget",
        &Bounded::page(
            0..100_000u32,
            &Limits::new().limit(20).count_total(true).max_counted(1000),
            &scope,
            None,
        )
        .unwrap(),
        "matches",
    ));
    let clock = ManualClock::new();
    let late = clock.clone();
    let slow = (0..100_000u32).inspect(move |&n| {
        if n == 5460 {
            late.advance(Duration::from_millis(503));
        }
    });
    rows.push(row(
        "total cut by the deadline",
        &Bounded::page(
            slow,
            &Limits::new()
                .limit(20)
                .count_total(true)
                .deadline(Duration::from_millis(500))
                .clock(clock),
            &scope,
            None,
        )
        .unwrap(),
        "matches",
    ));

    // Work budgets, the deadline, a cancellation.
    let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
    rows.push(row(
        "deadline",
        &Bounded::page(
            0..50u32,
            &Limits::new()
                .deadline(Duration::from_millis(25))
                .clock(clock),
            &scope,
            None,
        )
        .unwrap(),
        "matches",
    ));
    let token = CancelToken::new();
    token.cancel();
    rows.push(row(
        "cancelled",
        &Bounded::page(0..50u32, &Limits::new().cancel_token(token), &scope, None).unwrap(),
        "matches",
    ));
    let docs = Documents::new()
        .with("a.txt", "fish\n")
        .with("b.txt", "fish\n")
        .with("c.txt", "fish\n");
    rows.push(row(
        "files budget",
        &docs
            .search(&Query::literal("fish"), &Limits::new().max_files(1), None)
            .unwrap(),
        "matches",
    ));
    rows.push(row(
        "files budget of 0",
        &docs
            .search(&Query::literal("fish"), &Limits::new().max_files(0), None)
            .unwrap(),
        "matches",
    ));

    // The output-bytes budget.
    rows.push(row(
        "max_bytes, items cut",
        &Bounded::page(words(50), &Limits::new().max_bytes(400), &scope, None).unwrap(),
        "items",
    ));
    let big = vec!["x".repeat(300), "y".repeat(300)];
    rows.push(row(
        "max_bytes, no room for one item",
        &Bounded::collect(big.clone(), &Limits::new().max_bytes(200)).unwrap(),
        "items",
    ));
    let growing = || ["a".to_owned(), "b".to_owned(), "c".repeat(400)].into_iter();
    let tight = Limits::new().max_bytes(330);
    let fits = Bounded::page(growing(), &tight, &scope, None).unwrap();
    rows.push(row(
        "max_bytes, resumed page with no room",
        &Bounded::page(growing(), &tight, &scope, fits.next_cursor()).unwrap(),
        "items",
    ));

    // Over MCP: every figure in the client's max_bytes.
    let policy = Policy::new();
    let args = PageArgs {
        max_bytes: Some(1500),
        ..PageArgs::default()
    };
    let long = vec!["z".repeat(400); 3];
    rows.push(tool_row(
        "MCP: max_bytes too small for one item",
        &respond(
            Bounded::collect(long.clone(), &args.limits(&policy)),
            "items",
            &args,
            &policy,
        ),
    ));
    let args = PageArgs {
        max_bytes: Some(3000),
        ..PageArgs::default()
    };
    rows.push(tool_row(
        "MCP: items cut by max_bytes",
        &respond(
            Bounded::collect(words(500), &args.limits(&policy)),
            "items",
            &args,
            &policy,
        ),
    ));

    // What was skipped.
    let mut docs = Documents::new();
    for i in 0..6 {
        docs.insert(format!("a{i}.bin"), b"fish\0".to_vec())
            .unwrap();
    }
    docs.insert("b.txt", "fish\nfish\n").unwrap();
    for i in 0..3 {
        docs.insert(format!("c{i}.bin"), b"fish\0".to_vec())
            .unwrap();
    }
    docs.insert("d.txt", "fish\n").unwrap();
    let fish = Query::literal("fish");
    let one = Limits::new().limit(2);
    let first = docs.search(&fish, &one, None).unwrap();
    rows.push(row("policy skips", &first, "matches"));
    let second = docs.search(&fish, &one, first.next_cursor()).unwrap();
    rows.push(row("policy skips, with earlier pages'", &second, "matches"));
    let dir = write_files(&[
        (".cache/a.txt", b"fish\n"),
        (".cache/b.txt", b"fish\n"),
        ("src/a.txt", b"fish\n"),
    ]);
    rows.push(row(
        "a hidden folder",
        &tree(&dir).search(&fish, &Limits::new(), None).unwrap(),
        "matches",
    ));
    rows.push(row(
        "from an index, not checked",
        &Bounded::from_parts(
            vec![1u32, 2, 3],
            Disclosure::new(Completeness::Exact, Total::Exact(3))
                .with_as_of(AsOf::from_unix_ms(1_764_759_900_123)),
        )
        .unwrap(),
        "matches",
    ));
    let mut unreadable = Skipped::new();
    unreadable.record(SkippedInput::new("secret.txt", SkipReason::Unreadable));
    rows.push(row(
        "an input that could not be read",
        &Bounded::from_parts(
            vec![4u32, 5],
            Disclosure::new(Completeness::Exact, Total::Exact(2)).with_skipped(unreadable),
        )
        .unwrap(),
        "matches",
    ));

    // A cluster's subset.
    let deadline = Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::Deadline, 500, 512),
        clamp: None,
    };
    rows.push(row(
        "a subset (a cluster timed out)",
        &Bounded::from_parts(
            vec![1u32, 2],
            Disclosure::new(deadline, Total::AtLeast(2)).with_subset(),
        )
        .unwrap(),
        "hits",
    ));

    // Tool errors.
    let strict = PageArgs {
        strict: true,
        limit: Some(2),
        ..PageArgs::default()
    };
    rows.push(tool_row(
        "strict mode, incomplete",
        &respond(
            Bounded::collect(0..5u32, &strict.limits(&policy)),
            "numbers",
            &strict,
            &policy,
        ),
    ));
    let tiny = PageArgs {
        max_bytes: Some(600),
        ..PageArgs::default()
    };
    rows.push(tool_row(
        "refused: max_bytes too small",
        &respond(
            Bounded::collect(0..5u32, &tiny.limits(&policy)),
            "numbers",
            &tiny,
            &policy,
        ),
    ));
    let unfitted = Bounded::collect(words(1000), &Limits::new().max_bytes(4096)).unwrap();
    rows.push(tool_row(
        "refused: a result given more than its share",
        &tool_result(&unfitted, "items", 4096),
    ));
    rows.push(tool_row(
        "refused: a query's error",
        &respond::<u32>(
            Err(candor_search::Cursor::parse("not a cursor!").unwrap_err()),
            "items",
            &PageArgs {
                max_bytes: Some(4096),
                ..PageArgs::default()
            },
            &Policy::new(),
        ),
    ));
    rows
}

/// A table cell: its text with `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The text of a table cell as markdown writes it.
fn unescape(text: &str) -> String {
    text.replace("\\|", "|")
}

/// The rows of the table in docs/TEXTS.md: kind, line, note.
fn documented() -> Vec<(String, String, String)> {
    let doc = include_str!("../../../../docs/TEXTS.md");
    doc.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Answer") && !l.starts_with("| --"))
        .map(|l| {
            // Cells are split on `|` not escaped.
            let mut cells = Vec::new();
            let mut current = String::new();
            let mut chars = l.trim().trim_matches('|').chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&'|') => {
                        current.push_str("\\|");
                        chars.next();
                    }
                    '|' => cells.push(std::mem::take(&mut current)),
                    c => current.push(c),
                }
            }
            cells.push(current);
            let cell = |i: usize| unescape(cells.get(i).map_or("", |c| c.trim()).trim_matches('`'));
            (cell(0), cell(1), cell(2))
        })
        .collect()
}

#[test]
fn the_texts_document_shows_what_the_code_writes() {
    let rows = rows();
    let mut kinds: Vec<&str> = rows.iter().map(|r| r.kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(
        kinds.len(),
        rows.len(),
        "every kind of answer is named once"
    );
    let produced: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (r.kind.to_owned(), r.line.clone(), r.note.clone()))
        .collect();
    let documented = documented();
    if produced != documented {
        let table: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "| {} | `{}` | {} |",
                    r.kind,
                    cell(&r.line),
                    if r.note == NONE {
                        NONE.to_owned()
                    } else {
                        format!("`{}`", cell(&r.note))
                    }
                )
            })
            .collect();
        panic!(
            "docs/TEXTS.md differs from what the code writes; its rows (less the last column) are:\n{}",
            table.join("\n")
        );
    }
}

/// No text names an output-bytes figure the reader did not ask in: over
/// MCP, the line and the note state `max_bytes` as the client sent it.
#[test]
fn the_texts_over_mcp_state_the_client_s_max_bytes() {
    for row in rows().iter().filter(|r| r.kind.starts_with("MCP")) {
        for text in [&row.line, &row.note] {
            for figure in figures_after(text, "max_bytes ") {
                assert!(figure >= 1500, "{}: {figure} in {text}", row.kind);
            }
        }
    }
}

/// The numbers that follow `word` in `text`.
fn figures_after(text: &str, word: &str) -> Vec<u64> {
    text.match_indices(word)
        .filter_map(|(at, _)| {
            let rest = &text[at + word.len()..];
            let rest = rest.strip_prefix("of ").unwrap_or(rest);
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}
