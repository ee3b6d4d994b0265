//! The `.tflite` model loader: [`Model::load`] checks a whole TensorFlow Lite file once
//! (schema version 3, identifier `TFL3`) and hands out typed views borrowed from its bytes.
//!
//! No allocation, no `unsafe`, no recursion. Every read is an explicit little-endian decode,
//! so big-endian hosts and models at odd addresses work. After a successful load the views
//! ([`Subgraph`], [`Tensor`], [`Operator`], [`Buffer`], [`SignatureDef`]...) do not re-check
//! and cannot fail: every offset, length, string and index they read was checked at load.
//!
//! What load checks, beyond the flatbuffer structure (every offset, vector and string in
//! bounds with overflow-checked arithmetic, and aligned to its size counted from the start of
//! the file, as flatbuffers writes them; strings UTF-8 and NUL-terminated):
//! - every tensor, buffer, opcode and subgraph index in range, -1 only for an optional
//!   operator input;
//! - shapes non-negative, their element counts within `u64`; `shape_signature` agreeing;
//! - constant buffers exactly as long as the element count times the type's size (sub-byte
//!   types packed), STRING constants valid TFLite string buffers with one string per element;
//! - buffers in the `offset` / `size` form (models over 2 GB; `offset > 1`, counted from the
//!   start of the file) inside the file;
//! - quantization: `scale` of length 1 or the quantized dimension's size, `zero_point` as long;
//! - sparsity: traversal order a permutation, block map in range, dense sizes matching the
//!   shape, CSR segments from 0 non-decreasing to the index count, indices in range, and the
//!   constant holding exactly the stored values;
//! - every operator's builtin options of the type its op takes, and every input written by an
//!   earlier operator or a constant, graph input or variable.
//!
//! Objects shared by several references are checked once per reference, within a budget of
//! 16 times the file length plus 64 KiB, so no file makes loading take quadratic time.
//!
//! Firmware that carries its model in flash can run this check once on the host instead
//! ([`Seal::of`]) and recognise the same bytes at start-up ([`Model::load_sealed`]), leaving
//! the verifier out of the image.
//!
//! ```
//! use tessera_lite::model::{BuiltinOperator, Model, Op, TensorType};
//!
//! let bytes = include_bytes!("../../../tests/fixtures/models/sparse.tflite");
//! let model = Model::load(bytes)?;
//! let main = model.subgraph(0).expect("a main graph");
//! let first = main.operators().get(0).expect("an operator");
//! assert_eq!(first.op(), Op::Builtin(BuiltinOperator::Densify));
//! // DENSIFY reads the sparse constant: its stored values, and how they are laid out.
//! let weights = main.tensor(first.inputs().get(0).flatten().unwrap()).unwrap();
//! assert_eq!(weights.tensor_type(), TensorType::Float32);
//! assert_eq!(weights.shape(), [32, 64]);
//! assert!(weights.sparsity().is_some());
//! println!("{}", model.summary());
//!
//! // A truncated copy is an error that says what and where, never a panic.
//! let err = Model::load(&bytes[..bytes.len() / 2]).unwrap_err();
//! assert!(err.to_string().starts_with("bad model: "));
//! # Ok::<(), tessera_lite::model::ModelError>(())
//! ```

mod buffer;
mod error;
mod flexbuffer;
mod list;
mod operator;
mod ops;
mod options;
mod quantization;
mod reader;
mod seal;
mod signature;
mod sparsity;
mod subgraph;
mod summary;
mod tensor;
mod types;
mod vectors;
mod verify;

#[cfg(test)]
pub(crate) mod tests;

pub use buffer::Buffer;
pub use error::{ErrorKind, Location, ModelError};
pub use flexbuffer::{FlexError, FlexMap, FlexType, FlexValue, FlexVector, TypedElement};
pub use list::List;
pub use operator::{Operator, OperatorCode};
pub use ops::{BuiltinOperator, Op};
pub use options::*;
pub use quantization::Quantization;
pub use seal::Seal;
pub use signature::{Metadata, SignatureDef, TensorMap};
pub use sparsity::{DimensionFormat, DimensionMetadata, SparseIndices, Sparsity};
pub use subgraph::Subgraph;
pub use summary::Summary;
pub use tensor::Tensor;
pub use types::{Activation, Padding, TensorType};
pub use vectors::{F32s, I32s, I64s, LeIter, LeScalar, LeSlice, TensorIndices};

use list::Ctx;
use reader::{Table, Vector};
use verify::slot;

/// A verified TensorFlow Lite model, borrowed from its bytes.
#[derive(Clone, Copy, Debug)]
pub struct Model<'a> {
    ctx: Ctx<'a>,
    root: Table,
}

impl<'a> Model<'a> {
    /// Checks `bytes` as a whole `.tflite` file and wraps it. One pass; nothing is copied.
    ///
    /// # Errors
    /// A [`ModelError`] naming what is wrong, where in the model (subgraph, operator, tensor,
    /// buffer...), the schema field and the byte offset. Never panics, whatever the bytes.
    pub fn load(bytes: &'a [u8]) -> Result<Self, ModelError> {
        let (root, ctx) = verify::verify(bytes)?;
        Ok(Self { ctx, root })
    }

    /// Wraps `bytes` if they are the model `seal` was made for (the same size and CRC-32),
    /// without walking them again: [`Seal::of`] checked them in full when it made the seal,
    /// ahead of time. For firmware that carries its model: the verifier (10.9 KB of a
    /// Cortex-M4F image) is not linked when nothing calls [`Model::load`].
    ///
    /// A seal recognises bytes; it does not authenticate them (see [`Seal`]). Load files and
    /// anything received with [`Model::load`].
    ///
    /// # Errors
    /// [`ErrorKind::NotSealed`], with both sizes and CRCs, for any other bytes.
    pub fn load_sealed(bytes: &'a [u8], seal: &Seal) -> Result<Self, ModelError> {
        let found = Seal::fingerprint(bytes);
        if found != *seal {
            return Err(ModelError {
                kind: ErrorKind::NotSealed {
                    expected: *seal,
                    found,
                },
                location: Location::default(),
                field: "file",
                offset: 0,
            });
        }
        // The same bytes as passed `load`: every read below is one it checked.
        let root = Table::at(bytes, reader::follow(bytes, 0));
        let ctx = Ctx {
            buf: bytes,
            buffers: root.vector(bytes, slot::BUFFERS),
            opcodes: root.vector(bytes, slot::OPERATOR_CODES),
        };
        Ok(Self { ctx, root })
    }

    /// This model's seal, for [`Model::load_sealed`]: its bytes passed the full check when
    /// they were loaded, so they are not checked again ([`Seal::of`] loads, then seals).
    #[must_use]
    pub fn seal(&self) -> Seal {
        Seal::fingerprint(self.ctx.buf)
    }

    /// The file's bytes.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        self.ctx.buf
    }

    /// Schema version (always 3).
    #[must_use]
    pub fn version(&self) -> u32 {
        self.root.u32(self.ctx.buf, slot::VERSION, 0)
    }

    /// The description the converter wrote, if any.
    #[must_use]
    pub fn description(&self) -> Option<&'a str> {
        self.root.str(self.ctx.buf, slot::DESCRIPTION)
    }

    /// The operator codes operators index into.
    #[must_use]
    pub fn operator_codes(&self) -> List<'a, OperatorCode<'a>> {
        List::new(self.ctx, self.ctx.opcodes)
    }

    /// The subgraphs; 0 is the main graph.
    #[must_use]
    pub fn subgraphs(&self) -> List<'a, Subgraph<'a>> {
        List::new(self.ctx, self.root.vector(self.ctx.buf, slot::SUBGRAPHS))
    }

    /// Subgraph `i`, or `None` past the end.
    #[must_use]
    pub fn subgraph(&self, i: usize) -> Option<Subgraph<'a>> {
        self.subgraphs().get(i)
    }

    /// The buffers (0 is the empty sentinel).
    #[must_use]
    pub fn buffers(&self) -> List<'a, Buffer<'a>> {
        List::new(self.ctx, self.ctx.buffers)
    }

    /// Named metadata buffers (`"min_runtime_version"`, ...).
    #[must_use]
    pub fn metadata(&self) -> List<'a, Metadata<'a>> {
        List::new(self.ctx, self.root.vector(self.ctx.buf, slot::METADATA))
    }

    /// The deprecated list of metadata buffer indices.
    #[must_use]
    pub fn metadata_buffer(&self) -> I32s<'a> {
        let buf = self.ctx.buf;
        I32s::new(self.root.vector(buf, slot::METADATA_BUFFER).bytes(buf, 4))
    }

    /// The signatures (named entry points); none without the `signatures` feature, which
    /// leaves them unchecked and unread.
    #[must_use]
    pub fn signature_defs(&self) -> List<'a, SignatureDef<'a>> {
        let defs = if cfg!(feature = "signatures") {
            self.root.vector(self.ctx.buf, slot::SIGNATURE_DEFS)
        } else {
            Vector::EMPTY
        };
        List::new(self.ctx, defs)
    }

    /// The signature with key `key`.
    #[must_use]
    pub fn signature(&self, key: &str) -> Option<SignatureDef<'a>> {
        self.signature_defs().iter().find(|s| s.key() == key)
    }

    /// A description of the whole model for people, as `tessera model inspect` prints it.
    #[must_use]
    pub fn summary(&self) -> Summary<'a> {
        Summary::new(*self)
    }
}
