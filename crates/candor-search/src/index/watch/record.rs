//! What a watcher reports to, whichever watcher it is: the record of
//! what changed (`Seen`), numbered, so an update forgets exactly what it
//! read; the queries' barrier; and the flag that tells the index a change
//! came.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::seam::push_name;

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
    /// A record that trusts nothing until an update: the generation may
    /// be older than the watcher (an index opened from disk).
    pub(super) fn untrusted() -> Seen {
        Seen {
            lost: Some(0),
            ..Seen::default()
        }
    }

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
    pub(super) dir: PathBuf,
    set: AtomicU64,
    reported: Mutex<u64>,
    moved: Condvar,
}

impl Barrier {
    /// A barrier whose files are made in `dir`.
    pub(super) fn new(dir: PathBuf) -> Barrier {
        Barrier {
            dir,
            set: AtomicU64::new(0),
            reported: Mutex::new(0),
            moved: Condvar::new(),
        }
    }

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

    /// The watcher reported the file `name` of the barrier's folder.
    pub(super) fn reported(&self, name: &std::ffi::OsStr) {
        let number = name
            .to_str()
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

/// What a watcher reports to: the record of what changed, the barrier,
/// and the flag that tells the index a change came.
#[derive(Clone)]
pub(super) struct Recorder {
    pub(super) root: PathBuf,
    pub(super) seen: Arc<Mutex<Seen>>,
    pub(super) barrier: Arc<Barrier>,
    pub(super) behind: Arc<AtomicBool>,
}

impl Recorder {
    /// One event: `paths` changed (absolute, as the watcher names them);
    /// a path outside the root is a loss.
    pub(super) fn changed<'p>(&self, paths: impl IntoIterator<Item = &'p Path>) {
        self.behind.store(true, Ordering::Relaxed);
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.last += 1;
        let number = seen.last;
        for path in paths {
            match relative(&self.root, path) {
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

    /// One event that may stand for others lost: an overflow, a rescan
    /// notice, an error, a folder the watcher could not watch.
    pub(super) fn lost(&self) {
        self.behind.store(true, Ordering::Relaxed);
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.last += 1;
        seen.lost = Some(seen.last);
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
