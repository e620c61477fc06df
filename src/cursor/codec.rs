//! The bytes of a cursor token: the stable FNV-1a hash, varints, and
//! URL-safe base64 without padding.

use std::hash::Hasher;

/// A stable 64-bit FNV-1a hasher: the same input hashes to the same value in
/// every process and on every run, unlike `DefaultHasher`.
#[derive(Debug, Clone)]
pub(super) struct Fnv64(u64);

impl Fnv64 {
    pub(super) fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv64 {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

pub(super) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

pub(super) fn read_varint(input: &mut &[u8]) -> Option<u64> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        let low = u64::from(byte & 0x7f);
        if shift == 63 && low > 1 {
            return None;
        }
        value |= low << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

pub(super) fn read_u64(input: &mut &[u8]) -> Option<u64> {
    if input.len() < 8 {
        return None;
    }
    let (head, tail) = input.split_at(8);
    *input = tail;
    Some(u64::from_le_bytes(head.try_into().ok()?))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub(super) fn base64url_encode(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len().div_ceil(3) * 4);
    for chunk in raw.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 0x3f) as usize] as char);
        }
    }
    out
}

/// Decodes unpadded URL-safe base64; on failure, what is wrong with the
/// token, in words for the one who pasted it.
pub(super) fn base64url_decode(token: &str) -> Result<Vec<u8>, &'static str> {
    let bytes = token.as_bytes();
    let outside = |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_';
    if token.chars().any(|c| outside(c) && !c.is_whitespace()) {
        return Err("token holds characters outside the URL-safe base64 alphabet");
    }
    if token.chars().any(outside) {
        return Err("token holds white space: pass it as it was given, on one line");
    }
    if bytes.len() % 4 == 1 {
        return Err("token is not as long as a token can be: it was cut, or a character was added");
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 2);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'-' => 62,
                b'_' => 63,
                _ => return Err("token holds characters outside the URL-safe base64 alphabet"),
            };
            n |= u32::from(v) << (18 - 6 * i);
        }
        let produced = chunk.len() - 1;
        // Bits below the last whole byte must be zero, so that each byte
        // string has exactly one token.
        let unused_bits = 24 - 8 * produced;
        if n & ((1u32 << unused_bits) - 1) != 0 {
            return Err("token does not end as a token ends: it was cut, or altered");
        }
        for i in 0..produced {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_length() {
        for len in 0..40 {
            let raw: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64url_decode(&base64url_encode(&raw)), Ok(raw));
        }
    }

    #[test]
    fn varint_round_trips_extremes() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            write_varint(&mut out, v);
            let mut input = out.as_slice();
            assert_eq!(read_varint(&mut input), Some(v));
            assert!(input.is_empty());
        }
        let mut overlong: &[u8] = &[0xff; 11];
        assert_eq!(read_varint(&mut overlong), None);
    }

    #[test]
    fn fnv_matches_published_vectors() {
        // Pinned so that a change of hasher, which would void every cursor
        // already handed out, fails loudly.
        assert_eq!(Fnv64::new().finish(), 0xcbf2_9ce4_8422_2325);
        let mut h = Fnv64::new();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
        let mut h = Fnv64::new();
        h.write(b"foobar");
        assert_eq!(h.finish(), 0x8594_4171_f739_67e8);
    }
}
