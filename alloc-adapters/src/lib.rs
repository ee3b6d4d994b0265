//! # tessera-alloc
//!
//! Heap-backed adapters for [`tessera_core`]: the heaps behind LARGE strings, string tensors
//! that reuse their memory batch after batch, and ref-counted shared bytes for VIEW strings.
//! `no_std` + `alloc`, so it runs on firmware with a global allocator such as
//! `embedded-alloc` as well as on hosts.
//!
//! ## Which heap backs LARGE strings
//! [`DefaultHeap`] is [`CHeap`] (`malloc` / `realloc` / `free`) when the `c-heap` feature is
//! on, so C code holding a `TF_TString` may `free` a LARGE string as TensorFlow does;
//! `tessera-lite` turns it on for its C ABI. Without the feature it is [`RustHeap`], Rust's
//! global allocator, for targets with no C library. Both are always available by name.
//!
//! ```
//! use tessera_alloc::{HeapTString, StringTensor};
//! use tessera_core::tstring::TStringType;
//!
//! let s = HeapTString::from_bytes(b"longer than twenty-two bytes").unwrap();
//! assert_eq!(s.string_type(), TStringType::Large);
//!
//! let mut tensor = StringTensor::new();
//! tensor.push(b"a").unwrap();
//! tensor.push(s.as_bytes()).unwrap();
//! assert_eq!(tensor.get(1), Some(s.as_bytes()));
//! ```
#![no_std]

extern crate alloc;

mod arena;
mod heap;
mod owned_tensor;
mod shared;
mod sparse;
mod string_tensor;

pub use arena::{HeapArena, HeapBlock, VecSlots};
#[cfg(feature = "c-heap")]
pub use heap::CHeap;
pub use heap::{DefaultHeap, RustHeap};
pub use owned_tensor::{FromVecError, OwnedTensor};
pub use shared::SharedBytes;
pub use sparse::{OwnedVBuffer, VecBufferBuilder, VecStorage};
pub use string_tensor::StringTensor;

/// A `TF_TString` whose LARGE bytes come from [`DefaultHeap`].
pub type HeapTString<'a> = tessera_core::tstring::TString<'a, DefaultHeap>;
