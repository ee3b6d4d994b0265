//! LOGICAL_AND and LOGICAL_OR: element-wise on BOOL tensors with NumPy broadcasting, as
//! TensorFlow Lite's `logical.cc` (BOOL only there too). Broadcasting goes to 6 dimensions.

#[cfg(test)]
mod tests;

use super::base::broadcast::{Broadcast, binary_operands, map2};
use super::base::check;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// LOGICAL_AND (bool).
pub static LOGICAL_AND: Kernel = Kernel {
    op: BuiltinOperator::LogicalAnd,
    prepare,
    init: None,
    eval: eval::<true>,
};

/// LOGICAL_OR (bool).
pub static LOGICAL_OR: Kernel = Kernel {
    op: BuiltinOperator::LogicalOr,
    prepare,
    init: None,
    eval: eval::<false>,
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (a, _, out) = binary_operands(ctx)?;
    if a.dtype != TensorType::Bool {
        return Err(KernelError::Unsupported {
            what: "logical ops on another type than BOOL",
        });
    }
    check::output_type(&a, &out)
}

/// `a && b` (`AND`) or `a || b` over the broadcast shapes.
fn eval<const AND: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if so.elements() == 0 {
        return Ok(());
    }
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    let a = ctx.input::<bool>(0)?;
    let b = ctx.input::<bool>(1)?;
    if a.len() < sa.elements() || b.len() < sb.elements() {
        return Err(check::SHORT);
    }
    let out = ctx.output::<bool>(0)?;
    if AND {
        map2(&plan, a, b, out, |x, y| x && y)
    } else {
        map2(&plan, a, b, out, |x, y| x || y)
    }
}
