//! The documents as the engine's `Source`: their identity for cursors,
//! the paths a caller names (a path that names no document is counted as
//! skipped where it comes in path order), and the run over the documents
//! in path order.

use std::ops::ControlFlow;

use super::{Documents, Name};
use crate::engine::Plan;
use crate::path::{cmp_paths, is_within, normalize};
use crate::reader::Opened;
use crate::source::{Entry, Resolved, Source};
use crate::{Error, ErrorKind};
use crate::{Fingerprint, SkipReason, SkippedInput};

impl Source for Documents<'_> {
    fn fingerprint(&self) -> u64 {
        Fingerprint::of(&"documents").as_u64()
    }

    fn generation(&self) -> Option<u64> {
        self.generation
    }

    fn resolve(&self, path: &str) -> Result<Resolved, Error> {
        let path_norm = normalize(path, None)?;
        if !self.holds(&path_norm) {
            return Err(ErrorKind::NotFound {
                path: path.to_owned(),
            }
            .into());
        }
        Ok(Resolved {
            is_file: self.docs.contains_key(&Name(path_norm.clone())),
            path: path_norm,
        })
    }

    fn filter_path(&self, path: &str) -> Result<String, Error> {
        normalize(path, None)
    }

    fn check_position(&self, path: &str) -> Result<(), Error> {
        match normalize(path, None) {
            Ok(written) if written == path && !path.is_empty() => Ok(()),
            _ => Err(Error::cursor_out_of_range(format!(
                "it names {path:?}, which is not a document name"
            ))),
        }
    }

    fn stamp(&self, path: &str) -> Option<u64> {
        // The documents before it are the order's (see `order_before`).
        self.docs.get(&Name(path.to_owned())).map(|doc| doc.stamp())
    }

    fn open(&self, path: &str) -> Opened<'_> {
        match self.docs.get(&Name(path.to_owned())) {
            Some(doc) => Opened::Memory(doc.bytes.as_bytes(), doc.known),
            // `resolve` found it: only a caller's bug gets here.
            None => Opened::Skip(SkippedInput::new(path, SkipReason::Vanished)),
        }
    }

    fn files(
        &self,
        plan: &Plan<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let from = plan.start.as_ref().map(|p| Name(p.path.clone()));
        let range = match &from {
            Some(from) => self.docs.range(from..),
            None => self.docs.range::<Name, _>(..),
        };
        // The paths the caller names that no document has or lies under,
        // each counted where it comes in path order.
        let mut missing = plan
            .filters
            .iter()
            .filter(|f| {
                from.as_ref()
                    .is_none_or(|from| cmp_paths(f, &from.0).is_gt())
            })
            .filter(|f| !self.holds(f))
            .peekable();
        let missing_skip = |path: &str| {
            Entry::Skip(SkippedInput::new(path, SkipReason::Vanished).with_detail("not found"))
        };
        for (name, doc) in range {
            if !plan.filters.is_empty() && !plan.filters.iter().any(|f| is_within(&name.0, f)) {
                continue;
            }
            while let Some(path) = missing.next_if(|f| cmp_paths(f, &name.0).is_lt()) {
                if each(missing_skip(path)).is_break() {
                    return Ok(());
                }
            }
            let open = || Opened::Memory(doc.bytes.as_bytes(), doc.known);
            let entry = Entry::File {
                path: &name.0,
                open: &open,
            };
            if each(entry).is_break() {
                return Ok(());
            }
        }
        for path in missing {
            if each(missing_skip(path)).is_break() {
                break;
            }
        }
        Ok(())
    }
}

impl Documents<'_> {
    /// Returns true when a document has the name `path` or lies under it.
    fn holds(&self, path: &str) -> bool {
        // In path order, the names within `path` come first from it on.
        self.docs
            .range(Name(path.to_owned())..)
            .next()
            .is_some_and(|(name, _)| is_within(&name.0, path))
    }
}
