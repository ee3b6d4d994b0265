//! SELECT and SELECT_V2: `out = cond ? x : y`, as TensorFlow Lite's `select.cc` computes it.
//!
//! SELECT takes a condition of the inputs' shape, a scalar, or a vector choosing whole rows
//! along the first dimension; SELECT_V2 broadcasts condition and both inputs together. Both
//! copy elements without looking at them, so, as in LiteRT, every type of 8, 16, 32 or 64
//! bits runs (bool, int8, uint8, int16, uint16, float16, bfloat16, float32, int32, uint32,
//! int64, uint64, float64, complex64), quantized ones included (the inputs' quantization is
//! the output's). Strings have no fixed size, and LiteRT refuses them too.
//!
//! When every operand holds one element, the output keeps the model's shape whatever the
//! others' (LiteRT resizes it to itself). Broadcasting goes to 6 dimensions.

#[cfg(test)]
mod tests;

use super::base::broadcast::{Broadcast, broadcast_shape, select3};
use super::base::check::{self, SHORT};
use super::base::tensors::{words, words_mut};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};

/// SELECT: the condition has the inputs' shape, or is a scalar, or a vector choosing whole
/// rows along the first dimension.
pub static SELECT: Kernel = Kernel {
    op: BuiltinOperator::Select,
    prepare: prepare::<false>,
    init: None,
    eval: eval::<false>,
};

/// SELECT_V2: condition and both inputs broadcast together.
pub static SELECT_V2: Kernel = Kernel {
    op: BuiltinOperator::SelectV2,
    prepare: prepare::<true>,
    init: None,
    eval: eval::<true>,
};

/// How a select maps its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SelectMode {
    /// Every operand and the output hold one element (the output keeps the model's shape,
    /// as TensorFlow Lite does).
    Single,
    /// SELECT with a scalar or vector condition: `outer` rows of `inner` elements, each
    /// copied whole from `x` or `y`.
    Rows {
        /// Rows (the condition's elements).
        outer: usize,
        /// Elements per row.
        inner: usize,
    },
    /// Element-wise, broadcast (same shapes collapse to one row).
    Broadcast,
}

fn same(a: &Shape, b: &Shape) -> bool {
    a.dims() == b.dims()
}

fn check_len<T>(data: &[T], shape: &Shape) -> Result<(), KernelError> {
    if data.len() < shape.elements() {
        return Err(SHORT);
    }
    Ok(())
}

/// How SELECT (`V2 = false`) or SELECT_V2 maps condition `sc`, inputs `sx`, `sy` onto
/// output `so` (TensorFlow Lite's `select.cc` Prepare).
///
/// # Errors
/// A mismatch if the shapes do not fit or `so` is not the shape the op gives.
pub(crate) fn select_mode<const V2: bool>(
    sc: &Shape,
    sx: &Shape,
    sy: &Shape,
    so: &Shape,
) -> Result<SelectMode, KernelError> {
    if [sc, sx, sy, so].iter().all(|s| s.elements() == 1) {
        return Ok(SelectMode::Single);
    }
    if same(sc, sx) && same(sx, sy) {
        return if same(so, sx) {
            Ok(SelectMode::Broadcast)
        } else {
            Err(check::OUTPUT_SHAPE)
        };
    }
    if V2 {
        let shape = broadcast_shape(sc, sx)
            .and_then(|s| broadcast_shape(&s, sy))
            .ok_or(KernelError::Mismatch {
                what: "condition and inputs do not broadcast",
            })?;
        return if same(&shape, so) {
            Ok(SelectMode::Broadcast)
        } else {
            Err(check::OUTPUT_SHAPE)
        };
    }
    let low_rank = sc.rank() == 0 || (sc.rank() == 1 && sx.rank() >= 1 && sc.dim(0) == sx.dim(0));
    if !low_rank || !same(sx, sy) {
        return Err(KernelError::Mismatch {
            what: "SELECT needs inputs of one shape and a condition of that shape, a scalar, \
                   or a vector along their first dimension",
        });
    }
    if !same(so, sx) {
        return Err(check::OUTPUT_SHAPE);
    }
    let outer = sc.elements();
    let inner = if sc.rank() == 0 {
        sx.elements()
    } else {
        sx.dims().iter().skip(1).product()
    };
    Ok(SelectMode::Rows { outer, inner })
}

/// SELECT (`V2 = false`) or SELECT_V2: `out = cond ? x : y`.
///
/// # Errors
/// A mismatch if the shapes do not fit or a slice is shorter than its shape.
#[allow(clippy::too_many_arguments)]
pub(crate) fn select<T: Copy, const V2: bool>(
    c: &[bool],
    sc: &Shape,
    x: &[T],
    sx: &Shape,
    y: &[T],
    sy: &Shape,
    out: &mut [T],
    so: &Shape,
) -> Result<(), KernelError> {
    check_len(c, sc)?;
    check_len(x, sx)?;
    check_len(y, sy)?;
    match select_mode::<V2>(sc, sx, sy, so)? {
        SelectMode::Single => {
            let o = out.first_mut().ok_or(SHORT)?;
            let pick = *c.first().ok_or(SHORT)?;
            *o = *if pick { x.first() } else { y.first() }.ok_or(SHORT)?;
            Ok(())
        }
        SelectMode::Rows { outer, inner } => {
            if inner == 0 {
                return Ok(());
            }
            let n = outer.checked_mul(inner).ok_or(SHORT)?;
            let rows = out
                .get_mut(..n)
                .ok_or(SHORT)?
                .chunks_exact_mut(inner)
                .zip(x.get(..n).ok_or(SHORT)?.chunks_exact(inner))
                .zip(y.get(..n).ok_or(SHORT)?.chunks_exact(inner));
            for ((o, (xr, yr)), &pick) in rows.map(|((o, x), y)| (o, (x, y))).zip(c) {
                o.copy_from_slice(if pick { xr } else { yr });
            }
            Ok(())
        }
        SelectMode::Broadcast => {
            let plan = Broadcast::new(so, [sc, sx, sy])?;
            select3(&plan, c, x, y, out)
        }
    }
}

/// Bytes per element of the types a select copies (`TfLiteTypeGetSizeBits` of 8, 16, 32 or
/// 64), or `None`.
fn width(t: TensorType) -> Option<usize> {
    match t {
        TensorType::Bool | TensorType::Int8 | TensorType::Uint8 => Some(1),
        TensorType::Int16 | TensorType::Uint16 | TensorType::Float16 | TensorType::Bfloat16 => {
            Some(2)
        }
        TensorType::Float32 | TensorType::Int32 | TensorType::Uint32 => Some(4),
        TensorType::Int64
        | TensorType::Uint64
        | TensorType::Float64
        | TensorType::Complex64 => Some(8),
        _ => None,
    }
}

fn prepare<const V2: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let c = ctx.input(0)?;
    let x = ctx.input(1)?;
    let y = ctx.input(2)?;
    let out = ctx.output(0)?;
    if c.dtype != TensorType::Bool {
        return Err(KernelError::Mismatch {
            what: "condition is not BOOL",
        });
    }
    check::same_type(&x, &y)?;
    check::output_type(&x, &out)?;
    if width(x.dtype).is_none() {
        return Err(KernelError::Unsupported {
            what: "element type (one of 8, 16, 32 or 64 bits; strings and sub-byte types are \
                   not copied)",
        });
    }
    select_mode::<V2>(&c.shape, &x.shape, &y.shape, &out.shape)?;
    Ok(())
}

/// The select over elements viewed as `W`, the type's width.
fn run<W, const V2: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError>
where
    W: Copy + zerocopy::FromBytes + zerocopy::IntoBytes + zerocopy::Immutable + zerocopy::KnownLayout,
{
    let c = ctx.input::<bool>(0)?;
    let x = words::<W>(ctx.input_bytes(1)?)?;
    let y = words::<W>(ctx.input_bytes(2)?)?;
    let (sc, sx, sy) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.input_shape(2)?,
    );
    let so = ctx.output_shape(0)?;
    let out = words_mut::<W>(ctx.output_bytes(0)?)?;
    select::<W, V2>(c, &sc, x, &sx, y, &sy, out, &so)
}

fn eval<const V2: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    // An empty output comes from empty operands: nothing to read or write.
    if ctx.output_shape(0)?.elements() == 0 {
        return Ok(());
    }
    match width(ctx.input_type(1)?) {
        Some(1) => run::<u8, V2>(ctx),
        Some(2) => run::<u16, V2>(ctx),
        Some(4) => run::<u32, V2>(ctx),
        Some(8) => run::<u64, V2>(ctx),
        _ => Err(check::TYPE),
    }
}
