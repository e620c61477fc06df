//! Strict mode's error: an incomplete result becomes an [`Error`] that
//! keeps what was found, in its wire form (or a stream's end).
//!
//! It sits above the result types, so that `error.rs` stays at the bottom
//! and imports none of them.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::summary::incomplete_summary;
use crate::{Bounded, Error, ErrorKind, Incomplete, Streamed};

impl Error {
    /// What a strict-mode error found, in its wire form: the items as
    /// JSON values (as [`serde_json::to_value`] writes them) and the
    /// disclosure unchanged. `None` for other errors, and for the end of a
    /// stream ([`stream_end`](Self::stream_end)).
    ///
    /// The items need not be `'static`, `Send` or `Sync`: they were
    /// serialized when the error was made. [`Bounded::to_json`] gives the
    /// wire JSON of what was found (object keys in the order of
    /// `serde_json::Map`: sorted, unless serde_json's `preserve_order`
    /// feature is on).
    ///
    /// The wire form is what JSON can hold: a float that is not a number
    /// or infinite is `null` (and will not decode as a float again), and
    /// an item that cannot be serialized at all (a map whose keys are not
    /// strings) makes the strict query's error that serialization error
    /// ([`ErrorKind::Serialize`]), with no partial result: such items
    /// cannot be put on the wire, in strict mode or under a byte budget.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Limits, Total};
    /// use serde_json::json;
    /// let words = String::from("ant bee cat");
    /// // Borrowed items: `&str` slices of a local string.
    /// let err = Limits::new().limit(2).strict(true).collect(words.split(' ')).unwrap_err();
    /// let partial = err.partial().expect("strict errors keep what was found");
    /// assert_eq!(partial.items(), &[json!("ant"), json!("bee")]);
    /// assert_eq!(partial.total(), Total::AtLeast(3));
    /// ```
    #[must_use]
    pub fn partial(&self) -> Option<&Bounded<Value>> {
        self.partial_any()?.downcast_ref::<Bounded<Value>>()
    }

    /// Decodes what a strict-mode error found as items of type `T`, with
    /// the disclosure unchanged; gives the error back when it holds no
    /// partial result or the items do not decode as `T`.
    ///
    /// Any type that reads the items' wire form will do: the type the
    /// query returned if it implements `Deserialize`, or an owned
    /// counterpart of borrowed items (`String` for `&str`).
    ///
    /// # Errors
    ///
    /// Returns `self` unchanged when it holds no partial result (see
    /// [`partial`](Self::partial)) or an item does not decode as `T`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// let err = Limits::new().limit(2).strict(true).collect(0..5u32).unwrap_err();
    /// // Not strings: the error comes back, partial result and all.
    /// let err = err.into_partial::<String>().unwrap_err();
    /// let partial = err.into_partial::<u32>().expect("strict errors keep the result");
    /// assert_eq!(partial.items(), &[0, 1]);
    /// ```
    pub fn into_partial<T: DeserializeOwned>(self) -> Result<Bounded<T>, Error> {
        let decoded = match self.partial() {
            Some(wire) => wire
                .items()
                .iter()
                .map(T::deserialize)
                .collect::<Result<Vec<T>, _>>()
                .ok()
                .map(|items| Bounded::assemble(items, wire.disclosure().clone())),
            None => None,
        };
        decoded.ok_or(self)
    }

    /// The strict-mode error for an incomplete result: it holds the
    /// result in its wire form. When an item fails to serialize, the
    /// error is that failure instead ([`ErrorKind::Serialize`]).
    pub(crate) fn incomplete<T: Serialize>(bounded: Bounded<T>) -> Error {
        let summary = incomplete_summary(bounded.disclosure(), bounded.len());
        let (items, disclosure) = bounded.into_parts();
        let items = match items
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<Vec<Value>, _>>()
        {
            Ok(items) => items,
            Err(source) => return ErrorKind::Serialize { source }.into(),
        };
        let wire: Bounded<Value> = Bounded::assemble(items, disclosure);
        Error::with_partial(ErrorKind::Incomplete { summary }, Box::new(wire))
    }

    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn incomplete_stream(streamed: Streamed) -> Error {
        let summary = incomplete_summary(streamed.disclosure(), streamed.count());
        Error::with_partial(ErrorKind::Incomplete { summary }, Box::new(streamed))
    }

    /// The end of an incomplete stream in strict mode, if this error holds
    /// one (see [`Corpus::search_each`](crate::Corpus::search_each)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\nx\nx\n");
    /// let limits = Limits::new().limit(1).strict(true);
    /// let err = docs.search_each(&Query::literal("x"), &limits, None, &mut |_| {}).unwrap_err();
    /// assert_eq!(err.stream_end().map(|s| s.count()), Some(1));
    /// assert!(err.partial().is_none());
    /// ```
    #[must_use]
    pub fn stream_end(&self) -> Option<&Streamed> {
        self.partial_any()?.downcast_ref::<Streamed>()
    }
}

/// The strict-mode error ([`ErrorKind::Incomplete`]) holding the result in
/// its wire form (see [`Error::partial`]); when an item fails to
/// serialize, the error is that failure ([`ErrorKind::Serialize`]).
impl<T: Serialize> From<Incomplete<T>> for Error {
    fn from(incomplete: Incomplete<T>) -> Error {
        Error::incomplete(incomplete.into_bounded())
    }
}
