//! What the reader reads a file from: any input that reads from a
//! position and can say what it is, how large, and when it last changed
//! (a file on disk; in tests, one that misbehaves).

#[cfg(feature = "tree")]
use std::fs::File;
use std::io;
#[cfg(feature = "tree")]
use std::io::{Seek as _, SeekFrom};
use std::time::SystemTime;

#[cfg(feature = "tree")]
use crate::confine::Kind;
use crate::position::Stamp;

/// What an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "tree"), allow(dead_code))]
pub(crate) enum InputKind {
    /// A regular file: read.
    File,
    /// A folder where a file was expected: unreadable.
    Folder,
    /// A FIFO, socket or device: skipped as `special`.
    Special,
}

/// What an input says of itself: its kind, its size (`0` for a size it
/// does not know, as in /proc: such an input is read to its end), when it
/// last changed, and its stamp. The reader compares the size and time
/// taken at the open with those once read; the stamp taken at the open is
/// the one a cursor into the input records (the text it points into is
/// the text of that version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub(crate) kind: InputKind,
    pub(crate) len: u64,
    pub(crate) modified: Option<SystemTime>,
    /// `None` for an input that has none (its corpus tells no stamps).
    pub(crate) stamp: Option<Stamp>,
}

/// An input the reader reads through its fixed buffer.
pub(crate) trait Input: Send {
    /// Reads into `buf` from the current position, as `io::Read::read`.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// Moves the position to `offset`.
    fn seek_to(&mut self, offset: u64) -> io::Result<()>;
    /// What the input is now.
    fn stat(&self) -> io::Result<Stat>;
}

/// An input as the reader holds it: a file as it is, or any other input
/// behind a box (in tests, one that misbehaves). A file, the input of
/// every search of a tree, then costs no allocation of its own.
pub(crate) enum AnyInput {
    /// A file of a tree, opened below its root.
    #[cfg(feature = "tree")]
    File(File),
    /// Any other input: in tests, one that misbehaves.
    #[cfg_attr(not(test), allow(dead_code))]
    Other(Box<dyn Input>),
}

impl Input for AnyInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            #[cfg(feature = "tree")]
            AnyInput::File(file) => Input::read(file, buf),
            AnyInput::Other(input) => input.read(buf),
        }
    }

    fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        match self {
            #[cfg(feature = "tree")]
            AnyInput::File(file) => file.seek_to(offset),
            AnyInput::Other(input) => input.seek_to(offset),
        }
    }

    fn stat(&self) -> io::Result<Stat> {
        match self {
            #[cfg(feature = "tree")]
            AnyInput::File(file) => Input::stat(file),
            AnyInput::Other(input) => input.stat(),
        }
    }
}

/// A file of a tree, opened below its root.
#[cfg(feature = "tree")]
impl Input for File {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        io::Read::read(self, buf)
    }

    fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        self.seek(SeekFrom::Start(offset)).map(|_| ())
    }

    /// One stat of the handle (`fstat`): the stamp is the file's as its
    /// tree takes it by name (`Tree::stamp`).
    fn stat(&self) -> io::Result<Stat> {
        let stat = crate::confine::stat_file(self)?;
        let kind = match stat.kind {
            Kind::File => InputKind::File,
            Kind::Dir => InputKind::Folder,
            Kind::Link | Kind::Special => InputKind::Special,
        };
        Ok(Stat {
            kind,
            len: stat.len,
            modified: stat.modified,
            stamp: Some(stat.stamp),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::ops::ControlFlow;
    use std::time::{Duration, SystemTime};

    use super::{AnyInput, Input, InputKind, Stat};
    use crate::SkipReason;
    use crate::reader::{Ended, FileRead, ReadRules};

    /// How a test input misbehaves once its first read is done.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum InjectedFault {
        None,
        /// It grows: more bytes than its size when opened.
        Grows,
        /// It shrinks: it ends before its size when opened.
        Shrinks,
        /// A read fails.
        FailsMidRead,
        /// Its time of change moves: rewritten with the same size.
        Restamped,
    }

    /// Bytes in memory, read a few at a time, that misbehave as `fault`
    /// says after the first read.
    struct Misbehaving {
        bytes: Vec<u8>,
        at: usize,
        reads: usize,
        fault: InjectedFault,
    }

    impl Input for Misbehaving {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.reads += 1;
            if self.reads > 1 {
                match self.fault {
                    InjectedFault::FailsMidRead => {
                        return Err(io::Error::other("the disk went away"));
                    }
                    InjectedFault::Shrinks => self.bytes.truncate(self.at),
                    InjectedFault::Grows => self.bytes.extend_from_slice(b"x grown\n"),
                    InjectedFault::None | InjectedFault::Restamped => {}
                }
            }
            let n = buf.len().min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }

        fn seek_to(&mut self, offset: u64) -> io::Result<()> {
            self.at = usize::try_from(offset).unwrap();
            Ok(())
        }

        fn stat(&self) -> io::Result<Stat> {
            let moved = self.fault == InjectedFault::Restamped && self.reads > 1;
            Ok(Stat {
                kind: InputKind::File,
                len: self.bytes.len() as u64,
                modified: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(moved))),
                stamp: None,
            })
        }
    }

    /// Reads `fault`'s input of 100 lines in blocks of 64 bytes: how the
    /// read ended, and the lines handed on.
    fn read_with(fault: InjectedFault) -> (Ended, Vec<u8>) {
        let input = Misbehaving {
            bytes: "line with x\n".repeat(100).into_bytes(),
            at: 0,
            reads: 0,
            fault,
        };
        let rules = ReadRules {
            block: 64,
            binary_prefix: 64,
            max_line: 256,
            max_file_size: None,
            as_text: false,
        };
        let Ok(mut read) = FileRead::open(AnyInput::Other(Box::new(input)), rules) else {
            panic!("not opened");
        };
        let mut seen = Vec::new();
        let ended = read.visit(&mut Vec::new(), &mut |chunk, at, _| {
            assert_eq!(at, seen.len() as u64, "chunks follow each other");
            seen.extend_from_slice(chunk);
            ControlFlow::Continue(())
        });
        (ended, seen)
    }

    #[test]
    fn an_input_that_misbehaves_while_read_is_cut_where_it_is_seen() {
        let whole = "line with x\n".repeat(100).into_bytes();
        let (ended, seen) = read_with(InjectedFault::None);
        assert!(matches!(ended, Ended::Whole(1200)), "{ended:?}");
        assert_eq!(seen, whole);
        for (fault, reason) in [
            (InjectedFault::Grows, SkipReason::Changed),
            (InjectedFault::Shrinks, SkipReason::Changed),
            (InjectedFault::FailsMidRead, SkipReason::Unreadable),
            (InjectedFault::Restamped, SkipReason::Changed),
        ] {
            let (ended, seen) = read_with(fault);
            // What was handed on is a prefix of whole lines of the input
            // as it was, and the read ends where the fault is seen.
            assert!(whole.starts_with(&seen), "{fault:?}");
            assert!(seen.is_empty() || seen.ends_with(b"\n"), "{fault:?}");
            match ended {
                Ended::Cut { at, reason: r, .. } => {
                    assert_eq!((at, r), (seen.len() as u64, reason), "{fault:?}");
                }
                Ended::Skip(r, _) => {
                    assert_eq!((r, seen.len()), (reason, 0), "{fault:?}");
                }
                other => panic!("{fault:?} ended as {other:?}"),
            }
        }
    }
}
