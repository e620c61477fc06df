//! The path of the entry a walk is at, below the root, as the file system
//! names it: what the ignore rules of each folder on the way match, each
//! given the part below its own folder.
//!
//! Each folder's rules are built with `.` as their root (see `rules.rs`),
//! so the `ignore` crate matches the path it is given as it is. Given a
//! path from the file system's root instead, it would strip the folder's
//! own path from it first, comparing them component by component, on
//! every entry and for every folder with rules on its way: a fifth of the
//! rules' cost, measured on a source tree with two dozen ignore files.
//! One buffer serves the whole walk, so the path costs no allocation per
//! entry either.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::Path;

/// Where a folder's own path ends in the walk's path: the part after it
/// is below the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mark(usize);

impl Mark {
    /// The root's: the whole path is below it.
    pub(super) const ROOT: Mark = Mark(0);
}

/// The walk's path below the root, names joined by `/`.
#[derive(Default)]
pub(super) struct RawPath {
    #[cfg(unix)]
    bytes: Vec<u8>,
    #[cfg(not(unix))]
    path: std::path::PathBuf,
}

#[cfg(unix)]
impl RawPath {
    /// The path of the folder that ends at `mark`, then `name` in it.
    pub(super) fn set(&mut self, folder: Mark, name: &OsStr) {
        use std::os::unix::ffi::OsStrExt as _;
        self.bytes.truncate(folder.0);
        if !self.bytes.is_empty() {
            self.bytes.push(b'/');
        }
        self.bytes.extend_from_slice(name.as_bytes());
    }

    /// Where the path, as it is now, ends: a folder's mark once the walk
    /// enters it.
    pub(super) fn mark(&self) -> Mark {
        Mark(self.bytes.len())
    }

    /// The part of the path below the folder that ends at `folder`.
    pub(super) fn below(&self, folder: Mark) -> Cow<'_, Path> {
        use std::os::unix::ffi::OsStrExt as _;
        let from = if folder.0 == 0 { 0 } else { folder.0 + 1 };
        let part = self.bytes.get(from..).unwrap_or_default();
        Cow::Borrowed(Path::new(OsStr::from_bytes(part)))
    }
}

/// Elsewhere a mark counts names, and a part below a folder is built
/// anew: no safe way slices a path's bytes there.
#[cfg(not(unix))]
impl RawPath {
    pub(super) fn set(&mut self, folder: Mark, name: &OsStr) {
        while self.path.components().count() > folder.0 {
            self.path.pop();
        }
        self.path.push(name);
    }

    pub(super) fn mark(&self) -> Mark {
        Mark(self.path.components().count())
    }

    pub(super) fn below(&self, folder: Mark) -> Cow<'_, Path> {
        Cow::Owned(self.path.components().skip(folder.0).collect())
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::path::Path;

    use super::{Mark, RawPath};

    #[test]
    fn each_folder_sees_the_path_below_it() {
        let mut raw = RawPath::default();
        raw.set(Mark::ROOT, OsStr::new("a"));
        let a = raw.mark();
        assert_eq!(raw.below(Mark::ROOT), Path::new("a"));
        raw.set(a, OsStr::new("b é"));
        let b = raw.mark();
        raw.set(b, OsStr::new(".c"));
        assert_eq!(raw.below(Mark::ROOT), Path::new("a/b é/.c"));
        assert_eq!(raw.below(a), Path::new("b é/.c"));
        assert_eq!(raw.below(b), Path::new(".c"));
        // Back in `a`, another entry.
        raw.set(a, OsStr::new("z"));
        assert_eq!(raw.below(Mark::ROOT), Path::new("a/z"));
        assert_eq!(raw.below(a), Path::new("z"));
        raw.set(Mark::ROOT, OsStr::new("y"));
        assert_eq!(raw.below(Mark::ROOT), Path::new("y"));
    }
}
