//! # tessera-lite
//!
//! The TFLite-style runtime layer of tessera: the model loader (and next the interpreter),
//! `no_std` with no allocator, so firmware links it with no `#[global_allocator]`. The C
//! library that mobile apps link lives beside it, in `tessera-capi` (`lite-runtime/capi`).
//!
//! With `std` (the default), [`dataset`] reads HugeCTR datasets (Norm, Raw, Parquet) from
//! files into `tessera-core`'s sample batches, and [`pipeline`] is the main job: the data
//! path end to end (decode with checksums, CSR batches, embedding-bag pooling), timed.
//! [`cursor_set`] reads one data source on several threads and hands the samples out in
//! the serial order (ML.NET's cursor sets over tessera's `SampleCursor`).
//!
//! Three parts of the model format are features, on by default (and with `std`), so that
//! firmware links only what its models use: `sparse` (sparse constants), `strings` (STRING
//! tensors) and `signatures` (`Model.signature_defs`). A build without one rejects a model
//! that needs it at load, with [`model::ErrorKind::Unsupported`] naming the feature
//! (signatures excepted: a model reads as having none).
#![cfg_attr(not(feature = "std"), no_std)]

#[cfg(feature = "std")]
pub mod buffers;
#[cfg(feature = "signatures")]
pub mod ctr;
#[cfg(feature = "std")]
pub mod cursor_set;
#[cfg(feature = "std")]
pub mod dataset;
pub mod interpreter;
pub mod model;
#[cfg(feature = "std")]
pub mod pipeline;
