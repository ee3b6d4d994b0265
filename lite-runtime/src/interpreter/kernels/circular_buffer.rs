//! TensorFlow Lite Micro's `CIRCULAR_BUFFER` custom op (`tensorflow/lite/micro/kernels/
//! circular_buffer*.cc`), for strided streaming convolutions: each invoke shifts the output's
//! `num_slots` slots of `depth` int8 values up by one slot and puts the input in the last,
//! then lets the rest of the graph run only every `cycles_max`-th invoke.
//!
//! The output keeps its slots between invokes when it is a variable tensor (as in the models
//! TFLM runs; `Interpreter::reset_state` zeroes it). An invoke the stride skips ends at this
//! operator with [`SKIPPED`], where TFLM's invoke returns `kTfLiteAbort`: the operators after
//! it do not run, and the next invoke starts over. The counter is the operator's state.
//!
//! With no `cycles_max` above 0, TFLM guesses the period from the output's shape: 1 for 5, 13
//! or 25 slots, 2 otherwise. (It also picks 1 for the fifth such operator it prepares in the
//! process when the output's last two dimensions are [2, 96]: a count over every interpreter
//! of the process, not reproduced.)

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, SHORT};
use crate::interpreter::{CustomKernel, Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, FlexValue, TensorType};

/// `CIRCULAR_BUFFER` (int8).
pub static CIRCULAR_BUFFER: CustomKernel = CustomKernel {
    name: "CIRCULAR_BUFFER",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare,
        init: Some(init),
        eval,
    },
};

/// What an invoke the stride skips ends with (TFLM's `kTfLiteAbort`): not a failure, the
/// graph's outputs are simply not computed this time.
pub(crate) const SKIPPED: KernelError = KernelError::Mismatch {
    what: "CIRCULAR_BUFFER: this invoke is not one its stride runs (TFLM's kTfLiteAbort); \
           the operators after it did not run",
};

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct Params {
    cycles_max: i32,
    slots: u32,
    depth: u32,
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input_count() != 1 || ctx.output_count() != 1 {
        return Err(KernelError::Arity {
            what: "CIRCULAR_BUFFER's one input and one output",
        });
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.dtype != TensorType::Int8 || output.dtype != TensorType::Int8 {
        return Err(check::TYPE);
    }
    let (&[i0, i1, i2, i3], &[o0, slots, o2, o3]) = (input.shape.dims(), output.shape.dims())
    else {
        return Err(KernelError::Mismatch {
            what: "CIRCULAR_BUFFER operands of rank other than 4",
        });
    };
    if i0 != o0 || i1 != 1 || i2 != o2 || i3 != o3 {
        return Err(KernelError::Mismatch {
            what: "CIRCULAR_BUFFER input not [batch, 1, h, w] of the output's [batch, slots, h, w]",
        });
    }
    if slots == 0 {
        // TFLM would move (slots - 1) × depth values: a negative count.
        return Err(KernelError::Unsupported {
            what: "CIRCULAR_BUFFER output of no slots",
        });
    }
    let bytes = ctx.custom_options();
    let mut cycles_max = if bytes.is_empty() {
        0
    } else {
        FlexValue::root(bytes)
            .ok()
            .and_then(|v| v.as_map())
            .and_then(|m| m.get("cycles_max"))
            .and_then(|v| v.as_i64())
            .and_then(|v| i32::try_from(v).ok())
            .ok_or(KernelError::Mismatch {
                what: "CIRCULAR_BUFFER custom option `cycles_max` missing or of the wrong type",
            })?
    };
    if cycles_max <= 0 {
        cycles_max = if matches!(slots, 5 | 13 | 25) { 1 } else { 2 };
    }
    let depth = i2.checked_mul(i3).ok_or(check::DIM_OVER_U32)?;
    check::dim(slots.checked_mul(depth).ok_or(check::DIM_OVER_U32)?)?;
    ctx.request_persistent(4);
    ctx.set_params(&Params {
        cycles_max,
        slots: check::dim(slots)?,
        depth: check::dim(depth)?,
    });
    Ok(())
}

/// The counter starts (and restarts on reset) at `cycles_max`.
fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    ctx.persistent()
        .get_mut(..4)
        .ok_or(SHORT)?
        .copy_from_slice(&p.cycles_max.to_ne_bytes());
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (slots, depth) = (p.slots as usize, p.depth as usize);
    let counter = ctx.persistent_mut()?.get_mut(..4).ok_or(SHORT)?;
    let input = ctx.input::<i8>(0)?.get(..depth).ok_or(SHORT)?;
    let output = ctx.output::<i8>(0)?.get_mut(..slots * depth).ok_or(SHORT)?;
    output.copy_within(depth.., 0);
    output[(slots - 1) * depth..].copy_from_slice(input);
    let left = i32::from_ne_bytes([counter[0], counter[1], counter[2], counter[3]]).wrapping_sub(1);
    let (next, result) = if left != 0 {
        (left, Err(SKIPPED))
    } else {
        (p.cycles_max, Ok(()))
    };
    counter.copy_from_slice(&next.to_ne_bytes());
    result
}
