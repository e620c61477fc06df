//! Posting lists left in their file: a query reads the lists its plan
//! names (a seek and a read each), not the whole file.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::sync::{Arc, Mutex};

/// The file the lists are read from, and where their bytes start.
#[derive(Debug, Clone)]
pub(crate) struct Disk {
    file: Arc<Mutex<File>>,
    /// The offset of the first trigram's list in the file.
    data_at: u64,
    /// The length of the lists' bytes, end to end.
    data_len: u64,
}

impl PartialEq for Disk {
    fn eq(&self, other: &Disk) -> bool {
        Arc::ptr_eq(&self.file, &other.file) && self.data_at == other.data_at
    }
}

impl Eq for Disk {}

impl Disk {
    /// The lists of `file`, `data_len` bytes from `data_at` on.
    pub(crate) fn new(file: File, data_at: u64, data_len: u64) -> Disk {
        Disk {
            file: Arc::new(Mutex::new(file)),
            data_at,
            data_len,
        }
    }

    /// The length of the lists' bytes, end to end.
    pub(crate) fn data_len(&self) -> u64 {
        self.data_len
    }

    /// The `len` bytes at `from` within the lists' bytes.
    pub(crate) fn read(&self, from: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.seek(SeekFrom::Start(self.data_at + from))?;
        let mut out = vec![0; len];
        file.read_exact(&mut out)?;
        Ok(out)
    }
}
