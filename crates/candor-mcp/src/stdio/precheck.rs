//! The JSON-RPC answers to lines the SDK would leave unanswered or
//! misread: a line that is not JSON, and a `tools/call` whose `params` or
//! `arguments` is not an object.

use serde_json::{Value, json};

use super::line::IdScan;

/// JSON-RPC's parse error (-32700), answered to the request's id when the
/// line's top-level `"id"` can be read before the line stops being JSON
/// (or only serde_json refuses it: nested too deep, a number out of
/// range, a lone surrogate), so that the client waiting for that id gets
/// its answer; else to `null`, as JSON-RPC has it.
pub(super) fn parse_error(line: &[u8], why: &str) -> Value {
    let mut scan = IdScan::new();
    scan.feed(line);
    rpc_error(scan.id(), -32700, format!("parse error: {why}"))
}

/// JSON-RPC's invalid request (-32600) for a line longer than the cap.
pub(super) fn too_long(id: Value, max: usize) -> Value {
    rpc_error(
        id,
        -32600,
        format!(
            "invalid request: the line is longer than {max} bytes, the most this server reads; \
             send a shorter request (a shorter pattern or cursor)"
        ),
    )
}

/// A JSON-RPC error reply.
fn rpc_error(id: Value, code: i32, message: String) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// The JSON-RPC error for a line the SDK would mishandle, if any. rmcp's
/// stdio transport drops a line that is not JSON without a reply, and
/// reads a `tools/call` whose `arguments` is not an object as an unknown
/// method (-32601); both are answered here, before the SDK sees them.
pub(super) fn precheck(line: &str) -> Option<Value> {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(e) => {
            return Some(parse_error(
                line.as_bytes(),
                &format!("the line is not JSON ({e})"),
            ));
        }
    };
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let kind = |v: &Value| match v {
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
        Value::Null => "null",
    };
    let params = message.get("params");
    let problem = match (params, params.and_then(|p| p.get("arguments"))) {
        (Some(p), _) if !p.is_object() => format!("`params` must be an object, got {}", kind(p)),
        (_, Some(a)) if !a.is_object() && !a.is_null() => {
            format!(
                "`arguments` of tools/call must be a JSON object, got {}: {}",
                kind(a),
                super::super::argument_checks::shown(a)
            )
        }
        _ => return None,
    };
    Some(rpc_error(id, -32602, format!("invalid params: {problem}")))
}
