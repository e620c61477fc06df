//! The watched mode: a watcher reports each path that changes below the
//! root, and a query trusts every recorded entry it did not report,
//! without a stat; a reported path (and its folder) is checked as in the
//! checked mode. When the watcher cannot cover the tree (too many folders
//! for the system's watch limit, an error) or may have lost events (a
//! queue overflow, a rescan notice), the queries check everything until
//! an update has read the tree again: the fallback is exact.
//!
//! Two watchers report to the same record (`Recorder`): on Linux,
//! `inotify.rs`, inotify asked for changes only; elsewhere, `portable.rs`,
//! the `notify` crate (FSEvents, ReadDirectoryChangesW). notify's inotify
//! backend also asks for every open (`IN_OPEN`), so each file and folder a
//! query reads would queue an event and wake its thread: measured on a
//! tree of crate sources, a fifth of the processor time of a watched
//! count, and a full-tree query could overflow the queue it shares with
//! the changes.
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
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

#[cfg(target_os = "linux")]
mod inotify;
mod portable;
mod record;

use record::Recorder;
pub(crate) use record::{Barrier, Seen};

/// A running watcher and what it reported.
pub(crate) struct Watching {
    /// The running watcher (inotify's on Linux, notify's elsewhere), kept
    /// for its events; dropped, it stops.
    _watcher: Box<dyn Send>,
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
        Watching::start_with(root, beside, behind, cfg!(target_os = "linux"))
    }

    /// `start`, with inotify (`native`, Linux only) or notify.
    fn start_with(
        root: &Path,
        beside: &Path,
        behind: Arc<AtomicBool>,
        native: bool,
    ) -> Result<Watching, String> {
        let nanos = crate::index::stamp::now_ns();
        let dir = beside.join(format!(".watch-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        // Canonical, as the watcher reports paths.
        let dir = dir.canonicalize().map_err(|e| e.to_string())?;
        let barrier = Arc::new(Barrier::new(dir));
        // Until an update has read the tree since the watcher began,
        // nothing is trusted: the generation may be older than the
        // watcher (an index opened from disk).
        let seen = Arc::new(Mutex::new(Seen::untrusted()));
        let record = Recorder {
            root: root.to_owned(),
            seen: Arc::clone(&seen),
            barrier: Arc::clone(&barrier),
            behind,
        };
        let started = match native {
            #[cfg(target_os = "linux")]
            true => inotify::Watcher::start(record).map(|w| Box::new(w) as Box<dyn Send>),
            _ => portable::Watcher::start(record).map(|w| Box::new(w) as Box<dyn Send>),
        };
        match started {
            Ok(watcher) => Ok(Watching {
                _watcher: watcher,
                seen,
                barrier,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&barrier.dir);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::Watching;

    /// What `watching` reported since it was last asked (the barrier
    /// passed first, so every change made before is in), then forgotten.
    fn reported(watching: &Watching) -> Vec<String> {
        assert!(watching.barrier.pass(), "the barrier's event came");
        let mut seen = watching.seen.lock().unwrap();
        let mut paths: Vec<String> = seen.to_check().expect("nothing lost").into_iter().collect();
        paths.sort();
        let now = seen.now();
        seen.forget(now);
        paths
    }

    /// Each watcher reports what changed, as the tree writes paths:
    /// a file written, made, removed; a folder made and a file in it; a
    /// folder moved within the tree, and a file written in it under its
    /// new path; a folder moved out, and nothing written in it since.
    ///
    /// The folders' sequences hold for inotify watched directly, whose
    /// queries trust what it did not report. `notify`'s inotify backend
    /// watches a new folder some time after it reported it, so a write
    /// made in it just after can go unreported: it is not the watcher on
    /// Linux, and where it is, the barrier does not pass and queries
    /// check everything. Its run stops after the files' changes.
    #[test]
    #[cfg(target_os = "linux")]
    fn each_watcher_reports_changes_where_they_are_now() {
        for native in [true, false] {
            let tree = tempfile::tempdir().unwrap();
            let outside = tempfile::tempdir().unwrap();
            let store = tempfile::tempdir().unwrap();
            let root = tree.path().canonicalize().unwrap();
            let put = |rel: &str, text: &str| {
                let path = root.join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            };
            put("a/b/c.txt", "c");
            put("d.txt", "d");
            let behind = Arc::new(AtomicBool::new(false));
            let watching =
                Watching::start_with(&root, store.path(), Arc::clone(&behind), native).unwrap();
            // Nothing is trusted until an update: forget that loss.
            {
                let mut seen = watching.seen.lock().unwrap();
                let now = seen.now();
                seen.forget(now);
            }
            assert!(reported(&watching).is_empty(), "native {native}");
            put("d.txt", "d2");
            put("e.txt", "e");
            std::fs::remove_file(root.join("a/b/c.txt")).unwrap();
            assert_eq!(
                reported(&watching),
                ["", "a/b", "a/b/c.txt", "d.txt", "e.txt"],
                "native {native}"
            );
            if !native {
                continue;
            }
            std::fs::create_dir(root.join("f")).unwrap();
            assert_eq!(reported(&watching), ["", "f"], "native {native}");
            put("f/g.txt", "g");
            assert_eq!(reported(&watching), ["f", "f/g.txt"], "native {native}");
            std::fs::rename(root.join("a"), root.join("a2")).unwrap();
            let moved = reported(&watching);
            assert!(moved.contains(&"a".to_owned()) && moved.contains(&"a2".to_owned()));
            put("a2/b/new.txt", "n");
            assert_eq!(
                reported(&watching),
                ["a2/b", "a2/b/new.txt"],
                "native {native}"
            );
            std::fs::rename(root.join("a2"), outside.path().join("a2")).unwrap();
            assert!(reported(&watching).contains(&"a2".to_owned()));
            std::fs::write(outside.path().join("a2/b/out.txt"), "o").unwrap();
            assert_eq!(reported(&watching), Vec::<String>::new(), "native {native}");
            assert!(behind.load(std::sync::atomic::Ordering::Relaxed));
            drop(watching);
            assert!(
                std::fs::read_dir(store.path()).unwrap().next().is_none(),
                "the barrier's folder is removed"
            );
        }
    }
}
