//! A stand-in for the query planner and the posting lists, behind the
//! names they are used by: `Need`, `need`, `GramsBuilder` and `Grams`.
//!
//! It is deliberately small: each file keeps a 512-bit Bloom filter of
//! its byte trigrams, and only a case-sensitive literal (or several) is
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

/// Bits per file.
const BITS: usize = 512;
const WORDS: usize = BITS / 64;

fn bit(gram: [u8; 3]) -> usize {
    let h = (u32::from(gram[0]) | u32::from(gram[1]) << 8 | u32::from(gram[2]) << 16)
        .wrapping_mul(0x9E37_79B1);
    (h >> 23) as usize % BITS
}

/// Collects the files' trigrams by id.
#[derive(Debug, Default)]
pub(crate) struct GramsBuilder {
    filters: Vec<(u32, [u64; WORDS])>,
}

impl GramsBuilder {
    pub(crate) fn new() -> GramsBuilder {
        GramsBuilder::default()
    }

    /// Adds the file numbered `id` with its bytes.
    pub(crate) fn add(&mut self, id: u32, bytes: &[u8]) {
        let mut words = [0u64; WORDS];
        for w in bytes.windows(3) {
            let b = bit([w[0], w[1], w[2]]);
            words[b / 64] |= 1 << (b % 64);
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
    filters: Vec<(u32, [u64; WORDS])>,
}

impl Grams {
    /// The files that may match, in ascending id order.
    pub(crate) fn candidates<'g>(&'g self, need: &'g Need) -> Candidates<'g> {
        Candidates {
            grams: self,
            need,
            at: 0,
        }
    }

    /// The bytes that `decode` reads back.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.filters.len() * (4 + 8 * WORDS));
        out.extend_from_slice(&(self.filters.len() as u64).to_le_bytes());
        for (id, words) in &self.filters {
            out.extend_from_slice(&id.to_le_bytes());
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
        let each = 4 + 8 * WORDS;
        if rest.len() as u64 != count.saturating_mul(each as u64) {
            return Err("the posting lists' length is not their count's".into());
        }
        let mut filters = Vec::with_capacity(rest.len() / each);
        let mut last = None;
        while let Some((id, tail)) = rest.split_first_chunk::<4>() {
            let id = u32::from_le_bytes(*id);
            if last.is_some_and(|l| l >= id) {
                return Err("the posting lists' ids are not ascending".into());
            }
            last = Some(id);
            let mut words = [0u64; WORDS];
            let mut tail = tail;
            for w in &mut words {
                let (word, more) = tail
                    .split_first_chunk::<8>()
                    .ok_or("the posting lists are truncated")?;
                *w = u64::from_le_bytes(*word);
                tail = more;
            }
            filters.push((id, words));
            rest = tail;
        }
        Ok(Grams { filters })
    }
}

/// The candidate ids of a `Need`, ascending, lazily.
pub(crate) struct Candidates<'g> {
    grams: &'g Grams,
    need: &'g Need,
    at: usize,
}

impl Candidates<'_> {
    fn holds(&self, words: &[u64; WORDS]) -> bool {
        let Some(any_of) = &self.need.any_of else {
            return true;
        };
        any_of.iter().any(|all| {
            all.iter().all(|&g| {
                let b = bit(g);
                words[b / 64] & (1 << (b % 64)) != 0
            })
        })
    }

    /// The first candidate at or after `id`.
    pub(crate) fn seek(&mut self, id: u32) -> Option<u32> {
        let filters = &self.grams.filters;
        if self.at > 0 && filters.get(self.at - 1).is_some_and(|f| f.0 >= id) {
            self.at = 0;
        }
        self.at += filters[self.at..].partition_point(|f| f.0 < id);
        self.next()
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
