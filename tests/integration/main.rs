//! The integration tests: one binary (`autotests = false`), one module per
//! area.

mod core_errors;
mod core_props;
mod core_support;
mod core_wire;
