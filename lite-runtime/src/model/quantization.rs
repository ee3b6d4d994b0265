//! [`Quantization`]: a tensor's affine quantization (`real = scale * (q - zero_point)`),
//! per-tensor (one scale) or per-channel (one per index of the quantized dimension).

use super::reader::Table;
use super::vectors::{F32s, I64s};

/// `QuantizationParameters` table slots.
pub(crate) mod slot {
    pub const MIN: usize = 0;
    pub const MAX: usize = 1;
    pub const SCALE: usize = 2;
    pub const ZERO_POINT: usize = 3;
    pub const DETAILS_TYPE: usize = 4;
    pub const DETAILS: usize = 5;
    pub const QUANTIZED_DIMENSION: usize = 6;
}

/// A tensor's quantization parameters (verified: `scale` has length 1 or the quantized
/// dimension's size, `zero_point` the same length, the dimension inside the rank).
#[derive(Clone, Copy, Debug)]
pub struct Quantization<'a> {
    buf: &'a [u8],
    t: Table,
}

impl<'a> Quantization<'a> {
    /// Wraps a verified table.
    pub(crate) fn new(buf: &'a [u8], t: Table) -> Self {
        Self { buf, t }
    }

    /// Scales (empty when the tensor is not affinely quantized, e.g. only min / max).
    #[must_use]
    pub fn scale(&self) -> F32s<'a> {
        F32s::new(self.t.vector(self.buf, slot::SCALE).bytes(self.buf, 4))
    }

    /// Zero points, as long as the scales.
    #[must_use]
    pub fn zero_point(&self) -> I64s<'a> {
        I64s::new(self.t.vector(self.buf, slot::ZERO_POINT).bytes(self.buf, 8))
    }

    /// The dimension that per-channel scales run along, as stored (0 when absent). The loader
    /// accepts a value outside the tensor's rank where it cannot matter: with one scale, and
    /// on a rank-1 tensor (one axis to run along).
    #[must_use]
    pub fn quantized_dimension(&self) -> usize {
        usize::try_from(self.t.i32(self.buf, slot::QUANTIZED_DIMENSION, 0)).unwrap_or(0)
    }

    /// Whether there is more than one scale.
    #[must_use]
    pub fn is_per_channel(&self) -> bool {
        self.scale().len() > 1
    }

    /// Whether the tensor is affinely quantized (at least one scale).
    #[must_use]
    pub fn is_affine(&self) -> bool {
        !self.scale().is_empty()
    }

    /// The minimum values recorded for importing back into TensorFlow.
    #[must_use]
    pub fn min(&self) -> F32s<'a> {
        F32s::new(self.t.vector(self.buf, slot::MIN).bytes(self.buf, 4))
    }

    /// The maximum values recorded for importing back into TensorFlow.
    #[must_use]
    pub fn max(&self) -> F32s<'a> {
        F32s::new(self.t.vector(self.buf, slot::MAX).bytes(self.buf, 4))
    }

    /// The `details` union's type (0: none; 1 custom, 2 blockwise, 3 multi-axis), which
    /// TensorFlow Lite says replaces the affine parameters when set. Not decoded.
    #[must_use]
    pub fn details_type(&self) -> u8 {
        self.t.u8(self.buf, slot::DETAILS_TYPE, 0)
    }
}
