//! Fuzz target `excerpt`: see `checks/excerpt.rs`, which the test suite also runs
//! on every file of `corpus/excerpt/`.
#![no_main]

#[path = "../checks/excerpt.rs"]
mod check;
#[path = "../checks/oracle.rs"]
#[allow(dead_code)] // each check uses part of the oracle
mod oracle;
#[path = "../checks/pages.rs"]
mod pages;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
