//! What the search-engine adapters (`opensearch`, `zoekt`) share: a page
//! whose items are a subset, fitted to the byte budget; skips counted in
//! bulk; and reading numbers out of a response.

mod subset;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::Error;
use crate::{SKIPPED_SAMPLE_LEN, SkipReason, Skipped, SkippedInput};

pub(crate) use subset::SubsetPage;

/// A response that cannot be read as the engine documents it.
pub(crate) fn response_error(reason: impl Into<String>) -> Error {
    Error::invalid_argument("response", reason)
}

/// `count` skips of one `reason`, of one kind, without recording them one
/// at a time: a response can claim any count. `sample` names some of
/// them (at most the sample's bound is kept, and never more than `count`).
pub(crate) fn bulk_skips(
    reason: &SkipReason,
    count: u64,
    error: bool,
    sample: impl IntoIterator<Item = String>,
) -> Skipped {
    if count == 0 {
        return Skipped::new();
    }
    let limit = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .min(SKIPPED_SAMPLE_LEN);
    let sample = sample
        .into_iter()
        .take(limit)
        .map(|path| SkippedInput::from_wire(path, reason.clone(), error))
        .collect();
    let by_reason = BTreeMap::from([(reason.clone(), count)]);
    let errors = if error {
        by_reason.clone()
    } else {
        BTreeMap::new()
    };
    Skipped::from_parts(count, by_reason, errors, sample)
}

/// A count the engine reports: absent, negative, fractional or not a
/// number reads as `None`.
pub(crate) fn count_at(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

/// Cuts `text` to at most `max` bytes, at a character boundary, marking
/// the cut: an engine's error message can be of any length.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub(3);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_skips_are_a_valid_record() {
        let reason = SkipReason::other("shard_failure").expect("a name");
        for (count, error) in [(1, true), (3, false), (u64::MAX, true)] {
            let skipped = bulk_skips(&reason, count, error, (0..9).map(|n| format!("s{n}")));
            assert_eq!(skipped.check(), Ok(()));
            assert_eq!(skipped.total(), count);
            assert_eq!(skipped.has_errors(), error);
            assert!(skipped.sample().len() as u64 <= count.min(SKIPPED_SAMPLE_LEN as u64));
        }
        assert!(bulk_skips(&reason, 0, true, ["x".to_owned()]).is_empty());
    }

    #[test]
    fn clip_keeps_characters_whole() {
        assert_eq!(clip("short", 10), "short");
        let clipped = clip(&"é".repeat(50), 10);
        assert!(clipped.len() <= 10 && clipped.ends_with("..."), "{clipped}");
    }
}
