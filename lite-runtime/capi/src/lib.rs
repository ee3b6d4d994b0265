//! # tessera-capi
//!
//! tessera's C library (`libtessera.a` / `libtessera.so`, header `include/tessera.h`), kept
//! apart from `tessera-lite` so that crate stays a plain `no_std` library for firmware.
//! Every function is `extern "C"`, checks its pointers for null, never unwinds and never
//! allocates except where TensorFlow's own function would (`malloc` / `realloc`): LARGE
//! strings come from `malloc`, so C code may `free` them (or call `tessera_tstring_dealloc`)
//! exactly as it would TensorFlow's. `include/tessera.h` is generated from this crate by
//! cbindgen (the command is at the top of `cbindgen.toml`).

pub mod custom;
pub mod data;
pub mod interpreter;
pub mod status;
pub mod tensor;
pub mod tstring;

pub use status::TesseraStatus;
pub use tstring::{TesseraTString, TesseraTStringType};

#[cfg(test)]
mod tests;
