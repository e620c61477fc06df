//! `Cursor`: an opaque resume point, and its token (version, scope,
//! start, resume key, checksum). Which query a cursor belongs to is
//! `scope.rs`; the keys it can carry, `key.rs`; the token's bytes,
//! `codec.rs`.

mod codec;
mod key;
mod scope;

use std::fmt;
use std::hash::Hasher;
use std::str::FromStr;

use crate::SkipTally;
use crate::error::{Error, ErrorKind};
use codec::{Fnv64, base64url_decode, base64url_encode, read_u64, read_varint, write_varint};

pub use key::CursorKey;
#[cfg(feature = "opensearch")]
pub(crate) use key::MAX_JSON_DEPTH;
pub use scope::{Fingerprint, Scope};

/// The longest token [`Cursor::parse`] accepts, in characters.
const MAX_TOKEN_LEN: usize = 8192;
/// The token format's version, the first byte of every token.
const VERSION: u8 = 1;
const FLAG_GENERATION: u8 = 1;
/// Set when the token carries how many items came before it.
const FLAG_START: u8 = 2;
/// Set when the token carries how many inputs the pages before it skipped
/// (and how many for an error). Tokens written before it was known still
/// read, as skipping nothing.
const FLAG_SKIPPED: u8 = 4;
/// Mixed into the checksum so that a token of another format that happens to
/// decode is still refused.
const CHECKSUM_SALT: &[u8] = b"candor-cursor-v1";
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
/// generation and the corpus itself (its path must name a file of the
/// corpus, its offset a line start there), and confinement to the corpus
/// root never depends on where a cursor came from. What a search cursor
/// says of its position beyond that is trusted: a token rewritten to
/// carry another line number for its offset gives a page whose line
/// numbers are off by as much, where counting them again would cost a
/// read of the file from its start on every page.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Cursor, Fingerprint, Limits, Scope};
///
/// let scope = Scope::new(Fingerprint::of("numbers below 25"));
/// let page = Bounded::page(0..25u32, &Limits::new().limit(10), &scope, None)?;
/// let token = page.next_cursor().expect("more pages").to_string();
///
/// // Later, perhaps in another process:
/// let cursor: Cursor = token.parse()?;
/// let page2 = Bounded::page(0..25u32, &Limits::new().limit(10), &scope, Some(&cursor))?;
/// assert_eq!(page2.items()[0], 10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cursor {
    token: String,
    fingerprint: u64,
    generation: Option<u64>,
    start: u64,
    skipped: SkipTally,
    key: Vec<u8>,
}

impl Cursor {
    fn build(
        fingerprint: u64,
        generation: Option<u64>,
        start: u64,
        skipped: SkipTally,
        key: Vec<u8>,
    ) -> Cursor {
        let mut raw = Vec::with_capacity(40 + key.len());
        raw.push(VERSION);
        let mut flags = 0;
        if generation.is_some() {
            flags |= FLAG_GENERATION;
        }
        if start > 0 {
            flags |= FLAG_START;
        }
        if !skipped.is_empty() {
            flags |= FLAG_SKIPPED;
        }
        raw.push(flags);
        raw.extend_from_slice(&fingerprint.to_le_bytes());
        if let Some(g) = generation {
            raw.extend_from_slice(&g.to_le_bytes());
        }
        if start > 0 {
            write_varint(&mut raw, start);
        }
        if !skipped.is_empty() {
            write_varint(&mut raw, skipped.total());
            write_varint(&mut raw, skipped.errors());
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
            skipped,
            key,
        }
    }

    /// The same resume point, after `start` items of the full answer.
    pub(crate) fn at(self, start: u64) -> Cursor {
        let skipped = self.skipped;
        self.placed(start, skipped)
    }

    /// The same resume point, after `start` items of the full answer and
    /// pages that skipped `skipped` inputs.
    pub(crate) fn placed(self, start: u64, skipped: SkipTally) -> Cursor {
        if start == self.start && skipped == self.skipped {
            return self;
        }
        Cursor::build(self.fingerprint, self.generation, start, skipped, self.key)
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
    /// let token = Scope::new(Fingerprint::of("q")).cursor(&5u64, 0).to_string();
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
        let raw = base64url_decode(token).map_err(Error::malformed_cursor)?;
        // version + flags + fingerprint + key length + checksum
        if raw.len() < 2 + 8 + 1 + 8 {
            return Err(Error::malformed_cursor(
                "token is too short to be one: it was cut",
            ));
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
        if flags & !(FLAG_GENERATION | FLAG_START | FLAG_SKIPPED) != 0 {
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
        let skipped = if flags & FLAG_SKIPPED != 0 {
            let total = read_varint(&mut rest).ok_or(ErrorKind::TamperedCursor)?;
            let errors = read_varint(&mut rest).ok_or(ErrorKind::TamperedCursor)?;
            if total == 0 || errors > total {
                return Err(Error::malformed_cursor(
                    "its skips are flagged but none, or more errors than skips",
                ));
            }
            SkipTally::new(total, errors)
        } else {
            SkipTally::default()
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
            skipped,
            key: rest.to_vec(),
        })
    }

    /// The token, for a client to send back.
    ///
    /// # Example
    ///
    /// ```
    /// let c = candor::Scope::new(candor::Fingerprint::of("q")).cursor(&1u64, 0);
    /// assert_eq!(c.as_str(), c.to_string());
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.token
    }

    /// How many items of the full answer came before this cursor: the
    /// resumed page's [`Disclosure::start`](crate::Disclosure::start).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("numbers below 25"));
    /// let page = Bounded::page(0..25u32, &Limits::new().limit(10), &scope, None)?;
    /// assert_eq!(page.next_cursor().map(|c| c.start()), Some(10));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The corpus generation the cursor is bound to, if its scope had one
    /// ([`Scope::generation`]).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Scope};
    /// let scope = Scope::new(Fingerprint::of("q")).generation(7);
    /// assert_eq!(scope.cursor("key", 0).generation(), Some(7));
    /// assert_eq!(Scope::new(Fingerprint::of("q")).cursor("key", 0).generation(), None);
    /// ```
    #[must_use]
    pub fn generation(&self) -> Option<u64> {
        self.generation
    }

    /// How many inputs the pages before this cursor skipped (and how many
    /// of them for an error): a page resumed from it adds its own to say
    /// what the walk skipped so far
    /// ([`Bounded::skipped_so_far`](crate::Bounded::skipped_so_far)).
    /// Tokens that carry none (a walk that skipped nothing yet, or one
    /// written by an older candor) read as none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Fingerprint, Limits, Scope, SkipReason, SkippedInput};
    /// let scope = Scope::new(Fingerprint::of("lines with x"));
    /// let mut collector = Collector::new(&Limits::new().limit(1));
    /// collector.skip(SkippedInput::new("b.bin", SkipReason::Binary));
    /// let _ = collector.offer(1u32);
    /// let _ = collector.offer(2u32); // the page is full
    /// let page = collector.finish(|kept| kept.last().map(|n| scope.cursor(n, 0)), None)?;
    /// assert_eq!(page.next_cursor().map(|c| c.skipped_before().total()), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn skipped_before(&self) -> SkipTally {
        self.skipped
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trips_and_zero_is_not_flagged() {
        for start in [0u64, 1, 127, 128, u64::MAX] {
            let c = Cursor::build(7, Some(3), start, SkipTally::default(), vec![1, 2]);
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
}
