//! The watched mode: a watcher (the `notify` crate: inotify, FSEvents,
//! ReadDirectoryChangesW) reports each path that changes below the root,
//! and a query trusts every recorded entry it did not report, without a
//! stat; a reported path (and its folder) is checked as in the checked
//! mode. When the watcher cannot cover the tree (too many folders for
//! the system's watch limit, an error) or may have lost events (a queue
//! overflow, a rescan notice), the queries check everything until an
//! update has read the tree again: the fallback is exact.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

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

/// A running watcher and what it reported.
pub(crate) struct Watching {
    /// Kept for its events; dropped, it stops.
    _watcher: notify::RecommendedWatcher,
    pub(crate) seen: Arc<Mutex<Seen>>,
}

impl std::fmt::Debug for Watching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watching").finish_non_exhaustive()
    }
}

impl Watching {
    /// Starts watching `root` (canonical) recursively; `behind` is set at
    /// every event.
    pub(crate) fn start(root: &Path, behind: Arc<AtomicBool>) -> Result<Watching, String> {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let record = Arc::clone(&seen);
        let root_owned: PathBuf = root.to_owned();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
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
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| e.to_string())?;
        Ok(Watching {
            _watcher: watcher,
            seen,
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
