//! One request line read with a cap on what is held, and the id of a
//! line too long to hold, found as it streams past.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What reading one line of input gave.
pub(super) enum ReadOutcome {
    /// A line, in the buffer (with its line ending).
    Read,
    /// A line longer than the cap: read to its end, but not kept; `id` is
    /// its top-level `"id"`, or `null` when none could be read.
    TooLong {
        /// The request's id, or `null`.
        id: Value,
    },
    /// The end of the input (or a read error).
    End,
}

/// Reads the next line into `raw`, holding at most `max` bytes of it and
/// its line ending (`\n` or `\r\n`); a longer line is read to its end
/// without being held, its id found on the way.
pub(super) async fn read_line(
    input: &mut (impl AsyncBufRead + Unpin),
    raw: &mut Vec<u8>,
    max: usize,
) -> ReadOutcome {
    raw.clear();
    let mut scan: Option<IdScan> = None;
    loop {
        let Ok(buffer) = input.fill_buf().await else {
            return ReadOutcome::End;
        };
        if buffer.is_empty() {
            if scan.is_none() && raw.is_empty() {
                return ReadOutcome::End;
            }
            // The last line has no line ending.
            return verdict(raw, scan, max);
        }
        let end = memchr_newline(buffer);
        let taken = end.map_or(buffer.len(), |at| at + 1);
        match &mut scan {
            Some(scan) => scan.feed(&buffer[..taken]),
            None if raw.len() + taken > max.saturating_add(2) => {
                let mut started = IdScan::new();
                started.feed(raw);
                started.feed(&buffer[..taken]);
                scan = Some(started);
                *raw = Vec::new();
            }
            None => raw.extend_from_slice(&buffer[..taken]),
        }
        input.consume(taken);
        if end.is_some() {
            return verdict(raw, scan, max);
        }
    }
}

fn memchr_newline(haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == b'\n')
}

/// A whole line read: held, or too long (its content, without the line
/// ending, is over `max`).
fn verdict(raw: &[u8], scan: Option<IdScan>, max: usize) -> ReadOutcome {
    if let Some(scan) = scan {
        return ReadOutcome::TooLong { id: scan.id() };
    }
    let content = raw.strip_suffix(b"\n").unwrap_or(raw);
    let content = content.strip_suffix(b"\r").unwrap_or(content);
    if content.len() > max {
        let mut scan = IdScan::new();
        scan.feed(raw);
        return ReadOutcome::TooLong { id: scan.id() };
    }
    ReadOutcome::Read
}

/// The most bytes of an id kept: an id is a number or a short string.
const MAX_ID: usize = 1024;

/// Where the scan is in the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScanAt {
    /// Before the object's `{`.
    Start,
    /// Where a key (or the object's end) comes.
    Key,
    /// Inside a key's string.
    InKey,
    /// Between a key and its `:`.
    Colon,
    /// Where a value comes, or inside it.
    Value,
    /// Done: the id is found, or the line has none that can be read.
    Done,
}

/// Finds the top-level `"id"` of a JSON-RPC message fed in pieces,
/// holding only a few bytes: the line need not be held, nor be valid JSON
/// past the id.
pub(crate) struct IdScan {
    place: ScanAt,
    /// Nesting below the top-level object (in `Value`).
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The key read (its first 3 bytes; only `id` matters).
    key: Vec<u8>,
    key_len: usize,
    /// The id's bytes, while the value is the id's.
    value: Option<Vec<u8>>,
    id: Value,
}

impl IdScan {
    pub(crate) fn new() -> IdScan {
        IdScan {
            place: ScanAt::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            key: Vec::new(),
            key_len: 0,
            value: None,
            id: Value::Null,
        }
    }

    /// The id found: a number or a string, else `null`.
    pub(crate) fn id(self) -> Value {
        self.id
    }

    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.place == ScanAt::Done {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        let blank = matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        match self.place {
            ScanAt::Start if blank => {}
            ScanAt::Start if b == b'{' => self.place = ScanAt::Key,
            ScanAt::Key if blank || b == b',' => {}
            ScanAt::Key if b == b'"' => {
                self.key.clear();
                self.key_len = 0;
                self.escaped = false;
                self.place = ScanAt::InKey;
            }
            ScanAt::InKey => {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.place = ScanAt::Colon;
                    return;
                }
                self.key_len += 1;
                if self.key.len() < 3 {
                    self.key.push(b);
                }
            }
            ScanAt::Colon if blank => {}
            ScanAt::Colon if b == b':' => {
                self.place = ScanAt::Value;
                self.depth = 0;
                self.in_string = false;
                self.escaped = false;
                let is_id = self.key_len == 2 && self.key == b"id";
                self.value = is_id.then(Vec::new);
            }
            ScanAt::Value => self.value_byte(b),
            // Not an object, a key without its colon, or the object's end:
            // no id can be read past this.
            _ => self.place = ScanAt::Done,
        }
    }

    /// A byte of a value: kept if it is the id's, and the value's end
    /// (a `,` or the object's `}` outside strings and nesting) noted.
    fn value_byte(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
        } else {
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if self.depth > 0 => self.depth -= 1,
                b',' | b'}' if self.depth == 0 => {
                    self.end_value(b == b'}');
                    return;
                }
                _ => {}
            }
        }
        if let Some(value) = &mut self.value {
            if value.len() == MAX_ID {
                self.place = ScanAt::Done;
                return;
            }
            value.push(b);
        }
    }

    fn end_value(&mut self, object_ended: bool) {
        if let Some(value) = self.value.take() {
            if let Ok(id @ (Value::Number(_) | Value::String(_))) =
                serde_json::from_slice::<Value>(&value)
            {
                self.id = id;
            }
            self.place = ScanAt::Done;
        } else if object_ended {
            self.place = ScanAt::Done;
        } else {
            self.place = ScanAt::Key;
        }
    }
}
