//! What an index of the tree needs of it: the walk under the tree's own
//! rules (from a resume point, within path filters), the root's handle,
//! and whether links are followed.

use std::sync::Arc;

use super::Tree;
use crate::error::Error;
use crate::search::confine::DirHandle;
use crate::search::walk::{Walk, WalkOptions};

impl Tree {
    /// The walk of this tree under its own rules, resuming at `start`
    /// (names from the root) and within `filters` (normalized paths).
    pub(crate) fn walk_within<'p>(
        &'p self,
        start: Option<Vec<Vec<u8>>>,
        filters: &'p [String],
    ) -> Result<Walk<'p>, Error> {
        Walk::new(WalkOptions {
            root: &self.root,
            root_dir: &self.root_dir,
            hidden: self.hidden,
            gitignore: self.gitignore,
            parent_ignores: self.parent_ignores,
            follow_links: self.follow_links,
            globs: &self.globs,
            start,
            filters,
        })
    }

    /// The root's handle.
    pub(crate) fn root_handle(&self) -> &Arc<DirHandle> {
        &self.root_dir
    }

    /// Whether links are followed.
    pub(crate) fn follows_links(&self) -> bool {
        self.follow_links
    }

    /// Whether ignore files are read, and those above the root.
    pub(crate) fn reads_ignores(&self) -> (bool, bool) {
        (self.gitignore, self.parent_ignores)
    }

    /// The size limit on files.
    pub(crate) fn size_limit(&self) -> Option<u64> {
        self.max_file_size
    }
}
