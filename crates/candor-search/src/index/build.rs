//! Building a generation: the traversal's events written down as the
//! next generation's entries, each new or changed file read (in
//! parallel, a batch at a time) and added to the posting lists.
//!
//! A full build adds every file to a new base; an update keeps the
//! base's files that are unchanged and adds the others (new, changed, or
//! in the previous delta) to a new delta; a base file that changed or is
//! gone is simply no longer listed (its ids in the base are tombstones).
//!
//! Ids are given in path order once a batch is read: a file read as
//! plain text takes one per block of what was read (`grams::blocks_for`),
//! any other file of the lists being written one.
//!
//! Memory, whatever the size of the tree: each thread holds one file at
//! a time, of at most `MAX_INDEXED` bytes (a larger file is not indexed:
//! every query reads it), and its trigrams until its batch is added; a
//! batch holds at most `BATCH` folder handles and stops taking files once
//! it holds `BATCH_KEYS` trigrams; the posting lists are built within a
//! budget and spilled to the index's folder past it (see
//! `grams::Postings`). Only the entries grow with the tree.

use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::index::grams::{
    BLOCK_BYTES, BUDGET, Distinct, Postings, SpillTo, blocks_for, split_blocks,
};
use crate::index::snapshot::{FileEntry, FolderEntry, RecordEntry, Segment, SkipEntry};
use crate::index::stamp::{folder_stamp, ignores_of, is_racy, mtime_ns};
use crate::index::traverse::Event;
use crate::seam::{BINARY_PREFIX, DirHandle, MAX_LINE, is_within, mtime_at, open_file, stamp_at};
use crate::{Error, ErrorKind, Tree};

/// The largest file indexed: the tree reads no line longer than this
/// (`MAX_LINE`), and a larger file is read by every query instead.
pub(crate) const MAX_INDEXED: u64 = MAX_LINE as u64;

/// How many files are read per batch (each holds its folder's handle).
const BATCH: usize = 256;

/// The trigrams a batch holds (4 bytes each) before it stops taking
/// files: the rest wait for the next one.
const BATCH_KEYS: usize = 8 << 20;

/// A file waiting to be read: its entry's place, its folder's handle,
/// its name there, and its stamp as the walk took it (before the read).
struct Pending {
    at: usize,
    dir: Arc<DirHandle>,
    name: OsString,
    stamp: Option<u64>,
}

/// A file read: what the read told, and the distinct trigrams of each of
/// its blocks (none when it is not indexed), end to end.
struct Done {
    read: Read,
    keys: Vec<u32>,
    /// How many of `keys` each block has.
    blocks: Vec<u32>,
}

/// What a reading thread keeps from file to file.
#[derive(Default)]
struct Scratch {
    bytes: Vec<u8>,
    distinct: Distinct,
}

/// How a build writes its posting lists. Any settings give the same
/// answers; only the index's size and the build's memory and speed
/// change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BuildSettings {
    /// The bytes of (trigram, id) pairs held before they spill to the
    /// index's folder (`BUDGET`; the tests set a few, to make every
    /// build spill).
    pub(crate) budget: usize,
    /// The size of the blocks files are cut into, at least 1 byte
    /// (`BLOCK_BYTES`; the tests set a small one, so that their small
    /// files take several ids).
    pub(crate) block_bytes: u64,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            budget: BUDGET,
            block_bytes: BLOCK_BYTES,
        }
    }
}

/// Writes down a generation from a traversal's events.
pub(crate) struct Builder<'t> {
    tree: &'t Tree,
    /// When this build began: a change within a clock tick of it may
    /// keep a stamp.
    built_ns: u64,
    /// The posting lists the files read go to.
    segment: Segment,
    /// The size of the blocks files are cut into.
    block_bytes: u64,
    threads: usize,
    pub(crate) entries: Vec<RecordEntry>,
    /// The folders the next entry is in, innermost last (their places).
    folders: Vec<usize>,
    pending: Vec<Pending>,
    /// The entries before this place have their ids.
    assigned: usize,
    next_id: u32,
    /// The posting lists being built.
    postings: Postings,
    /// One per thread, kept from batch to batch.
    scratch: Vec<Scratch>,
    /// Where the posting lists spill.
    spill: SpillTo,
    /// Why the posting lists could not be built (a spill that failed).
    failed: Option<std::io::Error>,
}

impl<'t> Builder<'t> {
    /// A builder of `segment`'s posting lists, spilled as `spill` says,
    /// files cut into blocks of `block_bytes`.
    pub(crate) fn new(
        tree: &'t Tree,
        built_ns: u64,
        segment: Segment,
        spill: SpillTo,
        block_bytes: u64,
    ) -> Builder<'t> {
        let threads = tree.get_threads().max(1);
        Builder {
            tree,
            built_ns,
            segment,
            block_bytes: block_bytes.max(1),
            threads,
            entries: Vec::new(),
            folders: Vec::new(),
            pending: Vec::new(),
            assigned: 0,
            next_id: 0,
            postings: Postings::new(spill.clone(), threads),
            scratch: Vec::new(),
            spill,
            failed: None,
        }
    }

    /// Writes down one event.
    pub(crate) fn visit(&mut self, event: Event<'_>) -> ControlFlow<()> {
        if self.failed.is_some() {
            return ControlFlow::Break(());
        }
        match event {
            Event::Folder {
                path,
                dir,
                recorded,
                via_link,
            } => {
                self.leave_to(path);
                let entry = match (recorded, dir) {
                    (Some(folder), _) => folder.clone(),
                    (None, Some(dir)) => self.folder(path, dir, via_link),
                    (None, None) => FolderEntry {
                        path: path.to_owned(),
                        stamp: 0,
                        ignores: 0,
                        always: true,
                    },
                };
                self.folders.push(self.entries.len());
                self.entries.push(RecordEntry::Folder(entry));
            }
            Event::File {
                path,
                dir,
                recorded,
                stamp,
            } => {
                let path = path.into_owned();
                self.leave_to(&path);
                // Unchanged, and trusted: kept as it is, unless its
                // posting lists are being written again.
                let keep = recorded.filter(|f| {
                    stamp == Some(f.stamp)
                        && !f.racy
                        && (f.always
                            || (f.segment == Segment::Base && self.segment == Segment::Delta))
                });
                if let Some(file) = keep {
                    // Kept in the lists written again (read by every
                    // query, it is in none of them), it takes the next id
                    // there when its batch is added (`add_read`), so that
                    // ids stay ascending and unique.
                    self.entries.push(RecordEntry::File(file.clone()));
                } else {
                    let Some((dir, name)) = dir.get(&path) else {
                        // Its folder went away since it was stamped: read
                        // by every query until an update finds it.
                        self.entries.push(RecordEntry::File(FileEntry {
                            path,
                            stamp: 0,
                            len: 0,
                            always: true,
                            binary: false,
                            linked: false,
                            racy: true,
                            segment: self.segment,
                            id: 0,
                            blocks: 1,
                            starts: Box::default(),
                        }));
                        return ControlFlow::Continue(());
                    };
                    self.pending.push(Pending {
                        at: self.entries.len(),
                        dir,
                        name,
                        stamp,
                    });
                    self.entries.push(RecordEntry::File(FileEntry {
                        path,
                        stamp: 0,
                        len: 0,
                        always: true,
                        binary: false,
                        linked: false,
                        racy: false,
                        segment: self.segment,
                        id: 0,
                        blocks: 1,
                        starts: Box::default(),
                    }));
                    if self.pending.len() >= BATCH {
                        self.flush();
                    }
                }
            }
            Event::Skip(input) => {
                self.leave_to(input.path());
                if input.is_error() {
                    // Whatever made it fail may pass: the folder is
                    // walked again by every query.
                    if let Some(&at) = self.folders.last() {
                        if let RecordEntry::Folder(f) = &mut self.entries[at] {
                            f.always = true;
                        }
                    }
                }
                self.entries.push(RecordEntry::Skip(SkipEntry { input }));
            }
        }
        if self.failed.is_some() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Pops the folders that do not hold `path`.
    fn leave_to(&mut self, path: &str) {
        while let Some(&at) = self.folders.last() {
            let folder = self.entries[at].path();
            if is_within(path, folder) {
                break;
            }
            self.folders.pop();
        }
    }

    /// The entry of a folder walked again.
    fn folder(&self, path: &str, dir: &DirHandle, via_link: bool) -> FolderEntry {
        let (gitignore, _) = self.tree.reads_ignores();
        let ignores = ignores_of(dir, gitignore);
        let stamp = folder_stamp(dir, ignores);
        let racy = mtime_at(dir, OsStr::new(".")).map_or(true, |t| is_racy(t, self.built_ns));
        FolderEntry {
            path: path.to_owned(),
            stamp: stamp.unwrap_or(0),
            ignores,
            always: via_link || racy || stamp.is_none(),
        }
    }

    /// Reads the files waiting, a batch at a time, and adds them.
    fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let mut from = 0;
        while from < pending.len() && self.failed.is_none() {
            let done = self.read_batch(&pending[from..]);
            let to = from + done.len();
            // The entries up to the first file still waiting get their ids.
            let end = pending.get(to).map_or(self.entries.len(), |p| p.at);
            self.add_read(&pending[from..to], done, end);
            from = to;
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Reads a prefix of `pending` (one file at least) in parallel, each
    /// thread taking the next file, until the batch holds `BATCH_KEYS`
    /// trigrams.
    fn read_batch(&mut self, pending: &[Pending]) -> Vec<Done> {
        let threads = self.threads.min(pending.len());
        while self.scratch.len() < threads {
            self.scratch.push(Scratch::default());
        }
        let (built_ns, limit) = (self.built_ns, self.tree.size_limit());
        let block_bytes = self.block_bytes;
        let next = AtomicUsize::new(0);
        let held = AtomicUsize::new(0);
        let read: Vec<Vec<(usize, Done)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self.scratch[..threads]
                .iter_mut()
                .map(|scratch| {
                    let (next, held) = (&next, &held);
                    scope.spawn(move || {
                        let mut out = Vec::new();
                        while held.load(Ordering::Relaxed) < BATCH_KEYS {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(p) = pending.get(i) else { break };
                            let done = read_and_split(p, built_ns, limit, block_bytes, scratch);
                            held.fetch_add(done.keys.len(), Ordering::Relaxed);
                            out.push((i, done));
                        }
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        // Every file taken was read: they are a prefix of `pending`.
        let mut done: Vec<(usize, Done)> = read.into_iter().flatten().collect();
        done.sort_unstable_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, d)| d).collect()
    }

    /// Gives the ids of the entries from the last place given up to
    /// `end`, in path order: to a file of `read` (the files read, in
    /// order) one per block it was cut into, to any other file of the
    /// lists being written one; and adds the files read to the lists.
    fn add_read(&mut self, read: &[Pending], done: Vec<Done>, end: usize) {
        let mut waiting = read.iter().zip(done).peekable();
        for at in self.assigned..end {
            let RecordEntry::File(f) = &mut self.entries[at] else {
                continue;
            };
            if f.segment != self.segment {
                continue;
            }
            f.id = self.next_id;
            f.blocks = 1;
            if let Some((_, done)) = waiting.next_if(|(p, _)| p.at == at) {
                let r = done.read;
                f.stamp = r.stamp;
                f.len = r.len;
                f.always = r.always;
                f.binary = r.binary;
                f.linked = r.linked;
                f.racy = r.racy;
                f.starts = r.starts;
                f.blocks = u32::try_from(done.blocks.len()).unwrap_or(1).max(1);
                let mut keys = &done.keys[..];
                for (id, &n) in (f.id..).zip(&done.blocks) {
                    let (block, rest) = keys.split_at(n as usize);
                    keys = rest;
                    if let Err(e) = self.postings.add(id, block) {
                        self.failed.get_or_insert(e);
                    }
                }
            }
            self.next_id = self.next_id.saturating_add(f.blocks);
        }
        self.assigned = end;
    }

    /// The entries and the posting lists of the files read.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Write`] (naming the index's folder) when the posting
    /// lists could not be spilled.
    pub(crate) fn finish(mut self) -> Result<(Vec<RecordEntry>, Postings), Error> {
        self.flush();
        let end = self.entries.len();
        self.add_read(&[], Vec::new(), end);
        if let Some(e) = self.failed {
            return Err(ErrorKind::Write {
                path: self.spill.dir,
                source: e,
            }
            .into());
        }
        Ok((self.entries, self.postings))
    }
}

/// Reads the file of `p` and, when it is indexed, cuts it into blocks of
/// `block_bytes` and takes each block's distinct trigrams.
fn read_and_split(
    p: &Pending,
    built_ns: u64,
    limit: Option<u64>,
    block_bytes: u64,
    scratch: &mut Scratch,
) -> Done {
    let mut read = read_one(
        &p.dir,
        &p.name,
        p.stamp,
        built_ns,
        limit,
        &mut scratch.bytes,
    );
    let mut keys = Vec::new();
    let mut blocks = Vec::new();
    if !read.always && !read.racy {
        let bytes = &scratch.bytes;
        let count = blocks_for(bytes.len() as u64, block_bytes);
        let parts = split_blocks(bytes, count, block_bytes);
        let mut starts = Vec::with_capacity(parts.len().saturating_sub(1));
        let mut at = 0u64;
        for (k, part) in parts.into_iter().enumerate() {
            if k > 0 {
                starts.push(at);
            }
            at += part.len() as u64;
            let distinct = scratch.distinct.of(part);
            keys.extend_from_slice(distinct);
            blocks.push(u32::try_from(distinct.len()).unwrap_or(u32::MAX));
        }
        read.starts = starts.into_boxed_slice();
    }
    // A large file's buffer is not kept for the next, smaller ones.
    if scratch.bytes.capacity() > 1 << 20 {
        scratch.bytes = Vec::new();
    }
    Done { read, keys, blocks }
}

/// What reading one file told.
struct Read {
    stamp: u64,
    len: u64,
    /// Not indexed as plain text: every query reads it.
    always: bool,
    /// Binary as the tree reads it (see `FileEntry::binary`).
    binary: bool,
    /// More than one name (see `FileEntry::linked`).
    linked: bool,
    /// Changed within the build's clock tick.
    racy: bool,
    /// Where its blocks after the first start, once added to the lists.
    starts: Box<[u64]>,
}

/// Reads the file `name` of `dir` (stamped `stamp` before, if known)
/// into `bytes`, and tells whether it is plain text the posting lists
/// can stand for: no NUL byte, no line longer than the tree reads, no
/// byte-order mark, within the tree's size limit and `MAX_INDEXED`, and
/// not changed within a clock tick of the build.
fn read_one(
    dir: &DirHandle,
    name: &OsStr,
    stamp: Option<u64>,
    built_ns: u64,
    limit: Option<u64>,
    bytes: &mut Vec<u8>,
) -> Read {
    bytes.clear();
    let not_indexed = |stamp: u64| Read {
        stamp,
        len: 0,
        always: true,
        binary: false,
        linked: false,
        racy: false,
        starts: Box::default(),
    };
    // Stamped before it is read (by the walk, or here): a change while it
    // is read moves the stamp, and is seen by the next query.
    let Some(stamp) = stamp.or_else(|| stamp_at(dir, name).ok()) else {
        return not_indexed(0);
    };
    let Ok(file) = open_file(dir, name) else {
        return not_indexed(stamp);
    };
    let Ok(meta) = file.metadata() else {
        return not_indexed(stamp);
    };
    let len = meta.len();
    let racy = is_racy(mtime_ns(&meta), built_ns);
    let linked = has_other_names(&meta);
    if !meta.is_file() || len > MAX_INDEXED || limit.is_some_and(|max| len > max) {
        return Read {
            racy,
            linked,
            ..not_indexed(stamp)
        };
    }
    if file.take(MAX_INDEXED + 1).read_to_end(bytes).is_err() || bytes.len() as u64 != len {
        return Read {
            racy: true,
            linked,
            ..not_indexed(stamp)
        };
    }
    let nul = memchr::memchr(0, bytes);
    let plain =
        nul.is_none() && !bytes.starts_with(b"\xEF\xBB\xBF") && longest_line(bytes) <= MAX_LINE;
    // The reader's binary rule: a NUL in the prefix, or in the first line,
    // skips the file whole.
    let binary =
        nul.is_some_and(|at| at < BINARY_PREFIX || memchr::memrchr(b'\n', &bytes[..at]).is_none());
    Read {
        stamp,
        len,
        always: !plain,
        binary,
        linked,
        racy,
        starts: Box::default(),
    }
}

/// Whether the file has more than one name (hard links).
#[cfg(unix)]
fn has_other_names(meta: &std::fs::Metadata) -> bool {
    std::os::unix::fs::MetadataExt::nlink(meta) > 1
}

/// Whether the file has more than one name: not asked on this system
/// (its watcher reports changes by path).
#[cfg(not(unix))]
fn has_other_names(_meta: &std::fs::Metadata) -> bool {
    false
}

/// The length of the longest line (a `\r` before its `\n` counted, as
/// the reader counts it).
fn longest_line(bytes: &[u8]) -> usize {
    let mut longest = 0;
    let mut from = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        longest = longest.max(end - from);
        from = end + 1;
    }
    longest.max(bytes.len() - from)
}

#[cfg(test)]
mod tests {
    //! A build that spills (a budget of a few pairs) writes the index a
    //! build that never does writes, byte for byte, and leaves nothing
    //! behind in the index's folder.

    use std::path::Path;

    use proptest::prelude::*;

    use crate::Tree;
    use crate::index::format::{self, FileRole, Header};
    use crate::index::grams::Grams;
    use crate::index::store::Store;
    use crate::index::{BuildSettings, build_base, full_build};
    use crate::seam::Source as _;

    /// Names with spaces, Unicode, case and folders.
    const NAMES: &[&str] = &[
        "a.rs",
        "B.txt",
        "é.txt",
        "dir/z",
        "dir/日本語.md",
        "dir/deeper/a b",
        "ω/x.rs",
        "Zz",
    ];

    /// A tree's files: (name, a line, how many times it is repeated, a
    /// NUL in the middle or not). Repeated lines make files of several
    /// blocks.
    fn tree_files() -> impl Strategy<Value = Vec<(usize, String, usize, bool)>> {
        let line = "[abcé日 \\t]{0,40}";
        prop::collection::vec(
            (
                0..NAMES.len(),
                line,
                prop_oneof![4 => 1usize..4, 1 => 2_000usize..6_000],
                prop::bool::weighted(0.1),
            ),
            0..8,
        )
    }

    fn write_tree(root: &Path, files: &[(usize, String, usize, bool)]) {
        for (name, line, times, nul) in files {
            let path = root.join(NAMES[*name]);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
            let mut bytes = format!("{line}\n").repeat(*times).into_bytes();
            if *nul {
                bytes.insert(bytes.len() / 2, 0);
            }
            std::fs::write(path, bytes).expect("written");
        }
    }

    /// The default settings, spilling past `budget` bytes.
    fn spilling_at(budget: usize) -> BuildSettings {
        BuildSettings {
            budget,
            ..BuildSettings::default()
        }
    }

    /// Builds the index of `tree` at `dir` within `budget`, and gives the
    /// files the folder holds then, with their bytes.
    fn build(tree: &Tree, dir: &Path, budget: usize) -> Vec<(String, Vec<u8>)> {
        let store = Store {
            dir: dir.to_owned(),
            rules: tree.fingerprint(),
        };
        build_base(tree, &store, None, spilling_at(budget))
            .expect("built")
            .write(&store)
            .expect("written");
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .expect("the folder")
            .map(|e| {
                let e = e.expect("an entry");
                let name = e.file_name().into_string().expect("a name");
                (name, std::fs::read(e.path()).expect("read"))
            })
            .collect();
        files.sort();
        files
    }

    /// The file's body (after the header, which holds the generation).
    fn body(bytes: &[u8]) -> &[u8] {
        &bytes[format::HEADER..]
    }

    /// A body without the times two builds of the same tree differ by: a
    /// manifest's directory opens with the generation of its base, then
    /// the stamp of the ignore files above the root, then when its walk
    /// began.
    fn timeless(body: &[u8]) -> Vec<u8> {
        let mut body = body.to_vec();
        if body.len() >= format::DIRECTORY {
            body[..8].fill(0);
            body[16..24].fill(0);
        }
        body
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn a_build_that_spills_writes_what_one_in_memory_writes(
            files in tree_files(),
            budget in 0usize..400,
            threads in 1usize..4,
        ) {
            let root = tempfile::tempdir().expect("a folder");
            write_tree(root.path(), &files);
            // Past the clock tick within which a file is not trusted.
            std::thread::sleep(std::time::Duration::from_millis(120));
            let tree = Tree::new(root.path()).expect("a tree").threads(threads);
            let store = tempfile::tempdir().expect("a folder");
            let whole = build(&tree, &store.path().join("whole"), usize::MAX / 2);
            let spilled = build(&tree, &store.path().join("spilled"), budget);
            let kinds = |files: &[(String, Vec<u8>)]| -> Vec<String> {
                files.iter().map(|(n, _)| n.split('-').next().unwrap_or("").to_owned()).collect()
            };
            // Nothing but the pointer, the lock, a base and a manifest.
            prop_assert_eq!(kinds(&spilled), ["CURRENT", "LOCK", "base", "gen"]);
            prop_assert_eq!(kinds(&whole), kinds(&spilled));
            for ((name, a), (_, b)) in whole.iter().zip(&spilled).skip(2) {
                match name.starts_with("gen-") {
                    true => prop_assert_eq!(timeless(body(a)), timeless(body(b))),
                    false => prop_assert_eq!(body(a), body(b)),
                }
            }
            // The base written in parts is the whole encoding of its lists.
            let base = &spilled[2].1;
            let head = u64::from_le_bytes(body(base)[..8].try_into().expect("8 bytes"));
            let grams = Grams::decode(&body(base)[8..]).expect("decodes");
            let generation = u64::from_le_bytes(base[24..32].try_into().expect("8 bytes"));
            let header = Header { kind: FileRole::Base, rules: tree.fingerprint(), generation };
            let whole_file = format::base_file(header, &grams);
            prop_assert_eq!(&whole_file[..], &base[..]);
            prop_assert!(head > 0);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// An update whose delta spills writes the generation an update
        /// that holds it in memory writes (the same changes to the same
        /// tree), byte for byte.
        #[test]
        fn an_update_that_spills_writes_what_one_in_memory_writes(
            files in tree_files(),
            changes in tree_files(),
            removed in prop::collection::vec(0..NAMES.len(), 0..3),
            budget in 0usize..200,
        ) {
            let root = tempfile::tempdir().expect("a folder");
            write_tree(root.path(), &files);
            std::thread::sleep(std::time::Duration::from_millis(120));
            let store = tempfile::tempdir().expect("a folder");
            let open = |name: &str| {
                let tree = Tree::new(root.path()).expect("a tree");
                crate::Index::build(tree, store.path().join(name)).expect("built")
            };
            let (whole, mut spilled) = (open("whole"), open("spilled"));
            spilled.settings.budget = budget;
            write_tree(root.path(), &changes);
            for r in removed {
                let _ = std::fs::remove_file(root.path().join(NAMES[r]));
            }
            std::thread::sleep(std::time::Duration::from_millis(120));
            prop_assert_eq!(whole.update().expect("updated"), spilled.update().expect("updated"));
            let manifest = |name: &str| -> Vec<u8> {
                let dir = store.path().join(name);
                let current = std::fs::read_to_string(dir.join("CURRENT")).expect("a pointer");
                let generation = current.trim().trim_start_matches("candor-index ");
                std::fs::read(dir.join(format!("gen-{generation}.manifest"))).expect("read")
            };
            let (a, b) = (manifest("whole"), manifest("spilled"));
            prop_assert_eq!(timeless(body(&a)), timeless(body(&b)));
            // Nothing but the pointer, the lock, and the generations' files.
            for entry in std::fs::read_dir(store.path().join("spilled")).expect("the folder") {
                let name = entry.expect("an entry").file_name().into_string().expect("a name");
                let known = name == "CURRENT"
                    || name == "LOCK"
                    || name.starts_with("base-") && name.ends_with(".grams")
                    || name.starts_with("gen-") && name.ends_with(".manifest");
                prop_assert!(known, "{} left behind", name);
            }
        }
    }

    /// The first pages (20 at most) of `query`'s answer from `corpus`, each as its items,
    /// its total and its completeness, written out.
    fn pages(
        corpus: &impl crate::Corpus,
        query: &crate::Query,
        limits: &crate::Limits,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let mut cursor = None;
        loop {
            let page = corpus
                .search(query, limits, cursor.as_ref())
                .expect("an answer");
            out.push(format!(
                "{:?} {:?} {:?}",
                page.items(),
                page.total(),
                page.completeness()
            ));
            match page.next_cursor() {
                Some(next) if out.len() < 20 => cursor = Some(next.clone()),
                _ => return out,
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// Whatever the size of the blocks files are cut into (a byte,
        /// a few, more than a line), the index answers as the tree
        /// does, after its build and after an update, whole and in
        /// pages.
        #[test]
        fn any_block_size_answers_as_the_tree_does(
            files in tree_files(),
            changes in tree_files(),
            block_bytes in prop_oneof![Just(1u64), 2u64..64, Just(1_000)],
            limit in prop_oneof![Just(None), (1usize..4).prop_map(Some)],
        ) {
            use crate::{Limits, Query};
            let root = tempfile::tempdir().expect("a folder");
            write_tree(root.path(), &files);
            std::thread::sleep(std::time::Duration::from_millis(120));
            let store = tempfile::tempdir().expect("a folder");
            let tree = Tree::new(root.path()).expect("a tree");
            let settings = BuildSettings { block_bytes, ..BuildSettings::default() };
            let index = crate::Index::build_with(tree.clone(), store.path(), settings)
                .expect("built");
            let queries = [
                Query::literal("abc"),
                Query::literal("cé"),
                Query::regex("a+b|日 "),
                Query::literal("ABC").case_insensitive(true),
                Query::literals(["ba", "\t"]),
            ];
            let limits = limit.map_or(Limits::new(), |l| Limits::new().limit(l));
            for round in 0..2 {
                for query in &queries {
                    let found = pages(&index, query, &limits);
                    let scanned = pages(&tree, query, &limits);
                    prop_assert_eq!(found, scanned);
                }
                if round == 0 {
                    write_tree(root.path(), &changes);
                    std::thread::sleep(std::time::Duration::from_millis(120));
                    index.update().expect("updated");
                }
            }
        }
    }

    #[test]
    fn a_build_that_dies_before_its_switch_leaves_the_last_generation_usable() {
        use crate::{Corpus as _, Limits, Query};
        let root = tempfile::tempdir().expect("a folder");
        write_tree(
            root.path(),
            &[
                (0, "abc needle".into(), 3_000, false),
                (4, "x".into(), 1, false),
            ],
        );
        std::thread::sleep(std::time::Duration::from_millis(120));
        let store = tempfile::tempdir().expect("a folder");
        let dir = store.path().join("index");
        let index =
            crate::Index::build(Tree::new(root.path()).expect("a tree"), &dir).expect("built");
        write_tree(
            root.path(),
            &[(1, "needle".into(), 2, false), (4, "abc".into(), 1, false)],
        );
        std::thread::sleep(std::time::Duration::from_millis(120));
        // A second build, spilled, whose process dies after its base is
        // written and before the switch: nothing of it is dropped.
        let tree = Tree::new(root.path()).expect("a tree");
        let store = Store {
            dir: dir.clone(),
            rules: tree.fingerprint(),
        };
        let built =
            build_base(&tree, &store, Some(index.generation()), spilling_at(16)).expect("built");
        std::mem::forget(built);
        let reopened = crate::Index::open(tree.clone(), &dir).expect("the last generation");
        assert_eq!(reopened.generation(), index.generation());
        let query = Query::literal("needle");
        let found = reopened
            .search(&query, &Limits::new(), None)
            .expect("an answer");
        let scanned = tree
            .search(&query, &Limits::new(), None)
            .expect("an answer");
        assert_eq!(
            format!("{:?}", found.items()),
            format!("{:?}", scanned.items())
        );
        assert_eq!(found.len(), 3_002);
        // Its base is left under a temporary name; once its process is
        // gone (here: a number no process has), the next write removes it.
        let names = || -> Vec<String> {
            let list = std::fs::read_dir(&dir).expect("the folder");
            list.map(|e| {
                e.expect("an entry")
                    .file_name()
                    .into_string()
                    .expect("a name")
            })
            .collect()
        };
        let left: Vec<String> = names().into_iter().filter(|n| n.contains(".tmp")).collect();
        assert_eq!(left.len(), 1, "{left:?}");
        let own = format!(".tmp{}-", std::process::id());
        let dead = left[0].replace(&own, &format!(".tmp{}-", u32::MAX));
        std::fs::rename(dir.join(&left[0]), dir.join(&dead)).expect("renamed");
        assert!(reopened.update().expect("updated"));
        let left = names().into_iter().filter(|n| n.contains(".tmp")).count();
        assert_eq!(left, usize::from(!cfg!(target_os = "linux")));
    }

    #[test]
    fn a_build_that_cannot_spill_fails_cleanly() {
        let root = tempfile::tempdir().expect("a folder");
        write_tree(root.path(), &[(0, "abcdef".into(), 50, false)]);
        let tree = Tree::new(root.path()).expect("a tree");
        // The index's folder would be below a file.
        let store = Store {
            dir: root.path().join("a.rs").join("index"),
            rules: tree.fingerprint(),
        };
        let error = full_build(&tree, &store, None, spilling_at(8)).expect_err("no folder");
        assert!(
            matches!(error.kind(), crate::ErrorKind::Write { .. }),
            "{error}"
        );
    }

    #[test]
    fn a_build_never_written_leaves_nothing_behind() {
        let root = tempfile::tempdir().expect("a folder");
        write_tree(
            root.path(),
            &[
                (0, "abcdef".into(), 5_000, false),
                (3, "xyz".into(), 1, false),
            ],
        );
        std::thread::sleep(std::time::Duration::from_millis(120));
        let tree = Tree::new(root.path()).expect("a tree");
        let store = tempfile::tempdir().expect("a folder");
        let store = Store {
            dir: store.path().join("index"),
            rules: tree.fingerprint(),
        };
        let built = build_base(&tree, &store, None, spilling_at(16)).expect("built");
        // Its base is there, under a temporary name, and answers.
        assert_eq!(
            std::fs::read_dir(&store.dir).expect("the folder").count(),
            1
        );
        assert!(built.base.grams.files() > 0);
        drop(built);
        assert_eq!(
            std::fs::read_dir(&store.dir).expect("the folder").count(),
            0
        );
    }
}
