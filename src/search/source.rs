//! What the engine needs of a corpus: the private `Source` trait, which
//! each corpus (`Documents`, `Tree`) implements and through which every
//! query of the public `Corpus` trait runs.

use std::ops::ControlFlow;

use crate::error::{Error, ErrorKind};
use crate::search::engine::{FileOutcome, Plan};
use crate::search::reader::Opened;
use crate::{Fingerprint, Scope};

/// What the engine needs of a corpus.
pub(crate) trait Source: Sync {
    /// Identifies the corpus (its root and options), for cursors.
    fn fingerprint(&self) -> u64;
    fn generation(&self) -> Option<u64>;
    /// Normalizes and confines a caller's path; fails when it leaves the
    /// corpus or does not exist. A path the caller names is found whatever
    /// the hidden and ignore rules say; on a tree, it is found name by name
    /// from the root's handle, through no link unless links are followed.
    fn resolve(&self, path: &str) -> Result<Resolved, Error>;
    /// Normalizes and confines a path filter of the caller's; fails only
    /// when it leaves the corpus or is no path. Whether it exists is not
    /// asked here: `run` counts a named path it cannot search in
    /// `skipped`, where it comes in path order, and searches the others.
    fn filter_path(&self, path: &str) -> Result<String, Error>;
    /// Checks a cursor's position: a path exactly as the corpus writes
    /// its inputs' paths. It need not exist any more (the search resumes
    /// after where it was); it is never opened.
    fn check_position(&self, path: &str) -> Result<(), Error>;
    /// What changes when the input at `path` changes (on a tree: its
    /// inode, size and modification time), recorded in a search cursor
    /// and compared when it is resumed; `0` when the corpus has nothing to
    /// tell (then its generation does that work).
    fn stamp(&self, path: &str) -> u64;
    /// Opens one file named by a resolved path (a caller's, or the
    /// walk's), for the reader: no hidden or ignore rule applies here,
    /// only the read policy, which the reader applies.
    fn open(&self, path: &str) -> Opened<'_>;
    /// Hands the outcome of each file, in path order, to `take`, until it
    /// breaks or the files run out.
    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error>;

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
