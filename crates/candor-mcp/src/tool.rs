//! A bounded tool's description: its `outputSchema` (the envelope of its
//! items) and its annotations.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;
use serde_json::Value;

/// The `outputSchema` of a tool answering `Bounded<T>`: the wire shape's
/// schema ([`envelope_schema`](candor::envelope_schema)) around `T`'s, as
/// serialized (`schemars`' schema for what `T` writes), as an MCP JSON
/// object.
///
/// The items of candor's search (`candor_search::Match`, `Line`,
/// `FileCount`, with its `schemars` feature) implement `JsonSchema`.
///
/// # Example
///
/// ```
/// let schema = candor_mcp::output_schema::<String>();
/// assert_eq!(schema.get("type"), Some(&serde_json::json!("object")));
/// assert_eq!(schema["properties"]["items"]["items"]["type"], "string");
/// ```
#[must_use]
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let item = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut item = serde_json::to_value(item).unwrap_or(Value::Bool(true));
    drop_integer_formats(&mut item);
    match candor::envelope_schema(item) {
        Value::Object(map) => Arc::new(map),
        other => {
            let mut map = JsonObject::new();
            map.insert("allOf".into(), Value::Array(vec![other]));
            Arc::new(map)
        }
    }
}

/// A read-only tool that answers `Bounded<T>`: its `outputSchema` is
/// [`output_schema::<T>()`](output_schema), and it is annotated
/// read-only, idempotent and closed-world. The input schema is
/// [`Parameters::<A>::input_schema()`](super::Parameters::input_schema)
/// for arguments `A`.
///
/// # Example
///
/// ```
/// use candor_mcp::{PageArgs, Parameters, bounded_tool};
/// let input = Parameters::<PageArgs>::input_schema();
/// let tool = bounded_tool::<String>("list_files", "List the files.", input);
/// assert!(tool.output_schema.is_some());
/// ```
#[must_use]
pub fn bounded_tool<T: JsonSchema>(
    name: &'static str,
    description: impl Into<String>,
    input_schema: Arc<JsonObject>,
) -> Tool {
    Tool::new(name, description.into(), input_schema)
        .with_raw_output_schema(output_schema::<T>())
        .with_annotations(
            rmcp::model::ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
}

/// Removes the `format`s schemars gives Rust's integers (`uint64`,
/// `int32`, ...): they are not JSON Schema's, and validators warn about
/// each one they meet (the bounds stay, as `minimum` and `maximum`).
fn drop_integer_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let rust_integer = map.get("format").and_then(Value::as_str).is_some_and(|f| {
                matches!(
                    f,
                    "uint"
                        | "int"
                        | "uint8"
                        | "uint16"
                        | "uint32"
                        | "uint64"
                        | "uint128"
                        | "int8"
                        | "int16"
                        | "int32"
                        | "int64"
                        | "int128"
                )
            });
            if rust_integer {
                map.remove("format");
            }
            map.values_mut().for_each(drop_integer_formats);
        }
        Value::Array(values) => values.iter_mut().for_each(drop_integer_formats),
        _ => {}
    }
}
