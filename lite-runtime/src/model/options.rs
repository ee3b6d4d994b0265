//! Typed builtin options of every operator in TensorFlow Lite's schema: one row per options
//! table in [`options!`] below generates its union type id, the ops that take it, the struct
//! and the variant of [`BuiltinOptions`], the field layout the loader verifies, the decoder
//! (schema defaults for absent fields and absent tables), the schema name and the display.
//! An operator whose options are of another type than its op takes is an error at load.

use core::fmt;

use super::error::ErrorKind;
use super::ops::BuiltinOperator;
use super::reader::{Fault, Table, Verifier};
use super::types::{Activation, Padding, TensorType};
use super::vectors::{F32s, I32s};

/// How a field of an options table is stored, for verification: 3 bits per slot in a
/// type's layout word ([`LAYOUTS`]), 0 for a slot the type does not use. One `u32` per type
/// keeps the verifier's table at 508 bytes of a firmware image.
mod field {
    /// One byte (bool, enum).
    pub const BYTE: u32 = 1;
    /// A tensor type byte, checked to be a schema type.
    pub const TYPE: u32 = 2;
    /// Four bytes (int, float).
    pub const WORD: u32 = 3;
    /// Eight bytes.
    pub const LONG: u32 = 4;
    /// A vector of 4-byte numbers.
    pub const VEC4: u32 = 5;
    /// A string.
    pub const STR: u32 = 6;
}

/// An options table's fields (verified), or the schema's defaults where one is absent or
/// there is no table. Its reads are out of line on bare metal: inlined, each field of each
/// decoded type was 30 to 50 bytes of a Cortex-M4F image.
struct Fields<'a> {
    buf: &'a [u8],
    t: Option<Table>,
}

impl<'a> Fields<'a> {
    #[cfg_attr(target_os = "none", inline(never))]
    fn byte(&self, slot: usize, default: u8) -> u8 {
        self.t.map_or(default, |t| t.u8(self.buf, slot, default))
    }

    #[cfg_attr(target_os = "none", inline(never))]
    fn word(&self, slot: usize, default: i32) -> i32 {
        self.t.map_or(default, |t| t.i32(self.buf, slot, default))
    }

    fn long(&self, slot: usize) -> u64 {
        self.t.map_or(0, |t| t.u64(self.buf, slot, 0))
    }

    fn vec4(&self, slot: usize) -> &'a [u8] {
        self.t
            .map_or(&[], |t| t.vector(self.buf, slot).bytes(self.buf, 4))
    }

    fn str(&self, slot: usize) -> Option<&'a str> {
        self.t.and_then(|t| t.str(self.buf, slot))
    }
}

/// How a field's value prints in [`BuiltinOptions`]' display.
trait Show {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

macro_rules! show_display {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    )*};
}
show_display!(
    bool, u8, i32, u32, i64, f32, Padding, Activation, TensorType
);

impl Show for I32s<'_> {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl Show for F32s<'_> {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl Show for Option<&str> {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.unwrap_or("-"))
    }
}

/// An options struct, found in [`BuiltinOptions`] by type: what
/// [`Prepare::options`](crate::interpreter::Prepare::options) reads for a kernel.
pub trait OptionsTable<'a>: Sized {
    /// An op that takes this type (its options are read as this op's).
    const OP: BuiltinOperator;
    /// The struct, if `options` are of this type.
    fn from_options(options: BuiltinOptions<'a>) -> Option<Self>;
}

/// The rows: `id Variant(Struct) [ops] { slot field: kind [= default] [, without table v], }`
/// for tables with fields, `id Struct [ops];` for the empty ones. Kinds: `padding`,
/// `activation`, `dtype` (a tensor type; default as its code), `bool`, `u8`, `i32`, `u32`,
/// `f32`, `i64`, `ints`, `floats`, `str`.
macro_rules! options {
    (@ty padding) => { Padding };
    (@ty activation) => { Activation };
    (@ty dtype) => { TensorType };
    (@ty bool) => { bool };
    (@ty u8) => { u8 };
    (@ty i32) => { i32 };
    (@ty u32) => { u32 };
    (@ty f32) => { f32 };
    (@ty i64) => { i64 };
    (@ty ints) => { I32s<'a> };
    (@ty floats) => { F32s<'a> };
    (@ty str) => { Option<&'a str> };

    (@field padding) => { field::BYTE };
    (@field activation) => { field::BYTE };
    (@field dtype) => { field::TYPE };
    (@field bool) => { field::BYTE };
    (@field u8) => { field::BYTE };
    (@field i32) => { field::WORD };
    (@field u32) => { field::WORD };
    (@field f32) => { field::WORD };
    (@field i64) => { field::LONG };
    (@field ints) => { field::VEC4 };
    (@field floats) => { field::VEC4 };
    (@field str) => { field::STR };

    (@read $f:ident $slot:literal padding $($d:expr)?) => {
        Padding::from_code($f.byte($slot, options!(@or 0 $($d)?)) as i8)
    };
    (@read $f:ident $slot:literal activation $($d:expr)?) => {
        Activation::from_code($f.byte($slot, options!(@or 0 $($d)?)) as i8)
    };
    (@read $f:ident $slot:literal dtype $($d:expr)?) => {
        TensorType::from_code($f.byte($slot, options!(@or 0 $($d)?)) as i8)
            .unwrap_or(TensorType::Float32)
    };
    (@read $f:ident $slot:literal bool $($d:expr)?) => {
        $f.byte($slot, u8::from(options!(@or false $($d)?))) != 0
    };
    (@read $f:ident $slot:literal u8 $($d:expr)?) => { $f.byte($slot, options!(@or 0 $($d)?)) };
    (@read $f:ident $slot:literal i32 $($d:expr)?) => { $f.word($slot, options!(@or 0 $($d)?)) };
    (@read $f:ident $slot:literal u32 $($d:expr)?) => {
        $f.word($slot, options!(@or 0 $($d)?)) as u32
    };
    (@read $f:ident $slot:literal f32 $($d:expr)?) => {
        f32::from_bits($f.word($slot, f32::to_bits(options!(@or 0.0 $($d)?)) as i32) as u32)
    };
    (@read $f:ident $slot:literal i64 $($d:expr)?) => { $f.long($slot) as i64 };
    (@read $f:ident $slot:literal ints $($d:expr)?) => { I32s::new($f.vec4($slot)) };
    (@read $f:ident $slot:literal floats $($d:expr)?) => { F32s::new($f.vec4($slot)) };
    (@read $f:ident $slot:literal str $($d:expr)?) => { $f.str($slot) };

    (@or $fallback:tt) => { $fallback };
    (@or $fallback:tt $d:expr) => { $d };

    (@absent $f:ident $value:expr) => { $value };
    (@absent $f:ident $value:expr, $absent:expr) => {
        if $f.t.is_none() { $absent } else { $value }
    };

    (
        tables {$(
            $(#[$doc:meta])*
            $id:literal $variant:ident($name:ident $(<$lt:lifetime>)?) [$first:ident $(, $op:ident)*] {$(
                $(#[$fdoc:meta])*
                $slot:literal $field:ident: $kind:ident $(= $default:expr)? $(, without table $absent:expr)?,
            )*}
        )*}
        empty {$(
            $eid:literal $ename:ident [$efirst:ident $(, $eop:ident)*];
        )*}
    ) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, PartialEq)]
            pub struct $name $(<$lt>)? {$(
                $(#[$fdoc])*
                pub $field: options!(@ty $kind),
            )*}

            impl<'a> OptionsTable<'a> for $name $(<$lt>)? {
                const OP: BuiltinOperator = BuiltinOperator::$first;
                fn from_options(options: BuiltinOptions<'a>) -> Option<Self> {
                    match options {
                        BuiltinOptions::$variant(o) => Some(o),
                        _ => None,
                    }
                }
            }

            impl$(<$lt>)? fmt::Display for $name $(<$lt>)? {
                /// The fields that differ from what an operator with no options table reads
                /// (the schema's defaults, but for ADD's and SUB's `pot_scale_int16`), as
                /// `name=value`.
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    let defaults = Fields { buf: &[], t: None };
                    let mut first = true;
                    $(
                        let value = options!(
                            @absent defaults options!(@read defaults $slot $kind $($default)?)
                            $(, $absent)?
                        );
                        if self.$field != value {
                            if !first {
                                f.write_str(" ")?;
                            }
                            first = false;
                            f.write_str(concat!(stringify!($field), "="))?;
                            Show::show(&self.$field, f)?;
                        }
                    )*
                    let _ = first;
                    Ok(())
                }
            }
        )*

        /// An operator's builtin options, decoded. An operator whose options table is absent
        /// gets the schema defaults of the type its op takes (as TensorFlow Lite does).
        #[derive(Debug, Clone, Copy, PartialEq)]
        #[non_exhaustive]
        pub enum BuiltinOptions<'a> {
            /// No options (the op takes none).
            None,
            $(
                $(#[$doc])*
                $variant($name $(<$lt>)?),
            )*
            /// An options table with no fields (TRANSPOSE, DENSIFY, PAD, QUANTIZE, SELECT,
            /// comparisons...), by union type id.
            Empty(u8),
            /// Options of a type this schema does not define, by union type id.
            Other(u8),
        }

        impl fmt::Display for BuiltinOptions<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    Self::None | Self::Empty(_) => Ok(()),
                    $(Self::$variant(o) => fmt::Display::fmt(o, f),)*
                    Self::Other(id) => write!(f, "options={}", options_name(*id)),
                }
            }
        }

        /// The options type id `op` takes; `None` for ops that take none.
        #[must_use]
        #[inline(always)]
        pub(crate) fn options_type_of(op: BuiltinOperator) -> Option<u8> {
            use BuiltinOperator as B;
            Some(match op {
                $(B::$first $(| B::$op)* => $id,)*
                $(B::$efirst $(| B::$eop)* => $eid,)*
                _ => return None,
            })
        }

        /// Each options type's layout: [`field`] kinds, 3 bits per slot from slot 0.
        const LAYOUTS: [u32; TYPES] = {
            let mut layouts = [0; TYPES];
            $(layouts[$id] = 0 $(| options!(@field $kind) << (3 * $slot))*;)*
            layouts
        };

        /// Decodes options of union type `type_id` from `t` (verified), defaults when `t` is
        /// `None`. Inlined, so that [`Operator::options_for`](super::Operator::options_for)'s
        /// constant type keeps one arm.
        #[inline(always)]
        pub(crate) fn decode<'a>(buf: &'a [u8], type_id: u8, t: Option<Table>) -> BuiltinOptions<'a> {
            let f = Fields { buf, t };
            match type_id {
                0 => BuiltinOptions::None,
                $(
                    $id => BuiltinOptions::$variant($name {$(
                        $field: options!(
                            @absent f options!(@read f $slot $kind $($default)?) $(, $absent)?
                        ),
                    )*}),
                )*
                $($eid)|* => BuiltinOptions::Empty(type_id),
                other => BuiltinOptions::Other(other),
            }
        }

        /// Schema names of the options union's members, by type id.
        const NAMES: [&str; TYPES] = {
            let mut names = ["unknown options"; TYPES];
            names[0] = "NONE";
            $(names[$id] = stringify!($name);)*
            $(names[$eid] = stringify!($ename);)*
            names
        };
    };
}

/// The schema name of options union type `type_id` (`"NONE"` for 0).
#[must_use]
pub fn options_name(type_id: u8) -> &'static str {
    NAMES
        .get(usize::from(type_id))
        .copied()
        .unwrap_or("unknown options")
}

/// Options types in the schema, `NONE` included (a row past it fails to compile, as does a
/// slot past 9).
const TYPES: usize = 127;

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
    let mut layout = LAYOUTS.get(usize::from(found)).copied().unwrap_or(0);
    let mut slot = 0;
    while layout != 0 {
        match layout & 7 {
            field::BYTE => {
                v.u8(t, slot, 0, F)?;
            }
            field::TYPE => {
                let raw = v.u8(t, slot, 0, F)?;
                if TensorType::from_code(raw as i8).is_none() {
                    let pos = t.field(v.buf, slot).unwrap_or(t.pos);
                    return Err(v.err(ErrorKind::UnknownEnum { value: raw.into() }, F, pos));
                }
            }
            field::WORD => {
                v.i32(t, slot, 0, F)?;
            }
            field::LONG => {
                v.u64(t, slot, 0, F)?;
            }
            field::VEC4 => {
                v.vector(t, slot, 4, F)?;
            }
            field::STR => {
                v.string(t, slot, F)?;
            }
            _ => {}
        }
        layout >>= 3;
        slot += 1;
    }
    Ok(())
}

options! {
tables {
    /// Options of CONV_2D.
    1 Conv2D(Conv2DOptions) [Conv2D] {
        /// Padding.
        0 padding: padding,
        /// Horizontal stride.
        1 stride_w: i32,
        /// Vertical stride.
        2 stride_h: i32,
        /// Fused activation.
        3 activation: activation,
        /// Horizontal dilation.
        4 dilation_w: i32 = 1,
        /// Vertical dilation.
        5 dilation_h: i32 = 1,
        /// Bias type of a quantized kernel (FLOAT32: the default for its types).
        6 quantized_bias_type: dtype,
    }
    /// Options of DEPTHWISE_CONV_2D.
    2 DepthwiseConv2D(DepthwiseConv2DOptions) [DepthwiseConv2D] {
        /// Padding.
        0 padding: padding,
        /// Horizontal stride.
        1 stride_w: i32,
        /// Vertical stride.
        2 stride_h: i32,
        /// Output channels per input channel.
        3 depth_multiplier: i32,
        /// Fused activation.
        4 activation: activation,
        /// Horizontal dilation.
        5 dilation_w: i32 = 1,
        /// Vertical dilation.
        6 dilation_h: i32 = 1,
    }
    /// Options of CONCAT_EMBEDDINGS.
    3 ConcatEmbeddings(ConcatEmbeddingsOptions<'a>) [ConcatEmbeddings] {
        /// Channels.
        0 num_channels: i32,
        /// Columns per channel.
        1 num_columns_per_channel: ints,
        /// Embedding width per channel.
        2 embedding_dim_per_channel: ints,
    }
    /// Options of LSH_PROJECTION.
    4 LshProjection(LSHProjectionOptions) [LshProjection] {
        /// 0: UNKNOWN, 1: SPARSE, 2: DENSE.
        0 projection: u8,
    }
    /// Options of AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D.
    5 Pool2D(Pool2DOptions) [AveragePool2D, MaxPool2D, L2Pool2D] {
        /// Padding.
        0 padding: padding,
        /// Horizontal stride.
        1 stride_w: i32,
        /// Vertical stride.
        2 stride_h: i32,
        /// Filter width.
        3 filter_width: i32,
        /// Filter height.
        4 filter_height: i32,
        /// Fused activation.
        5 activation: activation,
    }
    /// Options of SVDF.
    6 Svdf(SVDFOptions) [Svdf] {
        /// Rank of the factorisation.
        0 rank: i32,
        /// Fused activation.
        1 activation: activation,
        /// Quantize float inputs on the fly (hybrid models).
        2 asymmetric_quantize_inputs: bool,
    }
    /// Options of RNN.
    7 Rnn(RNNOptions) [Rnn] {
        /// Fused activation.
        0 activation: activation,
        /// Quantize float inputs on the fly (hybrid models).
        1 asymmetric_quantize_inputs: bool,
    }
    /// Options of FULLY_CONNECTED.
    8 FullyConnected(FullyConnectedOptions) [FullyConnected] {
        /// Fused activation.
        0 activation: activation,
        /// Weights format: 0 default, 1 shuffled 4x16 int8.
        1 weights_format: u8,
        /// Keep the input's leading dimensions instead of flattening them.
        2 keep_num_dims: bool,
        /// Quantize float inputs on the fly (hybrid models).
        3 asymmetric_quantize_inputs: bool,
        /// Bias type of a quantized kernel (FLOAT32: the default for its types).
        4 quantized_bias_type: dtype,
    }
    /// Options of SOFTMAX.
    9 Softmax(SoftmaxOptions) [Softmax] {
        /// Multiplier of the logits (SOFTMAX); exponent (LOCAL_RESPONSE_NORMALIZATION).
        0 beta: f32,
    }
    /// Options of CONCATENATION.
    10 Concatenation(ConcatenationOptions) [Concatenation] {
        /// Axis (negative counts from the end).
        0 axis: i32,
        /// Fused activation.
        1 activation: activation,
    }
    /// Options of ADD.
    11 Add(AddOptions) [Add] {
        /// Fused activation.
        0 activation: activation,
        /// int16 with power-of-two scales takes the shift-and-add path (schema default true; false when the operator has no options table, as LiteRT reads it).
        1 pot_scale_int16: bool = true, without table false,
    }
    /// Options of L2_NORMALIZATION.
    12 L2Norm(L2NormOptions) [L2Normalization] {
        /// Fused activation.
        0 activation: activation,
    }
    /// Options of LOCAL_RESPONSE_NORMALIZATION.
    13 LocalResponseNormalization(LocalResponseNormalizationOptions) [LocalResponseNormalization] {
        /// Half-width of the window.
        0 radius: i32,
        /// Added to the sum.
        1 bias: f32,
        /// Slope below zero (LEAKY_RELU); scale (LOCAL_RESPONSE_NORMALIZATION).
        2 alpha: f32,
        /// Multiplier of the logits (SOFTMAX); exponent (LOCAL_RESPONSE_NORMALIZATION).
        3 beta: f32,
    }
    /// Options of LSTM.
    14 Lstm(LSTMOptions) [Lstm] {
        /// Fused activation.
        0 activation: activation,
        /// Clip of the cell state (0: none).
        1 cell_clip: f32,
        /// Clip of the projection (0: none).
        2 proj_clip: f32,
        /// 0: FULL, 1: BASIC.
        3 kernel_type: u8,
        /// Quantize float inputs on the fly (hybrid models).
        4 asymmetric_quantize_inputs: bool,
    }
    /// Options of RESIZE_BILINEAR.
    15 ResizeBilinear(ResizeBilinearOptions) [ResizeBilinear] {
        /// Corner pixels of input and output align.
        2 align_corners: bool,
        /// Sample at pixel centres (offset by a half).
        3 half_pixel_centers: bool,
    }
    /// Options of CALL.
    16 Call(CallOptions) [Call] {
        /// Subgraph called.
        0 subgraph: u32,
    }
    /// Options of RESHAPE.
    17 Reshape(ReshapeOptions<'a>) [Reshape] {
        /// The new shape when no shape tensor is given (may be empty).
        0 new_shape: ints,
    }
    /// Options of SKIP_GRAM.
    18 SkipGram(SkipGramOptions) [SkipGram] {
        /// N-gram size.
        0 ngram_size: i32,
        /// Largest skip.
        1 max_skip_size: i32,
        /// Shorter n-grams too.
        2 include_all_ngrams: bool,
    }
    /// Options of SPACE_TO_DEPTH.
    19 SpaceToDepth(SpaceToDepthOptions) [SpaceToDepth] {
        /// Block edge.
        0 block_size: i32,
    }
    /// Options of EMBEDDING_LOOKUP_SPARSE.
    20 EmbeddingLookupSparse(EmbeddingLookupSparseOptions) [EmbeddingLookupSparse] {
        /// 0: SUM, 1: MEAN, 2: SQRTN.
        0 combiner: u8,
    }
    /// Options of MUL.
    21 Mul(MulOptions) [Mul] {
        /// Fused activation.
        0 activation: activation,
    }
    /// Options of GATHER.
    23 Gather(GatherOptions) [Gather] {
        /// Axis (negative counts from the end).
        0 axis: i32,
        /// Leading batch dimensions.
        1 batch_dims: i32,
    }
    /// Options of MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL.
    27 Reducer(ReducerOptions) [Mean, Sum, ReduceProd, ReduceMax, ReduceMin, ReduceAny, ReduceAll] {
        /// Keep reduced dimensions with size 1.
        0 keep_dims: bool,
    }
    /// Options of SUB.
    28 Sub(SubOptions) [Sub] {
        /// Fused activation.
        0 activation: activation,
        /// int16 with power-of-two scales takes the shift-and-add path (schema default true; false when the operator has no options table, as LiteRT reads it).
        1 pot_scale_int16: bool = true, without table false,
    }
    /// Options of DIV.
    29 Div(DivOptions) [Div] {
        /// Fused activation.
        0 activation: activation,
    }
    /// Options of SQUEEZE.
    30 Squeeze(SqueezeOptions<'a>) [Squeeze] {
        /// Dimensions to remove (empty: every size-1 dimension).
        0 squeeze_dims: ints,
    }
    /// Options of UNIDIRECTIONAL_SEQUENCE_RNN.
    31 SequenceRnn(SequenceRNNOptions) [UnidirectionalSequenceRnn] {
        /// Inputs are [time, batch, ...] (else [batch, time, ...]).
        0 time_major: bool,
        /// Fused activation.
        1 activation: activation,
        /// Quantize float inputs on the fly (hybrid models).
        2 asymmetric_quantize_inputs: bool,
    }
    /// Options of STRIDED_SLICE.
    32 StridedSlice(StridedSliceOptions) [StridedSlice] {
        /// Dimensions whose begin is ignored.
        0 begin_mask: i32,
        /// Dimensions whose end is ignored.
        1 end_mask: i32,
        /// The ellipsis dimension.
        2 ellipsis_mask: i32,
        /// Dimensions inserted.
        3 new_axis_mask: i32,
        /// Dimensions removed.
        4 shrink_axis_mask: i32,
        /// `end` is an offset from `begin`.
        5 offset: bool,
    }
    /// Options of SPLIT.
    35 Split(SplitOptions) [Split] {
        /// Number of outputs.
        0 num_splits: i32,
    }
    /// Options of CAST.
    37 Cast(CastOptions) [Cast] {
        /// Input type as stored (TensorFlow Lite uses the tensors' types).
        0 in_type: dtype,
        /// Output type.
        1 out_type: dtype,
    }
    /// Options of ARG_MAX.
    40 ArgMax(ArgMaxOptions) [ArgMax] {
        /// Output index type.
        0 output_type: dtype,
    }
    /// Options of TRANSPOSE_CONV.
    49 TransposeConv(TransposeConvOptions) [TransposeConv] {
        /// Padding.
        0 padding: padding,
        /// Horizontal stride.
        1 stride_w: i32,
        /// Vertical stride.
        2 stride_h: i32,
        /// Fused activation.
        3 activation: activation,
        /// Bias type of a quantized kernel (FLOAT32: the default for its types).
        4 quantized_bias_type: dtype,
    }
    /// Options of SPARSE_TO_DENSE.
    50 SparseToDense(SparseToDenseOptions) [SparseToDense] {
        /// Check indices.
        0 validate_indices: bool,
    }
    /// Options of SHAPE.
    55 Shape(ShapeOptions) [Shape] {
        /// Output type.
        0 out_type: dtype,
    }
    /// Options of ARG_MIN.
    57 ArgMin(ArgMinOptions) [ArgMin] {
        /// Output index type.
        0 output_type: dtype,
    }
    /// Options of FAKE_QUANT.
    58 FakeQuant(FakeQuantOptions) [FakeQuant] {
        /// Range minimum.
        0 min: f32,
        /// Range maximum.
        1 max: f32,
        /// Bits.
        2 num_bits: i32,
        /// Leave out the lowest value.
        3 narrow_range: bool,
    }
    /// Options of PACK.
    59 Pack(PackOptions) [Pack] {
        /// Number of inputs.
        0 values_count: i32,
        /// Axis (negative counts from the end).
        1 axis: i32,
    }
    /// Options of ONE_HOT.
    61 OneHot(OneHotOptions) [OneHot] {
        /// Axis (negative counts from the end).
        0 axis: i32,
    }
    /// Options of UNPACK.
    64 Unpack(UnpackOptions) [Unpack] {
        /// Number of outputs.
        0 num: i32,
        /// Axis (negative counts from the end).
        1 axis: i32,
    }
    /// Options of BIDIRECTIONAL_SEQUENCE_LSTM.
    69 BidirectionalSequenceLstm(BidirectionalSequenceLSTMOptions) [BidirectionalSequenceLstm] {
        /// Fused activation.
        0 activation: activation,
        /// Clip of the cell state (0: none).
        1 cell_clip: f32,
        /// Clip of the projection (0: none).
        2 proj_clip: f32,
        /// One output of both directions.
        3 merge_outputs: bool,
        /// Inputs are [time, batch, ...] (else [batch, time, ...]).
        4 time_major: bool = true,
        /// Quantize float inputs on the fly (hybrid models).
        5 asymmetric_quantize_inputs: bool,
    }
    /// Options of BIDIRECTIONAL_SEQUENCE_RNN.
    70 BidirectionalSequenceRnn(BidirectionalSequenceRNNOptions) [BidirectionalSequenceRnn] {
        /// Inputs are [time, batch, ...] (else [batch, time, ...]).
        0 time_major: bool,
        /// Fused activation.
        1 activation: activation,
        /// One output of both directions.
        2 merge_outputs: bool,
        /// Quantize float inputs on the fly (hybrid models).
        3 asymmetric_quantize_inputs: bool,
    }
    /// Options of UNIDIRECTIONAL_SEQUENCE_LSTM.
    71 UnidirectionalSequenceLstm(UnidirectionalSequenceLSTMOptions) [UnidirectionalSequenceLstm] {
        /// Fused activation.
        0 activation: activation,
        /// Clip of the cell state (0: none).
        1 cell_clip: f32,
        /// Clip of the projection (0: none).
        2 proj_clip: f32,
        /// Inputs are [time, batch, ...] (else [batch, time, ...]).
        3 time_major: bool,
        /// Quantize float inputs on the fly (hybrid models).
        4 asymmetric_quantize_inputs: bool,
        /// Recurrent weights are diagonal.
        5 diagonal_recurrent_tensors: bool,
    }
    /// Options of RESIZE_NEAREST_NEIGHBOR.
    74 ResizeNearestNeighbor(ResizeNearestNeighborOptions) [ResizeNearestNeighbor] {
        /// Corner pixels of input and output align.
        0 align_corners: bool,
        /// Sample at pixel centres (offset by a half).
        1 half_pixel_centers: bool,
    }
    /// Options of LEAKY_RELU.
    75 LeakyRelu(LeakyReluOptions) [LeakyRelu] {
        /// Slope below zero (LEAKY_RELU); scale (LOCAL_RESPONSE_NORMALIZATION).
        0 alpha: f32,
    }
    /// Options of MIRROR_PAD.
    77 MirrorPad(MirrorPadOptions) [MirrorPad] {
        /// 0: REFLECT, 1: SYMMETRIC.
        0 mode: u8,
    }
    /// Options of SPLIT_V.
    79 SplitV(SplitVOptions) [SplitV] {
        /// Number of outputs.
        0 num_splits: i32,
    }
    /// Options of UNIQUE.
    80 Unique(UniqueOptions) [Unique] {
        /// Index output type.
        0 idx_out_type: dtype = 2,
    }
    /// Options of REVERSE_SEQUENCE.
    87 ReverseSequence(ReverseSequenceOptions) [ReverseSequence] {
        /// Sequence dimension.
        0 seq_dim: i32,
        /// Batch dimension.
        1 batch_dim: i32,
    }
    /// Options of IF.
    92 If(IfOptions) [If] {
        /// Subgraph run when the condition holds.
        0 then_subgraph_index: i32,
        /// Subgraph run otherwise.
        1 else_subgraph_index: i32,
    }
    /// Options of WHILE.
    93 While(WhileOptions) [While] {
        /// Loop condition subgraph.
        0 cond_subgraph_index: i32,
        /// Loop body subgraph.
        1 body_subgraph_index: i32,
    }
    /// Options of DEPTH_TO_SPACE.
    94 DepthToSpace(DepthToSpaceOptions) [DepthToSpace] {
        /// Block edge.
        0 block_size: i32,
    }
    /// Options of BATCH_MATMUL.
    101 BatchMatMul(BatchMatMulOptions) [BatchMatmul] {
        /// Transpose the first input.
        0 adj_x: bool,
        /// Transpose the second input.
        1 adj_y: bool,
        /// Quantize float inputs on the fly (hybrid models).
        2 asymmetric_quantize_inputs: bool,
    }
    /// Options of CUMSUM.
    102 Cumsum(CumsumOptions) [Cumsum] {
        /// Exclusive sum.
        0 exclusive: bool,
        /// Sum from the end.
        1 reverse: bool,
    }
    /// Options of CALL_ONCE.
    103 CallOnce(CallOnceOptions) [CallOnce] {
        /// Subgraph run once.
        0 init_subgraph_index: i32,
    }
    /// Options of CONV_3D, CONV_3D_TRANSPOSE.
    106 Conv3D(Conv3DOptions) [Conv3D, Conv3DTranspose] {
        /// Padding.
        0 padding: padding,
        /// Depth stride.
        1 stride_d: i32,
        /// Horizontal stride.
        2 stride_w: i32,
        /// Vertical stride.
        3 stride_h: i32,
        /// Fused activation.
        4 activation: activation,
        /// Depth dilation.
        5 dilation_d: i32 = 1,
        /// Horizontal dilation.
        6 dilation_w: i32 = 1,
        /// Vertical dilation.
        7 dilation_h: i32 = 1,
    }
    /// Options of HASHTABLE.
    107 Hashtable(HashtableOptions) [Hashtable] {
        /// Table.
        0 table_id: i32,
        /// Key type.
        1 key_dtype: dtype,
        /// Value type.
        2 value_dtype: dtype,
    }
    /// Options of VAR_HANDLE.
    111 VarHandle(VarHandleOptions<'a>) [VarHandle] {
        /// Resource container.
        0 container: str,
        /// Resource name.
        1 shared_name: str,
    }
    /// Options of RANDOM_STANDARD_NORMAL, RANDOM_UNIFORM, MULTINOMIAL.
    114 Random(RandomOptions) [RandomStandardNormal, RandomUniform, Multinomial] {
        /// Seed.
        0 seed: i64,
        /// Second seed.
        1 seed2: i64,
    }
    /// Options of BUCKETIZE.
    115 Bucketize(BucketizeOptions<'a>) [Bucketize] {
        /// Bucket boundaries.
        0 boundaries: floats,
    }
    /// Options of GELU.
    116 Gelu(GeluOptions) [Gelu] {
        /// The tanh approximation.
        0 approximate: bool,
    }
}
empty {
    22 PadOptions [Pad];
    24 BatchToSpaceNDOptions [BatchToSpaceNd];
    25 SpaceToBatchNDOptions [SpaceToBatchNd];
    26 TransposeOptions [Transpose];
    33 ExpOptions [Exp];
    34 TopKV2Options [TopkV2];
    36 LogSoftmaxOptions [LogSoftmax];
    38 DequantizeOptions [Dequantize];
    39 MaximumMinimumOptions [Maximum, Minimum];
    41 LessOptions [Less];
    42 NegOptions [Neg];
    43 PadV2Options [Padv2];
    44 GreaterOptions [Greater];
    45 GreaterEqualOptions [GreaterEqual];
    46 LessEqualOptions [LessEqual];
    47 SelectOptions [Select];
    48 SliceOptions [Slice];
    51 TileOptions [Tile];
    52 ExpandDimsOptions [ExpandDims];
    53 EqualOptions [Equal];
    54 NotEqualOptions [NotEqual];
    56 PowOptions [Pow];
    60 LogicalOrOptions [LogicalOr];
    62 LogicalAndOptions [LogicalAnd];
    63 LogicalNotOptions [LogicalNot];
    65 FloorDivOptions [FloorDiv];
    66 SquareOptions [Square];
    67 ZerosLikeOptions [ZerosLike];
    68 FillOptions [Fill];
    72 FloorModOptions [FloorMod];
    73 RangeOptions [Range];
    76 SquaredDifferenceOptions [SquaredDifference];
    78 AbsOptions [Abs];
    81 ReverseV2Options [ReverseV2];
    82 AddNOptions [AddN];
    83 GatherNdOptions [GatherNd];
    84 CosOptions [Cos];
    85 WhereOptions [Where];
    86 RankOptions [Rank];
    88 MatrixDiagOptions [MatrixDiag];
    89 QuantizeOptions [Quantize];
    90 MatrixSetDiagOptions [MatrixSetDiag];
    91 HardSwishOptions [HardSwish];
    95 NonMaxSuppressionV4Options [NonMaxSuppressionV4];
    96 NonMaxSuppressionV5Options [NonMaxSuppressionV5];
    97 ScatterNdOptions [ScatterNd];
    98 SelectV2Options [SelectV2];
    99 DensifyOptions [Densify];
    100 SegmentSumOptions [SegmentSum];
    104 BroadcastToOptions [BroadcastTo];
    105 Rfft2dOptions [Rfft2D];
    108 HashtableFindOptions [HashtableFind];
    109 HashtableImportOptions [HashtableImport];
    110 HashtableSizeOptions [HashtableSize];
    112 ReadVariableOptions [ReadVariable];
    113 AssignVariableOptions [AssignVariable];
    117 DynamicUpdateSliceOptions [DynamicUpdateSlice];
    118 UnsortedSegmentProdOptions [UnsortedSegmentProd];
    119 UnsortedSegmentMaxOptions [UnsortedSegmentMax];
    120 UnsortedSegmentMinOptions [UnsortedSegmentMin];
    121 UnsortedSegmentSumOptions [UnsortedSegmentSum];
    122 ATan2Options [Atan2];
    123 SignOptions [Sign];
    124 BitcastOptions [Bitcast];
    125 BitwiseXorOptions [BitwiseXor];
    126 RightShiftOptions [RightShift];
}
}
