//! A reader of FlexBuffers (`flatbuffers/flexbuffers.h`), the schema-less format of a custom
//! operator's `custom_options`: maps, vectors, scalars, strings and blobs, read in place with
//! every offset and width checked against the buffer, so a malformed buffer reads as an error
//! or `None`, never out of bounds. `no_std`, nothing allocated.
//!
//! ```
//! use tessera_lite::model::FlexValue;
//!
//! // {"max_detections": 10, "nms_iou_threshold": 0.5} as flexbuffers.Dumps writes it.
//! let bytes = [
//!     109, 97, 120, 95, 100, 101, 116, 101, 99, 116, 105, 111, 110, 115, 0, 110, 109, 115, 95,
//!     105, 111, 117, 95, 116, 104, 114, 101, 115, 104, 111, 108, 100, 0, 2, 34, 20, 2, 0, 0,
//!     0, 1, 0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 63, 6, 14, 10, 38, 1,
//! ];
//! let options = FlexValue::root(&bytes)?.as_map().unwrap();
//! assert_eq!(options.get("max_detections").and_then(|v| v.as_i64()), Some(10));
//! assert_eq!(options.get("nms_iou_threshold").and_then(|v| v.as_f64()), Some(0.5));
//! assert!(options.get("absent").is_none());
//! # Ok::<(), tessera_lite::model::FlexError>(())
//! ```

use core::fmt;

/// Why a buffer is not a FlexBuffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlexError {
    /// Shorter than the root's three bytes.
    TooShort,
    /// The root's byte width is not 1, 2, 4 or 8.
    Width {
        /// The width byte.
        width: u8,
    },
    /// The root's value lies outside the buffer.
    OutOfBounds,
}

impl fmt::Display for FlexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort => f.write_str("custom options shorter than a FlexBuffer root"),
            Self::Width { width } => write!(f, "FlexBuffer root width {width} (1, 2, 4 or 8)"),
            Self::OutOfBounds => f.write_str("FlexBuffer root outside the buffer"),
        }
    }
}

/// A value's type (`flexbuffers::Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlexType {
    /// No value.
    Null,
    /// A signed integer, inline.
    Int,
    /// An unsigned integer, inline.
    Uint,
    /// A float, inline.
    Float,
    /// A map key (a NUL-terminated string).
    Key,
    /// A string (length first, NUL-terminated).
    String,
    /// A signed integer, behind an offset.
    IndirectInt,
    /// An unsigned integer, behind an offset.
    IndirectUint,
    /// A float, behind an offset.
    IndirectFloat,
    /// Keys and values.
    Map,
    /// A vector of values of any types.
    Vector,
    /// A vector of one type (`element`), with its length stored (`Some(0)`) or fixed
    /// (`Some(2..=4)`).
    Typed {
        /// The elements' type.
        element: TypedElement,
        /// The fixed length, or `None` when stored.
        fixed: Option<u8>,
    },
    /// Bytes (length first).
    Blob,
    /// A boolean, inline.
    Bool,
}

/// The element type of a typed vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedElement {
    /// Signed integers.
    Int,
    /// Unsigned integers.
    Uint,
    /// Floats.
    Float,
    /// Keys.
    Key,
    /// Booleans.
    Bool,
}

impl FlexType {
    fn of(packed: u8) -> Option<Self> {
        use TypedElement as E;
        let typed = |element, fixed| Some(Self::Typed { element, fixed });
        match packed >> 2 {
            0 => Some(Self::Null),
            1 => Some(Self::Int),
            2 => Some(Self::Uint),
            3 => Some(Self::Float),
            4 => Some(Self::Key),
            5 => Some(Self::String),
            6 => Some(Self::IndirectInt),
            7 => Some(Self::IndirectUint),
            8 => Some(Self::IndirectFloat),
            9 => Some(Self::Map),
            10 => Some(Self::Vector),
            11 => typed(E::Int, None),
            12 => typed(E::Uint, None),
            13 => typed(E::Float, None),
            14 => typed(E::Key, None),
            // 15 (VECTOR_STRING) is deprecated: read as keys, as flexbuffers.h does.
            15 => typed(E::Key, None),
            t @ 16..=24 => {
                let element = [E::Int, E::Uint, E::Float][usize::from((t - 16) % 3)];
                typed(element, Some((t - 16) / 3 + 2))
            }
            25 => Some(Self::Blob),
            26 => Some(Self::Bool),
            36 => typed(E::Bool, None),
            _ => None,
        }
    }

    /// Whether the stored word is the value itself (else an offset back to it).
    fn inline(self) -> bool {
        matches!(
            self,
            Self::Null | Self::Int | Self::Uint | Self::Float | Self::Bool
        )
    }
}

/// A little-endian unsigned number of `width` bytes at `at`.
fn uint_at(buf: &[u8], at: usize, width: usize) -> Option<u64> {
    let bytes = buf.get(at..at.checked_add(width)?)?;
    let mut word = [0u8; 8];
    word.get_mut(..width)?.copy_from_slice(bytes);
    Some(u64::from_le_bytes(word))
}

/// A little-endian signed number of `width` bytes at `at`.
fn int_at(buf: &[u8], at: usize, width: usize) -> Option<i64> {
    let v = uint_at(buf, at, width)?;
    let shift = 64 - 8 * width as u32;
    Some(((v << shift) as i64) >> shift)
}

/// A little-endian float of `width` (4 or 8) bytes at `at`.
fn float_at(buf: &[u8], at: usize, width: usize) -> Option<f64> {
    match width {
        4 => Some(f64::from(f32::from_bits(uint_at(buf, at, 4)? as u32))),
        8 => Some(f64::from_bits(uint_at(buf, at, 8)?)),
        _ => None,
    }
}

/// One value of a FlexBuffer: where its word is, that word's width, the width of what it
/// points to, and its type.
#[derive(Clone, Copy, Debug)]
pub struct FlexValue<'a> {
    buf: &'a [u8],
    at: usize,
    parent_width: usize,
    byte_width: usize,
    ty: FlexType,
}

impl<'a> FlexValue<'a> {
    /// The root value of `buf`.
    ///
    /// # Errors
    /// A [`FlexError`] if the buffer cannot hold its root.
    pub fn root(buf: &'a [u8]) -> Result<Self, FlexError> {
        let n = buf.len();
        if n < 3 {
            return Err(FlexError::TooShort);
        }
        let width = buf[n - 1];
        if !matches!(width, 1 | 2 | 4 | 8) {
            return Err(FlexError::Width { width });
        }
        let at = (n - 2)
            .checked_sub(usize::from(width))
            .ok_or(FlexError::OutOfBounds)?;
        Ok(Self::packed(buf, at, usize::from(width), buf[n - 2]))
    }

    /// A value whose word is at `at`, `parent_width` bytes wide, of packed type `packed`.
    fn packed(buf: &'a [u8], at: usize, parent_width: usize, packed: u8) -> Self {
        Self {
            buf,
            at,
            parent_width,
            byte_width: 1 << (packed & 3),
            // An unknown type reads as null: every accessor then answers `None`.
            ty: FlexType::of(packed).unwrap_or(FlexType::Null),
        }
    }

    /// The value's type.
    #[must_use]
    pub fn flex_type(&self) -> FlexType {
        self.ty
    }

    /// Where an offset value's data starts (the word holds how far back it is).
    fn target(&self) -> Option<usize> {
        if self.ty.inline() {
            return None;
        }
        let back = usize::try_from(uint_at(self.buf, self.at, self.parent_width)?).ok()?;
        self.at.checked_sub(back)
    }

    /// A signed integer: Int, Uint and Bool values (converted when they fit), and their
    /// indirect forms.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match self.ty {
            FlexType::Int => int_at(self.buf, self.at, self.parent_width),
            FlexType::Uint | FlexType::Bool => {
                i64::try_from(uint_at(self.buf, self.at, self.parent_width)?).ok()
            }
            FlexType::IndirectInt => int_at(self.buf, self.target()?, self.byte_width),
            FlexType::IndirectUint => {
                i64::try_from(uint_at(self.buf, self.target()?, self.byte_width)?).ok()
            }
            _ => None,
        }
    }

    /// An unsigned integer (a non-negative signed one converted).
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        match self.ty {
            FlexType::Uint | FlexType::Bool => uint_at(self.buf, self.at, self.parent_width),
            FlexType::IndirectUint => uint_at(self.buf, self.target()?, self.byte_width),
            _ => u64::try_from(self.as_i64()?).ok(),
        }
    }

    /// A float; integers are converted.
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        match self.ty {
            FlexType::Float => float_at(self.buf, self.at, self.parent_width),
            FlexType::IndirectFloat => float_at(self.buf, self.target()?, self.byte_width),
            _ => self.as_i64().map(|v| v as f64),
        }
    }

    /// A boolean (any non-zero integer is true).
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self.ty {
            FlexType::Bool | FlexType::Int | FlexType::Uint => {
                Some(uint_at(self.buf, self.at, self.parent_width)? != 0)
            }
            _ => None,
        }
    }

    /// The bytes of a string or blob (without a string's NUL), or of a key up to its NUL.
    #[must_use]
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        let start = self.target()?;
        match self.ty {
            FlexType::String | FlexType::Blob => {
                let len_at = start.checked_sub(self.byte_width)?;
                let len = usize::try_from(uint_at(self.buf, len_at, self.byte_width)?).ok()?;
                self.buf.get(start..start.checked_add(len)?)
            }
            FlexType::Key => {
                let rest = self.buf.get(start..)?;
                let end = rest.iter().position(|&b| b == 0)?;
                rest.get(..end)
            }
            _ => None,
        }
    }

    /// A string, key or blob as UTF-8 text.
    #[must_use]
    pub fn as_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.as_bytes()?).ok()
    }

    /// A vector (untyped or typed, and a map's values).
    #[must_use]
    pub fn as_vector(&self) -> Option<FlexVector<'a>> {
        let start = self.target()?;
        let (len, element) = match self.ty {
            FlexType::Vector | FlexType::Map => (self.stored_len(start)?, None),
            FlexType::Typed { element, fixed } => {
                let len = match fixed {
                    Some(n) => usize::from(n),
                    None => self.stored_len(start)?,
                };
                (len, Some(element))
            }
            _ => return None,
        };
        // Every element (and an untyped vector's type bytes) inside the buffer.
        let end = len
            .checked_mul(self.byte_width)
            .and_then(|b| b.checked_add(start))?
            .checked_add(if element.is_none() { len } else { 0 })?;
        if end > self.buf.len() {
            return None;
        }
        Some(FlexVector {
            buf: self.buf,
            start,
            len,
            width: self.byte_width,
            element,
        })
    }

    /// A map.
    #[must_use]
    pub fn as_map(&self) -> Option<FlexMap<'a>> {
        if self.ty != FlexType::Map {
            return None;
        }
        let values = self.as_vector()?;
        let w = self.byte_width;
        let start = values.start;
        // Before the length: the keys vector's width, and before that its offset.
        let keys_width_at = start.checked_sub(2 * w)?;
        let keys_width = usize::try_from(uint_at(self.buf, keys_width_at, w)?).ok()?;
        if !matches!(keys_width, 1 | 2 | 4 | 8) {
            return None;
        }
        let keys_at = start.checked_sub(3 * w)?;
        let keys = Self {
            buf: self.buf,
            at: keys_at,
            parent_width: w,
            byte_width: keys_width,
            ty: FlexType::Typed {
                element: TypedElement::Key,
                fixed: None,
            },
        }
        .as_vector()?;
        if keys.len != values.len {
            return None;
        }
        Some(FlexMap { keys, values })
    }

    /// The length stored just before `start`.
    fn stored_len(&self, start: usize) -> Option<usize> {
        let at = start.checked_sub(self.byte_width)?;
        usize::try_from(uint_at(self.buf, at, self.byte_width)?).ok()
    }
}

/// A vector's elements.
#[derive(Clone, Copy, Debug)]
pub struct FlexVector<'a> {
    buf: &'a [u8],
    start: usize,
    len: usize,
    width: usize,
    /// The element type of a typed vector; `None`: a type byte per element after them.
    element: Option<TypedElement>,
}

impl<'a> FlexVector<'a> {
    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<FlexValue<'a>> {
        if i >= self.len {
            return None;
        }
        let at = self.start + i * self.width;
        let packed = match self.element {
            // A typed vector's elements are as wide as the vector (bit width in the low bits).
            Some(e) => {
                let code = match e {
                    TypedElement::Int => 1,
                    TypedElement::Uint => 2,
                    TypedElement::Float => 3,
                    TypedElement::Key => 4,
                    TypedElement::Bool => 26,
                };
                code << 2 | self.width.trailing_zeros() as u8
            }
            None => *self.buf.get(self.start + self.len * self.width + i)?,
        };
        Some(FlexValue::packed(self.buf, at, self.width, packed))
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = FlexValue<'a>> + '_ {
        (0..self.len).filter_map(|i| self.get(i))
    }
}

/// A map's keys and values (keys sorted, as writers store them).
#[derive(Clone, Copy, Debug)]
pub struct FlexMap<'a> {
    keys: FlexVector<'a>,
    values: FlexVector<'a>,
}

impl<'a> FlexMap<'a> {
    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The value of `key`, if present.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<FlexValue<'a>> {
        (0..self.len())
            .find(|&i| {
                self.keys
                    .get(i)
                    .and_then(|k| k.as_bytes())
                    .is_some_and(|k| k == key.as_bytes())
            })
            .and_then(|i| self.values.get(i))
    }

    /// The entries in order: `(key, value)`; keys that are not UTF-8 read as "".
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, FlexValue<'a>)> + '_ {
        (0..self.len()).filter_map(|i| {
            let key = self.keys.get(i)?.as_str().unwrap_or("");
            Some((key, self.values.get(i)?))
        })
    }
}

#[cfg(test)]
mod tests;
