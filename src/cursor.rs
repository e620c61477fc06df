//! Cursors: opaque resume points bound to the query that issued them.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::error::{Error, ErrorKind};

/// The longest token [`Cursor::parse`] accepts, in characters.
const MAX_TOKEN_LEN: usize = 8192;
/// The token format's version, the first byte of every token.
const VERSION: u8 = 1;
const FLAG_GENERATION: u8 = 1;
/// Set when the token carries how many items came before it.
const FLAG_START: u8 = 2;
/// Mixed into the checksum so that a token of another format that happens to
/// decode is still refused.
const CHECKSUM_SALT: &[u8] = b"candor-cursor-v1";

/// A stable 64-bit FNV-1a hasher: the same input hashes to the same value in
/// every process and on every run, unlike `DefaultHasher`.
#[derive(Debug, Clone)]
struct Fnv64(u64);

impl Fnv64 {
    fn new() -> Self {
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

/// Identifies a query, so that a cursor resumes only the query that issued
/// it.
///
/// Built from anything that implements [`Hash`] with a stable hasher, so the
/// same query gives the same fingerprint in every process (on one platform
/// and version of candor). Put into it everything that changes the answer:
/// the query's text and options, not its limits.
///
/// # Example
///
/// ```
/// use candor::Fingerprint;
/// let a = Fingerprint::of(&("callers", "parse_header"));
/// let b = Fingerprint::of(&("callers", "parse_header"));
/// assert_eq!(a, b);
/// assert_ne!(a, Fingerprint::of(&("callers", "parse_body")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(u64);

impl Fingerprint {
    /// The fingerprint of `query`.
    ///
    /// # Example
    ///
    /// ```
    /// let f = candor::Fingerprint::of("references of Typography");
    /// assert_eq!(f, candor::Fingerprint::of("references of Typography"));
    /// ```
    #[must_use]
    pub fn of<Q: Hash + ?Sized>(query: &Q) -> Fingerprint {
        let mut hasher = Fnv64::new();
        query.hash(&mut hasher);
        Fingerprint(hasher.finish())
    }

    /// A fingerprint from a value computed elsewhere.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Fingerprint::from_u64(7).as_u64(), 7);
    /// ```
    #[must_use]
    pub fn from_u64(value: u64) -> Fingerprint {
        Fingerprint(value)
    }

    /// The fingerprint as a number.
    ///
    /// # Example
    ///
    /// ```
    /// let f = candor::Fingerprint::of(&42u8);
    /// assert_eq!(candor::Fingerprint::from_u64(f.as_u64()), f);
    /// ```
    #[must_use]
    pub fn as_u64(&self) -> u64 {
        self.0
    }
}

/// What a cursor is bound to: a query's [`Fingerprint`] and, where the
/// source has one, the generation of the corpus it ran on.
///
/// A scope issues cursors ([`Scope::cursor`]) and checks them
/// ([`Scope::resume`]): a cursor of another query is refused as foreign, one
/// of another corpus generation as stale, each with its own error.
///
/// # Example
///
/// ```
/// use candor::{ErrorKind, Fingerprint, Scope};
///
/// let scope = Scope::new(Fingerprint::of("callers of parse")).generation(7);
/// let cursor = scope.cursor(&(String::from("src/lib.rs"), 120u64));
/// let key: (String, u64) = scope.resume(&cursor)?;
/// assert_eq!(key, ("src/lib.rs".to_string(), 120));
///
/// let later = Scope::new(Fingerprint::of("callers of parse")).generation(8);
/// let err = later.resume::<(String, u64)>(&cursor).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scope {
    fingerprint: Fingerprint,
    generation: Option<u64>,
}

impl Scope {
    /// A scope for the query with this fingerprint, on a source without
    /// generations.
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q"));
    /// assert_eq!(scope.generation_value(), None);
    /// ```
    #[must_use]
    pub fn new(fingerprint: Fingerprint) -> Scope {
        Scope {
            fingerprint,
            generation: None,
        }
    }

    /// Binds cursors to this generation of the corpus as well; a cursor of
    /// another generation is refused as stale. Default: no generation.
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q")).generation(3);
    /// assert_eq!(scope.generation_value(), Some(3));
    /// ```
    #[must_use]
    pub fn generation(mut self, generation: u64) -> Scope {
        self.generation = Some(generation);
        self
    }

    /// The query's fingerprint.
    ///
    /// # Example
    ///
    /// ```
    /// let f = candor::Fingerprint::of("q");
    /// assert_eq!(candor::Scope::new(f).fingerprint(), f);
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The corpus generation, if the scope has one.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Scope::new(candor::Fingerprint::of("q")).generation_value(), None);
    /// ```
    #[must_use]
    pub fn generation_value(&self) -> Option<u64> {
        self.generation
    }

    /// Issues a cursor that resumes this query at `key`. What the key means
    /// (an offset, the last item's sort key) is the source's to decide.
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q"));
    /// let cursor = scope.cursor(&41u64);
    /// assert_eq!(scope.resume::<u64>(&cursor)?, 41);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// The cursor says that no item came before it ([`Cursor::start`] is
    /// 0); the collecting functions ([`Limits::page`](crate::Limits::page)
    /// and the others) set the real figure on the cursors they return. Use
    /// [`cursor_at`](Self::cursor_at) to issue one yourself.
    #[must_use]
    pub fn cursor<K: CursorKey + ?Sized>(&self, key: &K) -> Cursor {
        self.cursor_at(key, 0)
    }

    /// Issues a cursor that resumes this query at `key`, after `start`
    /// items of the full answer: the next page's
    /// [`Disclosure::start`](crate::Disclosure::start).
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q"));
    /// let cursor = scope.cursor_at("parse_header", 20);
    /// assert_eq!(cursor.start(), 20);
    /// assert_eq!(scope.resume::<String>(&cursor)?, "parse_header");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn cursor_at<K: CursorKey + ?Sized>(&self, key: &K, start: u64) -> Cursor {
        let mut encoded = Vec::new();
        key.encode_key(&mut encoded);
        Cursor::build(self.fingerprint.0, self.generation, start, encoded)
    }

    /// Checks that `cursor` belongs to this query and corpus generation and
    /// gives back its key.
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::ForeignCursor`] when it was issued by another query;
    /// - [`ErrorKind::StaleCursor`] when it was issued against another
    ///   generation of the corpus;
    /// - [`ErrorKind::MalformedCursor`] when its key is not a `K`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{ErrorKind, Fingerprint, Scope};
    /// let cursor = Scope::new(Fingerprint::of("a")).cursor(&1u64);
    /// let err = Scope::new(Fingerprint::of("b")).resume::<u64>(&cursor).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::ForeignCursor { .. }));
    /// ```
    pub fn resume<K: CursorKey>(&self, cursor: &Cursor) -> Result<K, Error> {
        if cursor.fingerprint != self.fingerprint.0 {
            return Err(ErrorKind::ForeignCursor {
                expected: self.fingerprint.0,
                found: cursor.fingerprint,
            }
            .into());
        }
        match (cursor.generation, self.generation) {
            (Some(c), Some(s)) if c != s => {
                return Err(ErrorKind::StaleCursor {
                    cursor_generation: c,
                    current_generation: s,
                }
                .into());
            }
            (None, Some(_)) | (Some(_), None) => {
                return Err(Error::malformed_cursor(
                    "cursor and query disagree on whether the corpus has generations",
                ));
            }
            _ => {}
        }
        let mut input = cursor.key.as_slice();
        let key = K::decode_key(&mut input)
            .ok_or_else(|| Error::malformed_cursor("its resume key does not decode"))?;
        if !input.is_empty() {
            return Err(Error::malformed_cursor(
                "trailing bytes after its resume key",
            ));
        }
        Ok(key)
    }
}

/// An opaque resume point: where the next page of a query starts.
///
/// A cursor travels as a short URL-safe token ([`Cursor::as_str`],
/// `Display`, and a JSON string on the wire). It carries the fingerprint of
/// the query that issued it, the corpus generation if any, how many items
/// of the full answer came before it ([`start`](Self::start)), and a
/// checksum, so that an altered, foreign or stale token is refused with a
/// typed error instead of silently restarting or skipping.
///
/// The checksum is an integrity check against accidents (a token cut
/// short, mistyped or pasted into the wrong query), not a MAC: it has no
/// secret, so anyone can forge a valid token. Nothing relies on it for
/// safety: a forged token is still checked against the query, the corpus
/// generation and the corpus itself, and confinement to the corpus root
/// never depends on where a cursor came from.
///
/// # Example
///
/// ```
/// use candor::{Cursor, Fingerprint, Limits, Scope};
///
/// let scope = Scope::new(Fingerprint::of("numbers below 25"));
/// let page = Limits::new().limit(10).page(&scope, None, 0..25u32)?;
/// let token = page.next_cursor().expect("more pages").to_string();
///
/// // Later, perhaps in another process:
/// let cursor: Cursor = token.parse()?;
/// let page2 = Limits::new().limit(10).page(&scope, Some(&cursor), 0..25u32)?;
/// assert_eq!(page2.items()[0], 10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cursor {
    token: String,
    fingerprint: u64,
    generation: Option<u64>,
    start: u64,
    key: Vec<u8>,
}

impl Cursor {
    fn build(fingerprint: u64, generation: Option<u64>, start: u64, key: Vec<u8>) -> Cursor {
        let mut raw = Vec::with_capacity(40 + key.len());
        raw.push(VERSION);
        let mut flags = 0;
        if generation.is_some() {
            flags |= FLAG_GENERATION;
        }
        if start > 0 {
            flags |= FLAG_START;
        }
        raw.push(flags);
        raw.extend_from_slice(&fingerprint.to_le_bytes());
        if let Some(g) = generation {
            raw.extend_from_slice(&g.to_le_bytes());
        }
        if start > 0 {
            write_varint(&mut raw, start);
        }
        write_varint(&mut raw, key.len() as u64);
        raw.extend_from_slice(&key);
        let sum = checksum(&raw);
        raw.extend_from_slice(&sum.to_le_bytes());
        Cursor {
            token: base64url_encode(&raw),
            fingerprint,
            generation,
            start,
            key,
        }
    }

    /// The same resume point, after `start` items of the full answer.
    pub(crate) fn at(self, start: u64) -> Cursor {
        if start == self.start {
            return self;
        }
        Cursor::build(self.fingerprint, self.generation, start, self.key)
    }

    /// Decodes a token and checks its integrity.
    ///
    /// This says nothing yet about which query the cursor belongs to: that
    /// is checked when it is used ([`Scope::resume`], or any query function
    /// that takes a cursor).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::MalformedCursor`] for a token candor did not write (bad
    /// characters, length or version), [`ErrorKind::TamperedCursor`] for
    /// one whose integrity check fails.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Cursor, ErrorKind, Fingerprint, Scope};
    /// let token = Scope::new(Fingerprint::of("q")).cursor(&5u64).to_string();
    /// assert!(Cursor::parse(&token).is_ok());
    ///
    /// let mut altered = token.clone().into_bytes();
    /// let i = altered.len() / 2;
    /// altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
    /// let err = Cursor::parse(std::str::from_utf8(&altered)?).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::TamperedCursor | ErrorKind::MalformedCursor { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(token: &str) -> Result<Cursor, Error> {
        if token.is_empty() {
            return Err(Error::malformed_cursor("empty token"));
        }
        if token.len() > MAX_TOKEN_LEN {
            return Err(Error::malformed_cursor(format!(
                "token is {} characters long, the most is {MAX_TOKEN_LEN}",
                token.len()
            )));
        }
        let raw = base64url_decode(token).ok_or_else(|| {
            Error::malformed_cursor("token holds characters outside the URL-safe base64 alphabet")
        })?;
        // version + flags + fingerprint + key length + checksum
        if raw.len() < 2 + 8 + 1 + 8 {
            return Err(Error::malformed_cursor("token is too short"));
        }
        let (body, sum) = raw.split_at(raw.len() - 8);
        let sum = u64::from_le_bytes(sum.try_into().expect("split at 8"));
        if body[0] != VERSION {
            return Err(Error::malformed_cursor(format!(
                "token version {} is not supported (expected {VERSION})",
                body[0]
            )));
        }
        if checksum(body) != sum {
            return Err(ErrorKind::TamperedCursor.into());
        }
        let flags = body[1];
        if flags & !(FLAG_GENERATION | FLAG_START) != 0 {
            return Err(Error::malformed_cursor("unknown flags"));
        }
        let mut rest = &body[2..];
        let fingerprint = read_u64(&mut rest).ok_or(ErrorKind::TamperedCursor)?;
        let generation = if flags & FLAG_GENERATION != 0 {
            Some(read_u64(&mut rest).ok_or(ErrorKind::TamperedCursor)?)
        } else {
            None
        };
        let start = if flags & FLAG_START != 0 {
            match read_varint(&mut rest).ok_or(ErrorKind::TamperedCursor)? {
                0 => return Err(Error::malformed_cursor("its start is flagged but zero")),
                start => start,
            }
        } else {
            0
        };
        let key_len = read_varint(&mut rest).ok_or(ErrorKind::TamperedCursor)?;
        if key_len != rest.len() as u64 {
            return Err(ErrorKind::TamperedCursor.into());
        }
        Ok(Cursor {
            token: token.to_owned(),
            fingerprint,
            generation,
            start,
            key: rest.to_vec(),
        })
    }

    /// The token, for a client to send back.
    ///
    /// # Example
    ///
    /// ```
    /// let c = candor::Scope::new(candor::Fingerprint::of("q")).cursor(&1u64);
    /// assert_eq!(c.as_str(), c.to_string());
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.token
    }

    /// The fingerprint of the query that issued the cursor.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Scope};
    /// let f = Fingerprint::of("q");
    /// assert_eq!(Scope::new(f).cursor(&1u64).fingerprint(), f);
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(self.fingerprint)
    }

    /// How many items of the full answer came before this cursor: the
    /// resumed page's [`Disclosure::start`](crate::Disclosure::start).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("numbers below 25"));
    /// let page = Limits::new().limit(10).page(&scope, None, 0..25u32)?;
    /// assert_eq!(page.next_cursor().map(|c| c.start()), Some(10));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn start(&self) -> u64 {
        self.start
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.token)
    }
}

impl FromStr for Cursor {
    type Err = Error;

    fn from_str(token: &str) -> Result<Cursor, Error> {
        Cursor::parse(token)
    }
}

impl serde::Serialize for Cursor {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.token)
    }
}

impl<'de> serde::Deserialize<'de> for Cursor {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Cursor, D::Error> {
        let token = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Cursor::parse(&token).map_err(serde::de::Error::custom)
    }
}

/// A value that can be the resume key of a [`Cursor`].
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
/// let cursor = scope.cursor(&(3u64, String::from("b")));
/// assert_eq!(scope.resume::<(u64, String)>(&cursor)?, (3, "b".to_string()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait CursorKey {
    /// Appends this key's encoding to `out`.
    fn encode_key(&self, out: &mut Vec<u8>);

    /// Decodes a key from the front of `input`, advancing it; `None` when
    /// the bytes are not a key of this type.
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

fn checksum(body: &[u8]) -> u64 {
    let mut hasher = Fnv64::new();
    hasher.write(CHECKSUM_SALT);
    hasher.write(body);
    // One more round of mixing so that a change in the last byte spreads to
    // every byte of the sum.
    let h = hasher.finish();
    let h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let h = (h ^ (h >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

fn write_varint(out: &mut Vec<u8>, mut value: u64) {
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

fn read_varint(input: &mut &[u8]) -> Option<u64> {
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

fn read_u64(input: &mut &[u8]) -> Option<u64> {
    if input.len() < 8 {
        return None;
    }
    let (head, tail) = input.split_at(8);
    *input = tail;
    Some(u64::from_le_bytes(head.try_into().ok()?))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url_encode(raw: &[u8]) -> String {
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

fn base64url_decode(token: &str) -> Option<Vec<u8>> {
    let bytes = token.as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
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
                _ => return None,
            };
            n |= u32::from(v) << (18 - 6 * i);
        }
        let produced = chunk.len() - 1;
        // Bits below the last whole byte must be zero, so that each byte
        // string has exactly one token.
        let unused_bits = 24 - 8 * produced;
        if n & ((1u32 << unused_bits) - 1) != 0 {
            return None;
        }
        for i in 0..produced {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_length() {
        for len in 0..40 {
            let raw: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64url_decode(&base64url_encode(&raw)), Some(raw));
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
    fn i64_keys_round_trip() {
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -300] {
            let mut out = Vec::new();
            v.encode_key(&mut out);
            let mut input = out.as_slice();
            assert_eq!(i64::decode_key(&mut input), Some(v));
        }
    }

    #[test]
    fn start_round_trips_and_zero_is_not_flagged() {
        for start in [0u64, 1, 127, 128, u64::MAX] {
            let c = Cursor::build(7, Some(3), start, vec![1, 2]);
            let parsed = Cursor::parse(c.as_str()).expect("own token");
            assert_eq!(parsed, c);
            assert_eq!(parsed.start(), start);
            // Moving a cursor keeps its key and binding.
            let moved = parsed.clone().at(5);
            assert_eq!((moved.start(), &moved.key), (5, &parsed.key));
            assert_eq!(moved.fingerprint, parsed.fingerprint);
        }
        // A start of 0 is written by leaving the flag off; a token that
        // flags a zero start is not one candor wrote.
        let mut raw = vec![VERSION, FLAG_START];
        raw.extend_from_slice(&7u64.to_le_bytes());
        write_varint(&mut raw, 0);
        write_varint(&mut raw, 0);
        let sum = checksum(&raw);
        raw.extend_from_slice(&sum.to_le_bytes());
        let err = Cursor::parse(&base64url_encode(&raw)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
            "{err:?}"
        );
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
