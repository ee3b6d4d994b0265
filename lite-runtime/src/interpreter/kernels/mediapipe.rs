//! MediaPipe's custom operators, as its CPU kernels compute them
//! (`mediapipe/util/tflite/operations/*.cc`), float32 only as they are:
//!
//! - `Convolution2DTransposeBias`: TRANSPOSE_CONV with a bias, options a raw
//!   `TfLiteTransposeConvParams` (padding, strides) — [`transpose_conv`];
//! - `MaxPoolingWithArgmax2D` and `MaxUnpooling2D`: a max pool that also gives where in its
//!   window each maximum was (`y * filter_width + x + 0.1`, as a float), and the scatter back;
//!   options a raw `TfLitePoolParams` — [`pooling`];
//! - `TransformTensorBilinear` and `TransformLandmarks` (version 2, the one MediaPipe
//!   registers): a feature map sampled bilinearly through a 4x4 matrix with the
//!   align-corners correction, and landmarks through the same matrix — [`transform`];
//! - `Landmarks2TransformMatrix` (version 2): the matrix from a subset of landmarks (rotation
//!   from two of them, a box around the rotated subset), options a FlexBuffer map —
//!   [`matrix`].
//!
//! Each follows its kernel's loops and its float / double promotions, so results are those
//! of the C++ compiled without contraction into fused multiply-adds. Where MediaPipe's kernel
//! would read or write out of bounds or leave outputs unwritten (a matrix shorter than 8
//! values, a landmark index past the landmarks, an output batch it does not fill) the model
//! is refused at set-up; an unpooling index that points outside the output stops invoke.

#[cfg(test)]
mod tests;

mod matrix;
mod pooling;
mod transform;
mod transpose_conv;

use crate::interpreter::{CustomKernel, Desc, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// `Convolution2DTransposeBias`.
pub static CONVOLUTION_2D_TRANSPOSE_BIAS: CustomKernel = CustomKernel {
    name: "Convolution2DTransposeBias",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare: transpose_conv::prepare,
        init: None,
        eval: transpose_conv::eval,
    },
};

/// `MaxPoolingWithArgmax2D`.
pub static MAX_POOLING_WITH_ARGMAX_2D: CustomKernel = CustomKernel {
    name: "MaxPoolingWithArgmax2D",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare: pooling::prepare_argmax,
        init: None,
        eval: pooling::eval_argmax,
    },
};

/// `MaxUnpooling2D`.
pub static MAX_UNPOOLING_2D: CustomKernel = CustomKernel {
    name: "MaxUnpooling2D",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare: pooling::prepare_unpool,
        init: None,
        eval: pooling::eval_unpool,
    },
};

/// `TransformTensorBilinear` (version 2).
pub static TRANSFORM_TENSOR_BILINEAR: CustomKernel = CustomKernel {
    name: "TransformTensorBilinear",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare: transform::prepare_tensor,
        init: None,
        eval: transform::eval_tensor,
    },
};

/// `TransformLandmarks` (version 2).
pub static TRANSFORM_LANDMARKS: CustomKernel = CustomKernel {
    name: "TransformLandmarks",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare: transform::prepare_landmarks,
        init: None,
        eval: transform::eval_landmarks,
    },
};

/// `Landmarks2TransformMatrix` (version 2).
pub static LANDMARKS_2_TRANSFORM_MATRIX: CustomKernel = CustomKernel {
    name: "Landmarks2TransformMatrix",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare: matrix::prepare,
        init: Some(matrix::init),
        eval: matrix::eval,
    },
};

/// The operator has `inputs` inputs and `outputs` outputs.
fn arity(ctx: &Prepare<'_>, inputs: usize, outputs: usize) -> Result<(), KernelError> {
    if ctx.input_count() == inputs && ctx.output_count() == outputs {
        Ok(())
    } else {
        Err(KernelError::Arity {
            what: "the inputs and outputs the MediaPipe operator takes",
        })
    }
}

/// `d` is float32 (MediaPipe's kernels run nothing else).
fn float(d: &Desc<'_>) -> Result<(), KernelError> {
    if d.dtype == TensorType::Float32 {
        Ok(())
    } else {
        Err(KernelError::Unsupported {
            what: "MediaPipe operator on other types than FLOAT32",
        })
    }
}

/// `d` has rank `rank`.
fn rank(d: &Desc<'_>, rank: usize) -> Result<(), KernelError> {
    if d.shape.rank() == rank {
        Ok(())
    } else {
        Err(KernelError::Mismatch {
            what: "MediaPipe operand of another rank than its kernel's",
        })
    }
}

/// The operator's opcode is version 2, the one MediaPipe's resolver registers for the
/// transform operators (a version-1 model does not run there either).
fn version_2(ctx: &Prepare<'_>) -> Result<(), KernelError> {
    if ctx.operator().code().version() == 2 {
        Ok(())
    } else {
        Err(KernelError::Unsupported {
            what: "MediaPipe transform operator of a version other than 2",
        })
    }
}

/// The first `N` little-endian `i32`s of a raw C struct of options (`TfLitePoolParams`,
/// `TfLiteTransposeConvParams`); longer structs (later fields) are fine.
fn raw_ints<const N: usize>(options: &[u8]) -> Result<[i32; N], KernelError> {
    let short = KernelError::Mismatch {
        what: "custom options shorter than the C struct MediaPipe's kernel reads",
    };
    let mut out = [0i32; N];
    for (i, v) in out.iter_mut().enumerate() {
        let b = options.get(4 * i..4 * i + 4).ok_or(short)?;
        *v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Ok(out)
}

/// A size from the options that must be at least 1.
fn positive(v: i32) -> Result<u32, KernelError> {
    u32::try_from(v)
        .ok()
        .filter(|&v| v >= 1)
        .ok_or(KernelError::Mismatch {
            what: "MediaPipe stride or filter size below 1",
        })
}

/// The first two rows of a 4x4 matrix operand (its first 8 floats), checked at set-up to be
/// there.
fn matrix_operand(d: &Desc<'_>) -> Result<(), KernelError> {
    float(d)?;
    if d.shape.elements() < 8 {
        return Err(KernelError::Mismatch {
            what: "transform matrix of fewer than 8 values",
        });
    }
    Ok(())
}

/// `DotProduct` of two `float4`: `((l.x r.x + l.y r.y) + l.z r.z) + l.w r.w`, in float.
#[inline(always)]
fn dot(l: [f32; 4], r: [f32; 4]) -> f32 {
    l[0] * r[0] + l[1] * r[1] + l[2] * r[2] + l[3] * r[3]
}
