//! The check the fuzz corpus of trigram postings replays through: any
//! bytes decode to a clean error, or to postings whose candidates come
//! out in order, whatever the plan and the seeks.

use super::{Grams, table};
use crate::index::plan::Need;

/// Decodes arbitrary bytes as trigram postings: a clean error, or
/// postings whose candidates, for a few plans and seeks, come out
/// strictly ascending without a panic. The bytes are tried as they are,
/// and again with the checksum of each block of their trigram table
/// made to match (when their head reads), so that the checks behind the
/// checksums are reached too.
///
/// # Panics
///
/// When decoded postings yield candidates out of order.
pub(crate) fn fuzz_decode(bytes: &[u8]) {
    check_decoded(bytes);
    if let Some(fixed) = with_block_checksums(bytes) {
        check_decoded(&fixed);
    }
}

/// `bytes` (an encoding of postings) with the checksum of each block of
/// the table made to match the block, when the head reads and the table
/// is all there.
fn with_block_checksums(bytes: &[u8]) -> Option<Vec<u8>> {
    let (_, end, head) = Grams::decode_table(bytes).ok()?;
    // The blocks' references end the head: written again, with checksums
    // of the blocks as they are.
    let refs = end.checked_sub(head.blocks.len() * table::BLOCK_REF)?;
    let mut out = bytes[..refs].to_vec();
    for (b, block) in head.blocks.iter().enumerate() {
        let (from, to) = table::block_range(b, head.trigrams);
        let crc = crc32fast::hash(bytes.get(end + from..end + to)?);
        table::put_ref(&mut out, &table::GramBlockRef { crc, ..*block });
    }
    out.extend_from_slice(&bytes[end..]);
    Some(out)
}

fn check_decoded(bytes: &[u8]) {
    let Ok(grams) = Grams::decode(bytes) else {
        return;
    };
    let mut plans = vec![Need::Any];
    let mut keys = grams.keys.iter().copied();
    let mut gram = || {
        keys.next()
            .map(|k| Need::Gram([(k >> 16) as u8, (k >> 8) as u8, k as u8]))
    };
    if let (Some(a), Some(b)) = (gram(), gram()) {
        plans.push(a.clone());
        plans.push(Need::All(vec![a.clone(), b.clone()]));
        plans.push(Need::AnyOf(vec![a, b]));
    }
    for plan in &plans {
        let all: Vec<u32> = grams.candidates(plan).collect();
        assert!(
            all.windows(2).all(|w| w[0] < w[1]),
            "candidates out of order"
        );
        let mut c = grams.candidates(plan);
        if let Some(&mid) = all.get(all.len() / 2) {
            c.seek(mid);
            assert_eq!(c.next(), Some(mid));
            c.seek(0);
            assert_eq!(c.next(), all.first().copied());
        }
    }
}
