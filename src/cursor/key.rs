//! `CursorKey`: the resume keys a cursor can carry, each with a
//! self-delimiting encoding.

use super::codec::{read_varint, write_varint};

/// A value that can be the resume key of a [`Cursor`](crate::Cursor).
///
/// Implemented for unsigned and signed integers, `String`, `Vec<u8>`, and
/// tuples of two or three keys. Encodings are self-delimiting, so a key
/// decodes only from bytes its own type wrote.
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
