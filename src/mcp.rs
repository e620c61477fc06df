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

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{Bounded, Cursor, Error, ErrorKind, Limits};

/// Turns a result into an MCP tool result: `structuredContent` with the
/// wire shape, a text block with the one-line disclosure, and a text block
/// with exactly the JSON of `structuredContent`.
///
/// The JSON is [`Bounded::to_json`], which is what
/// [`Limits::max_bytes`] bounds. `noun` names the items in the disclosure
/// line ("matches", "callers").
///
/// # Example
///
/// ```
/// use candor::Limits;
/// let b = Limits::new().limit(2).collect(["main", "parse", "run"])?;
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
/// success, [`error_result`] on error. A strict-mode error
/// ([`ErrorKind::Incomplete`]) also carries what was found: a second text
/// block with its disclosure line and a third with its JSON
/// ([`Error::partial`]), marked as not all of the answer.
///
/// # Example
///
/// ```
/// use candor::Limits;
/// let strict = Limits::new().limit(2).strict(true).collect(0..5u32);
/// let result = candor::mcp::respond(strict, "numbers");
/// assert_eq!(result.is_error, Some(true));
/// assert_eq!(result.content.len(), 3);
/// let ok = candor::mcp::respond(Limits::new().collect(0..5u32), "numbers");
/// assert_eq!(ok.is_error, Some(false));
/// ```
pub fn respond<T: Serialize>(result: Result<Bounded<T>, Error>, noun: &str) -> CallToolResult {
    let error = match result {
        Ok(bounded) => return tool_result(&bounded, noun),
        Err(e) => e,
    };
    let partial = match (error.kind(), error.partial()) {
        (ErrorKind::Incomplete { .. }, Some(partial)) => partial,
        _ => return error_result(&error),
    };
    let json = partial
        .to_json()
        .unwrap_or_else(|e| format!("(the partial result could not be encoded: {e})"));
    CallToolResult::error(vec![
        ContentBlock::text(format!(
            "{}; strict mode was asked for, so the result is an error: what was found is \
             not all of the answer",
            chain(&error)
        )),
        ContentBlock::text(partial.summary(noun)),
        ContentBlock::text(json),
    ])
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

/// A server's paging policy: the largest limit a client may ask for, and
/// the limit and byte budget when the client gives none.
///
/// # Example
///
/// ```
/// use candor::mcp::{PageArgs, Policy};
/// let policy = Policy::new().ceiling(500).default_limit(50).default_max_bytes(32 * 1024);
/// let limits = PageArgs::default().limits(&policy);
/// assert_eq!(limits.applied_limit().limit(), Some(50));
/// assert_eq!(limits.applied_limit().requested(), None);
/// assert_eq!(limits.get_max_bytes(), Some(32 * 1024));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    ceiling: usize,
    default_limit: usize,
    default_max_bytes: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new()
    }
}

impl Policy {
    /// Ceiling 1000, default limit 100, default budget 64 KiB.
    ///
    /// # Example
    ///
    /// ```
    /// let limits = candor::mcp::PageArgs::default().limits(&candor::mcp::Policy::new());
    /// assert_eq!(limits.applied_limit().limit(), Some(100));
    /// assert_eq!(limits.applied_limit().requested(), None);
    /// ```
    #[must_use]
    pub fn new() -> Policy {
        Policy {
            ceiling: 1000,
            default_limit: 100,
            default_max_bytes: 64 * 1024,
        }
    }

    /// The largest `limit` a client may ask for; a larger one is clamped
    /// and the result says so. Default: 1000.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let args = PageArgs { limit: Some(10_000), ..PageArgs::default() };
    /// assert_eq!(args.limits(&Policy::new().ceiling(200)).applied_limit().limit(), Some(200));
    /// assert_eq!(args.limits(&Policy::new().ceiling(200)).applied_limit().requested(), Some(10_000));
    /// ```
    #[must_use]
    pub fn ceiling(mut self, ceiling: usize) -> Policy {
        self.ceiling = ceiling;
        self
    }

    /// The limit when the client gives none (never above the ceiling, so
    /// that no clamp is disclosed that the client did not ask for).
    /// Default: 100.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let limits = PageArgs::default().limits(&Policy::new().ceiling(20).default_limit(50));
    /// assert_eq!(limits.applied_limit().limit(), Some(20));
    /// assert_eq!(limits.applied_limit().requested(), None);
    /// ```
    #[must_use]
    pub fn default_limit(mut self, limit: usize) -> Policy {
        self.default_limit = limit;
        self
    }

    /// The byte budget of a response when the client gives none. Default:
    /// 64 KiB.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let limits = PageArgs::default().limits(&Policy::new().default_max_bytes(4096));
    /// assert_eq!(limits.get_max_bytes(), Some(4096));
    /// ```
    #[must_use]
    pub fn default_max_bytes(mut self, max_bytes: usize) -> Policy {
        self.default_max_bytes = max_bytes;
        self
    }
}

/// The paging arguments every bounded tool takes: `limit`, `cursor`,
/// `max_bytes`, `count_total` and `strict`.
///
/// Read them from a call's arguments with
/// [`from_arguments`](Self::from_arguments) (other arguments are left
/// alone), describe them in the tool's `inputSchema` with
/// [`schema_properties`](Self::schema_properties), and turn them into
/// [`Limits`] under the server's [`Policy`] with
/// [`limits`](Self::limits).
///
/// # Example
///
/// ```
/// use candor::mcp::{PageArgs, Policy};
/// let arguments = serde_json::json!({ "query": "flush", "limit": 5, "count_total": true });
/// let args = PageArgs::from_arguments(arguments.as_object().unwrap())?;
/// assert_eq!(args.limit, Some(5));
/// let b = args.limits(&Policy::new()).collect(0..20u32)?;
/// assert_eq!(b.total(), candor::Total::Exact(20));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageArgs {
    /// The most items to return.
    pub limit: Option<usize>,
    /// A `next_cursor` from an earlier result of the same query.
    pub cursor: Option<String>,
    /// The most bytes of the JSON result.
    pub max_bytes: Option<usize>,
    /// Count past the limit, so that the total is exact.
    #[serde(default)]
    pub count_total: bool,
    /// An error instead of an incomplete result.
    #[serde(default)]
    pub strict: bool,
}

impl PageArgs {
    /// The names of the paging arguments.
    pub const NAMES: [&'static str; 5] = ["limit", "cursor", "max_bytes", "count_total", "strict"];

    /// Reads the paging arguments from a call's arguments; other arguments
    /// are ignored, and `null` counts as absent.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming the argument when one has the
    /// wrong JSON type or is out of range.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::PageArgs;
    /// let bad = serde_json::json!({ "limit": "ten" });
    /// let err = PageArgs::from_arguments(bad.as_object().unwrap()).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid argument limit: must be a non-negative integer, got \"ten\"");
    /// ```
    pub fn from_arguments(arguments: &JsonObject) -> Result<PageArgs, Error> {
        let get = |name: &str| arguments.get(name).filter(|v| !v.is_null());
        let size = |name: &'static str| -> Result<Option<usize>, Error> {
            get(name)
                .map(|v| {
                    v.as_u64()
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(|| {
                            Error::invalid_argument(
                                name,
                                format!("must be a non-negative integer, got {v}"),
                            )
                        })
                })
                .transpose()
        };
        let flag = |name: &'static str| -> Result<bool, Error> {
            match get(name) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(v) => Err(Error::invalid_argument(
                    name,
                    format!("must be true or false, got {v}"),
                )),
            }
        };
        let cursor = match get("cursor") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => {
                return Err(Error::invalid_argument(
                    "cursor",
                    format!("must be a string, got {v}"),
                ));
            }
        };
        Ok(PageArgs {
            limit: size("limit")?,
            cursor,
            max_bytes: size("max_bytes")?,
            count_total: flag("count_total")?,
            strict: flag("strict")?,
        })
    }

    /// The JSON Schema properties of the paging arguments, to merge into a
    /// tool's `inputSchema`; the descriptions state the policy's defaults.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let props = PageArgs::schema_properties(&Policy::new());
    /// let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    /// names.sort_unstable();
    /// assert_eq!(names, ["count_total", "cursor", "limit", "max_bytes", "strict"]);
    /// ```
    #[must_use]
    pub fn schema_properties(policy: &Policy) -> JsonObject {
        let default_limit = policy.default_limit.min(policy.ceiling);
        let schema = json!({
            "limit": {
                "type": "integer",
                "minimum": 0,
                "description": format!(
                    "The most items to return. Default {default_limit}; at most {} (a larger value is clamped, and the result says so).",
                    policy.ceiling
                )
            },
            "cursor": {
                "type": "string",
                "description": "A next_cursor from an earlier result of this tool, to get the next page. Send the same query and options with it."
            },
            "max_bytes": {
                "type": "integer",
                "minimum": 1,
                "description": format!("The most bytes of the JSON result. Default {}.", policy.default_max_bytes)
            },
            "count_total": {
                "type": "boolean",
                "default": false,
                "description": "Keep counting past the limit, so that total is exact (relation \"eq\")."
            },
            "strict": {
                "type": "boolean",
                "default": false,
                "description": "Return an error instead of an incomplete result."
            }
        });
        match schema {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    /// A tool's `inputSchema`: `properties` (the tool's own) plus the
    /// paging arguments, `required` as given, no other arguments.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let own = serde_json::json!({ "symbol": { "type": "string" } });
    /// let schema = PageArgs::input_schema(own.as_object().unwrap().clone(), &["symbol"], &Policy::new());
    /// assert_eq!(schema["required"], serde_json::json!(["symbol"]));
    /// assert!(schema["properties"].get("cursor").is_some());
    /// ```
    #[must_use]
    pub fn input_schema(
        properties: JsonObject,
        required: &[&str],
        policy: &Policy,
    ) -> Arc<JsonObject> {
        let mut all = properties;
        all.extend(PageArgs::schema_properties(policy));
        let mut schema = JsonObject::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(all));
        schema.insert("required".into(), json!(required));
        schema.insert("additionalProperties".into(), json!(false));
        Arc::new(schema)
    }

    /// The [`Limits`] these arguments ask for under `policy`: the limit
    /// (or the policy's default) clamped to the ceiling, the byte budget
    /// (or the default), counting and strict mode.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let args = PageArgs { limit: Some(3), strict: true, ..PageArgs::default() };
    /// let limits = args.limits(&Policy::new());
    /// assert!(limits.get_strict());
    /// assert_eq!(limits.applied_limit().limit(), Some(3));
    /// assert_eq!(limits.applied_limit().requested(), None);
    /// ```
    #[must_use]
    pub fn limits(&self, policy: &Policy) -> Limits {
        // A default above a low ceiling would disclose a clamp the client
        // never asked for.
        let limit = self
            .limit
            .unwrap_or(policy.default_limit.min(policy.ceiling));
        Limits::new()
            .ceiling(policy.ceiling)
            .limit(limit)
            .max_bytes(self.max_bytes.unwrap_or(policy.default_max_bytes))
            .count_total(self.count_total)
            .strict(self.strict)
    }

    /// The cursor, parsed.
    ///
    /// # Errors
    ///
    /// The errors of [`Cursor::parse`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::PageArgs;
    /// assert!(PageArgs::default().cursor()?.is_none());
    /// let bad = PageArgs { cursor: Some("x".into()), ..PageArgs::default() };
    /// assert!(bad.cursor().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cursor(&self) -> Result<Option<Cursor>, Error> {
        self.cursor.as_deref().map(Cursor::parse).transpose()
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
