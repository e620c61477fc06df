//! What tells an index that something changed without reading it: a
//! file's stamp (device, inode, size, modification and change times, as
//! the tree's cursors use), a folder's (its own, which moves whenever an
//! entry is added, removed or renamed, with its ignore files'), the
//! ignore files above the root, and the clock tick within which a
//! rewrite can keep a stamp ("racy", as git calls it).

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::seam::{DirHandle, mix, parse_position, stamp_at};

/// How coarse a file system's clock may be when it keeps whole seconds:
/// FAT's is 2 s. A file or folder whose modification time lies within
/// the tick of the build's start could be rewritten in the same tick,
/// with the same size, and keep its stamp; it is read (or listed) again
/// by every query until an update indexes it after the tick.
pub(crate) const TICK_NS: u64 = 2_000_000_000;

/// The tick of a file system that keeps nanoseconds (a modification time
/// with a fraction of a second): the kernel stamps files from a coarse
/// clock, a few milliseconds a tick; this leaves ample room.
pub(crate) const FINE_TICK_NS: u64 = 50_000_000;

/// The ignore files a folder may hold, as bits of `FolderEntry::ignores`.
const IGNORES: [(&str, u8); 3] = [(".gitignore", 1), (".ignore", 2), (".git/info/exclude", 4)];

/// The folder holds `.git`: its `.git/info/exclude` is stamped whether or
/// not it exists (creating it moves no stamp of the folder's).
const HAS_GIT: u8 = 8;

/// Nanoseconds since the epoch, now.
pub(crate) fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// A modification time in nanoseconds since the epoch (0 if unknown).
pub(crate) fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Returns true when a change at `mtime_ns` may share its clock tick with
/// a build that began at `built_ns`: a time in whole seconds may come
/// from a clock of 2 s; one with a fraction, from the kernel's coarse
/// clock.
pub(crate) fn is_racy(mtime_ns: u64, built_ns: u64) -> bool {
    let tick = if mtime_ns % 1_000_000_000 == 0 {
        TICK_NS
    } else {
        FINE_TICK_NS
    };
    mtime_ns.saturating_add(tick) > built_ns
}

/// Which ignore files the folder `dir` holds, when ignore files are read.
pub(crate) fn ignores_of(dir: &DirHandle, read: bool) -> u8 {
    if !read {
        return 0;
    }
    let mut bits = 0;
    for (name, bit) in IGNORES {
        if stamp_at(dir, OsStr::new(name)).is_ok() {
            bits |= bit;
        }
    }
    if stamp_at(dir, OsStr::new(".git")).is_ok() {
        bits |= HAS_GIT;
    }
    bits
}

/// The stamp of the folder `dir` and of the ignore files `ignores` names
/// (`.git/info/exclude` whenever the folder holds `.git`); `None` when
/// the folder cannot be stamped.
pub(crate) fn folder_stamp(dir: &DirHandle, ignores: u8) -> Option<u64> {
    let mut parts = vec![stamp_at(dir, OsStr::new(".")).ok()?];
    for (name, bit) in IGNORES {
        let exclude = bit == 4 && ignores & HAS_GIT != 0;
        if ignores & bit != 0 || exclude {
            parts.push(stamp_at(dir, OsStr::new(name)).unwrap_or(0));
        }
    }
    Some(mix(&parts))
}

/// `folder_stamp` of the folder at `rel` (a path as the tree writes it,
/// `""` for the root), asked of the root's handle by path: no folder is
/// opened.
pub(crate) fn folder_stamp_at(root: &DirHandle, rel: &str, ignores: u8) -> Option<u64> {
    let base = fs_path(rel)?;
    let at = |name: &str| -> OsString {
        if base.is_empty() {
            OsString::from(name)
        } else {
            let mut p = base.clone().into_owned();
            p.push("/");
            p.push(name);
            p
        }
    };
    let mut parts = vec![stamp_at(root, &at(".")).ok()?];
    for (name, bit) in IGNORES {
        let exclude = bit == 4 && ignores & HAS_GIT != 0;
        if ignores & bit != 0 || exclude {
            parts.push(stamp_at(root, &at(name)).unwrap_or(0));
        }
    }
    Some(mix(&parts))
}

/// The stamp of the file at `rel`, asked of the root's handle by path.
pub(crate) fn file_stamp_at(root: &DirHandle, rel: &str) -> Option<u64> {
    stamp_at(root, &fs_path(rel)?).ok()
}

/// A tree's path (escapes read back) as the file system spells it,
/// relative to the root: borrowed when it holds no escape, as nearly
/// every path does (a checked query asks this of every file).
pub(crate) fn fs_path(rel: &str) -> Option<Cow<'_, OsStr>> {
    if !rel.contains('\\') {
        return Some(Cow::Borrowed(OsStr::new(rel)));
    }
    let names = parse_position(rel)?;
    let mut out = Vec::new();
    for (i, name) in names.into_iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend(name);
    }
    Some(Cow::Owned(os_from(out)))
}

#[cfg(unix)]
fn os_from(bytes: Vec<u8>) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

#[cfg(not(unix))]
fn os_from(bytes: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// The stamp of the ignore files above `root` that a walk reads: those of
/// its parents up to the first that holds `.git` (see the walk's rules),
/// and whether each exists. 0 when none is read.
pub(crate) fn parents_stamp(root: &Path, gitignore: bool, parent_ignores: bool) -> u64 {
    if !gitignore || !parent_ignores {
        return 0;
    }
    // A repository's root reads nothing above itself.
    if root.join(".git").symlink_metadata().is_ok() {
        return 0;
    }
    let mut parts = Vec::new();
    for dir in root.ancestors().skip(1) {
        for name in [".gitignore", ".ignore", ".git", ".git/info/exclude"] {
            parts.push(meta_stamp(&dir.join(name)));
        }
        if dir.join(".git").symlink_metadata().is_ok() {
            break;
        }
    }
    mix(&parts)
}

/// The stamp of `path` (not following a link), 0 when it cannot be read.
fn meta_stamp(path: &Path) -> u64 {
    let Ok(meta) = path.symlink_metadata() else {
        return 0;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        #[allow(clippy::cast_sign_loss)]
        mix(&[
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.mtime() as u64,
            meta.mtime_nsec() as u64,
            meta.ctime() as u64,
            meta.ctime_nsec() as u64,
        ])
    }
    #[cfg(not(unix))]
    {
        mix(&[meta.len(), mtime_ns(&meta)])
    }
}

#[cfg(test)]
mod tests {
    use super::{FINE_TICK_NS, TICK_NS, is_racy};

    #[test]
    fn whole_seconds_wait_two_seconds_and_fractions_fifty_milliseconds() {
        let built = 1_000 * 1_000_000_000;
        // A whole second may come from a 2 s clock.
        assert!(is_racy(built - TICK_NS + 1_000_000_000, built));
        assert!(!is_racy(built - TICK_NS, built));
        // A fraction: a fine clock.
        let fine = built - FINE_TICK_NS - 1;
        assert!(!is_racy(fine, built));
        assert!(is_racy(built - FINE_TICK_NS + 1, built));
        assert!(is_racy(built + 7, built), "after the build began");
    }
}
