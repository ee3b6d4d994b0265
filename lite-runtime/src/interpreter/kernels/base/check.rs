//! The checks every kernel makes at set-up (TensorFlow Lite Micro's `TF_LITE_ENSURE_*` and
//! `kernel_util`), each condition with one error value, so a model refused for the same reason
//! by two kernels reads the same. Kernels add their own checks for what only they need.

use crate::interpreter::{Desc, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::TensorType;

/// A tensor holds fewer elements than its shape says (a planning bug, reported not read).
pub(crate) const SHORT: KernelError = KernelError::Mismatch {
    what: "tensor shorter than its shape",
};
/// The output's element type is not the input's.
pub(crate) const OUTPUT_TYPE: KernelError = KernelError::Mismatch {
    what: "output type differs from the input's",
};
/// The output's shape is not the one the op computes from its inputs (defined beside
/// `Prepare::set_output_shape`, which refuses with it too).
pub(crate) use crate::interpreter::kernel::OUTPUT_SHAPE;
/// Inputs that must share an element type do not.
pub(crate) const INPUT_TYPES: KernelError = KernelError::Mismatch {
    what: "inputs differ in type",
};
/// An axis (from an option or an operand) outside the tensor's dimensions.
pub(crate) const AXIS: KernelError = KernelError::Mismatch {
    what: "axis outside the input's dimensions",
};
/// A size the kernel keeps in 32 bits is larger.
pub(crate) const DIM_OVER_U32: KernelError = KernelError::Unsupported {
    what: "dimension over u32",
};
/// An operand the kernel reads at set-up (axes, a shape) is computed by the graph.
pub(crate) const NOT_CONSTANT: KernelError = KernelError::Unsupported {
    what: "an operand that must be a constant is computed by the graph",
};
/// A constant holds another number of bytes than its shape and type give.
pub(crate) const CONSTANT_SIZE: KernelError = KernelError::Mismatch {
    what: "constant of another size than its shape",
};
/// An element type the kernel does not run.
pub(crate) const TYPE: KernelError = KernelError::Unsupported {
    what: "element type",
};

/// What the `_INT8` registrations (TensorFlow Lite Micro's `Register_X_INT8`: one type's
/// bodies linked, for firmware flash) say at set-up of an operator of another type.
pub(crate) const NOT_INT8: KernelError = KernelError::Unsupported {
    what: "a type this registration leaves out (the _INT8 kernels run int8 only)",
};

/// `v` as the `u32` a kernel's parameters keep.
///
/// # Errors
/// [`DIM_OVER_U32`].
pub(crate) fn dim(v: usize) -> Result<u32, KernelError> {
    u32::try_from(v).map_err(|_| DIM_OVER_U32)
}

/// `a` and `b` have one element type.
///
/// # Errors
/// [`INPUT_TYPES`].
pub(crate) fn same_type(a: &Desc<'_>, b: &Desc<'_>) -> Result<(), KernelError> {
    if a.dtype == b.dtype {
        Ok(())
    } else {
        Err(INPUT_TYPES)
    }
}

/// `output` has `input`'s element type.
///
/// # Errors
/// [`OUTPUT_TYPE`].
pub(crate) fn output_type(input: &Desc<'_>, output: &Desc<'_>) -> Result<(), KernelError> {
    if input.dtype == output.dtype {
        Ok(())
    } else {
        Err(OUTPUT_TYPE)
    }
}

/// `output` has shape `expected`.
///
/// # Errors
/// [`OUTPUT_SHAPE`].
pub(crate) fn output_shape(output: &Desc<'_>, expected: &Shape) -> Result<(), KernelError> {
    if output.shape.dims() == expected.dims() {
        Ok(())
    } else {
        Err(OUTPUT_SHAPE)
    }
}

/// Input 0 and output 0 of an element-wise unary op: the output has the input's type and
/// shape. Returns them.
///
/// # Errors
/// [`OUTPUT_TYPE`], [`OUTPUT_SHAPE`], or a missing operand.
pub(crate) fn unary<'m>(ctx: &Prepare<'m>) -> Result<(Desc<'m>, Desc<'m>), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    output_type(&input, &output)?;
    output_shape(&output, &input.shape)?;
    Ok((input, output))
}

/// `axis` (negative counts from the end) as an index below `rank`.
///
/// # Errors
/// [`AXIS`].
pub(crate) fn axis(axis: i64, rank: usize) -> Result<usize, KernelError> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let a = if axis < 0 { axis + r } else { axis };
    if (0..r).contains(&a) {
        Ok(a as usize)
    } else {
        Err(AXIS)
    }
}

/// The integers of a constant INT32 or INT64 operand (little-endian in the model), one by
/// one.
///
/// # Errors
/// [`NOT_CONSTANT`] if the graph computes it; [`CONSTANT_SIZE`] if its bytes do not match
/// its shape; [`TYPE`] for another type.
pub(crate) fn constant_ints<'m>(
    d: &Desc<'m>,
) -> Result<impl Iterator<Item = i64> + use<'m>, KernelError> {
    let width = match d.dtype {
        TensorType::Int32 => 4,
        TensorType::Int64 => 8,
        _ => return Err(TYPE),
    };
    let bytes = d.constant().ok_or(NOT_CONSTANT)?;
    if bytes.len() != d.shape.elements().saturating_mul(width) {
        return Err(CONSTANT_SIZE);
    }
    Ok(bytes.chunks_exact(width).map(move |b| {
        let mut w = [0u8; 8];
        w[..width].copy_from_slice(b);
        if width == 4 {
            i64::from(i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        } else {
            i64::from_le_bytes(w)
        }
    }))
}

/// The reduction axes of constant INT32 operand `axes` over a tensor of rank `rank`, as a
/// bit mask (negative axes count from the end, duplicates count once). A scalar has no axis
/// to reduce: TensorFlow Lite ignores the operand's values then.
///
/// # Errors
/// [`KernelError::Mismatch`] if the axes are not INT32; as [`constant_ints`]; [`AXIS`] for
/// an axis outside the rank.
pub(crate) fn axes_mask(axes: &Desc<'_>, rank: usize) -> Result<u32, KernelError> {
    if axes.dtype != TensorType::Int32 {
        return Err(KernelError::Mismatch {
            what: "axes are not INT32",
        });
    }
    let values = constant_ints(axes)?;
    if rank == 0 {
        return Ok(0);
    }
    let mut mask = 0u32;
    for a in values {
        mask |= 1 << axis(a, rank)?;
    }
    Ok(mask)
}

/// The shape a reduction over `mask` gives `input` (reduced dimensions dropped, or kept as 1
/// with `keep_dims`), and how many input elements make one output element.
#[must_use]
pub(crate) fn reduced_shape(input: &Shape, mask: u32, keep_dims: bool) -> (Shape, usize) {
    let mut dims = [0usize; MAX_DIMS];
    let mut rank = 0;
    let mut count = 1usize;
    for (i, &d) in input.dims().iter().enumerate() {
        if mask >> i & 1 == 1 {
            count = count.saturating_mul(d);
            if keep_dims {
                dims[rank] = 1;
                rank += 1;
            }
        } else {
            dims[rank] = d;
            rank += 1;
        }
    }
    (Shape::new(&dims[..rank]).unwrap_or(Shape::scalar()), count)
}

/// A CONCATENATION's inputs joined along `axis` (negative counts from the end): every input
/// of input 0's type and rank, equal outside the axis; the output of that type and of the
/// joined shape. Returns the axis as an index.
///
/// # Errors
/// [`INPUT_TYPES`], [`AXIS`], [`OUTPUT_TYPE`], [`OUTPUT_SHAPE`], or a mismatch naming inputs
/// that differ outside the axis.
pub(crate) fn concatenation(ctx: &Prepare<'_>, axis_option: i32) -> Result<usize, KernelError> {
    let first = ctx.input(0)?;
    let rank = first.shape.rank();
    let at = axis(i64::from(axis_option), rank)?;
    let mut dims = [0usize; MAX_DIMS];
    dims[..rank].copy_from_slice(first.shape.dims());
    dims[at] = 0;
    for k in 0..ctx.input_count() {
        let d = ctx.input(k)?;
        same_type(&first, &d)?;
        let fits = d.shape.rank() == rank
            && d.shape
                .dims()
                .iter()
                .zip(first.shape.dims())
                .enumerate()
                .all(|(i, (a, b))| i == at || a == b);
        if !fits {
            return Err(KernelError::Mismatch {
                what: "inputs differ outside the concatenation axis",
            });
        }
        dims[at] += d.shape.dims()[at];
    }
    let output = ctx.output(0)?;
    output_type(&first, &output)?;
    output_shape(&output, &Shape::new(&dims[..rank]).ok_or(OUTPUT_SHAPE)?)?;
    Ok(at)
}

#[cfg(test)]
mod tests;
