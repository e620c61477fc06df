//! Fuzz target `index_grams`: arbitrary bytes decoded as an index's
//! trigram postings give a clean error, or postings whose candidates come
//! out in order without a panic (`candor_search::__index_hooks::fuzz_decode`,
//! which the crate's tests also run on every file of
//! `corpus/index_grams/`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| candor_search::__index_hooks::fuzz_decode(data));
