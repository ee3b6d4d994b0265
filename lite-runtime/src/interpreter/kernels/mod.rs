//! The kernels, one module per op family over one shared base. Each kernel is a `pub static`
//! [`Kernel`]; [`ALL`] lists them for [`AllOps`](super::AllOps). A resolver that names only
//! some keeps the others out of a firmware image; for int8 networks, the `_INT8` kernels
//! ([`CONV_2D_INT8`] and its siblings; not in [`ALL`]) keep the float32 and 16x8 bodies out
//! too.
//!
//! The house: `base` holds what kernels share (operand checks with one error per condition,
//! quantization arithmetic, fused activations, broadcasting, windows, float math, the sparse
//! format, the float element-wise scaffold); each family imports `base` and nothing else of
//! this folder, and keeps its float and quantized bodies (a `quantized` submodule) and its
//! tests (`tests.rs` beside it) together. A new op is a file here and a row in
//! the `kernels!` registry below: a float element-wise op needs only its function (see
//! `base::elementwise`).
//!
//! Conventions every kernel follows: `prepare` checks types, shapes (the model's output shape
//! must be what the op computes) and options, and stores what `eval` needs with
//! `set_params`; `eval` reads typed slices and writes row-major outputs, checking every
//! index that comes from data.

mod base;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod int8_only;
#[cfg(test)]
#[allow(dead_code)] // each family's tests use part of it
pub(crate) mod one_op;
#[cfg(test)]
mod proptest_config;
#[cfg(test)]
mod row_major;

use super::kernel::Kernel;
use super::resolver::CustomKernel;

/// The registry: one row per family, `family: [kernels in ALL] + [kernels left out of ALL]`.
/// A row declares the family's module, re-exports its kernels and lists them in [`ALL`].
/// Custom families (`custom { family if "feature": [KERNEL = "custom_code"]; }`) are built with
/// their feature; without it each kernel is a stub whose set-up says which feature it needs,
/// so a model naming it fails with that reason rather than "no kernel registered".
macro_rules! kernels {
    (
        builtin {$($family:ident: [$($kernel:ident),* $(,)?] $(+ [$($extra:ident),* $(,)?])?;)*}
        custom {$($cfamily:ident if $feature:literal: [$($custom:ident = $name:literal),* $(,)?];)*}
    ) => {
        $(
            mod $family;
            pub use $family::{$($kernel,)* $($($extra,)*)?};
        )*
        $(
            #[cfg(feature = $feature)]
            mod $cfamily;
            #[cfg(feature = $feature)]
            pub use $cfamily::{$($custom,)*};
            $(
                #[cfg(not(feature = $feature))]
                #[doc = concat!("`", $name, "`: built without the `", $feature, "` feature.")]
                pub static $custom: CustomKernel = CustomKernel {
                    name: $name,
                    kernel: Kernel {
                        op: crate::model::BuiltinOperator::Custom,
                        prepare: |_| {
                            Err(crate::interpreter::KernelError::Unsupported {
                                what: concat!("custom op ", $name, " (built without the `",
                                    $feature, "` feature)"),
                            })
                        },
                        init: None,
                        eval: |_| Ok(()),
                    },
                };
            )*
        )*

        /// Every kernel, for [`AllOps`](super::AllOps) (the `_INT8` registrations excepted:
        /// each op has one kernel here), the custom ones last.
        pub static ALL: &[&Kernel] = &[$($(&$kernel,)*)* $($(&$custom.kernel,)*)*];

        /// The custom kernels tessera ships (stubs for the features not built).
        pub static CUSTOM: &[&CustomKernel] = &[$($(&$custom,)*)*];
    };
}

kernels! {
    builtin {
        fully_connected: [FULLY_CONNECTED] + [FULLY_CONNECTED_INT8];
        reshape: [RESHAPE, SQUEEZE, EXPAND_DIMS];
        binary: [
            ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL,
            NOT_EQUAL, SELECT, SELECT_V2,
        ];
        activation: [LOGISTIC, TANH, RELU, RELU6, LEAKY_RELU];
        floor: [FLOOR];
        softmax: [SOFTMAX, LOG_SOFTMAX] + [SOFTMAX_INT8];
        cast: [CAST];
        reduce: [MEAN, SUM, REDUCE_MAX, ARG_MAX, ARG_MIN];
        shape: [CONCATENATION, SLICE, STRIDED_SLICE, TRANSPOSE, PACK, UNPACK, SHAPE, FILL];
        gather: [GATHER, EMBEDDING_LOOKUP];
        sparse: [DENSIFY];
        conv: [CONV_2D, DEPTHWISE_CONV_2D] + [CONV_2D_INT8, DEPTHWISE_CONV_2D_INT8];
        pool: [AVERAGE_POOL_2D, MAX_POOL_2D] + [AVERAGE_POOL_2D_INT8, MAX_POOL_2D_INT8];
        quantize: [QUANTIZE, DEQUANTIZE];
        pad: [PAD, PADV2];
        // sequence models
        lstm: [UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM];
        svdf: [SVDF];
        rnn: [RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN];
    }
    custom {}
}
