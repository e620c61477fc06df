//! A tool's paging arguments (`PageArgs`: limit, cursor, max_bytes,
//! count_total, strict), their JSON Schema, and the server's `Policy` that
//! turns them into `Limits`.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{Cursor, Error, Limits};

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
/// [`limits`](Self::limits); answer with [`respond`](Self::respond), which
/// honours `strict`.
///
/// # Example
///
/// ```
/// use candor::mcp::{PageArgs, Policy};
/// let arguments = serde_json::json!({ "query": "flush", "limit": 5, "count_total": true });
/// let args = PageArgs::from_arguments(arguments.as_object().unwrap())?;
/// assert_eq!(args.limit, Some(5));
/// let b = candor::Bounded::collect(0..20u32, &args.limits(&Policy::new()))?;
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
    /// An error instead of an incomplete result (see
    /// [`respond`](Self::respond)).
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
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) naming the argument when one has the
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
    /// (or the default) and counting. `strict` is not a limit: see
    /// [`respond`](Self::respond).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::mcp::{PageArgs, Policy};
    /// let args = PageArgs { limit: Some(3), count_total: true, ..PageArgs::default() };
    /// let limits = args.limits(&Policy::new());
    /// assert!(limits.get_count_total());
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
