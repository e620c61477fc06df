//! `JsonStream`: the wire shape of a stream, written once the stream's end
//! is known, with the serialized items held in a spill the caller chooses.

use std::io::{self, Read, Seek, SeekFrom, Write};

use serde::Serialize;

use crate::envelope::{Envelope, NoItems};

/// How many serialized bytes wait in memory before they go to the spill.
const PENDING_BYTES: usize = 64 * 1024;

/// Writes a stream's wire shape: items are serialized as they come and
/// kept as bytes (never as items), and the whole response is written once
/// the stream's end is known, because the disclosure comes first on the
/// wire.
///
/// The bytes are kept in a spill: in memory by default
/// ([`new`](Self::new)), or in any `Read + Write + Seek` the caller
/// chooses ([`with_spill`](Self::with_spill)), such as a temporary file.
/// [`write`](Self::write) writes the disclosure, then copies the items
/// from the spill to the writer.
///
/// Memory: in memory, the serialized items' bytes; with another spill, at
/// most 64 KiB of them waiting to go to it, plus one item's while it is
/// serialized and a copy buffer while it is written, whatever the size of
/// the answer.
///
/// The output-bytes budget does not apply to a stream
/// (`candor_search::Corpus::search_each` refuses `max_bytes`): to
/// keep a response within a byte budget, collect it with a budget
/// (`candor_search::Corpus::search`, whose result is then at most
/// `max_bytes` long) and write it with
/// [`Bounded::write_json`](crate::Bounded::write_json).
///
/// # Example
///
/// ```
/// use candor::collector::Collector;
/// use candor::{JsonStream, Limits};
/// let mut json = JsonStream::new();
/// // Items handed on as they are kept (as a search's `try_search_each`
/// // hands on its matches); a push that fails ends the stream.
/// let mut collector = Collector::streaming(&Limits::new().limit(2));
/// for line in ["fish", "fish", "fish"] {
///     if collector.offer(line).is_break() {
///         break;
///     }
///     json.push(&line)?;
/// }
/// let end = collector.finish_parts(|_| None, None)?.into_streamed();
/// let mut out = Vec::new();
/// json.write(&end, &mut out)?;
/// let text = String::from_utf8(out)?;
/// assert!(text.starts_with(r#"{"complete":false,"truncation":{"by":"limit","limit":2"#));
/// assert!(text.contains(r#""count":2,"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct JsonStream<S = io::Cursor<Vec<u8>>> {
    spill: S,
    /// Where the items begin in the spill, once some went there.
    start: Option<u64>,
    /// How many bytes of items are in the spill.
    spilled: u64,
    /// The items' bytes that follow the spilled ones, not yet in the spill.
    pending: Vec<u8>,
    count: usize,
}

impl JsonStream {
    /// An empty stream that keeps its items' bytes in memory.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::JsonStream::new().count(), 0);
    /// ```
    #[must_use]
    pub fn new() -> JsonStream {
        JsonStream::with_spill(io::Cursor::new(Vec::new()))
    }
}

impl Default for JsonStream {
    fn default() -> JsonStream {
        JsonStream::new()
    }
}

impl<S> std::fmt::Debug for JsonStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonStream")
            .field("count", &self.count)
            .field("spilled", &self.spilled)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl<S: Read + Write + Seek> JsonStream<S> {
    /// An empty stream that keeps its items' bytes in `spill`, from the
    /// spill's position when the first bytes go there. Nothing else may
    /// write to the spill while the stream holds it.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Bounded, JsonStream, Limits};
    /// // Any `Read + Write + Seek`; a temporary file keeps memory flat.
    /// let mut json = JsonStream::with_spill(std::io::Cursor::new(Vec::new()));
    /// let mut collector = Collector::streaming(&Limits::new());
    /// for word in ["red fish", "blue fish"] {
    ///     let _ = collector.offer(word);
    ///     json.push(&word)?;
    /// }
    /// let end = collector.finish_parts(|_| None, None)?.into_streamed();
    /// let mut out = Vec::new();
    /// json.write(&end, &mut out)?;
    /// // The same bytes as the collected answer's.
    /// let collected = Bounded::collect(["red fish", "blue fish"], &Limits::new())?;
    /// assert_eq!(String::from_utf8(out)?, collected.to_json()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_spill(spill: S) -> JsonStream<S> {
        JsonStream {
            spill,
            start: None,
            spilled: 0,
            pending: Vec::new(),
            count: 0,
        }
    }

    /// Serializes the next item and keeps its bytes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when the item
    /// fails to serialize, or when the spill fails to take the bytes
    /// before it; nothing of the item is kept, and the stream stays usable.
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
        if self.pending.len() >= PENDING_BYTES {
            self.spill_pending().map_err(|e| io_error(spill_error(e)))?;
        }
        let before = self.pending.len();
        if self.count > 0 {
            self.pending.push(b',');
        }
        if let Err(source) = serde_json::to_writer(&mut self.pending, item) {
            self.pending.truncate(before);
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
    /// bytes [`Bounded::to_json`](crate::Bounded::to_json) would write for
    /// the same items. The disclosure is written first, then the items
    /// are copied from the spill, a bounded buffer at a time; the stream
    /// keeps its items, so more can be pushed, or the same written again.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// when `end` counts another number of items than were pushed;
    /// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when the
    /// writer or the spill fails.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{JsonStream, Limits};
    /// let mut collector = Collector::streaming(&Limits::new());
    /// let _ = collector.offer("x");
    /// let end = collector.finish_parts(|_| None, None)?.into_streamed();
    /// // Nothing was pushed, but the stream handed on one item.
    /// assert!(JsonStream::new().write(&end, Vec::new()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write(
        &mut self,
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
        writer.write_all(head).map_err(io_error)?;
        self.copy_spilled(&mut writer).map_err(io_error)?;
        writer.write_all(&self.pending).map_err(io_error)?;
        writer.write_all(tail).map_err(io_error)?;
        writer.flush().map_err(io_error)
    }

    /// Moves the pending bytes to the spill. What the spill took leaves
    /// `pending` even when it fails part way, so the two stay one sequence.
    fn spill_pending(&mut self) -> io::Result<()> {
        if self.start.is_none() {
            self.start = Some(self.spill.stream_position()?);
        }
        let mut taken = 0;
        let result = loop {
            if taken == self.pending.len() {
                break Ok(());
            }
            match self.spill.write(&self.pending[taken..]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => taken += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.spilled += taken as u64;
        self.pending.drain(..taken);
        result
    }

    /// Copies the spilled bytes to `writer`, then puts the spill's position
    /// back after them, where the next bytes go.
    fn copy_spilled(&mut self, writer: &mut impl Write) -> io::Result<()> {
        let Some(start) = self.start else {
            return Ok(());
        };
        // `io::copy` on the concrete types (no `dyn`): on Linux, a file
        // spill then moves in the kernel (`sendfile`, `copy_file_range`).
        let spilled = self.spilled;
        let mut read_back = || -> io::Result<u64> {
            self.spill.flush().map_err(spill_error)?;
            self.spill
                .seek(SeekFrom::Start(start))
                .map_err(spill_error)?;
            io::copy(&mut (&mut self.spill).take(spilled), writer)
        };
        let copied = read_back();
        let back = self.spill.seek(SeekFrom::Start(start + self.spilled));
        let copied = copied?;
        back.map_err(spill_error)?;
        if copied != self.spilled {
            return Err(spill_error(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "it holds {copied} of the {} bytes written to it",
                    self.spilled
                ),
            )));
        }
        Ok(())
    }
}

/// A failure of the spill, told apart from one of the writer in its message
/// (the kind stays, so a caller can still tell a reader that went away).
fn spill_error(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("the spill failed: {e}"))
}

fn io_error(source: io::Error) -> crate::Error {
    crate::Error::from(crate::ErrorKind::Serialize {
        source: serde_json::Error::io(source),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bounded, Limits};

    /// A spill in memory that fails the writes it is told to.
    struct Flaky {
        inner: io::Cursor<Vec<u8>>,
        /// How many more writes succeed before every write fails; each
        /// takes at most 1000 bytes.
        writes_left: usize,
    }

    impl Read for Flaky {
        fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
            self.inner.read(into)
        }
    }

    impl Write for Flaky {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.writes_left == 0 {
                return Err(io::Error::other("no space left"));
            }
            self.writes_left -= 1;
            self.inner.write(&bytes[..bytes.len().min(1000)])
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Seek for Flaky {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            self.inner.seek(to)
        }
    }

    #[test]
    fn a_failed_spill_keeps_nothing_of_the_item_and_the_stream_usable() {
        let item = "x".repeat(1000);
        let mut json = JsonStream::with_spill(Flaky {
            inner: io::Cursor::new(Vec::new()),
            writes_left: usize::MAX,
        });
        let mut expected = Vec::new();
        while json.pending.len() < PENDING_BYTES {
            json.push(&item).unwrap();
            expected.push(item.clone());
        }
        // The spill takes three writes' worth of the pending bytes, then fails.
        json.spill.writes_left = 3;
        let err = json.push(&"lost").unwrap_err();
        assert!(matches!(err.kind(), crate::ErrorKind::Serialize { .. }));
        assert!(err.to_string().contains("serialize"), "{err}");
        assert_eq!(json.count(), expected.len());
        assert_eq!(json.spilled, 3000);
        json.spill.writes_left = usize::MAX;
        json.push(&"kept").unwrap();
        expected.push("kept".to_owned());
        // Past the next spill too.
        for _ in 0..100 {
            json.push(&item).unwrap();
            expected.push(item.clone());
        }
        assert!(json.spilled > PENDING_BYTES as u64);
        let collected = Bounded::collect(expected.iter().cloned(), &Limits::new()).unwrap();
        let end = crate::Streamed::new(collected.len(), collected.disclosure().clone());
        let mut out = Vec::new();
        json.write(&end, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            collected.to_json().unwrap()
        );
    }

    /// A writer that takes nothing.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_writer_is_a_serialize_error_with_its_io_kind() {
        let mut json = JsonStream::with_spill(io::Cursor::new(Vec::new()));
        json.push(&1).unwrap();
        let end = crate::Streamed::new(1, Bounded::exact(vec![1]).into_parts().1);
        let err = json.write(&end, Closed).unwrap_err();
        let crate::ErrorKind::Serialize { source } = err.kind() else {
            panic!("{err:?}");
        };
        assert_eq!(source.io_error_kind(), Some(io::ErrorKind::BrokenPipe));
    }
}
