//! SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND over 3-D (`NHC`) and 4-D (`NHWC`) inputs, as
//! LiteRT's reference kernels (float32, int32, int64 and the quantized int8, uint8, int16,
//! whose scale and zero point must be the output's; int16 with zero point 0): blocks of the
//! spatial dimensions moved into the batch and back. SPACE_TO_BATCH_ND pads with the output's
//! zero point (0 for the other types), BATCH_TO_SPACE_ND crops. `block_shape`, `paddings` and
//! `crops` (INT32) are read at every invoke and checked against the output's planned shape
//! (at set-up too when they are constants); values are copied as bytes, one channel run at a
//! time.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, SHORT};
use super::base::tensors::{element_bytes, legacy_params, same_quantization, words};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};

/// SPACE_TO_BATCH_ND.
pub static SPACE_TO_BATCH_ND: Kernel = Kernel {
    op: BuiltinOperator::SpaceToBatchNd,
    prepare: prepare::<true>,
    init: None,
    eval: eval::<true>,
};

/// BATCH_TO_SPACE_ND.
pub static BATCH_TO_SPACE_ND: Kernel = Kernel {
    op: BuiltinOperator::BatchToSpaceNd,
    prepare: prepare::<false>,
    init: None,
    eval: eval::<false>,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
    /// The padding byte (SPACE_TO_BATCH_ND: the output zero point's low byte, as LiteRT's
    /// `memset`).
    pad: u32,
}

const OPERANDS: KernelError = KernelError::Mismatch {
    what: "block_shape not [spatial dims] or paddings / crops not [spatial dims, 2] of INT32",
};

const BLOCK: KernelError = KernelError::Mismatch {
    what: "block_shape, paddings or crops out of range (block not positive, padded size not a \
           multiple of the block, batch not a multiple of the blocks, negative padding or crop)",
};

/// Block shape and pads / crops, normalized to 4-D (a 3-D input's width block is 1).
#[derive(Clone, Copy, Debug)]
struct Blocks {
    bh: usize,
    bw: usize,
    /// Padding (or crop) before and after height, then width.
    top: usize,
    bottom: usize,
    left: usize,
    right: usize,
}

fn blocks(block: &[i32], pads: &[i32], spatial: usize) -> Result<Blocks, KernelError> {
    if block.len() != spatial || pads.len() != 2 * spatial {
        return Err(OPERANDS);
    }
    let pos = |v: i32| usize::try_from(v).map_err(|_| BLOCK);
    let b = Blocks {
        bh: pos(block[0])?,
        bw: if spatial == 2 { pos(block[1])? } else { 1 },
        top: pos(pads[0])?,
        bottom: pos(pads[1])?,
        left: if spatial == 2 { pos(pads[2])? } else { 0 },
        right: if spatial == 2 { pos(pads[3])? } else { 0 },
    };
    if b.bh == 0 || b.bw == 0 {
        return Err(BLOCK);
    }
    Ok(b)
}

/// `[batch, height, width, depth]` of a 3-D or 4-D shape.
fn as_4d(s: &Shape) -> [usize; 4] {
    match *s.dims() {
        [n, h, w, c] => [n, h, w, c],
        [n, h, c] => [n, h, 1, c],
        _ => [0; 4],
    }
}

/// The output's shape: SPACE_TO_BATCH_ND (`TO_BATCH`) or BATCH_TO_SPACE_ND.
fn output_shape(input: &Shape, b: &Blocks, to_batch: bool) -> Result<Shape, KernelError> {
    let [n, h, w, c] = as_4d(input);
    let blocks = b.bh.checked_mul(b.bw).ok_or(BLOCK)?;
    let (on, oh, ow) = if to_batch {
        let ph = h.checked_add(b.top + b.bottom).ok_or(BLOCK)?;
        let pw = w.checked_add(b.left + b.right).ok_or(BLOCK)?;
        if ph % b.bh != 0 || pw % b.bw != 0 {
            return Err(BLOCK);
        }
        (n.checked_mul(blocks).ok_or(BLOCK)?, ph / b.bh, pw / b.bw)
    } else {
        if n % blocks != 0 {
            return Err(BLOCK);
        }
        let sh = h.checked_mul(b.bh).ok_or(BLOCK)?;
        let sw = w.checked_mul(b.bw).ok_or(BLOCK)?;
        (
            n / blocks,
            sh.checked_sub(b.top + b.bottom).ok_or(BLOCK)?,
            sw.checked_sub(b.left + b.right).ok_or(BLOCK)?,
        )
    };
    let shape = if input.rank() == 4 {
        Shape::new(&[on, oh, ow, c])
    } else {
        Shape::new(&[on, oh, c])
    };
    shape.ok_or(OUTPUT_SHAPE)
}

fn int_operand(d: &Desc<'_>, rank: usize) -> Result<(), KernelError> {
    if d.dtype != TensorType::Int32 || d.shape.rank() != rank {
        return Err(OPERANDS);
    }
    Ok(())
}

fn constant_values(d: &Desc<'_>, out: &mut [i32; 4]) -> Result<Option<usize>, KernelError> {
    if d.constant().is_none() {
        return Ok(None);
    }
    let mut n = 0;
    for v in check::constant_ints(d)? {
        *out.get_mut(n).ok_or(OPERANDS)? = i32::try_from(v).map_err(|_| OPERANDS)?;
        n += 1;
    }
    Ok(Some(n))
}

fn prepare<const TO_BATCH: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let block = ctx.input(1)?;
    let pads = ctx.input(2)?;
    let output = ctx.output(0)?;
    if !matches!(
        input.dtype,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Int16
    ) {
        return Err(KernelError::Unsupported {
            what: "SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND of other types than FLOAT32, INT32, \
                   INT64, INT8, UINT8, INT16",
        });
    }
    check::output_type(&input, &output)?;
    if !matches!(input.shape.rank(), 3 | 4) {
        return Err(KernelError::Unsupported {
            what: "SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND input not 3-D or 4-D",
        });
    }
    same_quantization(&input, &output, true)?;
    int_operand(&block, 1)?;
    int_operand(&pads, 2)?;
    let spatial = input.shape.rank() - 2;
    let (mut bv, mut pv) = ([0i32; 4], [0i32; 4]);
    if let (Some(nb), Some(np)) = (
        constant_values(&block, &mut bv)?,
        constant_values(&pads, &mut pv)?,
    ) {
        let b = blocks(&bv[..nb], &pv[..np], spatial)?;
        check::output_shape(&output, &output_shape(&input.shape, &b, TO_BATCH)?)?;
    }
    let pad = if TO_BATCH && matches!(input.dtype, TensorType::Int8 | TensorType::Uint8) {
        legacy_params(&output).1 as u8
    } else {
        0
    };
    ctx.set_params(&Params {
        element: check::dim(element_bytes(input.dtype)?)?,
        pad: u32::from(pad),
    });
    Ok(())
}

fn eval<const TO_BATCH: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let shape = ctx.input_shape(0)?;
    let spatial = shape.rank().saturating_sub(2);
    let b = blocks(
        words::<i32>(ctx.input_bytes(1)?)?,
        words::<i32>(ctx.input_bytes(2)?)?,
        spatial,
    )?;
    let out_shape = ctx.output_shape(0)?;
    if output_shape(&shape, &b, TO_BATCH)? != out_shape {
        return Err(OUTPUT_SHAPE);
    }
    let (i4, o4) = (as_4d(&shape), as_4d(&out_shape));
    let run = i4[3] * p.element as usize;
    let x = ctx.input_bytes(0)?;
    let y = ctx.output_bytes(0)?;
    let x = x.get(..shape.elements() * p.element as usize).ok_or(SHORT)?;
    let y = y
        .get_mut(..out_shape.elements() * p.element as usize)
        .ok_or(SHORT)?;
    if run == 0 {
        return Ok(());
    }
    if TO_BATCH {
        space_to_batch(x, i4, y, o4, &b, run, p.pad as u8)
    } else {
        batch_to_space(x, i4, y, o4, &b, run)
    }
}

/// LiteRT's `SpaceToBatchND` loop, over runs of `run` bytes.
fn space_to_batch(
    x: &[u8],
    [ib, ih, iw, _]: [usize; 4],
    y: &mut [u8],
    [ob, oh, ow, _]: [usize; 4],
    b: &Blocks,
    run: usize,
    pad: u8,
) -> Result<(), KernelError> {
    if ib == 0 {
        return Ok(());
    }
    let mut rows = y.chunks_exact_mut(run);
    for out_b in 0..ob {
        let input_batch = out_b % ib;
        let shift_w = (out_b / ib) % b.bw;
        let shift_h = (out_b / ib) / b.bw;
        for out_h in 0..oh {
            for out_w in 0..ow {
                let dst = rows.next().ok_or(SHORT)?;
                let (h, w) = (out_h * b.bh + shift_h, out_w * b.bw + shift_w);
                if h < b.top || h >= b.top + ih || w < b.left || w >= b.left + iw {
                    dst.fill(pad);
                } else {
                    let at = ((input_batch * ih + (h - b.top)) * iw + (w - b.left)) * run;
                    dst.copy_from_slice(x.get(at..at + run).ok_or(SHORT)?);
                }
            }
        }
    }
    Ok(())
}

/// LiteRT's `BatchToSpaceND` loop, over runs of `run` bytes.
fn batch_to_space(
    x: &[u8],
    [ib, ih, iw, _]: [usize; 4],
    y: &mut [u8],
    [ob, oh, ow, _]: [usize; 4],
    b: &Blocks,
    run: usize,
) -> Result<(), KernelError> {
    if ob == 0 {
        return Ok(());
    }
    for in_b in 0..ib {
        let out_b = in_b % ob;
        let offset = in_b / ob;
        for in_h in 0..ih {
            let Some(out_h) = (in_h * b.bh + offset / b.bw)
                .checked_sub(b.top)
                .filter(|&v| v < oh)
            else {
                continue;
            };
            for in_w in 0..iw {
                let Some(out_w) = (in_w * b.bw + offset % b.bw)
                    .checked_sub(b.left)
                    .filter(|&v| v < ow)
                else {
                    continue;
                };
                let src = ((in_b * ih + in_h) * iw + in_w) * run;
                let dst = ((out_b * oh + out_h) * ow + out_w) * run;
                y.get_mut(dst..dst + run)
                    .ok_or(SHORT)?
                    .copy_from_slice(x.get(src..src + run).ok_or(SHORT)?);
            }
        }
    }
    Ok(())
}
