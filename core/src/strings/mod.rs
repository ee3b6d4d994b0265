//! TFLite string tensors: `int32 N`, `int32 offset[N + 1]`, then the string bytes, all
//! little-endian. A zero-copy checked view ([`TfliteStrings`]) and an encoder into caller buffers.
//!
//! The view validates once, at the boundary, and then slices without re-checking (the smoltcp
//! `new_checked` pattern); the encoder is sized first with [`tflite_encoded_len`], then writes
//! with [`encode_tflite`]. Neither allocates nor panics on any input.
//!
//! ```
//! use tessera_core::strings::{TfliteStrings, encode_tflite, tflite_encoded_len};
//!
//! let words = ["AB", "", "CDE"];
//! let mut buf = [0u8; 25];
//! assert_eq!(tflite_encoded_len(words), Ok(buf.len()));
//! encode_tflite(words, &mut buf).unwrap();
//! assert_eq!(buf[..4], 3i32.to_le_bytes());
//!
//! let view = TfliteStrings::new(&buf).unwrap();
//! assert!(view.iter().eq(words.map(str::as_bytes)));
//! ```

mod encode;
mod error;
mod view;

pub use encode::{encode_tflite, tflite_encoded_len};
pub use error::{StringTensorError, TfliteEncodeError};
pub use view::{TfliteIter, TfliteStrings};

/// `["AB", "", "CDE"]`, the example of the layout notes, byte for byte.
#[cfg(test)]
const EXAMPLE: [u8; 25] = [
    0x03, 0, 0, 0, 0x14, 0, 0, 0, 0x16, 0, 0, 0, 0x16, 0, 0, 0, 0x19, 0, 0, 0, b'A', b'B', b'C',
    b'D', b'E',
];

#[cfg(test)]
mod tests;
