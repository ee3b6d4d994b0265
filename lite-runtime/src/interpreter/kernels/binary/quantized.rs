//! ADD and MUL on quantized tensors (int8; int16 with zero points 0), with broadcasting, as
//! LiteRT's reference kernels compute each element (`reference_integer_ops::AddFunc` /
//! `reference_ops::AddElementwise`, `MulElementwise`):
//!
//! - ADD: both operands, offset by their zero points, are shifted left (20 bits for int8,
//!   15 for int16), each scaled by its multiplier (`scale / (2 * max scale)`), summed, and
//!   the sum scaled by `2 * max scale / (2^shift * output scale)`; every multiplier below one
//!   (`QuantizeMultiplierSmallerThanOneExp`).
//! - MUL: the product of the offset operands scaled by `s1 * s2 / s_out` (a `float` product
//!   and quotient, as the reference computes it, then `QuantizeMultiplier`).
//!
//! Then the output zero point and the fused activation's clamp.
//!
//! int16 ADD takes the reference's power-of-two path instead when the operator's
//! `pot_scale_int16` is set and every scale passes `CheckedLog2` (`reference_ops::Add(int16)`):
//! the operand whose scale differs from the output's is divided by the power of two between
//! them (`RoundingDivideByPOT` in int16), then a saturating int16 add and the clamp.

use super::super::base::broadcast::{Broadcast, broadcast_shape, map2};
use super::super::base::check;
use super::super::base::quant::fixed_point::{checked_log2, rounding_divide_by_pot_i16};
use super::super::base::quant::{self, multiply_by_quantized_multiplier as mbqm};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::{AddOptions, MulOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    /// 0: int8; [`WIDE`]: int16, general rescaling; [`WIDE_POT`]: int16, power-of-two
    /// path (`input*_shift` are then the operands' right shifts, `<= 0`).
    wide: u32,
    left_shift: i32,
    input1_offset: i32,
    input1_multiplier: i32,
    input1_shift: i32,
    input2_offset: i32,
    input2_multiplier: i32,
    input2_shift: i32,
    output_offset: i32,
    output_multiplier: i32,
    output_shift: i32,
    lo: i32,
    hi: i32,
}

/// `Params::wide` for int16 tensors on the general path.
const WIDE: u32 = 1;
/// `Params::wide` for int16 ADD on the power-of-two path.
const WIDE_POT: u32 = 2;

/// Whether this file runs ADD / MUL for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16)
}

/// Below-one multiplier (`QuantizeMultiplierSmallerThanOneExp`): refused outside `(0, 1)`,
/// where the reference aborts.
fn below_one(m: f64) -> Result<(i32, i32), KernelError> {
    if !(m > 0.0 && m < 1.0) {
        return Err(KernelError::Unsupported {
            what: "quantized ADD scale ratio not below one",
        });
    }
    let (q, s) = quant::checked_multiplier(m, false)?;
    if s > 0 {
        return Err(KernelError::Unsupported {
            what: "quantized ADD scale ratio not below one",
        });
    }
    Ok((q, s))
}

/// Checks the operands and computes the parameters; `mul` selects MUL.
pub(crate) fn prepare(ctx: &mut Prepare<'_>, mul: bool) -> Result<(), KernelError> {
    let a = ctx.input(0)?;
    let b = ctx.input(1)?;
    let out = ctx.output(0)?;
    check::same_type(&a, &b)?;
    check::output_type(&a, &out)?;
    let wide = match a.dtype {
        TensorType::Int8 => false,
        TensorType::Int16 => true,
        _ => {
            return Err(KernelError::Unsupported {
                what: "quantized ADD / MUL other than int8 or int16",
            });
        }
    };
    let shape = broadcast_shape(&a.shape, &b.shape).ok_or(KernelError::Mismatch {
        what: "input shapes do not broadcast",
    })?;
    if shape.dims() != out.shape.dims() {
        return Err(KernelError::Mismatch {
            what: "output shape is not the inputs' broadcast shape",
        });
    }
    let (activation, pot_scale_int16) = if mul {
        (ctx.options::<MulOptions>()?.activation, false)
    } else {
        let o: AddOptions = ctx.options()?;
        (o.activation, o.pot_scale_int16)
    };
    let (s1, z1) = quant::per_tensor(a.quantization(), a.dtype)?;
    let (s2, z2) = quant::per_tensor(b.quantization(), b.dtype)?;
    let (so, zo) = quant::per_tensor(out.quantization(), out.dtype)?;
    if wide && (z1 != 0 || z2 != 0 || zo != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 ADD / MUL with a non-zero zero point",
        });
    }
    let (lo, hi) = quant::activation_range(activation, out.dtype, so, zo)?;
    let mut p = Params {
        wide: if wide { WIDE } else { 0 },
        left_shift: 0,
        input1_offset: -z1,
        input1_multiplier: 0,
        input1_shift: 0,
        input2_offset: -z2,
        input2_multiplier: 0,
        input2_shift: 0,
        output_offset: zo,
        output_multiplier: 0,
        output_shift: 0,
        lo,
        hi,
    };
    if mul {
        // float * float / float, as the reference writes it, widened afterwards.
        let m = f64::from(s1 * s2 / so);
        (p.output_multiplier, p.output_shift) = quant::checked_multiplier(m, false)?;
    } else {
        if wide && pot_scale_int16 {
            let logs = [s1, s2, so].map(checked_log2);
            if logs.iter().all(|&(_, pot)| pot) {
                pot_shifts(&mut p, logs[0].0, logs[1].0, logs[2].0)?;
                if a.shape.dims() != b.shape.dims() {
                    // The reference's power-of-two ADD indexes both inputs by the output's
                    // flat index: it has no broadcasting.
                    return Err(KernelError::Unsupported {
                        what: "int16 power-of-two ADD with broadcasting",
                    });
                }
                ctx.set_params(&p);
                return Ok(());
            }
        }
        p.left_shift = if wide { 15 } else { 20 };
        // `2 * max(s1, s2)` is a float (exact), the quotients double.
        let twice_max = f64::from(2.0 * s1.max(s2));
        (p.input1_multiplier, p.input1_shift) = below_one(f64::from(s1) / twice_max)?;
        (p.input2_multiplier, p.input2_shift) = below_one(f64::from(s2) / twice_max)?;
        (p.output_multiplier, p.output_shift) =
            below_one(twice_max / (f64::from(1i32 << p.left_shift) * f64::from(so)))?;
    }
    ctx.set_params(&p);
    Ok(())
}

/// The power-of-two path's shifts from the scales' log2 (inputs 1, 2, output), refused
/// where the reference's Prepare fails: one operand must have the output's scale, the other
/// a smaller one, at most 31 bits below (`RoundingDivideByPOT`'s range).
fn pot_shifts(p: &mut Params, l1: i32, l2: i32, lo: i32) -> Result<(), KernelError> {
    let (d1, d2) = (l1.saturating_sub(lo), l2.saturating_sub(lo));
    if (d1 != 0 && d2 != 0) || d1 > 0 || d2 > 0 {
        return Err(KernelError::Unsupported {
            what: "int16 power-of-two ADD where neither input has the output's scale, or one \
                   has a larger one",
        });
    }
    if d1.min(d2) < -31 {
        return Err(KernelError::Unsupported {
            what: "int16 power-of-two ADD with input scales over 2^31 apart",
        });
    }
    p.wide = WIDE_POT;
    (p.input1_shift, p.input2_shift) = (d1, d2);
    Ok(())
}

/// One element of the power-of-two int16 ADD (`reference_ops::Add(int16)`, `pot_scale`).
#[inline]
pub(crate) fn add_pot_one(p: &Params, x: i16, y: i16) -> i16 {
    // The operand with shift 0 is taken as it is (input 1 when both are 0).
    let (kept, shifted, right) = if p.input1_shift == 0 {
        (x, y, p.input2_shift)
    } else {
        (y, x, p.input1_shift)
    };
    let scaled = rounding_divide_by_pot_i16(shifted, right.unsigned_abs());
    i32::from(scaled.saturating_add(kept)).clamp(p.lo, p.hi) as i16
}

/// One ADD element (`AddFunc`).
#[inline]
pub(crate) fn add_one(p: &Params, x: i32, y: i32) -> i32 {
    let a = (p.input1_offset + x).wrapping_mul(1 << p.left_shift);
    let b = (p.input2_offset + y).wrapping_mul(1 << p.left_shift);
    let a = mbqm(a, p.input1_multiplier, p.input1_shift);
    let b = mbqm(b, p.input2_multiplier, p.input2_shift);
    let sum = a.wrapping_add(b);
    mbqm(sum, p.output_multiplier, p.output_shift)
        .wrapping_add(p.output_offset)
        .clamp(p.lo, p.hi)
}

/// Each int8 ADD operand's scaled value depends on that operand alone: two 256-entry tables
/// (built on the stack per invoke, for large tensors) replace two of the three fixed-point
/// multiplications per element. Indexed by `value + 128`.
pub(crate) fn add_tables(p: &Params) -> ([i32; 256], [i32; 256]) {
    let table = |offset: i32, m: i32, s: i32| {
        let mut t = [0i32; 256];
        for (v, slot) in (-128i32..=127).zip(t.iter_mut()) {
            *slot = mbqm((offset + v).wrapping_mul(1 << p.left_shift), m, s);
        }
        t
    };
    (
        table(p.input1_offset, p.input1_multiplier, p.input1_shift),
        table(p.input2_offset, p.input2_multiplier, p.input2_shift),
    )
}

/// One int8 ADD element from [`add_tables`]; equal to [`add_one`].
#[inline]
pub(crate) fn add_from_tables(p: &Params, t1: &[i32; 256], t2: &[i32; 256], x: i8, y: i8) -> i8 {
    let sum = t1[(i32::from(x) + 128) as usize & 255]
        .wrapping_add(t2[(i32::from(y) + 128) as usize & 255]);
    mbqm(sum, p.output_multiplier, p.output_shift)
        .wrapping_add(p.output_offset)
        .clamp(p.lo, p.hi) as i8
}

/// One MUL element (`MulElementwise`).
#[inline]
pub(crate) fn mul_one(p: &Params, x: i32, y: i32) -> i32 {
    let prod = (p.input1_offset + x).wrapping_mul(p.input2_offset + y);
    mbqm(prod, p.output_multiplier, p.output_shift)
        .wrapping_add(p.output_offset)
        .clamp(p.lo, p.hi)
}

pub(crate) fn eval(ctx: &mut Eval<'_>, mul: bool) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if so.elements() == 0 {
        return Ok(());
    }
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    if p.wide == WIDE_POT {
        let a = ctx.input::<i16>(0)?;
        let b = ctx.input::<i16>(1)?;
        let out = ctx.output::<i16>(0)?;
        return map2(&plan, a, b, out, |x, y| add_pot_one(&p, x, y));
    }
    let f = if mul { mul_one } else { add_one };
    if p.wide == 0 && !mul && so.elements() > 512 {
        let (t1, t2) = add_tables(&p);
        let a = ctx.input::<i8>(0)?;
        let b = ctx.input::<i8>(1)?;
        let out = ctx.output::<i8>(0)?;
        return map2(&plan, a, b, out, |x, y| add_from_tables(&p, &t1, &t2, x, y));
    }
    if p.wide == 0 {
        let a = ctx.input::<i8>(0)?;
        let b = ctx.input::<i8>(1)?;
        let out = ctx.output::<i8>(0)?;
        map2(&plan, a, b, out, |x, y| {
            f(&p, i32::from(x), i32::from(y)) as i8
        })
    } else {
        let a = ctx.input::<i16>(0)?;
        let b = ctx.input::<i16>(1)?;
        let out = ctx.output::<i16>(0)?;
        map2(&plan, a, b, out, |x, y| {
            f(&p, i32::from(x), i32::from(y)) as i16
        })
    }
}

#[cfg(test)]
mod tests;
