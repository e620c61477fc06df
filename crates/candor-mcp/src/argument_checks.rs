//! Reading one argument of a tool call: its value checked against the
//! type its schema gives, and the arguments the schema does not name,
//! with errors worded like candor's own.

use rmcp::model::JsonObject;
use serde_json::Value;

use candor::Error;

/// An invalid-argument error for a tool's own argument, worded like
/// candor's errors for the paging arguments: "invalid argument `name`:
/// `reason`". Answer it with [`respond`](super::respond) or
/// [`error_result`](super::error_result).
///
/// # Example
///
/// ```
/// use candor::ErrorKind;
/// let err = candor_mcp::invalid_argument("mode", "must be \"literal\" or \"regex\", got \"glob\"");
/// assert!(matches!(err.kind(), ErrorKind::InvalidArgument { name: "mode", .. }));
/// assert_eq!(err.to_string(), "invalid argument mode: must be \"literal\" or \"regex\", got \"glob\"");
/// ```
pub fn invalid_argument(name: &'static str, reason: impl Into<String>) -> Error {
    Error::invalid_argument(name, reason)
}

/// The most characters of a value quoted in an error: a value can be as
/// long as the request.
const SHOWN: usize = 64;

/// `value` as JSON, cut to [`SHOWN`] characters.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()),
        None => text,
    }
}

/// A count (`limit`, `max_bytes`): what JSON Schema calls a non-negative
/// integer, `10.0` included.
pub(super) fn size(name: &'static str, value: &Value) -> Result<usize, Error> {
    let whole = match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            // Below 2^64, the first f64 past u64::MAX.
            let f = n.as_f64()?;
            (f.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&f))
                .then_some(f as u64)
        }),
        _ => None,
    };
    whole.and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
        invalid_argument(
            name,
            format!("must be a non-negative integer, got {}", shown(value)),
        )
    })
}

/// A switch (`count_total`, `strict`).
pub(super) fn flag(name: &'static str, value: &Value) -> Result<bool, Error> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(invalid_argument(
            name,
            format!("must be true or false, got {}", shown(other)),
        )),
    }
}

/// A string (`cursor`).
pub(super) fn string(name: &'static str, value: &Value) -> Result<String, Error> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => Err(invalid_argument(
            name,
            format!("must be a string, got {}", shown(other)),
        )),
    }
}

/// Refuses an argument that `input_schema` does not name when it declares
/// `additionalProperties: false`; the error names it, the closest known
/// name when one is close, and every known name.
pub(super) fn known_only(arguments: &JsonObject, input_schema: &JsonObject) -> Result<(), Error> {
    if input_schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Ok(());
    }
    let known = input_schema.get("properties").and_then(Value::as_object);
    let is_known = |name: &str| known.is_some_and(|k| k.contains_key(name));
    let Some(unknown) = arguments.keys().find(|name| !is_known(name)) else {
        return Ok(());
    };
    let mut names: Vec<&str> = known
        .map(|k| k.keys().map(String::as_str).collect())
        .unwrap_or_default();
    names.sort_unstable();
    let unknown_shown = shown(&Value::String(unknown.clone()));
    let hint = closest(unknown, &names)
        .map(|near| format!(" (did you mean \"{near}\"?)"))
        .unwrap_or_default();
    Err(invalid_argument(
        "arguments",
        format!(
            "unknown argument {unknown_shown}{hint}; the arguments are: {}",
            names.join(", ")
        ),
    ))
}

/// Checks each number among `arguments` against the `minimum` and
/// `maximum` its property in `input_schema` states: the schema a client
/// reads promises them, and deserializing would let a number out of them
/// through (`deadline_ms: 0` where the schema says at least 1).
///
/// An argument named in `own` (the paging arguments) names itself in the
/// error, as its other errors do; another is named in the text.
pub(super) fn within_bounds(
    arguments: &JsonObject,
    input_schema: &JsonObject,
    own: &[&'static str],
) -> Result<(), Error> {
    let Some(properties) = input_schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, value) in arguments {
        let (Some(number), Some(property)) = (value.as_f64(), properties.get(name)) else {
            continue;
        };
        let bound = |key: &str| property.get(key).and_then(Value::as_f64);
        let broken = match (bound("minimum"), bound("maximum")) {
            (Some(min), _) if number < min => Some(format!("must be at least {min}")),
            (_, Some(max)) if number > max => Some(format!("must be at most {max}")),
            _ => None,
        };
        if let Some(reason) = broken {
            if let Some(own) = own.iter().find(|n| **n == name) {
                return Err(invalid_argument(
                    own,
                    format!("{reason}, got {}", shown(value)),
                ));
            }
            let name_shown = shown(&Value::String(name.clone()));
            return Err(invalid_argument(
                "arguments",
                format!("{name_shown}: {reason}, got {}", shown(value)),
            ));
        }
    }
    Ok(())
}

/// The known name at most two edits from `name` (the first of the
/// closest), if any.
fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    // A name much longer than any known one is no misspelling of it.
    if name.len() > 64 {
        return None;
    }
    known
        .iter()
        .map(|k| (edits(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance between `a` and `b`, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_are_what_json_schema_calls_integers() {
        for (value, expected) in [
            (json!(10), Some(10)),
            (json!(10.0), Some(10)),
            (json!(0), Some(0)),
            (json!(-0.0), Some(0)),
            (json!(1e3), Some(1000)),
            (json!(10.5), None),
            (json!(-1), None),
            (json!(-1.0), None),
            (json!(1e300), None),
            (json!("10"), None),
            (json!(true), None),
        ] {
            assert_eq!(size("limit", &value).ok(), expected, "{value}");
        }
    }

    #[test]
    fn edits_count_insertions_deletions_and_substitutions() {
        for (a, b, d) in [
            ("limt", "limit", 1),
            ("limit", "limit", 0),
            ("", "abc", 3),
            ("max_byte", "max_bytes", 1),
            ("cursr", "cursor", 1),
            ("kitten", "sitting", 3),
        ] {
            assert_eq!(edits(a, b), d, "{a} {b}");
            assert_eq!(edits(b, a), d, "{b} {a}");
        }
    }

    #[test]
    fn a_long_value_is_cut_in_an_error() {
        let long = Value::String("x".repeat(1 << 20));
        let message = size("limit", &long).unwrap_err().to_string();
        assert!(message.len() < 200, "{}", message.len());
        assert!(
            message.ends_with(&format!("({} bytes)", (1 << 20) + 2)),
            "{message}"
        );
    }
}
