//! The wire layer: the decoder (`decode`), the schema and guide
//! (`schema`), and `JsonStream`, which writes a stream's wire shape. The
//! serde shape itself is `envelope.rs`, shared with the collector.

mod decode;
mod schema;

use serde::Serialize;

// For the links in `JsonStream`'s docs.
#[cfg(doc)]
use crate::Bounded;
use crate::envelope::{Envelope, NoItems};

pub use schema::{LLM_GUIDE, envelope_schema};

/// Writes a stream's wire shape: items are serialized as they come and
/// kept as bytes (never as items), and the whole response is written once
/// the stream's end is known, because the disclosure comes first on the
/// wire.
///
/// Memory: the serialized items' bytes, plus one item's while it is
/// serialized. Hold a stream's items this way when they are large in
/// memory but small in JSON, or when only the JSON is wanted; to keep
/// memory flat whatever the answer's size, bound it with a limit.
///
/// # Example
///
/// ```
/// use candor::{Corpus, Documents, JsonStream, Limits, Query};
/// let docs = Documents::new().with("a.txt", "fish\nfish\nfish\n");
/// let mut json = JsonStream::new();
/// let mut failed = None;
/// let end = docs.search_each(&Query::literal("fish"), &Limits::new().limit(2), None, &mut |m| {
///     if let Err(e) = json.push(m) {
///         failed.get_or_insert(e);
///     }
/// })?;
/// assert!(failed.is_none());
/// let mut out = Vec::new();
/// json.write(&end, &mut out)?;
/// let text = String::from_utf8(out)?;
/// assert!(text.starts_with(r#"{"complete":false,"truncation":{"by":"limit","limit":2"#));
/// assert!(text.contains(r#""count":2,"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct JsonStream {
    bytes: Vec<u8>,
    count: usize,
}

impl JsonStream {
    /// An empty stream.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::JsonStream::new().count(), 0);
    /// ```
    #[must_use]
    pub fn new() -> JsonStream {
        JsonStream::default()
    }

    /// Serializes the next item and keeps its bytes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when the item
    /// fails to serialize; nothing of it is kept.
    ///
    /// # Example
    ///
    /// ```
    /// let mut json = candor::JsonStream::new();
    /// json.push(&"a")?;
    /// assert_eq!(json.count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<(), crate::Error> {
        let before = self.bytes.len();
        if self.count > 0 {
            self.bytes.push(b',');
        }
        if let Err(source) = serde_json::to_writer(&mut self.bytes, item) {
            self.bytes.truncate(before);
            return Err(crate::ErrorKind::Serialize { source }.into());
        }
        self.count += 1;
        Ok(())
    }

    /// How many items were pushed.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::JsonStream::new().count(), 0);
    /// ```
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Writes the wire shape of the stream that ended with `end`: the
    /// bytes [`Bounded::to_json`] would write for the same items.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// when `end` counts another number of items than were pushed;
    /// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when the
    /// writer fails.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, JsonStream, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\n");
    /// let end = docs.search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// // Nothing was pushed, but the stream handed on one item.
    /// assert!(JsonStream::new().write(&end, Vec::new()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write(
        &self,
        end: &crate::Streamed,
        writer: impl std::io::Write,
    ) -> Result<(), crate::Error> {
        if end.count() != self.count {
            return Err(crate::Error::invalid_argument(
                "end",
                format!(
                    "the stream handed on {} items but {} were pushed",
                    end.count(),
                    self.count
                ),
            ));
        }
        let envelope = serde_json::to_vec(&Envelope {
            disclosure: end.disclosure(),
            count: self.count,
            items: NoItems,
        })
        .map_err(|source| crate::Error::from(crate::ErrorKind::Serialize { source }))?;
        // The envelope ends with its empty item list, `[]}`: the items go
        // between the brackets.
        let (head, tail) = envelope.split_at(envelope.len() - 2);
        let mut writer = writer;
        let io = |source: std::io::Error| {
            crate::Error::from(crate::ErrorKind::Serialize {
                source: serde_json::Error::io(source),
            })
        };
        writer.write_all(head).map_err(io)?;
        writer.write_all(&self.bytes).map_err(io)?;
        writer.write_all(tail).map_err(io)?;
        writer.flush().map_err(io)
    }
}
