//! What the engine needs of a corpus: the private `Source` trait, which
//! each corpus (`Documents`, `Tree`) implements and through which every
//! query of the public `Corpus` trait runs.
//!
//! A corpus is a source of files in path order. A new one implements
//! `Source` and nothing else: the engine opens and searches the files it
//! yields, applies the budgets, orders nothing (the source's order is the
//! answer's), and writes the cursors.

use std::ops::ControlFlow;

use crate::engine::{FileOutcome, Plan, QuerySearch, no_match, search_file};
use crate::position::{Order, Position};
use crate::reader::Opened;
use crate::{AsOf, Cursor, Fingerprint, Scope, SkippedInput};
use crate::{Error, ErrorKind};

/// One entry of a corpus, in path order.
pub(crate) enum Entry<'a> {
    /// A file to search: its path, as the corpus writes it, and how to
    /// open it. The engine calls `open` at most once, and not at all when
    /// no file may be read (`max_files(0)`).
    File {
        path: &'a str,
        open: &'a dyn Fn() -> Opened<'a>,
    },
    /// A file the corpus knows holds no matching line for this plan,
    /// without reading it (an index that rules it out): it counts as
    /// searched whole, `len` bytes scanned, with no match. Only for a
    /// file that would be searched whole: not the one the plan resumes
    /// in.
    #[cfg_attr(not(any(test, feature = "index")), allow(dead_code))]
    NoMatch { path: &'a str, len: u64 },
    /// An input the corpus leaves out, and why (a recorded skip, a path
    /// the caller named that is not there), where it comes in path order.
    Skip(SkippedInput),
}

/// What the engine needs of a corpus.
///
/// A corpus implements the identity and path methods, and `files`: its
/// files in path order. Everything else (opening each file through
/// `Entry::File`, reading it through the fixed buffer, matching, the
/// budgets, the order of the results and the cursors) is the engine's.
/// `run` searches the entries one after the other; a corpus that
/// searches in parallel (the tree) overrides it and hands on the same
/// outcomes in the same order.
pub(crate) trait Source: Sync {
    /// Identifies the corpus (its root and options), for cursors.
    fn fingerprint(&self) -> u64;
    /// The corpus's version, if it has one: cursors of another version
    /// are refused as stale. A corpus whose search cursors stay good
    /// while it changes elsewhere (a tree, an index) has none: a cursor
    /// is stale only when the input it resumes in changed (`stamp`).
    fn generation(&self) -> Option<u64>;
    /// Normalizes and confines a caller's path; fails when it leaves the
    /// corpus or does not exist. A path the caller names is found whatever
    /// the hidden and ignore rules say; on a tree, it is found name by name
    /// from the root's handle, through no link unless links are followed.
    fn resolve(&self, path: &str) -> Result<Resolved, Error>;
    /// Normalizes and confines a path filter of the caller's; fails only
    /// when it leaves the corpus or is no path. Whether it exists is not
    /// asked here: `files` counts a named path it cannot search in
    /// `skipped`, where it comes in path order, and yields the others.
    fn filter_path(&self, path: &str) -> Result<String, Error>;
    /// Checks a cursor's position: a path exactly as the corpus writes
    /// its inputs' paths. It need not exist any more (the search resumes
    /// after where it was); it is never opened.
    fn check_position(&self, path: &str) -> Result<(), Error>;
    /// What changes when the input at `path` changes (on a tree: its
    /// device, inode, size and modification and change times), compared
    /// with a search cursor's when it is resumed; `None` when the corpus
    /// has nothing to tell (then its generation does that work). A cursor
    /// into a file the search read records the stamp the reader took of
    /// the open file (`reader::Stat::stamp`, the same fields), the version
    /// whose text it points into; this one only where the input was not
    /// read (or tells no stamp when opened).
    fn stamp(&self, path: &str) -> Option<u64>;
    /// Opens one file named by a resolved path (a caller's, or a
    /// cursor's), for the reader: no hidden or ignore rule applies here,
    /// only the read policy, which the reader applies.
    fn open(&self, path: &str) -> Opened<'_>;

    /// When an answer trusts the corpus's record of its inputs without
    /// checking them (an index asked not to check the tree): the time
    /// the record is about, which the answer states. `None`, the
    /// default: answers are about the inputs as they are when asked.
    fn as_of(&self) -> Option<AsOf> {
        None
    }

    /// Hands each entry of the corpus to `each`, in path order (see
    /// `path::cmp_paths`), until `each` breaks or the entries run out:
    ///
    /// - from `plan.start`, if set: the file at its path first, if it is
    ///   still there (a source that can seeks there rather than reading
    ///   what comes before);
    /// - only the files within `plan.filters` (each a path or a folder),
    ///   when there are any; a filter that names nothing the corpus holds
    ///   is yielded as a `Skip` (reason `vanished`, detail `"not found"`)
    ///   where it comes in path order;
    /// - each file as `Entry::File`, or as `Entry::NoMatch` when the
    ///   corpus knows it holds no match of `plan.matcher` without reading
    ///   it; and every input it leaves out that the caller should hear of
    ///   as `Entry::Skip`.
    ///
    /// # Errors
    ///
    /// An error of the corpus itself (its root cannot be listed, say)
    /// ends the query; an input that cannot be read is a `Skip`, not an
    /// error.
    fn files(
        &self,
        plan: &Plan<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error>;

    /// The order of two of its paths in its walk (`files`'s order).
    /// Default: `path::cmp_paths`, the order of paths as written, which
    /// is the walk's where no name is escaped.
    fn walk_order(&self, a: &str, b: &str) -> std::cmp::Ordering {
        crate::path::cmp_paths(a, b)
    }

    /// The files the walk of `plan` (its filters) passes before `path`,
    /// and `path` itself when `through` and it is one: each entry `files`
    /// yields as a file, none opened. From the start, or, given `from` (a
    /// position before `path`, or at it, and the files up to it as this
    /// counts them), from there on, added to those. A search cursor
    /// records them, through its own file when its page counted some of
    /// that file (see `Place::is_past_start`), and a page resumed at it
    /// compares them with the walk's now: a file added or removed before
    /// the cursor since it was issued makes it stale, as its items would
    /// be missed or the page's `start` wrong, and so does its own file
    /// gone from the walk (removed, renamed, ignored, no longer a file),
    /// whose counted items the pages after it would count wrongly.
    /// Skipped inputs are left out (an editor's hidden swap file comes and
    /// goes), and so are changes of content (an agent edits what it has
    /// paged through).
    ///
    /// # Errors
    ///
    /// Those of `files`.
    fn order_before(
        &self,
        plan: &Plan<'_>,
        from: Option<(&Position, Order)>,
        path: &str,
        through: bool,
    ) -> Result<Order, Error> {
        walk_order_before(self, plan, from, path, through)
    }

    /// Hands the outcome of each entry, in path order, to `take`, until it
    /// breaks or the entries run out: each file searched on this thread,
    /// one after the other.
    fn run(
        &self,
        search: &QuerySearch<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let mut buffer = Vec::new();
        let matcher = search.plan.matcher;
        self.files(&search.plan, &mut |entry| match entry {
            Entry::File { path, open } => {
                take(search_file(search, matcher, path, open, &mut buffer))
            }
            Entry::NoMatch { path, len } => take(no_match(search, path, len)),
            Entry::Skip(input) => take(FileOutcome::Skipped(input)),
        })
    }

    /// Resolves a path the caller names as one file: anything but a
    /// folder (a FIFO or device is then skipped by the reader, as
    /// `special`).
    fn resolve_file(&self, path: &str) -> Result<Resolved, Error> {
        let resolved = self.resolve(path)?;
        if !resolved.is_file {
            return Err(ErrorKind::NotAFile {
                path: path.to_owned(),
            }
            .into());
        }
        Ok(resolved)
    }

    /// The scope of cursors bound to `fingerprint` on this corpus, and to
    /// its generation if it has one.
    fn scope(&self, fingerprint: Fingerprint) -> Scope {
        let scope = Scope::new(fingerprint);
        match self.generation() {
            Some(g) => scope.generation(g),
            None => scope,
        }
    }

    /// The scope `cursor`, given back to this corpus, is read in:
    /// `scope`, the one its cursors are issued in now. A corpus whose
    /// cursors carried more in earlier versions (an index's: its
    /// generation) reads those here too, or leaves them to be refused.
    fn resume_scope(&self, scope: Scope, _cursor: &Cursor) -> Scope {
        scope
    }
}

/// A caller's path, normalized and found in the corpus.
pub(crate) struct Resolved {
    pub(crate) path: String,
    pub(crate) is_file: bool,
}

/// `Source::order_before` as any corpus counts them: its walk, from the
/// start or from `from`.
pub(crate) fn walk_order_before<S: Source + ?Sized>(
    source: &S,
    plan: &Plan<'_>,
    from: Option<(&Position, Order)>,
    path: &str,
    through: bool,
) -> Result<Order, Error> {
    let walk = Plan {
        query: plan.query,
        matcher: plan.matcher,
        mode: plan.mode,
        cap: plan.cap,
        count_rest: plan.count_rest,
        max_columns: plan.max_columns,
        start: from.map(|(at, _)| at.clone()),
        filters: plan.filters.clone(),
    };
    // The walk from `from` yields its file again: counted out first if
    // `from` counted it.
    let mut order = from.map_or_else(Order::default, |(at, mut order)| {
        if at.place.is_past_start() {
            order.remove(&at.path);
        }
        order
    });
    source.files(&walk, &mut |entry| {
        let at = match &entry {
            Entry::File { path, .. } | Entry::NoMatch { path, .. } => path,
            Entry::Skip(input) => input.path(),
        };
        let past = source.walk_order(at, path);
        if past.is_gt() || (past.is_eq() && !through) {
            return ControlFlow::Break(());
        }
        if !matches!(entry, Entry::Skip(_)) {
            order.add(at);
        }
        ControlFlow::Continue(())
    })?;
    Ok(order)
}

#[cfg(test)]
mod tests {
    //! A corpus kind added by implementing `Source` alone: files in a map,
    //! with an index that rules files out without reading them, recorded
    //! skips, and a resume that seeks. Its answers are those of the same
    //! files as `Documents`.

    use std::collections::BTreeMap;
    use std::ops::ControlFlow;

    use super::{Entry, Resolved, Source};
    use crate::Documents;
    use crate::engine::Plan;
    use crate::path::{cmp_paths, is_within, normalize};
    use crate::reader::{Known, Opened};
    use crate::{Corpus, Fingerprint, Limits, Query, SkipReason, SkippedInput};
    use crate::{Error, ErrorKind};

    /// Files in memory with an index: the whole corpus kind is this type
    /// and its `Source` impl (about 60 lines), nothing of the engine.
    struct Indexed {
        files: BTreeMap<String, String>,
        /// Inputs the index recorded as not indexed, by path.
        skips: BTreeMap<String, SkipReason>,
    }

    impl Source for Indexed {
        fn fingerprint(&self) -> u64 {
            Fingerprint::of(&("indexed", &self.files)).as_u64()
        }

        fn generation(&self) -> Option<u64> {
            None
        }

        fn resolve(&self, path: &str) -> Result<Resolved, Error> {
            let path = normalize(path, None)?;
            match self.files.contains_key(&path) {
                true => Ok(Resolved {
                    path,
                    is_file: true,
                }),
                false => Err(ErrorKind::NotFound { path }.into()),
            }
        }

        fn filter_path(&self, path: &str) -> Result<String, Error> {
            normalize(path, None)
        }

        fn check_position(&self, _path: &str) -> Result<(), Error> {
            Ok(())
        }

        fn stamp(&self, _path: &str) -> Option<u64> {
            None
        }

        fn open(&self, path: &str) -> Opened<'_> {
            match self.files.get(path) {
                Some(text) => Opened::Memory(text.as_bytes(), Known::of(text.as_bytes(), true)),
                None => Opened::Skip(SkippedInput::new(path, SkipReason::Vanished)),
            }
        }

        fn files(
            &self,
            plan: &Plan<'_>,
            each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
        ) -> Result<(), Error> {
            let start = plan.start.as_ref().map(|p| p.path.as_str());
            // Seek to the resume point: nothing before it is looked at.
            let from = |map_start: &str| start.is_none_or(|s| cmp_paths(map_start, s).is_ge());
            let files = self
                .files
                .iter()
                .filter(|(p, _)| from(p))
                .map(|(p, t)| (p, Some(t)));
            let skips = self.skips.keys().filter(|p| from(p)).map(|p| (p, None));
            let mut all: Vec<_> = files.chain(skips).collect();
            all.sort_by(|a, b| cmp_paths(a.0, b.0));
            for (path, text) in all {
                if !plan.filters.is_empty() && !plan.filters.iter().any(|f| is_within(path, f)) {
                    continue;
                }
                let entry_flow = match text {
                    None => each(Entry::Skip(SkippedInput::new(
                        path,
                        self.skips[path].clone(),
                    ))),
                    // The index rules the file out (here by a scan standing
                    // in for its postings): searched, no match, not read.
                    Some(text)
                        if start != Some(path.as_str())
                            && plan.matcher.next_line(text.as_bytes(), 0).is_none() =>
                    {
                        each(Entry::NoMatch {
                            path,
                            len: text.len() as u64,
                        })
                    }
                    Some(_) => {
                        let open = || self.open(path);
                        each(Entry::File { path, open: &open })
                    }
                };
                if entry_flow.is_break() {
                    break;
                }
            }
            Ok(())
        }
    }

    fn corpus() -> (Indexed, Documents<'static>) {
        let files: BTreeMap<String, String> = (0..40)
            .map(|i| {
                let text = match i % 4 {
                    0 => format!("fn f{i}() {{}}\nlet x = {i};\nfn g{i}() {{}}\n"),
                    1 => "nothing here\n".repeat(i % 7 + 1),
                    2 => format!("only one fn\n{}", "filler\n".repeat(i)),
                    _ => String::new(),
                };
                (format!("d{}/f{i:02}.txt", i % 3), text)
            })
            .collect();
        let mut docs = Documents::new();
        for (path, text) in &files {
            docs = docs.with(path.clone(), text.clone());
        }
        (
            Indexed {
                files,
                skips: BTreeMap::from([("d1/big.bin".to_owned(), SkipReason::Binary)]),
            },
            docs,
        )
    }

    #[test]
    fn a_corpus_that_implements_source_alone_answers_as_documents_do() {
        let (indexed, docs) = corpus();
        let query = Query::literal("fn");
        for limits in [
            Limits::new(),
            Limits::new().limit(3),
            Limits::new().limit(5).count_total(true),
            Limits::new().max_files(4),
            Limits::new().max_files(0),
        ] {
            // Page after page, the same items, totals and stops.
            let (mut a, mut b) = (None, None);
            loop {
                let x = indexed.search(&query, &limits, a.as_ref()).unwrap();
                let y = docs.search(&query, &limits, b.as_ref()).unwrap();
                assert_eq!(x.items(), y.items(), "{limits:?}");
                assert_eq!(x.total(), y.total(), "{limits:?}");
                assert_eq!(x.completeness(), y.completeness(), "{limits:?}");
                match (x.next_cursor(), y.next_cursor()) {
                    (Some(c), Some(d)) => (a, b) = (Some(c.clone()), Some(d.clone())),
                    (None, None) => break,
                    other => panic!("one page goes on, the other not: {other:?}"),
                }
            }
            let x = indexed.count_per_file(&query, &limits, None).unwrap();
            let y = docs.count_per_file(&query, &limits, None).unwrap();
            assert_eq!(x.items(), y.items(), "{limits:?}");
            let x = indexed.files_with_matches(&query, &limits, None).unwrap();
            let y = docs.files_with_matches(&query, &limits, None).unwrap();
            assert_eq!(x.items(), y.items(), "{limits:?}");
        }
        // The index's recorded skip is told where it comes in path order.
        let all = indexed.search(&query, &Limits::new(), None).unwrap();
        assert_eq!(all.skipped().count(&SkipReason::Binary), 1);
        let only_d0 = indexed
            .search(&query.clone().paths(["d0"]), &Limits::new(), None)
            .unwrap();
        assert_eq!(only_d0.skipped().count(&SkipReason::Binary), 0);
        assert!(only_d0.iter().all(|m| m.path.starts_with("d0/")));
    }
}
