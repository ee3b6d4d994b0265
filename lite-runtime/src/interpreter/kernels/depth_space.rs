//! DEPTH_TO_SPACE and SPACE_TO_DEPTH (4-D NHWC; float32, int32, int64 and the quantized int8
//! and uint8, the types LiteRT's kernels take): blocks of `block_size x block_size` pixels
//! moved into channels and back. Both are one strided read of the input (a transpose of the
//! input seen as 6-D), so the values are copied, never computed; LiteRT does not compare the
//! quantization of input and output, and neither does this kernel.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE};
use super::base::strided::{Plan, copy_plan};
use super::base::tensors::element_bytes;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{BuiltinOperator, DepthToSpaceOptions, SpaceToDepthOptions, TensorType};

/// DEPTH_TO_SPACE.
pub static DEPTH_TO_SPACE: Kernel = Kernel {
    op: BuiltinOperator::DepthToSpace,
    prepare: prepare::<true>,
    init: None,
    eval,
};

/// SPACE_TO_DEPTH.
pub static SPACE_TO_DEPTH: Kernel = Kernel {
    op: BuiltinOperator::SpaceToDepth,
    prepare: prepare::<false>,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    /// The input's dimensions.
    dims: [u32; 4],
    block: u32,
    element: u32,
    /// 1: DEPTH_TO_SPACE.
    to_space: u32,
}

fn prepare<const TO_SPACE: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let block = if TO_SPACE {
        ctx.options::<DepthToSpaceOptions>()?.block_size
    } else {
        ctx.options::<SpaceToDepthOptions>()?.block_size
    };
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if !matches!(
        input.dtype,
        TensorType::Float32
            | TensorType::Uint8
            | TensorType::Int8
            | TensorType::Int32
            | TensorType::Int64
    ) {
        return Err(KernelError::Unsupported {
            what: "DEPTH_TO_SPACE / SPACE_TO_DEPTH of other types than FLOAT32, UINT8, INT8, \
                   INT32, INT64",
        });
    }
    check::output_type(&input, &output)?;
    let &[n, h, w, c] = input.shape.dims() else {
        return Err(KernelError::Mismatch {
            what: "input is not 4-D",
        });
    };
    let b = usize::try_from(block)
        .ok()
        .filter(|&b| b > 0)
        .ok_or(KernelError::Mismatch {
            what: "block_size not positive",
        })?;
    let bb = b.checked_mul(b).ok_or(check::DIM_OVER_U32)?;
    let out = if TO_SPACE {
        if c % bb != 0 {
            return Err(KernelError::Mismatch {
                what: "channels not a multiple of block_size squared",
            });
        }
        [Some(n), h.checked_mul(b), w.checked_mul(b), Some(c / bb)]
    } else {
        if h % b != 0 || w % b != 0 {
            return Err(KernelError::Mismatch {
                what: "height or width not a multiple of block_size",
            });
        }
        [Some(n), Some(h / b), Some(w / b), c.checked_mul(bb)]
    };
    let mut dims = [n, 0, 0, 0];
    for (d, o) in dims.iter_mut().zip(out.iter()).skip(1) {
        *d = o.ok_or(check::DIM_OVER_U32)?;
    }
    check::output_shape(&output, &Shape::new(&dims).ok_or(OUTPUT_SHAPE)?)?;
    let element = element_bytes(input.dtype)?;
    ctx.set_params(&Params {
        dims: [
            check::dim(n)?,
            check::dim(h)?,
            check::dim(w)?,
            check::dim(c)?,
        ],
        block: check::dim(b)?,
        element: check::dim(element)?,
        to_space: u32::from(TO_SPACE),
    });
    Ok(())
}

/// The read of either op: output dimensions `[N, H, b, W, b, C']` (DEPTH_TO_SPACE) or
/// `[N, H', W', b, b, C]` (SPACE_TO_DEPTH) walking the input.
pub(crate) fn plan(dims: [usize; 4], b: usize, to_space: bool) -> Result<Plan, KernelError> {
    let [n, h, w, c] = dims;
    let mut p = Plan::new();
    let s = |v: usize| isize::try_from(v).map_err(|_| check::DIM_OVER_U32);
    if to_space {
        let cc = c / (b * b).max(1);
        p.push(n, s(h * w * c)?)?;
        p.push(h, s(w * c)?)?;
        p.push(b, s(b * cc)?)?;
        p.push(w, s(c)?)?;
        p.push(b, s(cc)?)?;
        p.push(cc, 1)?;
    } else {
        let (ho, wo) = (h / b.max(1), w / b.max(1));
        p.push(n, s(h * w * c)?)?;
        p.push(ho, s(b * w * c)?)?;
        p.push(wo, s(b * c)?)?;
        p.push(b, s(w * c)?)?;
        p.push(b, s(c)?)?;
        p.push(c, 1)?;
    }
    Ok(p)
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let dims = p.dims.map(|d| d as usize);
    let plan = plan(dims, p.block as usize, p.to_space != 0)?;
    let src = ctx.input_bytes(0)?;
    let dst = ctx.output_bytes(0)?;
    copy_plan(&plan, p.element as usize, src, dst)
}
