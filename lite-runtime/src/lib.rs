//! # tessera-lite
//!
//! tessera's TensorFlow Lite runtime: the model loader ([`model`]: a verified, zero-copy
//! reader of `.tflite` files, or one recognised by the seal made when the host checked it) and
//! the interpreter ([`interpreter`]: one caller arena, planned by tensor lifetimes, kernels
//! behind an op resolver). It is `no_std` and never allocates, so firmware links it with no
//! `#[global_allocator]`. Beside it: the C library mobile apps link (`tessera-capi`,
//! `lite-runtime/capi`), HugeCTR's data path (`tessera-data`, `lite-runtime/data`) and the
//! `tessera` program (`tessera-cli`, `lite-runtime/cli`).
//!
//! Three parts of the model format are features, on by default (and with `std`), so that
//! firmware links only what its models use: `sparse` (sparse constants), `strings` (STRING
//! tensors) and `signatures` (`Model.signature_defs`). A build without one rejects a model
//! that needs it at load, with [`model::ErrorKind::Unsupported`] naming the feature
//! (signatures excepted: a model reads as having none). `std` (the default) plans
//! [`Interpreter::required`](interpreter::Interpreter::required) on a heap table and picks
//! AVX2 kernel bodies at run time on x86.
#![cfg_attr(not(feature = "std"), no_std)]

pub mod interpreter;
pub mod model;
