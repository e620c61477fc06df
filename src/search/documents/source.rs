//! The documents as the engine's `Source`: their identity for cursors,
//! the paths a caller names (a path that names no document is counted as
//! skipped where it comes in path order), and the run over the documents
//! in path order.

use std::ops::ControlFlow;

use super::{Documents, Name};
use crate::error::{Error, ErrorKind};
use crate::search::engine::{FileOutcome, Plan, no_hits, search_opened, unread};
use crate::search::path::{cmp_paths, is_within, normalize};
use crate::search::reader::{BLOCK, Opened, bom_len};
use crate::search::source::{Resolved, Source};
use crate::{Fingerprint, SkipReason, SkippedInput};

impl Source for Documents<'_> {
    fn fingerprint(&self) -> u64 {
        Fingerprint::of(&("documents", self.docs.len(), self.names_hash)).as_u64()
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

    fn stamp(&self, _path: &str) -> u64 {
        // The fingerprint covers the names and sizes, the generation the
        // rest.
        0
    }

    fn open(&self, path: &str) -> Opened<'_> {
        match self.docs.get(&Name(path.to_owned())) {
            Some(doc) => Opened::Memory(doc.bytes.as_bytes(), doc.known),
            // `resolve` found it: only a caller's bug gets here.
            None => Opened::Skip(SkippedInput::new(path, SkipReason::Vanished)),
        }
    }

    fn run(
        &self,
        plan: &Plan<'_>,
        take: &mut dyn FnMut(FileOutcome) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let from = plan.start.as_ref().map(|(p, _)| Name(p.clone()));
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
            FileOutcome::Skipped(
                SkippedInput::new(path, SkipReason::Vanished).with_detail("not found"),
            )
        };
        for (name, doc) in range {
            if plan.is_stopped() {
                return Ok(());
            }
            if !plan.filters.is_empty() && !plan.filters.iter().any(|f| is_within(&name.0, f)) {
                continue;
            }
            while let Some(path) = missing.next_if(|f| cmp_paths(f, &name.0).is_lt()) {
                if take(missing_skip(path)).is_break() {
                    return Ok(());
                }
            }
            if plan.reads_nothing {
                // `max_files(0)`: nothing is read.
                let _ = take(unread(&name.0));
                return Ok(());
            }
            let bytes = doc.bytes.as_bytes();
            // Most documents of a selective query hold no match: one scan
            // for a matching line tells, and such a document's outcome is
            // then known without the line-by-line machinery. Only for a
            // text document searched whole in one block, where nothing
            // else (the binary rule, a resume point, a budget checked
            // between blocks) could change that outcome.
            let outcome = if doc.known.first_nul.is_none()
                && doc.known.utf8
                && bytes.len() <= BLOCK
                && plan.offset_in(&name.0) == 0
                && plan
                    .matcher
                    .next_line(&bytes[bom_len(bytes, 0)..], 0)
                    .is_none()
            {
                no_hits(plan, plan.matcher, &name.0, bytes.len() as u64)
            } else {
                search_opened(
                    plan,
                    plan.matcher,
                    &name.0,
                    Opened::Memory(bytes, doc.known),
                    &mut Vec::new(),
                    None,
                )
            };
            if take(outcome).is_break() {
                return Ok(());
            }
        }
        for path in missing {
            if plan.is_stopped() || take(missing_skip(path)).is_break() {
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
