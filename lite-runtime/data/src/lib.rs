//! # tessera-data
//!
//! HugeCTR's data path on tessera, beside the model runtime (`tessera-lite`):
//!
//! - [`dataset`]: HugeCTR datasets on disk (file lists; Norm and Raw files over memory maps
//!   or buffered reads; Parquet) read into `tessera-core`'s
//!   [`SampleBatch`](tessera_core::data::SampleBatch)es, whole or one rank's shard, and the
//!   Parquet → Norm converter.
//! - [`cursor_set`]: one data source read by several threads at once and handed out in the
//!   serial order (ML.NET's cursor sets over tessera's `SampleCursor`).
//! - [`buffers`]: what both use: owned batch memory ([`BatchBuffers`](buffers::BatchBuffers))
//!   and the memory budget every size from a file or an argument is checked against.
//! - [`pipeline`]: the main job: a Norm file decoded with checksums into CSR batches, pooled
//!   over an embedding table and fed to a CTR model, timed and checked against reference
//!   predictions; its inputs are arguments (the `tessera` program reads its demo files).
//! - [`ctr`]: the CTR model's inputs from a CSR batch, with no copy and no allocation.
//!
//! Everything but [`ctr`] needs the `std` feature (the default): files, threads, Parquet.
//! Without it the crate is `#![no_std]`, allocates nothing, and holds [`ctr`] alone, which
//! firmware links to feed the model from batches it decodes itself.
#![cfg_attr(not(feature = "std"), no_std)]

#[cfg(feature = "std")]
pub mod buffers;
pub mod ctr;
#[cfg(feature = "std")]
pub mod cursor_set;
#[cfg(feature = "std")]
pub mod dataset;
#[cfg(feature = "std")]
pub mod pipeline;
