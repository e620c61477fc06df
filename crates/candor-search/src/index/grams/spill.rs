//! Posting lists built in bounded memory: the (trigram, id) pairs of the
//! blocks added, in id order, fill a buffer; a full buffer is sorted by
//! trigram (stably, so each trigram's ids stay ascending) and written as
//! a run of lists to a spill file in the index's folder; at the end the
//! runs are merged trigram by trigram, each list the concatenation of its
//! parts in run order (every id of a run comes before every id of the
//! next), into the very bytes a build that never spilled gives.
//!
//! Memory: the buffer (`budget` bytes of 8-byte pairs) and, while it is
//! sorted, as much again; a run's lists, encoded (1 to 2 bytes a pair on
//! source text), until they are written; a bitmap of the trigrams met
//! (2 MiB); when merging, a read buffer per run and one trigram's list.
//! More than `MAX_RUNS` runs are merged into one as they come, so that
//! the merge reads few runs in large reads.
//!
//! The spill file loses its name as soon as it is created where the
//! system allows it (unix: the open handle keeps its bytes), so that not
//! even a crash leaves it behind; elsewhere it is removed when the build
//! ends, whether it succeeds or fails.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::postings::{ListBuilder, get_varint, put_varint};

/// The bytes of pairs a build holds before it spills them, by default:
/// with the sort's second buffer, 128 MiB at most.
pub(crate) const BUDGET: usize = 64 << 20;

/// The most runs kept apart; one more, and they are merged into one.
const MAX_RUNS: usize = 64;

/// The size of one read from a run.
const READ_CHUNK: usize = 64 << 10;

/// Where a build spills, and how much it holds before it does.
#[derive(Debug, Clone)]
pub(crate) struct SpillTo {
    /// The index's folder (created when the first run is written).
    pub(crate) dir: PathBuf,
    /// The bytes of pairs held before they are spilled (8 a pair; at
    /// least one pair is held).
    pub(crate) budget: usize,
}

/// Posting lists being built, blocks added in ascending id order.
pub(crate) struct Postings {
    to: SpillTo,
    /// The pairs held: the trigram key in the high 32 bits, the id in the
    /// low 32.
    pairs: Vec<u64>,
    /// The most pairs held.
    cap: usize,
    /// The sort's second buffer.
    scratch: Vec<u64>,
    /// The threads that sort a run.
    threads: usize,
    /// The ids of every block added.
    all: ListBuilder,
    /// Where the runs are, once one was spilled.
    spill: Option<SpillFile>,
    /// The runs, in id order: where each lies in the spill file.
    runs: Vec<(u64, u64)>,
    /// One bit per trigram met.
    seen: Vec<u64>,
    /// How many bits of `seen` are set.
    trigrams: usize,
    /// How many pairs were added.
    added: u64,
}

impl Postings {
    /// Postings spilled as `to` says, whose runs are sorted on `threads`
    /// threads.
    pub(crate) fn new(to: SpillTo, threads: usize) -> Postings {
        Postings {
            threads,
            cap: (to.budget / 8).max(1),
            to,
            pairs: Vec::new(),
            scratch: Vec::new(),
            all: ListBuilder::default(),
            spill: None,
            runs: Vec::new(),
            seen: Vec::new(),
            trigrams: 0,
            added: 0,
        }
    }

    /// Adds the block `id` with its distinct trigram keys (24 bits each).
    ///
    /// # Errors
    ///
    /// When a run cannot be written to the spill file.
    ///
    /// # Panics
    ///
    /// When `id` is not greater than every id added before.
    pub(crate) fn add(&mut self, id: u32, keys: &[u32]) -> io::Result<()> {
        self.all.push(id);
        let mut keys = keys;
        while !keys.is_empty() {
            let room = self.cap - self.pairs.len();
            let (now, later) = keys.split_at(room.min(keys.len()));
            self.pairs
                .extend(now.iter().map(|&k| (u64::from(k) << 32) | u64::from(id)));
            keys = later;
            if self.pairs.len() == self.cap {
                self.spill()?;
            }
        }
        Ok(())
    }

    /// How many (trigram, id) pairs were added.
    pub(crate) fn pairs(&self) -> u64 {
        self.added + self.pairs.len() as u64
    }

    /// Sorts the pairs held and encodes them as a run, on `threads`
    /// threads.
    fn run(&mut self) -> Vec<u8> {
        if self.seen.is_empty() {
            self.seen = vec![0; (1 << 24) / 64];
        }
        let n = self.pairs.len();
        let bounds = bucket_by_high_bits(&self.pairs, &mut self.scratch);
        // The buckets cut into `threads` parts of about as many pairs; a
        // part sorts and encodes its buckets into a run of its own, and
        // the parts are put end to end.
        let threads = self.threads.clamp(1, n.max(1));
        let mut cuts = vec![0];
        for t in 1..threads {
            let b = bounds.partition_point(|&at| at < n * t / threads);
            cuts.push(b.clamp(*cuts.last().unwrap_or(&0), BUCKETS));
        }
        cuts.push(BUCKETS);
        let mut parts = Vec::with_capacity(threads);
        let (mut pairs, mut scratch) = (&mut self.pairs[..], &mut self.scratch[..n]);
        let mut seen = &mut self.seen[..];
        for w in cuts.windows(2) {
            let (from, to) = (w[0], w[1]);
            let len = bounds[to] - bounds[from];
            let (p, rest) = std::mem::take(&mut pairs).split_at_mut(len);
            pairs = rest;
            let (s, rest) = std::mem::take(&mut scratch).split_at_mut(len);
            scratch = rest;
            let (b, rest) = std::mem::take(&mut seen).split_at_mut((to - from) * WORDS_PER_BUCKET);
            seen = rest;
            parts.push((p, s, b, from, &bounds[from..=to]));
        }
        let encoded: Vec<(Vec<u8>, usize)> = if parts.len() == 1 {
            parts
                .into_iter()
                .map(|(p, s, b, first, bounds)| sort_and_encode(p, s, b, first, bounds))
                .collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = parts
                    .into_iter()
                    .map(|(p, s, b, first, bounds)| {
                        scope.spawn(move || sort_and_encode(p, s, b, first, bounds))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        let mut out = Vec::with_capacity(encoded.iter().map(|(e, _)| e.len()).sum());
        for (bytes, trigrams) in encoded {
            out.extend_from_slice(&bytes);
            self.trigrams += trigrams;
        }
        self.added += n as u64;
        self.pairs.clear();
        out
    }

    /// Writes the pairs held to the spill file as a run.
    fn spill(&mut self) -> io::Result<()> {
        let run = self.run();
        let file = match &mut self.spill {
            Some(file) => file,
            None => self.spill.insert(SpillFile::create(&self.to.dir)?),
        };
        let at = file.append(&run)?;
        self.runs.push((at, run.len() as u64));
        if self.runs.len() > MAX_RUNS {
            let readers = self.runs.drain(..).map(RunReader::on_file).collect();
            let mut merged = Merge::new(readers, self.spill.take())?;
            let mut out = Vec::new();
            let mut start = None;
            while let Some((key, list)) = merged.next()? {
                put_record(&mut out, key, list);
                if out.len() >= READ_CHUNK {
                    let at = merged.file_mut().append(&out)?;
                    start.get_or_insert(at);
                    out.clear();
                }
            }
            let at = merged.file_mut().append(&out)?;
            let start = *start.get_or_insert(at);
            let file = merged.into_file();
            self.runs.push((start, file.len - start));
            self.spill = Some(file);
        }
        Ok(())
    }

    /// The lists, merged from the runs spilled and the pairs held.
    ///
    /// # Errors
    ///
    /// When a run cannot be read back (or was damaged on disk).
    pub(crate) fn into_lists(mut self) -> io::Result<Lists> {
        let last = self.run();
        // The buffers are not needed while merging.
        self.pairs = Vec::new();
        self.scratch = Vec::new();
        self.seen = Vec::new();
        let mut readers: Vec<RunReader> =
            self.runs.iter().copied().map(RunReader::on_file).collect();
        readers.push(RunReader::in_memory(last));
        Ok(Lists {
            all: std::mem::take(&mut self.all),
            trigrams: self.trigrams,
            merge: Merge::new(readers, self.spill.take())?,
        })
    }
}

/// Buckets: one per value of a key's high 12 bits.
const BUCKETS: usize = 1 << 12;

/// The words of the bitmap of trigrams met that one bucket's keys take.
const WORDS_PER_BUCKET: usize = (1 << 12) / 64;

/// Moves `pairs` into `scratch` bucket by bucket (by the high 12 bits of
/// their key), keeping their order within a bucket; gives where each
/// bucket starts, and then the end.
fn bucket_by_high_bits(pairs: &[u64], scratch: &mut Vec<u64>) -> Vec<usize> {
    if scratch.len() < pairs.len() {
        scratch.resize(pairs.len(), 0);
    }
    let bucket = |p: u64| (p >> 44) as usize & (BUCKETS - 1);
    let mut bounds = vec![0usize; BUCKETS + 1];
    for &p in pairs {
        bounds[bucket(p) + 1] += 1;
    }
    for b in 0..BUCKETS {
        bounds[b + 1] += bounds[b];
    }
    let mut fill = bounds.clone();
    for &p in pairs {
        let b = bucket(p);
        scratch[fill[b]] = p;
        fill[b] += 1;
    }
    bounds
}

/// Sorts the buckets of `scratch` (buckets `first` on, which start at
/// `bounds`, relative to the first) into `pairs` by key, each key's ids
/// ascending as they came, and encodes them as a run; marks the keys in
/// `seen` (the bitmap's words of these buckets), and gives how many it
/// met first.
fn sort_and_encode(
    pairs: &mut [u64],
    scratch: &mut [u64],
    seen: &mut [u64],
    first: usize,
    bounds: &[usize],
) -> (Vec<u8>, usize) {
    let base = bounds[0];
    let mut out = Vec::with_capacity(pairs.len() + pairs.len() / 4);
    let mut list = ListBuilder::default();
    let mut counts = vec![0usize; 1 << 12];
    let mut met = 0;
    for w in bounds.windows(2) {
        let (from, to) = (w[0] - base, w[1] - base);
        let (src, dst) = (&scratch[from..to], &mut pairs[from..to]);
        let low = |p: u64| (p >> 32) as usize & 0xFFF;
        if src.len() > counts.len() {
            // A stable counting pass over the key's low 12 bits.
            counts.fill(0);
            for &p in src {
                counts[low(p)] += 1;
            }
            let mut sum = 0;
            for c in counts.iter_mut() {
                let n = *c;
                *c = sum;
                sum += n;
            }
            for &p in src {
                let d = low(p);
                dst[counts[d]] = p;
                counts[d] += 1;
            }
        } else {
            // Key in the high bits, id in the low: the pairs' order is
            // (key, id), which the ids' order within a key already was.
            dst.copy_from_slice(src);
            dst.sort_unstable();
        }
        let mut at = 0;
        while at < dst.len() {
            let key = (dst[at] >> 32) as u32;
            list.clear();
            while at < dst.len() && (dst[at] >> 32) as u32 == key {
                list.push(dst[at] as u32);
                at += 1;
            }
            let word = (key >> 6) as usize - first * WORDS_PER_BUCKET;
            let bit = 1u64 << (key & 63);
            if let Some(w) = seen.get_mut(word).filter(|w| **w & bit == 0) {
                *w |= bit;
                met += 1;
            }
            put_record(&mut out, key, &list);
        }
    }
    (out, met)
}

/// Appends one list of a run: its key (3 bytes, big-endian), its count,
/// its last id, how many ids in a row end it, the length of its bytes,
/// and the bytes.
fn put_record(out: &mut Vec<u8>, key: u32, list: &ListBuilder) {
    out.extend_from_slice(&key.to_be_bytes()[1..]);
    put_varint(out, list.count);
    put_varint(out, list.last);
    put_varint(out, list.tail());
    put_varint(out, u32::try_from(list.bytes.len()).unwrap_or(u32::MAX));
    out.extend_from_slice(&list.bytes);
}

/// The lists of a build, in trigram order.
pub(crate) struct Lists {
    /// The ids of every block added.
    pub(crate) all: ListBuilder,
    /// How many trigrams have a list.
    pub(crate) trigrams: usize,
    merge: Merge,
}

impl Lists {
    /// The next trigram's key and list.
    ///
    /// # Errors
    ///
    /// When a run cannot be read back (or was damaged on disk).
    pub(crate) fn next(&mut self) -> io::Result<Option<(u32, &ListBuilder)>> {
        self.merge.next()
    }
}

/// Runs merged trigram by trigram.
struct Merge {
    readers: Vec<RunReader>,
    /// The next key of each run that has one, and the run's place.
    heap: BinaryHeap<Reverse<(u32, usize)>>,
    spill: Option<SpillFile>,
    /// The list given last.
    out: ListBuilder,
    /// The runs that gave it, to be moved on.
    gave: Vec<usize>,
}

impl Merge {
    fn new(mut readers: Vec<RunReader>, mut spill: Option<SpillFile>) -> io::Result<Merge> {
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if r.advance(spill.as_mut())? {
                heap.push(Reverse((r.key, i)));
            }
        }
        Ok(Merge {
            readers,
            heap,
            spill,
            out: ListBuilder::default(),
            gave: Vec::new(),
        })
    }

    fn next(&mut self) -> io::Result<Option<(u32, &ListBuilder)>> {
        for i in self.gave.drain(..) {
            let r = &mut self.readers[i];
            if r.advance(self.spill.as_mut())? {
                self.heap.push(Reverse((r.key, i)));
            }
        }
        let Some(&Reverse((key, _))) = self.heap.peek() else {
            return Ok(None);
        };
        self.out.clear();
        // Equal keys come out in run order, which is id order.
        while let Some(&Reverse((k, i))) = self.heap.peek() {
            if k != key {
                break;
            }
            self.heap.pop();
            let r = &self.readers[i];
            let appended = self.out.append(r.list(), r.count, r.last, r.tail);
            if appended.is_none() {
                return Err(damaged());
            }
            self.gave.push(i);
        }
        Ok(Some((key, &self.out)))
    }

    fn file_mut(&mut self) -> &mut SpillFile {
        self.spill
            .as_mut()
            .expect("a merge of spilled runs has their file")
    }

    fn into_file(self) -> SpillFile {
        self.spill.expect("a merge of spilled runs has their file")
    }
}

/// The error of a run that does not read back as it was written.
fn damaged() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a spilled run reads back damaged",
    )
}

/// A cursor over one run's lists.
struct RunReader {
    /// Where the bytes not yet read start in the spill file, and end.
    at: u64,
    end: u64,
    buf: Vec<u8>,
    /// Where the current list's bytes are in `buf`.
    list: (usize, usize),
    key: u32,
    count: u32,
    last: u32,
    tail: u32,
}

impl RunReader {
    fn on_file((at, len): (u64, u64)) -> RunReader {
        RunReader {
            at,
            end: at + len,
            buf: Vec::new(),
            list: (0, 0),
            key: 0,
            count: 0,
            last: 0,
            tail: 0,
        }
    }

    fn in_memory(bytes: Vec<u8>) -> RunReader {
        RunReader {
            buf: bytes,
            ..RunReader::on_file((0, 0))
        }
    }

    fn list(&self) -> &[u8] {
        &self.buf[self.list.0..self.list.1]
    }

    /// Moves to the next list; false past the last.
    fn advance(&mut self, file: Option<&mut SpillFile>) -> io::Result<bool> {
        let mut file = file;
        let mut pos = self.list.1;
        // A record's head: 3 bytes and four varints.
        self.fill(&mut pos, 3 + 4 * 5, file.as_deref_mut())?;
        if pos == self.buf.len() {
            return Ok(false);
        }
        let head = self.buf.get(pos..pos + 3).ok_or_else(damaged)?;
        let key = u32::from_be_bytes([0, head[0], head[1], head[2]]);
        let mut at = pos + 3;
        let mut int = || get_varint(&self.buf, &mut at).ok_or_else(damaged);
        let (count, last, tail, len) = (int()?, int()?, int()?, int()? as usize);
        let start = at - pos;
        self.fill(&mut pos, start + len, file)?;
        let (from, to) = (pos + start, pos + start + len);
        if to > self.buf.len() {
            return Err(damaged());
        }
        self.key = key;
        self.count = count;
        self.last = last;
        self.tail = tail;
        self.list = (from, to);
        Ok(true)
    }

    /// Makes `buf[*pos..]` hold `need` bytes, or all that is left of the
    /// run; `*pos` moves with the bytes kept.
    fn fill(
        &mut self,
        pos: &mut usize,
        need: usize,
        file: Option<&mut SpillFile>,
    ) -> io::Result<()> {
        if self.buf.len() - *pos >= need || self.at == self.end {
            return Ok(());
        }
        let Some(file) = file else {
            return Err(damaged());
        };
        self.buf.drain(..*pos);
        self.list = (0, 0);
        *pos = 0;
        let want = need.saturating_sub(self.buf.len()).max(READ_CHUNK);
        let take = usize::try_from(self.end - self.at).map_or(want, |left| left.min(want));
        let from = self.buf.len();
        self.buf.resize(from + take, 0);
        file.read_at(self.at, &mut self.buf[from..])?;
        self.at += take as u64;
        Ok(())
    }
}

/// The file runs are spilled to, in the index's folder.
struct SpillFile {
    file: File,
    /// Its length.
    len: u64,
    /// Its name, when it could not lose it at once: removed on drop.
    named: Option<PathBuf>,
}

impl SpillFile {
    fn create(dir: &Path) -> io::Result<SpillFile> {
        static SPILLS: AtomicU64 = AtomicU64::new(0);
        fs::create_dir_all(dir)?;
        loop {
            let n = SPILLS.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("spill-{}-{n}.tmp", std::process::id()));
            let file = match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            };
            let named = fs::remove_file(&path).is_err().then_some(path);
            return Ok(SpillFile {
                file,
                len: 0,
                named,
            });
        }
    }

    /// Appends `bytes`; where they start.
    fn append(&mut self, bytes: &[u8]) -> io::Result<u64> {
        let at = self.len;
        self.file.seek(SeekFrom::Start(at))?;
        self.file.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(at)
    }

    /// Fills `buf` from `at`.
    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(at))?;
        self.file.read_exact(buf)
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        if let Some(path) = self.named.take() {
            let _ = fs::remove_file(path);
        }
    }
}
