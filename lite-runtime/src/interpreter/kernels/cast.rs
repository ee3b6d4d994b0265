//! CAST between float32, int32, int64, bool, int8, uint8, int16, uint16 and uint32, as C++'s
//! `static_cast` (TensorFlow Lite's reference kernel) converts.

#[cfg(test)]
mod tests;

use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// CAST.
pub static CAST: Kernel = Kernel {
    op: BuiltinOperator::Cast,
    prepare: prepare_cast,
    init: None,
    eval: eval_cast,
};

/// The element count.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
}

/// A type CAST writes, from any source value class.
pub(crate) trait CastTo: Element {
    /// From a float: truncated toward zero, as C++'s `static_cast`.
    fn from_f32(v: f32) -> Self;
    /// From an integer (every source integer type fits i64): wrapped to the width, as
    /// C++'s `static_cast` between integer types.
    fn from_i64(v: i64) -> Self;
    /// From a bool: 0 or 1.
    fn from_bool(v: bool) -> Self;
}

/// A type CAST reads.
pub(crate) trait CastFrom: Element {
    /// `self` as `D`, as C++'s `static_cast<D>` would give it.
    fn cast<D: CastTo>(self) -> D;
}

impl CastTo for f32 {
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        // Round to nearest, as C++'s integer-to-float conversion (one rounding: i64 holds
        // every source integer exactly).
        v as f32
    }
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        if v { 1.0 } else { 0.0 }
    }
}

impl CastTo for bool {
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        // C++: any non-zero value, NaN included, is true.
        v != 0.0
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        v
    }
}

// Float to integer out of the target's range (or NaN) is undefined behaviour in C++; we
// give what LiteRT gives on Arm64, whose compilers convert with one saturating `fcvtzs` to
// 32 (or 64) bits, NaN to 0, then keep the low bits for the narrow types. In range, every
// platform truncates toward zero, and so do we.
macro_rules! cast_to_int {
    ($($t:ty => $via:ty),*) => {$(
        impl CastTo for $t {
            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                (v as $via) as $t
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                <$t>::from(v)
            }
        }
        impl CastFrom for $t {
            #[inline(always)]
            fn cast<D: CastTo>(self) -> D {
                D::from_i64(i64::from(self))
            }
        }
    )*};
}

// Unsigned 32 bits: Arm64's `fcvtzu` saturates to 0..=u32::MAX, as Rust's `as` does.
cast_to_int!(i8 => i32, u8 => i32, i16 => i32, u16 => i32, i32 => i32, u32 => u32, i64 => i64);

impl CastFrom for f32 {
    #[inline(always)]
    fn cast<D: CastTo>(self) -> D {
        D::from_f32(self)
    }
}

impl CastFrom for bool {
    #[inline(always)]
    fn cast<D: CastTo>(self) -> D {
        D::from_bool(self)
    }
}

/// Converts `src` into `dst` element by element (up to the shorter length).
pub(crate) fn cast_slice<S: CastFrom, D: CastTo>(src: &[S], dst: &mut [D]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s.cast();
    }
}

fn castable(t: TensorType) -> bool {
    matches!(
        t,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Bool
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Int16
            | TensorType::Uint16
            | TensorType::Uint32
    )
}

fn prepare_cast(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    // TensorFlow Lite casts between the tensors' types; the options only restate them.
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if !castable(input.dtype) || !castable(output.dtype) {
        return Err(KernelError::Unsupported {
            what: "CAST from or to a type other than FLOAT32, INT32, INT64, BOOL, INT8, UINT8, \
                   INT16, UINT16, UINT32",
        });
    }
    if input.shape.elements() != output.shape.elements() {
        return Err(KernelError::Mismatch {
            what: "output has another number of elements than the input",
        });
    }
    ctx.set_params(&Params {
        elements: check::dim(input.shape.elements())?,
    });
    Ok(())
}

fn cast_into<S: CastFrom>(ctx: &mut Eval<'_>, n: usize) -> Result<(), KernelError> {
    let src = input_n::<S>(ctx, 0, n)?;
    fn go<S: CastFrom, D: CastTo>(
        ctx: &mut Eval<'_>,
        src: &[S],
        n: usize,
    ) -> Result<(), KernelError> {
        let dst = output_n::<D>(ctx, 0, n)?;
        cast_slice(src, dst);
        Ok(())
    }
    match ctx.output_type(0)? {
        TensorType::Float32 => go::<S, f32>(ctx, src, n),
        TensorType::Int32 => go::<S, i32>(ctx, src, n),
        TensorType::Int64 => go::<S, i64>(ctx, src, n),
        TensorType::Bool => go::<S, bool>(ctx, src, n),
        TensorType::Int8 => go::<S, i8>(ctx, src, n),
        TensorType::Uint8 => go::<S, u8>(ctx, src, n),
        TensorType::Int16 => go::<S, i16>(ctx, src, n),
        TensorType::Uint16 => go::<S, u16>(ctx, src, n),
        TensorType::Uint32 => go::<S, u32>(ctx, src, n),
        _ => Err(KernelError::Unsupported {
            what: "CAST output type",
        }),
    }
}

fn eval_cast(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let n = ctx.params::<Params>().elements as usize;
    match ctx.input_type(0)? {
        TensorType::Float32 => cast_into::<f32>(ctx, n),
        TensorType::Int32 => cast_into::<i32>(ctx, n),
        TensorType::Int64 => cast_into::<i64>(ctx, n),
        TensorType::Bool => cast_into::<bool>(ctx, n),
        TensorType::Int8 => cast_into::<i8>(ctx, n),
        TensorType::Uint8 => cast_into::<u8>(ctx, n),
        TensorType::Int16 => cast_into::<i16>(ctx, n),
        TensorType::Uint16 => cast_into::<u16>(ctx, n),
        TensorType::Uint32 => cast_into::<u32>(ctx, n),
        _ => Err(KernelError::Unsupported {
            what: "CAST input type",
        }),
    }
}
