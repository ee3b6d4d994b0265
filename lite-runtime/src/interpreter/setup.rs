//! Setting a model up: what each tensor needs and where it goes, the kernels' requests, and
//! the plan. [`measure`] does it all in one pass; given the arena's tables it also writes the
//! records (without, it serves [`Interpreter::required`](super::Interpreter::required)).
//!
//! The arena, from its 16-byte aligned start:
//!
//! ```text
//! [tensor records][operator records][operand table] | data: [persistent][planned]
//! ```
//!
//! Persistent data (constants that cannot be read in place, variables, kernels' persistent
//! bytes) is laid out back to back in a fixed order (tensors, then operators); planned buffers
//! (every other tensor, and each operator's scratch) share memory by lifetime, planned with
//! `tessera-core`'s greedy planner. While planning, the plan's own table lies at the end of
//! the region, so the region needs at least the header plus that table.

use tessera_core::plan::{Lifetime, PlanBuffer, plan_greedy};

use super::Options;
#[cfg(feature = "control-flow")]
use super::control::{self, CONTROL_BASE};
use super::error::{ErrorKind, InterpreterError};
#[cfg(feature = "control-flow")]
use super::graphs::GraphRecord;
use super::graphs::Graphs;
use super::kernel::{Kernel, MAX_INPUTS, MAX_OUTPUTS, Prepare, Requests};
use super::record::{MAX_DIMS, OpRecord, Place, Shape, TensorRecord};
use super::resolver::OpResolver;
use crate::model::{BuiltinOperator, Operator, Subgraph, Tensor, TensorType};

/// Every buffer in the data region starts on this boundary.
pub(crate) const ALIGN: usize = 16;

pub(crate) fn align_up(n: usize) -> Option<usize> {
    n.checked_add(ALIGN - 1).map(|v| v & !(ALIGN - 1))
}

/// Sizes of the arena's parts, from [`measure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measure {
    pub tensors: usize,
    pub ops: usize,
    pub operands: usize,
    /// Start of the data region.
    pub data: usize,
    /// Bytes of persistent data.
    pub persistent: usize,
    /// Bytes of the planned part (the plan's peak).
    pub peak: usize,
    /// Bytes of the plan table while planning.
    pub plan_table: usize,
}

impl Measure {
    /// Bytes of the header: the records and the operand table of `operands` entries.
    pub(crate) fn header(graphs: &Graphs<'_>, operands: usize) -> Option<usize> {
        let k = operands.checked_mul(4)?;
        align_up(records_bytes(graphs)?.checked_add(k)?)
    }

    /// Bytes from the aligned start: the data, or the header and the plan's table if that
    /// is more (the table lies at the end of the region while planning).
    pub(crate) fn total(&self) -> Option<usize> {
        let data = self
            .data
            .checked_add(self.persistent)?
            .checked_add(self.peak)?;
        Some(data.max(self.data.checked_add(self.plan_table)?))
    }
}

/// Bytes of the records at the start of the header, before the operand table: tensors',
/// operators' and, with `control-flow`, graphs' and resource variables'.
pub(crate) fn records_bytes(graphs: &Graphs<'_>) -> Option<usize> {
    let t = graphs.tensors().checked_mul(size_of::<TensorRecord>())?;
    let o = graphs.ops().checked_mul(size_of::<OpRecord>())?;
    #[cfg(feature = "control-flow")]
    let o = o
        .checked_add(graphs.len() * size_of::<GraphRecord>())?
        .checked_add(graphs.resources().len() * size_of::<control::ResourceRecord>())?;
    t.checked_add(o)
}

/// `$r`, its error placed in graph `$g` (see `Graph::locate`); just `$r` without
/// `control-flow`, where even an identity `map_err` costs firmware flash.
macro_rules! located {
    ($g:expr, $r:expr) => {{
        #[cfg(feature = "control-flow")]
        let r = $r.map_err(|e| $g.locate(e));
        #[cfg(not(feature = "control-flow"))]
        let r = $r;
        r
    }};
}

const TOO_LARGE: InterpreterError = InterpreterError::new(ErrorKind::TooLarge);

/// The shape of tensor `t`, checked: at most [`MAX_DIMS`] non-negative dimensions (the loader
/// checked that their product does not overflow).
pub(crate) fn shape_of(t: &Tensor<'_>) -> Result<Shape, InterpreterError> {
    let at = |k| InterpreterError::at_tensor(k, t.index());
    let dims = t.shape();
    if dims.len() > MAX_DIMS {
        return Err(at(ErrorKind::Shape));
    }
    let mut buf = [0usize; MAX_DIMS];
    for (slot, d) in buf.iter_mut().zip(dims.iter()) {
        *slot = usize::try_from(d).map_err(|_| at(ErrorKind::Shape))?;
    }
    Shape::new(&buf[..dims.len()]).ok_or(at(ErrorKind::Shape))
}

pub(crate) fn element_bytes(t: TensorType) -> Option<usize> {
    match t.bits()? {
        b if b >= 8 && b % 8 == 0 => Some(b as usize / 8),
        _ => None,
    }
}

/// Whether a constant of this type can be read where it lies: the host reads its bytes as
/// native numbers (little-endian, or one byte each; strings are read byte-wise) and the
/// address suits the element type.
fn in_place(t: TensorType, data: &[u8]) -> bool {
    let Some(size) = element_bytes(t) else {
        return t.is_string();
    };
    let native = cfg!(target_endian = "little") || size == 1;
    native && (data.as_ptr() as usize) % size.min(8) == 0
}

/// Where tensor `t` goes and how many bytes it takes.
///
/// `densify`: whether the graph has a DENSIFY at all ([`has_densify`]), so that the search
/// for folded tensors costs nothing in graphs without one.
pub(crate) fn holding(
    graph: &Subgraph<'_>,
    densify: bool,
    t: &Tensor<'_>,
    options: &Options,
) -> Result<(Shape, Place, usize), InterpreterError> {
    let at = |k| InterpreterError::at_tensor(k, t.index());
    let shape = shape_of(t)?;
    if densify && t.data().is_none() && folded(graph, t.index()) {
        return Ok((shape, Place::None, 0));
    }
    let dtype = t.tensor_type();
    // A resource tensor holds nothing: set-up resolves every use of a resource variable to
    // its bytes (see `control`).
    #[cfg(feature = "control-flow")]
    if dtype == TensorType::Resource {
        return Ok((shape, Place::None, 0));
    }
    let unsupported = at(ErrorKind::TensorType { dtype });
    if let Some(data) = t.data() {
        let place = if t.is_variable() {
            Place::Variable
        } else if in_place(dtype, data) {
            Place::Model
        } else {
            if !dtype.is_string() && element_bytes(dtype).is_none() {
                return Err(unsupported);
            }
            Place::Persistent
        };
        return Ok((shape, place, data.len()));
    }
    let bytes = if dtype.is_string() {
        options.string_bytes
    } else {
        let size = element_bytes(dtype).ok_or(unsupported)?;
        shape
            .dims()
            .iter()
            .try_fold(size, |a, &d| a.checked_mul(d))
            .ok_or(at(ErrorKind::TooLarge))?
    };
    if u32::try_from(bytes).is_err() {
        return Err(at(ErrorKind::TooLarge));
    }
    let place = if t.is_variable() {
        Place::Variable
    } else {
        Place::Planned
    };
    Ok((shape, place, bytes))
}

/// The output of operator `op` when it is a DEQUANTIZE of a constant (kept in the persistent
/// part, with [`Options::fold_constants`]).
pub(crate) fn dequantized_constant(
    graph: &Subgraph<'_>,
    op: &crate::model::Operator<'_>,
) -> Option<usize> {
    if op.builtin() != Some(BuiltinOperator::Dequantize) {
        return None;
    }
    let input = graph.tensor(op.inputs().get(0)??)?;
    if input.data().is_none() || input.is_variable() {
        return None;
    }
    op.outputs().get(0)?
}

/// Whether any operator of the graph is a DENSIFY (of interest only with the `sparse`
/// feature: without it no constant is sparse, so none is folded).
pub(crate) fn has_densify(graph: &Subgraph<'_>) -> bool {
    cfg!(feature = "sparse")
        && graph
            .operators()
            .iter()
            .any(|op| op.builtin() == Some(BuiltinOperator::Densify))
}

/// The sparse constant that DENSIFY operator `j` reads, if it is one (a constant with
/// sparsity parameters).
fn densify_source<'m>(graph: &Subgraph<'m>, op: &Operator<'m>) -> Option<Tensor<'m>> {
    if op.builtin() != Some(BuiltinOperator::Densify) {
        return None;
    }
    let src = graph.tensor(op.inputs().get(0)??)?;
    (src.data().is_some() && src.sparsity().is_some()).then_some(src)
}

/// The sparse constant behind tensor `t`: `t` itself if it is a constant stored sparse, or
/// the sparse constant a DENSIFY turns into `t`.
pub(crate) fn sparse_source<'m>(graph: &Subgraph<'m>, t: usize) -> Option<Tensor<'m>> {
    let tensor = graph.tensor(t)?;
    if tensor.data().is_some() {
        return tensor.sparsity().is_some().then_some(tensor);
    }
    let producer = graph
        .operators()
        .iter()
        .find(|op| op.outputs().iter().any(|o| o == Some(t)))?;
    densify_source(graph, &producer)
}

/// Whether tensor `t` is folded away: the output of a DENSIFY of a sparse constant, read only
/// as the weights of FULLY_CONNECTED operators (which read the sparse constant directly), and
/// not a graph output. It then takes no bytes, and the DENSIFY does nothing.
pub(crate) fn folded(graph: &Subgraph<'_>, t: usize) -> bool {
    if graph.tensor(t).is_none_or(|x| x.data().is_some()) {
        return false;
    }
    if graph.outputs().iter().any(|o| o == Some(t)) || sparse_source(graph, t).is_none() {
        return false;
    }
    graph.operators().iter().all(|op| {
        let reads = op.inputs().iter().position(|i| i == Some(t));
        match reads {
            None => true,
            Some(_) => {
                op.builtin() == Some(BuiltinOperator::FullyConnected)
                    && op
                        .inputs()
                        .iter()
                        .enumerate()
                        .all(|(k, i)| i != Some(t) || k == 1)
            }
        }
    })
}

/// The kernel for operator `j`, or why there is none.
pub(crate) fn kernel_for(
    resolver: &dyn OpResolver,
    graph: &Subgraph<'_>,
    j: usize,
) -> Result<(usize, &'static Kernel), InterpreterError> {
    let op = graph
        .operators()
        .get(j)
        .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
    #[cfg(feature = "control-flow")]
    if let Some(control) = op.builtin().and_then(control::kernel_for) {
        return Ok(control);
    }
    match op.builtin() {
        #[cfg(feature = "custom-ops")]
        Some(BuiltinOperator::Custom) => {
            resolver
                .find_custom(op.code().custom_code_bytes())
                .ok_or(InterpreterError::at_op(
                    ErrorKind::CustomOp,
                    j,
                    BuiltinOperator::Custom,
                ))
        }
        #[cfg(not(feature = "custom-ops"))]
        Some(BuiltinOperator::Custom) => Err(InterpreterError::at_op(
            ErrorKind::CustomOp,
            j,
            BuiltinOperator::Custom,
        )),
        Some(b) => resolver.find(b).ok_or(InterpreterError::at_op(
            ErrorKind::UnregisteredOp { op: b },
            j,
            b,
        )),
        None => Err(InterpreterError::at_operator(
            ErrorKind::UnknownOp {
                code: op.code().builtin_code(),
            },
            j,
        )),
    }
}

/// Runs operator `j`'s `prepare`.
pub(crate) fn prepare(
    graph: &Subgraph<'_>,
    kernel: &Kernel,
    j: usize,
    #[cfg(feature = "state")] pack: bool,
    #[cfg(feature = "std")] threads: usize,
) -> Result<Requests, InterpreterError> {
    let operator = graph
        .operators()
        .get(j)
        .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
    let op = kernel.op;
    let mut ctx = Prepare {
        graph: *graph,
        operator,
        requests: Requests::NONE,
        #[cfg(feature = "state")]
        pack,
        #[cfg(feature = "std")]
        threads,
    };
    (kernel.prepare)(&mut ctx).map_err(|e| InterpreterError::at_op(ErrorKind::Kernel(e), j, op))?;
    Ok(ctx.requests)
}

/// Measures the arena and plans it, with `plan` as the plan's table (one entry per tensor,
/// then one per operator's scratch, over every graph of the run: `tensors + ops` entries).
/// With `tables`, writes the records in the same pass: each kernel's `prepare` runs once.
pub(crate) fn measure(
    graphs: &Graphs<'_>,
    resolver: &dyn OpResolver,
    options: &Options,
    plan: &mut [PlanBuffer],
    mut tables: Option<Tables<'_>>,
) -> Result<Measure, InterpreterError> {
    let tensors = graphs.tensors();
    let ops = graphs.ops();
    let entries = tensors.checked_add(ops).ok_or(TOO_LARGE)?;
    let available = plan.len();
    let plan = plan
        .get_mut(..entries)
        .ok_or(InterpreterError::new(ErrorKind::PlanScratch {
            needed: entries,
            available,
        }))?;

    // Tensors: sizes, records, and lifetimes from the graph's inputs and the operators'
    // operands. Persistent data is laid out back to back, tensors first, then operators.
    let mut persistent = 0usize;
    for g in graphs.iter() {
        let densify = has_densify(&g.graph);
        for (i, t) in g.graph.tensors().iter().enumerate() {
            let (shape, place, bytes) = located!(g, holding(&g.graph, densify, &t, options))?;
            let at = persistent;
            let size = if place == Place::Planned { bytes } else { 0 };
            if matches!(place, Place::Persistent | Place::Variable) {
                persistent = align_up(at.checked_add(bytes).ok_or(TOO_LARGE)?).ok_or(TOO_LARGE)?;
            }
            // Not yet seen: an empty lifetime, fixed below.
            plan[g.first_tensor() + i] = PlanBuffer::new(size, ALIGN, Lifetime::new(u32::MAX, 0));
            if let Some(tables) = tables.as_mut() {
                tables.records[g.first_tensor() + i] =
                    tensor_record(&t, &shape, place, bytes, at, tables.model)?;
            }
        }
    }
    // The outputs of DEQUANTIZEs of constants move to the persistent part: their kernel
    // computes them once (see `Options::fold_constants`).
    #[cfg(feature = "state")]
    if options.fold_constants {
        for g in graphs.iter() {
            for op in g.graph.operators().iter() {
                let Some(t) = dequantized_constant(&g.graph, &op) else {
                    continue;
                };
                let i = g.first_tensor() + t;
                let bytes = plan.get(i).map_or(0, PlanBuffer::size);
                if bytes == 0 {
                    continue; // not planned: a variable, or empty
                }
                let at = persistent;
                persistent = align_up(at.checked_add(bytes).ok_or(TOO_LARGE)?).ok_or(TOO_LARGE)?;
                plan[i] = PlanBuffer::new(0, ALIGN, Lifetime::new(u32::MAX, 0));
                if let Some(r) = tables.as_mut().and_then(|t| t.records.get_mut(i)) {
                    r.place = Place::Persistent as u8;
                    r.offset = at as u32;
                }
            }
        }
    }
    // The operators' intervals on the one timeline of every graph (see `control::schedule`);
    // one graph's operators take steps 0, 1, ...
    #[cfg(feature = "control-flow")]
    let end = control::schedule::schedule(graphs, plan, tensors)?;
    #[cfg(not(feature = "control-flow"))]
    let end = u32::try_from(ops).map_err(|_| TOO_LARGE)?;
    #[cfg(feature = "control-flow")]
    let mut resources = graphs.resources();

    // Graph inputs are alive from the start and, as in TensorFlow Lite, to the end: they are
    // kept across invokes (unless `preserve_inputs` is off: then, as in TensorFlow Lite Micro,
    // only to their last reader, and their bytes may be reused). Outputs are alive to the
    // end, to be read.
    let main = graphs.main();
    for i in main.inputs().iter().flatten() {
        widen(plan, i, 0);
        if options.preserve_inputs {
            widen(plan, i, end);
        }
    }
    for i in main.outputs().iter().flatten() {
        widen(plan, i, end);
    }
    // Operators, in one pass: lifetimes from their operands (each input computed by an
    // earlier operator), operand lists, kernels, their parameters, persistent and scratch
    // bytes.
    let mut k = 0usize;
    for g in graphs.iter() {
        let graph = &g.graph;
        for (j, op) in graph.operators().iter().enumerate() {
            let (n_in, n_out) = (op.inputs().len(), op.outputs().len());
            if n_in > MAX_INPUTS || n_out > MAX_OUTPUTS {
                let limit = if n_in > MAX_INPUTS {
                    MAX_INPUTS
                } else {
                    MAX_OUTPUTS
                };
                let kind = ErrorKind::TooManyOperands {
                    count: n_in.max(n_out),
                    limit,
                };
                return located!(g, Err(InterpreterError::at_operator(kind, j)));
            }
            // The operator's interval: one step, or a control operator's from its step to its
            // callees' last.
            #[cfg(feature = "control-flow")]
            let (step, last) = {
                let l = plan[tensors + g.first_op() + j].lifetime();
                (l.first, l.last)
            };
            #[cfg(not(feature = "control-flow"))]
            let (step, last) = (j as u32, j as u32);
            let start = k;
            for (n, i) in op.inputs().iter().chain(op.outputs().iter()).enumerate() {
                // The operand table: an entry past the caller's region is not written, and
                // then the header reaches the plan's table and the total is over the region
                // (see `Interpreter::new`).
                if let Some(slot) = tables.as_mut().and_then(|t| t.operands.get_mut(k)) {
                    *slot = i.map_or(-1, |i| i as i32);
                }
                k += 1;
                let Some(i) = i else { continue };
                let at = g.first_tensor() + i;
                let input = n < n_in;
                // Read before any operator writes it and not a graph input (Vela's scratch
                // tensors, which the schema allows): alive throughout, so it reads the zeros
                // set-up leaves (or what the graph last wrote there), never another tensor's
                // bytes.
                if input
                    && plan
                        .get(at)
                        .is_some_and(|b| b.size() > 0 && b.lifetime().first > step)
                    && !graph.inputs().iter().flatten().any(|x| x == i)
                {
                    widen(plan, at, 0);
                    widen(plan, at, end);
                }
                widen(plan, at, step);
                if last != step {
                    widen(plan, at, last);
                }
            }
            let (index, kernel) = located!(g, kernel_for(resolver, graph, j))?;
            #[allow(unused_mut)]
            let mut r = located!(
                g,
                prepare(
                    graph,
                    kernel,
                    j,
                    #[cfg(feature = "state")]
                    options.pack_weights,
                    #[cfg(feature = "std")]
                    options.threads
                )
            )?;
            #[cfg(feature = "control-flow")]
            if let Some(flow) =
                control::Flow::of(kernel.op).filter(|_| index >= usize::from(CONTROL_BASE))
            {
                control::link::link(graphs, &mut resources, &g, j, flow, &mut r)?;
            }
            #[cfg(feature = "custom-ops")]
            for &(o, shape) in r.resized.iter().flatten() {
                located!(
                    g,
                    resize(graph, j, o, &shape, g.first_tensor(), plan, &mut tables)
                )?;
            }
            let at = persistent;
            if r.persistent > 0 {
                persistent =
                    align_up(at.checked_add(r.persistent).ok_or(TOO_LARGE)?).ok_or(TOO_LARGE)?;
            }
            plan[tensors + g.first_op() + j] =
                PlanBuffer::new(r.scratch, ALIGN, Lifetime::new(step, last));
            if let Some(tables) = tables.as_mut() {
                // The offsets and sizes fit u32 once the total does (checked below); the
                // scratch offset is set once planned.
                tables.ops[g.first_op() + j] = OpRecord {
                    params: r.params,
                    operands: start as u32,
                    persistent: at as u32,
                    persistent_bytes: r.persistent as u32,
                    scratch: 0,
                    scratch_bytes: r.scratch as u32,
                    kernel: u16::try_from(index).map_err(|_| TOO_LARGE)?,
                    // Both checked against MAX_INPUTS / MAX_OUTPUTS above.
                    inputs: n_in as u8,
                    outputs: n_out as u8,
                };
            }
        }
    }
    // Each graph's inputs and outputs, after the operators' operands, and its record; then
    // the resource variables' bytes, after the operators' persistent bytes.
    #[cfg(feature = "control-flow")]
    {
        for (n, g) in graphs.iter().enumerate() {
            let io = k;
            for i in g.graph.inputs().iter().chain(g.graph.outputs().iter()) {
                if let Some(slot) = tables.as_mut().and_then(|t| t.operands.get_mut(k)) {
                    *slot = i.map_or(-1, |i| i as i32);
                }
                k += 1;
            }
            if let Some(tables) = tables.as_mut() {
                tables.graphs[n] = GraphRecord {
                    tensors: g.first_tensor() as u32,
                    tensor_count: g.graph.tensors().len() as u32,
                    ops: g.first_op() as u32,
                    op_count: g.graph.operators().len() as u32,
                    io: io as u32,
                    inputs: u16::try_from(g.graph.inputs().len()).map_err(|_| TOO_LARGE)?,
                    outputs: u16::try_from(g.graph.outputs().len()).map_err(|_| TOO_LARGE)?,
                    subgraph: g.graph.index() as u32,
                };
            }
        }
        for slot in 0..resources.len() {
            let (bytes, dtype) = resources.value(slot).unwrap_or((0, TensorType::Float32));
            let at = persistent;
            persistent = align_up(at.checked_add(bytes).ok_or(TOO_LARGE)?).ok_or(TOO_LARGE)?;
            if let Some(tables) = tables.as_mut() {
                tables.resources[slot] = control::ResourceRecord {
                    offset: at as u32,
                    bytes: bytes as u32,
                    dtype: dtype as u8,
                    initialized: 0,
                    pad: [0; 2],
                };
            }
        }
    }
    let operands = k;
    let data = Measure::header(graphs, operands).ok_or(TOO_LARGE)?;
    // Tensors nothing uses: alive at step 0 only, harmlessly.
    for b in plan[..tensors].iter_mut() {
        if b.lifetime().first > b.lifetime().last {
            *b = PlanBuffer::new(b.size(), ALIGN, Lifetime::new(0, 0));
        }
    }
    let plan_table = align_up(
        entries
            .checked_mul(size_of::<PlanBuffer>())
            .ok_or(TOO_LARGE)?,
    )
    .ok_or(TOO_LARGE)?;
    let peak = plan_greedy(plan).map_err(|e| InterpreterError::new(ErrorKind::Plan(e)))?;
    let peak = align_up(peak).ok_or(TOO_LARGE)?;
    let m = Measure {
        tensors,
        ops,
        operands,
        data,
        persistent,
        peak,
        plan_table,
    };
    // Every offset in a record is a u32.
    if m.total().is_none_or(|t| u32::try_from(t).is_err()) {
        return Err(TOO_LARGE);
    }
    // Planned buffers follow the persistent data.
    if let Some(tables) = tables {
        for (r, b) in tables.records.iter_mut().zip(plan.iter()) {
            if r.place() == Place::Planned {
                r.offset = (m.persistent + b.offset()) as u32;
            }
        }
        for (o, b) in tables.ops.iter_mut().zip(&plan[tensors..]) {
            o.scratch = (m.persistent + b.offset()) as u32;
        }
    }
    Ok(m)
}

/// Tensor `t`'s record: its offset `at` if persistent, in the model if read in place, 0 if
/// planned (set once planned) or folded away.
fn tensor_record(
    t: &Tensor<'_>,
    shape: &Shape,
    place: Place,
    bytes: usize,
    at: usize,
    model: &[u8],
) -> Result<TensorRecord, InterpreterError> {
    let mut dims = [0u32; MAX_DIMS];
    for (d, &s) in dims.iter_mut().zip(shape.dims()) {
        *d = u32::try_from(s).map_err(|_| TOO_LARGE)?;
    }
    let offset = match place {
        Place::Persistent | Place::Variable => at,
        Place::Model => t
            .data()
            .map_or(0, |d| d.as_ptr() as usize - model.as_ptr() as usize),
        Place::Planned | Place::None => 0,
    };
    Ok(TensorRecord {
        dims,
        // A persistent offset fits once the total does (checked at the end of `measure`).
        offset: u32::try_from(offset).map_err(|_| TOO_LARGE)?,
        bytes: bytes as u32,
        rank: shape.rank() as u8,
        dtype: t.tensor_type() as u8,
        place: place as u8,
        written: u8::from(t.data().is_some()),
    })
}

/// Gives output `o` of operator `j` the shape its kernel set
/// ([`Prepare::set_output_shape`](super::Prepare::set_output_shape)): its planned bytes and
/// its record, its lifetime kept.
#[cfg(feature = "custom-ops")]
fn resize(
    graph: &Subgraph<'_>,
    j: usize,
    o: usize,
    shape: &Shape,
    first: usize,
    plan: &mut [PlanBuffer],
    tables: &mut Option<Tables<'_>>,
) -> Result<(), InterpreterError> {
    let bad = |kind| InterpreterError::at_operator(kind, j);
    let t = graph
        .operators()
        .get(j)
        .and_then(|op| op.outputs().get(o).flatten())
        .ok_or(bad(ErrorKind::NoSuchTensor))?;
    let tensor = graph.tensor(t).ok_or(bad(ErrorKind::NoSuchTensor))?;
    let bytes = element_bytes(tensor.tensor_type())
        .and_then(|b| b.checked_mul(shape.elements()))
        .filter(|&b| u32::try_from(b).is_ok())
        .ok_or(bad(ErrorKind::TooLarge))?;
    let b = plan
        .get_mut(first + t)
        .ok_or(bad(ErrorKind::NoSuchTensor))?;
    *b = PlanBuffer::new(bytes, ALIGN, b.lifetime());
    if let Some(tables) = tables.as_mut() {
        let record = tensor_record(&tensor, shape, Place::Planned, bytes, 0, tables.model)?;
        if let Some(r) = tables.records.get_mut(first + t) {
            *r = record;
        }
    }
    Ok(())
}

/// Widens tensor `i`'s lifetime in `plan` to include `step`. Out of line: inlined at its
/// four call sites it cost firmware flash for nothing.
#[inline(never)]
pub(crate) fn widen(plan: &mut [PlanBuffer], i: usize, step: u32) {
    if let Some(b) = plan.get_mut(i) {
        let l = b.lifetime();
        *b = PlanBuffer::new(
            b.size(),
            ALIGN,
            Lifetime::new(l.first.min(step), l.last.max(step)),
        );
    }
}

/// The arena's tables, for [`measure`] to write.
pub(crate) struct Tables<'t> {
    pub records: &'t mut [TensorRecord],
    pub ops: &'t mut [OpRecord],
    #[cfg(feature = "control-flow")]
    pub graphs: &'t mut [GraphRecord],
    #[cfg(feature = "control-flow")]
    pub resources: &'t mut [control::ResourceRecord],
    pub operands: &'t mut [i32],
    /// The model's bytes, which in-place constants' offsets count from.
    pub model: &'t [u8],
}
