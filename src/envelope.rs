//! The serde shape of a result (disclosure first, items last) and what
//! sizes it: the structs the serializer writes, and the byte count of an
//! envelope that the collector fits to a budget.

use std::io;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct, Serializer};

use crate::error::{Error, ErrorKind};
use crate::note::{NoteForm, short_note, truncation_note};
use crate::{
    Budget, BudgetKind, Completeness, Disclosure, Enclosing, SkipTally, Skipped, SkippedInput,
    Total,
};

/// The envelope of a result, with `items` standing for whatever serializes
/// the item list: the real items, or an empty list when only the envelope's
/// size is wanted.
pub(crate) struct Envelope<'a, I> {
    pub(crate) disclosure: &'a Disclosure,
    pub(crate) count: usize,
    pub(crate) items: I,
}

impl<I: Serialize> Serialize for Envelope<'_, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let d = self.disclosure;
        let mut s = serializer.serialize_struct("Bounded", 9)?;
        s.serialize_field("complete", &d.is_complete())?;
        match d.as_of() {
            Some(as_of) => s.serialize_field("as_of", &as_of.to_string())?,
            None => s.skip_field("as_of")?,
        }
        if d.completeness().is_truncated() {
            s.serialize_field("truncation", &TruncationOut(d))?;
        } else {
            s.skip_field("truncation")?;
        }
        // On every page, a first one too: a reader need not know that an
        // absent start means 0.
        s.serialize_field("start", &d.start())?;
        s.serialize_field("count", &self.count)?;
        s.serialize_field("total", &TotalOut(d.total(), d.total_cut_by()))?;
        match d.next_cursor() {
            Some(cursor) => s.serialize_field("next_cursor", cursor)?,
            None => s.skip_field("next_cursor")?,
        }
        // Present when this page, or one before it, skipped an input.
        if d.skipped_so_far().is_empty() {
            s.skip_field("skipped")?;
        } else {
            s.serialize_field("skipped", &SkippedOut(d.skipped(), d.skipped_before()))?;
        }
        s.serialize_field("items", &self.items)?;
        s.end()
    }
}

/// Serializes as `[]`: the item list when only the envelope is measured.
pub(crate) struct NoItems;

impl Serialize for NoItems {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(std::iter::empty::<()>())
    }
}

struct TruncationOut<'a>(&'a Disclosure);

impl Serialize for TruncationOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let mut m = serializer.serialize_map(None)?;
        match d.completeness() {
            Completeness::Exact => {}
            Completeness::TruncatedByLimit { limit, requested } => {
                m.serialize_entry("by", "limit")?;
                m.serialize_entry("limit", limit)?;
                if let Some(requested) = requested {
                    m.serialize_entry("requested", requested)?;
                }
            }
            Completeness::TruncatedByBudget { budget, clamp } => {
                m.serialize_entry("by", "budget")?;
                m.serialize_entry("budget", budget.kind().as_str())?;
                m.serialize_entry("max", &budget.max())?;
                m.serialize_entry("used", &budget.used())?;
                if let Some(needed) = budget.needed() {
                    m.serialize_entry("needed", &needed)?;
                }
                let limit = d.limit_reached().or(clamp.map(|c| c.limit()));
                if let Some(limit) = limit {
                    m.serialize_entry("limit", &limit)?;
                }
                if let Some(clamp) = clamp {
                    m.serialize_entry("requested", &clamp.requested())?;
                }
                if d.limit_reached().is_some() {
                    m.serialize_entry("limit_reached", &true)?;
                }
            }
        }
        if d.is_subset() {
            m.serialize_entry("subset", &true)?;
        }
        match d.note() {
            NoteForm::Full => m.serialize_entry("note", &truncation_note(d))?,
            NoteForm::Short => m.serialize_entry("note", short_note(d))?,
            NoteForm::Omitted => {}
        }
        m.end()
    }
}

/// The total, and the budget that cut its count when one did.
struct TotalOut(Total, Option<Budget>);

impl Serialize for TotalOut {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct CutOut(Budget);
        impl Serialize for CutOut {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut s = serializer.serialize_struct("CutBy", 3)?;
                s.serialize_field("budget", self.0.kind().as_str())?;
                s.serialize_field("max", &self.0.max())?;
                s.serialize_field("used", &self.0.used())?;
                s.end()
            }
        }
        let mut s = serializer.serialize_struct("Total", 3)?;
        s.serialize_field("value", &self.0.value())?;
        s.serialize_field("relation", self.0.relation())?;
        match self.1 {
            Some(cut) => s.serialize_field("cut_by", &CutOut(cut))?,
            None => s.skip_field("cut_by")?,
        }
        s.end()
    }
}

/// This page's skips, and what the pages before it skipped.
struct SkippedOut<'a>(&'a Skipped, SkipTally);

impl Serialize for SkippedOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct ByReason<'a>(&'a Skipped);
        impl Serialize for ByReason<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.by_reason().map(|(r, n)| (r.as_str(), n)))
            }
        }
        struct Errors<'a>(&'a Skipped);
        impl Serialize for Errors<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.errors_by_reason().map(|(r, n)| (r.as_str(), n)))
            }
        }
        struct Sample<'a>(&'a SkippedInput);
        impl Serialize for Sample<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut m = serializer.serialize_map(None)?;
                m.serialize_entry("path", self.0.path())?;
                m.serialize_entry("reason", self.0.reason().as_str())?;
                if self.0.is_error() {
                    m.serialize_entry("error", &true)?;
                }
                if let Some(detail) = self.0.detail() {
                    m.serialize_entry("detail", detail)?;
                }
                m.end()
            }
        }
        /// What the walk skipped so far, this page included.
        struct SoFar(SkipTally);
        impl Serialize for SoFar {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut s = serializer.serialize_struct("SoFar", 2)?;
                s.serialize_field("total", &self.0.total())?;
                if self.0.errors() > 0 {
                    s.serialize_field("errors", &self.0.errors())?;
                } else {
                    s.skip_field("errors")?;
                }
                s.end()
            }
        }
        let mut s = serializer.serialize_struct("Skipped", 5)?;
        s.serialize_field("total", &self.0.total())?;
        s.serialize_field("by_reason", &ByReason(self.0))?;
        // Which skips are errors, whatever a reason is called: those
        // leave the answer incomplete.
        if self.0.has_errors() {
            s.serialize_field("errors", &Errors(self.0))?;
        } else {
            s.skip_field("errors")?;
        }
        s.serialize_field(
            "sample",
            &self.0.sample().iter().map(Sample).collect::<Vec<_>>(),
        )?;
        // Only after earlier pages that skipped: on a first page it is
        // this page's own count.
        if self.1.is_empty() {
            s.skip_field("so_far")?;
        } else {
            s.serialize_field("so_far", &SoFar(self.1 + self.0.tally()))?;
        }
        s.end()
    }
}

/// Counts bytes written, so that an item's JSON size is known without
/// allocating its text.
struct ByteCounter(usize);

impl io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The length of `value`'s compact JSON, counted without building it.
pub(crate) fn json_len<T: Serialize + ?Sized>(value: &T) -> Result<usize, Error> {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value)
        .map_err(|source| Error::from(ErrorKind::Serialize { source }))?;
    Ok(counter.0)
}

/// The length of the envelope with `count` in it but an empty item list.
pub(crate) fn envelope_len(disclosure: &Disclosure, count: usize) -> Result<usize, Error> {
    json_len(&Envelope {
        disclosure,
        count,
        items: NoItems,
    })
}

/// The units of the output-bytes figures a page states: `max` as the
/// reader set it, and `used` (and `needed`) as bytes of the JSON or of
/// the response that encloses it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stated {
    /// The `max` a page states.
    pub(crate) max: u64,
    pub(crate) enclosing: Option<Enclosing>,
}

impl Stated {
    /// The figures of a budget of `max` bytes of JSON, or of the
    /// enclosing response whose share that is.
    pub(crate) fn new(max: usize, enclosing: Option<Enclosing>) -> Stated {
        Stated {
            max: enclosing.map_or(max as u64, |e| e.max_bytes() as u64),
            enclosing,
        }
    }

    /// The figure of `json_bytes` of JSON: the least budget that holds
    /// them.
    pub(crate) fn of(&self, json_bytes: usize) -> u64 {
        match self.enclosing {
            Some(e) => e.bytes_for(json_bytes),
            None => json_bytes as u64,
        }
    }

    /// The figures of another budget, of `json_max` bytes of JSON (what
    /// a retry with a smaller or larger budget would state). Its `max` is
    /// the largest enclosing budget of that share, the one with the most
    /// digits, so that any budget of that share holds what this one does.
    pub(crate) fn at(&self, json_max: usize) -> Stated {
        Stated {
            max: self
                .enclosing
                .map_or(json_max as u64, |e| e.largest_for(json_max)),
            enclosing: self.enclosing,
        }
    }
}

/// The serialized length of a response with this disclosure and
/// `item_bytes` of items. For an output-bytes stop, `used` is the least
/// budget that holds the response (its own length, or the enclosing
/// budget whose share that length is), found as a fixed point (its
/// digits are part of the length), and the budget that states it, with
/// the `max` of `stated`, is returned.
pub(crate) fn fitted_len(
    disclosure: &Disclosure,
    count: usize,
    item_bytes: usize,
    stated: Stated,
) -> Result<(usize, Option<Budget>), Error> {
    let (clamp, needed) = match disclosure.completeness() {
        Completeness::TruncatedByBudget { budget, clamp }
            if budget.kind() == BudgetKind::OutputBytes =>
        {
            (*clamp, budget.needed())
        }
        _ => return Ok((envelope_len(disclosure, count)? + item_bytes, None)),
    };
    let with_used = |used: u64| {
        let budget = Budget::new(BudgetKind::OutputBytes, stated.max, used);
        match needed {
            Some(needed) => budget.with_needed(needed),
            None => budget,
        }
    };
    let mut trial = disclosure.clone();
    let mut used = 0u64;
    let mut len = 0usize;
    // The length grows with the digits of `used`, and `used` with the
    // length: both only grow, so this ends within a few rounds.
    for _ in 0..8 {
        trial.set_completeness(Completeness::TruncatedByBudget {
            budget: with_used(used),
            clamp,
        });
        len = envelope_len(&trial, count)? + item_bytes;
        let next = stated.of(len);
        if next == used {
            break;
        }
        used = next;
    }
    Ok((len, Some(with_used(used))))
}
