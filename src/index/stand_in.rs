//! A stand-in for the query planner and the posting lists, behind the
//! names they are used by: `Need`, `need`, `GramsBuilder` and `Grams`.
//!
//! It is deliberately small: each file keeps a Bloom filter of its byte
//! trigrams (4 bits per distinct trigram, one hash), and only a case-sensitive literal (or several) is
//! planned; any other query makes every file a candidate. It never
//! excludes a file that holds a match: a file that holds a literal holds
//! each of its trigrams, and each sets its bit.

use crate::search::{PatternKind, Query};

/// What a matching file must hold: trigrams, as alternatives of
/// conjunctions; `None` when any file may match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Need {
    any_of: Option<Vec<Vec<[u8; 3]>>>,
}

/// The trigrams a file that matches `query` must hold.
pub(crate) fn need(query: &Query) -> Need {
    let usable = query.get_kind() != PatternKind::Regex && !query.get_case_insensitive();
    let alternatives: Option<Vec<Vec<[u8; 3]>>> = usable
        .then(|| {
            query
                .get_patterns()
                .iter()
                .map(|p| {
                    let bytes = p.as_bytes();
                    // A literal shorter than a trigram needs nothing.
                    (bytes.len() >= 3).then(|| {
                        bytes
                            .windows(3)
                            .map(|w| [w[0], w[1], w[2]])
                            .collect::<Vec<_>>()
                    })
                })
                .collect()
        })
        .flatten();
    Need {
        any_of: alternatives.filter(|a| !a.is_empty()),
    }
}

/// Bits per distinct trigram in a file's filter: with one bit per
/// trigram, a trigram the file lacks finds its bit set about a fifth of
/// the time, and a literal of ten trigrams is a false candidate in
/// about one file in ten million.
const BITS_PER_GRAM: usize = 4;

fn gram_index(gram: [u8; 3]) -> u32 {
    u32::from(gram[0]) | u32::from(gram[1]) << 8 | u32::from(gram[2]) << 16
}

fn bit(gram: [u8; 3], bits: usize) -> usize {
    let h = gram_index(gram).wrapping_mul(0x9E37_79B1);
    (h.rotate_left(13) as usize) & (bits - 1)
}

/// A file's filter: its id and its words (a power of two of them).
type Filter = (u32, Vec<u64>);

/// Collects the files' trigrams by id.
#[derive(Debug, Default)]
pub(crate) struct GramsBuilder {
    filters: Vec<Filter>,
    /// One bit per possible trigram, to count a file's distinct ones.
    seen: Vec<u64>,
}

impl GramsBuilder {
    pub(crate) fn new() -> GramsBuilder {
        GramsBuilder::default()
    }

    /// Adds the file numbered `id` with its bytes.
    pub(crate) fn add(&mut self, id: u32, bytes: &[u8]) {
        if self.seen.is_empty() {
            self.seen = vec![0; (1 << 24) / 64];
        }
        let mut distinct = 0usize;
        for w in bytes.windows(3) {
            let g = gram_index([w[0], w[1], w[2]]) as usize;
            let word = &mut self.seen[g / 64];
            distinct += usize::from(*word & (1 << (g % 64)) == 0);
            *word |= 1 << (g % 64);
        }
        let bits = (distinct * BITS_PER_GRAM).max(64).next_power_of_two();
        let mut words = vec![0u64; bits / 64];
        for w in bytes.windows(3) {
            let gram = [w[0], w[1], w[2]];
            let b = bit(gram, bits);
            words[b / 64] |= 1 << (b % 64);
            self.seen[gram_index(gram) as usize / 64] = 0;
        }
        self.filters.push((id, words));
    }

    /// Adds what another builder collected.
    pub(crate) fn merge(&mut self, other: GramsBuilder) {
        self.filters.extend(other.filters);
    }

    /// The posting lists of every file added.
    pub(crate) fn finish(mut self) -> Grams {
        self.filters.sort_by_key(|f| f.0);
        self.filters.dedup_by_key(|f| f.0);
        Grams {
            filters: self.filters,
        }
    }
}

/// The files' trigrams, searchable by a `Need`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Grams {
    filters: Vec<Filter>,
}

impl Grams {
    /// The files that may match, in ascending id order.
    pub(crate) fn candidates<'g>(&'g self, need: &'g Need) -> Candidates<'g> {
        Candidates {
            grams: self,
            need,
            at: 0,
            found: None,
        }
    }

    /// The bytes that `decode` reads back.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.filters.len() as u64).to_le_bytes());
        for (id, words) in &self.filters {
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&(words.len() as u32).to_le_bytes());
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    /// Reads what `encode` wrote.
    ///
    /// # Errors
    ///
    /// A description of the fault when the bytes are not such a list.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Grams, String> {
        let (count, mut rest) = bytes
            .split_first_chunk::<8>()
            .ok_or("the posting lists are truncated")?;
        let count = u64::from_le_bytes(*count);
        if count > rest.len() as u64 / 16 {
            return Err("more posting lists than bytes".into());
        }
        let mut filters = Vec::with_capacity(count as usize);
        let mut last = None;
        for _ in 0..count {
            let (id, tail) = rest
                .split_first_chunk::<4>()
                .ok_or("the posting lists are truncated")?;
            let (n, mut tail) = tail
                .split_first_chunk::<4>()
                .ok_or("the posting lists are truncated")?;
            let id = u32::from_le_bytes(*id);
            let n = u32::from_le_bytes(*n) as usize;
            if last.is_some_and(|l| l >= id) {
                return Err("the posting lists' ids are not ascending".into());
            }
            if n == 0 || !n.is_power_of_two() || n > tail.len() / 8 {
                return Err("a filter of a bad size".into());
            }
            last = Some(id);
            let mut words = Vec::with_capacity(n);
            for _ in 0..n {
                let (word, more) = tail
                    .split_first_chunk::<8>()
                    .ok_or("the posting lists are truncated")?;
                words.push(u64::from_le_bytes(*word));
                tail = more;
            }
            filters.push((id, words));
            rest = tail;
        }
        if !rest.is_empty() {
            return Err("bytes past the posting lists".into());
        }
        Ok(Grams { filters })
    }
}

/// The candidate ids of a `Need`, ascending, lazily.
pub(crate) struct Candidates<'g> {
    grams: &'g Grams,
    need: &'g Need,
    at: usize,
    /// Where the last seek began, and what it found.
    found: Option<(u32, Option<u32>)>,
}

impl Candidates<'_> {
    fn holds(&self, words: &[u64]) -> bool {
        let Some(any_of) = &self.need.any_of else {
            return true;
        };
        let bits = words.len() * 64;
        any_of.iter().any(|all| {
            all.iter().all(|&g| {
                let b = bit(g, bits);
                words[b / 64] & (1 << (b % 64)) != 0
            })
        })
    }

    /// The first candidate at or after `id`.
    pub(crate) fn seek(&mut self, id: u32) -> Option<u32> {
        // No candidate lies between where the last seek began and what it
        // found: a seek within that stretch needs no new scan.
        if let Some((from, found)) = self.found {
            if from <= id && found.is_none_or(|f| f >= id) {
                return found;
            }
        }
        let filters = &self.grams.filters;
        if self.at > 0 && filters.get(self.at - 1).is_some_and(|f| f.0 >= id) {
            self.at = 0;
        }
        self.at += filters[self.at..].partition_point(|f| f.0 < id);
        let found = self.next();
        self.found = Some((id, found));
        found
    }
}

impl Iterator for Candidates<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        while let Some((id, words)) = self.grams.filters.get(self.at) {
            self.at += 1;
            if self.holds(words) {
                return Some(*id);
            }
        }
        None
    }
}
