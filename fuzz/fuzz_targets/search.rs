//! Fuzz target `search`: see `checks/search.rs`, which the test suite also runs
//! on every file of `corpus/search/`.
#![no_main]

#[path = "../checks/search.rs"]
mod check;
#[path = "../checks/oracle.rs"]
#[allow(dead_code)] // each check uses part of the oracle
mod oracle;
#[path = "../checks/pages.rs"]
mod pages;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
