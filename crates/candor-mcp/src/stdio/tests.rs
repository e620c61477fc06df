//! The guard in process: the id scan against serde_json's reading of the
//! whole line, and every line answered or forwarded.

use proptest::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::StdioGuard;
use super::line::IdScan;

/// The id serde_json reads from the whole line, as the guard answers it:
/// a number or a string, else `null`.
fn oracle(line: &str) -> Value {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(map)) => match map.get("id") {
            Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

fn scan(pieces: &[&[u8]]) -> Value {
    let mut scan = IdScan::new();
    for piece in pieces {
        scan.feed(piece);
    }
    scan.id()
}

/// A JSON value, strings full of what a scanner could trip on.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z\"\\\\{}\\[\\],:é\u{1} ]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"{}:,]{0,4}|id", inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// A request: keys in any order, `id` among them or not, and maybe a key
/// that only looks like it.
fn request() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(("[a-z]{1,3}|idx|i|ID|\"id\"", value()), 0..5),
        prop::option::of(prop_oneof![
            any::<u64>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            "[a-z0-9\"\\\\-]{0,16}".prop_map(Value::String),
            value(),
        ]),
        any::<prop::sample::Index>(),
        prop_oneof![Just(""), Just(" "), Just("\n  ")],
    )
        .prop_map(|(fields, id, at, blank)| {
            let mut pairs: Vec<(String, Value)> =
                fields.into_iter().filter(|(k, _)| k != "id").collect();
            if let Some(id) = id {
                let at = at.index(pairs.len() + 1);
                pairs.insert(at, ("id".into(), id));
            }
            let body: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}{blank}:{blank}{v}", Value::String(k.clone())))
                .collect();
            format!(
                "{blank}{{{blank}{}{blank}}}",
                body.join(&format!("{blank},{blank}"))
            )
        })
}

proptest! {
    #[test]
    fn the_id_scan_reads_what_serde_json_reads(line in request(), cut in any::<prop::sample::Index>()) {
        let at = cut.index(line.len() + 1);
        let bytes = line.as_bytes();
        prop_assert_eq!(scan(&[bytes]), oracle(&line), "{}", line);
        prop_assert_eq!(scan(&[&bytes[..at], &bytes[at..]]), oracle(&line), "{} cut at {}", line, at);
    }

    #[test]
    fn a_padded_request_s_id_is_read_whatever_follows_it(
        id in prop_oneof![any::<u64>().prop_map(Value::from), "[a-z0-9]{0,16}".prop_map(Value::String)],
        padding in 0usize..5000,
    ) {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"search_text","arguments":{{"query":"{}"}}}}}}"#,
            "\\\"{".repeat(padding)
        );
        prop_assert_eq!(scan(&[line.as_bytes()]), id);
    }
}

#[test]
fn lines_that_are_not_a_request_have_no_id() {
    for line in [
        "",
        "[1, 2]",
        "{\"id\"",
        "{\"id\":",
        "{\"id\": [7]}",
        "7",
        "{\"id\": {\"a\": 1}}",
        "{\"idx\": 7}",
        "{\"i\\u0064\": 7}",
    ] {
        assert_eq!(scan(&[line.as_bytes()]), Value::Null, "{line}");
    }
    assert_eq!(
        scan(&[br#"{"id": 7"#]),
        Value::Null,
        "the value has not ended"
    );
    assert_eq!(scan(&[br#"{"id": 7 ,"#]), json!(7));
    let long_id = format!("{{\"id\": \"{}\", \"method\": \"x\"}}", "a".repeat(2000));
    assert_eq!(scan(&[long_id.as_bytes()]), Value::Null, "an id is short");
}

/// A request that serde_json refuses though it is sent by a client (nested
/// deeper than it reads, a number out of range, a lone surrogate): the
/// parse error goes to its id, so the client waiting for it is answered.
#[test]
fn a_request_serde_json_refuses_is_answered_to_its_id() {
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"s\",\"arguments\":{{\"x\":{}1{}}}}}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    let huge = r#"{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{"arguments":{"limit":1e400}}}"#;
    let surrogate =
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{"q":"\ud800"}}}"#;
    for (line, id) in [
        (deep.as_str(), json!(7)),
        (huge, json!("q1")),
        (surrogate, json!(9)),
    ] {
        let reply = super::precheck::precheck(line).expect("answered by the guard");
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
    }
    // A line that is not JSON before its id: no id to answer.
    let reply = super::precheck::precheck("{nonsense").expect("answered by the guard");
    assert_eq!(reply["id"], Value::Null);
}

#[tokio::test]
async fn every_line_is_answered_or_forwarded_and_a_long_one_by_its_id() {
    let max = 1 << 20;
    let (client, client_side) = tokio::io::duplex(1 << 16);
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut replies = BufReader::new(client_read).lines();
    let (input, guard_output) = tokio::io::split(client_side);
    let (server_side, output) = StdioGuard::new()
        .max_line_bytes(max)
        .start(input, guard_output);
    let (server_in, mut server_out) = tokio::io::split(server_side);
    let mut server = BufReader::new(server_in).lines();
    let request = |id: Value, pad: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"search_text","arguments":{{"query":"{}"}}}}}}"#,
            "x".repeat(pad)
        )
    };
    let writer = tokio::spawn(async move {
        // Just over the cap, 10 MiB with \r\n, and an id that is a string.
        for (id, pad, ending) in [
            (json!(1), max, "\n"),
            (json!(2), 10 << 20, "\r\n"),
            (json!("three"), 3 << 20, "\n"),
        ] {
            let line = format!("{}{ending}", request(id, pad));
            client_write
                .write_all(line.as_bytes())
                .await
                .expect("write");
        }
        client_write.write_all(b"{not json\n").await.expect("write");
        client_write.write_all(b"\xff\n").await.expect("write");
        let fine = request(json!(4), 10);
        client_write
            .write_all(format!("{fine}\r\n").as_bytes())
            .await
            .expect("write");
        client_write.shutdown().await.expect("end of input");
        fine
    });
    for (id, code) in [
        (json!(1), -32600),
        (json!(2), -32600),
        (json!("three"), -32600),
        (Value::Null, -32700),
        (Value::Null, -32700),
    ] {
        let reply: Value =
            serde_json::from_str(&replies.next_line().await.expect("read").expect("a reply"))
                .expect("JSON");
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], code, "{reply}");
    }
    let fine = writer.await.expect("the writer");
    assert_eq!(
        server.next_line().await.expect("read"),
        Some(fine),
        "forwarded as it was"
    );
    assert_eq!(
        server.next_line().await.expect("read"),
        None,
        "then the end of input"
    );
    // What the server writes goes out, then the guard ends with it.
    server_out
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n")
        .await
        .expect("write");
    drop(server_out);
    drop(server);
    let reply: Value =
        serde_json::from_str(&replies.next_line().await.expect("read").expect("a reply"))
            .expect("JSON");
    assert_eq!(reply["id"], 4);
    output.finish().await;
    assert_eq!(replies.next_line().await.expect("read"), None);
}
