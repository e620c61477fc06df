//! One page of a search over one cluster or several: the requests it
//! sends (from the cursor's positions), and the page it makes of the
//! replies.
//!
//! Each cluster's reply is a prefix of its own answer after its position
//! (hits in its sort order, `limit + 1` asked for), or a subset (it timed
//! out, or stopped at `terminate_after`), or nothing (it failed). Prefixes
//! are merged by [`Limits::merge_by_key`]: only what is certain is kept,
//! the global limit and byte budget apply, and the cursor holds every
//! cluster's position after the last hit kept. A subset anywhere makes
//! the page a subset (docs/CONTRACT.md, rule M2), fitted by
//! `cluster::SubsetPage`.

use std::cmp::Ordering;
use std::fmt::Display;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::missing::missing_hits;
use super::reply::{self, Outcome, Reply};
use super::search::{Paging, Search};
use super::sort::{Order, compare_sort_values};
use super::state::{ClusterPosition, Status, key_of, positions_of};
use crate::cluster::{SubsetPage, bulk_skips, response_error};
use crate::error::{Error, ErrorKind};
use crate::{
    Bounded, Budget, BudgetKind, Completeness, Cursor, CursorKey, Disclosure, Limits, Scope,
    SkipReason, Skipped, SkippedInput, Total,
};

/// The requests of one page, one per cluster (from where each stood
/// after the last page), and how to read their replies into the page.
#[derive(Debug, Clone)]
pub(crate) struct PageRequests {
    limits: Limits,
    scope: Scope,
    paging: Paging,
    orders: Vec<Order>,
    /// The clusters' names; one unnamed cluster for a single search.
    names: Vec<String>,
    /// Where each cluster stood before this page.
    positions: Vec<ClusterPosition>,
    /// Each cluster's request body; `None` for a cluster not asked (done
    /// or failed earlier).
    bodies: Vec<Option<Value>>,
    /// Whether the positions came from a cursor.
    resumed: bool,
    /// What the search's `terminate_after` is, for the note of a page it cut.
    terminate_after: Option<u64>,
}

/// A hit of a cluster, kept with where it sits in the merge; it
/// serializes as its item alone, so the byte budget measures what the
/// page will hold.
struct Tagged<T> {
    key: HitKey,
    item: T,
}

impl<T: Serialize> Serialize for Tagged<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.item.serialize(serializer)
    }
}

/// What the keys of one page share: each cluster's kept hits' sort
/// values, and the positions a cursor after any of them holds.
struct PageKeyData {
    orders: Vec<Order>,
    /// Per cluster, the sort values of its kept hits, in its order.
    sorts: Vec<Vec<Vec<Value>>>,
    /// Per cluster, where it stood before the page, with its latest
    /// point in time id and its failure on this page, if any.
    positions: Vec<ClusterPosition>,
    /// Per cluster, whether its kept hits are all it has after its
    /// position.
    exhausted: Vec<bool>,
}

/// A hit's place in the merge: hit `index` of cluster `cluster`.
///
/// Hits of one cluster are in its own order (its reply's); hits of
/// different clusters compare by their sort values, then by cluster. The
/// order is total because each cluster's hits were checked to be in
/// strictly increasing sort-value order when there are several clusters.
/// As a cursor key it writes every cluster's position after this hit.
#[derive(Clone)]
struct HitKey {
    shared: Arc<PageKeyData>,
    cluster: usize,
    index: usize,
}

impl HitKey {
    fn sort(&self) -> &[Value] {
        &self.shared.sorts[self.cluster][self.index]
    }

    /// The positions of a walk resumed after this hit.
    fn positions_after(&self) -> Vec<ClusterPosition> {
        let shared = &self.shared;
        (0..shared.sorts.len())
            .map(|j| {
                let mut position = shared.positions[j].clone();
                if position.status != Status::Open {
                    return position;
                }
                let hits = &shared.sorts[j];
                // How many of cluster j's hits come at or before this one.
                let shown = if j == self.cluster {
                    self.index + 1
                } else {
                    hits.partition_point(|sort| {
                        compare_sort_values(sort, self.sort(), &shared.orders)
                            .then(j.cmp(&self.cluster))
                            == Ordering::Less
                    })
                };
                if shown > 0 {
                    position.after = Some(hits[shown - 1].clone());
                    position.start = position.start.saturating_add(shown as u64);
                }
                if shared.exhausted[j] && shown == hits.len() {
                    position.status = Status::Done;
                }
                position
            })
            .collect()
    }
}

impl PartialEq for HitKey {
    fn eq(&self, other: &HitKey) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for HitKey {}

impl PartialOrd for HitKey {
    fn partial_cmp(&self, other: &HitKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for HitKey {
    fn cmp(&self, other: &HitKey) -> Ordering {
        if self.cluster == other.cluster {
            return self.index.cmp(&other.index);
        }
        compare_sort_values(self.sort(), other.sort(), &self.shared.orders)
            .then(self.cluster.cmp(&other.cluster))
    }
}

impl CursorKey for HitKey {
    fn encode_key(&self, out: &mut Vec<u8>) {
        key_of(&self.positions_after()).encode_key(out);
    }

    /// A walk resumes from the positions, read back as JSON: a `HitKey`
    /// needs the page it came from and is never decoded.
    fn decode_key(_: &mut &[u8]) -> Option<Self> {
        None
    }
}

/// One cluster's share of the page, read from its reply.
struct Part<T> {
    /// Its kept hits (at most the limit) and their sort values.
    items: Vec<(Vec<Value>, T)>,
    /// It found more than the limit after its position.
    over_limit: bool,
    /// Its `hits.total`, of its whole answer.
    total: Option<Total>,
    skipped: Skipped,
    /// The stop that makes its hits a subset, and the note's words for it.
    subset: Option<(Budget, String)>,
}

impl<T> Part<T> {
    /// The share of a cluster that adds no hit.
    fn empty() -> Part<T> {
        Part {
            items: Vec::new(),
            over_limit: false,
            total: None,
            skipped: Skipped::new(),
            subset: None,
        }
    }
}

impl PageRequests {
    /// The requests of a page over `clusters` (name, first page's point in
    /// time), resumed from `cursor` if any. `single` names no cluster.
    pub(crate) fn new(
        search: &Search,
        clusters: &[(String, Option<String>)],
        single: bool,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<PageRequests, Error> {
        let names: Vec<String> = clusters.iter().map(|(name, _)| name.clone()).collect();
        let scope = if single {
            search.scope()
        } else {
            search.scope_of(&names)
        };
        let paging = search.paging(limits)?;
        let orders = search.orders();
        let positions = match cursor {
            None => clusters
                .iter()
                .map(|(_, pit)| ClusterPosition::first(pit.clone()))
                .collect(),
            Some(cursor) => {
                resumed_positions(&scope, cursor, clusters.len(), single, orders.len())?
            }
        };
        let bodies = positions
            .iter()
            .map(|position| match position.status {
                Status::Open => {
                    let tie = search.effective_tie_breaker(position.pit.is_some())?;
                    Ok(Some(search.body(&paging, &tie, position)))
                }
                Status::Done | Status::Failed(_) => Ok(None),
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(PageRequests {
            limits: limits.clone(),
            scope,
            paging,
            orders,
            names,
            positions,
            bodies,
            resumed: cursor.is_some(),
            terminate_after: search.get_terminate_after(),
        })
    }

    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    pub(crate) fn bodies(&self) -> &[Option<Value>] {
        &self.bodies
    }

    /// Whether this is a single search, whose one cluster has no name.
    fn is_single(&self) -> bool {
        self.names.len() == 1 && self.names[0].is_empty()
    }

    /// The page the replies make, one per cluster (`None`: not asked, or
    /// no reply), each hit made an item by `map`.
    pub(crate) fn read<T, E, F>(
        &self,
        replies: &[Option<Result<&Value, String>>],
        mut map: F,
    ) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        E: Display,
        F: FnMut(&Value) -> Result<T, E>,
    {
        let mut positions = self.positions.clone();
        let mut parts: Vec<Part<T>> = Vec::with_capacity(self.names.len());
        for (c, position) in positions.iter_mut().enumerate() {
            let reply = replies.get(c).cloned().flatten();
            parts.push(self.read_cluster(c, reply, position, &mut map)?);
        }
        self.check_hit_order(&parts)?;
        let exhausted = parts
            .iter()
            .zip(&positions)
            .map(|(p, pos)| pos.status != Status::Open || (!p.over_limit && p.subset.is_none()))
            .collect();
        let shared = Arc::new(PageKeyData {
            orders: self.orders.clone(),
            sorts: parts
                .iter()
                .map(|p| p.items.iter().map(|(sort, _)| sort.clone()).collect())
                .collect(),
            positions,
            exhausted,
        });
        if parts.iter().any(|p| p.subset.is_some()) {
            return self.subset(parts, &shared, self.is_single());
        }
        self.merge_prefixes(parts, &shared)
    }

    /// Cluster `c`'s share of the page from its reply (`None`: not asked,
    /// or no reply), updating its `position` with its latest point in
    /// time, or with its failure.
    fn read_cluster<T, E, F>(
        &self,
        c: usize,
        reply: Option<Result<&Value, String>>,
        position: &mut ClusterPosition,
        map: &mut F,
    ) -> Result<Part<T>, Error>
    where
        E: Display,
        F: FnMut(&Value) -> Result<T, E>,
    {
        let name = &self.names[c];
        let mut part = Part::empty();
        match &self.positions[c].status {
            Status::Done => {}
            Status::Failed(reason) => {
                part.skipped.record(cluster_failure(
                    name,
                    format!("failed on an earlier page of this walk: {reason}"),
                ));
            }
            Status::Open => {
                let outcome = match reply {
                    None => Err("no reply".to_owned()),
                    Some(Err(message)) => Err(message),
                    Some(Ok(response)) => Ok(reply::read(response, self.orders.len())
                        .map_err(|e| in_cluster(name, e))?),
                };
                match outcome {
                    Ok(Outcome::Reply(reply)) => {
                        if let Some(pit) = &reply.pit_id {
                            position.pit = Some(pit.clone());
                        }
                        part = self.part(c, reply, map)?;
                    }
                    Ok(Outcome::Expired(detail)) => {
                        return Err(self.expired(c, &detail));
                    }
                    Ok(Outcome::Failed(message)) | Err(message) => {
                        if self.is_single() {
                            return Err(response_error(format!(
                                "the cluster answered with an error: {message}"
                            )));
                        }
                        part.skipped.record(cluster_failure(name, message.clone()));
                        position.status = Status::Failed(message);
                    }
                }
            }
        }
        Ok(part)
    }

    /// Checks that each cluster's hits can be shown after its position:
    /// none repeats the hit the cursor resumes after, one cluster's hits
    /// have distinct sort values, several clusters' are strictly
    /// increasing in the search's sort so that they merge.
    fn check_hit_order<T>(&self, parts: &[Part<T>]) -> Result<(), Error> {
        let single = self.is_single();
        for ((part, name), position) in parts.iter().zip(&self.names).zip(&self.positions) {
            let after = position.after.as_deref();
            // The hit the cursor resumes after, returned again, would be
            // shown twice.
            if after.is_some_and(|after| part.items.first().is_some_and(|(s, _)| s == after)) {
                return Err(in_cluster(
                    name,
                    response_error(
                        "the first hit is the one the request resumes after (was search_after sent?)",
                    ),
                ));
            }
            if single {
                check_distinct_sorts(name, part)?;
                continue;
            }
            let sorts: Vec<&[Value]> = after
                .into_iter()
                .chain(part.items.iter().map(|(sort, _)| sort.as_slice()))
                .collect();
            let sorted = sorts
                .windows(2)
                .all(|w| compare_sort_values(w[0], w[1], &self.orders) == Ordering::Less);
            if !sorted {
                return Err(response_error(format!(
                    "cluster {name} returned hits whose sort values are not strictly increasing in the search's sort after its position, so they cannot be merged with other clusters' (does every cluster map the sort fields alike?)"
                )));
            }
        }
        Ok(())
    }

    /// The page when every cluster's hits are a prefix of its answer:
    /// the prefixes merged by their keys, the cursor after the last hit
    /// kept.
    fn merge_prefixes<T: Serialize>(
        &self,
        parts: Vec<Part<T>>,
        shared: &Arc<PageKeyData>,
    ) -> Result<Bounded<T>, Error> {
        let mut prefixes = Vec::with_capacity(parts.len());
        for (c, part) in parts.into_iter().enumerate() {
            prefixes.push(self.prefix(c, part, shared)?);
        }
        let merged =
            crate::page::merge_by_key(&self.limits, &self.scope, prefixes, |t: &Tagged<T>| {
                t.key.clone()
            })?;
        if let Some(cursor) = merged.next_cursor() {
            self.check_next_cursor(cursor)?;
        }
        let (items, disclosure) = merged.into_parts();
        Bounded::from_parts(items.into_iter().map(|t| t.item).collect(), disclosure)
    }

    /// Cluster `c`'s prefix as a page of its own, each hit tagged with
    /// its key in the merge.
    fn prefix<T: Serialize>(
        &self,
        c: usize,
        part: Part<T>,
        shared: &Arc<PageKeyData>,
    ) -> Result<Bounded<Tagged<T>>, Error> {
        let start = self.positions[c].start;
        let end = start.saturating_add(part.items.len() as u64);
        let (completeness, total) = if part.over_limit {
            let floor = end.saturating_add(1);
            let total = match part.total {
                Some(Total::Exact(n)) if n >= floor && !part.skipped.has_errors() => {
                    Total::Exact(n)
                }
                other => Total::AtLeast(other.map_or(0, |t| t.value()).max(floor)),
            };
            (
                // The clamp is the page's, whichever part stops it.
                Completeness::TruncatedByLimit {
                    limit: self.paging.limit,
                    requested: self.paging.requested,
                },
                total,
            )
        } else {
            (Completeness::Exact, Total::Exact(end))
        };
        let items = part
            .items
            .into_iter()
            .enumerate()
            .map(|(index, (_, item))| Tagged {
                key: HitKey {
                    shared: Arc::clone(shared),
                    cluster: c,
                    index,
                },
                item,
            })
            .collect();
        let disclosure = Disclosure::new(completeness, total)
            .with_start(start)
            .with_skipped(part.skipped);
        Bounded::from_parts(items, disclosure)
    }

    /// Checks that the next page's cursor is one a later page can read
    /// back, as the positions it holds.
    fn check_next_cursor(&self, cursor: &Cursor) -> Result<(), Error> {
        Cursor::parse(cursor.as_str()).map_err(|_| {
            Error::invalid_argument(
                "pit",
                format!(
                    "the next page's cursor would be {} characters long, longer than a cursor may be: the point in time ids (or sort values) are too long to carry",
                    cursor.as_str().len()
                ),
            )
        })?;
        // A sort value is refused at read time when it nests too deep for
        // the key, so this is a last guard, never a page's usual end.
        self.scope
            .resume::<Value>(cursor)
            .and_then(|key| positions_of(&key, self.names.len()))
            .map_err(|e| {
                response_error(format!(
                    "the next page's cursor would not read back ({e}): the sort values cannot be carried in a cursor"
                ))
            })?;
        Ok(())
    }

    /// Cluster `c`'s share of the page, from its search response.
    fn part<T, E, F>(&self, c: usize, reply: Reply<'_>, map: &mut F) -> Result<Part<T>, Error>
    where
        E: Display,
        F: FnMut(&Value) -> Result<T, E>,
    {
        let name = self.names[c].as_str();
        let limit = self.paging.limit;
        let skipped = shard_skips(name, &reply);
        let over_limit = reply.hits.len() > limit;
        let kept = reply.hits.len().min(limit);
        let subset = self.subset_stop(c, &reply, kept, over_limit);
        let mut items = Vec::with_capacity(kept);
        for (i, hit) in reply.hits.into_iter().take(limit).enumerate() {
            let item = map(hit.hit).map_err(|e| {
                response_error(if name.is_empty() {
                    format!("hit {i}: {e}")
                } else {
                    format!("cluster {name}, hit {i}: {e}")
                })
            })?;
            items.push((hit.sort, item));
        }
        Ok(Part {
            items,
            over_limit,
            total: reply.total,
            skipped,
            subset,
        })
    }

    /// The stop that makes cluster `c`'s `kept` hits a subset of its
    /// answer after its position, and the note's words for it; `None`
    /// when they are a prefix.
    fn subset_stop(
        &self,
        c: usize,
        reply: &Reply<'_>,
        kept: usize,
        over_limit: bool,
    ) -> Option<(Budget, String)> {
        let name = self.names[c].as_str();
        let whose = if name.is_empty() {
            "The cluster".to_owned()
        } else {
            format!("Cluster {name}")
        };
        if reply.timed_out {
            let max = self.paging.timeout_ms.or(reply.took).unwrap_or(0);
            let used = reply.took.unwrap_or(max);
            Some((
                Budget::new(BudgetKind::Deadline, max, used),
                format!(
                    "{whose} timed out after {used} ms (timeout {max} ms): each shard returned what it had found by then, so these hits are some of the matching hits after this page's start, not the first ones, and no cursor resumes from them. Allow more time or narrow the query; paging on or a larger limit will not help."
                ),
            ))
        } else if reply.terminated_early {
            // `terminated_early` is set only when `terminate_after` cut the
            // collection, which returns partial results (elastic/elasticsearch#26597).
            let collected = self
                .terminate_after
                .or(reply.total.map(|t| t.value()))
                .unwrap_or(0);
            Some((
                Budget::new(BudgetKind::Files, collected, collected),
                format!(
                    "{whose} stopped each shard after it had collected {collected} documents (terminate_after): these hits are the best of those collected, some of the matching hits after this page's start, not the first ones, and no cursor resumes from them. Raise terminate_after or narrow the query."
                ),
            ))
        } else {
            // Fewer hits than asked for, yet the cluster's count (of its
            // whole answer) is past its own position plus these hits.
            missing_hits(self.positions[c].start, kept, over_limit, reply.total)
                .map(|missing| missing.stop(&whose, self.paging.limit))
        }
    }

    /// The page when a cluster's hits are a subset: the first `limit` of
    /// all the hits in the merge order, no cursor.
    fn subset<T: Serialize>(
        &self,
        parts: Vec<Part<T>>,
        shared: &Arc<PageKeyData>,
        single: bool,
    ) -> Result<Bounded<T>, Error> {
        let limit = self.paging.limit;
        let mut skipped = Skipped::new();
        let mut at_least = 0u64;
        let mut start = 0u64;
        let mut stops: Vec<(Budget, String)> = Vec::new();
        let mut all: Vec<(HitKey, T)> = Vec::new();
        // A cluster that found more than the limit proves it is reached.
        let mut over_limit = false;
        for (c, part) in parts.into_iter().enumerate() {
            over_limit |= part.over_limit;
            let base = self.positions[c].start;
            start = start.saturating_add(base);
            let seen = base
                .saturating_add(part.items.len() as u64)
                .saturating_add(u64::from(part.over_limit));
            at_least = at_least.saturating_add(part.total.map_or(0, |t| t.value()).max(seen));
            skipped.absorb(part.skipped);
            stops.extend(part.subset);
            all.extend(
                part.items
                    .into_iter()
                    .enumerate()
                    .map(|(index, (_, item))| {
                        let key = HitKey {
                            shared: Arc::clone(shared),
                            cluster: c,
                            index,
                        };
                        (key, item)
                    }),
            );
        }
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let limit_reached = (over_limit || all.len() > limit).then_some(limit);
        all.truncate(limit);
        // A deadline is the stop to name before a document budget.
        stops.sort_by_key(|(budget, _)| budget.kind() != BudgetKind::Deadline);
        let count = stops.len();
        let (budget, mut note) = stops.into_iter().next().ok_or_else(|| {
            Error::from(ErrorKind::InvalidDisclosure {
                reason: "a subset page without the stop that made it one".into(),
            })
        })?;
        if count > 1 && !single {
            note.push_str(&format!(" {} other clusters stopped early too.", count - 1));
        }
        if let Some(limit) = limit_reached {
            note.push_str(&format!(
                " More hits exist: the limit of {limit} was reached as well."
            ));
        }
        SubsetPage {
            items: all.into_iter().map(|(_, item)| item).collect(),
            budget,
            limit_reached,
            at_least,
            start,
            skipped,
            note,
        }
        .finish(&self.limits)
    }

    /// The error of a point in time that expired under cluster `c`.
    fn expired(&self, c: usize, detail: &str) -> Error {
        let name = &self.names[c];
        let whose = if name.is_empty() {
            String::new()
        } else {
            format!(" of cluster {name}")
        };
        match (&self.positions[c].pit, self.resumed) {
            (Some(pit), true) => ErrorKind::StaleCursor {
                cursor_generation: pit_stamp(pit),
                current_generation: 0,
            }
            .into(),
            _ => Error::invalid_argument(
                "pit",
                format!(
                    "the point in time{whose} has expired or was closed ({detail}): open a new one"
                ),
            ),
        }
    }
}

/// A reason named by the engine (a shard failure's `type`), or `fallback`
/// when the engine's name cannot be a reason's wire name (empty, too long,
/// a control character, or a name candor's own reasons use).
fn engine_reason(name: Option<&str>, fallback: &'static str) -> SkipReason {
    name.and_then(|name| SkipReason::other(name).ok())
        .unwrap_or_else(|| SkipReason::Other(fallback.to_owned()))
}

/// The positions `cursor` holds for `clusters` clusters, checked against
/// the cursor's start and this search's sort of `sort_len` values.
fn resumed_positions(
    scope: &Scope,
    cursor: &Cursor,
    clusters: usize,
    single: bool,
    sort_len: usize,
) -> Result<Vec<ClusterPosition>, Error> {
    let key: Value = scope.resume(cursor)?;
    let positions = positions_of(&key, clusters)?;
    let sum = positions
        .iter()
        .fold(0u64, |sum, p| sum.saturating_add(p.start));
    if sum != cursor.start() {
        return Err(Error::malformed_cursor(
            "its start disagrees with its clusters' positions",
        ));
    }
    if single && positions.iter().any(|p| p.status != Status::Open) {
        // A walk over one cluster ends with its last page: no cursor of
        // it says the cluster is done or failed.
        return Err(Error::malformed_cursor(
            "its one cluster is marked finished or failed",
        ));
    }
    if positions
        .iter()
        .filter_map(|p| p.after.as_ref())
        .any(|after| after.len() != sort_len)
    {
        return Err(Error::malformed_cursor(
            "its sort values do not match this search's sort",
        ));
    }
    Ok(positions)
}

/// Checks that no two hits of a single search's cluster have the same
/// sort values.
///
/// One cluster's order is its own, not checked here: nothing is merged
/// with it, and `search_after` resumes in it. But the sort ends with a
/// unique tie-breaker, so two hits with the same sort values are one hit
/// shown twice.
fn check_distinct_sorts<T>(name: &str, part: &Part<T>) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::with_capacity(part.items.len());
    if part
        .items
        .iter()
        .any(|(sort, _)| !seen.insert(Value::Array(sort.clone()).to_string()))
    {
        return Err(in_cluster(
            name,
            response_error(
                "two hits have the same sort values, though the sort ends with a unique tie-breaker",
            ),
        ));
    }
    Ok(())
}

/// The shards (and remote clusters) a reply of cluster `name` says were
/// not searched, or failed.
fn shard_skips(name: &str, reply: &Reply<'_>) -> Skipped {
    let mut skipped = Skipped::new();
    let prefix = if name.is_empty() {
        String::new()
    } else {
        format!("{name}/")
    };
    for failure in &reply.failures {
        let reason = engine_reason(failure.kind.as_deref(), "shard_failure");
        let mut input = SkippedInput::new(format!("{prefix}{}", failure.name()), reason);
        if let Some(message) = &failure.message {
            input = input.with_detail(message.clone());
        }
        skipped.record(input);
    }
    // `failures` groups shards that failed alike: the others are
    // counted without a name.
    let unnamed = reply
        .failed_shards
        .saturating_sub(reply.failures.len() as u64);
    skipped.absorb(bulk_skips(
        &SkipReason::Other("shard_failure".into()),
        unnamed,
        true,
        [format!("{prefix}shards (failures grouped in the response)")],
    ));
    skipped.absorb(bulk_skips(
        &SkipReason::Other("shard_prefiltered".into()),
        reply.skipped_shards,
        false,
        [format!("{prefix}shards (ruled out before the search)")],
    ));
    skipped.absorb(bulk_skips(
        &SkipReason::Other("cluster_unsearched".into()),
        reply.unsearched_clusters,
        true,
        [format!(
            "{prefix}remote clusters (skipped, failed or partial in _clusters)"
        )],
    ));
    skipped
}

/// A cluster that answered nothing: an error skip named after it.
fn cluster_failure(name: &str, message: String) -> SkippedInput {
    SkippedInput::new(name, SkipReason::Other("cluster_failure".into())).with_detail(message)
}

/// An error reading cluster `name`'s reply, saying which cluster.
fn in_cluster(name: &str, error: Error) -> Error {
    if name.is_empty() {
        return error;
    }
    match error.kind() {
        ErrorKind::InvalidArgument { reason, .. } => {
            response_error(format!("cluster {name}: {reason}"))
        }
        _ => error,
    }
}

/// A stamp of a point in time's id, for the stale-cursor error: which
/// point in time the cursor held (the current one is gone: 0).
fn pit_stamp(pit: &str) -> u64 {
    crate::Fingerprint::of(pit).as_u64().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_reasons_fall_back_when_unfit() {
        assert_eq!(
            engine_reason(Some("query_shard_exception"), "shard_failure").as_str(),
            "query_shard_exception"
        );
        for bad in [None, Some(""), Some("binary"), Some("a\nb")] {
            assert_eq!(
                engine_reason(bad, "shard_failure").as_str(),
                "shard_failure"
            );
        }
        let long = "x".repeat(200);
        assert_eq!(
            engine_reason(Some(&long), "shard_failure").as_str(),
            "shard_failure"
        );
    }
}
