//! ADD, SUB, MUL, DIV and SQUARED_DIFFERENCE on quantized tensors (int8, uint8, int16), with
//! broadcasting, as LiteRT's reference kernels compute each element, Prepare's parameters
//! included:
//!
//! - ADD and SUB (`AddElementwise`, `BroadcastQuantSubSlow`): both operands, offset by their
//!   zero points, are shifted left (20 bits for 8-bit types, 15 for int16), each scaled by its
//!   multiplier (`scale / (2 * max scale)`), summed or subtracted, and the result scaled by
//!   `2 * max scale / (2^shift * output scale)`. ADD needs every multiplier below one; SUB's
//!   output multiplier may be above one (`QuantizeMultiplierGreaterThanOne`), which the
//!   reference then applies with a negative rounding shift (see `base::rescale`).
//! - SQUARED_DIFFERENCE (int8): the same with a 7-bit shift, the difference squared, and the
//!   output multiplier `(2 * max scale)^2 / (2^14 * output scale)`.
//! - MUL (`MulElementwise`): the product of the offset operands scaled by `s1 * s2 / s_out`
//!   (a `float` product and quotient, as the reference computes it, then `QuantizeMultiplier`).
//!   int16 x int16 into int8 or uint8 (the LSTM path) is a Q0.15 product rounded by 2^8.
//! - DIV (`DivElementwise`): the divisor's reciprocal (`GetReciprocal`), the numerator shifted
//!   to full headroom, and the quotient scaled by `s1 / (s2 * s_out)`; a divisor at its zero
//!   point anywhere in the tensor fails the invoke, as LiteRT's check does.
//!
//! Then the output zero point and the fused activation's clamp.
//!
//! Where the reference's integer arithmetic leaves its defined range, tessera computes what
//! LiteRT's x86 build does (`base::rescale`), so the outputs still equal LiteRT's: quantized
//! DIV of a numerator within a few steps of its zero point (its headroom shift then takes the
//! final rounding shift past 31 bits, and LiteRT's answer is off, up to the clamp, for a
//! numerator one step below the zero point), SUB whose output multiplier passes one, and MUL
//! or DIV with an output scale so fine that the multiplier's shift passes 31 (Coral's traffic
//! model has such MULs).
//!
//! int16 ADD and SUB take the reference's power-of-two path instead when the operator's
//! `pot_scale_int16` is set and every scale passes `CheckedLog2`: the operand whose scale
//! differs from the output's is divided by the power of two between them (`RoundingDivideByPOT`
//! in int16), then a saturating int16 add or subtract and the clamp (ADD's has no
//! broadcasting in the reference, so tessera refuses it).

use super::super::base::broadcast::{Broadcast, binary_operands, map2};
use super::super::base::check;
use super::super::base::quant::fixed_point::{
    checked_log2, rounding_divide_by_pot_i16, saturating_rounding_multiply_by_pot,
};
use super::super::base::quant::{self, saturating_rounding_doubling_high_mul};
use super::super::base::rescale::{
    multiplier_above_one, multiplier_any, multiplier_below_one,
    multiply_by_quantized_multiplier_any as mbqm, multiply_smaller_than_one_exp, shift_and_scale,
};
use super::{op, quantized_int16};
use crate::interpreter::{Desc, Eval, KernelError, Prepare};
use crate::model::{AddOptions, DivOptions, MulOptions, SubOptions, TensorType};
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    /// [`GENERAL`], [`POT`] or [`MIXED`] (never the plain kernels' 0).
    path: u32,
    left_shift: i32,
    input1_offset: i32,
    input1_multiplier: i32,
    /// On the power-of-two path, input 1's right shift (`<= 0`).
    input1_shift: i32,
    input2_offset: i32,
    input2_multiplier: i32,
    /// On the power-of-two path, input 2's right shift (`<= 0`).
    input2_shift: i32,
    output_offset: i32,
    output_multiplier: i32,
    output_shift: i32,
    lo: i32,
    hi: i32,
}

/// `Params::path`: the general rescaling (or MUL's and DIV's single multiplier).
const GENERAL: u32 = 1;
/// `Params::path`: int16 ADD or SUB on the power-of-two path.
const POT: u32 = 2;
/// `Params::path`: int16 x int16 MUL into int8 or uint8.
const MIXED: u32 = 3;

/// Whether this file runs `OP` for input `a` and output `out` (LiteRT's dispatch: ADD on
/// int16 only when the input carries quantization, MUL on int16 only when the output does).
pub(crate) fn handles<const OP: u8>(a: &Desc<'_>, out: &Desc<'_>) -> bool {
    let eight = matches!(a.dtype, TensorType::Int8 | TensorType::Uint8);
    match OP {
        op::ADD => eight || quantized_int16(a),
        op::SUB | op::DIV => eight || a.dtype == TensorType::Int16,
        op::MUL => {
            matches!(out.dtype, TensorType::Int8 | TensorType::Uint8) || quantized_int16(out)
        }
        op::SQD => eight,
        _ => false,
    }
}

/// The op's fused activation and, for ADD and SUB, its `pot_scale_int16`.
fn options<const OP: u8>(ctx: &Prepare<'_>) -> Result<(crate::model::Activation, bool), KernelError> {
    Ok(match OP {
        op::ADD => {
            let o: AddOptions = ctx.options()?;
            (o.activation, o.pot_scale_int16)
        }
        op::SUB => {
            let o: SubOptions = ctx.options()?;
            (o.activation, o.pot_scale_int16)
        }
        op::MUL => (ctx.options::<MulOptions>()?.activation, false),
        op::DIV => (ctx.options::<DivOptions>()?.activation, false),
        _ => (crate::model::Activation::None, false),
    })
}

/// Checks the operands and computes the parameters.
pub(crate) fn prepare<const OP: u8>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (a, b, out) = binary_operands(ctx)?;
    let mixed = OP == op::MUL
        && a.dtype == TensorType::Int16
        && matches!(out.dtype, TensorType::Int8 | TensorType::Uint8);
    if !mixed {
        check::output_type(&a, &out)?;
    }
    let supported = match a.dtype {
        TensorType::Int8 => true,
        TensorType::Uint8 | TensorType::Int16 => OP != op::SQD,
        _ => false,
    };
    if !supported {
        return Err(KernelError::Unsupported {
            what: "quantized type (int8, uint8, int16; SQUARED_DIFFERENCE int8)",
        });
    }
    let wide = a.dtype == TensorType::Int16;
    let (activation, pot_scale_int16) = options::<OP>(ctx)?;
    let (s1, z1) = quant::per_tensor(a.quantization(), a.dtype)?;
    let (s2, z2) = quant::per_tensor(b.quantization(), b.dtype)?;
    let (so, zo) = quant::per_tensor(out.quantization(), out.dtype)?;
    let symmetric = z1 == 0 && z2 == 0 && zo == 0;
    if wide && !mixed && OP != op::DIV && !symmetric {
        return Err(KernelError::Unsupported {
            what: "int16 ADD / SUB / MUL with a non-zero zero point",
        });
    }
    let (lo, hi) = quant::activation_range(activation, out.dtype, so, zo)?;
    let mut p = Params {
        path: GENERAL,
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
    match OP {
        op::MUL if mixed => p.path = MIXED,
        op::MUL => {
            // float * float / float, as the reference writes it, widened afterwards; any
            // shift (a degenerate output scale gives one past 30, see `base::rescale`).
            let m = f64::from(s1 * s2 / so);
            (p.output_multiplier, p.output_shift) = multiplier_any(m)?;
        }
        op::DIV => {
            // float / (float * float), widened afterwards; any shift (it only feeds the
            // any-shift rounding of `div_one`).
            let m = f64::from(s1 / (s2 * so));
            (p.output_multiplier, p.output_shift) = multiplier_any(m)?;
        }
        op::ADD | op::SUB => {
            if wide && pot_scale_int16 {
                let logs = [s1, s2, so].map(checked_log2);
                if logs.iter().all(|&(_, pot)| pot) {
                    pot_shifts(&mut p, logs[0].0, logs[1].0, logs[2].0)?;
                    if OP == op::ADD && a.shape.dims() != b.shape.dims() {
                        // The reference's power-of-two ADD indexes both inputs by the
                        // output's flat index: it has no broadcasting.
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
            (p.input1_multiplier, p.input1_shift) = multiplier_below_one(f64::from(s1) / twice_max)?;
            (p.input2_multiplier, p.input2_shift) = multiplier_below_one(f64::from(s2) / twice_max)?;
            let m = twice_max / (f64::from(1i32 << p.left_shift) * f64::from(so));
            (p.output_multiplier, p.output_shift) = if OP == op::SUB && m > 1.0 {
                multiplier_above_one(m)?
            } else {
                multiplier_below_one(m)?
            };
        }
        _ => {
            // SQUARED_DIFFERENCE (int8): no activation, the type's range.
            p.left_shift = 7;
            let twice_max = f64::from(2.0 * s1.max(s2));
            (p.input1_multiplier, p.input1_shift) = multiplier_below_one(f64::from(s1) / twice_max)?;
            (p.input2_multiplier, p.input2_shift) = multiplier_below_one(f64::from(s2) / twice_max)?;
            let m = (twice_max * twice_max) / (f64::from(1i32 << 14) * f64::from(so));
            (p.output_multiplier, p.output_shift) = multiplier_below_one(m)?;
        }
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
            what: "int16 power-of-two ADD / SUB where neither input has the output's scale, or \
                   one has a larger one",
        });
    }
    if d1.min(d2) < -31 {
        return Err(KernelError::Unsupported {
            what: "int16 power-of-two ADD / SUB with input scales over 2^31 apart",
        });
    }
    p.path = POT;
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
    i32::from(scaled.saturating_add(kept)).max(p.lo).min(p.hi) as i16
}

/// One element of the power-of-two int16 SUB (`Sub16` / `BroadcastSub16POTSlow`: each
/// operand divided by its power of two in int16, the difference clamped; within int16 that
/// is `Sub16`'s saturating subtract too).
#[inline]
pub(crate) fn sub_pot_one(p: &Params, x: i16, y: i16) -> i16 {
    let a = rounding_divide_by_pot_i16(x, p.input1_shift.unsigned_abs());
    let b = rounding_divide_by_pot_i16(y, p.input2_shift.unsigned_abs());
    (i32::from(a) - i32::from(b)).max(p.lo).min(p.hi) as i16
}

/// Operand 1 offset, shifted and scaled (ADD, SUB, SQUARED_DIFFERENCE).
#[inline(always)]
fn scaled1(p: &Params, x: i32) -> i32 {
    shift_and_scale(
        x,
        p.input1_offset,
        p.left_shift.unsigned_abs(),
        p.input1_multiplier,
        p.input1_shift,
    )
}

/// Operand 2 offset, shifted and scaled.
#[inline(always)]
fn scaled2(p: &Params, y: i32) -> i32 {
    shift_and_scale(
        y,
        p.input2_offset,
        p.left_shift.unsigned_abs(),
        p.input2_multiplier,
        p.input2_shift,
    )
}

/// The output of ADD, SUB or SQUARED_DIFFERENCE from the scaled operands.
#[inline(always)]
fn combine<const OP: u8>(p: &Params, a: i32, b: i32) -> i32 {
    let raw = match OP {
        op::SUB => a.wrapping_sub(b),
        op::SQD => {
            let d = a.wrapping_sub(b);
            d.wrapping_mul(d)
        }
        _ => a.wrapping_add(b),
    };
    multiply_smaller_than_one_exp(raw, p.output_multiplier, p.output_shift)
        .wrapping_add(p.output_offset)
        .max(p.lo)
        .min(p.hi)
}

/// One ADD, SUB or SQUARED_DIFFERENCE element.
#[inline]
pub(crate) fn rescaled_one<const OP: u8>(p: &Params, x: i32, y: i32) -> i32 {
    combine::<OP>(p, scaled1(p, x), scaled2(p, y))
}

/// Each 8-bit operand's scaled value depends on that operand alone: two 256-entry tables
/// (built on the stack per invoke, for large tensors) replace two of the three fixed-point
/// multiplications per element. Indexed by the stored byte.
pub(crate) fn tables<T: Quantized>(p: &Params) -> ([i32; 256], [i32; 256]) {
    let mut t1 = [0i32; 256];
    let mut t2 = [0i32; 256];
    for (byte, (a, b)) in (0..=255u8).zip(t1.iter_mut().zip(t2.iter_mut())) {
        let v = T::from_byte(byte).get();
        *a = scaled1(p, v);
        *b = scaled2(p, v);
    }
    (t1, t2)
}

/// One MUL element (`MulElementwise`).
#[inline]
pub(crate) fn mul_one(p: &Params, x: i32, y: i32) -> i32 {
    let prod = p
        .input1_offset
        .wrapping_add(x)
        .wrapping_mul(p.input2_offset.wrapping_add(y));
    mbqm(prod, p.output_multiplier, p.output_shift)
        .wrapping_add(p.output_offset)
        .max(p.lo)
        .min(p.hi)
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul` on `int16_t` (a Q0.15 product).
#[inline]
fn doubling_high_mul_i16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// One int16 x int16 MUL element into an 8-bit output (`reference_integer_ops::Mul(int16,
/// int8)`): the Q0.15 product divided by 2^8, clamped in int16 against the activation range
/// less the output zero point (C's int16 truncations kept), plus the zero point; the caller
/// truncates to its type.
#[inline]
pub(crate) fn mixed_one(p: &Params, x: i16, y: i16) -> i32 {
    let r = rounding_divide_by_pot_i16(doubling_high_mul_i16(x, y), 8);
    let hi = p.hi.wrapping_sub(p.output_offset) as i16;
    let lo = p.lo.wrapping_sub(p.output_offset) as i16;
    p.output_offset.wrapping_add(i32::from(lo.max(hi.min(r))))
}

/// gemmlowp's `one_over_one_plus_x_for_x_in_0_1`: `1 / (1 + a)` for `a` in Q0.31, as Q0.31
/// (Newton-Raphson, three steps, in Q2.29). Its last step, `Rescale<0>(ExactMulByPot<-1>(x))`,
/// is a saturating `x << 1`; base's `fixed_point` version shifts `x >> 1` left by 2 there,
/// which drops `x`'s lowest bit, and DIV's exhaustive int8 comparison with LiteRT needs this
/// one.
fn one_over_one_plus_x(a: i32) -> i32 {
    const C48_OVER_17: i32 = 1_515_870_810;
    const CNEG32_OVER_17: i32 = -1_010_580_540;
    const ONE_Q2: i32 = 1 << 29;
    let mul = saturating_rounding_doubling_high_mul;
    // RoundingHalfSum(a, 1.0).
    let sum = i64::from(a) + i64::from(i32::MAX);
    let half_denominator = ((sum + if sum >= 0 { 1 } else { -1 }) / 2) as i32;
    let mut x = C48_OVER_17.wrapping_add(mul(half_denominator, CNEG32_OVER_17));
    for _ in 0..3 {
        let one_minus = ONE_Q2.wrapping_sub(mul(half_denominator, x));
        x = x.wrapping_add(saturating_rounding_multiply_by_pot(mul(x, one_minus), 2));
    }
    saturating_rounding_multiply_by_pot(x, 1)
}

/// `GetReciprocal(x, 31, &shift)` for `x > 0`: `1 / x` scaled into Q0.31 and the bits `x`
/// has above one.
fn reciprocal(x: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let shifted_minus_one = ((x as u32)
        .checked_shl(headroom_plus_one)
        .unwrap_or(0)
        .wrapping_sub(1 << 31)) as i32;
    (
        one_over_one_plus_x(shifted_minus_one),
        31 - headroom_plus_one as i32,
    )
}

/// `CountLeadingSignBits` of an `int32_t` (GCC's `__builtin_clrsb`; 31 for 0 and -1).
fn leading_sign_bits(x: i32) -> i32 {
    let v = if x < 0 { !x } else { x };
    v.leading_zeros() as i32 - 1
}

/// One DIV element (`DivElementwise`); `y` is never at input 2's zero point (checked first).
#[inline]
pub(crate) fn div_one(p: &Params, x: i32, y: i32) -> i32 {
    let mut a = p.input1_offset.wrapping_add(x);
    let mut b = p.input2_offset.wrapping_add(y);
    if b < 0 {
        a = a.wrapping_neg();
        b = b.wrapping_neg();
    }
    let (inverse, recip_shift) = reciprocal(b);
    let headroom = leading_sign_bits(a);
    // MultiplyByQuantizedMultiplierGreaterThanOne: `a * 2^headroom` fits by construction
    // (0 and -1 excepted, whose products C wraps as here).
    let unscaled = saturating_rounding_doubling_high_mul(
        a.wrapping_mul(1i32.wrapping_shl(headroom as u32)),
        inverse,
    );
    let total_shift = p
        .output_shift
        .wrapping_sub(recip_shift)
        .wrapping_sub(headroom);
    multiply_smaller_than_one_exp(unscaled, p.output_multiplier, total_shift)
        .wrapping_add(p.output_offset)
        .max(p.lo)
        .min(p.hi)
}

/// A stored quantized value.
pub(crate) trait Quantized: Element {
    /// As an `int32_t`.
    fn get(self) -> i32;
    /// An `int32_t` converted to the type (C's truncation).
    fn put(v: i32) -> Self;
    /// The value whose stored byte is `b` (8-bit types; others: never called).
    fn from_byte(b: u8) -> Self;
    /// The stored byte (8-bit types).
    fn byte(self) -> usize;
    /// Whether the type is 8 bits wide (the table path).
    const EIGHT: bool;
}

impl Quantized for i8 {
    fn get(self) -> i32 {
        self.into()
    }
    fn put(v: i32) -> Self {
        v as i8
    }
    fn from_byte(b: u8) -> Self {
        b as i8
    }
    fn byte(self) -> usize {
        usize::from(self as u8)
    }
    const EIGHT: bool = true;
}

impl Quantized for u8 {
    fn get(self) -> i32 {
        self.into()
    }
    fn put(v: i32) -> Self {
        v as u8
    }
    fn from_byte(b: u8) -> Self {
        b
    }
    fn byte(self) -> usize {
        usize::from(self)
    }
    const EIGHT: bool = true;
}

impl Quantized for i16 {
    fn get(self) -> i32 {
        self.into()
    }
    fn put(v: i32) -> Self {
        v as i16
    }
    fn from_byte(b: u8) -> Self {
        b.into()
    }
    fn byte(self) -> usize {
        0
    }
    const EIGHT: bool = false;
}

/// Elements from which the per-invoke tables pay for themselves.
const TABLE_FROM: usize = 512;

/// DIV's check: no element of the divisor tensor at its zero point.
fn check_divisor<T: Quantized>(ctx: &Eval<'_>, p: &Params, n: usize) -> Result<(), KernelError> {
    if n == 0 {
        return Ok(());
    }
    let b = ctx.input::<T>(1)?;
    let zero = p.input2_offset.wrapping_neg();
    if b.get(..n).ok_or(check::SHORT)?.iter().any(|v| v.get() == zero) {
        return Err(KernelError::Mismatch {
            what: "quantized division by zero (a divisor at its zero point)",
        });
    }
    Ok(())
}

fn run<T: Quantized, const OP: u8>(ctx: &mut Eval<'_>, p: &Params) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if OP == op::DIV {
        check_divisor::<T>(ctx, p, sb.elements())?;
    }
    if so.elements() == 0 {
        return Ok(());
    }
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    let a = ctx.input::<T>(0)?;
    let b = ctx.input::<T>(1)?;
    let out = ctx.output::<T>(0)?;
    match OP {
        op::MUL => map2(&plan, a, b, out, |x, y| T::put(mul_one(p, x.get(), y.get()))),
        op::DIV => map2(&plan, a, b, out, |x, y| T::put(div_one(p, x.get(), y.get()))),
        _ if T::EIGHT && so.elements() >= TABLE_FROM => {
            let (t1, t2) = tables::<T>(p);
            map2(&plan, a, b, out, |x, y| {
                let s1 = t1.get(x.byte()).copied().unwrap_or(0);
                let s2 = t2.get(y.byte()).copied().unwrap_or(0);
                T::put(combine::<OP>(p, s1, s2))
            })
        }
        _ => map2(&plan, a, b, out, |x, y| {
            T::put(rescaled_one::<OP>(p, x.get(), y.get()))
        }),
    }
}

/// The power-of-two int16 ADD or SUB.
fn run_pot<const OP: u8>(ctx: &mut Eval<'_>, p: &Params) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if so.elements() == 0 {
        return Ok(());
    }
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    let a = ctx.input::<i16>(0)?;
    let b = ctx.input::<i16>(1)?;
    let out = ctx.output::<i16>(0)?;
    if OP == op::SUB {
        map2(&plan, a, b, out, |x, y| sub_pot_one(p, x, y))
    } else {
        map2(&plan, a, b, out, |x, y| add_pot_one(p, x, y))
    }
}

/// int16 x int16 MUL into `T` (int8 or uint8).
fn run_mixed<T: Quantized>(ctx: &mut Eval<'_>, p: &Params) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if so.elements() == 0 {
        return Ok(());
    }
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    let a = ctx.input::<i16>(0)?;
    let b = ctx.input::<i16>(1)?;
    let out = ctx.output::<T>(0)?;
    map2(&plan, a, b, out, |x, y| T::put(mixed_one(p, x, y)))
}

pub(crate) fn eval<const OP: u8>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    match (p.path, ctx.input_type(0)?, ctx.output_type(0)?) {
        (POT, TensorType::Int16, _) if matches!(OP, op::ADD | op::SUB) => run_pot::<OP>(ctx, &p),
        (MIXED, TensorType::Int16, TensorType::Int8) if OP == op::MUL => run_mixed::<i8>(ctx, &p),
        (MIXED, TensorType::Int16, TensorType::Uint8) if OP == op::MUL => {
            run_mixed::<u8>(ctx, &p)
        }
        (GENERAL, TensorType::Int8, _) => run::<i8, OP>(ctx, &p),
        (GENERAL, TensorType::Uint8, _) if OP != op::SQD => run::<u8, OP>(ctx, &p),
        (GENERAL, TensorType::Int16, _) if OP != op::SQD => run::<i16, OP>(ctx, &p),
        _ => Err(check::TYPE),
    }
}

#[cfg(test)]
mod tests;
