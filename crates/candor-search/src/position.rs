//! Positions in a corpus: a file's path as the corpus writes it, a place
//! in that file (a line start and its number when known, or past the
//! file's end), and what the corpus could tell of the file then (its
//! stamp). One type serves where a query resumes, where a budget stopped
//! it, where a file's search goes on, and the search cursor's key, which
//! is written and read back here (its wire form is fixed: see
//! [`Position::to_key`]).

use crate::Error;
use crate::{Cursor, Scope};

/// A place in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The start of a line: its byte offset, and its number (1-based)
    /// when known. A page resumed at a line whose number is known reads
    /// the file from there, not from its start.
    Line { offset: u64, number: Option<u64> },
    /// Past the file's end: nothing of it is left to search.
    End,
}

impl Place {
    /// The start of a file.
    pub(crate) const START: Place = Place::Line {
        offset: 0,
        number: None,
    };

    /// The start of the line at `offset`, numbered `number`.
    pub(crate) fn line(offset: u64, number: u64) -> Place {
        Place::Line {
            offset,
            number: Some(number),
        }
    }

    /// Past the file's start: a page that ends here counted some of the
    /// file (its items up to here, or all of them), so the file must
    /// still be one of the walk's when the page is resumed.
    pub(crate) fn is_past_start(self) -> bool {
        self == Place::End || self.is_inside()
    }

    /// Inside the file, past its start: a page resumed here reads on from
    /// an offset of the version it ended in.
    pub(crate) fn is_inside(self) -> bool {
        self.offset().is_some_and(|offset| offset > 0)
    }

    /// The byte offset of a line start; `None` past the file's end.
    pub(crate) fn offset(self) -> Option<u64> {
        match self {
            Place::Line { offset, .. } => Some(offset),
            Place::End => None,
        }
    }
}

/// What a stat of a file tells of its version, not yet hashed into the
/// stamp a cursor records (see `Source::stamp`): a search stats every
/// file it reads, and most of them end no page, so the hash is made only
/// for those that do. Hashed, the same fields give the same stamp whether
/// they came from the file's name or from its open handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    fields: [u64; Stamp::MAX_FIELDS],
    len: usize,
}

impl Stamp {
    /// The most fields a stamp holds.
    pub(crate) const MAX_FIELDS: usize = 7;

    /// The stamp of these fields; those past `MAX_FIELDS` are left out.
    #[cfg_attr(not(feature = "tree"), allow(dead_code))]
    pub(crate) fn of(fields: &[u64]) -> Stamp {
        let len = fields.len().min(Stamp::MAX_FIELDS);
        let mut stamp = Stamp {
            fields: [0; Stamp::MAX_FIELDS],
            len,
        };
        stamp.fields[..len].copy_from_slice(&fields[..len]);
        stamp
    }

    /// The stamp as a cursor records it: never 0, which stands for none.
    pub(crate) fn value(&self) -> u64 {
        mix(&self.fields[..self.len])
    }
}

/// Mixes numbers into one stamp (FNV-1a over their bytes; never 0, which
/// stands for "nothing there").
pub(crate) fn mix(parts: &[u64]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.to_le_bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash.max(1)
}

/// The files a walk passes before a position (see
/// `Source::order_before`), as a cursor records them: the wrapping sum
/// of their paths' hashes. A file added or removed before the position
/// changes it; a file whose content changed does not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Order(pub(crate) u64);

impl Order {
    /// Counts the file at `path` in.
    pub(crate) fn add(&mut self, path: &str) {
        self.0 = self.0.wrapping_add(path_hash(path));
    }

    /// Counts the file at `path` out (one counted in).
    pub(crate) fn remove(&mut self, path: &str) {
        self.0 = self.0.wrapping_sub(path_hash(path));
    }
}

/// A path's hash for `Order`: its fingerprint (FNV-1a, stable from build
/// to build, as cursors must be), spread by SplitMix64's finalizer so that
/// sums of hashes do not collide as sums of FNV values of similar paths
/// would.
fn path_hash(path: &str) -> u64 {
    let mut hash = crate::Fingerprint::of(path).as_u64();
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^ (hash >> 31)
}

/// A place in a file of the corpus, the file's stamp (what changes
/// when it changes, see `Source::stamp`; `None` when the corpus has
/// nothing to tell), and the files the walk passed before it (`None`
/// when not recorded: then a change before it is not noticed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) path: String,
    pub(crate) place: Place,
    pub(crate) stamp: Option<u64>,
    /// The files the walk passes before it.
    pub(crate) order: Option<Order>,
}

/// The key as a cursor holds it: the path, the offset (`u64::MAX` past
/// the file's end) and line number (`0` when not known), and the stamp's
/// eight bytes (`0` for none) followed by the order's eight, when
/// recorded. Fixed width, so that a cursor's length does
/// not depend on the stamp's value (nor the response's size on it).
/// Cursors issued by earlier versions (a stamp alone) decode to the same
/// positions, with no order.
type Key = (String, (u64, u64), Vec<u8>);

impl Position {
    /// The position in `path` at `place`, the file stamped `stamp`.
    pub(crate) fn new(path: &str, place: Place, stamp: Option<u64>) -> Position {
        Position {
            path: path.to_owned(),
            place,
            stamp,
            order: None,
        }
    }

    /// This position, with the files the walk passed before it.
    pub(crate) fn with_order(mut self, order: Option<Order>) -> Position {
        self.order = order;
        self
    }

    /// This position as a cursor's key (see `Key`).
    fn to_key(&self) -> Key {
        let (offset, line) = match self.place {
            Place::Line { offset, number } => (offset, number.unwrap_or(0)),
            Place::End => (u64::MAX, 0),
        };
        let mut marks = self.stamp.unwrap_or(0).to_le_bytes().to_vec();
        if let Some(order) = self.order {
            marks.extend_from_slice(&order.0.to_le_bytes());
        }
        (self.path.clone(), (offset, line), marks)
    }

    /// The cursor of `scope` that resumes here.
    pub(crate) fn to_cursor(&self, scope: &Scope) -> Cursor {
        scope.cursor(&self.to_key(), 0)
    }

    /// Reads a search cursor of `scope`: where it resumes.
    ///
    /// # Errors
    ///
    /// Those of [`Scope::resume`], and a malformed cursor whose stamp is
    /// not one.
    pub(crate) fn of_cursor(scope: &Scope, cursor: &Cursor) -> Result<Position, Error> {
        let (path, (offset, line), marks): Key = scope.resume(cursor)?;
        let word = |at: usize| -> Option<u64> {
            let bytes = marks.get(at..at + 8)?;
            Some(u64::from_le_bytes(bytes.try_into().ok()?))
        };
        let (stamp, order) = match (marks.len(), word(0), word(8)) {
            (8, Some(stamp), _) => (stamp, None),
            (16, Some(stamp), Some(order)) => (stamp, Some(Order(order))),
            _ => return Err(Error::malformed_cursor("its stamp is not 8 or 16 bytes")),
        };
        let place = match offset {
            u64::MAX => Place::End,
            offset => Place::Line {
                offset,
                number: (line > 0).then_some(line),
            },
        };
        Ok(Position {
            path,
            place,
            stamp: (stamp != 0).then_some(stamp),
            order,
        })
    }
}
