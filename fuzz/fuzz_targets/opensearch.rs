//! Fuzz target `opensearch`: see `checks/opensearch.rs`, which the test
//! suite also runs on every file of `corpus/opensearch/`.
#![no_main]

#[path = "../checks/opensearch.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
