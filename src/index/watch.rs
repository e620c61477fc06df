//! The watched mode: a watcher (the `notify` crate: inotify, FSEvents,
//! ReadDirectoryChangesW) reports each path that changes below the root,
//! and a query trusts every recorded entry it did not report, without a
//! stat; a reported path (and its folder) is checked as in the checked
//! mode. When the watcher cannot cover the tree (too many folders for
//! the system's watch limit, an error) or may have lost events (a queue
//! overflow, a rescan notice), the queries check everything until an
//! update has read the tree again: the fallback is exact.
//!
//! Events reach the watcher's thread a moment after the change: a query
//! that trusted what had been reported when it began could miss a change
//! made just before it. So a query first passes a **barrier**: it
//! creates a file of its own in a folder of its own (beside the index's
//! files) that the same watcher watches, and waits until that file's
//! event arrives. inotify queues the events of one watcher in the order
//! the changes happened, so every change made before the query began has
//! been reported by then. Where the watcher gives no such order (other
//! systems than Linux), or the barrier's event does not come within
//! `BARRIER_WAIT`, the query checks everything: exact, and slower.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};

use crate::search::push_name;

/// What the watcher reported that the current generation may not hold.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The paths changed (as the tree writes them), and their folders,
    /// each with the number of the last event that named it.
    paths: HashMap<String, u64>,
    /// The number of the last event.
    last: u64,
    /// The number of the last event that may have lost others.
    lost: Option<u64>,
}

impl Seen {
    fn mark(&mut self, path: String) {
        self.paths.insert(path, self.last);
    }

    /// The paths to check, or `None` when everything must be checked.
    pub(crate) fn to_check(&self) -> Option<HashSet<String>> {
        match self.lost {
            Some(_) => None,
            None => Some(self.paths.keys().cloned().collect()),
        }
    }

    /// The number of the last event: an update that begins now sees
    /// every change it reported.
    pub(crate) fn now(&self) -> u64 {
        self.last
    }

    /// Forgets what events up to `upto` reported: a generation read from
    /// the tree after them holds it.
    pub(crate) fn forget(&mut self, upto: u64) {
        self.paths.retain(|_, n| *n > upto);
        if self.lost.is_some_and(|n| n <= upto) {
            self.lost = None;
        }
    }
}

/// How long a query waits for its barrier's event before it checks
/// everything instead.
const BARRIER_WAIT: Duration = Duration::from_secs(2);

/// The barrier of the queries (see the module's docs): its folder, the
/// number of the last barrier set, and of the last one reported.
#[derive(Debug)]
pub(crate) struct Barrier {
    dir: PathBuf,
    set: AtomicU64,
    reported: Mutex<u64>,
    moved: Condvar,
}

impl Barrier {
    /// Returns true once every change made before the call has been
    /// reported; false when that cannot be known.
    pub(crate) fn pass(&self) -> bool {
        if !cfg!(target_os = "linux") {
            return false;
        }
        let n = self.set.fetch_add(1, Ordering::Relaxed) + 1;
        let path = self.dir.join(format!("b{n}"));
        if std::fs::write(&path, b"").is_err() {
            return false;
        }
        let _ = std::fs::remove_file(&path);
        let until = Instant::now() + BARRIER_WAIT;
        let mut reported = self.reported.lock().unwrap_or_else(|p| p.into_inner());
        while *reported < n {
            let Some(left) = until.checked_duration_since(Instant::now()) else {
                return false;
            };
            reported = self
                .moved
                .wait_timeout(reported, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }

    /// The watcher reported `path`, in the barrier's folder.
    fn reported(&self, path: &Path) {
        let number = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix('b'))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(n) = number {
            let mut reported = self.reported.lock().unwrap_or_else(|p| p.into_inner());
            if n > *reported {
                *reported = n;
                self.moved.notify_all();
            }
        }
    }
}

/// A running watcher and what it reported.
pub(crate) struct Watching {
    /// Kept for its events; dropped, it stops.
    _watcher: notify::RecommendedWatcher,
    pub(crate) seen: Arc<Mutex<Seen>>,
    pub(crate) barrier: Arc<Barrier>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.barrier.dir);
    }
}

impl std::fmt::Debug for Watching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watching").finish_non_exhaustive()
    }
}

impl Watching {
    /// Starts watching `root` (canonical) recursively, with the barrier's
    /// folder made in `beside` (the index's folder); `behind` is set at
    /// every event.
    pub(crate) fn start(
        root: &Path,
        beside: &Path,
        behind: Arc<AtomicBool>,
    ) -> Result<Watching, String> {
        let nanos = crate::index::stamp::now_ns();
        let dir = beside.join(format!(".watch-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        // Canonical, as the watcher reports paths.
        let dir = dir.canonicalize().map_err(|e| e.to_string())?;
        let barrier = Arc::new(Barrier {
            dir,
            set: AtomicU64::new(0),
            reported: Mutex::new(0),
            moved: Condvar::new(),
        });
        // Until an update has read the tree since the watcher began,
        // nothing is trusted: the generation may be older than the
        // watcher (an index opened from disk).
        let seen = Arc::new(Mutex::new(Seen {
            lost: Some(0),
            ..Seen::default()
        }));
        let record = Arc::clone(&seen);
        let root_owned: PathBuf = root.to_owned();
        let reach = Arc::clone(&barrier);
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                // The barrier's own files: no change of the tree.
                if let Ok(event) = &event {
                    if event.paths.iter().any(|p| p.starts_with(&reach.dir)) {
                        for path in &event.paths {
                            reach.reported(path);
                        }
                        return;
                    }
                }
                // Reading a file is no change (the queries' own reads
                // would report every file they open); closing it after a
                // write is.
                if let Ok(notify::Event {
                    kind: EventKind::Access(access),
                    ..
                }) = &event
                {
                    if !matches!(access, AccessKind::Close(AccessMode::Write)) {
                        return;
                    }
                }
                behind.store(true, Ordering::Relaxed);
                let mut seen = record.lock().unwrap_or_else(|p| p.into_inner());
                seen.last += 1;
                let number = seen.last;
                match event {
                    Ok(event) if !event.need_rescan() && !event.paths.is_empty() => {
                        for path in &event.paths {
                            match relative(&root_owned, path) {
                                Some(rel) => {
                                    let parent = rel
                                        .rfind('/')
                                        .map_or(String::new(), |i| rel[..i].to_owned());
                                    seen.mark(parent);
                                    seen.mark(rel);
                                }
                                None => seen.lost = Some(number),
                            }
                        }
                    }
                    // An overflow, a rescan notice, an error: events lost.
                    _ => seen.lost = Some(number),
                }
            })
            .map_err(|e| e.to_string())?;
        let watching = |watcher: &mut notify::RecommendedWatcher| {
            watcher.watch(&barrier.dir, RecursiveMode::NonRecursive)?;
            watcher.watch(root, RecursiveMode::Recursive)
        };
        if let Err(e) = watching(&mut watcher) {
            let _ = std::fs::remove_dir_all(&barrier.dir);
            return Err(e.to_string());
        }
        Ok(Watching {
            _watcher: watcher,
            seen,
            barrier,
        })
    }
}

/// `path` relative to `root`, written as the tree writes paths (`""` for
/// the root itself).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let mut out = String::new();
    for (i, name) in rest.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        push_name(name.as_encoded_bytes(), &mut out);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::Seen;

    #[test]
    fn what_an_update_read_is_forgotten_and_a_loss_until_it() {
        let mut seen = Seen {
            last: 1,
            ..Seen::default()
        };
        seen.mark("a/b.txt".into());
        seen.mark("a".into());
        let upto = seen.now();
        seen.last = 2;
        seen.mark("c.txt".into());
        assert_eq!(seen.to_check().map(|s| s.len()), Some(3));
        seen.forget(upto);
        let left = seen.to_check().unwrap();
        assert!(left.contains("c.txt") && !left.contains("a"));
        // Lost events: everything is checked, until an update after them.
        seen.last = 3;
        seen.lost = Some(3);
        assert!(seen.to_check().is_none());
        seen.forget(2);
        assert!(
            seen.to_check().is_none(),
            "the loss came after that update began"
        );
        seen.forget(3);
        assert!(seen.to_check().is_some());
    }
}
