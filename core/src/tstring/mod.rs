//! TensorFlow's ABI-stable string, `TF_TString`, and arrays of them.
//!
//! A [`TString`] is 24 bytes with the same layout as TensorFlow's C struct on every target,
//! little- and big-endian alike (the layout is asserted at compile time):
//!
//! | type | fields (byte offset on 64-bit) |
//! | --- | --- |
//! | SMALL | `u8 size` @0 (`len << 2`), `str[23]` @1, NUL-terminated |
//! | LARGE | `size_t size` @0, `size_t cap` @8, `char *ptr` @16 |
//! | OFFSET | little-endian `u32 size` @0, `u32 offset` @4, `u32 count` @8 |
//! | VIEW | `size_t size` @0, `const char *ptr` @8, owner @16 |
//!
//! The type tag is the low two bits of byte 0. LARGE and VIEW sizes are packed as TensorFlow
//! packs them (`len << 2 | type` on little-endian hosts; on big-endian hosts only the top
//! byte is shifted); OFFSET fields are little-endian everywhere, which is what makes an array
//! of them portable and memory-mappable.
//!
//! - [`TString`]: an owned value with TensorFlow's resize / reserve / copy / assign rules. It
//!   is generic over a [`StringHeap`]; with the default [`NoHeap`] it is SMALL or VIEW only
//!   and never allocates.
//! - [`OffsetStrings`]: a checked, zero-copy reader (and writer) of OFFSET string arrays inside
//!   a caller's byte buffer.
//! - [`PreallocStrings`]: the RFC's PREALLOC idea without a heap: long strings live in one
//!   caller region, referenced by VIEWs that C never frees, and are rewritten in place.

mod convert;
// TensorFlow's C string functions over pointers: what the C library (`tessera-capi`) exports.
// Public so that crate can reach them, hidden because Rust code has `TString`'s safe methods.
#[doc(hidden)]
pub mod ctstring;
mod heap;
mod offset;
mod owner;
mod prealloc;
mod repr;
mod string;

pub use convert::views_of_tflite;
pub use heap::{NoHeap, StringHeap};
pub use offset::{OffsetError, OffsetStrings, OffsetStringsIter};
pub use owner::TStringOwner;
pub use prealloc::{PreallocError, PreallocStrings};
pub use repr::{MAX_LEN, MAX_OFFSET_LEN, SMALL_CAPACITY, TStringType};
pub use string::{TString, TStringError};

#[cfg(test)]
mod tests;
