//! # tessera-core
//!
//! The data that on-device inference moves around — strings, string tensors and (in later
//! modules) sparse vectors, views, arenas and row cursors — laid over memory the caller
//! provides. This crate is `#![no_std]` and never allocates: every structure borrows its
//! bytes, every capacity problem is an error that says how many bytes were needed, and every
//! parser validates once at the boundary and returns a typed error naming what and where.
//!
//! ## Modules
//! - [`tstring`]: TensorFlow's 24-byte, ABI-stable `TF_TString` (SMALL / LARGE / OFFSET /
//!   VIEW), byte-compatible on little- and big-endian hosts, plus portable OFFSET string
//!   arrays and heap-free preallocated string arrays.
//! - [`strings`]: TFLite string tensors (`int32 N`, `int32 offset[N + 1]`, bytes): a zero-copy
//!   checked view and an encoder into caller buffers.
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

pub mod error;
pub mod strings;
pub mod tstring;

pub use error::CapacityError;
