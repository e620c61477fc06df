//! What the engine needs of a corpus: the private `Source` trait, which
//! each corpus (`Documents`, `Tree`) implements and through which every
//! query of the public `Corpus` trait runs.
//!
//! A corpus is a source of files in path order. A new one implements
//! `Source` and nothing else: the engine opens and searches the files it
//! yields, applies the budgets, orders nothing (the source's order is the
//! answer's), and writes the cursors.

use std::ops::ControlFlow;

use crate::error::{Error, ErrorKind};
use crate::search::engine::{FileOutcome, Plan, Search, no_match, search_file};
use crate::search::reader::Opened;
use crate::{Fingerprint, Scope, SkippedInput};

/// One entry of a corpus, in path order.
pub(crate) enum Entry<'a> {
    /// A file to search: its path, as the corpus writes it, and how to
    /// open it. The engine calls `open` at most once, and not at all when
    /// no file may be read (`max_files(0)`).
    File {
        path: &'a str,
        open: &'a dyn Fn() -> Opened<'a>,
    },
    /// A file the corpus knows holds no matching line for this plan,
    /// without reading it (an index that rules it out): it counts as
    /// searched whole, `len` bytes scanned, with no match. Only for a
    /// file that would be searched whole: not the one the plan resumes
    /// in.
    #[cfg_attr(not(test), allow(dead_code))]
    NoMatch { path: &'a str, len: u64 },
    /// An input the corpus leaves out, and why (a recorded skip, a path
    /// the caller named that is not there), where it comes in path order.
    Skip(SkippedInput),
}

/// What the engine needs of a corpus.
///
/// A corpus implements the identity and path methods, and `files`: its
/// files in path order. Everything else (opening each file through
/// `Entry::File`, reading it through the fixed buffer, matching, the
/// budgets, the order of the results and the cursors) is the engine's.
/// `run` searches the entries one after the other; a corpus that
/// searches in parallel (the tree) overrides it and hands on the same
/// outcomes in the same order.
pub(crate) trait Source: Sync {
    /// Identifies the corpus (its root and options), for cursors.
    fn fingerprint(&self) -> u64;
    /// The corpus's version, if it has one: cursors of another version
    /// are refused as stale.
    fn generation(&self) -> Option<u64>;
    /// Normalizes and confines a caller's path; fails when it leaves the
    /// corpus or does not exist. A path the caller names is found whatever
    /// the hidden and ignore rules say; on a tree, it is found name by name
    /// from the root's handle, through no link unless links are followed.
    fn resolve(&self, path: &str) -> Result<Resolved, Error>;
    /// Normalizes and confines a path filter of the caller's; fails only
    /// when it leaves the corpus or is no path. Whether it exists is not
    /// asked here: `files` counts a named path it cannot search in
    /// `skipped`, where it comes in path order, and yields the others.
    fn filter_path(&self, path: &str) -> Result<String, Error>;
    /// Checks a cursor's position: a path exactly as the corpus writes
    /// its inputs' paths. It need not exist any more (the search resumes
    /// after where it was); it is never opened.
    fn check_position(&self, path: &str) -> Result<(), Error>;
    /// What changes when the input at `path` changes (on a tree: its
    /// inode, size and modification time), recorded in a search cursor
    /// and compared when it is resumed; `None` when the corpus has nothing
    /// to tell (then its generation does that work).
    fn stamp(&self, path: &str) -> Option<u64>;
    /// Opens one file named by a resolved path (a caller's, or a
    /// cursor's), for the reader: no hidden or ignore rule applies here,
    /// only the read policy, which the reader applies.
    fn open(&self, path: &str) -> Opened<'_>;

    /// Hands each entry of the corpus to `each`, in path order (see
    /// `path::cmp_paths`), until `each` breaks or the entries run out:
    ///
    /// - from `plan.start`, if set: the file at its path first, if it is
    ///   still there (a source that can seeks there rather than reading
    ///   what comes before);
    /// - only the files within `plan.filters` (each a path or a folder),
    ///   when there are any; a filter that names nothing the corpus holds
    ///   is yielded as a `Skip` (reason `vanished`, detail `"not found"`)
    ///   where it comes in path order;
    /// - each file as `Entry::File`, or as `Entry::NoMatch` when the
    ///   corpus knows it holds no match of `plan.matcher` without reading
    ///   it; and every input it leaves out that the caller should hear of
    ///   as `Entry::Skip`.
    ///
    /// # Errors
    ///
    /// An error of the corpus itself (its root cannot be listed, say)
    /// ends the query; an input that cannot be read is a `Skip`, not an
    /// error.
    fn files(
        &self,
        plan: &Plan<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error>;

    /// Hands the outcome of each entry, in path order, to `take`, until it
    /// breaks or the entries run out: each file searched on this thread,
    /// one after the other.
    fn run(
        &self,
        search: &Search<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let mut buffer = Vec::new();
        let matcher = search.plan.matcher;
        self.files(&search.plan, &mut |entry| match entry {
            Entry::File { path, open } => {
                take(search_file(search, matcher, path, open, &mut buffer))
            }
            Entry::NoMatch { path, len } => take(no_match(search, path, len)),
            Entry::Skip(input) => take(FileOutcome::Skipped(input)),
        })
    }

    /// Resolves a path the caller names as one file: anything but a
    /// folder (a FIFO or device is then skipped by the reader, as
    /// `special`).
    fn resolve_file(&self, path: &str) -> Result<Resolved, Error> {
        let resolved = self.resolve(path)?;
        if !resolved.is_file {
            return Err(ErrorKind::NotFound {
                path: path.to_owned(),
            }
            .into());
        }
        Ok(resolved)
    }

    /// The scope of cursors bound to `fingerprint` on this corpus, and to
    /// its generation if it has one.
    fn scope(&self, fingerprint: Fingerprint) -> Scope {
        let scope = Scope::new(fingerprint);
        match self.generation() {
            Some(g) => scope.generation(g),
            None => scope,
        }
    }
}

/// A caller's path, normalized and found in the corpus.
pub(crate) struct Resolved {
    pub(crate) path: String,
    pub(crate) is_file: bool,
}
