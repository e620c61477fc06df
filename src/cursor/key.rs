//! `CursorKey`: the resume keys a cursor can carry, each with a
//! self-delimiting encoding: integers, strings, bytes, booleans, floats,
//! any JSON value (a search engine's sort values), and tuples of keys.

use serde_json::{Map, Number, Value};

use super::codec::{read_varint, write_varint};

/// A value that can be the resume key of a [`Cursor`](crate::Cursor).
///
/// Implemented for unsigned and signed integers, `bool`, `f64`, `String`,
/// `Vec<u8>`, any JSON value (`serde_json::Value`: a search engine's sort
/// values, such as the `search_after` array of OpenSearch and
/// Elasticsearch), and tuples of two or three keys. Encodings are
/// self-delimiting, so a key decodes only from bytes its own type wrote.
///
/// # Example
///
/// ```
/// use candor::{CursorKey, Fingerprint, Scope};
/// let scope = Scope::new(Fingerprint::of("q"));
/// let cursor = scope.cursor(&(3u64, String::from("b")), 0);
/// assert_eq!(scope.resume::<(u64, String)>(&cursor)?, (3, "b".to_string()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait CursorKey {
    /// Appends this key's encoding to `out`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::CursorKey;
    /// let mut out = Vec::new();
    /// 300u64.encode_key(&mut out);
    /// "ab".encode_key(&mut out);
    /// assert_eq!(out, [0xac, 0x02, 2, b'a', b'b']);
    /// ```
    fn encode_key(&self, out: &mut Vec<u8>);

    /// Decodes a key from the front of `input`, advancing it; `None` when
    /// the bytes are not a key of this type.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::CursorKey;
    /// let mut out = Vec::new();
    /// (7u32, String::from("b")).encode_key(&mut out);
    /// let mut input = out.as_slice();
    /// assert_eq!(<(u32, String)>::decode_key(&mut input), Some((7, "b".to_string())));
    /// assert!(input.is_empty()); // the key was read to its end
    /// assert_eq!(u64::decode_key(&mut &[0x80u8][..]), None); // cut short
    /// ```
    fn decode_key(input: &mut &[u8]) -> Option<Self>
    where
        Self: Sized;
}

impl CursorKey for u64 {
    fn encode_key(&self, out: &mut Vec<u8>) {
        write_varint(out, *self);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        read_varint(input)
    }
}

impl CursorKey for u32 {
    fn encode_key(&self, out: &mut Vec<u8>) {
        write_varint(out, u64::from(*self));
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        read_varint(input).and_then(|v| u32::try_from(v).ok())
    }
}

impl CursorKey for usize {
    fn encode_key(&self, out: &mut Vec<u8>) {
        write_varint(out, *self as u64);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        read_varint(input).and_then(|v| usize::try_from(v).ok())
    }
}

impl CursorKey for i64 {
    fn encode_key(&self, out: &mut Vec<u8>) {
        // zigzag, so small negative numbers stay short
        write_varint(out, ((*self << 1) ^ (*self >> 63)) as u64);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        let v = read_varint(input)?;
        Some(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
}

impl CursorKey for bool {
    fn encode_key(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        let (&first, rest) = input.split_first()?;
        let value = match first {
            0 => false,
            1 => true,
            _ => return None,
        };
        *input = rest;
        Some(value)
    }
}

/// Bit for bit: every value, NaN and the sign of zero included, decodes as
/// it was.
impl CursorKey for f64 {
    fn encode_key(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        if input.len() < 8 {
            return None;
        }
        let (head, tail) = input.split_at(8);
        *input = tail;
        Some(f64::from_bits(u64::from_le_bytes(head.try_into().ok()?)))
    }
}

/// The tags of the JSON key encoding: one byte before each value.
mod tag {
    pub(super) const NULL: u8 = 0;
    pub(super) const FALSE: u8 = 1;
    pub(super) const TRUE: u8 = 2;
    /// A non-negative integer (serde_json's `u64`), as a varint.
    pub(super) const UNSIGNED: u8 = 3;
    /// A negative integer (serde_json's `i64`), zigzag varint.
    pub(super) const NEGATIVE: u8 = 4;
    /// A float, its 8 bytes.
    pub(super) const FLOAT: u8 = 5;
    pub(super) const STRING: u8 = 6;
    pub(super) const ARRAY: u8 = 7;
    pub(super) const OBJECT: u8 = 8;
}

/// How deep arrays and objects may nest in a JSON key: a token is at most
/// a few kilobytes, and decoding one must not recurse without bound.
pub(crate) const MAX_JSON_DEPTH: usize = 32;

/// Any JSON value, kept exactly: an integer stays an integer (`u64` or
/// `i64`, as serde_json holds it) and a float keeps its bits, so that sort
/// values sent back to the engine that returned them (`search_after`) are
/// the values it returned. Arrays and objects nest up to 32 levels.
///
/// # Example
///
/// ```
/// use candor::{Fingerprint, Scope};
/// use serde_json::json;
/// let scope = Scope::new(Fingerprint::of("logs sorted by time, then score"));
/// let after = json!([1_700_000_000_123u64, 0.3, "host-7", null, -4, true]);
/// let cursor = scope.cursor(&after, 20);
/// assert_eq!(scope.resume::<serde_json::Value>(&cursor)?, after);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl CursorKey for Value {
    fn encode_key(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => out.push(tag::NULL),
            Value::Bool(false) => out.push(tag::FALSE),
            Value::Bool(true) => out.push(tag::TRUE),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    out.push(tag::UNSIGNED);
                    write_varint(out, u);
                } else if let Some(i) = n.as_i64() {
                    out.push(tag::NEGATIVE);
                    i.encode_key(out);
                } else {
                    // A JSON number is finite; serde_json holds it as one
                    // of the three.
                    out.push(tag::FLOAT);
                    n.as_f64().unwrap_or(0.0).encode_key(out);
                }
            }
            Value::String(s) => {
                out.push(tag::STRING);
                s.encode_key(out);
            }
            Value::Array(items) => {
                out.push(tag::ARRAY);
                write_varint(out, items.len() as u64);
                for item in items {
                    item.encode_key(out);
                }
            }
            Value::Object(map) => {
                out.push(tag::OBJECT);
                write_varint(out, map.len() as u64);
                for (key, value) in map {
                    key.encode_key(out);
                    value.encode_key(out);
                }
            }
        }
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        decode_json(input, 0)
    }
}

fn decode_json(input: &mut &[u8], depth: usize) -> Option<Value> {
    let (&tag, rest) = input.split_first()?;
    *input = rest;
    Some(match tag {
        tag::NULL => Value::Null,
        tag::FALSE => Value::Bool(false),
        tag::TRUE => Value::Bool(true),
        tag::UNSIGNED => Value::Number(read_varint(input)?.into()),
        tag::NEGATIVE => {
            // Only a negative integer is written this way: a non-negative
            // one is `UNSIGNED`.
            let i = i64::decode_key(input)?;
            if i >= 0 {
                return None;
            }
            Value::Number(i.into())
        }
        tag::FLOAT => Value::Number(Number::from_f64(f64::decode_key(input)?)?),
        tag::STRING => Value::String(String::decode_key(input)?),
        tag::ARRAY | tag::OBJECT if depth >= MAX_JSON_DEPTH => return None,
        tag::ARRAY => {
            let len = read_varint(input)?;
            // Each element takes at least one byte: a longer count is not
            // one this type wrote (and must not reserve memory for it).
            if len > input.len() as u64 {
                return None;
            }
            let mut items = Vec::with_capacity(len as usize);
            for _ in 0..len {
                items.push(decode_json(input, depth + 1)?);
            }
            Value::Array(items)
        }
        tag::OBJECT => {
            let len = read_varint(input)?;
            if len > input.len() as u64 {
                return None;
            }
            let mut map = Map::new();
            for _ in 0..len {
                let key = String::decode_key(input)?;
                let value = decode_json(input, depth + 1)?;
                if map.insert(key, value).is_some() {
                    // A key twice: not an object this type wrote.
                    return None;
                }
            }
            Value::Object(map)
        }
        _ => return None,
    })
}

impl CursorKey for [u8] {
    fn encode_key(&self, out: &mut Vec<u8>) {
        write_varint(out, self.len() as u64);
        out.extend_from_slice(self);
    }
}

impl CursorKey for Vec<u8> {
    fn encode_key(&self, out: &mut Vec<u8>) {
        self.as_slice().encode_key(out);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        let len = usize::try_from(read_varint(input)?).ok()?;
        if input.len() < len {
            return None;
        }
        let (head, tail) = input.split_at(len);
        *input = tail;
        Some(head.to_vec())
    }
}

impl CursorKey for str {
    fn encode_key(&self, out: &mut Vec<u8>) {
        self.as_bytes().encode_key(out);
    }
}

impl CursorKey for String {
    fn encode_key(&self, out: &mut Vec<u8>) {
        self.as_bytes().encode_key(out);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        String::from_utf8(Vec::<u8>::decode_key(input)?).ok()
    }
}

impl<A: CursorKey, B: CursorKey> CursorKey for (A, B) {
    fn encode_key(&self, out: &mut Vec<u8>) {
        self.0.encode_key(out);
        self.1.encode_key(out);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        Some((A::decode_key(input)?, B::decode_key(input)?))
    }
}

impl<A: CursorKey, B: CursorKey, C: CursorKey> CursorKey for (A, B, C) {
    fn encode_key(&self, out: &mut Vec<u8>) {
        self.0.encode_key(out);
        self.1.encode_key(out);
        self.2.encode_key(out);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        Some((
            A::decode_key(input)?,
            B::decode_key(input)?,
            C::decode_key(input)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<K: CursorKey + PartialEq + std::fmt::Debug>(key: &K) -> Option<K> {
        let mut out = Vec::new();
        key.encode_key(&mut out);
        let mut input = out.as_slice();
        let back = K::decode_key(&mut input);
        assert!(input.is_empty(), "{key:?} left bytes behind");
        back
    }

    #[test]
    fn json_keys_round_trip_exactly() {
        let values = [
            serde_json::json!(null),
            serde_json::json!([
                true,
                false,
                0,
                1,
                u64::MAX,
                -1,
                i64::MIN,
                0.1,
                -0.0,
                1e300,
                5.0
            ]),
            serde_json::json!({"pit": "abc", "after": [1.5, "x", null], "n": {"deep": []}}),
            serde_json::json!(""),
        ];
        for v in values {
            let back = round_trip(&v).expect("decodes");
            assert_eq!(back, v);
            // An integer stays an integer and a float a float.
            assert_eq!(back.to_string(), v.to_string());
        }
    }

    #[test]
    fn json_keys_refuse_bytes_they_did_not_write() {
        let decode = |bytes: &[u8]| Value::decode_key(&mut &bytes[..]);
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[99]), None); // no such tag
        assert_eq!(decode(&[tag::NEGATIVE, 2]), None); // zigzag 2 is +1
        assert_eq!(decode(&[tag::ARRAY, 200, 1]), None); // a count past the end
        let mut nan = vec![tag::FLOAT];
        f64::NAN.encode_key(&mut nan);
        assert_eq!(decode(&nan), None); // JSON has no NaN
        // A key twice in an object.
        let mut twice = vec![tag::OBJECT, 2];
        for _ in 0..2 {
            "k".encode_key(&mut twice);
            twice.push(tag::NULL);
        }
        assert_eq!(decode(&twice), None);
        // Nesting past the bound.
        let mut deep = [tag::ARRAY, 1].repeat(MAX_JSON_DEPTH + 1);
        deep.push(tag::NULL);
        assert_eq!(decode(&deep), None);
        let mut ok = [tag::ARRAY, 1].repeat(MAX_JSON_DEPTH);
        ok.push(tag::NULL);
        assert!(decode(&ok).is_some());
    }

    #[test]
    fn bool_and_float_keys_round_trip() {
        for b in [false, true] {
            assert_eq!(round_trip(&b), Some(b));
        }
        assert_eq!(bool::decode_key(&mut &[2u8][..]), None);
        for f in [0.0f64, -0.0, 1.5, f64::MIN_POSITIVE, f64::INFINITY] {
            assert_eq!(round_trip(&f).map(f64::to_bits), Some(f.to_bits()));
        }
        assert_eq!(f64::decode_key(&mut &[0u8; 7][..]), None);
    }

    #[test]
    fn i64_keys_round_trip() {
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -300] {
            let mut out = Vec::new();
            v.encode_key(&mut out);
            let mut input = out.as_slice();
            assert_eq!(i64::decode_key(&mut input), Some(v));
        }
    }
}
