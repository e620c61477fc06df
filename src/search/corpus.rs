//! The in-memory corpus: named documents, owned or borrowed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::error::{Error, ErrorKind};
use crate::search::engine::{FileOutcome, Plan, search_opened};
use crate::search::path::{cmp_paths, is_within, normalize};
use crate::search::reader::Opened;
use crate::search::{Resolved, Source};
use crate::{Fingerprint, SkipReason, SkippedInput};

/// A document's bytes, owned or borrowed; built from `&str`, `String`,
/// `&[u8]` or `Vec<u8>`.
///
/// # Example
///
/// ```
/// use candor::DocBytes;
/// let borrowed: DocBytes<'_> = "text".into();
/// let owned: DocBytes<'static> = vec![0xffu8, b'\n'].into();
/// assert_eq!(borrowed.as_bytes(), b"text");
/// assert_eq!(owned.as_bytes().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocBytes<'a>(Cow<'a, [u8]>);

impl DocBytes<'_> {
    /// The bytes.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::DocBytes::from("a").as_bytes(), b"a");
    /// ```
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl<'a> From<&'a str> for DocBytes<'a> {
    fn from(text: &'a str) -> Self {
        DocBytes(Cow::Borrowed(text.as_bytes()))
    }
}

impl From<String> for DocBytes<'_> {
    fn from(text: String) -> Self {
        DocBytes(Cow::Owned(text.into_bytes()))
    }
}

impl<'a> From<&'a [u8]> for DocBytes<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        DocBytes(Cow::Borrowed(bytes))
    }
}

impl From<Vec<u8>> for DocBytes<'_> {
    fn from(bytes: Vec<u8>) -> Self {
        DocBytes(Cow::Owned(bytes))
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for DocBytes<'a> {
    fn from(bytes: &'a [u8; N]) -> Self {
        DocBytes(Cow::Borrowed(bytes))
    }
}

/// Orders document names as paths, component by component.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Name(String);

impl Ord for Name {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        cmp_paths(&self.0, &other.0)
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// An in-memory corpus: documents with names, searched in name order.
///
/// Names are paths relative to an imaginary root, with `/` separators
/// (`./` and repeated slashes are normalized away). Adding a document
/// under a name already present replaces it. A name that names no file
/// (empty, `.`, absolute, above the root, or holding a NUL byte) is
/// refused by [`insert`](Documents::insert).
///
/// # Example
///
/// ```
/// use candor::{Corpus, Documents, Limits, Query};
///
/// let source = String::from("export const Typography = styled.div``;\n");
/// let docs = Documents::new()
///     .with("src/app.ts", source.as_str()) // borrowed
///     .with("README.md", String::from("Typography matters\n")); // owned
/// let found = docs.search(&Query::literal("Typography"), &Limits::new().limit(10), None)?;
/// assert_eq!(found.len(), 2);
/// assert_eq!(found.items()[0].path, "README.md"); // name order
/// assert!(found.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Documents<'a> {
    docs: BTreeMap<Name, DocBytes<'a>>,
    generation: Option<u64>,
}

impl<'a> Documents<'a> {
    /// An empty corpus.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Documents::new().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Documents<'a> {
        Documents::default()
    }

    /// Adds a document, replacing one of the same name.
    ///
    /// # Panics
    ///
    /// When [`insert`](Self::insert) refuses `name` (empty, `.`, absolute,
    /// above the root, or holding a NUL byte); use `insert` to get the
    /// error instead.
    ///
    /// # Example
    ///
    /// ```
    /// let docs = candor::Documents::new().with("a.txt", "hello\n");
    /// assert_eq!(docs.len(), 1);
    /// ```
    #[must_use]
    pub fn with(
        mut self,
        name: impl Into<String>,
        bytes: impl Into<DocBytes<'a>>,
    ) -> Documents<'a> {
        if let Err(e) = self.insert(name, bytes) {
            panic!("{e}");
        }
        self
    }

    /// Adds a document, replacing one of the same name. The name is
    /// normalized as a caller's path is (`./a//b` is `a/b`).
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) for a name
    /// that names no file: empty or `.` (the root), or holding a NUL byte;
    /// [`OutsideRoot`](crate::ErrorKind::OutsideRoot) for an absolute
    /// name or one that leaves the root (`../x`). A search could neither
    /// name such a document nor resume at it.
    ///
    /// # Example
    ///
    /// ```
    /// let mut docs = candor::Documents::new();
    /// docs.insert("a.txt", b"bytes\xff\n".to_vec())?;
    /// assert_eq!(docs.names().collect::<Vec<_>>(), ["a.txt"]);
    /// assert!(docs.insert("/abs.txt", "x").is_err());
    /// assert!(docs.insert(".", "x").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        bytes: impl Into<DocBytes<'a>>,
    ) -> Result<(), Error> {
        let name = name.into();
        let normalized = normalize(&name, None)?;
        if normalized.is_empty() {
            return Err(Error::invalid_argument(
                "name",
                format!("{name:?} names the root, not a document"),
            ));
        }
        self.docs.insert(Name(normalized), bytes.into());
        Ok(())
    }

    /// Binds cursors to this generation of the corpus: a cursor issued at
    /// another generation is refused as stale. Change it whenever the
    /// documents change. Default: none (cursors are bound to the names and
    /// sizes of the documents only).
    ///
    /// # Example
    ///
    /// ```
    /// let docs = candor::Documents::new().generation(3);
    /// # let _ = docs;
    /// ```
    #[must_use]
    pub fn generation(mut self, generation: u64) -> Documents<'a> {
        self.generation = Some(generation);
        self
    }

    /// How many documents there are.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Documents::new().with("a", "").len(), 1);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Returns true when there are no documents.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Documents::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The names, in search order.
    ///
    /// # Example
    ///
    /// ```
    /// let docs = candor::Documents::new().with("b", "").with("a/z", "").with("a-c", "");
    /// assert_eq!(docs.names().collect::<Vec<_>>(), ["a/z", "a-c", "b"]);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.docs.keys().map(|n| n.0.as_str())
    }
}

/// Collects named documents.
///
/// # Panics
///
/// When a name is refused, as [`Documents::with`].
impl<'a, N: Into<String>, B: Into<DocBytes<'a>>> FromIterator<(N, B)> for Documents<'a> {
    fn from_iter<I: IntoIterator<Item = (N, B)>>(iter: I) -> Self {
        let mut docs = Documents::new();
        for (name, bytes) in iter {
            docs = docs.with(name, bytes);
        }
        docs
    }
}

impl Source for Documents<'_> {
    fn fingerprint(&self) -> u64 {
        let names: Vec<(&str, usize)> = self
            .docs
            .iter()
            .map(|(n, b)| (n.0.as_str(), b.as_bytes().len()))
            .collect();
        Fingerprint::of(&("documents", names)).as_u64()
    }

    fn generation(&self) -> Option<u64> {
        self.generation
    }

    fn resolve(&self, path: &str) -> Result<Resolved, Error> {
        let path_norm = normalize(path, None)?;
        if self.docs.contains_key(&Name(path_norm.clone())) {
            return Ok(Resolved {
                path: path_norm,
                is_file: true,
            });
        }
        if self.docs.keys().any(|n| is_within(&n.0, &path_norm)) {
            return Ok(Resolved {
                path: path_norm,
                is_file: false,
            });
        }
        Err(ErrorKind::NotFound {
            path: path.to_owned(),
        }
        .into())
    }

    fn check_position(&self, path: &str) -> Result<(), Error> {
        match normalize(path, None) {
            Ok(written) if written == path && !path.is_empty() => Ok(()),
            _ => Err(Error::cursor_out_of_range(format!(
                "it names {path:?}, which is not a document name"
            ))),
        }
    }

    fn stamp(&self, _path: &str) -> u64 {
        // The fingerprint covers the names and sizes, the generation the
        // rest.
        0
    }

    fn open(&self, path: &str) -> Opened<'_> {
        match self.docs.get(&Name(path.to_owned())) {
            Some(bytes) => Opened::Memory(bytes.as_bytes()),
            // `resolve` found it: only a caller's bug gets here.
            None => Opened::Skip(SkippedInput::new(path, SkipReason::Vanished)),
        }
    }

    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let from = plan.start.as_ref().map(|(p, _)| Name(p.clone()));
        let range = match &from {
            Some(from) => self.docs.range(from..),
            None => self.docs.range::<Name, _>(..),
        };
        for (name, bytes) in range {
            if plan.is_stopped() {
                break;
            }
            if !plan.filters.is_empty() && !plan.filters.iter().any(|f| is_within(&name.0, f)) {
                continue;
            }
            if plan.reads_nothing {
                // `max_files(0)`: nothing is read.
                let _ = take(crate::search::engine::unread(&name.0));
                break;
            }
            let outcome = search_opened(
                plan,
                plan.matcher,
                &name.0,
                Opened::Memory(bytes.as_bytes()),
                &mut Vec::new(),
                None,
            );
            if take(outcome).is_break() {
                break;
            }
        }
        Ok(())
    }
}

crate::search::impl_corpus!(Documents<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Corpus, ErrorKind, Limits, Query};

    #[test]
    fn names_that_name_no_file_are_refused_at_insert() {
        let mut docs = Documents::new();
        for name in [
            "",
            ".",
            "./",
            "a/..",
            "/abs.txt",
            "../x",
            "a/../../x",
            "nul\0",
        ] {
            let err = docs.insert(name, "x\n").expect_err(name);
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::InvalidArgument { .. } | ErrorKind::OutsideRoot { .. }
                ),
                "{name:?}: {err}"
            );
        }
        assert!(docs.is_empty());
        docs.insert("./a//b.txt", "x\n").unwrap();
        assert_eq!(docs.names().collect::<Vec<_>>(), ["a/b.txt"]);
    }

    #[test]
    fn find_in_file_of_the_root_is_refused() {
        let docs = Documents::new().with("a.txt", "x\n").with("b/c.txt", "x\n");
        for path in [".", "", "b"] {
            let err = docs
                .find_in_file(path, &Query::literal("x"), &Limits::new(), None)
                .expect_err(path);
            assert!(
                matches!(err.kind(), ErrorKind::NotFound { .. }),
                "{path:?}: {err}"
            );
        }
    }

    #[test]
    fn a_cursor_names_a_document_as_it_is_written() {
        let docs = Documents::new().with("a.txt", "x\n");
        assert!(docs.check_position("a.txt").is_ok());
        // Not there any more: still a position to resume after.
        assert!(docs.check_position("gone.txt").is_ok());
        for bad in ["", "/abs.txt", "./a.txt", "a//b", "../x"] {
            assert!(docs.check_position(bad).is_err(), "{bad:?}");
        }
    }
}
