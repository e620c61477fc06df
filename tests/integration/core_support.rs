//! Helpers shared by the core tests: the properties' configuration, a
//! key-order probe for JSON objects, a JSON Schema validation of
//! responses, and a base64url encoder for hand-made cursor tokens.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// A property's configuration: `cases` cases, failures kept in the report
/// rather than in files beside the tests.
pub fn config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// The keys of a JSON object, in the order they appear on the wire.
///
/// `serde_json::Value` sorts keys (no `preserve_order`), so the order is
/// read with a visitor instead.
#[derive(Debug, PartialEq, Eq)]
pub struct KeyOrder(pub Vec<String>);

impl<'de> Deserialize<'de> for KeyOrder {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = KeyOrder;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(KeyOrder(keys))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// The top-level keys of `json`, in wire order.
pub fn top_keys(json: &str) -> Vec<String> {
    serde_json::from_str::<KeyOrder>(json)
        .expect("a JSON object")
        .0
}

/// The only order the envelope's keys may take (each one optional here;
/// which are present is checked separately).
pub const KEY_ORDER: [&str; 9] = [
    "complete",
    "as_of",
    "truncation",
    "start",
    "count",
    "total",
    "next_cursor",
    "skipped",
    "items",
];

/// Checks that the keys of `json` follow [`KEY_ORDER`], with `items` last.
pub fn check_key_order(json: &str) -> Result<(), String> {
    let keys = top_keys(json);
    let ranks: Vec<usize> = keys
        .iter()
        .map(|k| {
            KEY_ORDER
                .iter()
                .position(|known| known == k)
                .ok_or_else(|| format!("unknown key {k:?} in {json}"))
        })
        .collect::<Result<_, _>>()?;
    if !ranks.windows(2).all(|w| w[0] < w[1]) {
        return Err(format!("keys out of order: {keys:?}"));
    }
    if keys.last().map(String::as_str) != Some("items") {
        return Err(format!("items is not last: {keys:?}"));
    }
    Ok(())
}

/// Validates `instance` against `schema` with a real JSON Schema validator
/// (the `jsonschema` crate, draft 2020-12). Returns every violation, each
/// with its location under `at`.
pub fn validate(schema: &Value, instance: &Value, at: &str) -> Result<(), String> {
    let validator =
        jsonschema::validator_for(schema).map_err(|e| format!("invalid schema: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{at}{}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// URL-safe base64 without padding, as candor writes cursor tokens.
pub fn base64url(raw: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in raw.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 0x3f) as usize] as char);
        }
    }
    out
}

/// The cursor token alphabet.
pub const TOKEN_ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Deserialization error message of `json` as a `Bounded<T>`; panics if it
/// was accepted.
pub fn rejection<T: de::DeserializeOwned + fmt::Debug>(json: &str) -> String {
    match serde_json::from_str::<candor::Bounded<T>>(json) {
        Ok(b) => panic!("accepted an inconsistent envelope {json}: {b:?}"),
        Err(e) => e.to_string(),
    }
}

/// A number chosen relative to the full answer's length, so that the
/// boundaries (0, len - 1, len, len + 1) come up often.
#[derive(Debug, Clone, Copy)]
pub enum Pick {
    Zero,
    LenMinusOne,
    Len,
    LenPlusOne,
    Any(usize),
}

impl Pick {
    pub fn resolve(self, len: usize) -> usize {
        match self {
            Pick::Zero => 0,
            Pick::LenMinusOne => len.saturating_sub(1),
            Pick::Len => len,
            Pick::LenPlusOne => len + 1,
            Pick::Any(n) => n,
        }
    }
}

/// Picks a `Pick`, with `Any` below `bound`.
pub fn pick_below(bound: usize) -> impl proptest::strategy::Strategy<Value = Pick> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Pick::Zero),
        Just(Pick::LenMinusOne),
        Just(Pick::Len),
        Just(Pick::LenPlusOne),
        (0..bound).prop_map(Pick::Any),
    ]
}

/// The knobs of `Limits` a property sets, each optional: the item limit,
/// its ceiling, the output-bytes budget, counting, the count's budget and
/// a deadline.
#[derive(Debug, Clone)]
pub struct Knobs {
    pub limit: Option<usize>,
    pub ceiling: Option<usize>,
    pub max_bytes: Option<usize>,
    pub count_total: bool,
    pub max_count: Option<u64>,
    /// (deadline ms, clock step ms per reading)
    pub deadline: Option<(u64, u64)>,
}

impl Knobs {
    /// The limits these knobs set.
    pub fn limits(&self) -> candor::Limits {
        let mut l = candor::Limits::new().count_total(self.count_total);
        if let Some(n) = self.limit {
            l = l.limit(n);
        }
        if let Some(n) = self.ceiling {
            l = l.ceiling(n);
        }
        if let Some(n) = self.max_bytes {
            l = l.max_bytes(n);
        }
        if let Some(n) = self.max_count {
            l = l.max_counted(n);
        }
        if let Some((deadline, step)) = self.deadline {
            // A fresh clock per query, so a run is reproducible.
            let step = std::time::Duration::from_millis(step);
            let clock = candor::ManualClock::new().auto_advance(step);
            l = l
                .deadline(std::time::Duration::from_millis(deadline))
                .clock(clock);
        }
        l
    }
}
