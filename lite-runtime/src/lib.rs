//! # tessera-lite
//!
//! The TFLite-style runtime layer of tessera. For now it holds the C ABI that mobile apps link
//! (`staticlib` / `cdylib`, header `include/tessera.h`): TensorFlow's C string API on the same
//! 24-byte `TF_TString`, and TFLite string-tensor encode / decode over caller buffers. The model
//! loader and interpreter land here next.
//!
//! With `std` (the default), [`cursor_set`] reads one data source on several threads and
//! hands the samples out in the serial order (ML.NET's cursor sets over tessera's
//! `SampleCursor`).
//!
//! LARGE strings made through the C ABI come from `malloc`, so C code may `free` them (or
//! call `tessera_tstring_dealloc`) exactly as it would TensorFlow's.
#![cfg_attr(not(feature = "std"), no_std)]

#[cfg(feature = "std")]
pub mod cursor_set;
pub mod ffi;
