//! RESHAPE, SQUEEZE and EXPAND_DIMS (every type, quantized ones included): the same elements in the same order under the shape the
//! model gives the output, copied (the planner never lets an output share an input's bytes).

use super::base::check;
use super::base::tensors::same_quantization;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// RESHAPE (the shape input or `new_shape` option only restate the output's shape, which the
/// model holds).
pub static RESHAPE: Kernel = Kernel {
    op: BuiltinOperator::Reshape,
    prepare,
    init: None,
    eval,
};

/// SQUEEZE.
pub static SQUEEZE: Kernel = Kernel {
    op: BuiltinOperator::Squeeze,
    prepare,
    init: None,
    eval,
};

/// EXPAND_DIMS.
pub static EXPAND_DIMS: Kernel = Kernel {
    op: BuiltinOperator::ExpandDims,
    prepare: prepare_expand,
    init: None,
    eval,
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    check::output_type(&input, &output)?;
    if input.shape.elements() != output.shape.elements() {
        return Err(KernelError::Mismatch {
            what: "output has another number of elements than the input",
        });
    }
    Ok(())
}

/// EXPAND_DIMS: as RESHAPE, and LiteRT's checks that the output's quantization is the
/// input's (int16 with zero point 0).
fn prepare_expand(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare(ctx)?;
    same_quantization(&ctx.input(0)?, &ctx.output(0)?, true)
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let src = ctx.input_bytes(0)?;
    let string = ctx.input_type(0)? == TensorType::String;
    let dst = ctx.output_bytes(0)?;
    let budget = dst.len();
    let dst = dst.get_mut(..src.len()).ok_or(KernelError::StringBudget {
        output: 0,
        needed: src.len(),
        budget,
    })?;
    dst.copy_from_slice(src);
    if string {
        ctx.set_output_len(0, src.len());
    }
    Ok(())
}
