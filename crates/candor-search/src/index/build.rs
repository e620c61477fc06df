//! Building a generation: the traversal's events written down as the
//! next generation's entries, each new or changed file read (in
//! parallel, a batch at a time) and added to the posting lists.
//!
//! A full build adds every file to a new base; an update keeps the
//! base's files that are unchanged and adds the others (new, changed, or
//! in the previous delta) to a new delta; a base file that changed or is
//! gone is simply no longer listed (its ids in the base are tombstones).
//!
//! Ids are given in path order when a batch is read: a file takes one
//! per block its size asks for (`grams::blocks_for`, the size asked just
//! before the batch is read; a file that grew meanwhile has a longer last
//! block), any other file of the lists being written one.
//!
//! Memory: each thread holds one file at a time, of at most
//! `MAX_INDEXED` bytes (a larger file is not indexed: every query reads
//! it), a batch holds at most `BATCH` folder handles, and the posting
//! lists grow with the tree.

use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::index::grams::{Grams, GramsBuilder, blocks_for};
use crate::index::snapshot::{Entry, FileEntry, FolderEntry, Segment, SkipEntry};
use crate::index::stamp::{folder_stamp, ignores_of, is_racy, mtime_ns};
use crate::index::traverse::Event;
use crate::{
    BINARY_PREFIX, DirHandle, MAX_LINE, Tree, is_within, mtime_at, open_file, size_at, stamp_at,
};

/// The largest file indexed: the tree reads no line longer than this
/// (`MAX_LINE`), and a larger file is read by every query instead.
pub(crate) const MAX_INDEXED: u64 = MAX_LINE as u64;

/// How many files are read per batch (each holds its folder's handle).
const BATCH: usize = 256;

/// A file waiting to be read: its entry's place, its folder's handle,
/// its name there, and its ids in the posting lists being built (given
/// when its batch is read).
struct Pending {
    at: usize,
    dir: Arc<DirHandle>,
    name: OsString,
    id: u32,
    blocks: u32,
}

/// Writes down a generation from a traversal's events.
pub(crate) struct Builder<'t> {
    tree: &'t Tree,
    /// When this build began: a change within a clock tick of it may
    /// keep a stamp.
    built_ns: u64,
    /// The posting lists the files read go to.
    segment: Segment,
    threads: usize,
    pub(crate) entries: Vec<Entry>,
    /// The folders the next entry is in, innermost last (their places).
    folders: Vec<usize>,
    pending: Vec<Pending>,
    /// The entries before this place have their ids.
    assigned: usize,
    next_id: u32,
    /// One builder per thread, kept from batch to batch (each gets ids
    /// in ascending order), merged once at the end.
    grams: Vec<GramsBuilder>,
    /// How many files were read.
    pub(crate) read: usize,
}

impl<'t> Builder<'t> {
    pub(crate) fn new(tree: &'t Tree, built_ns: u64, segment: Segment) -> Builder<'t> {
        Builder {
            tree,
            built_ns,
            segment,
            threads: tree.get_threads(),
            entries: Vec::new(),
            folders: Vec::new(),
            pending: Vec::new(),
            assigned: 0,
            next_id: 0,
            grams: Vec::new(),
            read: 0,
        }
    }

    /// Writes down one event.
    pub(crate) fn visit(&mut self, event: Event<'_>) -> ControlFlow<()> {
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
                self.entries.push(Entry::Folder(entry));
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
                    // there when its batch is read (`assign`), so that
                    // ids stay ascending and unique.
                    self.entries.push(Entry::File(file.clone()));
                } else {
                    let Some((dir, name)) = dir.get(&path) else {
                        // Its folder went away since it was stamped: read
                        // by every query until an update finds it.
                        self.entries.push(Entry::File(FileEntry {
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
                        id: 0,
                        blocks: 1,
                    });
                    self.entries.push(Entry::File(FileEntry {
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
                        if let Entry::Folder(f) = &mut self.entries[at] {
                            f.always = true;
                        }
                    }
                }
                self.entries.push(Entry::Skip(SkipEntry { input }));
            }
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

    /// Gives the ids of the files listed since the last batch, in path
    /// order: one per block for a file waiting to be read (as many as
    /// its size now asks; see `grams::blocks_for`), one for any other
    /// file of the lists being written.
    fn assign(&mut self, pending: &mut [Pending]) {
        for p in pending.iter_mut() {
            p.blocks = size_at(&p.dir, &p.name).map_or(1, blocks_for);
        }
        let mut waiting = pending.iter_mut().peekable();
        for at in self.assigned..self.entries.len() {
            let Entry::File(f) = &mut self.entries[at] else {
                continue;
            };
            if f.segment != self.segment {
                continue;
            }
            f.id = self.next_id;
            f.blocks = 1;
            if let Some(p) = waiting.next_if(|p| p.at == at) {
                f.blocks = p.blocks;
                p.id = f.id;
            }
            self.next_id = self.next_id.saturating_add(f.blocks);
        }
        self.assigned = self.entries.len();
    }

    /// Reads the files waiting, in parallel, and adds them.
    pub(crate) fn flush(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        self.assign(&mut pending);
        if pending.is_empty() {
            return;
        }
        self.read += pending.len();
        let threads = self.threads.clamp(1, pending.len());
        let per = pending.len().div_ceil(threads);
        let built_ns = self.built_ns;
        let limit = self.tree.size_limit();
        while self.grams.len() < threads {
            self.grams.push(GramsBuilder::new());
        }
        let results: Vec<Vec<(usize, Read)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = pending
                .chunks(per)
                .zip(self.grams.iter_mut())
                .map(|(chunk, grams)| {
                    scope.spawn(move || {
                        let mut bytes = Vec::new();
                        let read: Vec<(usize, Read)> = chunk
                            .iter()
                            .map(|p| {
                                let mut read =
                                    read_one(&p.dir, &p.name, built_ns, limit, &mut bytes);
                                if !read.always && !read.racy {
                                    read.starts = grams.add_blocks(p.id, p.blocks, &bytes);
                                }
                                (p.at, read)
                            })
                            .collect();
                        read
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for read in results {
            for (at, r) in read {
                if let Entry::File(f) = &mut self.entries[at] {
                    f.stamp = r.stamp;
                    f.len = r.len;
                    f.always = r.always;
                    f.binary = r.binary;
                    f.linked = r.linked;
                    f.racy = r.racy;
                    f.starts = r.starts;
                }
            }
        }
    }

    /// The entries and the posting lists of the files read.
    pub(crate) fn finish(mut self) -> (Vec<Entry>, Grams) {
        self.flush();
        let grams = self
            .grams
            .into_iter()
            .reduce(GramsBuilder::merge)
            .unwrap_or_else(GramsBuilder::new);
        (self.entries, grams.finish())
    }
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

/// Reads the file `name` of `dir` into `bytes`, and tells whether it is
/// plain text the posting lists can stand for: no NUL byte, no line
/// longer than the tree reads, no byte-order mark, within the tree's
/// size limit and `MAX_INDEXED`, and not changed within a clock tick of
/// the build.
fn read_one(
    dir: &DirHandle,
    name: &OsStr,
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
    // Stamped before it is read: a change while it is read moves the
    // stamp, and is seen by the next query.
    let Ok(stamp) = stamp_at(dir, name) else {
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
