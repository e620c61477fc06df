//! Confined file-system access: every open below a tree's root goes
//! through a handle of a folder already open, one name at a time, and
//! never follows a symbolic link on its own.
//!
//! A path checked and then opened by name can be raced: between the check
//! and the open, a folder on the way can be replaced by a link to anywhere.
//! So the root is opened once, each folder is opened relative to its
//! parent's handle with `O_NOFOLLOW | O_DIRECTORY`, each file relative to
//! its folder's handle with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in
//! cannot block the open), and `..` is never asked of the file system: a
//! caller's path is normalized first, and a link the policy follows is
//! resolved here, component by component, against a stack of handles that
//! `..` pops. A swap at any moment then makes an open fail (and the input
//! is counted), never lead outside the root.
//!
//! On unix this uses `rustix`: thin, safe wrappers over the system calls
//! (`openat`, `fstatat`, `readlinkat`, `getdents64`), no runtime, and
//! already in the dependency tree of the `tempfile` and `ignore`
//! ecosystem; it lets the crate keep `#![forbid(unsafe_code)]`. `cap-std`
//! offers the same guarantee as a whole `Dir` API, with more code than
//! this module needs. Elsewhere, a best-effort fallback works by path,
//! checks each component with `symlink_metadata` before using it, and is
//! open to the race above.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read as _};
use std::path::Path;
use std::time::SystemTime;

use crate::position::Stamp;

/// What a name in a folder is, as the listing (or a no-follow stat) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Link,
    /// A FIFO, socket or device: never opened by a walk.
    Special,
}

/// How the identity of a folder is written: device and inode.
pub(crate) type Identity = (u64, u64);

/// The most bytes read of an ignore file: more is not an ignore file.
pub(crate) const MAX_IGNORE_FILE: u64 = 4 << 20;

/// What one stat of an open file says of it.
pub(crate) struct FileStat {
    pub(crate) kind: Kind,
    pub(crate) len: u64,
    pub(crate) modified: Option<SystemTime>,
    /// What `stamp_at` hashes of the file's name, from the handle.
    pub(crate) stamp: Stamp,
}

/// What opening a file by name found (`open_regular`).
pub(crate) enum RegularOpen {
    /// A regular file, and its size in bytes.
    File(File, u64),
    /// A FIFO, socket or device: refused.
    Special,
}

#[cfg(unix)]
mod imp {
    use super::{FileStat, Identity, Kind, RegularOpen, Stamp};
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::Path;
    use std::time::{Duration, UNIX_EPOCH};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};

    /// An open folder.
    #[derive(Debug)]
    pub(crate) struct DirHandle(OwnedFd);

    fn kind_of(file_type: FileType) -> Option<Kind> {
        match file_type {
            FileType::RegularFile => Some(Kind::File),
            FileType::Directory => Some(Kind::Dir),
            FileType::Symlink => Some(Kind::Link),
            FileType::Unknown => None,
            _ => Some(Kind::Special),
        }
    }

    /// Opens the root (the one open that follows links: the root is the
    /// caller's choice).
    pub(crate) fn open_root(path: &Path) -> io::Result<DirHandle> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(DirHandle(fd))
    }

    /// Opens the folder `name` of `dir`; fails if it is a link.
    pub(crate) fn open_dir(dir: &DirHandle, name: &OsStr) -> io::Result<DirHandle> {
        let fd = rustix::fs::openat(
            &dir.0,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(DirHandle(fd))
    }

    /// How a file is opened for reading: no link followed at its name,
    /// no blocking on a FIFO, no terminal taken.
    const READ_FILE: OFlags = OFlags::RDONLY
        .union(OFlags::NOFOLLOW)
        .union(OFlags::NONBLOCK)
        .union(OFlags::NOCTTY)
        .union(OFlags::CLOEXEC);

    /// Opens the file `name` of `dir` for reading, without following a link
    /// or blocking on a FIFO, in one call (the listing said: regular).
    pub(crate) fn open_file(dir: &DirHandle, name: &OsStr) -> io::Result<File> {
        let fd = rustix::fs::openat(&dir.0, name, READ_FILE, Mode::empty())?;
        Ok(File::from(fd))
    }

    /// Opens the file at `path` below `root` (names joined by `/`) for
    /// reading in one call, following no link on the way, never leaving
    /// `root`, and without blocking on a FIFO: `openat2` with
    /// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`. An error (a link on the
    /// way, a race with a rename, a kernel without `openat2`) says only
    /// that this way failed: the caller opens it name by name.
    #[cfg(all(target_os = "linux", feature = "index"))]
    pub(crate) fn open_file_beneath(root: &DirHandle, path: &OsStr) -> io::Result<File> {
        let fd = rustix::fs::openat2(
            &root.0,
            path,
            READ_FILE,
            Mode::empty(),
            rustix::fs::ResolveFlags::BENEATH
                | rustix::fs::ResolveFlags::NO_SYMLINKS
                | rustix::fs::ResolveFlags::NO_MAGICLINKS,
        )?;
        Ok(File::from(fd))
    }

    /// Opens the file `name` of `dir` and checks that it is regular.
    pub(crate) fn open_regular(dir: &DirHandle, name: &OsStr) -> io::Result<RegularOpen> {
        let file = open_file(dir, name)?;
        let stat = rustix::fs::fstat(&file)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Ok(RegularOpen::Special);
        }
        Ok(RegularOpen::File(
            file,
            u64::try_from(stat.st_size).unwrap_or(0),
        ))
    }

    /// What `name` is in `dir`, not following a link.
    pub(crate) fn kind_at(dir: &DirHandle, name: &OsStr) -> io::Result<Kind> {
        let stat = rustix::fs::statat(&dir.0, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(kind_of(FileType::from_raw_mode(stat.st_mode)).unwrap_or(Kind::Special))
    }

    /// The target of the link `name` in `dir`.
    pub(crate) fn read_link(dir: &DirHandle, name: &OsStr) -> io::Result<OsString> {
        let target = rustix::fs::readlinkat(&dir.0, name, Vec::new())?;
        Ok(OsStr::from_bytes(target.as_bytes()).to_owned())
    }

    /// What changes when `name` in `dir` changes (not following a link): a
    /// hash of its device, inode, size, and modification and change times.
    pub(crate) fn stamp_at(dir: &DirHandle, name: &OsStr) -> io::Result<u64> {
        let stat = rustix::fs::statat(&dir.0, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(stamp_of(&stat).value())
    }

    /// The fields of a stat that a stamp hashes.
    fn stamp_of(stat: &rustix::fs::Stat) -> Stamp {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Stamp::of(&[
            stat.st_dev as u64,
            stat.st_ino as u64,
            stat.st_size as u64,
            stat.st_mtime as u64,
            stat.st_mtime_nsec as u64,
            stat.st_ctime as u64,
            stat.st_ctime_nsec as u64,
        ])
    }

    /// What the open `file` is, from one `fstat` of its handle: its stamp
    /// is the one `stamp_at` gives its name while the name still leads to
    /// it.
    pub(crate) fn stat_file(file: &File) -> io::Result<FileStat> {
        let stat = rustix::fs::fstat(file)?;
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let (secs, nanos) = (stat.st_mtime as i64, stat.st_mtime_nsec as i64);
        let modified = u64::try_from(secs).ok().and_then(|secs| {
            let nanos = u32::try_from(nanos).ok()?;
            UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
        });
        Ok(FileStat {
            kind: kind_of(FileType::from_raw_mode(stat.st_mode)).unwrap_or(Kind::Special),
            len: u64::try_from(stat.st_size).unwrap_or(0),
            modified,
            stamp: stamp_of(&stat),
        })
    }

    /// The modification time of `name` in `dir` (not following a link),
    /// in nanoseconds since the epoch.
    #[cfg(feature = "index")]
    pub(crate) fn mtime_at(dir: &DirHandle, name: &OsStr) -> io::Result<u64> {
        let stat = rustix::fs::statat(&dir.0, name, AtFlags::SYMLINK_NOFOLLOW)?;
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let (secs, nanos) = (stat.st_mtime as i64, stat.st_mtime_nsec as i64);
        Ok(u64::try_from(secs.saturating_mul(1_000_000_000).saturating_add(nanos)).unwrap_or(0))
    }

    /// Makes room for `count` handles in this process's table of
    /// descriptors, in one step: a handle duplicated at number
    /// `count - 1` (or above, if that one is taken) and closed at once.
    /// True when the table has that room now; it never shrinks.
    pub(crate) fn reserve_descriptors(dir: &DirHandle, count: usize) -> bool {
        let Some(last) = count.checked_sub(1).and_then(|n| i32::try_from(n).ok()) else {
            return false;
        };
        rustix::io::fcntl_dupfd_cloexec(&dir.0, last).is_ok()
    }

    /// The folder's device and inode.
    pub(crate) fn identity(dir: &DirHandle) -> io::Result<Identity> {
        let stat = rustix::fs::fstat(&dir.0)?;
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Ok((stat.st_dev as u64, stat.st_ino as u64))
    }

    /// The entries of `dir` (not `.` and `..`), in no order. `buffer` is
    /// reused from folder to folder. A type the listing does not give is
    /// asked for, without following a link.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(crate) fn list(
        dir: &DirHandle,
        buffer: &mut Vec<std::mem::MaybeUninit<u8>>,
    ) -> io::Result<Vec<(OsString, Kind)>> {
        if buffer.is_empty() {
            buffer.resize(32 * 1024, std::mem::MaybeUninit::uninit());
        }
        let mut entries = Vec::new();
        let mut unknown = Vec::new();
        let mut raw = rustix::fs::RawDir::new(&dir.0, buffer.as_mut_slice());
        while let Some(entry) = raw.next() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let name = OsStr::from_bytes(name).to_owned();
            match kind_of(entry.file_type()) {
                Some(kind) => entries.push((name, kind)),
                None => unknown.push(name),
            }
        }
        for name in unknown {
            // Gone since the listing: left out, as if listed a moment later.
            if let Ok(kind) = kind_at(dir, &name) {
                entries.push((name, kind));
            }
        }
        Ok(entries)
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub(crate) fn list(
        dir: &DirHandle,
        _buffer: &mut Vec<std::mem::MaybeUninit<u8>>,
    ) -> io::Result<Vec<(OsString, Kind)>> {
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(&dir.0)? {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let name = OsStr::from_bytes(name).to_owned();
            let kind = match kind_of(entry.file_type()) {
                Some(kind) => kind,
                None => match kind_at(dir, &name) {
                    Ok(kind) => kind,
                    Err(_) => continue,
                },
            };
            entries.push((name, kind));
        }
        Ok(entries)
    }
}

#[cfg(not(unix))]
mod imp {
    //! Best effort by path: each component is checked with
    //! `symlink_metadata` before it is used, which a concurrent swap can
    //! defeat.
    use super::{FileStat, Identity, Kind, RegularOpen, Stamp};
    use std::ffi::{OsStr, OsString};
    use std::fs::{self, File};
    use std::io;
    use std::path::{Path, PathBuf};

    /// An open folder (here, its path).
    #[derive(Debug)]
    pub(crate) struct DirHandle(PathBuf);

    fn kind_of(file_type: fs::FileType) -> Kind {
        if file_type.is_symlink() {
            Kind::Link
        } else if file_type.is_dir() {
            Kind::Dir
        } else if file_type.is_file() {
            Kind::File
        } else {
            Kind::Special
        }
    }

    pub(crate) fn open_root(path: &Path) -> io::Result<DirHandle> {
        if fs::metadata(path)?.is_dir() {
            Ok(DirHandle(path.to_owned()))
        } else {
            Err(io::Error::other("not a folder"))
        }
    }

    fn no_link(path: &Path) -> io::Result<fs::Metadata> {
        let meta = fs::symlink_metadata(path)?;
        if meta.file_type().is_symlink() {
            return Err(io::Error::other("a symbolic link"));
        }
        Ok(meta)
    }

    pub(crate) fn open_dir(dir: &DirHandle, name: &OsStr) -> io::Result<DirHandle> {
        let path = dir.0.join(name);
        if !no_link(&path)?.is_dir() {
            return Err(io::Error::other("not a folder"));
        }
        Ok(DirHandle(path))
    }

    pub(crate) fn open_file(dir: &DirHandle, name: &OsStr) -> io::Result<File> {
        let path = dir.0.join(name);
        no_link(&path)?;
        File::open(path)
    }

    pub(crate) fn open_regular(dir: &DirHandle, name: &OsStr) -> io::Result<RegularOpen> {
        let path = dir.0.join(name);
        let meta = no_link(&path)?;
        if !meta.is_file() {
            return Ok(RegularOpen::Special);
        }
        Ok(RegularOpen::File(File::open(path)?, meta.len()))
    }

    pub(crate) fn kind_at(dir: &DirHandle, name: &OsStr) -> io::Result<Kind> {
        Ok(kind_of(fs::symlink_metadata(dir.0.join(name))?.file_type()))
    }

    pub(crate) fn read_link(dir: &DirHandle, name: &OsStr) -> io::Result<OsString> {
        Ok(fs::read_link(dir.0.join(name))?.into_os_string())
    }

    pub(crate) fn stamp_at(dir: &DirHandle, name: &OsStr) -> io::Result<u64> {
        let meta = fs::symlink_metadata(dir.0.join(name))?;
        Ok(stamp_of(&meta).value())
    }

    /// The fields of a stat that a stamp hashes: here only the size and
    /// the modification time.
    fn stamp_of(meta: &fs::Metadata) -> Stamp {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        Stamp::of(&[meta.len(), modified])
    }

    pub(crate) fn stat_file(file: &File) -> io::Result<FileStat> {
        let meta = file.metadata()?;
        Ok(FileStat {
            kind: kind_of(meta.file_type()),
            len: meta.len(),
            modified: meta.modified().ok(),
            stamp: stamp_of(&meta),
        })
    }

    #[cfg(feature = "index")]
    pub(crate) fn mtime_at(dir: &DirHandle, name: &OsStr) -> io::Result<u64> {
        let meta = fs::symlink_metadata(dir.0.join(name))?;
        Ok(meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64))
    }

    /// No table of descriptors to grow here: nothing is reserved.
    pub(crate) fn reserve_descriptors(_dir: &DirHandle, _count: usize) -> bool {
        false
    }

    pub(crate) fn identity(dir: &DirHandle) -> io::Result<Identity> {
        // No inode here: the canonical path stands in for it.
        let real = fs::canonicalize(&dir.0)?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&real, &mut hasher);
        Ok((0, std::hash::Hasher::finish(&hasher)))
    }

    pub(crate) fn list(
        dir: &DirHandle,
        _buffer: &mut Vec<std::mem::MaybeUninit<u8>>,
    ) -> io::Result<Vec<(OsString, Kind)>> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(&dir.0)? {
            let entry = entry?;
            entries.push((entry.file_name(), kind_of(entry.file_type()?)));
        }
        Ok(entries)
    }
}

#[cfg(feature = "index")]
pub(crate) use imp::mtime_at;
#[cfg(all(feature = "index", target_os = "linux"))]
pub(crate) use imp::open_file_beneath;
pub(crate) use imp::{
    DirHandle, identity, kind_at, list, open_dir, open_file, open_regular, open_root, read_link,
    reserve_descriptors, stamp_at, stat_file,
};

// The index mixes its folders' stamps as a file's are mixed.
#[cfg(feature = "index")]
pub(crate) use crate::position::mix;

/// Returns true when an open without following links failed because the
/// name is no longer what the listing said (now a link, or not a folder).
pub(crate) fn is_swapped(e: &io::Error) -> bool {
    #[cfg(unix)]
    let is_link = e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error());
    #[cfg(not(unix))]
    let is_link = false;
    is_link || e.kind() == io::ErrorKind::NotADirectory
}

/// Returns true when an open failed because the name is a socket.
pub(crate) fn is_socket(e: &io::Error) -> bool {
    #[cfg(unix)]
    let socket = e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error());
    #[cfg(not(unix))]
    let socket = false;
    socket
}

/// Reads a small regular file `name` of `dir` (an ignore file): `None`
/// when it is missing, a link, not regular, unreadable or larger than
/// `MAX_IGNORE_FILE`.
pub(crate) fn read_small(dir: &DirHandle, name: &OsStr) -> Option<Vec<u8>> {
    let Ok(RegularOpen::File(file, size)) = open_regular(dir, name) else {
        return None;
    };
    if size > MAX_IGNORE_FILE {
        return None;
    }
    let mut bytes = Vec::new();
    // The size may have grown since: never read past the cap.
    file.take(MAX_IGNORE_FILE + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_IGNORE_FILE).then_some(bytes)
}

/// Why a caller's path (or a link's target) leads nowhere to search.
#[derive(Debug)]
pub(crate) enum Unresolved {
    /// It leaves the root.
    Outside,
    /// A link on the way, and links are not followed.
    Link,
    /// Too many links, or a loop of them.
    Loop,
    /// A component is missing, or is not a folder where one is needed.
    Missing(io::Error),
}

/// Where a path leads: the folder holding it, and its name there (`None`
/// for the root itself), and what it is.
pub(crate) struct Target {
    pub(crate) parent: DirHandle,
    pub(crate) name: Option<OsString>,
    pub(crate) kind: Kind,
}

/// How many links one resolution follows, as the kernel allows.
const MAX_LINKS: usize = 40;

/// Resolves `components` (already normalized: no `.`, `..` or empty
/// ones) from the root, one at a time through handles. A link is an
/// error unless `follow`; then its target is spliced in, `..` pops the
/// stack of handles, and an absolute target must lie under `root_abs`.
pub(crate) fn resolve(
    root: &DirHandle,
    root_abs: &Path,
    components: Vec<OsString>,
    follow: bool,
) -> Result<Target, Unresolved> {
    let mut pending: std::collections::VecDeque<OsString> = components.into();
    // The folders entered below the root.
    let mut stack: Vec<DirHandle> = Vec::new();
    let mut links = 0;
    while let Some(name) = pending.pop_front() {
        if name.is_empty() || name == "." {
            continue;
        }
        if name == ".." {
            if stack.pop().is_none() {
                return Err(Unresolved::Outside);
            }
            continue;
        }
        let dir = stack.last().unwrap_or(root);
        let kind = kind_at(dir, &name).map_err(Unresolved::Missing)?;
        match kind {
            Kind::Link => {
                if !follow {
                    return Err(Unresolved::Link);
                }
                links += 1;
                if links > MAX_LINKS {
                    return Err(Unresolved::Loop);
                }
                let target = read_link(dir, &name).map_err(Unresolved::Missing)?;
                let target = Path::new(&target);
                let rest = if target.is_absolute() {
                    stack.clear();
                    target
                        .strip_prefix(root_abs)
                        .map_err(|_| Unresolved::Outside)?
                } else {
                    target
                };
                for part in rest.components().rev() {
                    match part {
                        std::path::Component::Normal(n) => pending.push_front(n.to_owned()),
                        std::path::Component::ParentDir => pending.push_front("..".into()),
                        std::path::Component::CurDir => {}
                        _ => return Err(Unresolved::Outside),
                    }
                }
            }
            Kind::Dir if !pending.is_empty() => {
                let next = open_dir(dir, &name).map_err(Unresolved::Missing)?;
                stack.push(next);
            }
            Kind::Dir | Kind::File | Kind::Special => {
                if !pending.is_empty() {
                    return Err(Unresolved::Missing(io::Error::new(
                        io::ErrorKind::NotADirectory,
                        "not a folder",
                    )));
                }
                let parent = match stack.pop() {
                    Some(parent) => parent,
                    None => reopen(root)?,
                };
                return Ok(Target {
                    parent,
                    name: Some(name),
                    kind,
                });
            }
        }
    }
    // The path (after its links) is the root, or a folder on the stack.
    match stack.pop() {
        Some(dir) => Ok(Target {
            parent: dir,
            name: None,
            kind: Kind::Dir,
        }),
        None => Ok(Target {
            parent: reopen(root)?,
            name: None,
            kind: Kind::Dir,
        }),
    }
}

/// Another handle of the folder `dir`, through `.` (no link can be there).
fn reopen(dir: &DirHandle) -> Result<DirHandle, Unresolved> {
    open_dir(dir, OsStr::new(".")).map_err(Unresolved::Missing)
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::{open_file, open_root, stamp_at, stat_file};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 16, ..Default::default() })]

        /// A file's stamp taken from its open handle is the one its name
        /// gives while the name leads to it, through writes in place (the
        /// handle stays the file's) and a file renamed over it (the
        /// handle keeps the old file, the name the new one).
        #[test]
        fn the_stamp_of_an_open_file_is_its_name_s(
            name in "[a-zé .\u{1F600}-]{1,12}",
            sizes in proptest::collection::vec(0usize..5000, 1..4),
        ) {
            proptest::prop_assume!(name != "." && name != "..");
            let dir = tempfile::tempdir().unwrap();
            let root = open_root(&dir.path().canonicalize().unwrap()).unwrap();
            let path = dir.path().join(&name);
            let name = OsStr::new(&name);
            std::fs::write(&path, vec![b'x'; sizes[0]]).unwrap();
            let file = open_file(&root, name).unwrap();
            for &size in &sizes[1..] {
                let by_handle = stat_file(&file).unwrap().stamp.value();
                proptest::prop_assert_eq!(by_handle, stamp_at(&root, name).unwrap());
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .and_then(|mut f| std::io::Write::write_all(&mut f, &vec![b'y'; size]))
                    .unwrap();
            }
            let by_handle = stat_file(&file).unwrap().stamp.value();
            proptest::prop_assert_eq!(by_handle, stamp_at(&root, name).unwrap());
            let scratch = tempfile::tempdir_in(dir.path()).unwrap();
            std::fs::write(scratch.path().join("new"), "new\n").unwrap();
            std::fs::rename(scratch.path().join("new"), &path).unwrap();
            let renamed = stamp_at(&root, name).unwrap();
            proptest::prop_assert_ne!(stat_file(&file).unwrap().stamp.value(), renamed);
            let reopened = open_file(&root, name).unwrap();
            proptest::prop_assert_eq!(stat_file(&reopened).unwrap().stamp.value(), renamed);
        }
    }
}
