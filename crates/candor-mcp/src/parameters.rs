//! `Parameters<T>`: a tool's arguments, checked against its input schema
//! (no argument the schema does not name) before they are read, in place
//! of rmcp's own `Parameters<T>`.

use std::sync::Arc;

use rmcp::handler::server::common::{FromContextPart, schema_for_input};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::argument_checks::{known_only, within_bounds};
use super::page_args::PageArgs;
use candor::Error;

/// A tool's arguments, `T`, read only after every argument was checked
/// against the tool's input schema: a misspelled argument (`limt`) is an
/// invalid-argument error that names it and the one it likely meant,
/// never silently ignored.
///
/// Use it in place of rmcp's `Parameters<T>` in a `#[tool]` function: the
/// macros find it by its name, so the tool's `inputSchema` is `T`'s with
/// `additionalProperties: false`, and the call's arguments are checked
/// against it before `T` is deserialized. serde's `deny_unknown_fields`
/// cannot do this for a `T` that flattens [`PageArgs`](super::PageArgs)
/// (`#[serde(flatten)] page: PageArgs`), which every paged tool does. A
/// server without the macros reads its arguments with
/// [`from_arguments`](Parameters::from_arguments), through the same
/// checks.
///
/// # Example
///
/// ```
/// use candor_mcp::{PageArgs, Parameters};
///
/// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
/// struct Search {
///     /// What to look for.
///     query: String,
///     #[serde(flatten)]
///     page: PageArgs,
/// }
///
/// let schema = Parameters::<Search>::input_schema();
/// assert_eq!(schema["additionalProperties"], serde_json::json!(false));
/// let ok = serde_json::json!({ "query": "flush", "limit": 5 });
/// let Parameters(search) = Parameters::<Search>::from_arguments(ok.as_object().unwrap().clone())?;
/// assert_eq!((search.query.as_str(), search.page.limit), ("flush", Some(5)));
/// let misspelled = serde_json::json!({ "query": "flush", "limt": 5 });
/// let err = Parameters::<Search>::from_arguments(misspelled.as_object().unwrap().clone()).unwrap_err();
/// assert!(err.to_string().contains("unknown argument \"limt\" (did you mean \"limit\"?)"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameters<T>(pub T);

impl<T: JsonSchema> JsonSchema for Parameters<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = T::json_schema(generator);
        // No argument beyond those the schema names: a client that checks
        // its calls against the schema refuses a misspelled one itself.
        schema.insert("additionalProperties".into(), Value::Bool(false));
        schema
    }
}

impl<T: JsonSchema + DeserializeOwned + 'static> Parameters<T> {
    /// The tool's `inputSchema`: `T`'s, with `additionalProperties: false`
    /// (what rmcp's macros give a `#[tool]` function taking
    /// `Parameters<T>`).
    ///
    /// # Panics
    ///
    /// When `T`'s schema is not an object's: MCP wants a tool's arguments
    /// to be a JSON object, so such a `T` is a programming error, found the
    /// first time the tool is described.
    ///
    /// # Example
    ///
    /// ```
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Path {
    ///     path: String,
    /// }
    /// let schema = candor_mcp::Parameters::<Path>::input_schema();
    /// assert_eq!(schema["required"], serde_json::json!(["path"]));
    /// ```
    #[must_use]
    pub fn input_schema() -> Arc<JsonObject> {
        schema_for_input::<Parameters<T>>()
            .unwrap_or_else(|e| panic!("the arguments of a tool are an object: {e}"))
    }

    /// Reads a call's `arguments`: each one must be named by the input
    /// schema, and then they must deserialize as `T`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](candor::ErrorKind::InvalidArgument)
    /// naming the argument at fault (an unknown one, with the name it
    /// likely meant; one of the wrong type or out of range), or naming
    /// `arguments` when serde's message names none.
    ///
    /// # Example
    ///
    /// ```
    /// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    /// struct Depth {
    ///     max_depth: Option<u32>,
    /// }
    /// let bad = serde_json::json!({ "max_depth": "deep" });
    /// let err = candor_mcp::Parameters::<Depth>::from_arguments(bad.as_object().unwrap().clone());
    /// assert!(err.unwrap_err().to_string().starts_with("invalid argument arguments: max_depth: invalid type"));
    /// ```
    pub fn from_arguments(arguments: JsonObject) -> Result<Parameters<T>, Error> {
        let schema = Parameters::<T>::input_schema();
        known_only(&arguments, &schema)?;
        // Of the right types, then within the schema's bounds.
        let checked = serde_path_to_error::deserialize(&arguments)
            .map(Parameters)
            .map_err(|e| {
                let path = e.path().to_string();
                argument_error(&path, &e.into_inner().to_string())
            })?;
        within_bounds(&arguments, &schema, &PageArgs::NAMES)?;
        Ok(checked)
    }
}

/// serde's message about the argument at `path` as an invalid-argument
/// error: a paging argument's names itself (`invalid argument limit:
/// ...`, carried through serde); any other names `arguments`, and says
/// which one first (`mode: unknown variant ...`).
fn argument_error(path: &str, message: &str) -> Error {
    for name in PageArgs::NAMES {
        let own = message
            .strip_prefix("invalid argument ")
            .and_then(|rest| rest.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix(": "));
        if let Some(reason) = own {
            return Error::invalid_argument(name, reason);
        }
    }
    match path {
        "" | "." => Error::invalid_argument("arguments", message),
        path => Error::invalid_argument("arguments", format!("{path}: {message}")),
    }
}

impl<S, T> FromContextPart<ToolCallContext<'_, S>> for Parameters<T>
where
    T: JsonSchema + DeserializeOwned + 'static,
{
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        Parameters::from_arguments(arguments)
            .map_err(|e| rmcp::ErrorData::invalid_params(e.to_string(), None))
    }
}
