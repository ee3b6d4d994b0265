//! Why a `.tflite` file was rejected: a [`ModelError`] says what is wrong ([`ErrorKind`]), in
//! which part of the model ([`Location`], the schema field) and at which byte of the file.

use core::fmt;

use tessera_core::strings::StringTensorError;

use super::seal::Seal;

/// The part of the model an error is in: the indices known when it was found.
///
/// `None` means "not inside one": an error in the model's buffer list names a buffer but no
/// subgraph. Indices are `u32`, as flatbuffer vector lengths are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Location {
    /// Index of the subgraph (`Model.subgraphs`).
    pub subgraph: Option<u32>,
    /// Index of the operator in its subgraph.
    pub operator: Option<u32>,
    /// Index of the tensor in its subgraph.
    pub tensor: Option<u32>,
    /// Index of the buffer (`Model.buffers`).
    pub buffer: Option<u32>,
    /// Index of the operator code (`Model.operator_codes`).
    pub opcode: Option<u32>,
    /// Index of the signature (`Model.signature_defs`).
    pub signature: Option<u32>,
    /// Index of the metadata entry (`Model.metadata`).
    pub metadata: Option<u32>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = [
            ("subgraph", self.subgraph),
            ("operator", self.operator),
            ("tensor", self.tensor),
            ("buffer", self.buffer),
            ("operator code", self.opcode),
            ("signature", self.signature),
            ("metadata", self.metadata),
        ];
        let mut first = true;
        for (name, index) in parts {
            if let Some(index) = index {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{name} {index}")?;
                first = false;
            }
        }
        if first {
            f.write_str("model")?;
        }
        Ok(())
    }
}

/// What is wrong with a model file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file is shorter than the 8 bytes of root offset and file identifier.
    TooShort {
        /// Bytes in the file.
        len: usize,
    },
    /// Bytes 4..8 are not the TensorFlow Lite identifier `TFL3`.
    Identifier {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The schema version is not 3.
    Version {
        /// The version found.
        found: u32,
    },
    /// A read of `size` bytes at the error's offset goes past the end of the file.
    OutOfBounds {
        /// Bytes the read needed.
        size: u64,
        /// Bytes in the file.
        len: usize,
    },
    /// Adding an offset to a position overflows (the offset points past any possible file).
    OffsetOverflow,
    /// An object is not aligned to its size within the file (flatbuffers aligns every scalar,
    /// vector and table to its size, counted from the first byte of the file).
    Misaligned {
        /// The alignment the object needs.
        align: usize,
    },
    /// A table's vtable is malformed (odd or too small a size, or a field outside the table).
    Vtable,
    /// A field that must be present is absent.
    Missing,
    /// A string is not UTF-8.
    NotUtf8,
    /// A string does not end with the NUL byte flatbuffers writes after it.
    NoNulTerminator,
    /// The file's objects overlap so much that checking them would read more than
    /// [`Model::load`](super::Model::load) allows (16 times the file length plus 64 KiB):
    /// a file built to make verification slow.
    TooComplex,
    /// A tensor type, dimension type or union type that the schema does not define.
    UnknownEnum {
        /// The value found.
        value: i64,
    },
    /// An index is out of range (or -1 where no tensor is optional).
    Index {
        /// The index found.
        index: i64,
        /// The number of items it indexes.
        count: usize,
    },
    /// A shape has a negative dimension.
    NegativeDimension {
        /// Position of the dimension in the shape.
        dim: usize,
        /// Its value.
        value: i32,
    },
    /// The product of a shape's dimensions (or that times the element size) overflows.
    ElementCountOverflow,
    /// A constant buffer's length is not the tensor's element count times its type's size.
    BufferLength {
        /// Bytes the shape and type call for.
        expected: u64,
        /// Bytes in the buffer.
        found: u64,
    },
    /// A STRING constant is not a valid TFLite string buffer.
    Strings(StringTensorError),
    /// A STRING constant holds a different number of strings than the shape's element count.
    StringCount {
        /// Element count of the shape.
        expected: u64,
        /// Strings in the buffer.
        found: usize,
    },
    /// A buffer in the `offset` / `size` form lies outside the file (or `offset + size` wraps).
    ExternalBuffer {
        /// `Buffer.offset`.
        offset: u64,
        /// `Buffer.size`.
        size: u64,
        /// Bytes in the file.
        len: usize,
    },
    /// A buffer has both inline data and an `offset` / `size` region.
    BufferBothForms,
    /// `shape_signature` disagrees with `shape` (another rank, or a known dimension that differs).
    ShapeSignature {
        /// Position of the first disagreeing dimension (the rank of the shorter one for ranks).
        dim: usize,
    },
    /// A quantization array has a length other than 1 or the quantized dimension's size.
    QuantizationLength {
        /// Length of the array.
        found: usize,
        /// The quantized dimension's size.
        expected: u64,
    },
    /// `quantized_dimension` is outside the tensor's rank.
    QuantizedDimension {
        /// The value found.
        dim: i32,
        /// The tensor's rank.
        rank: usize,
    },
    /// Sparsity: `traversal_order` is not a permutation of the dense dimensions followed by a
    /// permutation of the block dimensions, or `dim_metadata` has another length.
    TraversalOrder,
    /// Sparsity: `block_map` names a dimension outside the dense shape, or has too many entries.
    BlockMap,
    /// Sparsity: a dense dimension's `dense_size` disagrees with the shape (or block size).
    DenseSize {
        /// The size the shape calls for.
        expected: u64,
        /// `dense_size` found.
        found: i32,
    },
    /// Sparsity: a SPARSE_CSR dimension lacks its segment or index vector.
    SparseVectors,
    /// Sparsity: `array_segments` has the wrong length, does not start at 0, decreases, or does
    /// not end at the number of indices.
    Segments {
        /// Position in the segment vector of the first bad entry.
        position: usize,
    },
    /// Sparsity: an entry of `array_indices` is not below the dimension's size.
    SparseIndex {
        /// Position in the index vector.
        position: usize,
        /// The index found.
        index: i64,
        /// The dimension's size.
        size: u64,
    },
    /// An operator's builtin options table is of another type than its op takes.
    OptionsType {
        /// The union type id found.
        found: u8,
        /// The type id the op takes.
        expected: u8,
    },
    /// An operator code says CUSTOM but has no `custom_code`.
    MissingCustomCode,
    /// `mutating_variable_inputs` is neither empty nor as long as the inputs.
    MutatingInputs,
    /// The model uses a part of the format that this build of `tessera-lite` leaves out: a
    /// sparse tensor without the `sparse` feature, a STRING tensor without `strings`.
    Unsupported {
        /// The cargo feature that reads it.
        feature: &'static str,
    },
    /// The bytes given to [`Model::load_sealed`](super::Model::load_sealed) are not the
    /// model its [`Seal`] was made for: another size or another CRC-32.
    NotSealed {
        /// The seal's size and CRC-32.
        expected: Seal,
        /// The size and CRC-32 of the bytes given.
        found: Seal,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Unsupported { feature } => write!(
                f,
                "uses {feature} tensors, which this build leaves out (tessera-lite's `{feature}` feature)"
            ),
            Self::NotSealed { expected, found } => write!(
                f,
                "{} bytes with CRC-32 0x{:08x} are not the sealed model ({} bytes, CRC-32 0x{:08x})",
                found.size(),
                found.crc32(),
                expected.size(),
                expected.crc32()
            ),
            Self::TooShort { len } => write!(
                f,
                "file of {len} bytes is too short for a root offset and identifier (8 bytes)"
            ),
            Self::Identifier { found } => write!(
                f,
                "file identifier is {:?}, not \"TFL3\" (not a TensorFlow Lite model)",
                found.escape_ascii()
            ),
            Self::Version { found } => write!(f, "schema version {found}, expected 3"),
            Self::OutOfBounds { size, len } => {
                write!(f, "a {size}-byte read past the end of the {len}-byte file")
            }
            Self::OffsetOverflow => f.write_str("offset overflows"),
            Self::Misaligned { align } => write!(f, "not aligned to {align} bytes"),
            Self::Vtable => f.write_str("malformed vtable"),
            Self::Missing => f.write_str("required field is missing"),
            Self::NotUtf8 => f.write_str("string is not UTF-8"),
            Self::NoNulTerminator => f.write_str("string lacks its NUL terminator"),
            Self::TooComplex => {
                f.write_str("objects overlap too much (verification budget exhausted)")
            }
            Self::UnknownEnum { value } => write!(f, "unknown enum value {value}"),
            Self::Index { index, count } => {
                write!(f, "index {index} out of range (count {count})")
            }
            Self::NegativeDimension { dim, value } => {
                write!(f, "dimension {dim} is negative: {value}")
            }
            Self::ElementCountOverflow => f.write_str("element count overflows"),
            Self::BufferLength { expected, found } => write!(
                f,
                "constant buffer has {found} bytes, shape and type need {expected}"
            ),
            Self::Strings(e) => write!(f, "string constant: {e}"),
            Self::StringCount { expected, found } => write!(
                f,
                "string constant has {found} strings, shape needs {expected}"
            ),
            Self::ExternalBuffer { offset, size, len } => write!(
                f,
                "buffer region offset {offset} size {size} lies outside the {len}-byte file"
            ),
            Self::BufferBothForms => f.write_str("buffer has both inline data and an offset"),
            Self::ShapeSignature { dim } => {
                write!(f, "shape_signature disagrees with shape at dimension {dim}")
            }
            Self::QuantizationLength { found, expected } => write!(
                f,
                "quantization array of length {found}, expected 1 or {expected}"
            ),
            Self::QuantizedDimension { dim, rank } => {
                write!(f, "quantized_dimension {dim} outside rank {rank}")
            }
            Self::TraversalOrder => f.write_str(
                "sparsity traversal_order is not a permutation of the dimensions (or dim_metadata length differs)",
            ),
            Self::BlockMap => f.write_str("sparsity block_map names a dimension out of range"),
            Self::DenseSize { expected, found } => {
                write!(f, "sparsity dense_size {found}, shape needs {expected}")
            }
            Self::SparseVectors => {
                f.write_str("sparse dimension lacks array_segments or array_indices")
            }
            Self::Segments { position } => write!(
                f,
                "sparsity array_segments bad at entry {position} (must start at 0, not decrease, end at the index count)"
            ),
            Self::SparseIndex {
                position,
                index,
                size,
            } => write!(
                f,
                "sparsity array_indices[{position}] = {index} not below the dimension size {size}"
            ),
            Self::OptionsType { found, expected } => write!(
                f,
                "builtin options of type {} ({found}), the op takes {} ({expected})",
                super::options::options_name(found),
                super::options::options_name(expected)
            ),
            Self::MissingCustomCode => f.write_str("CUSTOM operator code without custom_code"),
            Self::MutatingInputs => {
                f.write_str("mutating_variable_inputs length differs from inputs")
            }
        }
    }
}

/// A model file that [`Model::load`](super::Model::load) rejected: what, where in the model, which
/// schema field, and the byte offset in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// The subgraph, operator, tensor, buffer... being checked.
    pub location: Location,
    /// The schema field being read, as `Table.field` (for example `"Tensor.shape"`).
    pub field: &'static str,
    /// Byte offset in the file of the object at fault.
    pub offset: usize,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bad model: ")?;
        if self.location != Location::default() {
            write!(f, "{}: ", self.location)?;
        }
        write!(f, "{}: {} (at byte {})", self.field, self.kind, self.offset)
    }
}

impl core::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Strings(e) => Some(e),
            _ => None,
        }
    }
}
