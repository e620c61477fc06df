//! The byte budget of an MCP tool result, stated as properties over
//! generated results and budgets: the whole result as sent (every content
//! block and `structuredContent`, serialized) is at most `max_bytes`, a
//! query that succeeds is never refused for its size, and what is sent
//! still says what the result is.

use candor::{Bounded, ErrorKind, Fallible, Limits, TryError};
use candor_mcp::{PageArgs, Policy, json_budget, respond, respond_try, tool_result};
use candor_search::Corpus;
use proptest::prelude::*;
use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::arguments::texts;

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
        let result = respond(outcome, &noun, &page, &policy);
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
        let result = respond_try(outcome, "rows", &PageArgs { max_bytes: Some(max_bytes), ..PageArgs::default() }, &Policy::new());
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
        &PageArgs {
            max_bytes: Some(page.budget(&policy)),
            ..PageArgs::default()
        },
        &Policy::new(),
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

/// The tools a property below calls: an answer collected whole, one paged
/// by cursor, and a text search, each answered as a tool result.
#[derive(Debug, Clone, Copy)]
enum Tool {
    Collect,
    Page,
    Search,
}

/// A tool's answers, and the whole answer (as JSON values) to check
/// pages against.
struct Answers {
    tool: Tool,
    items: Vec<String>,
    docs: candor_search::Documents<'static>,
    scope: candor::Scope,
}

impl Answers {
    fn new(tool: Tool, items: Vec<String>) -> Answers {
        // Three files, the items in path order: file by file.
        let mut texts = [String::new(), String::new(), String::new()];
        for (i, item) in items.iter().enumerate() {
            texts[i * 3 / items.len()].push_str(&format!("needle {item}\n"));
        }
        let mut docs = candor_search::Documents::new();
        for (i, text) in texts.into_iter().enumerate() {
            docs.insert(format!("f{i}.txt"), text).expect("a document");
        }
        Answers {
            tool,
            items,
            docs,
            scope: candor::Scope::new(candor::Fingerprint::of("answers")),
        }
    }

    /// The tool's result for `args`.
    fn call(&self, args: &PageArgs, policy: &Policy) -> CallToolResult {
        let limits = args.limits(policy);
        let cursor = args.cursor().expect("a cursor of this tool");
        match self.tool {
            Tool::Collect => respond(
                Bounded::collect(self.items.clone(), &limits),
                "items",
                args,
                policy,
            ),
            Tool::Page => respond(
                Bounded::page(self.items.clone(), &limits, &self.scope, cursor.as_ref()),
                "items",
                args,
                policy,
            ),
            Tool::Search => respond(
                self.docs.search(
                    &candor_search::Query::literal("needle"),
                    &limits,
                    cursor.as_ref(),
                ),
                "matches",
                args,
                policy,
            ),
        }
    }

    /// The whole answer, as the wire writes its items.
    fn whole(&self) -> Vec<Value> {
        let items = match self.tool {
            Tool::Collect | Tool::Page => serde_json::to_value(&self.items),
            Tool::Search => serde_json::to_value(
                self.docs
                    .search(
                        &candor_search::Query::literal("needle"),
                        &Limits::new(),
                        None,
                    )
                    .expect("a search")
                    .items(),
            ),
        };
        items.expect("JSON").as_array().expect("an array").clone()
    }

    /// A cursor after `n` items, when the tool pages.
    fn cursor_after(&self, n: usize) -> Option<String> {
        let limits = Limits::new().limit(n);
        let page = match self.tool {
            Tool::Collect => return None,
            Tool::Page => Bounded::page(self.items.clone(), &limits, &self.scope, None)
                .expect("a page")
                .next_cursor()
                .cloned(),
            Tool::Search => self
                .docs
                .search(&candor_search::Query::literal("needle"), &limits, None)
                .expect("a page")
                .next_cursor()
                .cloned(),
        };
        page.map(|c| c.to_string())
    }
}

/// Item text of every size, from nothing to more than one page holds,
/// with the characters that cost the most in the mirrored text block.
fn item() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z\"\\\\é€ ]{0,24}",
        1 => (40usize..700).prop_map(|n| "q\"".repeat(n / 2)),
    ]
}

/// The `max_bytes` figures a text names ("max_bytes 1500", "max_bytes of
/// 2025").
fn max_bytes_figures(text: &str) -> Vec<u64> {
    text.match_indices("max_bytes ")
        .filter_map(|(at, word)| {
            let rest = &text[at + word.len()..];
            let rest = rest.strip_prefix("of ").unwrap_or(rest);
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        })
        .collect()
}

/// The `max_bytes` a tool error says the query needs, if it says so.
fn needed_by_error(text: &str, max_bytes: usize) -> Option<u64> {
    let head = format!("invalid argument max_bytes: {max_bytes} is too small: ");
    text.strip_prefix(&head)?;
    max_bytes_figures(text).last().copied()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// Rule 5 over MCP: every output-bytes figure a tool result states
    /// (`max`, `used` and `needed` in structuredContent, the disclosure
    /// line, a refusal's text) is in the client's `max_bytes` units:
    /// `max` is what it sent, `used` the least `max_bytes` whose share
    /// holds the page's JSON (the JSON takes at most 3 bytes of the result
    /// per byte, beside 672 of its own), and asking again with `needed`,
    /// or more, gives a page that holds the next item, within that budget.
    #[test]
    fn every_figure_a_tool_states_is_in_max_bytes_and_needed_holds_the_next_item(
        items in prop::collection::vec(item(), 1..24),
        tool in prop_oneof![Just(Tool::Collect), Just(Tool::Page), Just(Tool::Search)],
        limit in prop::option::of(1usize..12),
        max_bytes in 0usize..5000,
        more in 0usize..3000,
        resume in any::<prop::sample::Index>(),
        count_total in any::<bool>(),
    ) {
        let answers = Answers::new(tool, items);
        let whole = answers.whole();
        let policy = Policy::new().max_bytes_ceiling(usize::MAX);
        let start = resume.index(whole.len());
        let cursor = answers.cursor_after(start);
        let start = if cursor.is_some() { start } else { 0 };
        let args = PageArgs { limit, max_bytes: Some(max_bytes), count_total, strict: false, cursor };
        let result = answers.call(&args, &policy);
        let sent = size(&result);
        if result.is_error == Some(true) {
            prop_assert!(sent <= max_bytes.max(256), "{} bytes for {}", sent, max_bytes);
            let text = texts(&result)[0];
            let Some(needed) = needed_by_error(text, max_bytes) else {
                return Err(TestCaseError::fail(format!("an unexpected error: {text}")));
            };
            prop_assert!(needed > max_bytes as u64, "{}", text);
            // Given what it needs, the query answers, or needs more.
            let again = answers.call(&PageArgs { max_bytes: Some(needed as usize), ..args.clone() }, &policy);
            if again.is_error == Some(true) {
                let more = needed_by_error(texts(&again)[0], needed as usize);
                prop_assert!(more.is_some_and(|m| m > needed), "{:?}", texts(&again));
            }
            return Ok(());
        }
        prop_assert!(sent <= max_bytes, "{} bytes for {}", sent, max_bytes);
        let [line, json] = texts(&result)[..] else {
            panic!("two text blocks");
        };
        let wire = result.structured_content.clone().expect("structuredContent");
        prop_assert_eq!(wire["start"].as_u64(), Some(start as u64));
        let truncation = &wire["truncation"];
        let mut needed = None;
        if truncation["budget"] == "output_bytes" {
            prop_assert_eq!(truncation["max"].as_u64(), Some(max_bytes as u64));
            // The least max_bytes whose share holds this JSON, counted here
            // from the JSON as sent.
            let used = (json.len() * 3 + 672) as u64;
            prop_assert_eq!(truncation["used"].as_u64(), Some(used), "{}", json);
            prop_assert!(used <= max_bytes as u64);
            needed = truncation["needed"].as_u64();
        }
        for figure in max_bytes_figures(line) {
            prop_assert!(
                figure == max_bytes as u64 || Some(figure) == needed,
                "{} is not a figure the page states: {}", figure, line
            );
        }
        if let Some(needed) = needed {
            prop_assert_eq!(wire["count"].as_u64(), Some(0));
            prop_assert!(needed > max_bytes as u64);
            // Asking again from the same place with `needed`, or more,
            // gives the next item, within that budget.
            for retry in [needed as usize, needed as usize + more] {
                let again = answers.call(&PageArgs { max_bytes: Some(retry), ..args.clone() }, &policy);
                prop_assert_eq!(again.is_error, Some(false), "{:?}", texts(&again));
                prop_assert!(size(&again) <= retry, "{} bytes for {}", size(&again), retry);
                let page = again.structured_content.expect("structuredContent");
                prop_assert!(page["count"].as_u64().unwrap_or(0) >= 1, "{}", page);
                prop_assert_eq!(&page["items"][0], &whole[start]);
            }
        }
    }

    /// A cursor sent back may come with another `limit` and another
    /// `max_bytes`: the pages still rebuild the answer, each item once.
    #[test]
    fn limit_and_max_bytes_may_change_from_page_to_page(
        items in prop::collection::vec(item(), 1..30),
        tool in prop_oneof![Just(Tool::Page), Just(Tool::Search)],
        asks in prop::collection::vec((prop::option::of(1usize..8), 1500usize..6000), 1..8),
    ) {
        let answers = Answers::new(tool, items);
        let whole = answers.whole();
        let policy = Policy::new().max_bytes_ceiling(usize::MAX);
        let mut seen: Vec<Value> = Vec::new();
        let mut cursor: Option<String> = None;
        for round in 0..whole.len() * 3 + 3 {
            let (limit, mut max_bytes) = asks[round % asks.len()];
            let mut retries = 0;
            let page = loop {
                let args = PageArgs { limit, max_bytes: Some(max_bytes), cursor: cursor.clone(), ..PageArgs::default() };
                let result = answers.call(&args, &policy);
                prop_assert_eq!(result.is_error, Some(false), "{:?}", texts(&result));
                let page = result.structured_content.expect("structuredContent");
                // A page with no room for the next item says what it needs:
                // ask again with that, once.
                match page["truncation"]["needed"].as_u64() {
                    Some(needed) => {
                        prop_assert!(retries == 0 && needed as usize > max_bytes, "{}", page);
                        retries += 1;
                        max_bytes = needed as usize;
                    }
                    None => break page,
                }
            };
            prop_assert_eq!(page["start"].as_u64(), Some(seen.len() as u64));
            seen.extend(page["items"].as_array().expect("items").iter().cloned());
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => {
                    prop_assert_eq!(page["complete"].as_bool(), Some(true));
                    prop_assert_eq!(&seen, &whole);
                    return Ok(());
                }
            }
        }
        prop_assert!(false, "the walk did not end");
    }
}

/// An item larger than anything the server sends: the answer says a larger
/// `max_bytes` will not help (following `needed` would loop), and that the
/// `max_bytes` asked for was lowered; a result made under other limits than
/// the call's is refused, as its figures would not be the client's.
#[test]
fn an_item_beyond_the_server_s_largest_budget_is_said_to_be_so() {
    let policy = Policy::new().max_bytes_ceiling(20_000);
    let huge = vec!["x".repeat(50_000)];
    for asked in [None, Some(10_000), Some(200_000)] {
        let page = PageArgs {
            max_bytes: asked,
            ..PageArgs::default()
        };
        let result = respond(
            Bounded::collect(huge.clone(), &page.limits(&policy)),
            "lines",
            &page,
            &policy,
        );
        assert_eq!(
            result.is_error,
            Some(true),
            "{asked:?}: {:?}",
            texts(&result)
        );
        let text = texts(&result)[0];
        assert!(text.contains("a larger max_bytes will not help"), "{text}");
        assert!(text.contains("20000"), "{text}");
        assert_eq!(
            text.contains("the 200000 asked for was lowered to it"),
            asked == Some(200_000),
            "{text}"
        );
    }
    // Within the server's largest budget: the page says what it needs.
    let small = vec!["x".repeat(5_000)];
    let page = PageArgs {
        max_bytes: Some(2_000),
        ..PageArgs::default()
    };
    let result = respond(
        Bounded::collect(small, &page.limits(&policy)),
        "lines",
        &page,
        &policy,
    );
    assert_eq!(result.is_error, Some(false), "{:?}", texts(&result));
    // A result cut under limits that are not the call's.
    let page = PageArgs::default();
    let result = respond(
        Bounded::collect(0..1000u32, &Limits::new().max_bytes(700)),
        "numbers",
        &page,
        &policy,
    );
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].contains("PageArgs::limits"),
        "{:?}",
        texts(&result)
    );
}
