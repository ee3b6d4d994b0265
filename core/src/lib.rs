//! # tessera-core
//!
//! The data that on-device inference moves around — strings, string tensors, sparse
//! vectors, tensors and views, arenas and their planner, HugeCTR's data path and ML.NET's row
//! cursors — laid over memory the caller provides. This crate is `#![no_std]` and never allocates: every structure borrows its
//! bytes, every capacity problem is an error that says how many bytes were needed, and every
//! parser validates once at the boundary and returns a typed error naming what and where.
//!
//! ## Modules
//! - [`tstring`]: TensorFlow's 24-byte, ABI-stable `TF_TString` (SMALL / LARGE / OFFSET /
//!   VIEW), byte-compatible on little- and big-endian hosts, plus portable OFFSET string
//!   arrays and heap-free preallocated string arrays.
//! - [`strings`]: TFLite string tensors (`int32 N`, `int32 offset[N + 1]`, bytes): a zero-copy
//!   checked view and an encoder into caller buffers.
//! - [`sparse`]: ML.NET's `VBuffer`: one vector type, sparse or dense, generic over borrowed,
//!   inline fixed-capacity or (in `tessera-alloc`) owned storage, with its editor, builder
//!   and math.
//! - [`memory`]: what adapters provide — a region of bytes of some kind (host, pinned, device,
//!   managed) — and aligned static regions.
//! - [`tensor`]: dense tensors of a dtype over caller memory (shape, strides, offset, rank up
//!   to 8 inline), a type-erased bag, and in-place work through writable views.
//! - [`view`]: Deeplearning4j's `CreateView`: views that share a tensor's buffer, with numpy
//!   basic-slicing semantics and DL4J's INT64 index encoding.
//! - [`arena`]: HugeCTR's reserve-then-allocate buffer: tensors and blocks placed over one
//!   caller region, 32-byte aligned, sized before allocating.
//! - [`plan`]: lifetime-aware placement (TFLite Micro's greedy planner) that overlaps buffers
//!   never alive together.
//! - [`cursor`]: ML.NET's row cursors: forward-only walks whose getters fill caller-owned
//!   values, 128-bit row ids with ML.NET's `fork` / `next` / `combine`, and serial, filter,
//!   one-to-many and seeded-shuffle cursors.
//! - [`data`]: HugeCTR's data path: Norm and Raw decoders fed as bytes arrive, samples in
//!   HugeCTR's CSR layout, embedding-bag pooling.
//! - [`npy`]: numpy's `.npy` files read in place and headers written into caller buffers.
//! - [`error`]: the capacity error shared by every writer.
//!
//! ## Example
//! ```
//! use tessera_core::strings::{TfliteStrings, encode_tflite, tflite_encoded_len};
//!
//! let words: [&[u8]; 3] = [b"AB", b"", b"CDE"];
//! let mut buf = [0u8; 64];
//! let used = encode_tflite(&words, &mut buf).unwrap();
//! assert_eq!(used, tflite_encoded_len(&words).unwrap());
//!
//! let view = TfliteStrings::new(&buf[..used]).unwrap();
//! assert_eq!(view.get(2), Some(&b"CDE"[..]));
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_auto_cfg))]

pub mod arena;
pub mod cursor;
pub mod data;
pub mod error;
pub mod memory;
pub mod npy;
pub mod plan;
pub mod sparse;
pub mod strings;
pub mod tensor;
pub mod tstring;
pub mod view;

pub use error::CapacityError;
