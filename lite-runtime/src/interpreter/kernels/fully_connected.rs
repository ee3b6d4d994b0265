//! FULLY_CONNECTED, float32: `output[b, n] = act(sum_k input[b, k] * weights[n, k] + bias[n])`,
//! summed in `k` order as TensorFlow Lite's reference kernel does.

use super::activation::{clamp, float_range};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, BuiltinOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// FULLY_CONNECTED.
pub static FULLY_CONNECTED: Kernel = Kernel {
    op: BuiltinOperator::FullyConnected,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    depth: u32,
    units: u32,
    has_bias: u32,
    lo: f32,
    hi: f32,
}

fn prepare(ctx: &mut Prepare<'_, '_>) -> Result<(), KernelError> {
    let BuiltinOptions::FullyConnected(o) = ctx.operator().options() else {
        return Err(KernelError::Mismatch {
            what: "options are not FullyConnectedOptions",
        });
    };
    if o.weights_format != 0 {
        return Err(KernelError::Unsupported {
            what: "shuffled weights",
        });
    }
    let input = ctx.input(0)?;
    let weights = ctx.input(1)?;
    let bias = ctx.optional_input(2);
    let output = ctx.output(0)?;
    for d in [&input, &weights, &output] {
        if d.dtype != TensorType::Float32 {
            return Err(KernelError::Unsupported {
                what: "FULLY_CONNECTED of other types than FLOAT32",
            });
        }
    }
    if weights.shape.rank() != 2 {
        return Err(KernelError::Mismatch {
            what: "weights are not 2-D",
        });
    }
    let units = weights.shape.dims()[0];
    let depth = weights.shape.dims()[1];
    let elements = input.shape.elements();
    if depth == 0 || elements % depth != 0 {
        return Err(KernelError::Mismatch {
            what: "input size is not a multiple of the weights' depth",
        });
    }
    let batches = elements / depth;
    if output.shape.elements() != batches * units {
        return Err(KernelError::Mismatch {
            what: "output is not batches x units",
        });
    }
    if let Some(b) = &bias {
        if b.dtype != TensorType::Float32 || b.shape.elements() != units {
            return Err(KernelError::Mismatch {
                what: "bias is not FLOAT32 of one value per unit",
            });
        }
    }
    let (lo, hi) = float_range(o.activation)?;
    let n = |v: usize| {
        u32::try_from(v).map_err(|_| KernelError::Unsupported {
            what: "dimension over u32",
        })
    };
    ctx.set_params(&Params {
        batches: n(batches)?,
        depth: n(depth)?,
        units: n(units)?,
        has_bias: u32::from(bias.is_some()),
        lo,
        hi,
    })
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (batches, depth, units) = (p.batches as usize, p.depth as usize, p.units as usize);
    let input = ctx.input::<f32>(0)?;
    let weights = ctx.input::<f32>(1)?;
    let bias = if p.has_bias != 0 {
        Some(ctx.input::<f32>(2)?)
    } else {
        None
    };
    let out = ctx.output::<f32>(0)?;
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let input = input.get(..batches * depth).ok_or(short)?;
    let weights = weights.get(..units * depth).ok_or(short)?;
    let out = out.get_mut(..batches * units).ok_or(short)?;
    for (x, y) in input.chunks_exact(depth).zip(out.chunks_exact_mut(units)) {
        for (u, (w, y)) in weights.chunks_exact(depth).zip(y.iter_mut()).enumerate() {
            let mut acc = 0.0f32;
            for (a, b) in x.iter().zip(w) {
                acc += a * b;
            }
            if let Some(bias) = bias {
                acc += bias.get(u).copied().unwrap_or(0.0);
            }
            *y = clamp(acc, p.lo, p.hi);
        }
    }
    Ok(())
}
