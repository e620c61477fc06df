//! The query's scope in a walk: a cursor's resume point, the path filters
//! and the caller's globs. An entry outside it is passed over without a
//! word (it is not counted in `skipped`), and a path the caller names is
//! searched whatever the hidden and ignore rules say; one the walk cannot
//! reach (a name missing on the way, or a file or a link not followed
//! where a folder is needed) is told to the walk, which counts it.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};

use crate::Error;
use crate::path::{cmp_paths, is_within, may_hold, parse_position};

/// What the query lets the walk visit.
pub(super) struct QueryScope<'a> {
    /// Where to resume, as the names (bytes) from the root of the input
    /// to begin with: inputs before it, in walk order, are passed over.
    start: Option<Vec<Vec<u8>>>,
    /// Normalized path filters; empty for the whole corpus.
    filters: &'a [String],
    /// Each filter's names, as bytes.
    named: Vec<Vec<Vec<u8>>>,
    /// The caller's globs, if any.
    overrides: Option<Override>,
}

impl<'a> QueryScope<'a> {
    /// The scope of a walk.
    ///
    /// # Errors
    ///
    /// An invalid argument when a glob does not parse.
    pub(super) fn new(
        globs: &[String],
        start: Option<Vec<Vec<u8>>>,
        filters: &'a [String],
    ) -> Result<QueryScope<'a>, Error> {
        let overrides = if globs.is_empty() {
            None
        } else {
            // Rooted at `.`: they match an entry's path below the root, as
            // the walk gives it (see `raw.rs`).
            let mut builder = OverrideBuilder::new(".");
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
        let named = filters
            .iter()
            .map(|f| parse_position(f).unwrap_or_default())
            .collect();
        Ok(QueryScope {
            start,
            filters,
            named,
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
        self.after_start_named(depth, name.as_encoded_bytes(), on_start_path, may_be_dir)
    }

    /// [`after_start`](Self::after_start) for a name given as bytes.
    pub(super) fn after_start_named(
        &self,
        depth: usize,
        name: &[u8],
        on_start_path: bool,
        may_be_dir: bool,
    ) -> Option<bool> {
        let Some(start) = self.start.as_ref().filter(|_| on_start_path) else {
            return Some(false);
        };
        match start.get(depth).map(|s| name.cmp(s)) {
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

    /// Returns true when the entry at `rel` (`raw`, its path below the
    /// root as the file system names it) is within the path filters (or,
    /// if it may be a folder, may hold a path within them) and not left
    /// out by the globs.
    pub(super) fn admits(&self, rel: &str, raw: &Path, is_dir: bool, may_be_dir: bool) -> bool {
        let filters = self.filters;
        if may_be_dir {
            if !may_hold(rel, filters) {
                return false;
            }
        } else if !filters.is_empty() && !filters.iter().any(|f| is_within(rel, f)) {
            return false;
        }
        if let Some(overrides) = &self.overrides {
            if overrides.matched(raw, is_dir).is_ignore() {
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

    /// Returns true when the caller names the entry at `rel` itself.
    pub(super) fn is_named(&self, rel: &str) -> bool {
        self.filters.binary_search_by(|f| cmp_paths(f, rel)).is_ok()
    }

    /// The paths the caller names strictly below `rel` (the root: `""`),
    /// in path order.
    pub(super) fn named_below<'s>(&'s self, rel: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.filters
            .iter()
            .filter(move |f| f.as_str() != rel && is_within(f, rel))
            .map(String::as_str)
    }

    /// The paths the caller names strictly below the folder at `rel`,
    /// `depth` names below the root, whose next name is none of the
    /// folder's `listed` names: the walk cannot reach them. Each with that
    /// next name, in the walk's order (by that name, then path order).
    pub(super) fn missing_below<'n>(
        &self,
        rel: &str,
        depth: usize,
        listed: impl Iterator<Item = &'n [u8]> + Clone,
    ) -> Vec<(Vec<u8>, String)> {
        let mut missing: Vec<(Vec<u8>, String)> = self
            .filters
            .iter()
            .zip(&self.named)
            .filter(|(f, names)| names.len() > depth && f.as_str() != rel && is_within(f, rel))
            .filter(|(_, names)| !listed.clone().any(|n| n == names[depth].as_slice()))
            .map(|(f, names)| (names[depth].clone(), f.clone()))
            .collect();
        missing.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| cmp_paths(&a.1, &b.1)));
        missing
    }
}
