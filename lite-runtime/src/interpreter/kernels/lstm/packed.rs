//! A float LSTM's input and recurrent weights packed into transposed panels
//! ([`panel`](super::super::base::recurrent::panel)) when the interpreter's options ask for
//! packing and the weights cannot change: kept in the operator's persistent bytes (a 16-byte
//! flag, then each direction's panels), filled at the first invoke and after a reset. Each
//! step's gate products then run eight units to a register.
//!
//! Panels, in order, per direction: for each gate present (not CIFG's input gate) the input
//! weights' (`cell x input`), then the recurrent weights' (`cell x output`) unless they are
//! diagonal (a vector: left as they are).
//!
//! The integer LSTM's int8 weights pack into pair panels the same way (after its quantized
//! parameters, [`int_at`]): the four gates' input weights, their recurrent weights, then the
//! projection's (`output x cell`), each where present.

use super::super::base::check::SHORT;
use super::super::base::recurrent::panel::{pack, pack_pairs, panel_len, pairs_len};
use super::float::Operands;
use super::{Dir, Slots, flag};
use crate::interpreter::{Eval, KernelError, Prepare};

/// Whether gate `g` of `d` has weights (CIFG has no input gate).
fn present(d: &Dir, g: usize) -> bool {
    !(g == 0 && d.has(flag::CIFG))
}

/// Floats of direction `d`'s panels for an input of `input` values; `None` past `usize`.
pub(super) fn len(input: usize, d: &Dir) -> Option<usize> {
    let (cell, output) = (d.cell as usize, d.output as usize);
    (0..4).filter(|&g| present(d, g)).try_fold(0usize, |n, g| {
        let recurrent = if d.diagonal(g) {
            0
        } else {
            panel_len(cell, output)?
        };
        n.checked_add(panel_len(cell, input)?)?
            .checked_add(recurrent)
    })
}

/// Whether the weights a direction's panels hold cannot change: constants, or DEQUANTIZE
/// outputs of constants (float16 or int8 weights).
pub(super) fn fixed(ctx: &Prepare<'_>, s: Slots, d: &Dir) -> bool {
    let fixed = |k: usize| {
        ctx.input(k).is_ok_and(|t| {
            t.constant().is_some() && !t.tensor.is_variable() || ctx.dequantizes_a_constant(t.index)
        })
    };
    (0..4).filter(|&g| present(d, g)).all(|g| {
        fixed(s.input_to(g)) && (d.diagonal(g) || fixed(s.recurrent_to(g)))
    })
}

/// Writes `w`'s panels (a direction with inputs of `input` values) into `out`, in [`len`]'s
/// order.
///
/// # Errors
/// [`SHORT`] if a weight or `out` is shorter than the sizes.
pub(super) fn fill(w: &Operands<'_>, input: usize, out: &mut [f32]) -> Result<(), KernelError> {
    let d = &w.dir;
    let (cell, output) = (d.cell as usize, d.output as usize);
    let mut rest = out;
    let mut put = |m: Option<&[f32]>, cols: usize| -> Result<(), KernelError> {
        let n = panel_len(cell, cols).ok_or(SHORT)?;
        let (panel, tail) = core::mem::take(&mut rest).split_at_mut_checked(n).ok_or(SHORT)?;
        rest = tail;
        pack(m.ok_or(SHORT)?, cell, cols, panel)
    };
    for g in (0..4).filter(|&g| present(d, g)) {
        put(w.input_f[g], input)?;
        if !d.diagonal(g) {
            put(w.recurrent_f[g], output)?;
        }
    }
    Ok(())
}

/// Points `w`'s panels (`input_t`, `recurrent_t`) at `packed`, laid out by [`fill`].
///
/// # Errors
/// [`SHORT`] if `packed` is shorter than [`len`].
pub(super) fn attach<'a>(
    w: &mut Operands<'a>,
    input: usize,
    packed: &'a [f32],
) -> Result<(), KernelError> {
    let d = w.dir;
    let (cell, output) = (d.cell as usize, d.output as usize);
    let mut rest = packed;
    let mut take = |cols: usize| -> Result<&'a [f32], KernelError> {
        let n = panel_len(cell, cols).ok_or(SHORT)?;
        let (panel, tail) = rest.split_at_checked(n).ok_or(SHORT)?;
        rest = tail;
        Ok(panel)
    };
    for g in (0..4).filter(|&g| present(&d, g)) {
        w.input_t[g] = Some(take(input)?);
        if !d.diagonal(g) {
            w.recurrent_t[g] = Some(take(output)?);
        }
    }
    Ok(())
}

/// An integer direction's int8 matrices in pair-panel order, as `(operand, rows, cols)`:
/// index `g` the input weights of gate `g`, `4 + g` its recurrent weights, 8 the
/// projection; `None` where absent.
pub(super) fn int_matrices(s: Slots, input: usize, d: &Dir) -> [Option<(usize, usize, usize)>; 9] {
    let (cell, output) = (d.cell as usize, d.output as usize);
    let mut m = [None; 9];
    for g in (0..4).filter(|&g| present(d, g)) {
        m[g] = Some((s.input_to(g), cell, input));
        m[4 + g] = Some((s.recurrent_to(g), cell, output));
    }
    if d.has(flag::PROJECTION) {
        m[8] = Some((s.projection(), output, cell));
    }
    m
}

/// Where an integer LSTM's pack flag starts in its persistent bytes: after its `params`
/// bytes of quantized parameters, on a 16-byte boundary (the panels follow the flag's 16).
pub(super) const fn int_at(params: usize) -> usize {
    params.div_ceil(16) * 16
}

/// Bytes of an integer direction's pair panels; `None` past `usize`.
pub(super) fn int_len(s: Slots, input: usize, d: &Dir) -> Option<usize> {
    int_matrices(s, input, d)
        .iter()
        .flatten()
        .try_fold(0usize, |n, &(_, rows, cols)| n.checked_add(pairs_len(rows, cols)?))
}

/// Whether an integer direction's int8 weights are constants.
pub(super) fn int_fixed(ctx: &Prepare<'_>, s: Slots, input: usize, d: &Dir) -> bool {
    int_matrices(s, input, d).iter().flatten().all(|&(k, _, _)| {
        ctx.input(k)
            .is_ok_and(|t| t.constant().is_some() && !t.tensor.is_variable())
    })
}

/// Writes an integer direction's pair panels into `out`, from its weights.
///
/// # Errors
/// [`SHORT`] if a weight or `out` is shorter than the sizes; a weight's type error.
pub(super) fn int_fill(
    ctx: &Eval<'_>,
    s: Slots,
    input: usize,
    d: &Dir,
    out: &mut [i8],
) -> Result<(), KernelError> {
    let mut rest = out;
    for &(k, rows, cols) in int_matrices(s, input, d).iter().flatten() {
        let n = pairs_len(rows, cols).ok_or(SHORT)?;
        let (panel, tail) = core::mem::take(&mut rest).split_at_mut_checked(n).ok_or(SHORT)?;
        rest = tail;
        pack_pairs(ctx.input::<i8>(k)?, rows, cols, panel)?;
    }
    Ok(())
}

/// An integer direction's pair panels in `packed` (laid out by [`int_fill`]), indexed as
/// [`int_matrices`].
///
/// # Errors
/// [`SHORT`] if `packed` is shorter than [`int_len`].
pub(super) fn int_panels<'a>(
    s: Slots,
    input: usize,
    d: &Dir,
    packed: &'a [i8],
) -> Result<[Option<&'a [i8]>; 9], KernelError> {
    let mut panels = [None; 9];
    let mut rest = packed;
    for (panel, m) in panels.iter_mut().zip(int_matrices(s, input, d)) {
        if let Some((_, rows, cols)) = m {
            let n = pairs_len(rows, cols).ok_or(SHORT)?;
            let (p, tail) = rest.split_at_checked(n).ok_or(SHORT)?;
            rest = tail;
            *panel = Some(p);
        }
    }
    Ok(panels)
}
