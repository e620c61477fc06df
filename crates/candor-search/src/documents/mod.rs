//! The in-memory corpus: named documents, searched in name order. What
//! the engine sees of them is `as_source.rs`.

use std::collections::BTreeMap;

use crate::Error;
use crate::document::{Doc, DocBytes};
use crate::path::{cmp_paths, normalize};

mod as_source;

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
/// What a query would find out about each document whatever its pattern
/// (whether it holds a NUL byte, which makes it binary, and whether it is
/// UTF-8) is found once, when the document is added: a query over many
/// small documents costs about what finding the pattern in their bytes
/// costs.
///
/// # Example
///
/// ```
/// use candor_search::{Corpus, Documents, Limits, Query};
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
    docs: BTreeMap<Name, Doc<'a>>,
    generation: Option<u64>,
}

impl<'a> Documents<'a> {
    /// An empty corpus.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor_search::Documents::new().is_empty());
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
    /// let docs = candor_search::Documents::new().with("a.txt", "hello\n");
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
    /// normalized as a caller's path is (`./a//b` is `a/b`): `\` separates
    /// names as `/` does (`a\b` is `a/b`), and a name whose first part reads
    /// as a drive (`c:x`, also once normalized, as in `./c:x`) is absolute.
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
    /// let mut docs = candor_search::Documents::new();
    /// docs.insert("a.txt", b"bytes\xff\n".to_vec())?;
    /// assert_eq!(docs.names().collect::<Vec<_>>(), ["a.txt"]);
    /// assert!(docs.insert("/abs.txt", "x").is_err());
    /// assert!(docs.insert(".", "x").is_err());
    /// assert!(docs.insert("./c:x", "x").is_err());
    /// docs.insert("d\\e.txt", "x")?;
    /// assert_eq!(docs.names().collect::<Vec<_>>(), ["a.txt", "d/e.txt"]);
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
        let doc = Doc::new(bytes.into());
        self.docs.insert(Name(normalized), doc);
        Ok(())
    }

    /// Binds cursors to this generation of the corpus: a cursor issued at
    /// another generation is refused as stale. Change it whenever the
    /// documents change. Default: none: a search cursor is then refused as
    /// stale when the document it resumes in changed (its bytes are
    /// hashed), or a document before it was added or removed, and
    /// resumes when only documents after it, or the text of those before
    /// it, changed (as a [`Tree`](crate::Tree)'s does). With a generation
    /// set, the documents before a cursor are not counted (the document
    /// it resumes inside is still hashed): a generation left unchanged
    /// while a document before the cursor, or the one its page ended
    /// after, was added, removed or renamed lets the cursor resume, and
    /// the pages after it miss or repeat that document's items.
    ///
    /// # Example
    ///
    /// ```
    /// use candor_search::{Corpus, Documents, ErrorKind, Limits, Query};
    /// let old = Documents::new().with("a.txt", "x\nx\n").generation(3);
    /// let page = old.search(&Query::literal("x"), &Limits::new().limit(1), None)?;
    /// let new = Documents::new().with("a.txt", "x\nx\n").generation(4);
    /// let err = new.search(&Query::literal("x"), &Limits::new(), page.next_cursor()).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
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
    /// assert_eq!(candor_search::Documents::new().with("a", "").len(), 1);
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
    /// assert!(candor_search::Documents::new().is_empty());
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
    /// let docs = candor_search::Documents::new().with("b", "").with("a/z", "").with("a-c", "");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Source;
    use crate::{Corpus, ErrorKind, Limits, Query, SkipReason};

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
            // The root, and a folder of names, are no document.
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::NotFound { .. } | ErrorKind::NotAFile { .. }
                ),
                "{path:?}: {err}"
            );
        }
    }

    /// The documents of `ops` (name, bytes) applied in order, as a naive
    /// map: the last bytes given for each name.
    fn naive(ops: &[(&str, &[u8])]) -> BTreeMap<String, Vec<u8>> {
        ops.iter()
            .map(|(n, b)| ((*n).to_owned(), b.to_vec()))
            .collect()
    }

    const OPS: &[(&str, &[u8])] = &[
        ("a.txt", b"needle\n"),
        ("b/c.txt", b"no\nneedle here\n"),
        // Replaced by bytes of another size, then of the same size.
        ("a.txt", b"needle\0\n"),
        ("a.txt", b"needle\n\0"),
        ("d.txt", b"\xffneedle\n"),
        // Back to text, then binary again.
        ("a.txt", b"x needle\n"),
        ("d.txt", b"\0"),
        ("e.txt", b""),
        ("b/c.txt", b"needle\n"),
    ];

    #[test]
    fn a_cursor_is_stale_when_its_document_changed_or_one_before_it_came_or_went() {
        let q = Query::literal("hit");
        let two = Limits::new().limit(2);
        let first = Documents::new()
            .with("b.txt", "hit 1\nhit 2\nhit 3\nhit 4\n")
            .with("d.txt", "hit\n");
        let page = first.search(&q, &two, None).unwrap();
        let cursor = page.next_cursor().expect("more");
        let resume = |docs: &Documents<'_>| docs.search(&q, &Limits::new(), Some(cursor));
        let stale = |docs: Documents<'_>, what: &str| {
            let err = resume(&docs).expect_err(what);
            assert!(
                matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                "{what}: {err}"
            );
        };
        // The document it resumes in, rewritten to the same size.
        stale(
            first.clone().with("b.txt", "hit A\nmiss \nhit C\nhit D\n"),
            "same-size rewrite",
        );
        // A document added before it, or one before it removed.
        stale(first.clone().with("a.txt", "hit 0\n"), "added before");
        let with_a = Documents::new()
            .with("a.txt", "x\n")
            .with("b.txt", "hit 1\nhit 2\nhit 3\nhit 4\n");
        let page_a = with_a.search(&q, &two, None).unwrap();
        let without_a = Documents::new().with("b.txt", "hit 1\nhit 2\nhit 3\nhit 4\n");
        let err = without_a
            .search(&q, &Limits::new(), page_a.next_cursor())
            .expect_err("removed before");
        assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
        // Documents after it, added or changed: it resumes, and sees them.
        let after = first
            .clone()
            .with("c.txt", "hit c\n")
            .with("d.txt", "hit\nhit\n");
        let rest = resume(&after).expect("resumes");
        assert_eq!(rest.start(), 2);
        assert_eq!(rest.len(), 5);
        // Unchanged: it resumes.
        assert_eq!(resume(&first).expect("resumes").len(), 3);
        // A page that ends after its document's last line: the document
        // rewritten, it resumes; renamed past the cursor, or gone, stale
        // (its lines were listed, and would be again, or counted wrongly).
        let whole = Documents::new()
            .with("a.txt", "hit 1\nhit 2\n")
            .with("c.txt", "hit 3\n");
        let page = whole.search(&q, &two, None).unwrap();
        let after_a = page.next_cursor().expect("more");
        let rewritten = whole.clone().with("a.txt", "hit 1\nhit 2\nhit new\n");
        let rest = rewritten
            .search(&q, &Limits::new(), Some(after_a))
            .expect("resumes after the rewritten document");
        assert_eq!((rest.start(), rest.len()), (2, 1));
        let renamed = Documents::new()
            .with("c.txt", "hit 3\n")
            .with("z.txt", "hit 1\nhit 2\n");
        for (docs, what) in [
            (renamed, "renamed"),
            (Documents::new().with("c.txt", "hit 3\n"), "gone"),
        ] {
            let err = docs
                .search(&q, &Limits::new(), Some(after_a))
                .expect_err(what);
            assert!(
                matches!(err.kind(), ErrorKind::StaleCursor { .. }),
                "{what}: {err}"
            );
        }
    }

    #[test]
    fn what_is_known_of_a_document_follows_its_replacements() {
        let query = Query::literal("needle");
        let mut docs = Documents::new();
        for step in 1..=OPS.len() {
            let (name, bytes) = OPS[step - 1];
            docs.insert(name, bytes).unwrap();
            for doc in docs.docs.values() {
                let bytes = doc.bytes.as_bytes();
                assert_eq!(doc.known.first_nul, bytes.iter().position(|&b| b == 0));
                assert_eq!(doc.known.utf8, std::str::from_utf8(bytes).is_ok());
            }
            // The oracle: a document with a NUL is skipped as binary,
            // every other one lists its lines holding the needle.
            let held = naive(&OPS[..step]);
            let mut want = Vec::new();
            let mut binary = 0;
            for (name, bytes) in &held {
                if bytes.contains(&0) {
                    binary += 1;
                    continue;
                }
                let mut offset = 0;
                for line in bytes.split_inclusive(|&b| b == b'\n') {
                    if line.windows(6).any(|w| w == b"needle") {
                        want.push((name.clone(), offset));
                    }
                    offset += line.len() as u64;
                }
            }
            let found = docs.search(&query, &Limits::new(), None).unwrap();
            let got: Vec<(String, u64)> = found
                .iter()
                .map(|m| (m.path.clone(), m.byte_offset))
                .collect();
            assert_eq!(got, want, "step {step}");
            assert_eq!(
                found.skipped().count(&SkipReason::Binary),
                binary,
                "step {step}"
            );
            // Whole words read invalid UTF-8 as a non-word character.
            let words = docs
                .count_per_file(&query.clone().whole_word(true), &Limits::new(), None)
                .unwrap();
            let want_files: Vec<&str> = {
                let mut files: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
                files.dedup();
                files
            };
            let got_files: Vec<&str> = words.iter().map(|c| c.path.as_str()).collect();
            assert_eq!(got_files, want_files, "step {step}");
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
