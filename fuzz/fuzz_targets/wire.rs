//! Fuzz target `wire`: see `checks/wire.rs`, which the test suite also runs
//! on every file of `corpus/wire/`.
#![no_main]

#[path = "../checks/wire.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
