//! placeholder
#![allow(missing_docs)]
mod context;
mod error;
mod ffi;
pub mod memory;
pub mod staging;
pub use context::Gpu;
pub use error::GpuError;
