//! The interpreter: runs a verified [`Model`] over one byte region the caller owns, and never
//! allocates.
//!
//! [`Interpreter::required`] says how many bytes a model needs; [`Interpreter::new`] sets the
//! model up in the caller's region: every tensor, every kernel's persistent data and scratch,
//! and every string, planned with `tessera-core`'s lifetime planner so that buffers never
//! alive together share bytes; [`Interpreter::invoke`] runs the graph. Kernels come from an
//! [`OpResolver`]: [`AllOps`] has every kernel, [`MutableOpResolver`] only those an
//! application registers.
//!
//! - Constant tensors are read in place from the model's bytes when the host reads them
//!   natively (little-endian, or one byte per element) and their address suits their type;
//!   otherwise (a model at an odd address, a big-endian host) they are copied once, at setup,
//!   into the arena, in the host's byte order.
//! - Graph inputs start as zeros (strings: empty strings) and keep their values across
//!   invokes, as in TensorFlow Lite ([`Options::preserve_inputs`] off trades that for a
//!   smaller arena, as in TensorFlow Lite Micro); set them with
//!   [`Interpreter::input`] / [`Interpreter::set_input_strings`], read outputs with
//!   [`Interpreter::output`] / [`Interpreter::output_strings`].
//! - String tensors that are not constants get a byte budget in the arena
//!   ([`Options::string_bytes`]); strings over it are an error giving the bytes needed.
//! - Every index in the data is checked (GATHER, EMBEDDING_LOOKUP): a bad one is an error
//!   naming the operator and position.
//!
//! ```no_run
//! use tessera_lite::interpreter::{AllOps, Interpreter, Options};
//! use tessera_lite::model::Model;
//!
//! # let bytes: &[u8] = &[];
//! let model = Model::load(bytes)?;
//! let options = Options::default();
//! let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options)?];
//! let mut interpreter = Interpreter::new(model, &AllOps, &mut arena, &options)?;
//! interpreter.input::<f32>(0)?.as_slice_mut().unwrap().fill(0.5);
//! interpreter.invoke()?;
//! let y = interpreter.output::<f32>(0)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cast;
#[cfg(feature = "control-flow")]
mod control;
mod error;
mod graphs;
mod invoke;
mod kernel;
pub mod kernels;
mod profile;
mod record;
mod resolver;
mod setup;
#[cfg(all(test, feature = "std"))]
mod tests;
#[cfg(feature = "std")]
mod workers;

pub use error::{ErrorKind, InterpreterError, KernelError};
pub use graphs::MAX_GRAPHS;
#[cfg(feature = "custom-ops")]
pub use kernel::MAX_RESIZED;
pub use kernel::{Desc, Eval, Init, InitFn, Kernel, MAX_INPUTS, MAX_OUTPUTS, Prepare};
pub use profile::{OpTimes, Profiler};
pub use record::{MAX_DIMS, PARAMS_BYTES, Shape, dtype_of};
pub use resolver::{AllOps, CustomKernel, MutableOpResolver, OpResolver};
#[cfg(feature = "std")]
pub use workers::{Inline, MAX_PARTS, Parts, Task, Workers};

use tessera_core::plan::{Lifetime, PlanBuffer};
use tessera_core::strings::{TfliteEncodeError, TfliteStrings, encode_tflite};
use tessera_core::tensor::{Element, TensorView, TensorViewMut};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use crate::model::{Model, Subgraph, TensorType};
#[cfg(feature = "control-flow")]
use graphs::GraphRecord;
use graphs::Graphs;
use kernel::Requests;
use record::{OpRecord, Place, TensorRecord};
use setup::ALIGN;

/// Set-up choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Bytes in the arena for each string tensor that is not a constant (string inputs and
    /// the outputs of string kernels), in TFLite's layout (`4 * (N + 2)` plus the strings).
    /// Default 1 024.
    pub string_bytes: usize,
    /// The subgraph to run. Default 0, the main graph.
    pub subgraph: usize,
    /// Keep graph inputs' values across invokes, as TensorFlow Lite does (default). Off,
    /// inputs live only until their last reader and later tensors may reuse their bytes, as
    /// in TensorFlow Lite Micro: a smaller arena, but inputs must be set before every invoke.
    pub preserve_inputs: bool,
    /// The most iterations one WHILE runs in one invoke (with the `control-flow` feature):
    /// a loop whose trip count comes from the data stops there with
    /// [`ErrorKind::LoopBound`], naming the operator, rather than hang. Default 1 000 000.
    pub max_loop_iterations: u32,
    /// Keep the output of a DEQUANTIZE of a constant (float16 or int8 weights) in the
    /// persistent part of the arena, computed at the first invoke only, as LiteRT does
    /// (default, with the `state` feature). Off, it is planned like any tensor and computed at
    /// every invoke: a smaller arena, as in TensorFlow Lite Micro.
    pub fold_constants: bool,
    /// Let kernels pack constant weights into their persistent bytes, once, for faster
    /// kernels: float 1x1 CONV_2D into panels of 16 output channels (default with `std`, the
    /// weights' size again in the arena). Off (the default without `std`, as firmware builds
    /// it), kernels read the weights where they lie.
    pub pack_weights: bool,
    /// Threads that run the large kernels (convolutions, matrix products), the caller's
    /// included, with `std`: a pool of `threads - 1` started with the interpreter and kept
    /// for its life, so that `invoke` allocates nothing. Each kernel splits its outputs, not
    /// its sums: results are identical for any number. Default 1 (no pool); ignored without
    /// `std`. More threads than the machine's free cores only adds waiting.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            string_bytes: 1024,
            subgraph: 0,
            preserve_inputs: true,
            max_loop_iterations: 1_000_000,
            fold_constants: true,
            pack_weights: cfg!(feature = "std"),
            threads: 1,
        }
    }
}

/// Plan entries [`Interpreter::required`] keeps on the stack without `std` (one per tensor
/// and one per operator).
pub const REQUIRED_PLAN_ENTRIES: usize = 256;

/// A model set up over a caller's byte region, ready to run.
pub struct Interpreter<'m, 'a> {
    model: Model<'m>,
    graph: Subgraph<'m>,
    kernels: &'a [&'static Kernel],
    /// Records and operand table.
    header: &'a mut [u8],
    /// Persistent and planned data.
    data: &'a mut [u8],
    counts: Counts,
    /// Bytes of the caller's region used, alignment padding included.
    used: usize,
    #[cfg(feature = "control-flow")]
    max_loop_iterations: u32,
    /// The pool of [`Options::threads`] above one (boxed: one word in the interpreter, which
    /// callers count with their arena).
    #[cfg(feature = "std")]
    pool: Option<std::boxed::Box<workers::Pool>>,
}

/// Tensors, operators and operand-table entries: where the header's tables end. (`u32`:
/// the interpreter value is part of the caller's memory too.)
#[derive(Debug, Clone, Copy)]
struct Counts {
    tensors: u32,
    ops: u32,
    operands: u32,
    /// Graphs of the run and resource variables (their records follow the operators').
    #[cfg(feature = "control-flow")]
    graphs: u32,
    #[cfg(feature = "control-flow")]
    resources: u32,
}

impl Counts {
    /// Where the graph records start in the header.
    #[cfg(feature = "control-flow")]
    fn graphs_at(&self) -> usize {
        (self.tensors as usize) * size_of::<TensorRecord>()
            + (self.ops as usize) * size_of::<OpRecord>()
    }

    /// Where the resource variables' records start in the header.
    #[cfg(feature = "control-flow")]
    fn resources_at(&self) -> usize {
        self.graphs_at() + (self.graphs as usize) * size_of::<GraphRecord>()
    }

    /// Where the operand table starts in the header.
    fn operands_at(&self) -> usize {
        #[cfg(feature = "control-flow")]
        return self.resources_at()
            + (self.resources as usize) * size_of::<control::ResourceRecord>();
        #[cfg(not(feature = "control-flow"))]
        return (self.tensors as usize) * size_of::<TensorRecord>()
            + (self.ops as usize) * size_of::<OpRecord>();
    }
}

impl core::fmt::Debug for Interpreter<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Interpreter")
            .field("tensors", &self.counts.tensors)
            .field("operators", &self.counts.ops)
            .field("arena_used_bytes", &self.used)
            .finish_non_exhaustive()
    }
}

/// The tensor records at the start of `header`.
fn tensor_records(header: &[u8], counts: Counts) -> &[TensorRecord] {
    let bytes = header
        .get(..(counts.tensors as usize) * size_of::<TensorRecord>())
        .unwrap_or_default();
    <[TensorRecord]>::ref_from_bytes(bytes).unwrap_or(&[])
}

/// Sixteen bytes on a 16-byte boundary: what an empty aligned region is made of.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C, align(16))]
struct Aligned([u8; ALIGN]);

/// An empty byte slice at a 16-byte aligned address (an empty `&mut []` of bytes has the
/// dangling address 1, which no table type accepts).
fn empty_aligned<'a>() -> &'a mut [u8] {
    let empty: &'a mut [Aligned] = &mut [];
    empty.as_mut_bytes()
}

impl<'m, 'a> Interpreter<'m, 'a> {
    /// Bytes a region must have for [`new`](Self::new) to set `model` up (worst-case padding
    /// of the region's start included). With `std`, the plan's table (one entry per tensor and
    /// per operator) is a temporary `Vec`; without, it is on the stack, up to
    /// [`REQUIRED_PLAN_ENTRIES`] entries (give a larger model a table with
    /// [`required_with`](Self::required_with), or size its arena on a host).
    ///
    /// # Errors
    /// What [`new`](Self::new) would report, except the region's size; without `std`,
    /// [`ErrorKind::PlanScratch`] for a model of more entries than the stack table.
    pub fn required(
        model: &Model<'_>,
        resolver: &dyn OpResolver,
        options: &Options,
    ) -> Result<usize, InterpreterError> {
        #[cfg(feature = "std")]
        {
            let entries = Self::plan_entries(model, options)?;
            let mut plan = std::vec![PlanBuffer::new(0, 1, Lifetime::ALWAYS); entries];
            Self::required_with(model, resolver, options, &mut plan)
        }
        #[cfg(not(feature = "std"))]
        {
            let mut plan = [PlanBuffer::new(0, 1, Lifetime::ALWAYS); REQUIRED_PLAN_ENTRIES];
            Self::required_with(model, resolver, options, &mut plan)
        }
    }

    /// Entries the plan's table of [`required_with`](Self::required_with) needs for `model`:
    /// one per tensor and one per operator of every subgraph the run reaches (with
    /// `control-flow`, the graphs its loops and branches call).
    ///
    /// # Errors
    /// [`ErrorKind::NoSubgraph`] if the subgraph to run, or one a control operator names, is
    /// not in the model; [`ErrorKind::TooManyGraphs`].
    pub fn plan_entries(model: &Model<'_>, options: &Options) -> Result<usize, InterpreterError> {
        let graphs = Graphs::find(model, options.subgraph)?;
        Ok(graphs.tensors() + graphs.ops())
    }

    /// [`required`](Self::required) with the plan's table in `plan` (at least
    /// [`plan_entries`](Self::plan_entries) entries).
    ///
    /// # Errors
    /// As [`required`](Self::required).
    pub fn required_with(
        model: &Model<'_>,
        resolver: &dyn OpResolver,
        options: &Options,
        plan: &mut [PlanBuffer],
    ) -> Result<usize, InterpreterError> {
        let graphs = Graphs::find(model, options.subgraph)?;
        let m = setup::measure(&graphs, resolver, options, plan, None)?;
        m.total()
            .and_then(|t| t.checked_add(ALIGN - 1))
            .ok_or(InterpreterError::new(ErrorKind::TooLarge))
    }

    /// Sets `model` up in `arena`: checks every operator with its kernel, plans every
    /// tensor, copies the constants that cannot be read in place, and runs the kernels'
    /// `init`. Allocates nothing.
    ///
    /// # Errors
    /// [`ErrorKind::ArenaTooSmall`] with the bytes needed; an unregistered or custom op with
    /// the operator's index and name; whatever a kernel's `prepare` finds wrong.
    pub fn new(
        model: Model<'m>,
        resolver: &'a dyn OpResolver,
        arena: &'a mut [u8],
        options: &Options,
    ) -> Result<Self, InterpreterError> {
        let graphs = Graphs::find(&model, options.subgraph)?;
        let available = arena.len();
        // Bytes to the first 16-byte boundary, counted in `needed` even when the arena is
        // shorter (a byte pointer's offset is always below ALIGN).
        let pad = arena.as_ptr().align_offset(ALIGN).min(ALIGN - 1);
        // The region starts after the padding. An arena shorter than that (an empty one
        // included: its address is dangling) gets an empty region at an aligned address, so
        // the tables cast from it are aligned too; only a graph that needs no bytes sets up
        // in it, and uses none.
        let start = pad.min(available);
        let region = match arena.get_mut(pad..) {
            Some(region) => region,
            None => empty_aligned(),
        };
        let too_small = |needed: usize| {
            InterpreterError::new(ErrorKind::ArenaTooSmall {
                needed: needed.saturating_add(pad),
                available,
            })
        };

        // The plan's table goes at the end of the region while planning (the records and the
        // operand table are written at the start as set-up measures), and only then the
        // persistent data, over it.
        let too_large = InterpreterError::new(ErrorKind::TooLarge);
        let entries = graphs
            .tensors()
            .checked_add(graphs.ops())
            .ok_or(too_large)?;
        let tensors = graphs.tensors() * size_of::<TensorRecord>();
        let ops = graphs.ops() * size_of::<OpRecord>();
        // The records; the operand table's length is known once set-up has walked the
        // operators.
        let records_bytes = setup::records_bytes(&graphs).ok_or(too_large)?;
        let table_bytes = entries
            .checked_mul(size_of::<PlanBuffer>())
            .ok_or(too_large)?;
        let table_at = region
            .len()
            .checked_sub(table_bytes)
            .map(|at| at & !(ALIGN - 1))
            .filter(|&at| at >= records_bytes);
        let Some(table_at) = table_at else {
            // Too small even to plan in. With `std`, measure on the heap for the exact figure;
            // without, say what planning needs to start rather than plan on the stack (7 KB
            // on a 32-bit target), in an error path, on a device whose arena is sized on the
            // host with `required`.
            // The table starts at a 16-byte boundary at or after the records' end. (Both counts
            // are bounded by the model's bytes, far from overflowing.)
            let to_start = ((records_bytes + ALIGN - 1) & !(ALIGN - 1)) + table_bytes;
            #[cfg(feature = "std")]
            let needed =
                Self::required(&model, resolver, options).map_or(to_start, |n| n - (ALIGN - 1));
            #[cfg(not(feature = "std"))]
            let needed = to_start;
            return Err(too_small(needed));
        };
        let (head, rest) = region.split_at_mut(table_at);
        let plan =
            <[PlanBuffer]>::mut_from_bytes(&mut rest[..table_bytes]).map_err(|_| too_large)?;
        // The records at the start, then the operand table, up to the plan's table: if the
        // operand table does not fit there, set-up's header (aligned, like `table_at`)
        // passes `table_at`, and its total passes the region's end (checked below).
        let (records, ops_and_operands) = head.split_at_mut(tensors);
        let (op_records, operands) = ops_and_operands.split_at_mut(ops);
        #[cfg(feature = "control-flow")]
        let (graph_records, operands) =
            operands.split_at_mut(graphs.len() * size_of::<GraphRecord>());
        #[cfg(feature = "control-flow")]
        let (resource_records, operands) =
            operands.split_at_mut(graphs.resources().len() * size_of::<control::ResourceRecord>());
        let whole_entries = operands.len() & !3;
        let tables = setup::Tables {
            records: <[TensorRecord]>::mut_from_bytes(records).map_err(|_| too_large)?,
            ops: <[OpRecord]>::mut_from_bytes(op_records).map_err(|_| too_large)?,
            #[cfg(feature = "control-flow")]
            graphs: <[GraphRecord]>::mut_from_bytes(graph_records).map_err(|_| too_large)?,
            #[cfg(feature = "control-flow")]
            resources: <[control::ResourceRecord]>::mut_from_bytes(resource_records)
                .map_err(|_| too_large)?,
            operands: <[i32]>::mut_from_bytes(&mut operands[..whole_entries])
                .map_err(|_| too_large)?,
            model: model.bytes(),
        };
        let m = setup::measure(&graphs, resolver, options, plan, Some(tables))?;
        let total = m.total().ok_or(too_large)?;
        let region_len = head.len() + rest.len();
        if total > region_len {
            return Err(too_small(total));
        }
        let (header, data) = region.split_at_mut(m.data);
        let (data, _) = data.split_at_mut(total - m.data);
        // The plan's table lay here: start every tensor at zero (inputs not set read as
        // zeros, deterministically), before the constants are copied in.
        data.fill(0);
        let mut this = Self {
            model,
            graph: graphs.main(),
            kernels: resolver.kernels(),
            header,
            data,
            // Each count is below `total`, which measure() checked fits u32.
            counts: Counts {
                tensors: m.tensors as u32,
                ops: m.ops as u32,
                operands: m.operands as u32,
                #[cfg(feature = "control-flow")]
                graphs: graphs.len() as u32,
                #[cfg(feature = "control-flow")]
                resources: graphs.resources().len() as u32,
            },
            used: start + total,
            #[cfg(feature = "control-flow")]
            max_loop_iterations: options.max_loop_iterations,
            #[cfg(feature = "std")]
            pool: (options.threads > 1)
                .then(|| std::boxed::Box::new(workers::Pool::new(options.threads))),
        };
        this.copy_constants()?;
        this.empty_string_inputs();
        this.run_inits()?;
        Ok(this)
    }

    /// Threads that run kernels' work (the caller's included): [`Options::threads`], less any
    /// the system would not start; 1 without `std`.
    #[must_use]
    pub fn threads(&self) -> usize {
        #[cfg(feature = "std")]
        {
            self.pool.as_ref().map_or(1, |p| p.threads())
        }
        #[cfg(not(feature = "std"))]
        1
    }

    pub(crate) fn records(&self) -> &[TensorRecord] {
        tensor_records(self.header, self.counts)
    }

    fn records_mut(&mut self) -> &mut [TensorRecord] {
        let n = (self.counts.tensors as usize) * size_of::<TensorRecord>();
        <[TensorRecord]>::mut_from_bytes(&mut self.header[..n]).unwrap_or(&mut [])
    }

    /// Copies constants that are not read in place, and variables' initial values, into
    /// the persistent part, in the host's byte order.
    fn copy_constants(&mut self) -> Result<(), InterpreterError> {
        // The header and the data are apart: the records are read while the data is written.
        let records = tensor_records(self.header, self.counts);
        for k in 0..self.graph_count() {
            let (graph, base, _) = self.graph_at(k)?;
            let records = records.get(base..).unwrap_or_default();
            for (r, t) in records.iter().zip(graph.tensors().iter()) {
                copy_constant(self.data, r, &t)?;
            }
        }
        Ok(())
    }

    /// How many graphs the run has (1 without `control-flow`).
    fn graph_count(&self) -> usize {
        #[cfg(feature = "control-flow")]
        return self.counts.graphs as usize;
        #[cfg(not(feature = "control-flow"))]
        return 1;
    }

    /// Graph `k` of the run: the subgraph, its first tensor record and its first operator
    /// record.
    fn graph_at(&self, k: usize) -> Result<(Subgraph<'m>, usize, usize), InterpreterError> {
        #[cfg(feature = "control-flow")]
        {
            let g = self
                .graph_record(k)
                .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
            let graph = self
                .model
                .subgraph(g.subgraph as usize)
                .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
            Ok((graph, g.tensors as usize, g.ops as usize))
        }
        #[cfg(not(feature = "control-flow"))]
        {
            let _ = k;
            Ok((self.graph, 0, 0))
        }
    }

    /// String inputs start as empty strings, one per element of their shape (as numbers start
    /// at zero), so a model run without setting them reads valid string tensors.
    fn empty_string_inputs(&mut self) {
        if !cfg!(feature = "strings") {
            return;
        }
        for i in 0..self.input_count() {
            let Ok(t) = self.input_tensor(i) else {
                continue;
            };
            if !self.tensor_type(t).is_ok_and(TensorType::is_string) {
                continue;
            }
            let n = self.tensor_shape(t).map_or(0, |s| s.elements());
            // `n` empty strings in TFLite's layout: the count, then `n + 1` offsets that all
            // point just past themselves, at `4 * (n + 2)`. Written here rather than through
            // `set_input_strings`, whose generic encoder costs 1 KB of firmware flash.
            let table = n.checked_add(2).and_then(|w| w.checked_mul(4));
            let words = table.and_then(|b| Some((u32::try_from(n).ok()?, u32::try_from(b).ok()?)));
            let Some((count, end)) = words else { continue };
            let Ok(buf) = self.arena_bytes_mut(t) else {
                continue;
            };
            // Over the budget (a huge shape): left unwritten, an error when read.
            let Some((head, offsets)) = buf
                .get_mut(..end as usize)
                .and_then(|b| b.split_at_mut_checked(4))
            else {
                continue;
            };
            head.copy_from_slice(&count.to_le_bytes());
            for offset in offsets.chunks_exact_mut(4) {
                offset.copy_from_slice(&end.to_le_bytes());
            }
            self.records_mut()[t].written = 1;
        }
    }

    /// Sets the state kept between invokes back to what set-up left: every variable tensor to
    /// its initial value (zeros where the model gives none) and every kernel's persistent
    /// bytes as its `init` fills them (a streaming model's delay lines, an LSTM's cell). Inputs
    /// and outputs are left as they are. Allocates nothing.
    ///
    /// # Errors
    /// What a kernel's `init` reports (as at set-up).
    pub fn reset_state(&mut self) -> Result<(), InterpreterError> {
        let records = tensor_records(self.header, self.counts);
        for r in records.iter().filter(|r| r.place() == Place::Variable) {
            let start = r.offset as usize;
            if let Some(bytes) = self.data.get_mut(start..start + r.bytes as usize) {
                bytes.fill(0);
            }
        }
        #[cfg(feature = "control-flow")]
        self.clear_resources();
        self.copy_constants()?;
        self.run_inits()
    }

    fn run_inits(&mut self) -> Result<(), InterpreterError> {
        for k in 0..self.graph_count() {
            let (graph, _, ops) = self.graph_at(k)?;
            self.run_graph_inits(graph, ops)?;
        }
        Ok(())
    }

    /// Runs the `init` of each operator of `graph`, whose records start at `ops`.
    fn run_graph_inits(&mut self, graph: Subgraph<'m>, ops: usize) -> Result<(), InterpreterError> {
        #[cfg(feature = "std")]
        let threads = self.threads();
        for (j, operator) in graph.operators().iter().enumerate() {
            let rec = self.op_record(ops + j);
            let kernel = self.kernel(j, &rec)?;
            let Some(init) = kernel.init else { continue };
            let start = rec.persistent as usize;
            let end = start + rec.persistent_bytes as usize;
            let at = |e| {
                let e = InterpreterError::at_op(e, j, kernel.op);
                #[cfg(feature = "control-flow")]
                if ops > 0 {
                    return e.in_subgraph(graph.index());
                }
                e
            };
            let persistent = self
                .data
                .get_mut(start..end)
                .ok_or(at(ErrorKind::TooLarge))?;
            let mut ctx = Init {
                prepare: Prepare {
                    graph,
                    operator,
                    // What `prepare` asked for, as set-up recorded it.
                    requests: Requests::recorded(&rec),
                    // `init` reads what `prepare` recorded in the parameters.
                    #[cfg(feature = "state")]
                    pack: false,
                    #[cfg(feature = "std")]
                    threads,
                },
                persistent,
            };
            init(&mut ctx).map_err(|e| at(ErrorKind::Kernel(e)))?;
        }
        Ok(())
    }

    fn op_record(&self, j: usize) -> OpRecord {
        let at =
            (self.counts.tensors as usize) * size_of::<TensorRecord>() + j * size_of::<OpRecord>();
        self.header
            .get(at..at + size_of::<OpRecord>())
            .and_then(|b| OpRecord::read_from_bytes(b).ok())
            .unwrap_or_else(OpRecord::new_zeroed)
    }

    fn kernel(&self, j: usize, rec: &OpRecord) -> Result<&'static Kernel, InterpreterError> {
        #[cfg(feature = "control-flow")]
        if let Some((_, kernel)) = control::flow_at(rec.kernel) {
            return Ok(kernel);
        }
        self.kernels
            .get(usize::from(rec.kernel))
            .copied()
            .ok_or(InterpreterError::at_operator(
                ErrorKind::UnknownOp { code: -1 },
                j,
            ))
    }

    /// Bytes of the caller's region in use (alignment padding of its start included).
    #[must_use]
    pub fn arena_used_bytes(&self) -> usize {
        self.used
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &Model<'m> {
        &self.model
    }

    /// The subgraph being run.
    #[must_use]
    pub fn subgraph(&self) -> &Subgraph<'m> {
        &self.graph
    }

    /// Number of graph inputs.
    #[must_use]
    pub fn input_count(&self) -> usize {
        self.graph.inputs().len()
    }

    /// Number of graph outputs.
    #[must_use]
    pub fn output_count(&self) -> usize {
        self.graph.outputs().len()
    }

    /// The tensor index of graph input `i`.
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`].
    pub fn input_tensor(&self, i: usize) -> Result<usize, InterpreterError> {
        self.graph
            .inputs()
            .get(i)
            .flatten()
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))
    }

    /// The tensor index of graph output `i`.
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`].
    pub fn output_tensor(&self, i: usize) -> Result<usize, InterpreterError> {
        self.graph
            .outputs()
            .get(i)
            .flatten()
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))
    }

    /// The position of the graph input whose tensor is named `name`.
    #[must_use]
    pub fn input_by_name(&self, name: &str) -> Option<usize> {
        self.position_named(self.graph.inputs(), name)
    }

    /// The position of the graph output whose tensor is named `name`.
    #[must_use]
    pub fn output_by_name(&self, name: &str) -> Option<usize> {
        self.position_named(self.graph.outputs(), name)
    }

    /// The position in `list` (the graph's inputs or outputs) of the tensor named `name`.
    fn position_named(&self, list: crate::model::TensorIndices<'_>, name: &str) -> Option<usize> {
        list.iter().position(|t| {
            t.and_then(|t| self.graph.tensor(t))
                .is_some_and(|t| t.name() == name)
        })
    }

    /// The position of the graph input that signature `key` names `name`.
    #[must_use]
    pub fn signature_input(&self, key: &str, name: &str) -> Option<usize> {
        let sig = self.model.signature(key)?;
        let t = sig
            .inputs()
            .iter()
            .find(|m| m.name() == name)?
            .tensor_index();
        self.graph.inputs().iter().position(|i| i == Some(t))
    }

    /// The position of the graph output that signature `key` names `name`.
    #[must_use]
    pub fn signature_output(&self, key: &str, name: &str) -> Option<usize> {
        let sig = self.model.signature(key)?;
        let t = sig
            .outputs()
            .iter()
            .find(|m| m.name() == name)?
            .tensor_index();
        self.graph.outputs().iter().position(|i| i == Some(t))
    }

    /// The shape of tensor `t`.
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`].
    pub fn tensor_shape(&self, t: usize) -> Result<Shape, InterpreterError> {
        self.records()
            .get(t)
            .map(TensorRecord::shape)
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))
    }

    /// The element type of tensor `t`.
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`].
    pub fn tensor_type(&self, t: usize) -> Result<TensorType, InterpreterError> {
        self.records()
            .get(t)
            .and_then(TensorRecord::tensor_type)
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))
    }

    fn arena_bytes(&self, t: usize) -> Result<&[u8], InterpreterError> {
        let r = *self
            .records()
            .get(t)
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))?;
        let (start, end) = (r.offset as usize, r.offset as usize + r.bytes as usize);
        let bytes = match r.place() {
            Place::Model => self.model.bytes().get(start..end),
            Place::Planned | Place::Persistent | Place::Variable => self.data.get(start..end),
            Place::None => Some(&[][..]),
        };
        let full = bytes.ok_or(InterpreterError::at_tensor(ErrorKind::TooLarge, t))?;
        Ok(&full[..r.in_use(full)])
    }

    fn arena_bytes_mut(&mut self, t: usize) -> Result<&mut [u8], InterpreterError> {
        let r = *self
            .records()
            .get(t)
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))?;
        if !matches!(
            r.place(),
            Place::Planned | Place::Persistent | Place::Variable
        ) {
            return Err(InterpreterError::at_tensor(ErrorKind::NoSuchTensor, t));
        }
        let (start, end) = (r.offset as usize, r.offset as usize + r.bytes as usize);
        self.data
            .get_mut(start..end)
            .ok_or(InterpreterError::at_tensor(ErrorKind::TooLarge, t))
    }

    fn typed_shape<T: Element>(&self, t: usize) -> Result<Shape, InterpreterError> {
        let r = self
            .records()
            .get(t)
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))?;
        let ty = r
            .tensor_type()
            .ok_or(InterpreterError::new(ErrorKind::NoSuchTensor))?;
        if dtype_of(ty) != Some(T::DTYPE) {
            return Err(InterpreterError::at_tensor(
                ErrorKind::WrongType {
                    actual: ty.name(),
                    requested: T::DTYPE.name(),
                },
                t,
            ));
        }
        Ok(r.shape())
    }

    /// Graph input `i`, to fill. Its values stay across invokes.
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`]; [`ErrorKind::WrongType`] if it does not hold `T`.
    pub fn input<T: Element>(
        &mut self,
        i: usize,
    ) -> Result<TensorViewMut<'_, T>, InterpreterError> {
        let t = self.input_tensor(i)?;
        self.tensor_mut(t)
    }

    /// Tensor `t` of the arena, to write (inputs, or a variable).
    ///
    /// # Errors
    /// As [`input`](Self::input); constants cannot be written.
    pub fn tensor_mut<T: Element>(
        &mut self,
        t: usize,
    ) -> Result<TensorViewMut<'_, T>, InterpreterError> {
        let shape = self.typed_shape::<T>(t)?;
        let bytes = self.arena_bytes_mut(t)?;
        if T::DTYPE == tessera_core::tensor::DType::Bool {
            bytes.iter_mut().for_each(|b| *b &= 1);
        }
        let slice =
            cast::slice_of_mut(bytes).ok_or(InterpreterError::at_tensor(ErrorKind::TooLarge, t))?;
        TensorViewMut::new(slice, shape.dims())
            .map_err(|_| InterpreterError::at_tensor(ErrorKind::Shape, t))
    }

    /// Graph input `i`'s bytes, to fill in the host's byte order (strings: use
    /// [`set_input_strings`](Self::set_input_strings)).
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`].
    pub fn input_bytes_mut(&mut self, i: usize) -> Result<&mut [u8], InterpreterError> {
        let t = self.input_tensor(i)?;
        self.arena_bytes_mut(t)
    }

    /// Graph output `j`'s bytes (strings: their encoded length), after
    /// [`invoke`](Self::invoke).
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`].
    pub fn output_bytes(&self, j: usize) -> Result<&[u8], InterpreterError> {
        self.arena_bytes(self.output_tensor(j)?)
    }

    /// Graph output `j`, to read after [`invoke`](Self::invoke).
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`]; [`ErrorKind::WrongType`] if it does not hold `T`.
    pub fn output<T: Element>(&self, j: usize) -> Result<TensorView<'_, T>, InterpreterError> {
        let t = self.output_tensor(j)?;
        self.tensor(t)
    }

    /// Tensor `t` (any tensor: constants, activations as the last invoke left them).
    ///
    /// # Errors
    /// As [`output`](Self::output).
    pub fn tensor<T: Element>(&self, t: usize) -> Result<TensorView<'_, T>, InterpreterError> {
        let shape = self.typed_shape::<T>(t)?;
        let bytes = self.arena_bytes(t)?;
        let slice =
            cast::slice_of(bytes).ok_or(InterpreterError::at_tensor(ErrorKind::TooLarge, t))?;
        TensorView::new(slice, shape.dims())
            .map_err(|_| InterpreterError::at_tensor(ErrorKind::Shape, t))
    }

    /// Sets string input `i` to `strings`, encoded in place in its byte budget. No string is
    /// allocated.
    ///
    /// # Errors
    /// [`ErrorKind::InputStrings`] with the bytes needed if they exceed the budget;
    /// [`ErrorKind::StringCount`] if there are not as many strings as the input's shape
    /// holds; [`ErrorKind::WrongType`] if the input is not a string tensor.
    pub fn set_input_strings<I, B>(&mut self, i: usize, strings: I) -> Result<(), InterpreterError>
    where
        I: IntoIterator<Item = B> + Clone,
        B: AsRef<[u8]>,
    {
        let t = self.input_tensor(i)?;
        let ty = self.tensor_type(t)?;
        if !ty.is_string() {
            return Err(InterpreterError::at_tensor(
                ErrorKind::WrongType {
                    actual: ty.name(),
                    requested: "STRING",
                },
                t,
            ));
        }
        let expected = self.tensor_shape(t)?.elements();
        let found = strings.clone().into_iter().count();
        if found != expected {
            return Err(InterpreterError::at_tensor(
                ErrorKind::StringCount { expected, found },
                t,
            ));
        }
        let buf = self.arena_bytes_mut(t)?;
        let budget = buf.len();
        encode_tflite(strings, buf).map_err(|e| {
            let needed = match e {
                TfliteEncodeError::Capacity(c) => c.needed,
                _ => usize::MAX,
            };
            InterpreterError::at_tensor(ErrorKind::InputStrings { needed, budget }, t)
        })?;
        // The encoding says its own length (see `TensorRecord::in_use`).
        self.records_mut()[t].written = 1;
        Ok(())
    }

    /// String tensor `t` as last written (a constant, an input, or an output after
    /// [`invoke`](Self::invoke)).
    ///
    /// # Errors
    /// [`ErrorKind::WrongType`] if it is not a string tensor; [`ErrorKind::NoSuchTensor`] if
    /// nothing has written it yet.
    pub fn tensor_strings(&self, t: usize) -> Result<TfliteStrings<'_>, InterpreterError> {
        let ty = self.tensor_type(t)?;
        if !ty.is_string() {
            return Err(InterpreterError::at_tensor(
                ErrorKind::WrongType {
                    actual: ty.name(),
                    requested: "STRING",
                },
                t,
            ));
        }
        if self.records()[t].written == 0 {
            return Err(InterpreterError::at_tensor(ErrorKind::NoSuchTensor, t));
        }
        TfliteStrings::new(self.arena_bytes(t)?)
            .map_err(|_| InterpreterError::at_tensor(ErrorKind::NoSuchTensor, t))
    }

    /// String output `j`, after [`invoke`](Self::invoke).
    ///
    /// # Errors
    /// As [`tensor_strings`](Self::tensor_strings).
    pub fn output_strings(&self, j: usize) -> Result<TfliteStrings<'_>, InterpreterError> {
        self.tensor_strings(self.output_tensor(j)?)
    }
}

/// Copies constant or variable `t` into its persistent bytes in `data` (as its record `r`
/// places it), in the host's byte order; other tensors are left.
fn copy_constant(
    data: &mut [u8],
    r: &TensorRecord,
    t: &crate::model::Tensor<'_>,
) -> Result<(), InterpreterError> {
    if !matches!(r.place(), Place::Persistent | Place::Variable) {
        return Ok(());
    }
    let Some(src) = t.data() else {
        // An int8 variable the model gives no value starts at its zero point, as TensorFlow
        // Lite's `ResetVariableTensor` (and TFLM's) sets it: an LSTM's output state of zero
        // point -4 starts at the real value 0.
        if r.place() == Place::Variable && t.tensor_type() == TensorType::Int8 {
            let zp = t
                .quantization()
                .and_then(|q| q.zero_point().get(0))
                .and_then(|z| i8::try_from(z).ok())
                .unwrap_or(0);
            let start = r.offset as usize;
            if let Some(bytes) = data.get_mut(start..start + r.bytes as usize) {
                bytes.fill(zp as u8);
            }
        }
        return Ok(());
    };
    let start = r.offset as usize;
    let dst = data
        .get_mut(start..start + src.len())
        .ok_or(InterpreterError::at_tensor(ErrorKind::TooLarge, t.index()))?;
    dst.copy_from_slice(src);
    let size = t
        .tensor_type()
        .bits()
        .map_or(1, |b| (b as usize / 8).max(1));
    if cfg!(target_endian = "big") && t.tensor_type() != TensorType::String && size > 1 {
        for word in dst.chunks_exact_mut(size) {
            word.reverse();
        }
    }
    Ok(())
}
