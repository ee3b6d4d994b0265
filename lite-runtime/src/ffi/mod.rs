//! The C ABI. Every function is `extern "C"`, checks its pointers for null, never unwinds and
//! never allocates except where TensorFlow's own function would (`malloc` / `realloc`).
//! `include/tessera.h` is generated from this module by cbindgen.

pub mod status;
pub mod tensor;
pub mod tstring;

pub use status::TesseraStatus;
pub use tstring::{TesseraTString, TesseraTStringType};

#[cfg(test)]
mod tests;
