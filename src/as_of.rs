//! `AsOf`: when the inputs were as an answer says they are, for an
//! answer that trusts an index without checking the inputs themselves.

use std::fmt;
use std::str::FromStr;

/// When the inputs were as an answer describes them: an answer that
/// trusts an index without checking the inputs says so, and as of when
/// (an index's record of a tree, read at that time, not compared with
/// the tree when asked). Inputs changed since may be missing from the
/// answer, or answered as they were.
///
/// An answer without it is about the inputs as they are when asked. On
/// the wire it is `"as_of"`, the time in RFC 3339, UTC, to the
/// millisecond: `"2026-12-03T11:05:00.123Z"`.
///
/// # Example
///
/// ```
/// use candor::AsOf;
/// let as_of = AsOf::from_unix_ms(1_764_759_900_123);
/// assert_eq!(as_of.to_string(), "2025-12-03T11:05:00.123Z");
/// assert_eq!("2025-12-03T11:05:00.123Z".parse::<AsOf>()?, as_of);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AsOf {
    unix_ms: u64,
}

/// The latest time written: the last millisecond of year 9999.
const MAX_MS: u64 = 253_402_300_799_999;

impl AsOf {
    /// The time `unix_ms` milliseconds after the Unix epoch (clamped to
    /// the year 9999, the last RFC 3339 can write).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::AsOf::from_unix_ms(0).to_string(), "1970-01-01T00:00:00.000Z");
    /// ```
    #[must_use]
    pub fn from_unix_ms(unix_ms: u64) -> AsOf {
        AsOf {
            unix_ms: unix_ms.min(MAX_MS),
        }
    }

    /// Milliseconds since the Unix epoch.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::AsOf::from_unix_ms(1500).unix_ms(), 1500);
    /// ```
    #[must_use]
    pub fn unix_ms(&self) -> u64 {
        self.unix_ms
    }
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a count of days since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

impl fmt::Display for AsOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.unix_ms % 1000;
        let secs = self.unix_ms / 1000;
        let (days, day_secs) = (secs / 86_400, secs % 86_400);
        let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(i64::MAX));
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            day_secs / 3600,
            day_secs / 60 % 60,
            day_secs % 60
        )
    }
}

/// A time that is not written as `AsOf` writes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidAsOf(String);

impl fmt::Display for InvalidAsOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "as_of {:?} is not a time such as \"2026-12-03T11:05:00.123Z\" (UTC, milliseconds)",
            self.0
        )
    }
}

impl std::error::Error for InvalidAsOf {}

impl FromStr for AsOf {
    type Err = InvalidAsOf;

    /// Reads a time as `AsOf` writes it (RFC 3339, UTC, milliseconds):
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, from 1970 on.
    fn from_str(text: &str) -> Result<AsOf, InvalidAsOf> {
        let bad = || InvalidAsOf(text.to_owned());
        let b = text.as_bytes();
        if b.len() != 24 || !text.is_ascii() {
            return Err(bad());
        }
        let at = |i: usize, c: u8| b[i] == c;
        if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':'))
            || !(at(16, b':') && at(19, b'.') && at(23, b'Z'))
        {
            return Err(bad());
        }
        let num = |from: usize, to: usize| -> Result<u32, InvalidAsOf> {
            let digits = &text[from..to];
            if !digits.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            digits.parse().map_err(|_| bad())
        };
        let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
        let (h, min, s, ms) = (num(11, 13)?, num(14, 16)?, num(17, 19)?, num(20, 23)?);
        let days_in = |y: u32, m: u32| match m {
            2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if y < 1970 || !(1..=12).contains(&m) || d == 0 || d > days_in(y, m) {
            return Err(bad());
        }
        if h > 23 || min > 59 || s > 59 {
            return Err(bad());
        }
        let days = u64::try_from(days_from_civil(i64::from(y), m, d)).map_err(|_| bad())?;
        let secs = days * 86_400 + u64::from(h * 3600 + min * 60 + s);
        Ok(AsOf {
            unix_ms: secs * 1000 + u64::from(ms),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{AsOf, MAX_MS};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_time_reads_back_as_it_was_written(ms in 0..=MAX_MS) {
            let as_of = AsOf::from_unix_ms(ms);
            let text = as_of.to_string();
            prop_assert_eq!(text.len(), 24);
            prop_assert_eq!(text.parse::<AsOf>(), Ok(as_of));
        }
    }

    #[test]
    fn known_dates_and_bad_text() {
        assert_eq!(
            AsOf::from_unix_ms(951_782_400_000).to_string(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            AsOf::from_unix_ms(u64::MAX).to_string(),
            "9999-12-31T23:59:59.999Z"
        );
        for bad in [
            "",
            "2000-02-30T00:00:00.000Z",
            "1900-02-28T00:00:00.000Z",
            "2000-02-28T24:00:00.000Z",
            "2000-02-28T00:00:00.000+01:00",
            "2000-02-28 00:00:00.000Z",
            "2000-02-28T00:00:00Z",
            "+000-02-28T00:00:00.000Z",
        ] {
            assert!(bad.parse::<AsOf>().is_err(), "{bad}");
        }
    }
}
