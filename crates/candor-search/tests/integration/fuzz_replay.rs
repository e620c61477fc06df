//! The fuzz targets' checks (`fuzz/checks/`), run on stable: every file of
//! `fuzz/corpus/<target>/` (the minimized corpus the fuzzers left, and
//! the inputs of the bugs they found) replays through the same check, and
//! random inputs from proptest run through it as well.

use proptest::prelude::*;
use proptest::test_runner::Config;

// The checks' shared modules, which they name as `super::oracle` and
// `super::pages`.
use crate::{oracle, pages};

#[path = "../../../../fuzz/checks/cursor.rs"]
mod cursor;
#[path = "../../../../fuzz/checks/excerpt.rs"]
mod excerpt;
#[cfg(feature = "index")]
#[path = "../../../../fuzz/checks/index.rs"]
mod index;
#[path = "../../../../fuzz/checks/opensearch.rs"]
mod opensearch;
#[path = "../../../../fuzz/checks/search.rs"]
mod search;
#[path = "../../../../fuzz/checks/wire.rs"]
mod wire;

/// Runs `check` on every file of the target's corpus, naming the file of
/// a failure; the corpus must not be empty.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join("corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no corpus", dir.display());
    for file in files {
        let data = std::fs::read(&file).expect("a corpus file");
        if let Err(panic) = std::panic::catch_unwind(|| check(&data)) {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            panic!("{}: {message}", file.display());
        }
    }
}

#[test]
fn cursor_corpus_replays() {
    replay("cursor", cursor::check);
}

#[test]
fn wire_corpus_replays() {
    replay("wire", wire::check);
}

#[test]
fn search_corpus_replays() {
    replay("search", search::check);
}

#[test]
fn excerpt_corpus_replays() {
    replay("excerpt", excerpt::check);
}

#[cfg(feature = "index")]
#[test]
fn index_corpus_replays() {
    replay("index", |data| {
        index::check(data);
    });
    // The saved inputs that are sound indexes still open: an index
    // format that changes without them leaves the corpus refused at the
    // door, its decoders unreached.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/index");
    for name in [
        "manifest-plain",
        "manifest-delta",
        "base-empty",
        "base-one-file",
    ] {
        let data = std::fs::read(dir.join(name)).expect("a corpus file");
        assert!(index::check(&data), "{name} no longer opens");
    }
}

/// The saved inputs of the `index_grams` target, each the base's posting
/// lists of an index opened and queried; some of them are sound
/// postings of the files the index lists, and open.
#[cfg(feature = "index")]
#[test]
fn index_grams_corpus_replays() {
    replay("index_grams", |data| {
        index::check_postings(data);
    });
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/index_grams");
    let opened = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|entry| std::fs::read(entry.expect("a corpus entry").path()).expect("a corpus file"))
        .filter(|data| index::check_postings(data))
        .count();
    assert!(opened >= 1, "no saved input opens");
}

#[test]
fn opensearch_corpus_replays() {
    replay("opensearch", opensearch::check);
}

proptest! {
    #![proptest_config(Config { cases: 256, failure_persistence: None, ..Config::default() })]

    /// Random inputs pass every check too, without a fuzzer.
    #[test]
    fn random_inputs_pass_the_checks(data in prop::collection::vec(any::<u8>(), 0..120)) {
        cursor::check(&data);
        wire::check(&data);
        search::check(&data);
        excerpt::check(&data);
        #[cfg(feature = "index")]
        let _ = index::check(&data);
        #[cfg(feature = "index")]
        let _ = index::check_postings(&data);
    }
}

proptest! {
    #![proptest_config(Config { cases: 256, failure_persistence: None, ..Config::default() })]

    /// The corpus's responses, mutated a byte at a time, pass the
    /// `opensearch` check too.
    #[test]
    fn mutated_responses_pass_the_opensearch_check(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/opensearch");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the corpus")
            .map(|entry| entry.expect("a corpus entry").path())
            .collect();
        files.sort();
        let mut data = std::fs::read(pick.get(&files)).expect("a corpus file");
        let i = at.index(data.len());
        data[i] = byte;
        opensearch::check(&data);
    }
}
