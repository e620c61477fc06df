//! A tool's paging arguments (`PageArgs`: limit, cursor, max_bytes,
//! count_total, strict): read from a call, described in a schema, and
//! turned into `Limits` under the server's `Policy`.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::JsonObject;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};

use super::argument_checks::{flag, known_only, size, string, within_bounds};
use super::budget::enclosing;
use super::policy::Policy;
use candor::{Cursor, Error, Limits};

/// The paging arguments every bounded tool takes: `limit`, `cursor`,
/// `max_bytes`, `count_total` and `strict`.
///
/// Read them from a call's arguments with
/// [`from_arguments`](Self::from_arguments), describe them in the tool's
/// `inputSchema` with [`input_schema`](Self::input_schema), and turn them
/// into [`Limits`] under the server's [`Policy`] with
/// [`limits`](Self::limits); [`budget`](Self::budget) is the `max_bytes`
/// to answer within; [`respond`](super::respond) answers within it and
/// honours `strict`.
///
/// With rmcp's `#[tool]` macros, flatten them into the tool's parameters
/// (`#[serde(flatten)] page: PageArgs`): `PageArgs` implements
/// `schemars::JsonSchema` and `Deserialize`, with the checks of
/// `from_arguments` but for unknown arguments, which serde cannot refuse
/// through a flattened field.
///
/// # Example
///
/// ```
/// use candor_mcp::{PageArgs, Policy};
/// let schema = PageArgs::input_schema(Default::default(), &[], &Policy::new());
/// let arguments = serde_json::json!({ "limit": 5, "count_total": true });
/// let args = PageArgs::from_arguments(arguments.as_object().unwrap(), &schema)?;
/// assert_eq!(args.limit, Some(5));
/// let b = candor::Bounded::collect(0..20u32, &args.limits(&Policy::new()))?;
/// assert_eq!(b.total(), candor::Total::Exact(20));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageArgs {
    /// The most items to return.
    pub limit: Option<usize>,
    /// A `next_cursor` from an earlier result of the same query.
    pub cursor: Option<String>,
    /// The most bytes of the whole tool result.
    pub max_bytes: Option<usize>,
    /// Count past the limit, so that the total is exact.
    pub count_total: bool,
    /// An error instead of an incomplete result (see
    /// [`respond`](super::respond)).
    pub strict: bool,
}

impl PageArgs {
    /// The names of the paging arguments.
    pub const NAMES: [&'static str; 5] = ["limit", "cursor", "max_bytes", "count_total", "strict"];

    /// Reads the paging arguments from a call's arguments; `null` counts
    /// as absent, and a tool's own arguments are left to it.
    ///
    /// When `input_schema` (the tool's, as [`input_schema`](Self::input_schema)
    /// makes it) declares `additionalProperties: false`, an argument its
    /// `properties` do not name is refused. `limit` and `max_bytes` take
    /// any JSON integer, `10.0` included.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](candor::ErrorKind::InvalidArgument)
    /// naming the argument when one has the wrong JSON type or is out of
    /// range, or naming `arguments` when one is unknown.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let schema = PageArgs::input_schema(Default::default(), &[], &Policy::new());
    /// let bad = serde_json::json!({ "limit": "ten" });
    /// let err = PageArgs::from_arguments(bad.as_object().unwrap(), &schema).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid argument limit: must be a non-negative integer, got \"ten\"");
    /// let misspelled = serde_json::json!({ "limt": 10 });
    /// let err = PageArgs::from_arguments(misspelled.as_object().unwrap(), &schema).unwrap_err();
    /// assert!(err.to_string().contains("unknown argument \"limt\" (did you mean \"limit\"?)"));
    /// ```
    pub fn from_arguments(
        arguments: &JsonObject,
        input_schema: &JsonObject,
    ) -> Result<PageArgs, Error> {
        known_only(arguments, input_schema)?;
        let get = |name: &str| arguments.get(name).filter(|v| !v.is_null());
        let page = PageArgs::from_values([
            get("limit"),
            get("cursor"),
            get("max_bytes"),
            get("count_total"),
            get("strict"),
        ])?;
        // Of the right types: now within the schema's bounds.
        within_bounds(arguments, input_schema, &PageArgs::NAMES)?;
        Ok(page)
    }

    /// The arguments from their values, in the order of [`NAMES`](Self::NAMES).
    fn from_values(values: [Option<&Value>; 5]) -> Result<PageArgs, Error> {
        let [limit, cursor, max_bytes, count_total, strict] = values;
        Ok(PageArgs {
            limit: limit.map(|v| size("limit", v)).transpose()?,
            cursor: cursor.map(|v| string("cursor", v)).transpose()?,
            max_bytes: max_bytes.map(|v| size("max_bytes", v)).transpose()?,
            count_total: count_total.map(|v| flag("count_total", v)).transpose()? == Some(true),
            strict: strict.map(|v| flag("strict", v)).transpose()? == Some(true),
        })
    }

    /// The JSON Schema properties of the paging arguments, to merge into a
    /// tool's `inputSchema`; the descriptions state the policy's defaults
    /// and ceilings.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let props = PageArgs::schema_properties(&Policy::new());
    /// let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    /// names.sort_unstable();
    /// assert_eq!(names, ["count_total", "cursor", "limit", "max_bytes", "strict"]);
    /// ```
    #[must_use]
    pub fn schema_properties(policy: &Policy) -> JsonObject {
        properties(Some(policy))
    }

    /// A tool's `inputSchema`: `properties` (the tool's own) plus the
    /// paging arguments, `required` as given, no other arguments.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let own = serde_json::json!({ "symbol": { "type": "string" } });
    /// let schema = PageArgs::input_schema(own.as_object().unwrap().clone(), &["symbol"], &Policy::new());
    /// assert_eq!(schema["required"], serde_json::json!(["symbol"]));
    /// assert_eq!(schema["additionalProperties"], serde_json::json!(false));
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

    /// The byte budget of the whole tool result these arguments ask for
    /// under `policy`: `max_bytes` (or the policy's default), lowered to
    /// the policy's [`max_bytes_ceiling`](Policy::max_bytes_ceiling). Pass
    /// it to [`respond`](super::respond).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy};
    /// let args = PageArgs { max_bytes: Some(8192), ..PageArgs::default() };
    /// assert_eq!(args.budget(&Policy::new()), 8192);
    /// assert_eq!(PageArgs::default().budget(&Policy::new()), 64 * 1024);
    /// ```
    #[must_use]
    pub fn budget(&self, policy: &Policy) -> usize {
        self.max_bytes
            .unwrap_or_else(|| policy.max_bytes_by_default())
            .min(policy.max_bytes_ceiling)
    }

    /// The [`Limits`] these arguments ask for under `policy`: the limit
    /// (or the policy's default) clamped to the ceiling, the
    /// [`budget`](Self::budget) of the whole tool result
    /// ([`Limits::enclosing`], with [`enclosing`](super::enclosing)): the
    /// JSON gets its share ([`json_budget`](super::json_budget)), and the
    /// figures a page states are in bytes of the whole tool result), and
    /// counting (within the policy's bound). `strict` is not a limit: see
    /// [`respond`](super::respond).
    ///
    /// # Example
    ///
    /// ```
    /// use candor_mcp::{PageArgs, Policy, enclosing, json_budget};
    /// let args = PageArgs { limit: Some(3), max_bytes: Some(8192), count_total: true, ..PageArgs::default() };
    /// let limits = args.limits(&Policy::new());
    /// assert!(limits.get_count_total());
    /// assert_eq!(limits.applied_limit().limit(), Some(3));
    /// assert_eq!(limits.applied_limit().requested(), None);
    /// assert_eq!(limits.get_max_bytes(), Some(json_budget(8192)));
    /// assert_eq!(limits.get_enclosing(), Some(enclosing(8192)));
    /// ```
    #[must_use]
    pub fn limits(&self, policy: &Policy) -> Limits {
        let limits = Limits::new()
            .ceiling(policy.ceiling)
            .limit(self.limit.unwrap_or_else(|| policy.limit_by_default()))
            .enclosing(enclosing(self.budget(policy)))
            .count_total(self.count_total);
        match policy.max_counted {
            Some(n) => limits.max_counted(n),
            None => limits,
        }
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
    /// use candor_mcp::PageArgs;
    /// assert!(PageArgs::default().cursor()?.is_none());
    /// let bad = PageArgs { cursor: Some("x".into()), ..PageArgs::default() };
    /// assert!(bad.cursor().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cursor(&self) -> Result<Option<Cursor>, Error> {
        self.cursor.as_deref().map(Cursor::parse).transpose()
    }
}

/// The paging arguments' schema properties; without a policy the
/// descriptions leave the defaults and ceilings to the server.
fn properties(policy: Option<&Policy>) -> JsonObject {
    let (limit, max_bytes, counted) = match policy {
        Some(p) => (
            format!(
                " Default {}; at most {} (a larger value is clamped, and the result says so).",
                p.limit_by_default(),
                p.ceiling
            ),
            format!(
                " Default {}; at most {} (a larger value is lowered to it).",
                p.max_bytes_by_default(),
                p.max_bytes_ceiling
            ),
            p.max_counted
                .map(|n| format!(" Counts at most {n} items; past that, total stays a lower bound."))
                .unwrap_or_default(),
        ),
        None => (
            " The server sets the default and the most it allows (a larger value is clamped, and the result says so).".to_owned(),
            " The server sets the default and the most it allows.".to_owned(),
            String::new(),
        ),
    };
    let schema = json!({
        "limit": {
            "type": "integer",
            "minimum": 0,
            "description": format!("The most items to return.{limit}")
        },
        "cursor": {
            "type": "string",
            "description": "A next_cursor from an earlier result of this tool, to get the next page. Send the same query with it; limit, max_bytes and count_total may change from page to page."
        },
        "max_bytes": {
            "type": "integer",
            "minimum": 1,
            "description": format!(
                "The most bytes of the whole tool result as sent: every content block and structuredContent. The JSON of the result is sent twice (structuredContent, and a text block that mirrors it, escaped) beside a summary line, so it gets (max_bytes - 672) / 3 bytes: 776 of 3000. The figures a result states (truncation.max, used, needed) count bytes of the whole tool result, as max_bytes does: ask again with needed to get a page that holds the next item.{max_bytes}"
            )
        },
        "count_total": {
            "type": "boolean",
            "default": false,
            "description": format!("Keep counting past the limit, so that total is exact (relation \"eq\").{counted}")
        },
        "strict": {
            "type": "boolean",
            "default": false,
            "description": "Return an error instead of an incomplete result; the error still carries what was found. With limit 0, any item makes the result incomplete (none is listed): for a count alone, leave strict out and read total."
        }
    });
    match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The schema of the paging arguments, for a tool's parameters built with
/// schemars (rmcp's `#[tool]`): an object whose properties flatten into
/// the parameters' own.
impl schemars::JsonSchema for PageArgs {
    fn schema_name() -> Cow<'static, str> {
        "PageArgs".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "candor_mcp::PageArgs".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(properties(None)));
        schemars::Schema::from(schema)
    }
}

/// The paging arguments as serde reads them: each a JSON value, checked
/// as [`PageArgs::from_arguments`] checks it.
#[derive(Deserialize)]
struct Values {
    limit: Option<Value>,
    cursor: Option<Value>,
    max_bytes: Option<Value>,
    count_total: Option<Value>,
    strict: Option<Value>,
}

impl<'de> Deserialize<'de> for PageArgs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Values::deserialize(deserializer)?;
        PageArgs::from_values([
            v.limit.as_ref(),
            v.cursor.as_ref(),
            v.max_bytes.as_ref(),
            v.count_total.as_ref(),
            v.strict.as_ref(),
        ])
        .map_err(serde::de::Error::custom)
    }
}
