//! The benchmarks of candor's search and index: see `benches/`.
