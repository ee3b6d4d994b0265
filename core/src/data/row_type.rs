//! How one embedding-table row is stored: `width` values of `f32`, IEEE `f16` or `bf16`
//! (little-endian), or FBGEMM's fused 8-bit rowwise layout (`width` `u8` codes, then an `f32`
//! scale and an `f32` bias), and the bytes a row takes.

/// The storage of a table's rows. Every layout is little-endian and packed: row `k` of a
/// table of width `w` starts at byte `k * row_type.row_bytes(w)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RowType {
    /// `width` IEEE binary32 values (4 bytes each).
    #[default]
    F32,
    /// `width` IEEE binary16 values (2 bytes each), widened exactly
    /// ([`f16_to_f32`](super::f16_to_f32)).
    F16,
    /// `width` bfloat16 values (2 bytes each), widened exactly
    /// ([`bf16_to_f32`](super::bf16_to_f32)).
    Bf16,
    /// FBGEMM's fused 8-bit rowwise layout (`Fused8BitRowwiseQuantizedSBFloat`, what
    /// `FloatToFused8BitRowwiseQuantized` writes and TorchRec's `INT8` CPU tables hold):
    /// `width` unsigned 8-bit codes `q`, then the row's `f32` `scale` and `f32` `bias`
    /// (`width + 8` bytes, the two floats unaligned when `width % 4 != 0`). Value `j` is
    /// `q[j] as f32 * scale + bias`, a rounded multiply then a rounded add (no FMA).
    Int8Rowwise,
}

impl RowType {
    /// Every row type, in [`code`](Self::code) order.
    pub const ALL: [RowType; 4] = [Self::F32, Self::F16, Self::Bf16, Self::Int8Rowwise];

    /// Bytes of one row of `width` values; `None` if that overflows `usize`.
    ///
    /// ```
    /// use tessera_core::data::RowType;
    ///
    /// assert_eq!(RowType::F32.row_bytes(16), Some(64));
    /// assert_eq!(RowType::Bf16.row_bytes(16), Some(32));
    /// assert_eq!(RowType::Int8Rowwise.row_bytes(16), Some(24)); // 16 codes, scale, bias
    /// assert_eq!(RowType::F32.row_bytes(usize::MAX), None);
    /// ```
    pub const fn row_bytes(self, width: usize) -> Option<usize> {
        match self {
            Self::F32 => width.checked_mul(4),
            Self::F16 | Self::Bf16 => width.checked_mul(2),
            Self::Int8Rowwise => width.checked_add(Self::QPARAM_BYTES),
        }
    }

    /// Bytes of the scale and bias after an [`Int8Rowwise`](Self::Int8Rowwise) row's codes.
    pub const QPARAM_BYTES: usize = 8;

    /// The type's number in device kernels' parameters (0 to 3, [`ALL`](Self::ALL)'s order).
    pub const fn code(self) -> u32 {
        match self {
            Self::F32 => 0,
            Self::F16 => 1,
            Self::Bf16 => 2,
            Self::Int8Rowwise => 3,
        }
    }
}

impl core::fmt::Display for RowType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::F32 => "float32",
            Self::F16 => "float16",
            Self::Bf16 => "bfloat16",
            Self::Int8Rowwise => "int8 rowwise",
        })
    }
}
