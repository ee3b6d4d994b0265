//! The scaffold of a float32 element-wise unary op: set-up checks a float32 input and an
//! output of its type and shape and records the element count (and one float option, such as
//! LEAKY_RELU's alpha); eval maps a [`FloatFn`] over the elements. A new float op is a file
//! with its function and a [`Kernel`](crate::interpreter::Kernel) naming [`prepare`] and
//! [`eval`]:
//!
//! ```ignore
//! pub static ABS: Kernel = Kernel {
//!     op: BuiltinOperator::Abs,
//!     prepare: elementwise::prepare,
//!     init: None,
//!     eval: elementwise::eval::<Abs>,
//! };
//! struct Abs;
//! impl FloatFn for Abs {
//!     fn apply(x: f32, _: f32) -> f32 { math::abs(x) }
//! }
//! ```

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::check;
use super::tensors::{input_n, output_n};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::TensorType;

/// A float function of one element and the op's option, as a type, so that
/// [`eval::<F>`](eval) is a plain `fn` a kernel can name.
pub(crate) trait FloatFn {
    /// `f(x)`; `option` is what set-up recorded ([`prepare_with`]), 0 by default.
    fn apply(x: f32, option: f32) -> f32;
}

/// What set-up keeps: the element count and the option.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
    option: f32,
}

/// Checks a float32 input and an output of its type and shape; returns the element count.
///
/// # Errors
/// [`KernelError::Unsupported`] for another input type; the [`check::unary`] errors.
pub(crate) fn check_float(ctx: &Prepare<'_>) -> Result<usize, KernelError> {
    if ctx.input(0)?.dtype != TensorType::Float32 {
        return Err(KernelError::Unsupported {
            what: "input type other than FLOAT32 (quantized forms are not implemented)",
        });
    }
    let (input, _) = check::unary(ctx)?;
    Ok(input.shape.elements())
}

/// Set-up of a float element-wise op with no option.
///
/// # Errors
/// As [`check_float`].
pub(crate) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_with(ctx, 0.0)
}

/// Set-up of a float element-wise op whose function takes `option`.
///
/// # Errors
/// As [`check_float`].
pub(crate) fn prepare_with(ctx: &mut Prepare<'_>, option: f32) -> Result<(), KernelError> {
    let elements = check::dim(check_float(ctx)?)?;
    ctx.set_params(&Params { elements, option });
    Ok(())
}

/// Applies `f` to every element of float input 0 into output 0.
///
/// # Errors
/// A mismatch if a tensor is shorter than set-up recorded.
#[inline(always)]
pub(crate) fn map(ctx: &mut Eval<'_>, f: impl Fn(f32, f32) -> f32) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<f32>(ctx, 0, n)?;
    let y = output_n::<f32>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        *y = f(x, p.option);
    }
    Ok(())
}

/// Eval of a float element-wise op: [`map`] with `F`.
///
/// # Errors
/// As [`map`].
pub(crate) fn eval<F: FloatFn>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    map(ctx, F::apply)
}
