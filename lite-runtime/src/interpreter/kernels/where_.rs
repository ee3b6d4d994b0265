//! WHERE with one input (bool, float32, int32, int64, int8, uint8 condition): the int64
//! coordinates of the condition's non-zero elements, in row-major order, as a
//! `[count, rank]` tensor. The output's shape depends on the data: tessera plans the shape
//! the model declares and never resizes, so the kernel runs when the count is known before
//! invoke, from a constant condition (checked at set-up), or, for a computed condition, when
//! the count at invoke equals the planned one: another count is an error naming it, never a
//! write past the output. (LiteRT resizes the output at invoke; a converted model declares
//! the count as 1 with a dynamic signature.)

#[cfg(test)]
mod tests;

use super::base::check::{self, OUTPUT_SHAPE, SHORT};
use super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare};
use crate::model::{BuiltinOperator, TensorType};
use tessera_core::tensor::Element;

/// WHERE.
pub static WHERE: Kernel = Kernel {
    op: BuiltinOperator::Where,
    prepare,
    init: None,
    eval,
};

const COUNT: KernelError = KernelError::Unsupported {
    what: "WHERE found another number of true elements than the output's planned shape holds \
           (tessera does not resize outputs at invoke)",
};

/// A condition element.
pub(crate) trait Condition: Element {
    /// `value != 0`, as LiteRT tests it.
    fn set(self) -> bool;
}

impl Condition for bool {
    fn set(self) -> bool {
        self
    }
}
impl Condition for f32 {
    fn set(self) -> bool {
        self != 0.0
    }
}
impl Condition for i32 {
    fn set(self) -> bool {
        self != 0
    }
}
impl Condition for i64 {
    fn set(self) -> bool {
        self != 0
    }
}
impl Condition for i8 {
    fn set(self) -> bool {
        self != 0
    }
}
impl Condition for u8 {
    fn set(self) -> bool {
        self != 0
    }
}

/// Non-zero elements of a constant condition (little-endian bytes of `t`).
fn constant_count(bytes: &[u8], t: TensorType) -> Option<usize> {
    let w = match t {
        TensorType::Bool | TensorType::Int8 | TensorType::Uint8 => 1,
        TensorType::Float32 => {
            return Some(
                bytes
                    .chunks_exact(4)
                    .filter(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) != 0.0)
                    .count(),
            );
        }
        TensorType::Int32 => 4,
        TensorType::Int64 => 8,
        _ => return None,
    };
    Some(
        bytes
            .chunks_exact(w)
            .filter(|c| c.iter().any(|&b| b != 0))
            .count(),
    )
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input_count() != 1 {
        return Err(KernelError::Unsupported {
            what: "WHERE with x and y (SELECT_V2's form)",
        });
    }
    let cond = ctx.input(0)?;
    let output = ctx.output(0)?;
    if !matches!(
        cond.dtype,
        TensorType::Bool
            | TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Int8
            | TensorType::Uint8
    ) {
        return Err(KernelError::Unsupported {
            what: "WHERE condition of other types than BOOL, FLOAT32, INT32, INT64, INT8, UINT8",
        });
    }
    if output.dtype != TensorType::Int64 {
        return Err(KernelError::Mismatch {
            what: "WHERE output is not INT64",
        });
    }
    let rank = cond.shape.rank();
    if rank == 0 {
        return Err(KernelError::Mismatch {
            what: "WHERE condition is a scalar",
        });
    }
    let [_, r] = output.shape.dims() else {
        return Err(OUTPUT_SHAPE);
    };
    if *r != rank {
        return Err(OUTPUT_SHAPE);
    }
    if let Some(bytes) = cond.constant() {
        let n = constant_count(bytes, cond.dtype).ok_or(check::TYPE)?;
        if output.shape.dims()[0] != n {
            return Err(OUTPUT_SHAPE);
        }
    }
    Ok(())
}

fn run<T: Condition>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let shape = ctx.input_shape(0)?;
    let out = ctx.output_shape(0)?;
    let x = input_n::<T>(ctx, 0, shape.elements())?;
    let count = x.iter().filter(|v| v.set()).count();
    if out.dims().first() != Some(&count) {
        return Err(COUNT);
    }
    let rank = shape.rank();
    let y = output_n::<i64>(ctx, 0, count * rank)?;
    let dims = shape.dims();
    let mut idx = [0usize; MAX_DIMS];
    let mut rows = y.chunks_exact_mut(rank.max(1));
    for v in x {
        if v.set() {
            let row = rows.next().ok_or(SHORT)?;
            for (slot, &i) in row.iter_mut().zip(&idx[..rank]) {
                *slot = i as i64;
            }
        }
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Bool => run::<bool>(ctx),
        TensorType::Float32 => run::<f32>(ctx),
        TensorType::Int32 => run::<i32>(ctx),
        TensorType::Int64 => run::<i64>(ctx),
        TensorType::Int8 => run::<i8>(ctx),
        _ => run::<u8>(ctx),
    }
}
