//! Shared data shapes for the benchmarks.
