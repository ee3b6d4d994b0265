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

#[cfg(all(test, feature = "custom-ops"))]
#[allow(dead_code)] // each custom family's tests use part of it
mod custom_one_op;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod int8_only;
#[cfg(test)]
#[allow(dead_code)] // each family's tests use part of it
pub(crate) mod one_op;
#[cfg(test)]
pub(crate) mod proptest_config;
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
        activation: [LOGISTIC, TANH, RELU, RELU6, LEAKY_RELU, RELU_N1_TO_1, ELU];
        floor: [FLOOR];
        softmax: [SOFTMAX, LOG_SOFTMAX] + [SOFTMAX_INT8];
        cast: [CAST];
        reduce: [
            MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL, ARG_MAX, ARG_MIN,
        ];
        shape: [CONCATENATION, SLICE, STRIDED_SLICE, TRANSPOSE, PACK, UNPACK, SHAPE, FILL];
        gather: [GATHER, EMBEDDING_LOOKUP];
        sparse: [DENSIFY];
        conv: [CONV_2D, DEPTHWISE_CONV_2D] + [CONV_2D_INT8, DEPTHWISE_CONV_2D_INT8];
        pool: [AVERAGE_POOL_2D, MAX_POOL_2D] + [AVERAGE_POOL_2D_INT8, MAX_POOL_2D_INT8];
        quantize: [QUANTIZE, DEQUANTIZE];
        pad: [PAD, PADV2];
        // unary math and activations
        elementwise_math: [
            ABS, CEIL, ROUND, COS, SIN, EXP, LOG, SQRT, RSQRT, SQUARE, NEG, SIGN, ZEROS_LIKE,
            LOGICAL_NOT,
        ];
        hard_swish: [HARD_SWISH];
        gelu: [GELU];
        prelu: [PRELU];
        // data movement and reductions
        depth_space: [DEPTH_TO_SPACE, SPACE_TO_DEPTH];
        reverse: [REVERSE_V2];
        split: [SPLIT, SPLIT_V];
        mirror_pad: [MIRROR_PAD];
        gather_nd: [GATHER_ND];
        dynamic_update_slice: [DYNAMIC_UPDATE_SLICE];
        cumsum: [CUMSUM];
        one_hot: [ONE_HOT];
        range: [RANGE];
        where_: [WHERE];
        topk: [TOPK_V2];
        space_batch: [SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND];
        tile: [TILE];
        // vision
        resize: [RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR];
        transpose_conv: [TRANSPOSE_CONV];
        l2_pool: [L2_POOL_2D];
        normalization: [L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION];
        // binary, logical and matrix ops
        binary: [ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE];
        comparison: [LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL];
        select: [SELECT, SELECT_V2];
        logical: [LOGICAL_AND, LOGICAL_OR];
        floor_div: [FLOOR_DIV, FLOOR_MOD];
        pow: [POW];
        add_n: [ADD_N];
        broadcast_to: [BROADCAST_TO, BROADCAST_ARGS];
        batch_matmul: [BATCH_MATMUL];
        // sequence models
        lstm: [UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM];
        svdf: [SVDF];
        rnn: [RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN];
    }
    custom {
        // TensorFlow Lite Micro's signal library and CIRCULAR_BUFFER
        signal if "signal": [
            SIGNAL_WINDOW = "SignalWindow",
            SIGNAL_FFT_AUTO_SCALE = "SignalFftAutoScale",
            SIGNAL_RFFT = "SignalRfft",
            SIGNAL_IRFFT = "SignalIrfft",
            SIGNAL_ENERGY = "SignalEnergy",
            SIGNAL_FILTER_BANK = "SignalFilterBank",
            SIGNAL_FILTER_BANK_SQUARE_ROOT = "SignalFilterBankSquareRoot",
            SIGNAL_FILTER_BANK_SPECTRAL_SUBTRACTION = "SignalFilterBankSpectralSubtraction",
            SIGNAL_FILTER_BANK_LOG = "SignalFilterBankLog",
            SIGNAL_PCAN = "SignalPCAN",
            SIGNAL_FRAMER = "SignalFramer",
            SIGNAL_STACKER = "SignalStacker",
            SIGNAL_OVERLAP_ADD = "SignalOverlapAdd",
            SIGNAL_DELAY = "SignalDelay",
        ];
        circular_buffer if "circular-buffer": [CIRCULAR_BUFFER = "CIRCULAR_BUFFER"];
        // SSD post-processing and MediaPipe's operators
        detection_postprocess if "detection": [
            TFLITE_DETECTION_POSTPROCESS = "TFLite_Detection_PostProcess",
        ];
        mediapipe if "mediapipe": [
            CONVOLUTION_2D_TRANSPOSE_BIAS = "Convolution2DTransposeBias",
            MAX_POOLING_WITH_ARGMAX_2D = "MaxPoolingWithArgmax2D",
            MAX_UNPOOLING_2D = "MaxUnpooling2D",
            TRANSFORM_TENSOR_BILINEAR = "TransformTensorBilinear",
            TRANSFORM_LANDMARKS = "TransformLandmarks",
            LANDMARKS_2_TRANSFORM_MATRIX = "Landmarks2TransformMatrix",
        ];
    }
}
