//! TensorFlow Lite's builtin operators (`BuiltinOperator` in `schema.fbs`, every value up to
//! the schema this was written against) and [`Op`], what an operator code resolves to.

use core::fmt;

/// Declares [`BuiltinOperator`] with its schema value and schema name.
macro_rules! builtin_operators {
    ($($variant:ident = $value:literal => $name:literal,)*) => {
        /// A builtin operator of TensorFlow Lite's schema, with its schema value
        /// ([`code`](Self::code)) and schema name ([`name`](Self::name)). Values the schema
        /// does not define (newer ones) are [`Op::Other`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)] // the schema names say what each is
        pub enum BuiltinOperator {
            $($variant = $value,)*
        }

        impl BuiltinOperator {
            /// The operator with schema value `code`, if the schema defines it.
            #[must_use]
            pub const fn from_code(code: i32) -> Option<Self> {
                match code {
                    $($value => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// The schema's name, as TensorFlow prints it (`"FULLY_CONNECTED"`).
            #[must_use]
            #[inline(never)] // one copy, not one per error site
            pub const fn name(self) -> &'static str {
                // Schema values are 0, 1, 2, ... (checked below), so the value indexes ENDS.
                let i = self as usize;
                let start = if i == 0 { 0 } else { NAME_ENDS[i - 1] as usize };
                let (_, tail) = NAMES.as_bytes().split_at(start);
                let (bytes, _) = tail.split_at(NAME_ENDS[i] as usize - start);
                // The names are ASCII literals: this never fails, and keeps `unsafe` out.
                match core::str::from_utf8(bytes) {
                    Ok(name) => name,
                    Err(_) => "",
                }
            }
        }

        /// Every schema name back to back, in schema order. A `match` returning each
        /// literal compiled to two 1 024-byte jump tables (pointers and lengths), each
        /// linked twice on Cortex-M; this and [`NAME_ENDS`] take 1.4 KB less flash.
        const NAMES: &str = concat!($($name,)*);

        /// Operators in the schema.
        const OPERATORS: usize = [$($value,)*].len();

        /// Where each operator's name ends in [`NAMES`].
        const NAME_ENDS: [u16; OPERATORS] = {
            let lens = [$($name.len(),)*];
            let mut ends = [0u16; OPERATORS];
            let mut end = 0;
            let mut i = 0;
            while i < OPERATORS {
                end += lens[i];
                ends[i] = end as u16;
                i += 1;
            }
            assert!(end == NAMES.len() && end <= u16::MAX as usize);
            ends
        };

        // `name` indexes by schema value: the values must be 0, 1, 2, ... in order.
        const _: () = {
            let values = [$($value,)*];
            let mut i = 0;
            while i < OPERATORS {
                assert!(values[i] == i as i32);
                i += 1;
            }
        };
    };
}

impl BuiltinOperator {
    /// The schema value.
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }
}

impl fmt::Display for BuiltinOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an operator code resolves to: the larger of `builtin_code` and
/// `deprecated_builtin_code` (files from before the 127-value placeholder store the op only
/// in the deprecated byte), or the custom op's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op<'a> {
    /// A builtin operator of the schema.
    Builtin(BuiltinOperator),
    /// A CUSTOM operator, by its `custom_code`: never run unless an application registers it.
    Custom(&'a str),
    /// A builtin code that this schema does not define (a newer TensorFlow Lite).
    Other(i32),
}

impl Op<'_> {
    /// The builtin operator, if this is one.
    #[must_use]
    pub fn builtin(self) -> Option<BuiltinOperator> {
        match self {
            Op::Builtin(b) => Some(b),
            _ => None,
        }
    }
}

impl fmt::Display for Op<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Builtin(b) => f.write_str(b.name()),
            Op::Custom(name) => write!(f, "CUSTOM({name})"),
            Op::Other(code) => write!(f, "BUILTIN#{code}"),
        }
    }
}

builtin_operators! {
    Add = 0 => "ADD",
    AveragePool2D = 1 => "AVERAGE_POOL_2D",
    Concatenation = 2 => "CONCATENATION",
    Conv2D = 3 => "CONV_2D",
    DepthwiseConv2D = 4 => "DEPTHWISE_CONV_2D",
    DepthToSpace = 5 => "DEPTH_TO_SPACE",
    Dequantize = 6 => "DEQUANTIZE",
    EmbeddingLookup = 7 => "EMBEDDING_LOOKUP",
    Floor = 8 => "FLOOR",
    FullyConnected = 9 => "FULLY_CONNECTED",
    HashtableLookup = 10 => "HASHTABLE_LOOKUP",
    L2Normalization = 11 => "L2_NORMALIZATION",
    L2Pool2D = 12 => "L2_POOL_2D",
    LocalResponseNormalization = 13 => "LOCAL_RESPONSE_NORMALIZATION",
    Logistic = 14 => "LOGISTIC",
    LshProjection = 15 => "LSH_PROJECTION",
    Lstm = 16 => "LSTM",
    MaxPool2D = 17 => "MAX_POOL_2D",
    Mul = 18 => "MUL",
    Relu = 19 => "RELU",
    ReluN1To1 = 20 => "RELU_N1_TO_1",
    Relu6 = 21 => "RELU6",
    Reshape = 22 => "RESHAPE",
    ResizeBilinear = 23 => "RESIZE_BILINEAR",
    Rnn = 24 => "RNN",
    Softmax = 25 => "SOFTMAX",
    SpaceToDepth = 26 => "SPACE_TO_DEPTH",
    Svdf = 27 => "SVDF",
    Tanh = 28 => "TANH",
    ConcatEmbeddings = 29 => "CONCAT_EMBEDDINGS",
    SkipGram = 30 => "SKIP_GRAM",
    Call = 31 => "CALL",
    Custom = 32 => "CUSTOM",
    EmbeddingLookupSparse = 33 => "EMBEDDING_LOOKUP_SPARSE",
    Pad = 34 => "PAD",
    UnidirectionalSequenceRnn = 35 => "UNIDIRECTIONAL_SEQUENCE_RNN",
    Gather = 36 => "GATHER",
    BatchToSpaceNd = 37 => "BATCH_TO_SPACE_ND",
    SpaceToBatchNd = 38 => "SPACE_TO_BATCH_ND",
    Transpose = 39 => "TRANSPOSE",
    Mean = 40 => "MEAN",
    Sub = 41 => "SUB",
    Div = 42 => "DIV",
    Squeeze = 43 => "SQUEEZE",
    UnidirectionalSequenceLstm = 44 => "UNIDIRECTIONAL_SEQUENCE_LSTM",
    StridedSlice = 45 => "STRIDED_SLICE",
    BidirectionalSequenceRnn = 46 => "BIDIRECTIONAL_SEQUENCE_RNN",
    Exp = 47 => "EXP",
    TopkV2 = 48 => "TOPK_V2",
    Split = 49 => "SPLIT",
    LogSoftmax = 50 => "LOG_SOFTMAX",
    Delegate = 51 => "DELEGATE",
    BidirectionalSequenceLstm = 52 => "BIDIRECTIONAL_SEQUENCE_LSTM",
    Cast = 53 => "CAST",
    Prelu = 54 => "PRELU",
    Maximum = 55 => "MAXIMUM",
    ArgMax = 56 => "ARG_MAX",
    Minimum = 57 => "MINIMUM",
    Less = 58 => "LESS",
    Neg = 59 => "NEG",
    Padv2 = 60 => "PADV2",
    Greater = 61 => "GREATER",
    GreaterEqual = 62 => "GREATER_EQUAL",
    LessEqual = 63 => "LESS_EQUAL",
    Select = 64 => "SELECT",
    Slice = 65 => "SLICE",
    Sin = 66 => "SIN",
    TransposeConv = 67 => "TRANSPOSE_CONV",
    SparseToDense = 68 => "SPARSE_TO_DENSE",
    Tile = 69 => "TILE",
    ExpandDims = 70 => "EXPAND_DIMS",
    Equal = 71 => "EQUAL",
    NotEqual = 72 => "NOT_EQUAL",
    Log = 73 => "LOG",
    Sum = 74 => "SUM",
    Sqrt = 75 => "SQRT",
    Rsqrt = 76 => "RSQRT",
    Shape = 77 => "SHAPE",
    Pow = 78 => "POW",
    ArgMin = 79 => "ARG_MIN",
    FakeQuant = 80 => "FAKE_QUANT",
    ReduceProd = 81 => "REDUCE_PROD",
    ReduceMax = 82 => "REDUCE_MAX",
    Pack = 83 => "PACK",
    LogicalOr = 84 => "LOGICAL_OR",
    OneHot = 85 => "ONE_HOT",
    LogicalAnd = 86 => "LOGICAL_AND",
    LogicalNot = 87 => "LOGICAL_NOT",
    Unpack = 88 => "UNPACK",
    ReduceMin = 89 => "REDUCE_MIN",
    FloorDiv = 90 => "FLOOR_DIV",
    ReduceAny = 91 => "REDUCE_ANY",
    Square = 92 => "SQUARE",
    ZerosLike = 93 => "ZEROS_LIKE",
    Fill = 94 => "FILL",
    FloorMod = 95 => "FLOOR_MOD",
    Range = 96 => "RANGE",
    ResizeNearestNeighbor = 97 => "RESIZE_NEAREST_NEIGHBOR",
    LeakyRelu = 98 => "LEAKY_RELU",
    SquaredDifference = 99 => "SQUARED_DIFFERENCE",
    MirrorPad = 100 => "MIRROR_PAD",
    Abs = 101 => "ABS",
    SplitV = 102 => "SPLIT_V",
    Unique = 103 => "UNIQUE",
    Ceil = 104 => "CEIL",
    ReverseV2 = 105 => "REVERSE_V2",
    AddN = 106 => "ADD_N",
    GatherNd = 107 => "GATHER_ND",
    Cos = 108 => "COS",
    Where = 109 => "WHERE",
    Rank = 110 => "RANK",
    Elu = 111 => "ELU",
    ReverseSequence = 112 => "REVERSE_SEQUENCE",
    MatrixDiag = 113 => "MATRIX_DIAG",
    Quantize = 114 => "QUANTIZE",
    MatrixSetDiag = 115 => "MATRIX_SET_DIAG",
    Round = 116 => "ROUND",
    HardSwish = 117 => "HARD_SWISH",
    If = 118 => "IF",
    While = 119 => "WHILE",
    NonMaxSuppressionV4 = 120 => "NON_MAX_SUPPRESSION_V4",
    NonMaxSuppressionV5 = 121 => "NON_MAX_SUPPRESSION_V5",
    ScatterNd = 122 => "SCATTER_ND",
    SelectV2 = 123 => "SELECT_V2",
    Densify = 124 => "DENSIFY",
    SegmentSum = 125 => "SEGMENT_SUM",
    BatchMatmul = 126 => "BATCH_MATMUL",
    PlaceholderForGreaterOpCodes = 127 => "PLACEHOLDER_FOR_GREATER_OP_CODES",
    Cumsum = 128 => "CUMSUM",
    CallOnce = 129 => "CALL_ONCE",
    BroadcastTo = 130 => "BROADCAST_TO",
    Rfft2D = 131 => "RFFT2D",
    Conv3D = 132 => "CONV_3D",
    Imag = 133 => "IMAG",
    Real = 134 => "REAL",
    ComplexAbs = 135 => "COMPLEX_ABS",
    Hashtable = 136 => "HASHTABLE",
    HashtableFind = 137 => "HASHTABLE_FIND",
    HashtableImport = 138 => "HASHTABLE_IMPORT",
    HashtableSize = 139 => "HASHTABLE_SIZE",
    ReduceAll = 140 => "REDUCE_ALL",
    Conv3DTranspose = 141 => "CONV_3D_TRANSPOSE",
    VarHandle = 142 => "VAR_HANDLE",
    ReadVariable = 143 => "READ_VARIABLE",
    AssignVariable = 144 => "ASSIGN_VARIABLE",
    BroadcastArgs = 145 => "BROADCAST_ARGS",
    RandomStandardNormal = 146 => "RANDOM_STANDARD_NORMAL",
    Bucketize = 147 => "BUCKETIZE",
    RandomUniform = 148 => "RANDOM_UNIFORM",
    Multinomial = 149 => "MULTINOMIAL",
    Gelu = 150 => "GELU",
    DynamicUpdateSlice = 151 => "DYNAMIC_UPDATE_SLICE",
    Relu0To1 = 152 => "RELU_0_TO_1",
    UnsortedSegmentProd = 153 => "UNSORTED_SEGMENT_PROD",
    UnsortedSegmentMax = 154 => "UNSORTED_SEGMENT_MAX",
    UnsortedSegmentSum = 155 => "UNSORTED_SEGMENT_SUM",
    Atan2 = 156 => "ATAN2",
    UnsortedSegmentMin = 157 => "UNSORTED_SEGMENT_MIN",
    Sign = 158 => "SIGN",
    Bitcast = 159 => "BITCAST",
    BitwiseXor = 160 => "BITWISE_XOR",
    RightShift = 161 => "RIGHT_SHIFT",
    StablehloLogistic = 162 => "STABLEHLO_LOGISTIC",
    StablehloAdd = 163 => "STABLEHLO_ADD",
    StablehloDivide = 164 => "STABLEHLO_DIVIDE",
    StablehloMultiply = 165 => "STABLEHLO_MULTIPLY",
    StablehloMaximum = 166 => "STABLEHLO_MAXIMUM",
    StablehloReshape = 167 => "STABLEHLO_RESHAPE",
    StablehloClamp = 168 => "STABLEHLO_CLAMP",
    StablehloConcatenate = 169 => "STABLEHLO_CONCATENATE",
    StablehloBroadcastInDim = 170 => "STABLEHLO_BROADCAST_IN_DIM",
    StablehloConvolution = 171 => "STABLEHLO_CONVOLUTION",
    StablehloSlice = 172 => "STABLEHLO_SLICE",
    StablehloCustomCall = 173 => "STABLEHLO_CUSTOM_CALL",
    StablehloReduce = 174 => "STABLEHLO_REDUCE",
    StablehloAbs = 175 => "STABLEHLO_ABS",
    StablehloAnd = 176 => "STABLEHLO_AND",
    StablehloCosine = 177 => "STABLEHLO_COSINE",
    StablehloExponential = 178 => "STABLEHLO_EXPONENTIAL",
    StablehloFloor = 179 => "STABLEHLO_FLOOR",
    StablehloLog = 180 => "STABLEHLO_LOG",
    StablehloMinimum = 181 => "STABLEHLO_MINIMUM",
    StablehloNegate = 182 => "STABLEHLO_NEGATE",
    StablehloOr = 183 => "STABLEHLO_OR",
    StablehloPower = 184 => "STABLEHLO_POWER",
    StablehloRemainder = 185 => "STABLEHLO_REMAINDER",
    StablehloRsqrt = 186 => "STABLEHLO_RSQRT",
    StablehloSelect = 187 => "STABLEHLO_SELECT",
    StablehloSubtract = 188 => "STABLEHLO_SUBTRACT",
    StablehloTanh = 189 => "STABLEHLO_TANH",
    StablehloScatter = 190 => "STABLEHLO_SCATTER",
    StablehloCompare = 191 => "STABLEHLO_COMPARE",
    StablehloConvert = 192 => "STABLEHLO_CONVERT",
    StablehloDynamicSlice = 193 => "STABLEHLO_DYNAMIC_SLICE",
    StablehloDynamicUpdateSlice = 194 => "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    StablehloPad = 195 => "STABLEHLO_PAD",
    StablehloIota = 196 => "STABLEHLO_IOTA",
    StablehloDotGeneral = 197 => "STABLEHLO_DOT_GENERAL",
    StablehloReduceWindow = 198 => "STABLEHLO_REDUCE_WINDOW",
    StablehloSort = 199 => "STABLEHLO_SORT",
    StablehloWhile = 200 => "STABLEHLO_WHILE",
    StablehloGather = 201 => "STABLEHLO_GATHER",
    StablehloTranspose = 202 => "STABLEHLO_TRANSPOSE",
    Dilate = 203 => "DILATE",
    StablehloRngBitGenerator = 204 => "STABLEHLO_RNG_BIT_GENERATOR",
    ReduceWindow = 205 => "REDUCE_WINDOW",
    StablehloComposite = 206 => "STABLEHLO_COMPOSITE",
    StablehloShiftLeft = 207 => "STABLEHLO_SHIFT_LEFT",
    StablehloCbrt = 208 => "STABLEHLO_CBRT",
    StablehloCase = 209 => "STABLEHLO_CASE",
}
