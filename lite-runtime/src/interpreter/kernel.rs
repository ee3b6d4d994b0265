//! What a kernel is (TensorFlow Lite Micro's registration: `prepare` once at setup, `eval`
//! at every invoke) and the contexts each step gets.
//!
//! - [`Prepare`] sees the operator in the model (options, tensor types, shapes, constant
//!   data, quantization, sparsity). It checks everything `eval` will rely on, stores the
//!   kernel's parameters in the operator's record ([`Prepare::set_params`]), and asks for
//!   persistent bytes and scratch bytes in the arena. It may not touch the arena: it also runs
//!   for [`Interpreter::required`](super::Interpreter::required), before there is one.
//! - [`Init`] (optional) runs once the arena exists, to fill the persistent bytes (quantized
//!   multipliers per channel, and the like).
//! - [`Eval`] only computes: typed slices of the inputs ([`Eval::input`]) and outputs
//!   ([`Eval::output`]), the parameters, scratch and persistent bytes. Every access is
//!   checked, so a kernel bug is an error, never an out-of-bounds access.

#[cfg(feature = "state")]
use core::cell::Cell;

use tessera_core::strings::TfliteStrings;
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes};

use super::error::KernelError;
use super::record::{PARAMS_BYTES, Place, Shape, TensorRecord, dtype_of};
use crate::model::{
    BuiltinOperator, Operator, OptionsTable, Quantization, Sparsity, Subgraph, Tensor, TensorType,
};

/// A kernel: the op it runs and its steps. Declare one as a `static` and register it in an
/// [`OpResolver`](super::OpResolver); kernels no resolver names are not linked.
pub struct Kernel {
    /// The op it runs.
    pub op: BuiltinOperator,
    /// Checks the operator and records its parameters, at setup.
    pub prepare: fn(&mut Prepare<'_>) -> Result<(), KernelError>,
    /// Fills the persistent bytes, once the arena exists.
    pub init: Option<InitFn>,
    /// Computes the outputs.
    pub eval: fn(&mut Eval<'_>) -> Result<(), KernelError>,
}

/// A kernel's `init` step.
pub type InitFn = fn(&mut Init<'_, '_>) -> Result<(), KernelError>;

impl core::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kernel").field("op", &self.op).finish()
    }
}

/// The output's shape is not the one the op computes from its inputs.
pub(crate) const OUTPUT_SHAPE: KernelError = KernelError::Mismatch {
    what: "output shape differs from what the op computes",
};

/// The operator's options are not the type its kernel reads.
pub(crate) const WRONG_OPTIONS: KernelError = KernelError::Mismatch {
    what: "options are not the op's",
};

/// A tensor as `prepare` sees it, from the model.
#[derive(Debug, Clone, Copy)]
pub struct Desc<'m> {
    /// Its index in the subgraph.
    pub index: usize,
    /// Its element type.
    pub dtype: TensorType,
    /// Its shape.
    pub shape: Shape,
    /// The model's tensor (name, quantization, sparsity, constant data).
    pub tensor: Tensor<'m>,
}

impl<'m> Desc<'m> {
    /// The constant's bytes (little-endian, as in the file), if it is a constant.
    #[must_use]
    pub fn constant(&self) -> Option<&'m [u8]> {
        self.tensor.data()
    }

    /// Its quantization parameters, if any.
    #[must_use]
    pub fn quantization(&self) -> Option<Quantization<'m>> {
        self.tensor.quantization()
    }

    /// Its sparsity parameters, if its constant is stored sparse.
    #[must_use]
    pub fn sparsity(&self) -> Option<Sparsity<'m>> {
        self.tensor.sparsity()
    }
}

/// What `prepare` asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Requests {
    pub params: [u8; PARAMS_BYTES],
    pub persistent: usize,
    pub scratch: usize,
    /// Outputs whose unknown shape the kernel set: (output position, shape).
    #[cfg(feature = "custom-ops")]
    pub resized: [Option<(usize, Shape)>; MAX_RESIZED],
}

/// The most outputs one `prepare` may set shapes for ([`Prepare::set_output_shape`]).
#[cfg(feature = "custom-ops")]
pub const MAX_RESIZED: usize = 4;

impl Requests {
    /// What `prepare` asked for, as set-up recorded it in `rec`.
    #[inline(always)]
    pub(crate) fn recorded(rec: &super::record::OpRecord) -> Self {
        let mut r = Self::NONE;
        r.params = rec.params;
        r.persistent = rec.persistent_bytes as usize;
        r.scratch = rec.scratch_bytes as usize;
        r
    }

    /// Nothing asked for yet.
    pub(crate) const NONE: Self = Self {
        params: [0; PARAMS_BYTES],
        persistent: 0,
        scratch: 0,
        #[cfg(feature = "custom-ops")]
        resized: [None; MAX_RESIZED],
    };
}

/// The context of a kernel's `prepare`.
pub struct Prepare<'m> {
    pub(crate) graph: Subgraph<'m>,
    pub(crate) operator: Operator<'m>,
    pub(crate) requests: Requests,
    /// [`Options::pack_weights`](super::Options::pack_weights) (packed weights live in
    /// persistent bytes filled at the first invoke: the `state` feature).
    #[cfg(feature = "state")]
    pub(crate) pack: bool,
    /// [`Options::threads`](super::Options::threads): how many parts kernels may split
    /// their work into, each with its own scratch.
    #[cfg(feature = "std")]
    pub(crate) threads: usize,
}

impl<'m> Prepare<'m> {
    /// The operator (its options: [`Operator::options`]).
    #[must_use]
    pub fn operator(&self) -> &Operator<'m> {
        &self.operator
    }

    /// Whether the interpreter's options ask kernels to pack constant weights into their
    /// persistent bytes ([`Options::pack_weights`](super::Options::pack_weights)).
    #[must_use]
    pub fn pack_weights(&self) -> bool {
        #[cfg(feature = "state")]
        return self.pack;
        #[cfg(not(feature = "state"))]
        false
    }

    /// Threads the interpreter runs kernels' work on ([`Options::threads`](super::Options::threads);
    /// 1 without `std`): a kernel that splits its work asks for one scratch per thread.
    #[must_use]
    pub fn threads(&self) -> usize {
        #[cfg(feature = "std")]
        return self.threads.max(1);
        #[cfg(not(feature = "std"))]
        1
    }

    /// Whether tensor `t` of the graph is the output of a DEQUANTIZE of a constant: its
    /// values never change, though it is not a constant itself.
    pub(crate) fn dequantizes_a_constant(&self, t: usize) -> bool {
        self.graph.operators().iter().any(|op| {
            op.outputs().get(0) == Some(Some(t))
                && super::setup::dequantized_constant(&self.graph, &op).is_some()
        })
    }

    /// The operator's builtin options as type `T` (the schema's defaults where the model
    /// stores none): `let SoftmaxOptions { beta } = ctx.options()?`. Only `T`'s decoder is
    /// linked.
    ///
    /// # Errors
    /// [`KernelError::Mismatch`] if the operator's options are of another type (the kernel is
    /// registered for an op that does not take `T`).
    #[inline(always)]
    pub fn options<T: OptionsTable<'m>>(&self) -> Result<T, KernelError> {
        T::from_options(self.operator.options_for(T::OP)).ok_or(WRONG_OPTIONS)
    }

    /// A custom operator's options bytes (`custom_options`; a FlexBuffer for most: read it
    /// with [`FlexValue`](crate::model::FlexValue)); empty when there are none.
    #[must_use]
    pub fn custom_options(&self) -> &'m [u8] {
        self.operator.custom_options().unwrap_or(&[])
    }

    /// Number of inputs (optional ones included).
    #[must_use]
    pub fn input_count(&self) -> usize {
        self.operator.inputs().len()
    }

    /// Number of outputs.
    #[must_use]
    pub fn output_count(&self) -> usize {
        self.operator.outputs().len()
    }

    fn desc(&self, index: Option<Option<usize>>) -> Option<Desc<'m>> {
        let index = index??;
        let tensor = self.graph.tensor(index)?;
        Some(Desc {
            index,
            dtype: tensor.tensor_type(),
            shape: super::setup::shape_of(&tensor).ok()?,
            tensor,
        })
    }

    /// Input `i`.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if there is no such input or it is `-1`.
    pub fn input(&self, i: usize) -> Result<Desc<'m>, KernelError> {
        self.desc(self.operator.inputs().get(i))
            .ok_or(KernelError::Arity { what: "an input" })
    }

    /// Input `i`, or `None` if the operator omits it (`-1`, or fewer inputs).
    #[must_use]
    pub fn optional_input(&self, i: usize) -> Option<Desc<'m>> {
        self.desc(self.operator.inputs().get(i))
    }

    /// The sparse constant behind input `i`, if any: the input itself when it is a constant
    /// stored sparse, or the sparse constant a DENSIFY expands into it. A kernel that reads
    /// the sparse form directly (FULLY_CONNECTED) uses it and never reads input `i`; when every
    /// reader of a DENSIFY's output does, the interpreter folds the DENSIFY away (its output
    /// takes no arena bytes). Read it in `eval` with [`Eval::constant`].
    #[must_use]
    pub fn sparse_source(&self, i: usize) -> Option<Desc<'m>> {
        let t = self.operator.inputs().get(i)??;
        let src = super::setup::sparse_source(&self.graph, t)?;
        self.desc(Some(Some(src.index())))
    }

    /// Whether output `i` is folded away (see [`sparse_source`](Self::sparse_source)): the
    /// kernel must not compute it.
    #[must_use]
    pub fn output_folded(&self, i: usize) -> bool {
        self.operator
            .outputs()
            .get(i)
            .flatten()
            .is_some_and(|t| super::setup::folded(&self.graph, t))
    }

    /// Output `i`.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if there is no such output.
    pub fn output(&self, i: usize) -> Result<Desc<'m>, KernelError> {
        self.desc(self.operator.outputs().get(i))
            .ok_or(KernelError::Arity { what: "an output" })
    }

    /// Sets output `i`'s shape where the model leaves it unknown: an output the model gives
    /// no dimensions (`[]`, as old converters wrote the outputs of
    /// `TFLite_Detection_PostProcess`) that is not a constant or variable gets `dims`, and is
    /// planned and read with it, as TensorFlow Lite's kernels resize such outputs in their
    /// `Prepare`. An output whose shape the model states must be given that shape. Operators
    /// that read the output still see the model's shape. Custom kernels only (the
    /// `custom-ops` feature).
    ///
    /// # Errors
    /// [`KernelError::Mismatch`] for a shape that differs from the model's stated one, more
    /// than [`MAX_DIMS`](super::MAX_DIMS) dimensions, or more than
    /// [`MAX_RESIZED`] outputs set; [`KernelError::Arity`] past the outputs.
    #[cfg(feature = "custom-ops")]
    pub fn set_output_shape(&mut self, i: usize, dims: &[usize]) -> Result<(), KernelError> {
        let out = self.output(i)?;
        if out.shape.dims() == dims {
            return Ok(());
        }
        if out.shape.rank() != 0 || out.constant().is_some() || out.tensor.is_variable() {
            return Err(OUTPUT_SHAPE);
        }
        let shape = Shape::new(dims).ok_or(KernelError::Mismatch {
            what: "an output shape of more than MAX_DIMS dimensions",
        })?;
        let slot = self
            .requests
            .resized
            .iter_mut()
            .find(|s| s.is_none_or(|(o, _)| o == i))
            .ok_or(KernelError::Mismatch {
                what: "more outputs resized than MAX_RESIZED",
            })?;
        *slot = Some((i, shape));
        Ok(())
    }

    /// Stores the kernel's parameters in the operator's record; `eval` reads them back with
    /// [`Eval::params`]. A `P` larger than [`PARAMS_BYTES`] does not compile:
    ///
    /// ```compile_fail
    /// use tessera_lite::interpreter::{KernelError, PARAMS_BYTES, Prepare};
    ///
    /// fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    ///     ctx.set_params(&[0u8; PARAMS_BYTES + 1]);
    ///     Ok(())
    /// }
    /// let _kernel = tessera_lite::interpreter::Kernel {
    ///     op: tessera_lite::model::BuiltinOperator::Abs,
    ///     prepare,
    ///     init: None,
    ///     eval: |_| Ok(()),
    /// };
    /// ```
    pub fn set_params<P: IntoBytes + Immutable>(&mut self, params: &P) {
        const {
            assert!(
                size_of::<P>() <= PARAMS_BYTES,
                "kernel parameters over PARAMS_BYTES"
            )
        };
        let bytes = params.as_bytes();
        self.requests.params[..bytes.len()].copy_from_slice(bytes);
    }

    /// Asks for `bytes` of persistent memory (alive as long as the interpreter), filled by
    /// the kernel's `init` and read in `eval` with [`Eval::persistent`].
    pub fn request_persistent(&mut self, bytes: usize) {
        self.requests.persistent = bytes;
    }

    /// Asks for `bytes` of scratch memory, alive while this operator runs
    /// ([`Eval::scratch`]); planned with the activations.
    pub fn request_scratch(&mut self, bytes: usize) {
        self.requests.scratch = bytes;
    }
}

/// The context of a kernel's `init`: the operator as in `prepare`, its parameters, and its
/// persistent bytes to fill.
pub struct Init<'i, 'm> {
    pub(crate) prepare: Prepare<'m>,
    pub(crate) persistent: &'i mut [u8],
}

impl<'m> Init<'_, 'm> {
    /// The operator, as `prepare` saw it.
    #[must_use]
    pub fn prepared(&self) -> &Prepare<'m> {
        &self.prepare
    }

    /// The parameters `prepare` stored.
    #[must_use]
    pub fn params<P: FromBytes>(&self) -> P {
        read_params(&self.prepare.requests.params)
    }

    /// The persistent bytes `prepare` asked for (16-byte aligned).
    pub fn persistent(&mut self) -> &mut [u8] {
        self.persistent
    }
}

fn read_params<P: FromBytes>(bytes: &[u8; PARAMS_BYTES]) -> P {
    const {
        assert!(
            size_of::<P>() <= PARAMS_BYTES,
            "kernel parameters over PARAMS_BYTES"
        )
    };
    P::read_from_prefix(&bytes[..]).map_or_else(|_| P::new_zeroed(), |(p, _)| p)
}

/// Most operands of one operator: inputs.
pub const MAX_INPUTS: usize = 64;
/// Most operands of one operator: outputs.
pub const MAX_OUTPUTS: usize = 16;

/// Most variable tensors one operator updates in place (a bidirectional LSTM has four).
pub const MAX_VARIABLES: usize = 4;

/// Bytes `eval` may write or read, handed out once either way: writable until read shared,
/// shared from then on (so no shared view outlives a write).
#[cfg(feature = "state")]
pub(crate) struct Writable<'e> {
    mutable: Cell<Option<&'e mut [u8]>>,
    shared: Cell<Option<&'e [u8]>>,
}

#[cfg(feature = "state")]
impl<'e> Writable<'e> {
    pub(crate) const fn new(mutable: Option<&'e mut [u8]>, shared: Option<&'e [u8]>) -> Self {
        Self {
            mutable: Cell::new(mutable),
            shared: Cell::new(shared),
        }
    }

    /// The bytes, shared: writable no more.
    fn shared(&self) -> Option<&'e [u8]> {
        if let Some(m) = self.mutable.take() {
            self.shared.set(Some(m));
        }
        self.shared.get()
    }

    /// The bytes to write, if not read shared yet (nor taken already).
    fn take(&self) -> Option<&'e mut [u8]> {
        self.mutable.take()
    }
}

/// The context of a kernel's `eval`: the operator's tensors' bytes, checked on every access.
pub struct Eval<'e> {
    pub(crate) params: &'e [u8; PARAMS_BYTES],
    pub(crate) records: &'e [TensorRecord],
    pub(crate) inputs: &'e [i32],
    pub(crate) outputs: &'e [i32],
    /// The arena's data region, less the outputs and scratch: (offset, bytes) pieces.
    pub(crate) rest: &'e [(usize, &'e [u8])],
    pub(crate) out: &'e mut [Option<&'e mut [u8]>],
    pub(crate) out_len: &'e mut [Option<u32>],
    pub(crate) scratch: Option<&'e mut [u8]>,
    /// The operator's persistent bytes (writable with the `state` feature).
    #[cfg(feature = "state")]
    pub(crate) persistent: Writable<'e>,
    /// The operator's persistent bytes.
    #[cfg(not(feature = "state"))]
    pub(crate) persistent: &'e [u8],
    /// The variable inputs it may update: (input position, bytes).
    #[cfg(feature = "state")]
    pub(crate) variables: &'e [(usize, Writable<'e>)],
    pub(crate) model: &'e [u8],
    /// The interpreter's threads, or the caller's alone.
    #[cfg(feature = "std")]
    pub(crate) workers: &'e dyn super::Workers,
}

const BAD_BYTES: KernelError = KernelError::Mismatch {
    what: "tensor bytes misaligned or invalid for their type",
};

impl<'e> Eval<'e> {
    /// The threads that may run this kernel's work ([`Options::threads`](super::Options::threads)):
    /// split outputs into [`Parts`](super::Parts), one per thread, and run them with
    /// [`Workers::run`](super::Workers::run).
    #[cfg(feature = "std")]
    #[must_use]
    pub fn workers(&self) -> &'e dyn super::Workers {
        self.workers
    }

    /// The parameters `prepare` stored.
    #[must_use]
    pub fn params<P: FromBytes>(&self) -> P {
        read_params(self.params)
    }

    /// Number of inputs (optional ones included).
    #[must_use]
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Number of outputs.
    #[must_use]
    pub fn output_count(&self) -> usize {
        self.outputs.len()
    }

    fn record(&self, index: i32) -> Option<&'e TensorRecord> {
        self.records.get(usize::try_from(index).ok()?)
    }

    fn input_record(&self, i: usize) -> Result<&'e TensorRecord, KernelError> {
        self.inputs
            .get(i)
            .and_then(|&t| self.record(t))
            .ok_or(KernelError::Arity { what: "an input" })
    }

    fn output_record(&self, i: usize) -> Result<&'e TensorRecord, KernelError> {
        self.outputs
            .get(i)
            .and_then(|&t| self.record(t))
            .ok_or(KernelError::Arity { what: "an output" })
    }

    /// Whether input `i` is present (not `-1`).
    #[must_use]
    pub fn has_input(&self, i: usize) -> bool {
        self.input_record(i).is_ok()
    }

    /// Input `i`'s shape.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if absent.
    pub fn input_shape(&self, i: usize) -> Result<Shape, KernelError> {
        Ok(self.input_record(i)?.shape())
    }

    /// Input `i`'s element type.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if absent.
    pub fn input_type(&self, i: usize) -> Result<TensorType, KernelError> {
        self.input_record(i)?
            .tensor_type()
            .ok_or(KernelError::Unsupported {
                what: "tensor type",
            })
    }

    /// Output `i`'s shape.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if absent.
    pub fn output_shape(&self, i: usize) -> Result<Shape, KernelError> {
        Ok(self.output_record(i)?.shape())
    }

    /// Output `i`'s element type.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if absent.
    pub fn output_type(&self, i: usize) -> Result<TensorType, KernelError> {
        self.output_record(i)?
            .tensor_type()
            .ok_or(KernelError::Unsupported {
                what: "tensor type",
            })
    }

    /// Input `i`'s bytes (native byte order; strings in TFLite's little-endian layout).
    ///
    /// # Errors
    /// [`KernelError::Arity`] if absent; a mismatch if its bytes are not where they should
    /// be (overlapping an output: a planning bug, reported instead of aliased).
    pub fn input_bytes(&self, i: usize) -> Result<&'e [u8], KernelError> {
        let r = self.input_record(i)?;
        let (start, len) = (r.offset as usize, r.bytes as usize);
        let end = start.checked_add(len).ok_or(BAD_BYTES)?;
        let full = match r.place() {
            Place::None => return Ok(&[]),
            Place::Model => self.model.get(start..end).ok_or(BAD_BYTES)?,
            Place::Planned | Place::Persistent | Place::Variable => {
                let found = self.variable(i).or_else(|| {
                    self.rest.iter().find_map(|&(at, piece)| {
                        (start >= at && end <= at + piece.len())
                            .then(|| &piece[start - at..end - at])
                    })
                });
                match found {
                    Some(f) => f,
                    None if len == 0 => return Ok(&[]),
                    None => {
                        return Err(KernelError::Mismatch {
                            what: "an input overlaps an output",
                        });
                    }
                }
            }
        };
        Ok(&full[..r.in_use(full)])
    }

    /// The bytes of constant tensor `tensor` (a subgraph tensor index, e.g. a
    /// [`Prepare::sparse_source`] recorded in the parameters), in the host's byte order.
    ///
    /// # Errors
    /// A mismatch if `tensor` is not a constant.
    pub fn constant(&self, tensor: usize) -> Result<&'e [u8], KernelError> {
        let not_constant = KernelError::Mismatch {
            what: "tensor is not a constant",
        };
        let r = self.records.get(tensor).ok_or(not_constant)?;
        let (start, end) = (r.offset as usize, r.offset as usize + r.bytes as usize);
        match r.place() {
            Place::Model => self.model.get(start..end).ok_or(BAD_BYTES),
            Place::Persistent => self
                .rest
                .iter()
                .find_map(|&(at, p)| p.get(start.checked_sub(at)?..end.checked_sub(at)?))
                .ok_or(BAD_BYTES),
            _ => Err(not_constant),
        }
    }

    /// Input `i` as a typed slice (row-major).
    ///
    /// # Errors
    /// [`KernelError::Mismatch`] if its type is not `T`.
    pub fn input<T: Element>(&self, i: usize) -> Result<&'e [T], KernelError> {
        let r = self.input_record(i)?;
        check_type::<T>(r)?;
        super::cast::slice_of(self.input_bytes(i)?).ok_or(BAD_BYTES)
    }

    /// Input `i` as a TFLite string tensor.
    ///
    /// # Errors
    /// A mismatch if it is not a valid string tensor (never for strings the interpreter
    /// wrote or checked).
    pub fn input_strings(&self, i: usize) -> Result<TfliteStrings<'e>, KernelError> {
        let r = self.input_record(i)?;
        if !r.tensor_type().is_some_and(TensorType::is_string) {
            return Err(KernelError::Mismatch {
                what: "input is not a string tensor",
            });
        }
        TfliteStrings::new(self.input_bytes(i)?).map_err(|_| KernelError::Mismatch {
            what: "input holds no valid string tensor",
        })
    }

    /// Output `i`'s bytes, to write. Each output can be taken once per `eval`.
    ///
    /// # Errors
    /// [`KernelError::Arity`] if absent or taken already.
    pub fn output_bytes(&mut self, i: usize) -> Result<&'e mut [u8], KernelError> {
        self.out
            .get_mut(i)
            .and_then(Option::take)
            .ok_or(KernelError::Arity {
                what: "an output (or taken twice)",
            })
    }

    /// Output `i` as a typed slice to write (row-major).
    ///
    /// # Errors
    /// [`KernelError::Mismatch`] if its type is not `T`.
    pub fn output<T: Element>(&mut self, i: usize) -> Result<&'e mut [T], KernelError> {
        let r = self.output_record(i)?;
        check_type::<T>(r)?;
        let bytes = self.output_bytes(i)?;
        if T::DTYPE == tessera_core::tensor::DType::Bool {
            // Arena bytes may hold anything; bool must be 0 or 1 before it is viewed.
            bytes.fill(0);
        }
        super::cast::slice_of_mut(bytes).ok_or(BAD_BYTES)
    }

    /// Records how many bytes of string output `i` are used (its encoded length).
    pub fn set_output_len(&mut self, i: usize, bytes: usize) {
        if let Some(slot) = self.out_len.get_mut(i) {
            *slot = u32::try_from(bytes).ok();
        }
    }

    /// The scratch bytes `prepare` asked for (16-byte aligned; empty if none).
    pub fn scratch(&mut self) -> &mut [u8] {
        self.scratch.as_deref_mut().unwrap_or(&mut [])
    }

    /// Whether output `i` is kept by set-up between invokes rather than planned (the output
    /// of a DEQUANTIZE of a constant, with [`Options::fold_constants`](super::Options)): what
    /// an earlier invoke wrote there is still there.
    #[must_use]
    pub fn output_kept(&self, i: usize) -> bool {
        self.outputs
            .get(i)
            .and_then(|&t| self.records.get(usize::try_from(t).ok()?))
            .is_some_and(|r| r.place() == Place::Persistent)
    }

    /// The persistent bytes `init` filled (16-byte aligned), to read.
    #[must_use]
    pub fn persistent(&self) -> &'e [u8] {
        #[cfg(feature = "state")]
        {
            self.persistent.shared().unwrap_or(&[])
        }
        #[cfg(not(feature = "state"))]
        {
            self.persistent
        }
    }

    /// The persistent bytes to update: a kernel's state kept between invokes (a delay line,
    /// a running estimate), set up by `init` and by
    /// [`Interpreter::reset_state`](super::Interpreter::reset_state). Take them before
    /// reading them with [`persistent`](Self::persistent), and once per `eval`.
    ///
    /// # Errors
    /// [`KernelError::Unsupported`] without the `state` feature; a mismatch if read shared or
    /// taken already.
    pub fn persistent_mut(&mut self) -> Result<&'e mut [u8], KernelError> {
        #[cfg(feature = "state")]
        {
            self.persistent.take().ok_or(TAKEN)
        }
        #[cfg(not(feature = "state"))]
        {
            Err(NO_STATE)
        }
    }

    /// Variable input `i` (a tensor the model marks `is_variable`: an LSTM's or SVDF's state),
    /// to update in place: what the next invoke reads. Take it before reading it with
    /// [`input`](Self::input), and once per `eval`.
    ///
    /// # Errors
    /// [`KernelError::Unsupported`] without the `state` feature; a mismatch if input `i` is
    /// not a variable, or was read or taken already.
    pub fn input_mut<T: Element>(&mut self, i: usize) -> Result<&'e mut [T], KernelError> {
        #[cfg(feature = "state")]
        {
            let r = self.input_record(i)?;
            check_type::<T>(r)?;
            let (_, slot) =
                self.variables
                    .iter()
                    .find(|(k, _)| *k == i)
                    .ok_or(KernelError::Mismatch {
                        what: "input is not a variable tensor",
                    })?;
            let bytes = slot.take().ok_or(TAKEN)?;
            super::cast::slice_of_mut(bytes).ok_or(BAD_BYTES)
        }
        #[cfg(not(feature = "state"))]
        {
            let _ = i;
            Err(NO_STATE)
        }
    }

    /// Variable input `i`'s bytes, shared, if it is one of the writable variables.
    fn variable(&self, i: usize) -> Option<&'e [u8]> {
        #[cfg(feature = "state")]
        {
            self.variables
                .iter()
                .find(|(k, _)| *k == i)
                .and_then(|(_, v)| v.shared())
        }
        #[cfg(not(feature = "state"))]
        {
            let _ = i;
            None
        }
    }
}

#[cfg(not(feature = "state"))]
const NO_STATE: KernelError = KernelError::Unsupported {
    what: "state between invokes (built without the `state` feature)",
};

#[cfg(feature = "state")]
const TAKEN: KernelError = KernelError::Mismatch {
    what: "writable bytes read or taken already in this eval",
};

fn check_type<T: Element>(r: &TensorRecord) -> Result<(), KernelError> {
    match r.tensor_type().and_then(dtype_of) {
        Some(d) if d == T::DTYPE => Ok(()),
        _ => Err(KernelError::Mismatch {
            what: "tensor type differs from the kernel's",
        }),
    }
}
