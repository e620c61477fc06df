//! The `wire` check: decoding `Bounded<serde_json::Value>` from any JSON
//! never panics, and what decodes re-encodes and decodes to the same value.

use candor::Bounded;
use serde_json::Value;

/// Checks one input, read as JSON text.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(decoded) = serde_json::from_str::<Bounded<Value>>(text) else {
        return;
    };
    let encoded = serde_json::to_string(&decoded).expect("a decoded result encodes");
    let again: Bounded<Value> = match serde_json::from_str(&encoded) {
        Ok(again) => again,
        Err(e) => panic!("its own encoding {encoded} does not decode: {e}"),
    };
    assert_eq!(again, decoded, "decode, encode, decode changed the value");
    let twice = serde_json::to_string(&again).expect("encodes");
    assert_eq!(twice, encoded, "encoding is not stable");
}
