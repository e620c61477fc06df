//! The query's scope in a walk: a cursor's resume point, the path filters
//! and the caller's globs. An entry outside it is passed over without a
//! word (it is not counted in `skipped`), and a path the caller names is
//! searched whatever the hidden and ignore rules say.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};

use crate::error::Error;
use crate::search::path::{is_within, may_hold};

/// What the query lets the walk visit.
pub(super) struct QueryScope<'a> {
    /// Where to resume, as the names (bytes) from the root of the input
    /// to begin with: inputs before it, in walk order, are passed over.
    start: Option<Vec<Vec<u8>>>,
    /// Normalized path filters; empty for the whole corpus.
    filters: &'a [String],
    /// The caller's globs, if any.
    overrides: Option<Override>,
}

impl<'a> QueryScope<'a> {
    /// The scope of a walk of `root`.
    ///
    /// # Errors
    ///
    /// An invalid argument when a glob does not parse.
    pub(super) fn new(
        root: &Path,
        globs: &[String],
        start: Option<Vec<Vec<u8>>>,
        filters: &'a [String],
    ) -> Result<QueryScope<'a>, Error> {
        let overrides = if globs.is_empty() {
            None
        } else {
            let mut builder = OverrideBuilder::new(root);
            for glob in globs {
                builder.add(glob).map_err(|e| {
                    Error::invalid_argument("globs", format!("bad glob {glob:?}: {e}"))
                })?;
            }
            let built = builder
                .build()
                .map_err(|e| Error::invalid_argument("globs", e.to_string()))?;
            Some(built)
        };
        Ok(QueryScope {
            start,
            filters,
            overrides,
        })
    }

    /// Returns true when the walk resumes at a point: the root is on its
    /// path.
    pub(super) fn resumes(&self) -> bool {
        self.start.is_some()
    }

    /// Where the entry `name`, `depth` folders below the root, stands
    /// against the resume point: `None` when it comes before it (it is
    /// passed over), else whether its own entries are on the resume
    /// point's path. Only a folder on that path (`on_start_path`) has
    /// entries before the resume point.
    pub(super) fn after_start(
        &self,
        depth: usize,
        name: &OsStr,
        on_start_path: bool,
        may_be_dir: bool,
    ) -> Option<bool> {
        let Some(start) = self.start.as_ref().filter(|_| on_start_path) else {
            return Some(false);
        };
        match start.get(depth).map(|s| name.as_encoded_bytes().cmp(s)) {
            Some(Ordering::Less) => None,
            Some(Ordering::Equal) => {
                // The folder that holds the resume point, or the resume
                // point itself.
                let inside = start.len() > depth + 1;
                if inside && !may_be_dir {
                    return None;
                }
                Some(inside)
            }
            _ => Some(false),
        }
    }

    /// Returns true when the entry at `rel` (`abs` on disk) is within the
    /// path filters (or, if it may be a folder, may hold a path within
    /// them) and not left out by the globs.
    pub(super) fn admits(&self, rel: &str, abs: &Path, is_dir: bool, may_be_dir: bool) -> bool {
        let filters = self.filters;
        if may_be_dir {
            if !may_hold(rel, filters) {
                return false;
            }
        } else if !filters.is_empty() && !filters.iter().any(|f| is_within(rel, f)) {
            return false;
        }
        if let Some(overrides) = &self.overrides {
            if overrides.matched(abs, is_dir).is_ignore() {
                return false;
            }
        }
        true
    }

    /// Returns true when the caller names the entry at `rel`, or a path
    /// inside it.
    pub(super) fn names(&self, rel: &str) -> bool {
        !self.filters.is_empty() && self.filters.iter().any(|f| is_within(f, rel))
    }
}
