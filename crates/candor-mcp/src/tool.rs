//! A bounded tool's description: its `outputSchema` (the envelope of its
//! items) and its annotations.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

/// The `outputSchema` of a tool answering `Bounded` items of
/// `item_schema`: [`envelope_schema`](candor::envelope_schema) as an MCP
/// JSON object.
///
/// # Example
///
/// ```
/// let schema = candor_mcp::output_schema(serde_json::json!({ "type": "string" }));
/// assert_eq!(schema.get("type"), Some(&serde_json::json!("object")));
/// ```
#[must_use]
pub fn output_schema(item_schema: Value) -> Arc<JsonObject> {
    match candor::envelope_schema(item_schema) {
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
/// use candor_mcp::{PageArgs, Policy, bounded_tool};
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
