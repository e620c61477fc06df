//! The Linux watcher: inotify (through `rustix`), asked for changes only
//! (a write, an attribute, an entry made, removed or moved), never for
//! opens or reads, on every folder below the root, and on the barrier's
//! folder with the same instance, so that its events come in the order
//! of the changes (see `mod.rs`).
//!
//! A folder made or moved in is watched before its entries are listed,
//! then reported: a query walks a folder the index does not hold, so
//! what was made in it before its watch began is found, and an update
//! that begins after the report reads it. A folder moved away or out
//! stops being watched under its old path; one moved within the tree is
//! watched again under its new one. A folder that cannot be watched (the
//! watch limit), an overflow of the queue, or the root itself moved or
//! removed is a loss: queries check everything until the next update.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use rustix::event::{EventfdFlags, PollFd, PollFlags, eventfd, poll};
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, Reader, WatchFlags};
use rustix::io::Errno;

use super::record::Recorder;

/// What every folder is watched for: changes of its entries and of
/// itself, never an open or a read; no link followed.
fn mask() -> WatchFlags {
    WatchFlags::ATTRIB
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::DELETE_SELF
        | WatchFlags::MODIFY
        | WatchFlags::MOVE_SELF
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DONT_FOLLOW
        | WatchFlags::ONLYDIR
        | WatchFlags::EXCL_UNLINK
}

/// A running watcher; dropped, its thread stops.
pub(super) struct Watcher {
    /// Written to stop the thread.
    wake: Arc<OwnedFd>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = rustix::io::write(&*self.wake, &1u64.to_ne_bytes());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Watcher {
    /// Watches every folder below `record`'s root, and the barrier's
    /// folder, reporting to `record` from a thread of its own.
    pub(super) fn start(record: Recorder) -> Result<Watcher, String> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)
            .map_err(|e| format!("inotify: {e}"))?;
        let wake =
            Arc::new(eventfd(0, EventfdFlags::CLOEXEC).map_err(|e| format!("eventfd: {e}"))?);
        let barrier = inotify::add_watch(&fd, &record.barrier.dir, mask())
            .map_err(|e| format!("the barrier's folder: {e}"))?;
        let mut watches = Watches::default();
        let root = record.root.clone();
        watches.add_tree(&fd, root.clone()).map_err(|e| match e {
            Errno::NOSPC => "more folders than the system's inotify watch limit".to_owned(),
            e => format!("{}: {e}", root.display()),
        })?;
        let root_wd = watches.by_path.get(&root).copied();
        let stop = Arc::clone(&wake);
        let thread = std::thread::Builder::new()
            .name("candor-watch".into())
            .spawn(move || {
                let mut state = WatchState {
                    watches,
                    barrier,
                    root_wd,
                    record,
                };
                state.run(&fd, &stop);
            })
            .map_err(|e| e.to_string())?;
        Ok(Watcher {
            wake,
            thread: Some(thread),
        })
    }
}

/// The folders watched, by watch and by path.
#[derive(Default)]
struct Watches {
    by_wd: HashMap<i32, PathBuf>,
    /// In component order, so a folder's subtree follows it.
    by_path: BTreeMap<PathBuf, i32>,
}

impl Watches {
    /// Watches `dir` and every folder below it, each before its entries
    /// are listed (a folder made in it meanwhile is reported, and watched
    /// then). A folder gone, not a folder (a link) or not readable is
    /// passed over: the tree's walk cannot read it either, and its parent
    /// reports it.
    fn add_tree(&mut self, fd: &OwnedFd, dir: PathBuf) -> Result<(), Errno> {
        let mut stack = vec![dir];
        while let Some(dir) = stack.pop() {
            match inotify::add_watch(fd, &dir, mask()) {
                Ok(wd) => {
                    if let Some(old) = self.by_wd.insert(wd, dir.clone()) {
                        if old != dir {
                            self.by_path.remove(&old);
                        }
                    }
                    self.by_path.insert(dir.clone(), wd);
                }
                Err(Errno::NOENT | Errno::NOTDIR | Errno::ACCESS | Errno::LOOP) => continue,
                Err(e) => return Err(e),
            }
            let Ok(list) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in list.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(entry.path());
                }
            }
        }
        Ok(())
    }

    /// Stops watching `dir` and every folder below it.
    fn remove_tree(&mut self, fd: &OwnedFd, dir: &Path) {
        let gone: Vec<(PathBuf, i32)> = self
            .by_path
            .range(dir.to_path_buf()..)
            .take_while(|(path, _)| path.starts_with(dir))
            .map(|(path, &wd)| (path.clone(), wd))
            .collect();
        for (path, wd) in gone {
            self.by_path.remove(&path);
            self.by_wd.remove(&wd);
            let _ = inotify::remove_watch(fd, wd);
        }
    }

    /// Forgets a watch the system ended (its folder removed).
    fn forget(&mut self, wd: i32) {
        if let Some(path) = self.by_wd.remove(&wd) {
            if self.by_path.get(&path) == Some(&wd) {
                self.by_path.remove(&path);
            }
        }
    }
}

/// What the watcher's thread keeps.
struct WatchState {
    watches: Watches,
    /// The barrier's folder's watch.
    barrier: i32,
    root_wd: Option<i32>,
    record: Recorder,
}

impl WatchState {
    /// Reads the events of the inotify instance `fd` until `stop` is
    /// written.
    fn run(&mut self, fd: &OwnedFd, stop: &OwnedFd) {
        let mut buffer = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
        loop {
            let mut fds = [
                PollFd::new(fd, PollFlags::IN),
                PollFd::new(stop, PollFlags::IN),
            ];
            match poll(&mut fds, None) {
                Ok(_) => {}
                Err(Errno::INTR) => continue,
                Err(_) => return self.record.lost(),
            }
            if !fds[1].revents().is_empty() {
                return;
            }
            let mut reader = Reader::new(fd, &mut buffer);
            loop {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(Errno::AGAIN) => break,
                    Err(Errno::INTR) => continue,
                    Err(_) => return self.record.lost(),
                };
                let name = event
                    .file_name()
                    .map(|n| OsStr::from_bytes(n.to_bytes()).to_owned());
                let (wd, flags) = (event.wd(), event.events());
                self.event(fd, wd, flags, name.as_deref());
            }
        }
    }

    /// One event: of the watch `wd`, about its entry `name` or itself.
    fn event(&mut self, fd: &OwnedFd, wd: i32, flags: ReadFlags, name: Option<&OsStr>) {
        if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
            return self.record.lost();
        }
        if wd == self.barrier {
            if let Some(name) = name {
                self.record.barrier.reported(name);
            }
            return;
        }
        if flags.contains(ReadFlags::IGNORED) {
            self.watches.forget(wd);
            if Some(wd) == self.root_wd {
                self.record.lost();
            }
            return;
        }
        let Some(dir) = self.watches.by_wd.get(&wd) else {
            // A folder no longer watched (moved away): where it went is
            // reported by its new parent.
            return;
        };
        let path = match name {
            Some(name) => dir.join(name),
            None => dir.clone(),
        };
        let itself = name.is_none();
        if itself
            && Some(wd) == self.root_wd
            && flags.intersects(ReadFlags::MOVE_SELF | ReadFlags::DELETE_SELF | ReadFlags::UNMOUNT)
        {
            return self.record.lost();
        }
        if flags.contains(ReadFlags::ISDIR) && !itself {
            if flags.contains(ReadFlags::MOVED_FROM) {
                self.watches.remove_tree(fd, &path);
            }
            if flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
                && self.watches.add_tree(fd, path.clone()).is_err()
            {
                self.record.lost();
            }
        }
        self.record.changed([path.as_path()]);
    }
}
