//! Bytes left in their file: a query reads the parts it needs (the
//! posting lists its plan names, the blocks of entries it visits), one
//! positioned read each, not the whole file. A window of a file, or of
//! bytes in memory (an index of nothing, or one being checked).

use std::fs::File;
use std::sync::Arc;

/// Where the bytes are: a file, or memory.
#[derive(Debug, Clone)]
enum Bytes {
    File(Arc<SharedFile>),
    Memory(Arc<[u8]>),
}

/// A file read by several threads at once.
#[derive(Debug)]
struct SharedFile {
    file: File,
    /// Elsewhere than on unix a read is a seek and a read: one at a time.
    #[cfg(not(unix))]
    lock: std::sync::Mutex<()>,
}

/// A window of bytes: `data_len` bytes from `data_at` on.
#[derive(Debug, Clone)]
pub(crate) struct Disk {
    bytes: Bytes,
    /// The offset of the window in the file.
    data_at: u64,
    /// The length of the window.
    data_len: u64,
}

impl PartialEq for Disk {
    fn eq(&self, other: &Disk) -> bool {
        let same = match (&self.bytes, &other.bytes) {
            (Bytes::File(a), Bytes::File(b)) => Arc::ptr_eq(a, b),
            (Bytes::Memory(a), Bytes::Memory(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        same && self.data_at == other.data_at && self.data_len == other.data_len
    }
}

impl Eq for Disk {}

impl Disk {
    /// The bytes of `file` from `data_at` on, `data_len` of them.
    pub(crate) fn new(file: File, data_at: u64, data_len: u64) -> Disk {
        Disk {
            bytes: Bytes::File(Arc::new(SharedFile {
                file,
                #[cfg(not(unix))]
                lock: std::sync::Mutex::new(()),
            })),
            data_at,
            data_len,
        }
    }

    /// `bytes`, in memory.
    pub(crate) fn memory(bytes: Vec<u8>) -> Disk {
        let data_len = bytes.len() as u64;
        Disk {
            bytes: Bytes::Memory(bytes.into()),
            data_at: 0,
            data_len,
        }
    }

    /// The window of `len` bytes at `at` within this one (cut to its end).
    pub(crate) fn window(&self, at: u64, len: u64) -> Disk {
        let at = at.min(self.data_len);
        Disk {
            bytes: self.bytes.clone(),
            data_at: self.data_at + at,
            data_len: len.min(self.data_len - at),
        }
    }

    /// The length of the window.
    pub(crate) fn data_len(&self) -> u64 {
        self.data_len
    }

    /// The `len` bytes at `from` within the window.
    ///
    /// # Errors
    ///
    /// `UnexpectedEof` when they lie past the window's end (or the
    /// file's), and the file's read errors.
    pub(crate) fn read(&self, from: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let end = from.checked_add(len as u64);
        if end.is_none_or(|end| end > self.data_len) {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let at = self.data_at + from;
        match &self.bytes {
            Bytes::Memory(bytes) => {
                let at = usize::try_from(at).map_err(|_| std::io::ErrorKind::UnexpectedEof)?;
                bytes
                    .get(at..at + len)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| std::io::ErrorKind::UnexpectedEof.into())
            }
            Bytes::File(shared) => {
                let mut out = vec![0; len];
                read_at(shared, &mut out, at)?;
                Ok(out)
            }
        }
    }
}

#[cfg(unix)]
fn read_at(shared: &SharedFile, buffer: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(&shared.file, buffer, at)
}

#[cfg(not(unix))]
fn read_at(shared: &SharedFile, buffer: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let _one = shared.lock.lock().unwrap_or_else(|p| p.into_inner());
    let mut file = &shared.file;
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buffer)
}

#[cfg(test)]
mod tests {
    use super::Disk;

    #[test]
    fn a_window_reads_within_itself_and_never_past_it() {
        let disk = Disk::memory((0..100u8).collect());
        let window = disk.window(10, 20);
        assert_eq!(window.data_len(), 20);
        assert_eq!(window.read(0, 3).unwrap(), [10, 11, 12]);
        assert_eq!(window.read(17, 3).unwrap(), [27, 28, 29]);
        assert!(window.read(18, 3).is_err());
        assert!(window.read(u64::MAX, 1).is_err());
        assert_eq!(disk.window(90, 50).data_len(), 10, "cut to the end");
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &(0..100u8).collect::<Vec<_>>()).unwrap();
        let on_disk = Disk::new(file, 5, 50).window(10, 20);
        assert_eq!(on_disk.read(0, 3).unwrap(), [15, 16, 17]);
        assert!(on_disk.read(19, 2).is_err());
    }
}
