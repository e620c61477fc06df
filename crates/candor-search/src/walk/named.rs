//! The paths the caller names that the walk cannot reach, counted where
//! they would have been met: as `vanished` when a name on the way is
//! missing, or is a file where a folder is needed, and as `symlink` when
//! the way goes through a link the tree does not follow. A folder on the
//! way that cannot be listed, or a link followed out of the root, is
//! counted itself, as any other entry, and not again for the paths below
//! it.

use std::collections::VecDeque;
use std::ffi::OsString;

use super::{Job, Walk};
use crate::confine::Kind;
use crate::{SkipReason, SkippedInput};

impl Walk<'_> {
    /// The paths the caller names below the folder at `rel` (`depth` names
    /// below the root) that its listing `entries` shows no way to, each
    /// with the name missing there, in walk order.
    pub(super) fn missing_in(
        &self,
        rel: &str,
        depth: usize,
        entries: &[(OsString, Kind)],
    ) -> VecDeque<(Vec<u8>, String)> {
        if self.options.filters.is_empty() {
            return VecDeque::new();
        }
        let listed = entries.iter().map(|(n, _)| n.as_encoded_bytes());
        self.scope.missing_below(rel, depth, listed).into()
    }

    /// The next path named that is missing in the innermost folder, when it
    /// comes before the folder's next entry: `Some(job)` with its skip,
    /// `Some(None)` when it comes before the resume point (passed over);
    /// `None` when the next entry comes first.
    pub(super) fn next_missing(&mut self) -> Option<Option<Job>> {
        let depth = self.stack.len().checked_sub(1)?;
        let frame = self.stack.last_mut()?;
        let (name, _) = frame.missing.front()?;
        let next = frame.entries.as_slice().first();
        if next.is_some_and(|(next, _)| next.as_encoded_bytes() < name.as_slice()) {
            return None;
        }
        let (name, path) = frame.missing.pop_front()?;
        let on_start_path = frame.on_start_path;
        if self
            .scope
            .after_start_named(depth, &name, on_start_path, false)
            .is_none()
        {
            return Some(None);
        }
        let input = SkippedInput::new(path, SkipReason::Vanished).with_detail("not found");
        Some(Some(Job::Skip(input)))
    }

    /// Counts the paths the caller names below the entry at `rel`, which is
    /// no folder the walk enters (a file, or a link not followed), after
    /// the entry itself, which comes first in path order.
    pub(super) fn unreachable_below(&mut self, rel: &str, kind: Kind) {
        // Most walks name no path below a file: the detail is written only
        // for one that does (writing it for every file of a tree cost a
        // tenth of a search's user time).
        if self.scope.named_below(rel).next().is_none() {
            return;
        }
        let (reason, detail) = if kind == Kind::Link {
            (
                SkipReason::Symlink,
                format!("{rel:?} on its way is a symbolic link, and links are not followed"),
            )
        } else {
            (
                SkipReason::Vanished,
                format!("{rel:?} on its way is not a folder"),
            )
        };
        for path in self.scope.named_below(rel) {
            let input = SkippedInput::new(path, reason.clone()).with_detail(detail.clone());
            self.pending.push_back(input);
        }
    }
}
