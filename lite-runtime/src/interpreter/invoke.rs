//! Running the graph: for each operator, its outputs and scratch are split off the arena's data
//! region as writable slices, the rest stays readable for its inputs, and its kernel's `eval`
//! runs. Nothing is allocated, and the flatbuffer is not read.

use super::error::{ErrorKind, InterpreterError, KernelError};
#[cfg(feature = "state")]
use super::kernel::Writable;
use super::kernel::{Eval, Kernel, MAX_OUTPUTS, MAX_VARIABLES};
use super::record::{OpRecord, Place, TensorRecord};
use zerocopy::FromBytes;

use super::Interpreter;

/// Writable pieces: the outputs, the scratch and, with `state`, the persistent bytes and the
/// variable inputs.
const CUTS: usize = MAX_OUTPUTS
    + 1
    + if cfg!(feature = "state") {
        1 + MAX_VARIABLES
    } else {
        0
    };

/// A cut's `which` past the outputs': the scratch, the persistent bytes, variable slot 0.
const SCRATCH: usize = MAX_OUTPUTS;
#[cfg(feature = "state")]
const PERSISTENT: usize = MAX_OUTPUTS + 1;
#[cfg(feature = "state")]
const VARIABLE: usize = MAX_OUTPUTS + 2;

const OVERLAP: KernelError = KernelError::Mismatch {
    what: "two outputs of one operator share bytes",
};

#[cfg(feature = "state")]
const TOO_MANY_VARIABLES: KernelError = KernelError::Unsupported {
    what: "an operator with more variable inputs than MAX_VARIABLES",
};

/// The writable pieces `state` adds for operator `rec`: its persistent bytes and its variable
/// inputs (0 without the feature).
#[cfg(feature = "state")]
fn state_cuts(rec: &OpRecord, inputs: &[i32], records: &[TensorRecord]) -> usize {
    let variables = inputs
        .iter()
        .filter_map(|&t| records.get(usize::try_from(t).ok()?))
        .filter(|r| r.place() == Place::Variable && r.bytes > 0)
        .count();
    usize::from(rec.persistent_bytes > 0) + variables
}

#[cfg(not(feature = "state"))]
fn state_cuts(_: &OpRecord, _: &[i32], _: &[TensorRecord]) -> usize {
    0
}

impl Interpreter<'_, '_> {
    /// Runs the graph once, from the inputs as they are to the outputs. Allocates nothing.
    ///
    /// # Errors
    /// A kernel's error (a bad index in the data, strings over their budget), naming the
    /// operator. The outputs are then unspecified; the interpreter may be invoked again.
    pub fn invoke(&mut self) -> Result<(), InterpreterError> {
        #[cfg(feature = "control-flow")]
        return self.run_graph(0);
        #[cfg(not(feature = "control-flow"))]
        {
            for j in 0..(self.counts.ops as usize) {
                self.run_operator(j, 0, self.counts.tensors as usize)?;
            }
            Ok(())
        }
    }

    /// Runs operator record `j`, of a graph whose tensors are the `count` records from
    /// `base` (its operands are indices among them).
    pub(crate) fn run_operator(
        &mut self,
        j: usize,
        base: usize,
        count: usize,
    ) -> Result<(), InterpreterError> {
        let rec = self.op_record(j);
        let kernel = self.kernel(j, &rec)?;
        #[cfg(feature = "control-flow")]
        if let Some((flow, _)) = super::control::flow_at(rec.kernel) {
            return self.run_control(j, flow, kernel.op, &rec, base);
        }
        let op = kernel.op;
        let fail = |e: KernelError| InterpreterError::at_op(ErrorKind::Kernel(e), j, op);

        let t_bytes = (self.counts.tensors as usize) * size_of::<TensorRecord>();
        let o_bytes = self.counts.operands_at() - t_bytes;
        let (records, rest) = self.header.split_at_mut(t_bytes);
        let operands_bytes = rest
            .get(o_bytes..o_bytes + (self.counts.operands as usize) * 4)
            .ok_or(fail(OVERLAP))?;
        let operands = <[i32]>::ref_from_bytes(operands_bytes).map_err(|_| fail(OVERLAP))?;
        let records = <[TensorRecord]>::mut_from_bytes(records).map_err(|_| fail(OVERLAP))?;
        // The graph's own records: its operands index them.
        #[cfg(feature = "control-flow")]
        let records = records.get_mut(base..base + count).ok_or(fail(OVERLAP))?;
        #[cfg(not(feature = "control-flow"))]
        let _ = (base, count);
        let start = rec.operands as usize;
        let (n_in, n_out) = (usize::from(rec.inputs), usize::from(rec.outputs));
        let inputs = operands.get(start..start + n_in).ok_or(fail(OVERLAP))?;
        let outputs = operands
            .get(start + n_in..start + n_in + n_out)
            .ok_or(fail(OVERLAP))?;

        // Most operators have one output and no scratch: small arrays for them keep the
        // per-operator cost of splitting the arena down (160 operators make up the CTR model).
        // Not on bare metal, where the second copy of this code (0.9 KB of a Cortex-M4F
        // image) costs more than zeroing a few more slots per operator.
        let cuts = n_out + usize::from(rec.scratch_bytes > 0) + state_cuts(&rec, inputs, records);
        let model = self.model.bytes();
        #[cfg(feature = "std")]
        let workers: &dyn super::Workers = match &self.pool {
            Some(pool) => &**pool,
            None => &super::Inline,
        };
        #[cfg(not(feature = "std"))]
        let workers = ();
        if cuts <= 2 && !cfg!(target_os = "none") {
            split_and_eval::<2, 3>(
                &rec, kernel, records, inputs, outputs, self.data, model, workers,
            )
        } else {
            split_and_eval::<CUTS, { CUTS + 1 }>(
                &rec, kernel, records, inputs, outputs, self.data, model, workers,
            )
        }
        .map_err(fail)
    }
}

/// Splits the outputs (at most `N - 1` of them, or `N` without scratch) and the scratch off
/// `data`, runs the kernel, and records the string outputs' lengths. `P` is `N + 1`.
#[allow(clippy::too_many_arguments)]
fn split_and_eval<const N: usize, const P: usize>(
    rec: &OpRecord,
    kernel: &Kernel,
    records: &mut [TensorRecord],
    inputs: &[i32],
    outputs: &[i32],
    data: &mut [u8],
    model: &[u8],
    #[cfg(feature = "std")] workers: &dyn super::Workers,
    #[cfg(not(feature = "std"))] _: (),
) -> Result<(), KernelError> {
    let n_out = outputs.len();
    if n_out > N {
        return Err(OVERLAP);
    }
    // The writable ranges: (offset, bytes, which), which = output index, or MAX_OUTPUTS
    // for the scratch.
    let mut cuts = [(0usize, 0usize, 0usize); N];
    let mut n_cuts = 0;
    for (k, &t) in outputs.iter().enumerate() {
        let Some(r) = usize::try_from(t).ok().and_then(|t| records.get(t)) else {
            continue;
        };
        if matches!(
            r.place(),
            Place::Planned | Place::Persistent | Place::Variable
        ) && r.bytes > 0
        {
            *cuts.get_mut(n_cuts).ok_or(OVERLAP)? = (r.offset as usize, r.bytes as usize, k);
            n_cuts += 1;
        }
    }
    if rec.scratch_bytes > 0 {
        *cuts.get_mut(n_cuts).ok_or(OVERLAP)? =
            (rec.scratch as usize, rec.scratch_bytes as usize, SCRATCH);
        n_cuts += 1;
    }
    // With `state`: the persistent bytes and the variable inputs are written in place.
    #[cfg(feature = "state")]
    let mut variable_inputs = [0usize; MAX_VARIABLES];
    #[cfg(feature = "state")]
    let mut n_variables = 0;
    #[cfg(feature = "state")]
    {
        if rec.persistent_bytes > 0 {
            *cuts.get_mut(n_cuts).ok_or(OVERLAP)? = (
                rec.persistent as usize,
                rec.persistent_bytes as usize,
                PERSISTENT,
            );
            n_cuts += 1;
        }
        for (k, &t) in inputs.iter().enumerate() {
            let Some(r) = usize::try_from(t).ok().and_then(|t| records.get(t)) else {
                continue;
            };
            if r.place() == Place::Variable && r.bytes > 0 {
                *variable_inputs
                    .get_mut(n_variables)
                    .ok_or(TOO_MANY_VARIABLES)? = k;
                *cuts.get_mut(n_cuts).ok_or(OVERLAP)? =
                    (r.offset as usize, r.bytes as usize, VARIABLE + n_variables);
                n_variables += 1;
                n_cuts += 1;
            }
        }
    }
    let cuts = &mut cuts[..n_cuts];
    // By offset. At most MAX_OUTPUTS + 1 cuts, mostly one or two: an insertion sort (32 bytes
    // less flash than the library's on a Cortex-M4F).
    for i in 1..cuts.len() {
        let mut j = i;
        while j > 0 && cuts[j - 1].0 > cuts[j].0 {
            cuts.swap(j - 1, j);
            j -= 1;
        }
    }

    let mut out: [Option<&mut [u8]>; N] = [const { None }; N];
    let mut empty: [[u8; 0]; N] = [[]; N];
    let mut scratch = None;
    #[cfg(feature = "state")]
    let mut persistent_cut = None;
    #[cfg(feature = "state")]
    let mut variables: [Option<&mut [u8]>; MAX_VARIABLES] = [const { None }; MAX_VARIABLES];
    let mut pieces: [(usize, &[u8]); P] = [(0, &[]); P];
    let mut n_pieces = 0;
    let mut data: &mut [u8] = data;
    let mut at = 0usize;
    for &(offset, bytes, which) in cuts.iter() {
        let gap = offset.checked_sub(at).ok_or(OVERLAP)?;
        if gap > data.len() || bytes > data.len() - gap {
            return Err(OVERLAP);
        }
        let (before, after) = data.split_at_mut(gap);
        let (cut, after) = after.split_at_mut(bytes);
        *pieces.get_mut(n_pieces).ok_or(OVERLAP)? = (at, before);
        n_pieces += 1;
        match which {
            SCRATCH => scratch = Some(cut),
            #[cfg(feature = "state")]
            PERSISTENT => persistent_cut = Some(cut),
            #[cfg(feature = "state")]
            v if v >= VARIABLE => *variables.get_mut(v - VARIABLE).ok_or(OVERLAP)? = Some(cut),
            k => *out.get_mut(k).ok_or(OVERLAP)? = Some(cut),
        }
        data = after;
        at = offset + bytes;
    }
    *pieces.get_mut(n_pieces).ok_or(OVERLAP)? = (at, data);
    n_pieces += 1;
    // Outputs of no bytes (empty tensors) get an empty slice.
    for (slot, e) in out.iter_mut().zip(empty.iter_mut()).take(n_out) {
        if slot.is_none() {
            *slot = Some(&mut e[..]);
        }
    }
    let mut out_len = [None; N];
    let start = rec.persistent as usize;
    let shared = pieces[..n_pieces].iter().find_map(|&(at, p)| {
        let s = start.checked_sub(at)?;
        p.get(s..s + rec.persistent_bytes as usize)
    });
    #[cfg(not(feature = "state"))]
    let persistent = shared.unwrap_or(&[]);
    #[cfg(feature = "state")]
    let persistent = match persistent_cut {
        Some(cut) => Writable::new(Some(cut), None),
        None => Writable::new(None, Some(shared.unwrap_or(&[]))),
    };
    #[cfg(feature = "state")]
    let mut slots = variables.iter_mut().zip(variable_inputs);
    #[cfg(feature = "state")]
    let variables: [(usize, Writable<'_>); MAX_VARIABLES] = core::array::from_fn(|_| {
        slots
            .next()
            .map_or((usize::MAX, Writable::new(None, None)), |(v, k)| {
                (k, Writable::new(v.take(), None))
            })
    });
    {
        let mut ctx = Eval {
            params: &rec.params,
            records,
            inputs,
            outputs,
            rest: &pieces[..n_pieces],
            out: &mut out[..n_out],
            out_len: &mut out_len[..n_out],
            scratch,
            persistent,
            #[cfg(feature = "state")]
            variables: &variables[..n_variables],
            model,
            #[cfg(feature = "std")]
            workers,
        };
        (kernel.eval)(&mut ctx)?;
    }
    // String outputs the kernel wrote: readable from now on (their encoding says their
    // length).
    for (k, &t) in outputs.iter().enumerate() {
        let Some(r) = usize::try_from(t).ok().and_then(|t| records.get_mut(t)) else {
            continue;
        };
        if out_len.get(k).copied().flatten().is_some() {
            r.written = 1;
        }
    }
    Ok(())
}
