//! The index's folder: the generations' files and the pointer to the
//! current one, switched atomically.
//!
//! `CURRENT` names the current generation; `gen-G.manifest` holds its
//! entries and its delta; `base-B.grams` the base posting lists it
//! builds on. A build's posting lists spill to a file here too (see
//! `grams::Postings`), which never outlives the build. A build or an update writes its files under new names
//! (through a temporary name, synced, then renamed), then writes
//! `CURRENT` the same way: the rename is the switch. A crash before it
//! leaves the previous generation current and whole; a reader sees one
//! generation or the other. The files of the generation before the
//! current one are kept (a reader may be loading them), older ones are
//! removed, and so are the temporary files of a writer that crashed
//! (on Linux, where a process's number tells whether it still runs).

use std::fs;
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::index::format::{self, Directory, FileRole, Header, Section, Written};
use crate::index::grams::{self, Disk, Grams, Lists};
use crate::index::manifest::Manifest;
use crate::index::snapshot::Snapshot;
use crate::{Error, ErrorKind};

/// The pointer file's name.
const CURRENT: &str = "CURRENT";
/// Held (an exclusive `flock`) by the writer that switches generations.
const LOCK: &str = "LOCK";

/// Takes the store's writer lock: held until the file is dropped.
#[cfg(unix)]
fn lock(dir: &Path) -> std::io::Result<fs::File> {
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
    Ok(file)
}

/// Elsewhere, writers are not serialized across processes: each write's
/// files have names of their own, and the pointer's rename is atomic.
#[cfg(not(unix))]
fn lock(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// The index's folder.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    pub(crate) dir: PathBuf,
    /// The walk rules' fingerprint every file must carry.
    pub(crate) rules: u64,
}

/// Why an index cannot be loaded.
pub(crate) enum LoadError {
    /// There is no index at the path (no `CURRENT`).
    Missing,
    /// There is one, and it cannot be used.
    Unusable(Error),
}

impl Store {
    pub(crate) fn unusable(&self, reason: impl Into<String>) -> Error {
        ErrorKind::UnusableIndex {
            path: self.dir.clone(),
            reason: reason.into(),
        }
        .into()
    }

    fn manifest_path(&self, generation: u64) -> PathBuf {
        self.dir.join(format!("gen-{generation}.manifest"))
    }

    fn base_path(&self, generation: u64) -> PathBuf {
        self.dir.join(format!("base-{generation}.grams"))
    }

    /// The current generation, as `CURRENT` names it.
    pub(crate) fn current(&self) -> Result<u64, LoadError> {
        let text = match fs::read_to_string(self.dir.join(CURRENT)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LoadError::Missing),
            Err(e) => {
                return Err(LoadError::Unusable(
                    self.unusable(format!("cannot read {CURRENT}: {e}")),
                ));
            }
        };
        text.strip_prefix("candor-index ")
            .and_then(|t| t.strip_suffix('\n'))
            .and_then(|g| g.parse().ok())
            .ok_or_else(|| {
                LoadError::Unusable(self.unusable(format!("{CURRENT} names no generation")))
            })
    }

    /// Loads the current generation; `reuse` is a base already loaded,
    /// used again when the generation builds on it.
    pub(crate) fn load(&self, reuse: Option<(u64, &Arc<Grams>)>) -> Result<Snapshot, LoadError> {
        // A writer may remove the files of a generation two behind while
        // this reads: as long as the pointer has moved meanwhile, it is
        // read again (a few times: writers that never pause are not
        // waited for without end).
        let mut tries = 0;
        loop {
            let generation = self.current()?;
            match self.open_generation(generation, reuse) {
                Ok(snap) => return Ok(snap),
                Err(_) if tries < 16 && self.current().ok() != Some(generation) => tries += 1,
                Err(e) => return Err(LoadError::Unusable(e)),
            }
        }
    }

    /// Opens generation `generation` (see `load`).
    pub(crate) fn open_generation(
        &self,
        generation: u64,
        reuse: Option<(u64, &Arc<Grams>)>,
    ) -> Result<Snapshot, Error> {
        let path = self.manifest_path(generation);
        let cannot =
            |e: std::io::Error| self.unusable(format!("cannot read {}: {e}", path.display()));
        let bad = |r: String| self.unusable(format!("manifest: {r}"));
        let mut file = fs::File::open(&path).map_err(cannot)?;
        let size = file.metadata().map_err(cannot)?.len();
        let mut start = [0; format::HEADER + format::DIRECTORY];
        let read = read_up_to(&mut file, &mut start).map_err(cannot)?;
        let header = Header {
            kind: FileRole::Manifest,
            rules: self.rules,
            generation,
        };
        let (len, crc) = format::header(&start[..read], header).map_err(bad)?;
        let body_len = size.saturating_sub(format::HEADER as u64);
        if read < start.len() || body_len != len {
            return Err(bad(format!(
                "truncated or extended: a body of {body_len} bytes where the header says {len}"
            )));
        }
        let directory = &start[format::HEADER..];
        if crc32fast::hash(directory) != crc {
            return Err(bad(
                "the checksum does not match: the file is corrupt".into()
            ));
        }
        let dir = Directory::decode(directory, len).map_err(bad)?;
        let body = Disk::new(file, format::HEADER as u64, len);
        // The delta's head, checked; its table and lists stay in the file.
        let span = dir.section(Section::Delta);
        let head_len = usize::try_from(dir.delta_head).map_err(|_| bad("too large".into()))?;
        let head = body.read(span.at, head_len).map_err(cannot)?;
        if crc32fast::hash(&head) != span.crc {
            return Err(bad(
                "the checksum does not match: the file is corrupt".into()
            ));
        }
        let rest = body.window(span.at + dir.delta_head, span.len - dir.delta_head);
        let delta = Grams::decode_head(&head, rest).map_err(|e| bad(e.to_string()))?;
        let base_generation = dir.base_generation;
        let read_ns = dir.read_ns;
        let entries = Manifest::open(body, dir, path.clone()).map_err(bad)?;
        let base = match reuse {
            Some((g, base)) if g == base_generation => Arc::clone(base),
            _ => Arc::new(self.load_base(base_generation)?),
        };
        Ok(Snapshot {
            generation,
            entries: Arc::new(entries),
            base,
            delta: Arc::new(delta),
            read_ns,
        })
    }

    /// Opens a base: its header and head are read and checked; its lists
    /// stay in the file, read (and checked) as queries need them.
    fn load_base(&self, generation: u64) -> Result<Grams, Error> {
        self.open_base(&self.base_path(generation), generation)
    }

    /// Opens the base of `generation` at `path` (see `load_base`).
    fn open_base(&self, path: &Path, generation: u64) -> Result<Grams, Error> {
        let cannot =
            |e: std::io::Error| self.unusable(format!("cannot read {}: {e}", path.display()));
        let bad = |r: String| self.unusable(format!("base: {r}"));
        let mut file = fs::File::open(path).map_err(cannot)?;
        let size = file.metadata().map_err(cannot)?.len();
        let mut start = [0; format::HEADER + 8];
        let read = read_up_to(&mut file, &mut start).map_err(cannot)?;
        let header = Header {
            kind: FileRole::Base,
            rules: self.rules,
            generation,
        };
        let (len, crc) = format::header(&start[..read], header).map_err(bad)?;
        let body = size.saturating_sub(format::HEADER as u64);
        if read < start.len() || size < format::HEADER as u64 || body != len {
            return Err(bad(format!(
                "truncated or extended: a body of {body} bytes where the header says {len}"
            )));
        }
        let head_len = u64::from_le_bytes(start[format::HEADER..].try_into().unwrap_or([0; 8]));
        if head_len > len - 8 {
            return Err(bad("a head longer than the file".into()));
        }
        let mut head = vec![0; usize::try_from(head_len).map_err(|_| bad("too large".into()))?];
        file.read_exact(&mut head).map_err(cannot)?;
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&start[format::HEADER..]);
        hasher.update(&head);
        if hasher.finalize() != crc {
            return Err(bad(
                "the checksum does not match: the file is corrupt".into()
            ));
        }
        let data_at = format::HEADER as u64 + 8 + head_len;
        let disk = Disk::new(file, data_at, size - data_at);
        Grams::decode_head(&head, disk).map_err(|r| bad(r.to_string()))
    }

    /// An error of the spill files of (trigram, id) pairs, which a build
    /// keeps in the store's folder while it merges them into posting
    /// lists: [`ErrorKind::Read`] naming the folder.
    pub(crate) fn spill_error(&self, source: std::io::Error) -> Error {
        ErrorKind::Read {
            path: self.dir.clone(),
            source,
        }
        .into()
    }

    /// Writes the base posting lists of `generation`, merged from
    /// `lists` as they are written, under a temporary name (synced): the
    /// generation that builds on them makes them its base when it is
    /// written (see `write`), and they are removed if it never is. The
    /// base comes back opened from its file, as a loaded one is: a query
    /// reads the lists it needs from there.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Write`] when the file cannot be written (or the lists'
    /// spill file read back).
    pub(crate) fn write_base(&self, generation: u64, lists: &mut Lists) -> Result<NewBase, Error> {
        let path = self.base_path(generation);
        let io = |e: std::io::Error| -> Error {
            ErrorKind::Write {
                path: path.clone(),
                source: e,
            }
            .into()
        };
        fs::create_dir_all(&self.dir).map_err(io)?;
        let tmp = temporary(&path);
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io)?;
        let mut new = NewBase {
            tmp,
            generation,
            grams: Grams::default(),
        };
        let (len, crc) =
            grams::write_postings(lists, &mut file, format::HEADER as u64).map_err(io)?;
        let header = Header {
            kind: FileRole::Base,
            rules: self.rules,
            generation,
        };
        let mut head = Vec::with_capacity(format::HEADER);
        format::put_header(&mut head, header, len, crc);
        file.seek(std::io::SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&head).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        new.grams = self.open_base(&new.tmp, generation)?;
        Ok(new)
    }

    /// Writes `written` as generation `generation`, the current one (its
    /// base too, when `new_base`, written by `write_base`), then removes
    /// the files no generation kept needs.
    pub(crate) fn write(
        &self,
        generation: u64,
        written: &Written<'_>,
        new_base: Option<NewBase>,
    ) -> Result<(), Error> {
        let io = |what: &Path, e: std::io::Error| -> Error {
            ErrorKind::Write {
                path: what.to_owned(),
                source: e,
            }
            .into()
        };
        fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        // One writer at a time switches generations and removes old ones
        // (another waits here), so that the generation it replaces is
        // the one it keeps for readers still loading it.
        let _lock = lock(&self.dir).map_err(|e| io(&self.dir.join(LOCK), e))?;
        let previous = self.current().ok();
        if let Some(mut base) = new_base {
            let path = self.base_path(base.generation);
            fs::rename(&base.tmp, &path).map_err(|e| io(&path, e))?;
            base.tmp = PathBuf::new();
        }
        let header = Header {
            kind: FileRole::Manifest,
            rules: self.rules,
            generation,
        };
        let path = self.manifest_path(generation);
        let body = format::manifest(written);
        replace(&path, &format::manifest_file(header, &body)).map_err(|e| io(&path, e))?;
        let pointer = self.dir.join(CURRENT);
        replace(&pointer, format!("candor-index {generation}\n").as_bytes())
            .map_err(|e| io(&pointer, e))?;
        if let Ok(dir) = fs::File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        self.clean(generation, written.base_generation, previous);
        Ok(())
    }

    /// Removes the files of generations older than the previous one.
    fn clean(&self, generation: u64, base_generation: u64, previous: Option<u64>) {
        let mut keep_bases = vec![base_generation];
        let mut keep = vec![generation];
        if let Some(p) = previous {
            keep.push(p);
            if let Ok(Some(base)) = self.base_of(p) {
                keep_bases.push(base);
            }
        }
        let Ok(list) = fs::read_dir(&self.dir) else {
            return;
        };
        for entry in list.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let stale = if let Some(g) = number(name, "gen-", ".manifest") {
                !keep.contains(&g)
            } else if let Some(g) = number(name, "base-", ".grams") {
                !keep_bases.contains(&g)
            } else {
                is_abandoned(name)
            };
            if stale {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// The base generation the manifest of `generation` builds on.
    fn base_of(&self, generation: u64) -> Result<Option<u64>, Error> {
        let Ok(mut file) = fs::File::open(self.manifest_path(generation)) else {
            return Ok(None);
        };
        // The directory's first field.
        let mut start = [0; format::HEADER + 8];
        let read = read_up_to(&mut file, &mut start).unwrap_or(0);
        Ok((read == start.len()).then(|| {
            let mut b = [0; 8];
            b.copy_from_slice(&start[format::HEADER..]);
            u64::from_le_bytes(b)
        }))
    }
}

/// Whether `name` is a temporary file (see `temporary`) of a process
/// that no longer runs: a build that crashed before its switch. Known
/// on Linux only (by `/proc`); elsewhere such a file stays.
fn is_abandoned(name: &str) -> bool {
    let Some((_, tail)) = name.rsplit_once(".tmp") else {
        return false;
    };
    let Some(pid) = tail.split_once('-').and_then(|(pid, n)| {
        n.parse::<u64>().ok()?;
        pid.parse::<u32>().ok()
    }) else {
        return false;
    };
    cfg!(target_os = "linux")
        && pid != std::process::id()
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(pid.to_string()).exists()
}

/// The number in a file name `prefix` + number + `suffix`.
fn number(name: &str, prefix: &str, suffix: &str) -> Option<u64> {
    name.strip_prefix(prefix)?
        .strip_suffix(suffix)?
        .parse()
        .ok()
}

/// Reads into `buf` until it is full or the file ends; the bytes read.
fn read_up_to(file: &mut fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut read = 0;
    while read < buf.len() {
        match file.read(&mut buf[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(read)
}

/// Base posting lists written under a temporary name, opened: they
/// take their name when the generation that builds on them is written,
/// and are removed if it never is.
#[derive(Debug)]
pub(crate) struct NewBase {
    /// The temporary name (empty once renamed).
    tmp: PathBuf,
    generation: u64,
    /// The lists, read from the file.
    pub(crate) grams: Grams,
}

impl Drop for NewBase {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// A temporary name beside `path` of this write's own: two writers
/// (processes, or handles of one process) never rename each other's
/// half-written file.
fn temporary(path: &Path) -> PathBuf {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}-{n}", std::process::id()));
    PathBuf::from(tmp)
}

/// Writes `bytes` to `path` through a temporary name: synced, then
/// renamed over it, so `path` holds the old bytes or the new, whole.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temporary(path);
    let mut file = fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&tmp, path)
}
