//! The byte budget of an MCP tool result, stated as properties over
//! generated results and budgets: the whole result as sent (every content
//! block and `structuredContent`, serialized) is at most `max_bytes`, a
//! query that succeeds is never refused for its size, and what is sent
//! still says what the result is.

use candor::{Bounded, ErrorKind, Fallible, Limits, TryError};
use candor_mcp::{PageArgs, Policy, json_budget, respond, respond_try, tool_result};
use proptest::prelude::*;
use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::mcp_args::texts;

/// The size of a tool result as a client receives it.
fn size(result: &CallToolResult) -> usize {
    serde_json::to_vec(result)
        .expect("a tool result serializes")
        .len()
}

/// Text that costs the most when escaped: quotes, backslashes, control
/// characters, and multi-byte characters.
fn text() -> impl Strategy<Value = String> {
    "[\"\\\\\u{0}-\u{1f}aé€😀 ]{0,40}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_tool_result_fits_max_bytes_and_a_query_that_ran_is_never_refused(
        items in prop::collection::vec(text(), 0..60),
        limit in prop::option::of(0usize..80),
        max_bytes in 0usize..24_000,
        strict in any::<bool>(),
        count_total in any::<bool>(),
        noun in "[a-z]{1,12}( [a-z]{1,12})?",
    ) {
        let policy = Policy::new().max_bytes_ceiling(usize::MAX);
        let page = PageArgs { limit, max_bytes: Some(max_bytes), count_total, strict, cursor: None };
        prop_assert_eq!(page.budget(&policy), max_bytes);
        let outcome = Bounded::collect(items.clone(), &page.limits(&policy));
        let ran = outcome.is_ok();
        let refused_as_strict = strict && outcome.as_ref().is_ok_and(|b| !b.is_complete());
        let expected = outcome.as_ref().ok().map(|b| serde_json::to_value(b).expect("JSON"));
        let budget_too_small = matches!(
            outcome.as_ref().map_err(|e| e.kind()),
            Err(ErrorKind::BudgetTooSmall { .. })
        );
        let result = page.respond(outcome, &noun, &policy);
        let sent = size(&result);
        if result.is_error == Some(true) {
            prop_assert!(
                !ran || refused_as_strict,
                "a result that was found is sent: {:?}", texts(&result)
            );
            prop_assert!(sent <= max_bytes.max(256), "{} bytes for {}", sent, max_bytes);
            if budget_too_small {
                let expected = format!("invalid argument max_bytes: {max_bytes} is too small");
                prop_assert!(texts(&result)[0].starts_with(&expected), "{:?}", texts(&result));
            }
        } else {
            prop_assert!(sent <= max_bytes, "{} bytes for {}", sent, max_bytes);
            // What is sent is the result, in both channels.
            let structured = result.structured_content.clone().expect("structuredContent");
            prop_assert_eq!(Some(&structured), expected.as_ref());
            let [line, json] = texts(&result)[..] else {
                panic!("two text blocks");
            };
            prop_assert_eq!(serde_json::from_str::<Value>(json).expect("JSON"), structured.clone());
            let bounded: Bounded<String> = serde_json::from_value(structured).expect("the wire shape");
            prop_assert_eq!(line, bounded.summary(&noun));
            prop_assert_eq!(bounded.items(), &items[..bounded.len()]);
        }
    }

    #[test]
    fn a_try_query_s_error_keeps_to_max_bytes(
        items in prop::collection::vec(text(), 0..40),
        fail_at in 0usize..50,
        max_bytes in 0usize..12_000,
    ) {
        let rows = items.iter().enumerate().map(|(i, item)| {
            if i == fail_at { Err(format!("row {i} failed")) } else { Ok(item.clone()) }
        });
        let outcome = Bounded::collect(Fallible(rows), &Limits::new().max_bytes(json_budget(max_bytes)));
        let failed = matches!(outcome, Err(TryError::Source(_)));
        let result = respond_try(outcome, "rows", max_bytes);
        let sent = size(&result);
        prop_assert!(sent <= max_bytes.max(256), "{} bytes for {}", sent, max_bytes);
        if failed && result.content.len() == 2 {
            // The rows read are a prefix of the rows.
            let read: Value = serde_json::from_str(texts(&result)[1]).expect("JSON");
            let read: Vec<String> = serde_json::from_value(read["items"].clone()).expect("strings");
            prop_assert_eq!(&read[..], &items[..read.len()]);
        }
    }
}

/// The case: with max_bytes 4096, the JSON alone fitted, and the
/// whole result was twice that.
#[test]
fn a_full_page_of_quoted_text_keeps_to_4096_bytes() {
    let lines = (0..500).map(|n| format!("let s = \"line {n}\"; // \"quoted\" \\ escaped"));
    let page = PageArgs {
        max_bytes: Some(4096),
        ..PageArgs::default()
    };
    let policy = Policy::new();
    let result = respond(
        Bounded::collect(lines, &page.limits(&policy)),
        "lines",
        page.budget(&policy),
    );
    assert_eq!(result.is_error, Some(false), "{:?}", texts(&result));
    assert!(size(&result) <= 4096, "{} bytes", size(&result));
    assert!(texts(&result)[0].starts_with("Incomplete: lines 1-"));
}

/// A result given more bytes than its share is not sent over the budget:
/// the error says what it needed.
#[test]
fn a_result_over_the_budget_is_refused_with_what_it_needs() {
    let b = Bounded::collect(
        (0..1000).map(|n| format!("item {n}")),
        &Limits::new().max_bytes(4096),
    )
    .expect("a page");
    let result = tool_result(&b, "items", 4096);
    assert_eq!(result.is_error, Some(true));
    assert!(size(&result) <= 4096);
    let text = texts(&result)[0];
    assert!(text.starts_with("the tool result would be "), "{text}");
    assert!(text.contains("more than max_bytes 4096"), "{text}");
}
