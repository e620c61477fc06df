//! What an index of the tree needs of it besides the walk under the
//! tree's own rules (`Tree::walk_within`): the root's handle, and
//! whether links are followed.

use std::sync::Arc;

use super::Tree;
use crate::confine::DirHandle;

impl Tree {
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
