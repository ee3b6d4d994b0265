//! # tessera-lite
//!
//! The TFLite-style runtime layer of tessera. For now it holds the C ABI that mobile apps link
//! (`staticlib` / `cdylib`, header `include/tessera.h`): TensorFlow's C string API on the same
//! 24-byte `TF_TString`, and TFLite string-tensor encode / decode over caller buffers. The model
//! loader and interpreter land here next.
//!
//! With `std` (the default), [`dataset`] reads HugeCTR datasets (Norm, Raw, Parquet) from
//! files into `tessera-core`'s sample batches, and [`pipeline`] is the main job: the data
//! path end to end (decode with checksums, CSR batches, embedding-bag pooling), timed.
//! [`cursor_set`] reads one data source on several threads and hands the samples out in
//! the serial order (ML.NET's cursor sets over tessera's `SampleCursor`).
//!
//! LARGE strings made through the C ABI come from `malloc`, so C code may `free` them (or
//! call `tessera_tstring_dealloc`) exactly as it would TensorFlow's.
#![cfg_attr(not(feature = "std"), no_std)]

#[cfg(feature = "std")]
pub mod cursor_set;
#[cfg(feature = "std")]
pub mod dataset;
pub mod ffi;
#[cfg(feature = "std")]
pub mod pipeline;
