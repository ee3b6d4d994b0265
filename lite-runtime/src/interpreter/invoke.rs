//! Running the graph: for each operator, its outputs and scratch are split off the arena's data
//! region as writable slices, the rest stays readable for its inputs, and its kernel's `eval`
//! runs. Nothing is allocated, and the flatbuffer is not read.

use zerocopy::FromBytes;

use super::Interpreter;
use super::error::{ErrorKind, InterpreterError, KernelError};
use super::kernel::{Eval, MAX_OUTPUTS};
use super::record::{OpRecord, Place, TensorRecord};

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
        for j in 0..self.measure.ops {
            self.run_operator(j)?;
        }
        Ok(())
    }

    fn run_operator(&mut self, j: usize) -> Result<(), InterpreterError> {
        let rec = self.op_record(j);
        let kernel = self.kernel(j, &rec)?;
        let name = kernel.op.name();
        let fail = |e: KernelError| InterpreterError::at_op(ErrorKind::Kernel(e), j, name);

        let t_bytes = self.measure.tensors * size_of::<TensorRecord>();
        let o_bytes = self.measure.ops * size_of::<OpRecord>();
        let (records, rest) = self.header.split_at_mut(t_bytes);
        let operands_bytes = rest
            .get(o_bytes..o_bytes + self.measure.operands * 4)
            .ok_or(fail(OVERLAP))?;
        let operands = <[i32]>::ref_from_bytes(operands_bytes).map_err(|_| fail(OVERLAP))?;
        let records = <[TensorRecord]>::mut_from_bytes(records).map_err(|_| fail(OVERLAP))?;
        let start = rec.operands as usize;
        let (n_in, n_out) = (usize::from(rec.inputs), usize::from(rec.outputs));
        let inputs = operands.get(start..start + n_in).ok_or(fail(OVERLAP))?;
        let outputs = operands
            .get(start + n_in..start + n_in + n_out)
            .ok_or(fail(OVERLAP))?;

        // The writable ranges: (offset, bytes, which), which = output index, or MAX_OUTPUTS
        // for the scratch.
        let mut cuts = [(0usize, 0usize, 0usize); CUTS];
        let mut n_cuts = 0;
        for (k, &t) in outputs.iter().enumerate() {
            let Some(r) = usize::try_from(t).ok().and_then(|t| records.get(t)) else {
                continue;
            };
            if matches!(r.place(), Place::Planned | Place::Persistent) && r.bytes > 0 {
                cuts[n_cuts] = (r.offset as usize, r.bytes as usize, k);
                n_cuts += 1;
            }
        }
        if rec.scratch_bytes > 0 {
            cuts[n_cuts] = (
                rec.scratch as usize,
                rec.scratch_bytes as usize,
                MAX_OUTPUTS,
            );
            n_cuts += 1;
        }
        let cuts = &mut cuts[..n_cuts];
        cuts.sort_unstable_by_key(|c| c.0);

        let mut out: [Option<&mut [u8]>; MAX_OUTPUTS] = [const { None }; MAX_OUTPUTS];
        let mut empty: [[u8; 0]; MAX_OUTPUTS] = [[]; MAX_OUTPUTS];
        let mut scratch = None;
        let mut pieces: [(usize, &[u8]); CUTS + 1] = [(0, &[]); CUTS + 1];
        let mut n_pieces = 0;
        let mut data: &mut [u8] = self.data;
        let mut at = 0usize;
        for &(offset, bytes, which) in cuts.iter() {
            let gap = offset.checked_sub(at).ok_or(fail(OVERLAP))?;
            if gap > data.len() || bytes > data.len() - gap {
                return Err(fail(OVERLAP));
            }
            let (before, after) = data.split_at_mut(gap);
            let (cut, after) = after.split_at_mut(bytes);
            pieces[n_pieces] = (at, before);
            n_pieces += 1;
            if which == MAX_OUTPUTS {
                scratch = Some(cut);
            } else {
                out[which] = Some(cut);
            }
            data = after;
            at = offset + bytes;
        }
        pieces[n_pieces] = (at, data);
        n_pieces += 1;
        // Outputs of no bytes (empty tensors) get an empty slice.
        for (k, (slot, e)) in out.iter_mut().zip(empty.iter_mut()).enumerate().take(n_out) {
            if slot.is_none() {
                *slot = Some(&mut e[..]);
            }
            let _ = k;
        }
        let mut out_len = [None; MAX_OUTPUTS];
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
                model: self.model.bytes(),
            };
            (kernel.eval)(&mut ctx).map_err(fail)?;
        }
        // String outputs: record their encoded length.
        for (k, &t) in outputs.iter().enumerate() {
            let Some(r) = usize::try_from(t).ok().and_then(|t| records.get_mut(t)) else {
                continue;
            };
            if let Some(len) = out_len[k] {
                r.len = len.min(r.bytes);
                r.written = 1;
            }
        }
        Ok(())
    }
}
