//! A query's outcome as an MCP tool result, within the client's byte
//! budget: the result itself, a candor error, strict mode's error with
//! what was found, and a `try_` query's error with the items read.

use std::fmt;

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::Value;

use super::budget::{ERROR_MAX, error_within, json_budget, size_of, whole_budget};
use candor::{Bounded, Error, ErrorKind, Interrupted, TryError};

/// Turns a result into an MCP tool result of at most `max_bytes`:
/// `structuredContent` with the wire shape, a text block with the
/// one-line disclosure, and a text block with exactly the JSON of
/// `structuredContent`.
///
/// `max_bytes` bounds the whole tool result as sent (every content block
/// and `structuredContent`, serialized): run the query with
/// [`Limits::enclosing`](candor::Limits::enclosing)`(`[`enclosing`](super::enclosing)`(max_bytes))`,
/// as [`PageArgs::limits`](super::PageArgs::limits) does, and the result
/// fits, and states its figures in bytes of the whole tool result. A result that would not fit is never sent: the answer is then a
/// tool error (`isError: true`) that says how many bytes it needed. `noun`
/// names the items in the disclosure line ("matches", "callers").
///
/// # Example
///
/// ```
/// use candor::Limits;
/// let b = candor::Bounded::collect(["main", "parse", "run"], &Limits::new().limit(2))?;
/// let result = candor_mcp::tool_result(&b, "callers", 4096);
/// assert_eq!(result.is_error, Some(false));
/// let texts: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
/// assert_eq!(texts[0], b.summary("callers"));
/// let mirrored: serde_json::Value = serde_json::from_str(texts[1])?;
/// assert_eq!(Some(mirrored), result.structured_content);
/// // The same result does not fit 200 bytes: an error says so.
/// assert_eq!(candor_mcp::tool_result(&b, "callers", 200).is_error, Some(true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tool_result<T: Serialize>(
    result: &Bounded<T>,
    noun: &str,
    max_bytes: usize,
) -> CallToolResult {
    let json = match result.to_json() {
        Ok(json) => json,
        Err(e) => return error_within(&chain(&e), max_bytes.min(ERROR_MAX)),
    };
    let structured: Value = match serde_json::from_str(&json) {
        Ok(value) => value,
        Err(e) => {
            let text = format!("cannot re-read the result as JSON: {e}");
            return error_within(&text, max_bytes.min(ERROR_MAX));
        }
    };
    let summary = result.summary(noun);
    let summary_len = summary.len();
    let json_len = json.len();
    let mut answer =
        CallToolResult::success(vec![ContentBlock::text(summary), ContentBlock::text(json)]);
    answer.structured_content = Some(structured);
    let size = size_of(&answer);
    if size <= max_bytes {
        return answer;
    }
    let text = format!(
        "the tool result would be {size} bytes, more than max_bytes {max_bytes}: its JSON \
         ({json_len} bytes) is sent twice, as structuredContent and as a text block, beside a \
         {summary_len}-byte disclosure line; ask again with a smaller limit, or with max_bytes \
         {} or more",
        size.max(whole_budget(json_len))
    );
    error_within(&text, max_bytes.min(ERROR_MAX))
}

/// A tool error (`isError: true`) of at most `max_bytes` whose text is
/// the error's message and its causes.
///
/// The text is cut to fit `max_bytes`, to 2 KiB at most whatever the
/// budget (a message quotes the value at fault, which can be as long as
/// the request), and never below 256 bytes, so that it still says what is
/// wrong; a cut text ends with how long it was.
///
/// # Example
///
/// ```
/// let err = candor::Cursor::parse("not a cursor!").unwrap_err();
/// let result = candor_mcp::error_result(&err, 4096);
/// assert_eq!(result.is_error, Some(true));
/// let text = &result.content[0].as_text().unwrap().text;
/// assert!(text.starts_with("malformed cursor"));
/// ```
pub fn error_result(error: &(dyn std::error::Error + 'static), max_bytes: usize) -> CallToolResult {
    error_within(&chain(error), max_bytes.min(ERROR_MAX))
}

/// A query's outcome as a tool result of at most `max_bytes`:
/// [`tool_result`] on success, a tool error on error, a budget too small
/// for the query ([`ErrorKind::BudgetTooSmall`]) stated in the client's
/// terms (the `max_bytes` the smallest tool result needs).
fn answer<T: Serialize>(
    result: Result<Bounded<T>, Error>,
    noun: &str,
    max_bytes: usize,
) -> CallToolResult {
    let error = match result {
        Ok(bounded) => return tool_result(&bounded, noun, max_bytes),
        Err(e) => e,
    };
    // Stated in bytes of the whole tool result (a query run with
    // `enclosing`), or in bytes of the JSON (one run with `json_budget`).
    let needed = match error.kind() {
        ErrorKind::BudgetTooSmall {
            max_bytes: asked,
            needed,
        } if *asked == max_bytes => Some(*needed),
        ErrorKind::BudgetTooSmall {
            max_bytes: json_bytes,
            needed,
        } if *json_bytes == json_budget(max_bytes) => Some(whole_budget(*needed)),
        _ => None,
    };
    match needed {
        Some(needed) => {
            let text = format!(
                "invalid argument max_bytes: {max_bytes} is too small: the smallest tool result \
                 of this query needs max_bytes {needed}"
            );
            error_within(&text, max_bytes.min(ERROR_MAX))
        }
        None => error_result(&error, max_bytes),
    }
}

/// The outcome of a `try_` query as a tool result of at most
/// `max_bytes`: a source's failure with the items read before it (see
/// [`respond_try`]).
fn answer_try<T: Serialize, E: fmt::Display>(
    result: Result<Bounded<T>, TryError<T, E>>,
    noun: &str,
    max_bytes: usize,
) -> CallToolResult {
    match result {
        Ok(bounded) => tool_result(&bounded, noun, max_bytes),
        Err(TryError::Query(e)) => answer::<T>(Err(e), noun, max_bytes),
        Err(TryError::Source(interrupted)) => source_failed(&interrupted, max_bytes),
        // A kind of failure added later: its message, as an error.
        Err(other) => error_within(&other.to_string(), max_bytes.min(ERROR_MAX)),
    }
}

/// Answers a paged tool: the outcome of a query made with `page` (the
/// call's paging arguments) under `policy`, as a tool result of at most
/// [`page.budget(policy)`](super::PageArgs::budget) bytes, honouring
/// `strict`.
///
/// This is the one way to answer a tool that takes [`PageArgs`](super::PageArgs):
/// it takes the arguments it answers, so that their `max_bytes` and
/// `strict` cannot be dropped on the way.
///
/// - A result: `structuredContent` with the wire shape, the one-line
///   disclosure, and exactly the JSON (see [`tool_result`]). With
///   `strict`, a result that is not complete (one that
///   [`Bounded::into_exact`] refuses) is a tool error that still carries
///   what was found: a second text block with its disclosure line and a
///   third with its JSON, or, when they would not fit, a line that says
///   so.
/// - An error: a tool error whose text names what was wrong; a budget too
///   small for the query ([`ErrorKind::BudgetTooSmall`]) is stated in the
///   client's terms, the `max_bytes` the smallest tool result needs.
///
/// Run the query with [`page.limits(policy)`](super::PageArgs::limits),
/// which gives it the JSON's share of the budget and states every budget
/// figure in bytes of the whole tool result.
///
/// # Example
///
/// ```
/// use candor::Bounded;
/// use candor_mcp::{PageArgs, Policy, respond};
/// let policy = Policy::new();
/// let page = PageArgs { limit: Some(2), ..PageArgs::default() };
/// let cut = respond(Bounded::collect(0..5u32, &page.limits(&policy)), "numbers", &page, &policy);
/// assert_eq!(cut.is_error, Some(false)); // truncated, and says so
/// let strict = PageArgs { strict: true, ..page };
/// let refused = respond(Bounded::collect(0..5u32, &strict.limits(&policy)), "numbers", &strict, &policy);
/// assert_eq!(refused.is_error, Some(true)); // strict: not all of the answer
/// assert_eq!(refused.content.len(), 3); // the error, and what was found
/// ```
pub fn respond<T: Serialize>(
    result: Result<Bounded<T>, Error>,
    noun: &str,
    page: &super::PageArgs,
    policy: &super::Policy,
) -> CallToolResult {
    let max_bytes = page.budget(policy);
    if let Ok(bounded) = &result {
        match not_resumed(bounded, page) {
            Ok(None) => {}
            Ok(Some(refusal)) => return error_within(&refusal, max_bytes.min(ERROR_MAX)),
            Err(malformed) => return answer::<T>(Err(malformed), noun, max_bytes),
        }
        if let Some(refusal) = beyond_the_budget(bounded, page, policy) {
            return error_within(&refusal, max_bytes.min(ERROR_MAX));
        }
    }
    match result {
        Ok(bounded) if page.strict && !bounded.is_complete() => {
            let summary = bounded.summary(noun);
            let json = bounded.to_json();
            // `Incomplete`'s message: "incomplete result: items 1-2 of ...".
            let incomplete = match bounded.into_exact() {
                Err(incomplete) => incomplete.to_string(),
                Ok(_) => String::from("incomplete result"),
            };
            let message = format!("{incomplete}; strict mode was asked for");
            with_partial(&message, &summary, json, max_bytes)
        }
        other => answer(other, noun, max_bytes),
    }
}

/// [`respond`] for a query over a fallible source
/// ([`Fallible`](candor::Fallible) rows, a [`Keyset`](candor::Keyset)),
/// keeping what was read: a result and a query's error are answered as by
/// `respond` (`strict` honoured); when the source failed, the tool error
/// says so, and its second text block holds the items read before the
/// failure, a prefix of the answer, as
/// `{"count": n, "next_cursor": "…", "items": […]}` (`next_cursor`
/// resumes after them). Items that would not fit are left out, and the
/// text says to ask again.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fallible};
/// use candor_mcp::{PageArgs, Policy, respond_try};
/// let (page, policy) = (PageArgs::default(), Policy::new());
/// let rows = vec![Ok(1u32), Ok(2), Err("connection reset"), Ok(4)];
/// let result = respond_try(Bounded::collect(Fallible(rows), &page.limits(&policy)), "rows", &page, &policy);
/// assert_eq!(result.is_error, Some(true));
/// let texts: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
/// assert!(texts[0].starts_with("the source failed after 2 items: connection reset"));
/// let read: serde_json::Value = serde_json::from_str(texts[1])?;
/// assert_eq!(read["items"], serde_json::json!([1, 2]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn respond_try<T: Serialize, E: fmt::Display>(
    result: Result<Bounded<T>, TryError<T, E>>,
    noun: &str,
    page: &super::PageArgs,
    policy: &super::Policy,
) -> CallToolResult {
    match result {
        Ok(bounded) => respond(Ok(bounded), noun, page, policy),
        Err(TryError::Query(e)) => respond::<T>(Err(e), noun, page, policy),
        other => answer_try(other, noun, page.budget(policy)),
    }
}

/// Why a result cannot be answered as the page the call's cursor asked
/// for, if it cannot: a page resumed from a cursor starts where the cursor
/// does, so a result that starts elsewhere came from a query that did not
/// take the cursor (`Bounded::collect` takes none), and answering it would
/// restart the client's walk at its beginning without a word (rule 6). A
/// malformed cursor is the client's error.
fn not_resumed<T>(bounded: &Bounded<T>, page: &super::PageArgs) -> Result<Option<String>, Error> {
    let Some(cursor) = page.cursor()? else {
        return Ok(None);
    };
    if cursor.start() == bounded.start() {
        return Ok(None);
    }
    Ok(Some(format!(
        "the result does not resume from the call's cursor: it starts after {} items, the \
         cursor after {}; run the query with the call's cursor (PageArgs::cursor), so that no \
         page is skipped or repeated",
        bounded.start(),
        cursor.start()
    )))
}

/// Why a result cannot be answered as a page of `page` under `policy`,
/// if it cannot:
///
/// - its output-bytes figures are not this call's (the query did not run
///   with [`PageArgs::limits`](super::PageArgs::limits)): every figure
///   a reader is told must be in the units of the budget it sent;
/// - not one item fits, there is no cursor, and the next item needs more
///   than the server allows: asking again with `needed` would give the
///   same page for ever, so the answer says that a larger `max_bytes`
///   will not help.
fn beyond_the_budget<T>(
    bounded: &Bounded<T>,
    page: &super::PageArgs,
    policy: &super::Policy,
) -> Option<String> {
    let budget = bounded
        .completeness()
        .budget()
        .filter(|b| b.kind() == candor::BudgetKind::OutputBytes)?;
    let max_bytes = page.budget(policy);
    if budget.max() != max_bytes as u64 {
        return Some(format!(
            "the result was cut by a byte budget of {}, not this call's max_bytes {max_bytes}: \
             run the query with the call's paging arguments (PageArgs::limits), so that the \
             figures it states are the client's",
            budget.max()
        ));
    }
    let needed = budget.needed()?;
    let ceiling = policy.max_bytes_ceiling as u64;
    if !bounded.is_empty() || bounded.next_cursor().is_some() || needed <= ceiling {
        return None;
    }
    let asked = match page.max_bytes {
        Some(asked) if asked as u64 > ceiling => {
            format!(" (the {asked} asked for was lowered to it)")
        }
        _ => String::new(),
    };
    Some(format!(
        "no item fits: the next one needs max_bytes {needed}, more than this server's largest, \
         {ceiling}{asked}, so a larger max_bytes will not help: make the items smaller (long \
         lines are cut with a column limit, such as max_columns) or narrow the query"
    ))
}

/// Strict mode's error: `message`, then what was found (its disclosure
/// line and its JSON) when it fits `max_bytes`.
fn with_partial(
    message: &str,
    summary: &str,
    json: Result<String, Error>,
    max_bytes: usize,
) -> CallToolResult {
    let message =
        format!("{message}, so the result is an error: what was found is not all of the answer");
    if let Ok(json) = &json {
        let whole = CallToolResult::error(vec![
            ContentBlock::text(message.as_str()),
            ContentBlock::text(summary),
            ContentBlock::text(json.as_str()),
        ]);
        if size_of(&whole) <= max_bytes {
            return whole;
        }
    }
    let why = match json {
        Ok(json) => format!(
            "its JSON ({} bytes) does not fit max_bytes {max_bytes}",
            json.len()
        ),
        Err(e) => format!("it could not be encoded: {}", chain(&e)),
    };
    let text = format!("{message}. What was found is not shown: {why}. ({summary})");
    error_within(&text, max_bytes.min(ERROR_MAX))
}

/// What a source's error left, as `{"count", "next_cursor", "items"}`.
#[derive(Serialize)]
struct ReadBefore<'a, T> {
    count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    items: &'a [T],
}

/// A source's error, with the items read before it when they fit.
fn source_failed<T: Serialize, E: fmt::Display>(
    interrupted: &Interrupted<T, E>,
    max_bytes: usize,
) -> CallToolResult {
    let items = interrupted.items();
    let read = ReadBefore {
        count: items.len(),
        next_cursor: interrupted.next_cursor().map(ToString::to_string),
        items,
    };
    if !items.is_empty() {
        if let Ok(json) = serde_json::to_string(&read) {
            let resume = if read.next_cursor.is_some() {
                "; resume after them with next_cursor"
            } else {
                ""
            };
            let whole = CallToolResult::error(vec![
                ContentBlock::text(format!(
                    "{interrupted}; the items read before the error follow, a prefix of the \
                     answer, not all of it{resume}"
                )),
                ContentBlock::text(json),
            ]);
            if size_of(&whole) <= max_bytes {
                return whole;
            }
        }
    }
    let text = if items.is_empty() {
        interrupted.to_string()
    } else {
        format!(
            "{interrupted}; the items read before it do not fit max_bytes {max_bytes}: ask again"
        )
    };
    error_within(&text, max_bytes.min(ERROR_MAX))
}

/// The error and its causes, joined with `: `.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
