//! The folder handles a walk holds: at most `MAX_HANDLES` of them. In a
//! deeper tree the outer folders' handles are closed, and reopened from
//! the nearest folder still open, name by name, when the walk comes back
//! to them.

use std::io;
use std::sync::Arc;

use super::Walk;
use crate::confine::{self, DirHandle};

/// The most folder handles the walk keeps open at once (besides the
/// root's, and those of folders entered through a followed link): with
/// the folders of the files waiting to be searched (`FolderRoom` in
/// `tree/feed.rs`), a search on a few threads stays within the table of
/// descriptors it counts on even in a deep tree, past which the kernel
/// grows the table, which with several threads waits for an RCU grace
/// period.
pub(crate) const MAX_HANDLES: usize = 24;

impl Walk<'_> {
    /// The innermost folder's handle, reopened if it was closed.
    pub(super) fn top_handle(&mut self) -> io::Result<Arc<DirHandle>> {
        let top = self.stack.len() - 1;
        if let Some(dir) = &self.stack[top].dir {
            return Ok(Arc::clone(dir));
        }
        // The root's handle is never closed, so one is found.
        let open = (0..top)
            .rev()
            .find(|&i| self.stack[i].dir.is_some())
            .unwrap_or(0);
        let mut dir = Arc::clone(
            self.stack[open]
                .dir
                .as_ref()
                .ok_or_else(|| io::Error::other("the root's handle is closed"))?,
        );
        for frame in &self.stack[open + 1..=top] {
            dir = Arc::new(confine::open_dir(&dir, &frame.name)?);
        }
        self.stack[top].dir = Some(Arc::clone(&dir));
        self.open += 1;
        self.close_extra();
        Ok(dir)
    }

    /// Closes the outermost closable handles beyond `MAX_HANDLES`.
    pub(super) fn close_extra(&mut self) {
        let mut i = 1;
        while self.open > MAX_HANDLES && i < self.stack.len() {
            let frame = &mut self.stack[i];
            if !frame.via_link && frame.dir.take().is_some() {
                self.open -= 1;
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::options;
    use super::super::{Job, Walk};
    use super::MAX_HANDLES;
    use crate::confine;

    /// The handles this process holds open.
    fn open_handles() -> usize {
        std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_deep_walk_holds_a_bounded_number_of_handles() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        // 400 levels: within what a path may name, and far more than the
        // handles the walk may hold.
        let mut deep = root.clone();
        for _ in 0..400 {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("f.txt"), "x\n").unwrap();
        std::fs::write(root.join("d/z.txt"), "x\n").unwrap();
        let before = open_handles();
        let handle = Arc::new(confine::open_root(&root).unwrap());
        let mut walk = Walk::new(options(&root, &handle)).unwrap();
        let mut most = 0;
        let mut files = Vec::new();
        for job in walk.by_ref() {
            most = most.max(open_handles());
            if let Job::File { rel, .. } = job {
                files.push(rel);
            }
        }
        assert_eq!(files.len(), 2);
        assert!(
            files[0].ends_with("/d/f.txt") && files[1] == "d/z.txt",
            "{files:?}"
        );
        // Other tests of this process open files meanwhile: leave room.
        assert!(
            most < before + MAX_HANDLES + 32,
            "{most} handles open, {before} before the walk"
        );
    }
}
