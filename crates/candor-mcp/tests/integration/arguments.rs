//! The `mcp` module's paging arguments and answers, as a server uses
//! them: the schema's `additionalProperties: false` enforced, JSON
//! Schema's integers accepted, `PageArgs` flattened into an rmcp `#[tool]`
//! parameter struct, the policy's caps, a `try_` query's error answered
//! with the rows read, and a cancelled page's disclosure line.

use candor::{
    Bounded, Budget, BudgetKind, Completeness, Disclosure, ErrorKind, Fallible, Fingerprint,
    Limits, Scope, Total,
};
use candor_mcp::{PageArgs, Policy, invalid_argument, respond, respond_try};
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::{Value, json};

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The text blocks of a tool result, in order.
pub(crate) fn texts(result: &CallToolResult) -> Vec<&str> {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect()
}

fn schema() -> JsonObject {
    let own = object(json!({ "query": { "type": "string" } }));
    (*PageArgs::input_schema(own, &["query"], &Policy::new())).clone()
}

#[test]
fn an_argument_the_schema_does_not_name_is_refused() {
    let schema = schema();
    let cases = [
        (
            json!({ "query": "x", "limt": 10 }),
            "unknown argument \"limt\" (did you mean \"limit\"?)",
        ),
        (
            json!({ "query": "x", "max_results": 3 }),
            "unknown argument \"max_results\"; the arguments are: count_total, cursor, limit, max_bytes, query, strict",
        ),
    ];
    for (arguments, expected) in cases {
        let err = PageArgs::from_arguments(&object(arguments.clone()), &schema).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::InvalidArgument {
                name: "arguments",
                ..
            }
        ));
        assert!(err.to_string().contains(expected), "{arguments}: {err}");
    }
    // The tool's own arguments and the paging ones pass.
    let fine = json!({ "query": "x", "limit": 3, "cursor": null });
    assert_eq!(
        PageArgs::from_arguments(&object(fine), &schema)
            .expect("known")
            .limit,
        Some(3)
    );
    // A schema that allows other properties lets them through.
    let open = object(json!({ "type": "object", "properties": {} }));
    assert!(PageArgs::from_arguments(&object(json!({ "limt": 1 })), &open).is_ok());
}

#[test]
fn counts_take_any_json_integer() {
    let schema = schema();
    let args = PageArgs::from_arguments(
        &object(json!({ "limit": 10.0, "max_bytes": 4096.0 })),
        &schema,
    )
    .expect("integers");
    assert_eq!((args.limit, args.max_bytes), (Some(10), Some(4096)));
    for bad in [
        json!({ "limit": 10.5 }),
        json!({ "limit": -1 }),
        json!({ "max_bytes": "4096" }),
    ] {
        let err = PageArgs::from_arguments(&object(bad.clone()), &schema).unwrap_err();
        assert!(
            err.to_string().contains("must be a non-negative integer"),
            "{bad}: {err}"
        );
    }
}

/// A tool's parameters as rmcp's `#[tool]` macros take them.
#[derive(Debug, serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct SearchParams {
    /// What to look for.
    query: String,
    #[serde(flatten)]
    page: PageArgs,
}

#[test]
fn page_args_flatten_into_a_tool_s_parameters() {
    let schema = rmcp::handler::server::common::schema_for_input::<SearchParams>()
        .expect("a valid input schema");
    let properties = schema["properties"].as_object().expect("properties");
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "count_total",
            "cursor",
            "limit",
            "max_bytes",
            "query",
            "strict"
        ]
    );
    assert_eq!(properties["limit"]["type"], "integer");
    assert_eq!(schema["required"], json!(["query"]));

    let params: SearchParams = serde_json::from_value(
        json!({ "query": "x", "limit": 10.0, "strict": null, "count_total": true }),
    )
    .expect("parameters");
    assert_eq!(params.query, "x");
    assert_eq!(
        params.page,
        PageArgs {
            limit: Some(10),
            count_total: true,
            ..PageArgs::default()
        }
    );
    let err = serde_json::from_value::<SearchParams>(json!({ "query": "x", "limit": "ten" }))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("invalid argument limit: must be a non-negative integer, got \"ten\""),
        "{err}"
    );
}

#[test]
fn the_policy_caps_max_bytes_and_bounds_counting() {
    let policy = Policy::new()
        .max_bytes_ceiling(10_000)
        .default_max_bytes(50_000)
        .max_counted(30);
    let asked = PageArgs {
        max_bytes: Some(1 << 30),
        limit: Some(5),
        count_total: true,
        ..PageArgs::default()
    };
    assert_eq!(asked.budget(&policy), 10_000);
    assert_eq!(
        PageArgs::default().budget(&policy),
        10_000,
        "the default is capped too"
    );
    let b = Bounded::collect(0..100u32, &asked.limits(&policy)).expect("a page");
    assert_eq!(b.total(), Total::AtLeast(30));
    let properties = PageArgs::schema_properties(&policy);
    let described = properties["max_bytes"]["description"]
        .as_str()
        .expect("text");
    assert!(
        described.contains("whole tool result") && described.contains("at most 10000"),
        "{described}"
    );
    let counted = properties["count_total"]["description"]
        .as_str()
        .expect("text");
    assert!(counted.contains("at most 30 items"), "{counted}");
}

#[test]
fn a_try_query_s_errors_are_answered_with_what_was_read() {
    // The source failed: the rows read, and no cursor (collect cannot resume).
    let rows = vec![
        Ok("a".to_owned()),
        Ok("b\"".to_owned()),
        Err("connection reset"),
        Ok("d".into()),
    ];
    let result = respond_try(
        Bounded::collect(Fallible(rows), &Limits::new()),
        "rows",
        &PageArgs {
            max_bytes: Some(4096),
            ..PageArgs::default()
        },
        &Policy::new(),
    );
    assert_eq!(result.is_error, Some(true));
    let [message, read] = texts(&result)[..] else {
        panic!("two blocks")
    };
    assert!(
        message.starts_with("the source failed after 2 items: connection reset"),
        "{message}"
    );
    assert!(!message.contains("next_cursor"), "{message}");
    assert_eq!(
        serde_json::from_str::<Value>(read).expect("JSON"),
        json!({ "count": 2, "items": ["a", "b\""] })
    );

    // Strict mode: the incomplete result, as `PageArgs::respond` gives it.
    let cut = Bounded::collect([1u8, 2], &Limits::new().limit(1));
    let strict = PageArgs {
        strict: true,
        ..PageArgs::default()
    };
    let result = respond(cut, "numbers", &strict, &candor_mcp::Policy::new());
    let blocks = texts(&result);
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    assert!(
        blocks[0].contains("strict mode was asked for"),
        "{}",
        blocks[0]
    );
    let partial: Bounded<u8> = serde_json::from_str(blocks[2]).expect("the wire shape");
    assert_eq!(partial.items(), &[1]);

    // The query's own error.
    let small = Bounded::collect(
        Fallible([Ok::<_, String>(1u8)]),
        &Limits::new().max_bytes(5),
    );
    let result = respond_try(
        small,
        "numbers",
        &PageArgs {
            max_bytes: Some(4096),
            ..PageArgs::default()
        },
        &Policy::new(),
    );
    assert!(
        texts(&result)[0].starts_with("max_bytes 5 is too small"),
        "{:?}",
        texts(&result)
    );
}

#[test]
fn a_tool_s_own_argument_error_reads_like_candor_s() {
    let err = invalid_argument("mode", "must be \"literal\" or \"regex\"");
    let result = respond::<()>(
        Err(err),
        "matches",
        &PageArgs {
            max_bytes: Some(4096),
            ..PageArgs::default()
        },
        &Policy::new(),
    );
    assert_eq!(
        texts(&result),
        ["invalid argument mode: must be \"literal\" or \"regex\""]
    );
}

#[test]
fn a_cancelled_page_says_cancelled() {
    let disclosure = Disclosure::new(
        Completeness::TruncatedByBudget {
            budget: Budget::new(BudgetKind::Cancelled, 0, 0),
            clamp: None,
        },
        Total::AtLeast(2),
    );
    let b = Bounded::from_parts(vec![1, 2], disclosure).expect("a valid disclosure");
    assert_eq!(
        b.summary("rows"),
        "Incomplete: rows 1-2 of at least 2 (cancelled). Ask again or narrow the query to see the rest."
    );
    let cancelled = Bounded::collect(
        0..10u32,
        &Limits::new().cancel_token({
            let token = candor::CancelToken::new();
            token.cancel();
            token
        }),
    )
    .unwrap();
    let strict = cancelled.into_exact().unwrap_err();
    assert!(strict.to_string().ends_with("(cancelled)"), "{strict}");
}

/// A page answered for a call that sent a cursor starts where the cursor
/// does: a query that dropped the cursor (`collect` takes none) would
/// restart the client's walk without a word, so `respond` refuses it; a
/// malformed cursor is the client's error; the query that resumes from
/// the cursor is answered, on and on to the end of the walk.
#[test]
fn a_page_that_ignored_the_call_s_cursor_is_refused() {
    let policy = Policy::new();
    let scope = Scope::new(Fingerprint::of("words"));
    let words = || (0..7u32).map(|n| format!("word {n}"));
    let first = PageArgs::from_arguments(&object(json!({ "limit": 3 })), &schema()).unwrap();
    let page = Bounded::page(words(), &first.limits(&policy), &scope, None).unwrap();
    let mut token = page.next_cursor().map(|c| c.as_str().to_owned());
    assert!(token.is_some());
    let mut seen: Vec<String> = page.items().to_vec();
    while let Some(cursor) = token.take() {
        let args = object(json!({ "limit": 3, "cursor": cursor }));
        let call = PageArgs::from_arguments(&args, &schema()).unwrap();
        // The cursor dropped: refused, saying why.
        let dropped = respond(
            Bounded::collect(words(), &call.limits(&policy)),
            "words",
            &call,
            &policy,
        );
        assert_eq!(dropped.is_error, Some(true));
        assert!(texts(&dropped)[0].contains("does not resume from the call's cursor"));
        // The cursor taken: answered.
        let resumed = call.cursor().unwrap();
        let run = || Bounded::page(words(), &call.limits(&policy), &scope, resumed.as_ref());
        let answered = respond(run(), "words", &call, &policy);
        assert_eq!(answered.is_error, Some(false), "{:?}", texts(&answered));
        let page = run().unwrap();
        assert_eq!(page.start(), seen.len() as u64);
        token = page.next_cursor().map(|c| c.as_str().to_owned());
        seen.extend_from_slice(page.items());
    }
    assert_eq!(seen, words().collect::<Vec<_>>());
    // A malformed cursor: the client's error, whatever the query did.
    let bad = PageArgs::from_arguments(&object(json!({ "cursor": "AQ" })), &schema()).unwrap();
    let answered = respond(
        Bounded::collect(words(), &bad.limits(&policy)),
        "words",
        &bad,
        &policy,
    );
    assert_eq!(answered.is_error, Some(true));
    assert!(
        texts(&answered)[0].contains("cursor"),
        "{:?}",
        texts(&answered)
    );
}

/// A number outside the bounds the input schema states is refused, as
/// the client was told: a paging argument names itself, another is named
/// in the text; one within them is taken.
#[test]
fn a_number_out_of_the_schema_s_bounds_is_refused() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Timed {
        #[schemars(range(min = 1, max = 60000))]
        deadline_ms: Option<u64>,
        #[serde(flatten)]
        page: PageArgs,
    }
    let read = |arguments: Value| {
        candor_mcp::Parameters::<Timed>::from_arguments(object(arguments)).map(|_| ())
    };
    let zero = read(json!({ "deadline_ms": 0 })).unwrap_err();
    assert!(matches!(
        zero.kind(),
        ErrorKind::InvalidArgument {
            name: "arguments",
            ..
        }
    ));
    assert!(
        zero.to_string()
            .contains("\"deadline_ms\": must be at least 1, got 0"),
        "{zero}"
    );
    let above = read(json!({ "deadline_ms": 60001 })).unwrap_err();
    assert!(
        above.to_string().contains("must be at most 60000"),
        "{above}"
    );
    assert!(read(json!({ "deadline_ms": 1 })).is_ok());
    assert!(read(json!({ "deadline_ms": 60000, "limit": 0 })).is_ok());
    let bytes = read(json!({ "max_bytes": 0 })).unwrap_err();
    assert!(
        matches!(
            bytes.kind(),
            ErrorKind::InvalidArgument {
                name: "max_bytes",
                ..
            }
        ),
        "{bytes}"
    );
    let page = PageArgs::from_arguments(&object(json!({ "max_bytes": 0 })), &schema()).unwrap_err();
    assert!(
        matches!(
            page.kind(),
            ErrorKind::InvalidArgument {
                name: "max_bytes",
                ..
            }
        ),
        "{page}"
    );
}
