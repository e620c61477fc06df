//! The index as the engine's `Source`: the entries it finds in path
//! order (see `entries.rs`), each file read and searched by the tree's
//! own reader and matcher unless the index can tell, without reading it,
//! that it holds no match; searched one after the other, or in batches
//! on several threads once the search only counts (see `counting.rs`).

use std::ops::ControlFlow;

use super::{Index, QueryTrust};
use crate::Error;
use crate::index::counting::Batch;
use crate::index::entries::Found;
use crate::index::stamp::parents_stamp;
use crate::seam::{
    Entry, FileOutcome, Opened, Order, Plan, Position, QuerySearch, Resolved, Source, no_match,
    walk_order_before,
};

/// The most counts of the files before a path an index keeps (see
/// `order_before`); past it, they are forgotten at once.
const KEPT_ORDERS: usize = 1024;
use crate::{AsOf, Cursor, Scope};

impl Index {
    /// After an update that neither added nor removed a file (see
    /// `Manifest::same_files_as`), the counts kept under generation
    /// `from` serve generation `to`: an agent that edits a file and pages
    /// on does not make the next page walk the names before its cursor.
    pub(super) fn carry_orders(&self, from: u64, to: u64) {
        let mut orders = self.orders.lock().unwrap_or_else(|p| p.into_inner());
        let carried: Vec<_> = orders
            .iter()
            .filter(|((generation, ..), _)| *generation == from)
            .map(|((_, filters, path, through), order)| {
                ((to, filters.clone(), path.clone(), *through), *order)
            })
            .collect();
        orders.retain(|(generation, ..), _| *generation != from);
        orders.extend(carried);
    }
}

impl Source for Index {
    /// The tree's: the index answers as its tree does, item for item, so
    /// a cursor of either resumes on the other (a scan that answered while
    /// the index was built, then the index).
    fn fingerprint(&self) -> u64 {
        self.tree.fingerprint()
    }

    /// None: an index's cursors are a tree's, stale only when the file
    /// they resume in changed, whatever the index's generation is now.
    fn generation(&self) -> Option<u64> {
        None
    }

    /// Cursors issued by earlier versions name the generation they were
    /// issued under, beside what a cursor names now (a file, a place in
    /// it, the file's stamp, taken as the tree takes it): the generation
    /// is passed over, and the stamp decides, as for any cursor.
    fn resume_scope(&self, scope: Scope, cursor: &Cursor) -> Scope {
        match cursor.generation() {
            Some(g) if scope.get_generation().is_none() => scope.generation(g),
            _ => scope,
        }
    }

    fn resolve(&self, path: &str) -> Result<Resolved, Error> {
        self.tree.resolve(path)
    }

    fn filter_path(&self, path: &str) -> Result<String, Error> {
        self.tree.filter_path(path)
    }

    fn check_position(&self, path: &str) -> Result<(), Error> {
        self.tree.check_position(path)
    }

    fn walk_order(&self, a: &str, b: &str) -> std::cmp::Ordering {
        self.tree.walk_order(a, b)
    }

    /// As any corpus counts them (see `Source::order_before`), and kept:
    /// watched, with nothing reported since the generation was read from
    /// the tree and the ignore files above the root as the generation
    /// read them (no watcher watches those), the files before a path are
    /// the generation's, so the count made when a cursor was given serves
    /// when it is resumed, and a page resumed on an unchanged tree walks
    /// only from its cursor to the next. An update that adds or removes
    /// no file keeps the counts for its generation (`carry_orders`).
    fn order_before(
        &self,
        plan: &Plan<'_>,
        from: Option<(&Position, Order)>,
        path: &str,
        through: bool,
    ) -> Result<Order, Error> {
        let (gitignore, parent_ignores) = self.tree.reads_ignores();
        let quiet = || match self.snapshot_to_query() {
            (snap, QueryTrust::Watched(seen))
                if seen.is_empty()
                    && parents_stamp(self.tree.get_root(), gitignore, parent_ignores)
                        == snap.parents() =>
            {
                Some(snap.generation)
            }
            _ => None,
        };
        let before = quiet();
        let key = |generation| (generation, plan.filters.clone(), path.to_owned(), through);
        if let Some(generation) = before {
            let orders = self.orders.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(order) = orders.get(&key(generation)) {
                return Ok(*order);
            }
        }
        let order = walk_order_before(self, plan, from, path, through)?;
        // Kept only when nothing changed while it was counted.
        if let Some(generation) = before.filter(|&g| quiet() == Some(g)) {
            let mut orders = self.orders.lock().unwrap_or_else(|p| p.into_inner());
            if orders.len() >= KEPT_ORDERS {
                orders.clear();
            }
            orders.insert(key(generation), order);
        }
        Ok(order)
    }

    fn stamp(&self, path: &str) -> Option<u64> {
        self.tree.stamp(path)
    }

    fn open(&self, path: &str) -> Opened<'_> {
        self.tree.open(path)
    }

    /// Not checking the tree and not watched: the time the current
    /// generation last read the tree.
    fn as_of(&self) -> Option<AsOf> {
        self.as_of_now()
    }

    fn files(
        &self,
        plan: &Plan<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        self.entries(plan, None, &mut |found| match found {
            // A file found binary is read as any file: the engine applies
            // the binary rule.
            Found::File { path, dir, .. } | Found::Binary { path, dir } => {
                let open = || self.open_in(path, dir.place(path).as_ref());
                each(Entry::File { path, open: &open })
            }
            Found::NoMatch { path, len } => each(Entry::NoMatch { path, len }),
            Found::Skip(input) => each(Entry::Skip(input)),
        })
    }

    /// The files searched one after the other, as `files` yields them,
    /// until the search only counts, then in batches on the tree's threads
    /// (see `counting.rs`). With the search known: a file of any length
    /// that holds no match is `NoMatch` when the scanned bytes cannot stop
    /// inside it, and once only counting remains it needs no outcome (it
    /// counts nothing, and no budget applies to a count); a file found
    /// binary is skipped as binary without a read.
    fn run(
        &self,
        search: &QuerySearch<'_>,
        take: &mut dyn FnMut(FileOutcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let mut buffer = Vec::new();
        let matcher = search.plan.matcher;
        let mut batch = Batch::new(self.tree.get_threads());
        let mut stopped = false;
        self.entries(&search.plan, Some(&search.budgets), &mut |found| {
            let flow =
                if matches!(found, Found::NoMatch { .. }) && search.budgets.is_counting_only() {
                    ControlFlow::Continue(())
                } else if batch.admits(search) {
                    batch.push(self, search, found, take)
                } else {
                    match found {
                        Found::File {
                            path, dir, parts, ..
                        } => {
                            let place = dir.place(path);
                            take(self.search_found(
                                search,
                                matcher,
                                path,
                                place.as_ref(),
                                parts.as_ref(),
                                &mut buffer,
                            ))
                        }
                        Found::NoMatch { path, len } => take(no_match(search, path, len)),
                        Found::Binary { path, dir } => {
                            take(self.binary(search, matcher, path, dir, &mut buffer))
                        }
                        Found::Skip(input) => take(FileOutcome::Skipped(input)),
                    }
                };
            stopped = flow.is_break();
            flow
        })?;
        if !stopped {
            let _ = batch.flush(self, search, take);
        }
        Ok(())
    }
}
