//! Typed builtin options of the operators the interpreter runs, checked at load against the
//! op (a FULLY_CONNECTED with `GatherOptions` is an error) and decoded on access.

use super::error::ErrorKind;
use super::ops::BuiltinOperator;
use super::reader::{Fault, Table, Verifier};
use super::types::{Activation, Padding, TensorType};
use super::vectors::I32s;

/// Union type ids of `BuiltinOptions` that [`BuiltinOptions`] decodes.
mod id {
    pub const CONV_2D: u8 = 1;
    pub const DEPTHWISE_CONV_2D: u8 = 2;
    pub const POOL_2D: u8 = 5;
    pub const FULLY_CONNECTED: u8 = 8;
    pub const SOFTMAX: u8 = 9;
    pub const CONCATENATION: u8 = 10;
    pub const ADD: u8 = 11;
    pub const RESHAPE: u8 = 17;
    pub const MUL: u8 = 21;
    pub const PAD: u8 = 22;
    pub const GATHER: u8 = 23;
    pub const TRANSPOSE: u8 = 26;
    pub const REDUCER: u8 = 27;
    pub const SUB: u8 = 28;
    pub const DIV: u8 = 29;
    pub const SQUEEZE: u8 = 30;
    pub const STRIDED_SLICE: u8 = 32;
    pub const EXP: u8 = 33;
    pub const SPLIT: u8 = 35;
    pub const LOG_SOFTMAX: u8 = 36;
    pub const CAST: u8 = 37;
    pub const DEQUANTIZE: u8 = 38;
    pub const MAXIMUM_MINIMUM: u8 = 39;
    pub const ARG_MAX: u8 = 40;
    pub const LESS: u8 = 41;
    pub const NEG: u8 = 42;
    pub const PAD_V2: u8 = 43;
    pub const GREATER: u8 = 44;
    pub const GREATER_EQUAL: u8 = 45;
    pub const LESS_EQUAL: u8 = 46;
    pub const SELECT: u8 = 47;
    pub const SLICE: u8 = 48;
    pub const TILE: u8 = 51;
    pub const EXPAND_DIMS: u8 = 52;
    pub const EQUAL: u8 = 53;
    pub const NOT_EQUAL: u8 = 54;
    pub const SHAPE: u8 = 55;
    pub const ARG_MIN: u8 = 57;
    pub const PACK: u8 = 59;
    pub const UNPACK: u8 = 64;
    pub const SQUARE: u8 = 66;
    pub const FILL: u8 = 68;
    pub const LEAKY_RELU: u8 = 75;
    pub const RANK: u8 = 86;
    pub const QUANTIZE: u8 = 89;
    pub const SELECT_V2: u8 = 98;
    pub const DENSIFY: u8 = 99;
    pub const BATCH_MAT_MUL: u8 = 101;
}

/// The options type id `op` takes, for the ops whose options are checked; `None` for the
/// others (any options table is accepted and left undecoded).
#[must_use]
#[inline(always)]
pub(crate) fn options_type_of(op: BuiltinOperator) -> Option<u8> {
    use BuiltinOperator as B;
    Some(match op {
        B::Conv2D => id::CONV_2D,
        B::DepthwiseConv2D => id::DEPTHWISE_CONV_2D,
        B::AveragePool2D | B::MaxPool2D | B::L2Pool2D => id::POOL_2D,
        B::FullyConnected => id::FULLY_CONNECTED,
        B::Softmax => id::SOFTMAX,
        B::Concatenation => id::CONCATENATION,
        B::Add => id::ADD,
        B::Reshape => id::RESHAPE,
        B::Mul => id::MUL,
        B::Pad => id::PAD,
        B::Padv2 => id::PAD_V2,
        B::Gather => id::GATHER,
        B::Transpose => id::TRANSPOSE,
        B::Mean
        | B::Sum
        | B::ReduceMax
        | B::ReduceMin
        | B::ReduceProd
        | B::ReduceAny
        | B::ReduceAll => id::REDUCER,
        B::Sub => id::SUB,
        B::Div => id::DIV,
        B::Squeeze => id::SQUEEZE,
        B::StridedSlice => id::STRIDED_SLICE,
        B::Exp => id::EXP,
        B::Split => id::SPLIT,
        B::LogSoftmax => id::LOG_SOFTMAX,
        B::Cast => id::CAST,
        B::Dequantize => id::DEQUANTIZE,
        B::Maximum | B::Minimum => id::MAXIMUM_MINIMUM,
        B::ArgMax => id::ARG_MAX,
        B::ArgMin => id::ARG_MIN,
        B::Less => id::LESS,
        B::LessEqual => id::LESS_EQUAL,
        B::Greater => id::GREATER,
        B::GreaterEqual => id::GREATER_EQUAL,
        B::Equal => id::EQUAL,
        B::NotEqual => id::NOT_EQUAL,
        B::Neg => id::NEG,
        B::Select => id::SELECT,
        B::SelectV2 => id::SELECT_V2,
        B::Slice => id::SLICE,
        B::Tile => id::TILE,
        B::ExpandDims => id::EXPAND_DIMS,
        B::Shape => id::SHAPE,
        B::Pack => id::PACK,
        B::Unpack => id::UNPACK,
        B::Square => id::SQUARE,
        B::Fill => id::FILL,
        B::LeakyRelu => id::LEAKY_RELU,
        B::Rank => id::RANK,
        B::Quantize => id::QUANTIZE,
        B::Densify => id::DENSIFY,
        B::BatchMatmul => id::BATCH_MAT_MUL,
        _ => return None,
    })
}

/// How a field of an options table is stored, for verification.
#[derive(Clone, Copy)]
enum Field {
    /// One byte (bool, enum).
    Byte,
    /// A tensor type byte, checked to be a schema type.
    Type,
    /// Four bytes (int, float).
    Word,
    /// An `[int]` vector.
    Ints,
}

/// The fields of the options tables [`BuiltinOptions`] decodes, by slot.
fn layout(type_id: u8) -> &'static [Field] {
    use Field::{Byte, Ints, Type, Word};
    match type_id {
        id::CONV_2D => &[Byte, Word, Word, Byte, Word, Word, Type],
        id::DEPTHWISE_CONV_2D => &[Byte, Word, Word, Word, Byte, Word, Word],
        id::POOL_2D => &[Byte, Word, Word, Word, Word, Byte],
        id::FULLY_CONNECTED => &[Byte, Byte, Byte, Byte, Type],
        id::SOFTMAX | id::LEAKY_RELU | id::SPLIT => &[Word],
        id::CONCATENATION => &[Word, Byte],
        id::ADD | id::SUB => &[Byte, Byte],
        id::MUL | id::DIV | id::REDUCER => &[Byte],
        id::RESHAPE | id::SQUEEZE => &[Ints],
        id::GATHER | id::PACK | id::UNPACK => &[Word, Word],
        id::STRIDED_SLICE => &[Word, Word, Word, Word, Word, Byte],
        id::CAST => &[Type, Type],
        id::ARG_MAX | id::ARG_MIN | id::SHAPE => &[Type],
        id::BATCH_MAT_MUL => &[Byte, Byte, Byte],
        _ => &[],
    }
}

/// Checks an operator's options against its op and their fields; called once per operator.
pub(crate) fn verify(
    v: &mut Verifier<'_>,
    op: Option<BuiltinOperator>,
    found: u8,
    table: Option<Table>,
) -> Result<(), Fault> {
    const F: &str = "Operator.builtin_options";
    if let (Some(expected), Some(op_table)) = (op.and_then(options_type_of), table) {
        if found != expected {
            return Err(v.err(ErrorKind::OptionsType { found, expected }, F, op_table.pos));
        }
    }
    let Some(t) = table else { return Ok(()) };
    for (slot, field) in layout(found).iter().enumerate() {
        match field {
            Field::Byte => {
                v.u8(t, slot, 0, F)?;
            }
            Field::Type => {
                let raw = v.u8(t, slot, 0, F)?;
                if TensorType::from_code(raw as i8).is_none() {
                    let pos = t.field(v.buf, slot).unwrap_or(t.pos);
                    return Err(v.err(ErrorKind::UnknownEnum { value: raw.into() }, F, pos));
                }
            }
            Field::Word => {
                v.i32(t, slot, 0, F)?;
            }
            Field::Ints => {
                v.vector(t, slot, 4, F)?;
            }
        }
    }
    Ok(())
}

/// Options of CONV_2D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Conv2DOptions {
    /// Padding.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_w: i32,
    /// Vertical stride.
    pub stride_h: i32,
    /// Fused activation.
    pub activation: Activation,
    /// Horizontal dilation (default 1).
    pub dilation_w: i32,
    /// Vertical dilation (default 1).
    pub dilation_h: i32,
}

/// Options of DEPTHWISE_CONV_2D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthwiseConv2DOptions {
    /// Padding.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_w: i32,
    /// Vertical stride.
    pub stride_h: i32,
    /// Output channels per input channel.
    pub depth_multiplier: i32,
    /// Fused activation.
    pub activation: Activation,
    /// Horizontal dilation (default 1).
    pub dilation_w: i32,
    /// Vertical dilation (default 1).
    pub dilation_h: i32,
}

/// Options of AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pool2DOptions {
    /// Padding.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_w: i32,
    /// Vertical stride.
    pub stride_h: i32,
    /// Filter width.
    pub filter_width: i32,
    /// Filter height.
    pub filter_height: i32,
    /// Fused activation.
    pub activation: Activation,
}

/// Options of FULLY_CONNECTED.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullyConnectedOptions {
    /// Fused activation.
    pub activation: Activation,
    /// Weights format: 0 default, 1 shuffled 4x16 int8.
    pub weights_format: u8,
    /// Keep the input's leading dimensions instead of flattening them.
    pub keep_num_dims: bool,
    /// Quantize float inputs on the fly (hybrid models).
    pub asymmetric_quantize_inputs: bool,
}

/// Options of STRIDED_SLICE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedSliceOptions {
    /// Dimensions whose begin is ignored.
    pub begin_mask: i32,
    /// Dimensions whose end is ignored.
    pub end_mask: i32,
    /// The ellipsis dimension.
    pub ellipsis_mask: i32,
    /// Dimensions inserted.
    pub new_axis_mask: i32,
    /// Dimensions removed.
    pub shrink_axis_mask: i32,
    /// `end` is an offset from `begin`.
    pub offset: bool,
}

/// An operator's builtin options, decoded. An operator whose options table is absent gets
/// the schema defaults of the type its op takes (as TensorFlow Lite does).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum BuiltinOptions<'a> {
    /// No options (the op takes none, or is not one whose options are decoded).
    None,
    /// CONV_2D.
    Conv2D(Conv2DOptions),
    /// DEPTHWISE_CONV_2D.
    DepthwiseConv2D(DepthwiseConv2DOptions),
    /// The 2-D pools.
    Pool2D(Pool2DOptions),
    /// FULLY_CONNECTED.
    FullyConnected(FullyConnectedOptions),
    /// SOFTMAX.
    Softmax {
        /// Multiplier of the logits.
        beta: f32,
    },
    /// CONCATENATION.
    Concatenation {
        /// Axis (negative counts from the end).
        axis: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// ADD.
    Add {
        /// Fused activation.
        activation: Activation,
        /// `pot_scale_int16` (schema default true; false when the operator has no options
        /// table, as LiteRT reads it): an int16 ADD whose scales are all powers of two then
        /// takes TensorFlow Lite's power-of-two path (shifts and a saturating add) instead of
        /// the general rescaling one. TensorFlow's converter writes false.
        pot_scale_int16: bool,
    },
    /// SUB.
    Sub {
        /// Fused activation.
        activation: Activation,
    },
    /// MUL.
    Mul {
        /// Fused activation.
        activation: Activation,
    },
    /// DIV.
    Div {
        /// Fused activation.
        activation: Activation,
    },
    /// RESHAPE.
    Reshape {
        /// The new shape when no shape tensor is given (may be empty).
        new_shape: I32s<'a>,
    },
    /// SQUEEZE.
    Squeeze {
        /// Dimensions to remove (empty: every size-1 dimension).
        squeeze_dims: I32s<'a>,
    },
    /// GATHER.
    Gather {
        /// Axis.
        axis: i32,
        /// Leading batch dimensions.
        batch_dims: i32,
    },
    /// LEAKY_RELU.
    LeakyRelu {
        /// Slope below zero.
        alpha: f32,
    },
    /// MEAN, SUM, REDUCE_MAX and the other reductions.
    Reducer {
        /// Keep reduced dimensions with size 1.
        keep_dims: bool,
    },
    /// STRIDED_SLICE.
    StridedSlice(StridedSliceOptions),
    /// CAST (types as stored; TensorFlow Lite uses the tensors' types).
    Cast {
        /// Input type (FLOAT32 when absent).
        in_type: TensorType,
        /// Output type (FLOAT32 when absent).
        out_type: TensorType,
    },
    /// ARG_MAX.
    ArgMax {
        /// Output index type.
        output_type: TensorType,
    },
    /// ARG_MIN.
    ArgMin {
        /// Output index type.
        output_type: TensorType,
    },
    /// SHAPE.
    Shape {
        /// Output type.
        out_type: TensorType,
    },
    /// PACK.
    Pack {
        /// Number of inputs.
        values_count: i32,
        /// Axis.
        axis: i32,
    },
    /// UNPACK.
    Unpack {
        /// Number of outputs.
        num: i32,
        /// Axis.
        axis: i32,
    },
    /// SPLIT.
    Split {
        /// Number of outputs.
        num_splits: i32,
    },
    /// BATCH_MATMUL.
    BatchMatMul {
        /// Transpose the first input.
        adj_x: bool,
        /// Transpose the second input.
        adj_y: bool,
    },
    /// An options table with no fields (TRANSPOSE, DENSIFY, PAD, QUANTIZE, SELECT,
    /// comparisons...), by union type id.
    Empty(u8),
    /// Options of a type not decoded here, by union type id.
    Other(u8),
}

/// An options table's fields (verified), or the schema's defaults where one is absent or
/// there is no table. Its reads are out of line on bare metal: inlined, each field of each
/// decoded type was 30 to 50 bytes of a Cortex-M4F image.
struct Fields<'a> {
    buf: &'a [u8],
    t: Option<Table>,
}

impl Fields<'_> {
    #[cfg_attr(target_os = "none", inline(never))]
    fn byte(&self, slot: usize, default: u8) -> u8 {
        self.t.map_or(default, |t| t.u8(self.buf, slot, default))
    }

    #[cfg_attr(target_os = "none", inline(never))]
    fn word(&self, slot: usize, default: i32) -> i32 {
        self.t.map_or(default, |t| t.i32(self.buf, slot, default))
    }
}

/// Decodes options of union type `type_id` from `t` (verified), defaults when `t` is `None`.
/// Inlined, so that [`Operator::options_for`](super::Operator::options_for)'s constant type
/// keeps one arm.
#[inline(always)]
pub(crate) fn decode<'a>(buf: &'a [u8], type_id: u8, t: Option<Table>) -> BuiltinOptions<'a> {
    let f = Fields { buf, t };
    let byte = |slot, d: u8| f.byte(slot, d);
    let word = |slot, d: i32| f.word(slot, d);
    let flag = |slot, d: bool| f.byte(slot, u8::from(d)) != 0;
    let real = |slot, d: f32| f32::from_bits(f.word(slot, d.to_bits() as i32) as u32);
    let act = |slot| Activation::from_code(byte(slot, 0) as i8);
    let pad = |slot| Padding::from_code(byte(slot, 0) as i8);
    let ty = |slot| TensorType::from_code(byte(slot, 0) as i8).unwrap_or(TensorType::Float32);
    let ints = |slot| {
        t.map_or(I32s::empty(), |t| {
            I32s::new(t.vector(buf, slot).bytes(buf, 4))
        })
    };
    use BuiltinOptions as O;
    match type_id {
        0 => O::None,
        id::CONV_2D => O::Conv2D(Conv2DOptions {
            padding: pad(0),
            stride_w: word(1, 0),
            stride_h: word(2, 0),
            activation: act(3),
            dilation_w: word(4, 1),
            dilation_h: word(5, 1),
        }),
        id::DEPTHWISE_CONV_2D => O::DepthwiseConv2D(DepthwiseConv2DOptions {
            padding: pad(0),
            stride_w: word(1, 0),
            stride_h: word(2, 0),
            depth_multiplier: word(3, 0),
            activation: act(4),
            dilation_w: word(5, 1),
            dilation_h: word(6, 1),
        }),
        id::POOL_2D => O::Pool2D(Pool2DOptions {
            padding: pad(0),
            stride_w: word(1, 0),
            stride_h: word(2, 0),
            filter_width: word(3, 0),
            filter_height: word(4, 0),
            activation: act(5),
        }),
        id::FULLY_CONNECTED => O::FullyConnected(FullyConnectedOptions {
            activation: act(0),
            weights_format: byte(1, 0),
            keep_num_dims: flag(2, false),
            asymmetric_quantize_inputs: flag(3, false),
        }),
        id::SOFTMAX => O::Softmax { beta: real(0, 0.0) },
        id::CONCATENATION => O::Concatenation {
            axis: word(0, 0),
            activation: act(1),
        },
        id::ADD => O::Add {
            activation: act(0),
            // A table without the field: the schema's true. No table at all: false, as
            // LiteRT's zero-initialized TfLiteAddParams reads then (ParseAdd fills nothing).
            pot_scale_int16: t.is_some() && flag(1, true),
        },
        id::SUB => O::Sub { activation: act(0) },
        id::MUL => O::Mul { activation: act(0) },
        id::DIV => O::Div { activation: act(0) },
        id::RESHAPE => O::Reshape { new_shape: ints(0) },
        id::SQUEEZE => O::Squeeze {
            squeeze_dims: ints(0),
        },
        id::GATHER => O::Gather {
            axis: word(0, 0),
            batch_dims: word(1, 0),
        },
        id::LEAKY_RELU => O::LeakyRelu {
            alpha: real(0, 0.0),
        },
        id::REDUCER => O::Reducer {
            keep_dims: flag(0, false),
        },
        id::STRIDED_SLICE => O::StridedSlice(StridedSliceOptions {
            begin_mask: word(0, 0),
            end_mask: word(1, 0),
            ellipsis_mask: word(2, 0),
            new_axis_mask: word(3, 0),
            shrink_axis_mask: word(4, 0),
            offset: flag(5, false),
        }),
        id::CAST => O::Cast {
            in_type: ty(0),
            out_type: ty(1),
        },
        id::ARG_MAX => O::ArgMax { output_type: ty(0) },
        id::ARG_MIN => O::ArgMin { output_type: ty(0) },
        id::SHAPE => O::Shape { out_type: ty(0) },
        id::PACK => O::Pack {
            values_count: word(0, 0),
            axis: word(1, 0),
        },
        id::UNPACK => O::Unpack {
            num: word(0, 0),
            axis: word(1, 0),
        },
        id::SPLIT => O::Split {
            num_splits: word(0, 0),
        },
        id::BATCH_MAT_MUL => O::BatchMatMul {
            adj_x: flag(0, false),
            adj_y: flag(1, false),
        },
        id::PAD
        | id::PAD_V2
        | id::TRANSPOSE
        | id::EXP
        | id::LOG_SOFTMAX
        | id::DEQUANTIZE
        | id::MAXIMUM_MINIMUM
        | id::LESS
        | id::LESS_EQUAL
        | id::GREATER
        | id::GREATER_EQUAL
        | id::EQUAL
        | id::NOT_EQUAL
        | id::NEG
        | id::SELECT
        | id::SELECT_V2
        | id::SLICE
        | id::TILE
        | id::EXPAND_DIMS
        | id::SQUARE
        | id::FILL
        | id::RANK
        | id::QUANTIZE
        | id::DENSIFY => O::Empty(type_id),
        other => O::Other(other),
    }
}

/// Names of the `BuiltinOptions` union's members, by type id minus one (0 is `NONE`).
const OPTIONS_NAMES: [&str; 126] = [
    "Conv2DOptions",
    "DepthwiseConv2DOptions",
    "ConcatEmbeddingsOptions",
    "LSHProjectionOptions",
    "Pool2DOptions",
    "SVDFOptions",
    "RNNOptions",
    "FullyConnectedOptions",
    "SoftmaxOptions",
    "ConcatenationOptions",
    "AddOptions",
    "L2NormOptions",
    "LocalResponseNormalizationOptions",
    "LSTMOptions",
    "ResizeBilinearOptions",
    "CallOptions",
    "ReshapeOptions",
    "SkipGramOptions",
    "SpaceToDepthOptions",
    "EmbeddingLookupSparseOptions",
    "MulOptions",
    "PadOptions",
    "GatherOptions",
    "BatchToSpaceNDOptions",
    "SpaceToBatchNDOptions",
    "TransposeOptions",
    "ReducerOptions",
    "SubOptions",
    "DivOptions",
    "SqueezeOptions",
    "SequenceRNNOptions",
    "StridedSliceOptions",
    "ExpOptions",
    "TopKV2Options",
    "SplitOptions",
    "LogSoftmaxOptions",
    "CastOptions",
    "DequantizeOptions",
    "MaximumMinimumOptions",
    "ArgMaxOptions",
    "LessOptions",
    "NegOptions",
    "PadV2Options",
    "GreaterOptions",
    "GreaterEqualOptions",
    "LessEqualOptions",
    "SelectOptions",
    "SliceOptions",
    "TransposeConvOptions",
    "SparseToDenseOptions",
    "TileOptions",
    "ExpandDimsOptions",
    "EqualOptions",
    "NotEqualOptions",
    "ShapeOptions",
    "PowOptions",
    "ArgMinOptions",
    "FakeQuantOptions",
    "PackOptions",
    "LogicalOrOptions",
    "OneHotOptions",
    "LogicalAndOptions",
    "LogicalNotOptions",
    "UnpackOptions",
    "FloorDivOptions",
    "SquareOptions",
    "ZerosLikeOptions",
    "FillOptions",
    "BidirectionalSequenceLSTMOptions",
    "BidirectionalSequenceRNNOptions",
    "UnidirectionalSequenceLSTMOptions",
    "FloorModOptions",
    "RangeOptions",
    "ResizeNearestNeighborOptions",
    "LeakyReluOptions",
    "SquaredDifferenceOptions",
    "MirrorPadOptions",
    "AbsOptions",
    "SplitVOptions",
    "UniqueOptions",
    "ReverseV2Options",
    "AddNOptions",
    "GatherNdOptions",
    "CosOptions",
    "WhereOptions",
    "RankOptions",
    "ReverseSequenceOptions",
    "MatrixDiagOptions",
    "QuantizeOptions",
    "MatrixSetDiagOptions",
    "HardSwishOptions",
    "IfOptions",
    "WhileOptions",
    "DepthToSpaceOptions",
    "NonMaxSuppressionV4Options",
    "NonMaxSuppressionV5Options",
    "ScatterNdOptions",
    "SelectV2Options",
    "DensifyOptions",
    "SegmentSumOptions",
    "BatchMatMulOptions",
    "CumsumOptions",
    "CallOnceOptions",
    "BroadcastToOptions",
    "Rfft2dOptions",
    "Conv3DOptions",
    "HashtableOptions",
    "HashtableFindOptions",
    "HashtableImportOptions",
    "HashtableSizeOptions",
    "VarHandleOptions",
    "ReadVariableOptions",
    "AssignVariableOptions",
    "RandomOptions",
    "BucketizeOptions",
    "GeluOptions",
    "DynamicUpdateSliceOptions",
    "UnsortedSegmentProdOptions",
    "UnsortedSegmentMaxOptions",
    "UnsortedSegmentMinOptions",
    "UnsortedSegmentSumOptions",
    "ATan2Options",
    "SignOptions",
    "BitcastOptions",
    "BitwiseXorOptions",
    "RightShiftOptions",
];
/// The schema name of options union type `type_id` (`"NONE"` for 0).
#[must_use]
pub fn options_name(type_id: u8) -> &'static str {
    match type_id {
        0 => "NONE",
        n => OPTIONS_NAMES
            .get(usize::from(n) - 1)
            .copied()
            .unwrap_or("unknown options"),
    }
}
