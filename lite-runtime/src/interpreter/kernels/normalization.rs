//! L2_NORMALIZATION (float32, uint8, int8) and LOCAL_RESPONSE_NORMALIZATION (float32), over
//! the last dimension, as TensorFlow Lite's reference kernels:
//! - L2, float32: `x / max(sqrt(sum x^2), 1e-6)`, the squares summed in order;
//! - L2, uint8 / int8: the output scale is 1/128 (zero point 128 / 0); the inverse square
//!   root of the integer sum of squares is gemmlowp's Newton-Raphson fixed point
//!   (`GetInvSqrtQuantizedMultiplierExp`), applied as the reference does per type;
//! - LRN: `x * (bias + alpha * sum x^2)^-beta` over the channels `c - radius .. c + radius`
//!   (the reference's window stops one short of `c + radius`; LiteRT's optimized kernel
//!   includes it: this follows the reference).

use super::base::check::{self, SHORT};
use super::base::quant::fixed_point::saturating_rounding_multiply_by_pot;
use super::base::quant::{
    self, multiply_by_quantized_multiplier, rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{
    Activation, BuiltinOperator, L2NormOptions, LocalResponseNormalizationOptions, TensorType,
};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// L2_NORMALIZATION.
pub static L2_NORMALIZATION: Kernel = Kernel {
    op: BuiltinOperator::L2Normalization,
    prepare: prepare_l2,
    init: None,
    eval: eval_l2,
};

/// LOCAL_RESPONSE_NORMALIZATION.
pub static LOCAL_RESPONSE_NORMALIZATION: Kernel = Kernel {
    op: BuiltinOperator::LocalResponseNormalization,
    prepare: prepare_lrn,
    init: None,
    eval: eval_lrn,
};

/// Rows of `depth` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Rows {
    /// The element type's code (`TensorType`).
    dtype: u32,
    rows: u32,
    depth: u32,
    /// The input zero point (quantized L2).
    zero_point: i32,
}

/// LRN's parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Lrn {
    rows: u32,
    depth: u32,
    radius: i32,
    bias: f32,
    alpha: f32,
    beta: f32,
}

/// The rows and depth of a tensor normalized over its last dimension.
fn rows_of(dims: &[usize]) -> Result<(u32, u32), KernelError> {
    let depth = *dims.last().ok_or(KernelError::Mismatch {
        what: "normalization of a scalar",
    })?;
    let total = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let total = check::dim(total.ok_or(check::DIM_OVER_U32)?)?;
    let rows = if depth == 0 { 0 } else { total / depth as u32 };
    Ok((rows, check::dim(depth)?))
}

fn prepare_l2(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: L2NormOptions = ctx.options()?;
    let (input, output) = check::unary(ctx)?;
    if o.activation != Activation::None {
        return Err(KernelError::Unsupported {
            what: "fused activation on L2_NORMALIZATION",
        });
    }
    let (rows, depth) = rows_of(input.shape.dims())?;
    let mut p = Rows {
        dtype: input.dtype as u32,
        rows,
        depth,
        zero_point: 0,
    };
    match input.dtype {
        TensorType::Float32 => {}
        TensorType::Uint8 | TensorType::Int8 => {
            let (_, zp) = quant::per_tensor(input.quantization(), input.dtype)?;
            let (scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
            let want = if input.dtype == TensorType::Uint8 { 128 } else { 0 };
            if f64::from(scale) != 1.0 / 128.0 || out_zp != want {
                return Err(KernelError::Mismatch {
                    what: "L2_NORMALIZATION output not of scale 1/128 (zero point 128 uint8, 0 int8)",
                });
            }
            p.zero_point = zp;
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "L2_NORMALIZATION of other types than FLOAT32, UINT8, INT8",
            });
        }
    }
    ctx.set_params(&p);
    Ok(())
}

fn eval_l2(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Rows = ctx.params();
    let n = p.rows as usize * p.depth as usize;
    match p.dtype {
        d if d == TensorType::Float32 as u32 => {
            let x = ctx.input::<f32>(0)?.get(..n).ok_or(SHORT)?;
            let y = ctx.output::<f32>(0)?.get_mut(..n).ok_or(SHORT)?;
            l2_f32(p.depth as usize, x, y);
        }
        d if d == TensorType::Uint8 as u32 => {
            let x = ctx.input::<u8>(0)?.get(..n).ok_or(SHORT)?;
            let y = ctx.output::<u8>(0)?.get_mut(..n).ok_or(SHORT)?;
            l2_u8(p.depth as usize, p.zero_point, x, y);
        }
        _ => {
            let x = ctx.input::<i8>(0)?.get(..n).ok_or(SHORT)?;
            let y = ctx.output::<i8>(0)?.get_mut(..n).ok_or(SHORT)?;
            l2_i8(p.depth as usize, p.zero_point, x, y);
        }
    }
    Ok(())
}

/// L2_NORMALIZATION, float32 (`reference_ops::L2Normalization`, epsilon 1e-6).
pub(super) fn l2_f32(depth: usize, x: &[f32], y: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let mut sum = 0.0f32;
        for &v in x {
            sum += v * v;
        }
        let norm = libm::sqrtf(sum);
        // std::max(norm, epsilon): the norm unless it is below (a NaN stays).
        let norm = if norm < 1e-6 { 1e-6 } else { norm };
        for (y, &v) in y.iter_mut().zip(x) {
            *y = v / norm;
        }
    }
}

/// `GetInvSqrtQuantizedMultiplierExp(input, kReverseShift)`: `1 / sqrt(input)` as a
/// multiplier and a (left) shift, by five Newton-Raphson steps in gemmlowp's fixed point
/// with 3 integer bits.
pub(super) fn inv_sqrt_multiplier(input: i32) -> (i32, i32) {
    if input <= 1 {
        // The reference takes 0 (no norm) as 1.
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift = 11i32;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let pairs = max_left_shift_bits / 2 - 1;
    shift -= pairs as i32;
    input <<= 2 * pairs;
    let mul = saturating_rounding_doubling_high_mul;
    // Q3.28 values: 1.5, input / 2, and x = 1.
    let half_three = (1 << 28) + (1 << 27);
    let half_input = saturating_rounding_multiply_by_pot(input >> 1, -1);
    let mut x = 1i32 << 28;
    for _ in 0..5 {
        // x^3 is Q9 before the rescale to Q3; the two products are Q6.
        let x3 = saturating_rounding_multiply_by_pot(mul(mul(x, x), x), 6);
        let t = mul(half_three, x).wrapping_sub(mul(half_input, x3));
        x = saturating_rounding_multiply_by_pot(t, 3);
    }
    // Times sqrt(2) / 2 in Q0.31.
    let mut inv = mul(x, 1_518_500_250);
    if shift < 0 {
        inv <<= -shift;
        shift = 0;
    }
    (inv, -shift)
}

/// The integer sum of squares of `x - zero_point` (wrapping as the reference's int32).
fn squares<T: Copy + Into<i32>>(x: &[T], zero_point: i32) -> i32 {
    x.iter().fold(0i32, |a, &v| {
        let d = v.into() - zero_point;
        a.wrapping_add(d * d)
    })
}

/// L2_NORMALIZATION, uint8 (`reference_ops::L2Normalization`): `128 + 128 (x - zp) / norm`.
pub(super) fn l2_u8(depth: usize, zero_point: i32, x: &[u8], y: &mut [u8]) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let (m, s) = inv_sqrt_multiplier(squares(x, zero_point));
        for (y, &v) in y.iter_mut().zip(x) {
            let d = i32::from(v) - zero_point;
            // MultiplyByQuantizedMultiplierSmallerThanOneExp.
            let r = rounding_divide_by_pot(
                saturating_rounding_doubling_high_mul(128 * d, m),
                (-s).clamp(0, 31) as u32,
            );
            *y = (128 + r).clamp(0, 255) as u8;
        }
    }
}

/// L2_NORMALIZATION, int8 (`reference_integer_ops::L2Normalization`): `128 (x - zp) / norm`.
pub(super) fn l2_i8(depth: usize, zero_point: i32, x: &[i8], y: &mut [i8]) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let (m, s) = inv_sqrt_multiplier(squares(x, zero_point));
        for (y, &v) in y.iter_mut().zip(x) {
            let d = i32::from(v) - zero_point;
            let r = multiply_by_quantized_multiplier(d, m, s + 7);
            *y = r.clamp(-128, 127) as i8;
        }
    }
}

fn prepare_lrn(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: LocalResponseNormalizationOptions = ctx.options()?;
    let (input, _) = check::unary(ctx)?;
    if input.shape.rank() != 4 {
        return Err(KernelError::Mismatch {
            what: "input not 4-D",
        });
    }
    if input.dtype != TensorType::Float32 {
        return Err(KernelError::Unsupported {
            what: "LOCAL_RESPONSE_NORMALIZATION of other types than FLOAT32",
        });
    }
    let (rows, depth) = rows_of(input.shape.dims())?;
    ctx.set_params(&Lrn {
        rows,
        depth,
        radius: o.radius,
        bias: o.bias,
        alpha: o.alpha,
        beta: o.beta,
    });
    Ok(())
}

fn eval_lrn(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Lrn = ctx.params();
    let n = p.rows as usize * p.depth as usize;
    let x = ctx.input::<f32>(0)?.get(..n).ok_or(SHORT)?;
    let y = ctx.output::<f32>(0)?.get_mut(..n).ok_or(SHORT)?;
    lrn(&p, x, y);
    Ok(())
}

/// LOCAL_RESPONSE_NORMALIZATION (`reference_ops::LocalResponseNormalization`).
fn lrn(p: &Lrn, x: &[f32], y: &mut [f32]) {
    let depth = p.depth as usize;
    if depth == 0 {
        return;
    }
    let r = i64::from(p.radius);
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        for (c, y) in y.iter_mut().enumerate() {
            let c64 = c as i64;
            let begin = (c64 - r).max(0) as usize;
            let end = (c64 + r).clamp(0, depth as i64) as usize;
            let mut acc = 0.0f32;
            for &v in x.get(begin..end.max(begin)).unwrap_or(&[]) {
                acc += v * v;
            }
            let m = libm::powf(p.bias + p.alpha * acc, -p.beta);
            *y = x.get(c).copied().unwrap_or(0.0) * m;
        }
    }
}

#[cfg(test)]
mod tests;
