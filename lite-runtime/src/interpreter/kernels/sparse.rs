//! DENSIFY: sparse constant weights to dense, walking their format ([`SparseFormat`], shared
//! with FULLY_CONNECTED's sparse path), of every type LiteRT densifies: float32, float16
//! (the MediaPipe models' sparse weights, dequantized after) and int8. Values are moved as
//! bits, so nothing is converted.
//!
//! DENSIFY never walks the model in `eval`: `init` records each stored value's flat position
//! in the dense tensor (4 bytes per value, persistent), and `eval` zeroes the output and
//! scatters the values. When its output only feeds FULLY_CONNECTED weights, the interpreter
//! folds it away ([`Prepare::output_folded`]) and it does nothing.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::SHORT;
use super::base::tensors::{words, words_mut};
use super::base::sparsity::SparseFormat;
use crate::interpreter::{Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// DENSIFY.
pub static DENSIFY: Kernel = Kernel {
    op: BuiltinOperator::Densify,
    prepare,
    init: Some(init),
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    /// Non-zero when the output is folded away: nothing to do.
    folded: u32,
    /// Stored values the metadata addresses (entries of the persistent position table).
    count: u32,
    /// Elements of the dense output.
    elements: u32,
    /// Bytes per element: 4, 2 or 1.
    width: u32,
}

const fn bad(what: &'static str) -> KernelError {
    KernelError::Mismatch { what }
}

const NOT_SPARSE: KernelError = KernelError::Unsupported {
    what: "DENSIFY of a tensor that is not a sparse constant",
};

fn format<'m>(ctx: &Prepare<'m>) -> Result<SparseFormat<'m>, KernelError> {
    let input = ctx.input(0)?;
    let sparsity = input.sparsity().ok_or(NOT_SPARSE)?;
    SparseFormat::from_sparsity(input.shape.dims(), &sparsity)
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    let width = match input.dtype {
        TensorType::Float32 => 4,
        TensorType::Float16 => 2,
        TensorType::Int8 => 1,
        _ => {
            return Err(KernelError::Unsupported {
                what: "DENSIFY of other types than FLOAT32, FLOAT16, INT8",
            });
        }
    };
    if output.dtype != input.dtype {
        return Err(super::base::check::OUTPUT_TYPE);
    }
    let values = input.constant().ok_or(NOT_SPARSE)?.len() / width;
    if output.shape.dims() != input.shape.dims() {
        return Err(bad("DENSIFY output shape differs from its input's"));
    }
    if ctx.output_folded(0) {
        ctx.set_params(&Params {
            folded: 1,
            count: 0,
            elements: 0,
            width: width as u32,
        });
        return Ok(());
    }
    let f = format(ctx)?;
    let count = f.walk(|_, _| Ok(()))?;
    if count > values {
        return Err(bad("sparsity metadata addresses more values than stored"));
    }
    let n = |v: usize| u32::try_from(v).map_err(|_| bad("sparse tensor over u32 elements"));
    let params = Params {
        folded: 0,
        count: n(count)?,
        elements: n(output.shape.elements())?,
        width: width as u32,
    };
    ctx.request_persistent(count * 4);
    ctx.set_params(&params);
    Ok(())
}

fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if p.folded != 0 {
        return Ok(());
    }
    let f = format(ctx.prepared())?;
    let table = <[u32]>::mut_from_bytes(ctx.persistent()).map_err(|_| bad("persistent bytes"))?;
    f.walk(|leaf, flat| {
        let slot = table
            .get_mut(leaf)
            .ok_or(bad("persistent table too short"))?;
        *slot = u32::try_from(flat).map_err(|_| bad("sparse position over u32"))?;
        Ok(())
    })?;
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if p.folded != 0 {
        return Ok(());
    }
    let table = <[u32]>::ref_from_bytes(ctx.persistent()).map_err(|_| bad("persistent bytes"))?;
    let count = p.count as usize;
    let table = table.get(..count).ok_or(SHORT)?;
    let (n, width) = (p.elements as usize, p.width as usize);
    let values = ctx.input_bytes(0)?;
    let values = values.get(..count * width).ok_or(SHORT)?;
    let out = ctx.output_bytes(0)?.get_mut(..n * width).ok_or(SHORT)?;
    match width {
        4 => densify(words::<u32>(values)?, table, words_mut::<u32>(out)?),
        2 => densify(words::<u16>(values)?, table, words_mut::<u16>(out)?),
        _ => densify(values, table, out),
    }
}

/// Writes the dense tensor: zeros, then each value at its flat position (a later value at the
/// same position wins, as in TensorFlow Lite).
pub(crate) fn densify<T: Copy + Default>(
    values: &[T],
    positions: &[u32],
    out: &mut [T],
) -> Result<(), KernelError> {
    // Zero bits are zero in every type densified.
    out.fill(T::default());
    for (&v, &at) in values.iter().zip(positions) {
        *out.get_mut(at as usize)
            .ok_or(bad("sparse position outside the dense tensor"))? = v;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
