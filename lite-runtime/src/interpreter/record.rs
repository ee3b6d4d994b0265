//! The compact form a model is set up into, kept in the caller's arena: one [`TensorRecord`]
//! per tensor and one [`OpRecord`] per operator, plain bytes (zerocopy), so `invoke` reads
//! these tables and never walks the flatbuffer (wasmi's "validate once, run a compact form").

use tessera_core::tensor::DType;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::model::TensorType;

/// The most dimensions a tensor may have (TensorFlow Lite's kernels broadcast up to 6).
pub const MAX_DIMS: usize = 6;

/// Bytes of kernel parameters an operator record holds (see
/// [`Prepare::set_params`](super::Prepare::set_params)).
pub const PARAMS_BYTES: usize = 64;

/// Where a tensor's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Place {
    /// Nowhere: an optional input that is absent, or an empty tensor.
    None = 0,
    /// In the planned part of the arena (activations, graph inputs and outputs).
    Planned = 1,
    /// In the persistent part of the arena (constants copied at setup).
    Persistent = 2,
    /// In the persistent part of the arena: a variable tensor (its initial value copied at
    /// set-up and by `reset_state`; written in place by the kernels that update it). Next to
    /// `Persistent`, so that "in the persistent part" is one range check.
    Variable = 3,
    /// In the model's bytes, read in place.
    Model = 4,
}

impl Place {
    pub(crate) fn from_u8(v: u8) -> Self {
        match v {
            1 => Self::Planned,
            2 => Self::Persistent,
            3 => Self::Variable,
            4 => Self::Model,
            _ => Self::None,
        }
    }
}

/// One tensor of the running graph. 36 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct TensorRecord {
    /// Dimensions (the first `rank`).
    pub dims: [u32; MAX_DIMS],
    /// Byte offset: in the arena's data region (planned or persistent), or in the model.
    pub offset: u32,
    /// Bytes reserved. All are in use, except in a string tensor written at run time: its
    /// own encoding says where it ends ([`in_use`](Self::in_use)), so no length is kept here
    /// (4 bytes a tensor: TensorFlow Lite Micro's arenas are the bar).
    pub bytes: u32,
    /// Dimensions used.
    pub rank: u8,
    /// `TensorType` schema code.
    pub dtype: u8,
    /// [`Place`].
    pub place: u8,
    /// Whether a string tensor has been written (strings read before are an error).
    pub written: u8,
}

/// One operator of the running graph. 88 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct OpRecord {
    /// The kernel's parameters, as its `prepare` set them.
    pub params: [u8; PARAMS_BYTES],
    /// First entry of this operator's operands in the operand table (inputs, then outputs).
    pub operands: u32,
    /// Persistent data: offset in the arena's data region, and bytes.
    pub persistent: u32,
    /// Bytes of persistent data.
    pub persistent_bytes: u32,
    /// Scratch: offset in the arena's data region (planned, alive during this operator only).
    pub scratch: u32,
    /// Bytes of scratch.
    pub scratch_bytes: u32,
    /// The kernel's index in the resolver.
    pub kernel: u16,
    /// Inputs.
    pub inputs: u8,
    /// Outputs.
    pub outputs: u8,
}

impl TensorRecord {
    pub(crate) fn place(&self) -> Place {
        Place::from_u8(self.place)
    }

    /// How much of `full` (the tensor's `bytes`) is in use: all of it, except in a string
    /// tensor: nothing before it is written, and afterwards up to the end its TFLite encoding
    /// gives (a count `N`, then `N + 1` little-endian offsets, the last the end of the data).
    /// Constant strings are read whole, as the model holds them.
    pub(crate) fn in_use(&self, full: &[u8]) -> usize {
        let string = cfg!(feature = "strings") && self.dtype == TensorType::String as u8;
        if !string || self.place() == Place::Model {
            return full.len();
        }
        if self.written == 0 {
            return 0;
        }
        let word = |i: usize| -> Option<usize> {
            let at = i.checked_mul(4)?;
            let b: [u8; 4] = full.get(at..at.checked_add(4)?)?.try_into().ok()?;
            usize::try_from(u32::from_le_bytes(b)).ok()
        };
        word(0)
            .and_then(|n| word(n.checked_add(1)?))
            .map_or(0, |end| end.min(full.len()))
    }

    pub(crate) fn tensor_type(&self) -> Option<TensorType> {
        TensorType::from_code(self.dtype as i8)
    }

    pub(crate) fn shape(&self) -> Shape {
        let mut s = Shape::scalar();
        let rank = usize::from(self.rank).min(MAX_DIMS);
        for (d, &v) in s.dims.iter_mut().zip(&self.dims[..rank]) {
            *d = v as usize;
        }
        s.rank = rank;
        s
    }
}

/// A tensor's shape: up to [`MAX_DIMS`] dimensions, inline.
///
/// Not `tessera_core::tensor::Layout`, on purpose: a `Layout` describes a strided view over
/// memory (shape, strides, offset, up to 8 dimensions, as numpy and DL4J views need), where
/// a kernel needs only a dense tensor's extent, bounded by the interpreter's limit (6, the
/// rank TensorFlow Lite's kernels broadcast to). A `Shape` is 56 bytes on a 64-bit host
/// (`Layout`: 160) and is copied per operand at every invoke; tensors the caller reads
/// become `TensorView`s with a `Layout` built from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    dims: [usize; MAX_DIMS],
    rank: usize,
}

impl Shape {
    /// The shape of a scalar (rank 0, one element).
    #[must_use]
    pub const fn scalar() -> Self {
        Self {
            dims: [0; MAX_DIMS],
            rank: 0,
        }
    }

    /// A shape of these dimensions, or `None` if there are more than [`MAX_DIMS`].
    #[must_use]
    pub fn new(dims: &[usize]) -> Option<Self> {
        if dims.len() > MAX_DIMS {
            return None;
        }
        let mut s = Self::scalar();
        s.dims[..dims.len()].copy_from_slice(dims);
        s.rank = dims.len();
        Some(s)
    }

    /// The dimensions.
    #[must_use]
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    /// Number of dimensions.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Dimension `i`, or `None` past the rank.
    #[must_use]
    pub fn dim(&self, i: usize) -> Option<usize> {
        self.dims().get(i).copied()
    }

    /// Elements (1 for a scalar). Set-up checked that no tensor's count overflows.
    #[must_use]
    pub fn elements(&self) -> usize {
        self.dims().iter().fold(1usize, |a, &d| a.saturating_mul(d))
    }
}

/// The `tessera-core` element type of a tensor type, if tensors of it can be viewed typed.
#[must_use]
pub fn dtype_of(t: TensorType) -> Option<DType> {
    Some(match t {
        TensorType::Float32 => DType::F32,
        TensorType::Float64 => DType::F64,
        TensorType::Int8 => DType::I8,
        TensorType::Int16 => DType::I16,
        TensorType::Int32 => DType::I32,
        TensorType::Int64 => DType::I64,
        TensorType::Uint8 => DType::U8,
        TensorType::Uint16 => DType::U16,
        TensorType::Uint32 => DType::U32,
        TensorType::Uint64 => DType::U64,
        TensorType::Bool => DType::Bool,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
