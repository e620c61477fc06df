//! Fuzz target `index`: see `checks/index.rs`, which the test suite also runs
//! on every file of `corpus/index/`.
#![no_main]

// `check_postings` is the `index_grams` target's.
#[allow(dead_code)]
#[path = "../checks/index.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
