//! RANGE (float32, int32, int64): `start, start + delta, ...` up to `limit` (excluded), each
//! value the previous plus `delta` as LiteRT accumulates it. The output's length depends on
//! the operands: tessera plans the shape the model declares, so the length is computed at
//! set-up when the operands are constants (and checked against the output's), and at every
//! invoke otherwise, when a length other than the planned one is an error.

#[cfg(test)]
mod tests;

use super::base::check::{self, SHORT};
use super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, IntoBytes};

/// RANGE.
pub static RANGE: Kernel = Kernel {
    op: BuiltinOperator::Range,
    prepare,
    init: None,
    eval,
};

const BAD_RANGE: KernelError = KernelError::Mismatch {
    what: "RANGE delta 0 or pointing away from the limit",
};

const LENGTH: KernelError = KernelError::Mismatch {
    what: "RANGE length differs from the output's (operands computed by the graph)",
};

/// A type RANGE counts in.
pub(crate) trait Step: Element + PartialOrd + FromBytes + IntoBytes {
    /// LiteRT's `GetSize`: the number of values, `None` for a delta of 0 or pointing away.
    fn length(start: Self, limit: Self, delta: Self) -> Option<usize>;
    /// `self + delta` (wrapping for integers, as C++'s overflow would).
    fn step(self, delta: Self) -> Self;
}

fn int_length(start: i128, limit: i128, delta: i128) -> Option<usize> {
    if delta == 0 || !((start >= limit && delta < 0) || (start <= limit && delta > 0)) {
        return None;
    }
    let n = ((limit - start).abs() + delta.abs() - 1) / delta.abs();
    usize::try_from(n).ok()
}

impl Step for i32 {
    fn length(start: Self, limit: Self, delta: Self) -> Option<usize> {
        int_length(start.into(), limit.into(), delta.into())
    }
    fn step(self, delta: Self) -> Self {
        self.wrapping_add(delta)
    }
}

impl Step for i64 {
    fn length(start: Self, limit: Self, delta: Self) -> Option<usize> {
        int_length(start.into(), limit.into(), delta.into())
    }
    fn step(self, delta: Self) -> Self {
        self.wrapping_add(delta)
    }
}

impl Step for f32 {
    fn length(start: Self, limit: Self, delta: Self) -> Option<usize> {
        let pointed = (start >= limit && delta < 0.0) || (start <= limit && delta > 0.0);
        if delta == 0.0 || !pointed {
            return None;
        }
        let n = libm::ceilf(((limit - start) / delta).abs());
        // C++ converts the float to int; a length past i32 is refused.
        if (0.0..2_147_483_648.0).contains(&n) {
            Some(n as usize)
        } else {
            None
        }
    }
    fn step(self, delta: Self) -> Self {
        self + delta
    }
}

fn scalar<T: Step>(bytes: Option<&[u8]>) -> Option<T> {
    let b = bytes?.get(..size_of::<T>())?;
    let mut v = T::new_zeroed();
    v.as_mut_bytes().copy_from_slice(b);
    if cfg!(target_endian = "big") {
        v.as_mut_bytes().reverse();
    }
    Some(v)
}

fn constant_length<T: Step>(ctx: &Prepare<'_>) -> Result<Option<usize>, KernelError> {
    let vals = [
        scalar::<T>(ctx.input(0)?.constant()),
        scalar::<T>(ctx.input(1)?.constant()),
        scalar::<T>(ctx.input(2)?.constant()),
    ];
    match vals {
        [Some(s), Some(l), Some(d)] => T::length(s, l, d).map(Some).ok_or(BAD_RANGE),
        _ => Ok(None),
    }
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let start = ctx.input(0)?;
    let output = ctx.output(0)?;
    for k in 0..3 {
        let d = ctx.input(k)?;
        check::same_type(&start, &d)?;
        if d.shape.rank() != 0 {
            return Err(KernelError::Mismatch {
                what: "RANGE start, limit or delta not a scalar",
            });
        }
    }
    check::output_type(&start, &output)?;
    if output.shape.rank() != 1 {
        return Err(check::OUTPUT_SHAPE);
    }
    let length = match start.dtype {
        TensorType::Float32 => constant_length::<f32>(ctx)?,
        TensorType::Int32 => constant_length::<i32>(ctx)?,
        TensorType::Int64 => constant_length::<i64>(ctx)?,
        _ => {
            return Err(KernelError::Unsupported {
                what: "RANGE of other types than FLOAT32, INT32, INT64",
            });
        }
    };
    if let Some(n) = length {
        if output.shape.dims() != [n] {
            return Err(check::OUTPUT_SHAPE);
        }
    }
    Ok(())
}

fn run<T: Step>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let s = *input_n::<T>(ctx, 0, 1)?.first().ok_or(SHORT)?;
    let l = *input_n::<T>(ctx, 1, 1)?.first().ok_or(SHORT)?;
    let d = *input_n::<T>(ctx, 2, 1)?.first().ok_or(SHORT)?;
    let n = T::length(s, l, d).ok_or(BAD_RANGE)?;
    if ctx.output_shape(0)?.dims() != [n] {
        return Err(LENGTH);
    }
    let y = output_n::<T>(ctx, 0, n)?;
    let mut v = s;
    for slot in y.iter_mut() {
        *slot = v;
        v = v.step(d);
    }
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => run::<f32>(ctx),
        TensorType::Int32 => run::<i32>(ctx),
        _ => run::<i64>(ctx),
    }
}
