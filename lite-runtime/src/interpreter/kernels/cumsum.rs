//! CUMSUM (float32, int32, int64, the types LiteRT's kernel takes): running sums along the axis
//! given by a one-element INT32 operand (read at every invoke; negative counts from the end),
//! `exclusive` (each sum leaves its own element out) and `reverse` (summed from the end).
//! Each sum adds the elements in order along the axis, as Eigen's scan does, so float sums
//! round as LiteRT's; integer sums wrap.

#[cfg(test)]
mod tests;

use super::base::check::{self, SHORT};
use super::base::tensors::{input_n, output_n, words};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, CumsumOptions, TensorType};

/// CUMSUM.
pub static CUMSUM: Kernel = Kernel {
    op: BuiltinOperator::Cumsum,
    prepare,
    init: None,
    eval,
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let _: CumsumOptions = ctx.options()?;
    let (input, _) = check::unary(ctx)?;
    let axis = ctx.input(1)?;
    if !matches!(
        input.dtype,
        TensorType::Float32 | TensorType::Int32 | TensorType::Int64
    ) {
        return Err(KernelError::Unsupported {
            what: "CUMSUM of other types than FLOAT32, INT32, INT64",
        });
    }
    if axis.dtype != TensorType::Int32 || axis.shape.elements() != 1 {
        return Err(KernelError::Mismatch {
            what: "CUMSUM axis is not one INT32 value",
        });
    }
    if input.shape.rank() == 0 {
        return Err(KernelError::Mismatch {
            what: "CUMSUM of a scalar",
        });
    }
    if let Some(a) = check::constant_ints(&axis).ok().and_then(|mut v| v.next()) {
        check::axis(a, input.shape.rank())?;
    }
    let o: CumsumOptions = ctx.options()?;
    ctx.set_params(&[u32::from(o.exclusive), u32::from(o.reverse)]);
    Ok(())
}

/// A type CUMSUM adds.
pub(crate) trait Sum: Copy {
    /// Zero.
    const ZERO: Self;
    /// `self + v` (wrapping for integers).
    fn add(self, v: Self) -> Self;
}

impl Sum for f32 {
    const ZERO: Self = 0.0;
    fn add(self, v: Self) -> Self {
        self + v
    }
}

impl Sum for i32 {
    const ZERO: Self = 0;
    fn add(self, v: Self) -> Self {
        self.wrapping_add(v)
    }
}

impl Sum for i64 {
    const ZERO: Self = 0;
    fn add(self, v: Self) -> Self {
        self.wrapping_add(v)
    }
}

/// Running sums of `x` (`outer x depth x inner`) along the middle dimension into `y`.
pub(crate) fn cumsum<T: Sum>(
    x: &[T],
    y: &mut [T],
    (outer, depth, inner): (usize, usize, usize),
    exclusive: bool,
    reverse: bool,
) {
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = T::ZERO;
            for s in 0..depth {
                let d = if reverse { depth - 1 - s } else { s };
                let at = (o * depth + d) * inner + i;
                let (Some(&v), Some(slot)) = (x.get(at), y.get_mut(at)) else {
                    return;
                };
                if exclusive {
                    *slot = acc;
                    acc = acc.add(v);
                } else {
                    acc = acc.add(v);
                    *slot = acc;
                }
            }
        }
    }
}

fn run<T: Sum + tessera_core::tensor::Element>(
    ctx: &mut Eval<'_>,
    geometry: (usize, usize, usize),
    n: usize,
) -> Result<(), KernelError> {
    let [exclusive, reverse]: [u32; 2] = ctx.params();
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    cumsum(x, y, geometry, exclusive != 0, reverse != 0);
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let shape = ctx.input_shape(0)?;
    let a = words::<i32>(ctx.input_bytes(1)?)?
        .first()
        .copied()
        .ok_or(SHORT)?;
    let axis = check::axis(i64::from(a), shape.rank())?;
    let dims = shape.dims();
    let geometry = (
        dims[..axis].iter().product(),
        dims[axis],
        dims[axis + 1..].iter().product(),
    );
    let n = shape.elements();
    if n == 0 {
        return Ok(());
    }
    match ctx.input_type(0)? {
        TensorType::Float32 => run::<f32>(ctx, geometry, n),
        TensorType::Int32 => run::<i32>(ctx, geometry, n),
        _ => run::<i64>(ctx, geometry, n),
    }
}
