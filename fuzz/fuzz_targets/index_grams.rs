//! Fuzz target `index_grams`: arbitrary bytes as the base's encoded
//! posting lists of an index, opened and queried through the public API
//! (see `check_postings` in `checks/index.rs`, which the test suite also
//! runs on every file of `corpus/index_grams/`).
#![no_main]

#[allow(dead_code)]
#[path = "../checks/index.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check_postings(data);
});
