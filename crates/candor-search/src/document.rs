//! One document of an in-memory corpus: its bytes, owned or borrowed, and
//! what every query would otherwise find out about them again.

use std::borrow::Cow;

use crate::reader::Known;

/// A document's bytes, owned or borrowed; built from `&str`, `String`,
/// `&[u8]` or `Vec<u8>`.
///
/// # Example
///
/// ```
/// use candor_search::DocBytes;
/// let borrowed: DocBytes<'_> = "text".into();
/// let owned: DocBytes<'static> = vec![0xffu8, b'\n'].into();
/// assert_eq!(borrowed.as_bytes(), b"text");
/// assert_eq!(owned.as_bytes().len(), 2);
/// ```
#[derive(Clone)]
pub struct DocBytes<'a> {
    bytes: Cow<'a, [u8]>,
    /// Made from a `str`: known to be UTF-8 without checking.
    is_str: bool,
}

// By the bytes alone, whatever they were made from.
impl PartialEq for DocBytes<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for DocBytes<'_> {}

impl std::fmt::Debug for DocBytes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DocBytes").field(&self.bytes).finish()
    }
}

impl DocBytes<'_> {
    /// The bytes.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor_search::DocBytes::from("a").as_bytes(), b"a");
    /// ```
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl<'a> From<&'a str> for DocBytes<'a> {
    fn from(text: &'a str) -> Self {
        DocBytes {
            bytes: Cow::Borrowed(text.as_bytes()),
            is_str: true,
        }
    }
}

impl From<String> for DocBytes<'_> {
    fn from(text: String) -> Self {
        DocBytes {
            bytes: Cow::Owned(text.into_bytes()),
            is_str: true,
        }
    }
}

impl<'a> From<&'a [u8]> for DocBytes<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        DocBytes {
            bytes: Cow::Borrowed(bytes),
            is_str: false,
        }
    }
}

impl From<Vec<u8>> for DocBytes<'_> {
    fn from(bytes: Vec<u8>) -> Self {
        DocBytes {
            bytes: Cow::Owned(bytes),
            is_str: false,
        }
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for DocBytes<'a> {
    fn from(bytes: &'a [u8; N]) -> Self {
        DocBytes {
            bytes: Cow::Borrowed(bytes),
            is_str: false,
        }
    }
}

/// A document and what every query would otherwise find out about it
/// again: its binary verdict and UTF-8 validity.
#[derive(Debug, Clone)]
pub(crate) struct Doc<'a> {
    pub(crate) bytes: DocBytes<'a>,
    pub(crate) known: Known,
}

impl<'a> Doc<'a> {
    pub(crate) fn new(bytes: DocBytes<'a>) -> Doc<'a> {
        let known = Known::of(bytes.as_bytes(), bytes.is_str);
        Doc { bytes, known }
    }

    /// What a search cursor records of the document (see
    /// `Source::stamp`): a hash of its bytes and length, never 0. Made
    /// when a cursor is issued or resumed in it, eight bytes a step.
    pub(crate) fn stamp(&self) -> u64 {
        let bytes = self.bytes.as_bytes();
        let mut hash = 0x9e37_79b9_7f4a_7c15_u64 ^ bytes.len() as u64;
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            hash = (hash ^ word).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            hash ^= hash >> 29;
        }
        for &b in words.remainder() {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x94d0_49bb_1331_11eb);
            hash ^= hash >> 29;
        }
        hash.max(1)
    }
}
