//! Errors of the core: each kind is distinct and names the value at fault;
//! cursors that are malformed, tampered with, foreign, stale or out of range
//! are refused (never accepted, never a panic); strict mode and
//! `into_exact` keep the partial result (strict mode in its wire form, for
//! items that borrow or are not `Send`); a limit of 0; `Send + Sync`.

use std::cell::Cell;
use std::rc::Rc;

use candor::{
    Bounded, Budget, BudgetKind, Completeness, Cursor, Disclosure, Error, ErrorKind, Fingerprint,
    Incomplete, KeyRequest, Keyset, Limits, ManualClock, Scope, Shards, SkipReason, Skipped,
    SkippedInput, Total,
};

use serde::Serialize;

use crate::core_support::{TOKEN_ALPHABET, base64url};

fn scope() -> Scope {
    Scope::new(Fingerprint::of("core error tests"))
}

/// A valid page cursor of `scope()`: resumes after 3 items.
fn page_cursor() -> Cursor {
    let page = Bounded::page(0..10u32, &Limits::new().limit(3), &scope(), None).unwrap();
    page.next_cursor().expect("more items").clone()
}

fn kind_name(e: &Error) -> &'static str {
    match e.kind() {
        ErrorKind::InvalidPattern { .. } => "InvalidPattern",
        ErrorKind::InvalidArgument { .. } => "InvalidArgument",
        ErrorKind::MalformedCursor { .. } => "MalformedCursor",
        ErrorKind::TamperedCursor => "TamperedCursor",
        ErrorKind::ForeignCursor { .. } => "ForeignCursor",
        ErrorKind::StaleCursor { .. } => "StaleCursor",
        ErrorKind::CursorOutOfRange { .. } => "CursorOutOfRange",
        ErrorKind::BudgetTooSmall { .. } => "BudgetTooSmall",
        ErrorKind::Serialize { .. } => "Serialize",
        ErrorKind::InvalidDisclosure { .. } => "InvalidDisclosure",
        _ => "other",
    }
}

/// As `ErrorKind` documents: messages are lowercase and have no trailing
/// period.
fn assert_message_style(e: &Error) {
    let message = e.to_string();
    assert!(
        message.chars().next().is_some_and(|c| !c.is_uppercase()),
        "message starts uppercase: {message}"
    );
    assert!(
        !message.ends_with('.'),
        "message ends with a period: {message}"
    );
}

// ---------------------------------------------------------------------------
// Cursors

#[test]
fn malformed_cursors_are_refused_with_the_reason() {
    let too_long = "A".repeat(8193);
    // Version 2, no flags, a fingerprint, a one-byte key, and a checksum
    // that is never looked at because the version is checked first.
    let mut raw = vec![2u8, 0];
    raw.extend_from_slice(&7u64.to_le_bytes());
    raw.extend_from_slice(&[1, 3]);
    raw.extend_from_slice(&[0; 8]);
    let wrong_version = base64url(&raw);
    let cases: &[(&str, &str, &str)] = &[
        ("garbage", "not a cursor!", "alphabet"),
        ("empty", "", "empty"),
        ("too long", &too_long, "8193"),
        ("too short", "AAAA", "too short"),
        ("impossible length", "AAAAA", "was cut"),
        (
            "a last character no token ends with",
            "AAB",
            "was cut, or altered",
        ),
        ("white space", "AQDZ VnK1", "white space"),
        ("padding", "AQDZVnK1B8nRCAEDzfmnOtGYaC8=", "alphabet"),
        (
            "standard base64",
            "AQDZVnK1B8nRCAEDzfmnOtGYaC+/",
            "alphabet",
        ),
        ("wrong version", &wrong_version, "version 2"),
    ];
    for (name, token, needle) in cases {
        let err = Cursor::parse(token).expect_err(name);
        assert!(
            matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
            "{name}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with("malformed cursor: "),
            "{name}: {message}"
        );
        assert!(
            message.contains(needle),
            "{name}: {message:?} lacks {needle:?}"
        );
        assert_message_style(&err);
        // FromStr and serde go the same way.
        assert!(token.parse::<Cursor>().is_err());
        assert!(serde_json::from_value::<Cursor>(serde_json::json!(token)).is_err());
    }
}

/// Every one-character change of a valid token, at every position, is
/// refused as tampered or malformed: never accepted, never a panic. So is
/// every cut and every extension.
#[test]
fn tampered_cursors_are_refused_at_every_position() {
    let generation_scope = scope().generation(42);
    let tokens = [
        page_cursor().to_string(),
        generation_scope
            .cursor(&(String::from("src/lib.rs"), 120u64), 0)
            .to_string(),
        scope().cursor(&u64::MAX, 0).to_string(),
    ];
    for token in &tokens {
        assert!(Cursor::parse(token).is_ok(), "the original is valid");
        let mut variants = 0;
        for (i, original) in token.char_indices() {
            for c in TOKEN_ALPHABET.chars().filter(|&c| c != original) {
                let mut altered = token.clone();
                altered.replace_range(i..i + 1, c.encode_utf8(&mut [0; 4]));
                let err = Cursor::parse(&altered).expect_err(&altered);
                assert!(
                    matches!(
                        err.kind(),
                        ErrorKind::TamperedCursor | ErrorKind::MalformedCursor { .. }
                    ),
                    "{altered}: {err:?}"
                );
                variants += 1;
            }
        }
        assert_eq!(variants, token.len() * 63);
        for cut in 0..token.len() {
            assert!(
                Cursor::parse(&token[..cut]).is_err(),
                "prefix of {cut} accepted"
            );
        }
        for c in TOKEN_ALPHABET.chars() {
            assert!(
                Cursor::parse(&format!("{token}{c}")).is_err(),
                "extension accepted"
            );
        }
    }
    let err = {
        let token = &tokens[0];
        let mut altered = token.clone().into_bytes();
        let i = altered.len() / 2;
        altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
        Cursor::parse(std::str::from_utf8(&altered).unwrap()).unwrap_err()
    };
    if matches!(err.kind(), ErrorKind::TamperedCursor) {
        assert_eq!(
            err.to_string(),
            "cursor failed its integrity check (altered or truncated token)"
        );
    }
}

#[test]
fn foreign_cursor_names_both_fingerprints() {
    let other = Scope::new(Fingerprint::of("another query"));
    let cursor = page_cursor();
    let err = Bounded::page(0..10u32, &Limits::new().limit(3), &other, Some(&cursor)).unwrap_err();
    let ErrorKind::ForeignCursor { expected, found } = *err.kind() else {
        panic!("expected ForeignCursor, got {err:?}");
    };
    assert_eq!(expected, other.get_fingerprint().as_u64());
    assert_eq!(found, scope().get_fingerprint().as_u64());
    let message = err.to_string();
    assert!(message.contains(&format!("{expected:016x}")), "{message}");
    assert!(message.contains(&format!("{found:016x}")), "{message}");
    assert_message_style(&err);
    // A `Keyset` refuses it as well.
    let err = Bounded::page(
        Keyset::new(|_: candor::KeyRequest<u64>| 0..10u64, |n| *n),
        &Limits::new(),
        &other,
        Some(&cursor),
    )
    .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::ForeignCursor { .. }));
}

#[test]
fn stale_cursor_names_both_generations() {
    let old = scope().generation(3);
    let new = scope().generation(4);
    let page = Bounded::page(0..10u32, &Limits::new().limit(2), &old, None).unwrap();
    let cursor = page.next_cursor().unwrap();
    let err = Bounded::page(0..10u32, &Limits::new().limit(2), &new, Some(cursor)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::StaleCursor {
                cursor_generation: 3,
                current_generation: 4
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("recorded (3) is now 4"), "{message}");
    assert_message_style(&err);
    // Not silently restarted on a source without generations either.
    let err = scope().resume::<u64>(cursor).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
    let err = old.resume::<u64>(&scope().cursor(&1u64, 0)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
}

#[test]
fn cursor_with_a_key_of_another_type_is_malformed() {
    let s = scope();
    let err = s.resume::<u64>(&s.cursor("a string key", 0)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
    let err = s.resume::<u32>(&s.cursor(&u64::MAX, 0)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
    let err = s.resume::<u64>(&s.cursor(&(1u64, 2u64), 0)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("trailing bytes"), "{err}");
}

#[test]
fn cursor_past_the_end_of_a_shorter_source_is_out_of_range() {
    let s = scope();
    let page = Bounded::page(0..100u32, &Limits::new().limit(10), &s, None).unwrap();
    let cursor = page.next_cursor().unwrap();
    let err = Bounded::page(0..4u32, &Limits::new().limit(10), &s, Some(cursor)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::CursorOutOfRange { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("10") && message.contains('4'), "{message}");
    assert_message_style(&err);
    // A cursor at exactly the end is not out of range: the rest is empty.
    let rest = Bounded::page(0..10u32, &Limits::new().limit(10), &s, Some(cursor)).unwrap();
    assert!(rest.is_complete() && rest.is_empty() && rest.next_cursor().is_none());
}

#[test]
fn cursor_survives_a_trip_through_text_and_json() {
    let cursor = page_cursor();
    let parsed: Cursor = cursor.as_str().parse().unwrap();
    assert_eq!(parsed, cursor);
    let json = serde_json::to_string(&cursor).unwrap();
    assert_eq!(json, format!("\"{cursor}\""));
    let decoded: Cursor = serde_json::from_str(&json).unwrap();
    let page = Bounded::page(0..10u32, &Limits::new().limit(3), &scope(), Some(&decoded)).unwrap();
    assert_eq!(page.items(), &[3, 4, 5]);
}

// ---------------------------------------------------------------------------
// Budgets, into_exact

#[test]
fn budget_too_small_names_the_budget_and_the_need() {
    let err = Bounded::collect(0..5u32, &Limits::new().max_bytes(10)).unwrap_err();
    let ErrorKind::BudgetTooSmall { max_bytes, needed } = *err.kind() else {
        panic!("expected BudgetTooSmall, got {err:?}");
    };
    assert_eq!(max_bytes, 10);
    assert!(needed > 10);
    assert_eq!(
        err.to_string(),
        format!("max_bytes 10 is too small: the smallest response needs max_bytes {needed}")
    );
    assert_message_style(&err);
    // An empty answer needs only the plain envelope.
    let err = Bounded::collect(Vec::<u32>::new(), &Limits::new().max_bytes(10)).unwrap_err();
    let empty = Bounded::<u32>::exact(vec![]).to_json().unwrap();
    assert!(
        matches!(*err.kind(), ErrorKind::BudgetTooSmall { needed, .. } if needed == empty.len()),
        "{err:?}"
    );
    assert!(
        Bounded::collect(Vec::<u32>::new(), &Limits::new().max_bytes(empty.len()))
            .unwrap()
            .is_complete()
    );
}

#[test]
fn into_exact_refuses_an_incomplete_result_and_keeps_it() {
    // What was found, items and disclosure, as the non-strict answer has it.
    let lax = Bounded::collect(0..5u32, &Limits::new().limit(2)).unwrap();
    let incomplete = lax.clone().into_exact().unwrap_err();
    assert_eq!(
        incomplete.to_string(),
        "incomplete result: items 1-2 of at least 3 (limit 2)"
    );
    assert_eq!(incomplete.bounded(), &lax);
    assert_eq!(incomplete.into_bounded(), lax);

    // A complete answer passes, items and all.
    let all = Bounded::collect(0..5u32, &Limits::new().limit(5)).unwrap();
    assert_eq!(all.into_exact().unwrap(), vec![0, 1, 2, 3, 4]);

    // A page keeps its cursor.
    let page = Bounded::page(0..5u32, &Limits::new().limit(2), &scope(), None).unwrap();
    let incomplete = page.clone().into_exact().unwrap_err();
    assert_eq!(incomplete.bounded().next_cursor(), page.next_cursor());

    // Budget stops are named in the message.
    let message = Bounded::collect(0..500u32, &Limits::new().max_bytes(400))
        .unwrap()
        .into_exact()
        .unwrap_err()
        .to_string();
    assert!(message.contains("max_bytes 400 reached"), "{message}");

    // An exact answer with an input skipped for an error is not complete.
    let mut skipped = Skipped::new();
    skipped.record(SkippedInput::new("shard-2", SkipReason::Unreadable));
    let partial = Bounded::from_parts(
        vec![1u8],
        Disclosure::new(Completeness::Exact, Total::Exact(1)).with_skipped(skipped),
    )
    .unwrap();
    let incomplete = partial.into_exact().unwrap_err();
    assert!(
        incomplete.to_string().contains("skipped because of errors"),
        "{incomplete}"
    );
}

fn all_callers(limits: &Limits) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    // `?` boxes into_exact's Incomplete, as any std error.
    let callers = Bounded::collect(0..5u32, limits)?.into_exact()?;
    Ok(callers)
}

#[test]
fn into_exact_boxes_with_question_mark() {
    assert_eq!(all_callers(&Limits::new()).unwrap(), vec![0, 1, 2, 3, 4]);
    let err = all_callers(&Limits::new().limit(3)).unwrap_err();
    let incomplete = err
        .downcast::<Incomplete<u32>>()
        .expect("into_exact's error");
    assert_eq!(incomplete.bounded().items(), &[0, 1, 2]);
    assert_eq!(
        incomplete.to_string(),
        "incomplete result: items 1-3 of at least 4 (limit 3)"
    );
}

#[test]
fn a_keyset_that_is_unsorted_or_repeats_is_refused() {
    let limits = Limits::new().limit(10);
    for (name, source) in [
        ("unsorted", vec![1u64, 3, 2]),
        ("repeated", vec![1u64, 2, 2, 3]),
    ] {
        let err = Bounded::page(
            Keyset::new(|_: candor::KeyRequest<u64>| source.clone(), |n| *n),
            &limits,
            &scope(),
            None,
        )
        .unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::InvalidArgument { name: "source", .. }
            ),
            "{name}: {err:?}"
        );
        assert!(
            err.to_string().starts_with("invalid argument source: "),
            "{err}"
        );
        assert_message_style(&err);
    }
    // A source that ignores the cursor and starts over is caught too.
    let first = Bounded::page(
        Keyset::new(|_: candor::KeyRequest<u64>| 0..10u64, |n| *n),
        &Limits::new().limit(2),
        &scope(),
        None,
    )
    .unwrap();
    let err = Bounded::page(
        Keyset::new(|_: candor::KeyRequest<u64>| 0..10u64, |n| *n),
        &Limits::new().limit(2),
        &scope(),
        first.next_cursor(),
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { .. }),
        "{err:?}"
    );
}

#[test]
fn merge_rejects_unsorted_parts_and_shared_keys() {
    let unsorted = vec![Bounded::exact(vec![1u32, 2]), Bounded::exact(vec![5u32, 4])];
    let err = Bounded::merge(unsorted, &Limits::new(), |a: &u32, b: &u32| a.cmp(b)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { name: "parts", .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("part 1"), "{err}");
    let shared = vec![Bounded::exact(vec![1u32, 2]), Bounded::exact(vec![2u32, 3])];
    let err = Bounded::page(
        Shards::new(|_| Ok(shared), |n: &u32| u64::from(*n)),
        &Limits::new(),
        &scope(),
        None,
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { name: "parts", .. }),
        "{err:?}"
    );
    // A shard that answers from before the cursor's key would repeat items.
    let limits = Limits::new().limit(1);
    let first = Bounded::page(
        Shards::new(
            |_| Ok(vec![Bounded::exact(vec![1u32, 2])]),
            |n: &u32| u64::from(*n),
        ),
        &limits,
        &scope(),
        None,
    )
    .unwrap();
    let err = Bounded::page(
        Shards::new(
            |_| Ok(vec![Bounded::exact(vec![1u32, 2])]),
            |n: &u32| u64::from(*n),
        ),
        &limits,
        &scope(),
        first.next_cursor(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("not after the cursor's key"),
        "{err}"
    );
}

#[test]
fn serialize_failures_are_their_own_kind() {
    // JSON object keys must be strings: a map keyed by a tuple fails.
    let item = || std::collections::BTreeMap::from([((1u8, 2u8), 3u8)]);
    let b = Bounded::collect(vec![item()], &Limits::new()).unwrap();
    let err = b.to_json().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Serialize { .. }), "{err:?}");
    assert!(
        std::error::Error::source(&err).is_some(),
        "the cause is the source"
    );
    assert_message_style(&err);
    // With a byte budget the size of each item is measured, so it fails
    // while collecting.
    let err = Bounded::collect(vec![item()], &Limits::new().max_bytes(1000)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Serialize { .. }), "{err:?}");
    // Without a byte budget nothing is written, and `into_exact` writes
    // nothing either: it keeps the items as they are.
    let incomplete = Bounded::collect(vec![item(), item()], &Limits::new().limit(1))
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(incomplete.bounded().len(), 1);
}

/// An item that borrows (`&str` of a local string) and is neither `Send`
/// (`Rc`) nor `Sync` (`Cell`): it counts how often it is written.
#[derive(Debug)]
struct Word<'a> {
    text: &'a str,
    file: Rc<str>,
    writes: Rc<Cell<u32>>,
}

impl Serialize for Word<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        self.writes.set(self.writes.get() + 1);
        let mut row = serializer.serialize_struct("Word", 2)?;
        row.serialize_field("text", self.text)?;
        row.serialize_field("file", &*self.file)?;
        row.end()
    }
}

fn texts<'a>(b: &Bounded<Word<'a>>) -> Vec<&'a str> {
    b.iter().map(|w| w.text).collect()
}

#[test]
fn borrowed_non_send_items_are_collected_paged_merged_and_required_whole() {
    let text = String::from("alpha beta delta gamma");
    let file: Rc<str> = Rc::from("words.txt");
    let writes = Rc::new(Cell::new(0));
    let words = || {
        text.split(' ').map(|t| Word {
            text: t,
            file: Rc::clone(&file),
            writes: Rc::clone(&writes),
        })
    };
    let key = |w: &Word<'_>| w.text.to_owned();
    let by_key = |request: KeyRequest<String>| {
        let after = request.into_after();
        words().filter(move |w| after.as_deref().is_none_or(|a| w.text > a))
    };
    // Two sorted shards: alpha and delta, beta and gamma.
    let halves = || {
        let (evens, odds): (Vec<_>, Vec<_>) = words().enumerate().partition(|(i, _)| i % 2 == 0);
        (
            Bounded::exact(evens.into_iter().map(|(_, w)| w).collect()),
            Bounded::exact(odds.into_iter().map(|(_, w)| w).collect()),
        )
    };
    let by_text = |a: &Word<'_>, b: &Word<'_>| a.text.cmp(b.text);

    // The items themselves, none of them written.
    let lax = Limits::new().limit(2);
    let collected = Bounded::collect(words(), &lax).unwrap();
    assert_eq!(texts(&collected), ["alpha", "beta"]);
    assert!(collected.completeness().is_truncated());
    let first = Bounded::page(words(), &Limits::new().limit(3), &scope(), None).unwrap();
    let rest = Bounded::page(
        words(),
        &Limits::new().limit(3),
        &scope(),
        first.next_cursor(),
    )
    .unwrap();
    assert_eq!(texts(&first), ["alpha", "beta", "delta"]);
    assert_eq!(texts(&rest), ["gamma"]);
    assert!(rest.is_complete());
    let keyed = Bounded::page(Keyset::new(by_key, key), &lax, &scope(), None).unwrap();
    let keyed_rest = Bounded::page(
        Keyset::new(by_key, key),
        &lax,
        &scope(),
        keyed.next_cursor(),
    )
    .unwrap();
    assert_eq!(texts(&keyed), ["alpha", "beta"]);
    assert_eq!(texts(&keyed_rest), ["delta", "gamma"]);
    let (a, b) = halves();
    let merged = Bounded::merge(vec![a, b], &Limits::new().limit(3), by_text).unwrap();
    assert_eq!(texts(&merged), ["alpha", "beta", "delta"]);
    assert!(merged.completeness().is_truncated());
    assert_eq!(writes.get(), 0, "nothing is written without a byte budget");

    // Requiring the whole answer: `into_exact` refuses each truncated
    // result and keeps it as it is, nothing written, no bound on the items.
    let incomplete = Bounded::collect(words(), &lax)
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(texts(incomplete.bounded()), ["alpha", "beta"]);
    assert_eq!(incomplete.bounded().disclosure(), collected.disclosure());
    let incomplete = Bounded::page(words(), &Limits::new().limit(3), &scope(), None)
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(incomplete.bounded().next_cursor(), first.next_cursor());
    let incomplete = Bounded::page(Keyset::new(by_key, key), &lax, &scope(), None)
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(incomplete.bounded().disclosure(), keyed.disclosure());
    let (a, b) = halves();
    let incomplete = Bounded::merge(vec![a, b], &Limits::new().limit(3), by_text)
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(incomplete.bounded().disclosure(), merged.disclosure());
    let (a, b) = halves();
    let whole = Bounded::merge(vec![a, b], &Limits::new(), by_text).unwrap();
    let whole: Vec<&str> = whole.into_exact().unwrap().iter().map(|w| w.text).collect();
    assert_eq!(whole, ["alpha", "beta", "delta", "gamma"]);
    assert_eq!(writes.get(), 0, "into_exact writes nothing");
}

#[test]
fn error_kinds_are_distinct_and_messages_name_the_value() {
    let s = scope();
    let errors: Vec<(Error, &str)> = vec![
        (Cursor::parse("not a cursor!").unwrap_err(), "cursor"),
        (
            Cursor::parse(&{
                // Change a character of the checksum that carries six whole
                // bits, so the token still decodes and only the check fails.
                let t = page_cursor().to_string();
                let i = t.len() - 2;
                let new = if &t[i..i + 1] == "A" { "B" } else { "A" };
                let mut u = t.clone();
                u.replace_range(i..i + 1, new);
                u
            })
            .unwrap_err(),
            "cursor",
        ),
        (
            Scope::new(Fingerprint::from_u64(0xabc))
                .resume::<u64>(&page_cursor())
                .unwrap_err(),
            "0000000000000abc",
        ),
        (
            s.generation(8)
                .resume::<u64>(&s.generation(7).cursor(&1u64, 0))
                .unwrap_err(),
            "recorded (7) is now 8",
        ),
        (
            Bounded::page(
                0..4u32,
                &Limits::new(),
                &s,
                Bounded::page(0..100u32, &Limits::new().limit(50), &s, None)
                    .unwrap()
                    .next_cursor(),
            )
            .unwrap_err(),
            "50",
        ),
        (
            Bounded::collect(0..2u8, &Limits::new().max_bytes(3)).unwrap_err(),
            "max_bytes 3",
        ),
        (
            Bounded::page(
                Keyset::new(|_: candor::KeyRequest<u64>| vec![2u64, 1], |n| *n),
                &Limits::new(),
                &s,
                None,
            )
            .unwrap_err(),
            "source",
        ),
        (
            Bounded::from_parts(
                vec![1u8, 2],
                Disclosure::new(Completeness::Exact, Total::Exact(5)),
            )
            .unwrap_err(),
            "start + count (2)",
        ),
    ];
    let mut kinds: Vec<&str> = Vec::new();
    for (err, needle) in &errors {
        assert_message_style(err);
        let message = err.to_string();
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
        let kind = kind_name(err);
        assert!(!kinds.contains(&kind), "{kind} twice");
        kinds.push(kind);
    }
    let mut messages: Vec<String> = errors.iter().map(|(e, _)| e.to_string()).collect();
    messages.sort();
    messages.dedup();
    assert_eq!(messages.len(), errors.len(), "messages are distinct");
    assert!(kinds.contains(&"TamperedCursor"), "{kinds:?}");
}

// ---------------------------------------------------------------------------
// Limit of 0, and Send + Sync

#[test]
fn limit_zero_returns_nothing_and_still_says_whether_anything_exists() {
    let empty = Bounded::collect(Vec::<u32>::new(), &Limits::new().limit(0)).unwrap();
    assert!(empty.is_complete());
    assert_eq!(empty.total(), Total::Exact(0));

    let some = Bounded::collect(0..3u32, &Limits::new().limit(0)).unwrap();
    assert!(some.is_empty());
    assert_eq!(
        some.completeness(),
        &Completeness::TruncatedByLimit {
            limit: 0,
            requested: None
        }
    );
    assert_eq!(some.total(), Total::AtLeast(1));

    let counted = Bounded::collect(0..3u32, &Limits::new().limit(0).count_total(true)).unwrap();
    assert!(counted.is_empty());
    assert_eq!(counted.total(), Total::Exact(3));

    // A page of 0 items has no cursor: it could not advance.
    let page = Bounded::page(0..3u32, &Limits::new().limit(0), &scope(), None).unwrap();
    assert!(page.completeness().is_truncated());
    assert!(page.next_cursor().is_none());

    // A ceiling of 0 clamps any limit, and says so.
    let clamped = Bounded::collect(0..3u32, &Limits::new().ceiling(0).limit(5)).unwrap();
    assert_eq!(
        clamped.completeness(),
        &Completeness::TruncatedByLimit {
            limit: 0,
            requested: Some(5)
        }
    );
}

#[test]
fn public_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Bounded<u32>>();
    assert_send_sync::<Bounded<String>>();
    assert_send_sync::<Disclosure>();
    assert_send_sync::<candor::Streamed>();
    assert_send_sync::<candor::JsonStream>();
    assert_send_sync::<candor::Clamp>();
    assert_send_sync::<candor::AppliedLimit>();
    assert_send_sync::<Limits>();
    assert_send_sync::<Cursor>();
    assert_send_sync::<Scope>();
    assert_send_sync::<Fingerprint>();
    assert_send_sync::<Error>();
    assert_send_sync::<ErrorKind>();
    assert_send_sync::<Incomplete<u32>>();
    assert_send_sync::<Skipped>();
    assert_send_sync::<SkippedInput>();
    assert_send_sync::<SkipReason>();
    assert_send_sync::<Completeness>();
    assert_send_sync::<Budget>();
    assert_send_sync::<BudgetKind>();
    assert_send_sync::<Total>();
    assert_send_sync::<ManualClock>();
    assert_send_sync::<candor::SystemClock>();
}

/// An offset page's cursor and a `Keyset`'s with an integer key, under
/// one scope, are never taken for each other: resuming one as the other
/// would skip or repeat items.
#[test]
fn page_and_key_cursors_are_not_interchangeable() {
    let s = scope();
    let source = |request: candor::KeyRequest<u64>| {
        let after = request.after().copied().unwrap_or(0);
        (after + 1..=10).take(request.fetch().unwrap_or(usize::MAX))
    };
    let by_offset = Bounded::page(1..=10u64, &Limits::new().limit(3), &s, None).unwrap();
    let by_key = Bounded::page(
        Keyset::new(source, |k: &u64| *k),
        &Limits::new().limit(3),
        &s,
        None,
    )
    .unwrap();
    let err = Bounded::page(
        Keyset::new(source, |k: &u64| *k),
        &Limits::new().limit(3),
        &s,
        by_offset.next_cursor(),
    )
    .unwrap_err();
    assert_eq!(kind_name(&err), "MalformedCursor", "{err}");
    let err =
        Bounded::page(1..=10u64, &Limits::new().limit(3), &s, by_key.next_cursor()).unwrap_err();
    assert_eq!(kind_name(&err), "MalformedCursor", "{err}");
}

/// `into_exact` keeps the items as they are, whatever JSON can hold of
/// them: a map with keys that are not strings, a float that is not a
/// number.
#[test]
fn into_exact_keeps_what_json_cannot_hold() {
    use std::collections::HashMap;
    let map: HashMap<(u8, u8), u8> = HashMap::from([((1, 2), 3)]);
    let maps = [map.clone(), map.clone(), map];
    let incomplete = Bounded::collect(maps.iter(), &Limits::new().limit(1))
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(incomplete.bounded().items(), &[&maps[0]]);
    let incomplete = Bounded::collect([f64::NAN, 1.0], &Limits::new().limit(1))
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert!(incomplete.bounded().items()[0].is_nan());
}
