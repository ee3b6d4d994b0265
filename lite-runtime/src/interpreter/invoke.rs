//! Running the graph: for each operator, its outputs and scratch are split off the arena's data
//! region as writable slices, the rest stays readable for its inputs, and its kernel's `eval`
//! runs. Nothing is allocated, and the flatbuffer is not read.

use super::error::{ErrorKind, InterpreterError, KernelError};
use super::kernel::{Eval, Kernel, MAX_OUTPUTS};
use super::record::{OpRecord, Place, TensorRecord};
use super::{Interpreter, cast};

/// Writable pieces: the outputs, then the scratch.
const CUTS: usize = MAX_OUTPUTS + 1;

const OVERLAP: KernelError = KernelError::Mismatch {
    what: "two outputs of one operator share bytes",
};

impl Interpreter<'_, '_> {
    /// Runs the graph once, from the inputs as they are to the outputs. Allocates nothing.
    ///
    /// # Errors
    /// A kernel's error (a bad index in the data, strings over their budget), naming the
    /// operator. The outputs are then unspecified; the interpreter may be invoked again.
    pub fn invoke(&mut self) -> Result<(), InterpreterError> {
        for j in 0..(self.counts.ops as usize) {
            self.run_operator(j)?;
        }
        Ok(())
    }

    fn run_operator(&mut self, j: usize) -> Result<(), InterpreterError> {
        let rec = self.op_record(j);
        let kernel = self.kernel(j, &rec)?;
        let op = kernel.op;
        let fail = |e: KernelError| InterpreterError::at_op(ErrorKind::Kernel(e), j, op);

        let t_bytes = (self.counts.tensors as usize) * size_of::<TensorRecord>();
        let o_bytes = (self.counts.ops as usize) * size_of::<OpRecord>();
        let (records, rest) = self.header.split_at_mut(t_bytes);
        let operands_bytes = rest
            .get(o_bytes..o_bytes + (self.counts.operands as usize) * 4)
            .ok_or(fail(OVERLAP))?;
        let operands = cast::slice_of(operands_bytes).ok_or(fail(OVERLAP))?;
        let records = cast::slice_of_mut(records).ok_or(fail(OVERLAP))?;
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
        let cuts = n_out + usize::from(rec.scratch_bytes > 0);
        let model = self.model.bytes();
        if cuts <= 2 && !cfg!(target_os = "none") {
            split_and_eval::<2, 3>(&rec, kernel, records, inputs, outputs, self.data, model)
        } else {
            split_and_eval::<CUTS, { CUTS + 1 }>(
                &rec, kernel, records, inputs, outputs, self.data, model,
            )
        }
        .map_err(fail)
    }
}

/// Splits the outputs (at most `N - 1` of them, or `N` without scratch) and the scratch off
/// `data`, runs the kernel, and records the string outputs' lengths. `P` is `N + 1`.
fn split_and_eval<const N: usize, const P: usize>(
    rec: &OpRecord,
    kernel: &Kernel,
    records: &mut [TensorRecord],
    inputs: &[i32],
    outputs: &[i32],
    data: &mut [u8],
    model: &[u8],
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
        if matches!(r.place(), Place::Planned | Place::Persistent) && r.bytes > 0 {
            *cuts.get_mut(n_cuts).ok_or(OVERLAP)? = (r.offset as usize, r.bytes as usize, k);
            n_cuts += 1;
        }
    }
    if rec.scratch_bytes > 0 {
        *cuts.get_mut(n_cuts).ok_or(OVERLAP)? = (
            rec.scratch as usize,
            rec.scratch_bytes as usize,
            MAX_OUTPUTS,
        );
        n_cuts += 1;
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
        if which == MAX_OUTPUTS {
            scratch = Some(cut);
        } else {
            *out.get_mut(which).ok_or(OVERLAP)? = Some(cut);
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
    let persistent_start = rec.persistent as usize;
    let persistent = pieces[..n_pieces]
        .iter()
        .find_map(|&(at, p)| {
            let s = persistent_start.checked_sub(at)?;
            p.get(s..s + rec.persistent_bytes as usize)
        })
        .unwrap_or(&[]);
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
            model,
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
