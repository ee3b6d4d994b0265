//! Cross-crate tests, benchmarks and the README's examples (compiled and run as doc tests).
#![doc = include_str!("../../README.md")]
