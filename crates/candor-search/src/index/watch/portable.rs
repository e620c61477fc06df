//! The watcher of other systems than Linux: the `notify` crate (FSEvents,
//! ReadDirectoryChangesW; on Linux, where inotify is watched directly
//! instead, its inotify backend, which the tests watch with too).

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};

use super::record::Recorder;

/// A running `notify` watcher; dropped, it stops.
pub(super) struct Watcher {
    _watcher: notify::RecommendedWatcher,
}

impl Watcher {
    /// Watches `record`'s root recursively and the barrier's folder,
    /// reporting to `record`.
    pub(super) fn start(record: Recorder) -> Result<Watcher, String> {
        let root = record.root.clone();
        let barrier = record.barrier.dir.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let event = match event {
                    Ok(event) => event,
                    Err(_) => return record.lost(),
                };
                // The barrier's own files: no change of the tree.
                if event
                    .paths
                    .iter()
                    .any(|p| p.starts_with(&record.barrier.dir))
                {
                    for name in event.paths.iter().filter_map(|p| p.file_name()) {
                        record.barrier.reported(name);
                    }
                    return;
                }
                // Reading a file is no change (the queries' own reads
                // would report every file they open); closing it after a
                // write is.
                if let EventKind::Access(access) = &event.kind {
                    if !matches!(access, AccessKind::Close(AccessMode::Write)) {
                        return;
                    }
                }
                if event.need_rescan() || event.paths.is_empty() {
                    // An overflow, a rescan notice: events lost.
                    return record.lost();
                }
                record.changed(event.paths.iter().map(|p| p.as_path()));
            })
            .map_err(|e| e.to_string())?;
        watcher
            .watch(&barrier, RecursiveMode::NonRecursive)
            .map_err(|e| e.to_string())?;
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| e.to_string())?;
        Ok(Watcher { _watcher: watcher })
    }
}
