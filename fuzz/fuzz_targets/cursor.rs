//! Fuzz target `cursor`: see `checks/cursor.rs`, which the test suite also runs
//! on every file of `corpus/cursor/`.
#![no_main]

#[path = "../checks/cursor.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
