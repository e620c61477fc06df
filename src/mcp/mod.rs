//! MCP tool results from `Bounded<T>`, and the paging arguments of a tool
//! (feature `mcp`, on the official SDK `rmcp`).
//!
//! A tool result carries the wire shape in `structuredContent` and two
//! text blocks: first the one-line disclosure (some clients read only the
//! text), then exactly the JSON of `structuredContent` (the MCP mirror for
//! older clients). A candor error is a tool error (`isError: true`) whose
//! text names what was wrong. The tool's `outputSchema` is
//! [`envelope_schema`](crate::envelope_schema) of its item schema.
//!
//! # Key order in `structuredContent`
//!
//! `structuredContent` is a `serde_json::Value`. Its keys keep the wire
//! order (disclosure first, `items` last) only when serde_json's
//! `preserve_order` feature is on in the build; without it they are
//! sorted. The second text block is the exact wire JSON either way. This
//! module does not turn `preserve_order` on for you, as it would change
//! every `serde_json::Map` in your program.

mod args;

pub use args::{PageArgs, Policy};

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde::Serialize;
use serde_json::Value;

use crate::{Bounded, Error};

/// Turns a result into an MCP tool result: `structuredContent` with the
/// wire shape, a text block with the one-line disclosure, and a text block
/// with exactly the JSON of `structuredContent`.
///
/// The JSON is [`Bounded::to_json`], which is what
/// [`Limits::max_bytes`](crate::Limits::max_bytes) bounds. `noun` names the items in the disclosure
/// line ("matches", "callers").
///
/// # Example
///
/// ```
/// use candor::{Bounded, Limits};
/// let b = Bounded::collect(["main", "parse", "run"], &Limits::new().limit(2))?;
/// let result = candor::mcp::tool_result(&b, "callers");
/// assert_eq!(result.is_error, Some(false));
/// let texts: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
/// assert_eq!(texts[0], b.summary("callers"));
/// let mirrored: serde_json::Value = serde_json::from_str(texts[1])?;
/// assert_eq!(Some(mirrored), result.structured_content);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tool_result<T: Serialize>(result: &Bounded<T>, noun: &str) -> CallToolResult {
    let json = match result.to_json() {
        Ok(json) => json,
        Err(e) => return error_result(&e),
    };
    let structured: Value = match serde_json::from_str(&json) {
        Ok(value) => value,
        Err(e) => {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "cannot re-read the result as JSON: {e}"
            ))]);
        }
    };
    let mut answer = CallToolResult::success(vec![
        ContentBlock::text(result.summary(noun)),
        ContentBlock::text(json),
    ]);
    answer.structured_content = Some(structured);
    answer
}

/// A tool error (`isError: true`) whose text is the error's message and
/// its causes.
///
/// # Example
///
/// ```
/// let err = candor::Cursor::parse("not a cursor!").unwrap_err();
/// let result = candor::mcp::error_result(&err);
/// assert_eq!(result.is_error, Some(true));
/// let text = &result.content[0].as_text().unwrap().text;
/// assert!(text.starts_with("malformed cursor"));
/// ```
pub fn error_result(error: &(dyn std::error::Error + 'static)) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(chain(error))])
}

/// Turns a query's outcome into a tool result: [`tool_result`] on
/// success, [`error_result`] on error. (For a tool's `strict` argument,
/// see [`PageArgs::respond`].)
///
/// # Example
///
/// ```
/// use candor::{Bounded, Limits};
/// let ok = candor::mcp::respond(Bounded::collect(0..5u32, &Limits::new()), "numbers");
/// assert_eq!(ok.is_error, Some(false));
/// let err = candor::mcp::respond(Bounded::collect(0..5u32, &Limits::new().max_bytes(5)), "numbers");
/// assert_eq!(err.is_error, Some(true));
/// ```
pub fn respond<T: Serialize>(result: Result<Bounded<T>, Error>, noun: &str) -> CallToolResult {
    match result {
        Ok(bounded) => tool_result(&bounded, noun),
        Err(e) => error_result(&e),
    }
}

impl PageArgs {
    /// Turns the outcome of a query made with these arguments into a tool
    /// result, as [`respond`] does, honouring `strict`: with it, a result
    /// that is not complete (one that [`Bounded::into_exact`] refuses) is
    /// a tool error that still carries what was found, in a second text
    /// block with its disclosure line and a third with its JSON.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Limits};
    /// use candor::mcp::PageArgs;
    /// let strict = PageArgs { strict: true, ..PageArgs::default() };
    /// let result = strict.respond(Bounded::collect(0..5u32, &Limits::new().limit(2)), "numbers");
    /// assert_eq!(result.is_error, Some(true));
    /// assert_eq!(result.content.len(), 3);
    /// let whole = strict.respond(Bounded::collect(0..5u32, &Limits::new()), "numbers");
    /// assert_eq!(whole.is_error, Some(false));
    /// ```
    pub fn respond<T: Serialize>(
        &self,
        result: Result<Bounded<T>, Error>,
        noun: &str,
    ) -> CallToolResult {
        let bounded = match result {
            Ok(bounded) => bounded,
            Err(e) => return error_result(&e),
        };
        // What `into_exact` would refuse.
        if !self.strict || bounded.is_complete() {
            return tool_result(&bounded, noun);
        }
        let json = bounded
            .to_json()
            .unwrap_or_else(|e| format!("(the partial result could not be encoded: {e})"));
        CallToolResult::error(vec![
            ContentBlock::text(format!(
                "incomplete result in strict mode: {}; strict mode was asked for, so the result \
                 is an error: what was found is not all of the answer",
                crate::summary::incomplete_summary(bounded.disclosure(), bounded.len())
            )),
            ContentBlock::text(bounded.summary(noun)),
            ContentBlock::text(json),
        ])
    }
}

/// The `outputSchema` of a tool answering `Bounded` items of
/// `item_schema`: [`envelope_schema`](crate::envelope_schema) as an MCP
/// JSON object.
///
/// # Example
///
/// ```
/// let schema = candor::mcp::output_schema(serde_json::json!({ "type": "string" }));
/// assert_eq!(schema.get("type"), Some(&serde_json::json!("object")));
/// ```
#[must_use]
pub fn output_schema(item_schema: Value) -> Arc<JsonObject> {
    match crate::envelope_schema(item_schema) {
        Value::Object(map) => Arc::new(map),
        other => {
            let mut map = JsonObject::new();
            map.insert("allOf".into(), Value::Array(vec![other]));
            Arc::new(map)
        }
    }
}

/// A read-only tool that answers `Bounded` items of `item_schema`: its
/// `outputSchema` is the envelope's, and it is annotated read-only,
/// idempotent and closed-world.
///
/// # Example
///
/// ```
/// use candor::mcp::{PageArgs, Policy, bounded_tool};
/// let input = PageArgs::input_schema(Default::default(), &[], &Policy::new());
/// let tool = bounded_tool("list_files", "List the files.", input, serde_json::json!({ "type": "string" }));
/// assert!(tool.output_schema.is_some());
/// ```
#[must_use]
pub fn bounded_tool(
    name: &'static str,
    description: impl Into<String>,
    input_schema: Arc<JsonObject>,
    item_schema: Value,
) -> Tool {
    Tool::new(name, description.into(), input_schema)
        .with_raw_output_schema(output_schema(item_schema))
        .with_annotations(
            rmcp::model::ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
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
