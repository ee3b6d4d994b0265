//! The float32 and hybrid (int8 weights) LSTM steps: LiteRT's `LstmStepFloat` and
//! `LstmStepHybrid` (`lstm_eval.cc`), one direction over the whole sequence.
//!
//! Each gate is `act(bias + W x + W_aux x_aux + R h + p * c)` (with layer normalization:
//! `act(ln(W x + ... ) * gamma + bias)`), summed as the reference does: the bias first, then
//! each product's dot product (accumulated from zero) added to it. The hybrid step quantizes
//! the input, the auxiliary input and the output state per batch on the fly (symmetric or
//! asymmetric int8) and scales each int32 dot product back to float.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::{Dir, OutputRows, Sizes, Slots, flag};
use super::super::base::check::SHORT;
use super::super::base::recurrent::panel::panel_matmul_acc;
use super::super::base::recurrent::{
    Walk,
    Carve, FloatActivation, assign_batches, carved_bytes, first, first_mut, hybrid_matmul_acc,
    is_zero, matmul_acc, quantize_batches, row_sums, single_scale, total_bytes,
};
use crate::interpreter::{Eval, KernelError, Prepare};

/// One direction's weights: float32 (`f`) or int8 (`q`, hybrid), by gate (input, forget,
/// cell, output).
pub(super) struct Operands<'a> {
    pub input_f: [Option<&'a [f32]>; 4],
    /// `input_f` packed transposed ([`super::packed`]), where the options pack weights.
    pub input_t: [Option<&'a [f32]>; 4],
    pub input_q: [Option<&'a [i8]>; 4],
    pub aux_f: [Option<&'a [f32]>; 4],
    pub aux_q: [Option<&'a [i8]>; 4],
    pub recurrent_f: [Option<&'a [f32]>; 4],
    /// `recurrent_f` packed transposed (not the diagonal ones).
    pub recurrent_t: [Option<&'a [f32]>; 4],
    pub recurrent_q: [Option<&'a [i8]>; 4],
    pub peephole_f: [Option<&'a [f32]>; 4],
    pub peephole_q: [Option<&'a [i8]>; 4],
    pub bias: [Option<&'a [f32]>; 4],
    pub layer_norm: [Option<&'a [f32]>; 4],
    pub projection_f: Option<&'a [f32]>,
    pub projection_q: Option<&'a [i8]>,
    pub projection_bias: Option<&'a [f32]>,
    pub dir: Dir,
}

impl<'a> Operands<'a> {
    /// Reads direction `s`'s operands (`hybrid`: int8 weights).
    pub(super) fn read(
        ctx: &Eval<'a>,
        s: Slots,
        dir: &Dir,
        hybrid: bool,
    ) -> Result<Self, KernelError> {
        let cifg = dir.has(flag::CIFG);
        let peephole = dir.has(flag::PEEPHOLE);
        let f = |k: usize| ctx.input::<f32>(k).map(Some);
        let q = |k: usize| ctx.input::<i8>(k).map(Some);
        let mut o = Operands {
            input_f: [None; 4],
            input_t: [None; 4],
            input_q: [None; 4],
            aux_f: [None; 4],
            aux_q: [None; 4],
            recurrent_f: [None; 4],
            recurrent_t: [None; 4],
            recurrent_q: [None; 4],
            peephole_f: [None; 4],
            peephole_q: [None; 4],
            bias: [None; 4],
            layer_norm: [None; 4],
            projection_f: None,
            projection_q: None,
            projection_bias: None,
            dir: *dir,
        };
        for g in 0..4 {
            if g == 0 && cifg {
                continue;
            }
            let aux = if dir.has(flag::AUX) {
                s.aux_weights.map(|a| a + g)
            } else {
                None
            };
            if hybrid {
                o.input_q[g] = q(s.input_to(g))?;
                o.recurrent_q[g] = q(s.recurrent_to(g))?;
                if let Some(a) = aux {
                    o.aux_q[g] = q(a)?;
                }
                if peephole && g != 2 {
                    o.peephole_q[g] = q(s.cell_to(g))?;
                }
            } else {
                o.input_f[g] = f(s.input_to(g))?;
                o.recurrent_f[g] = f(s.recurrent_to(g))?;
                if let Some(a) = aux {
                    o.aux_f[g] = f(a)?;
                }
                if peephole && g != 2 {
                    o.peephole_f[g] = f(s.cell_to(g))?;
                }
            }
            o.bias[g] = f(s.bias(g))?;
            if dir.has(flag::LAYER_NORM) {
                if let Some(at) = s.layer_norm {
                    o.layer_norm[g] = f(at + g)?;
                }
            }
        }
        if dir.has(flag::PROJECTION) {
            if hybrid {
                o.projection_q = q(s.projection())?;
            } else {
                o.projection_f = f(s.projection())?;
            }
            if dir.has(flag::PROJECTION_BIAS) {
                o.projection_bias = f(s.projection_bias())?;
            }
        }
        Ok(o)
    }
}

/// A hybrid direction's weight scales (its int8 weights are per-tensor), kept in the
/// persistent block: `init` reads them from the model.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Scales {
    pub input: [f32; 4],
    pub aux: [f32; 4],
    pub recurrent: [f32; 4],
    pub peephole: [f32; 4],
    pub projection: f32,
    _pad: [f32; 3],
}

impl Scales {
    /// Direction `s`'s scales (1 for absent weights, as `GetTensorScale`).
    pub(super) fn of(ctx: &Prepare<'_>, s: Slots, dir: &Dir) -> Result<Self, KernelError> {
        let scale = |k: usize| ctx.optional_input(k).map_or(Ok(1.0), |d| single_scale(&d));
        let mut out = Scales::default();
        for g in 0..4 {
            out.input[g] = scale(s.input_to(g))?;
            out.recurrent[g] = scale(s.recurrent_to(g))?;
            out.aux[g] = match s.aux_weights {
                Some(a) if dir.has(flag::AUX) => scale(a + g)?,
                _ => 1.0,
            };
            out.peephole[g] = if g == 2 || !dir.has(flag::PEEPHOLE) {
                1.0
            } else {
                scale(s.cell_to(g))?
            };
        }
        out.projection = if dir.has(flag::PROJECTION) {
            scale(s.projection())?
        } else {
            1.0
        };
        Ok(out)
    }
}

/// What both directions share.
pub(super) struct Common {
    pub activation: FloatActivation,
    pub cell_clip: f32,
    pub proj_clip: f32,
    pub asymmetric: bool,
    /// The batch (the states hold one row per batch).
    pub total_batches: usize,
}

/// The sequence one direction reads.
pub(super) struct Sequence<'a> {
    pub input: &'a [f32],
    pub aux: Option<&'a [f32]>,
    pub walk: Walk,
    pub sizes: Sizes,
}

/// The gate buffers: `batches * cell` each (the input gate's empty for CIFG).
fn gate_count(dir: &Dir) -> usize {
    if dir.has(flag::CIFG) { 3 } else { 4 }
}

/// Scratch bytes of a float direction.
pub(super) fn scratch_bytes(s: &Sizes, dir: &Dir) -> Option<usize> {
    let gate = carved_bytes::<f32>(s.batches.checked_mul(s.cell)?)?;
    gate.checked_mul(gate_count(dir))
}

/// The hybrid buffers, in carving order.
struct HybridSizes {
    q_input: usize,
    q_aux: usize,
    q_state: usize,
    q_hidden: usize,
    per_batch: usize,
    recovered: usize,
    row_sums: usize,
}

fn hybrid_sizes(s: &Sizes) -> Option<HybridSizes> {
    Some(HybridSizes {
        q_input: s.batches.checked_mul(s.input)?,
        q_aux: s.batches.checked_mul(s.aux)?,
        q_state: s.batches.checked_mul(s.output)?,
        q_hidden: s.batches.checked_mul(s.cell)?,
        per_batch: s.batches,
        recovered: s.cell,
        // Input, auxiliary and recurrent rows of four gates, and the projection's.
        row_sums: s.cell.checked_mul(12)?.checked_add(s.output)?,
    })
}

/// Scratch bytes of a hybrid direction.
pub(super) fn hybrid_scratch_bytes(s: &Sizes, dir: &Dir) -> Option<usize> {
    let h = hybrid_sizes(s)?;
    let pb = |n| carved_bytes::<f32>(n);
    total_bytes(&[
        scratch_bytes(s, dir),
        carved_bytes::<i8>(h.q_input),
        carved_bytes::<i8>(h.q_aux),
        carved_bytes::<i8>(h.q_state),
        carved_bytes::<i8>(h.q_hidden),
        // Scaling factors: input, aux, state, product; zero points: input, aux, state.
        pb(h.per_batch),
        pb(h.per_batch),
        pb(h.per_batch),
        pb(h.per_batch),
        carved_bytes::<i32>(h.per_batch),
        carved_bytes::<i32>(h.per_batch),
        carved_bytes::<i32>(h.per_batch),
        pb(h.recovered),
        carved_bytes::<i32>(h.row_sums),
    ])
}

/// The hybrid step's buffers.
struct Hybrid<'s> {
    q_input: &'s mut [i8],
    q_aux: &'s mut [i8],
    q_state: &'s mut [i8],
    q_hidden: &'s mut [i8],
    input_sf: &'s mut [f32],
    aux_sf: &'s mut [f32],
    state_sf: &'s mut [f32],
    product: &'s mut [f32],
    input_zp: &'s mut [i32],
    aux_zp: &'s mut [i32],
    state_zp: &'s mut [i32],
    recovered: &'s mut [f32],
    /// Row sums (asymmetric inputs): per gate, input's, auxiliary's, recurrent's; then the
    /// projection's.
    sums: &'s mut [i32],
}

/// Runs one direction over the sequence: updates `h` and `c` (the variables) and writes its
/// output rows.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    w: &Operands<'_>,
    scales: &Scales,
    common: &Common,
    seq: Sequence<'_>,
    h: &mut [f32],
    c: &mut [f32],
    out: &mut [f32],
    rows: OutputRows,
    mut carve: Carve<'_>,
) -> Result<(), KernelError> {
    let s = seq.sizes;
    let dir = w.dir;
    let n = s.batches.checked_mul(s.cell).ok_or(SHORT)?;
    let cifg = dir.has(flag::CIFG);
    let mut gates: [&mut [f32]; 4] = [&mut [], &mut [], &mut [], &mut []];
    for (g, buf) in gates.iter_mut().enumerate() {
        if !(g == 0 && cifg) {
            *buf = carve.take::<f32>(n)?;
        }
    }
    let hybrid = w.input_q[1].is_some();
    let mut hy = if hybrid {
        let hs = hybrid_sizes(&s).ok_or(SHORT)?;
        let hy = Hybrid {
            q_input: carve.take(hs.q_input)?,
            q_aux: carve.take(hs.q_aux)?,
            q_state: carve.take(hs.q_state)?,
            q_hidden: carve.take(hs.q_hidden)?,
            input_sf: carve.take(hs.per_batch)?,
            aux_sf: carve.take(hs.per_batch)?,
            state_sf: carve.take(hs.per_batch)?,
            product: carve.take(hs.per_batch)?,
            input_zp: carve.take(hs.per_batch)?,
            aux_zp: carve.take(hs.per_batch)?,
            state_zp: carve.take(hs.per_batch)?,
            recovered: carve.take(hs.recovered)?,
            sums: carve.take(hs.row_sums)?,
        };
        if common.asymmetric {
            hybrid_row_sums(w, &s, hy.sums)?;
        }
        // The zero points are read only when asymmetric; symmetric quantization sets them
        // to 0 anyway.
        hy.input_zp.fill(0);
        Some(hy)
    } else {
        None
    };
    let total = common.total_batches;
    let h = first_mut(h, total.checked_mul(s.output).ok_or(SHORT)?)?;
    let c = first_mut(c, total.checked_mul(s.cell).ok_or(SHORT)?)?;
    for (b, t) in seq.walk.steps() {
        let x_at = seq.walk.at(b, t, s.input).ok_or(SHORT)?;
        let x = seq
            .input
            .get(x_at..)
            .and_then(|v| v.get(..s.batches * s.input))
            .ok_or(SHORT)?;
        let aux = match seq.aux {
            Some(a) if s.aux > 0 => {
                let at = seq.walk.at(b, t, s.aux).ok_or(SHORT)?;
                Some(
                    a.get(at..)
                        .and_then(|v| v.get(..s.batches * s.aux))
                        .ok_or(SHORT)?,
                )
            }
            _ => None,
        };
        // This step's state rows: the whole batch (time-major) or batch `b`'s.
        let (hs, cs) = (b * s.output, b * s.cell);
        let hb = h.get_mut(hs..hs + s.batches * s.output).ok_or(SHORT)?;
        let cb = c.get_mut(cs..cs + s.batches * s.cell).ok_or(SHORT)?;
        match hy.as_mut() {
            None => step_float(w, common, &s, x, aux, hb, cb, &mut gates)?,
            Some(hy) => step_hybrid(w, scales, common, &s, x, aux, hb, cb, &mut gates, hy)?,
        }
        // Copy the new output state to the output rows.
        let row0 = seq.walk.at(b, t, 1).ok_or(SHORT)?;
        for k in 0..s.batches {
            let at = (row0 + k)
                .checked_mul(rows.stride)
                .and_then(|v| v.checked_add(rows.offset))
                .ok_or(SHORT)?;
            let dst = out.get_mut(at..at + s.output).ok_or(SHORT)?;
            dst.copy_from_slice(&hb[k * s.output..k * s.output + s.output]);
        }
    }
    Ok(())
}

/// `CwiseClipping` (float): `max(min(clip, v), -clip)` with `std::min`/`std::max`'s choices
/// (a NaN becomes `clip`).
fn clip_all(v: &mut [f32], clip: f32) {
    for x in v {
        let m = if *x < clip { *x } else { clip };
        *x = if m < -clip { -clip } else { m };
    }
}

/// `MeanStddevNormalization` of each of `batches` rows of `n`.
fn normalize(v: &mut [f32], n: usize) {
    if n == 0 {
        return;
    }
    for row in v.chunks_exact_mut(n) {
        let mut sum = 0.0f32;
        for &x in row.iter() {
            sum += x;
        }
        let mean = sum / n as f32;
        let mut sq = 0.0f32;
        for &x in row.iter() {
            let d = x - mean;
            sq += d * d;
        }
        let variance = sq / n as f32;
        let inv = 1.0 / libm::sqrtf(variance + 1e-8);
        for x in row.iter_mut() {
            *x = (*x - mean) * inv;
        }
    }
}

/// Layer normalization of a gate, then its coefficients and bias: `ln(v) * gamma + bias`.
fn layer_norm(
    gate: &mut [f32],
    gamma: &[f32],
    bias: &[f32],
    cell: usize,
) -> Result<(), KernelError> {
    normalize(gate, cell);
    let (gamma, bias) = (first(gamma, cell)?, first(bias, cell)?);
    if cell > 0 {
        for row in gate.chunks_exact_mut(cell) {
            for ((x, g), b) in row.iter_mut().zip(gamma).zip(bias) {
                *x *= g;
                *x += b;
            }
        }
    }
    Ok(())
}

/// `gate[b, i] += v[i] * batch[b, i]` (`VectorBatchVectorCwiseProductAccumulate`, float).
fn diagonal_acc(v: &[f32], batch: &[f32], n: usize, gate: &mut [f32]) -> Result<(), KernelError> {
    let v = first(v, n)?;
    if n == 0 {
        return Ok(());
    }
    let batch = first(batch, gate.len())?;
    for (g_row, b_row) in gate.chunks_exact_mut(n).zip(batch.chunks_exact(n)) {
        for ((g, w), x) in g_row.iter_mut().zip(v).zip(b_row) {
            *g += w * x;
        }
    }
    Ok(())
}

/// `CalculateLstmGateFloat`.
#[allow(clippy::too_many_arguments)]
fn gate_float(
    w: &Operands<'_>,
    g: usize,
    s: &Sizes,
    x: &[f32],
    x_zero: bool,
    aux: Option<(&[f32], bool)>,
    h: &[f32],
    c: Option<&[f32]>,
    act: FloatActivation,
    gate: &mut [f32],
) -> Result<(), KernelError> {
    let ln = w.layer_norm[g];
    let bias = w.bias[g].ok_or(SHORT)?;
    if ln.is_some() {
        gate.fill(0.0);
    } else {
        assign_batches(bias, s.cell, s.batches, gate)?;
    }
    if !x_zero {
        match w.input_t[g] {
            Some(t) => panel_matmul_acc(t, s.cell, s.input, x, s.batches, gate)?,
            None => matmul_acc(w.input_f[g].ok_or(SHORT)?, s.cell, s.input, x, s.batches, gate)?,
        }
    }
    if let (Some((a, a_zero)), Some(wa)) = (aux, w.aux_f[g]) {
        if !a_zero {
            matmul_acc(wa, s.cell, s.aux, a, s.batches, gate)?;
        }
    }
    let r = w.recurrent_f[g].ok_or(SHORT)?;
    if w.dir.diagonal(g) {
        diagonal_acc(r, h, s.cell, gate)?;
    } else if let Some(t) = w.recurrent_t[g] {
        panel_matmul_acc(t, s.cell, s.output, h, s.batches, gate)?;
    } else {
        matmul_acc(r, s.cell, s.output, h, s.batches, gate)?;
    }
    if let (Some(p), Some(c)) = (w.peephole_f[g], c) {
        diagonal_acc(p, c, s.cell, gate)?;
    }
    if let Some(gamma) = ln {
        layer_norm(gate, gamma, bias, s.cell)?;
    }
    act.apply_all(gate);
    Ok(())
}

/// `UpdateLstmCellFloat`: `c = f c + i g` (`(1 - f) g` for CIFG), clipped.
fn update_cell(c: &mut [f32], gates: &mut [&mut [f32]; 4], cifg: bool, clip: f32) {
    let [i, f, g, _] = gates;
    for (c, f) in c.iter_mut().zip(f.iter()) {
        *c *= *f;
    }
    if cifg {
        for v in f.iter_mut() {
            *v = 1.0 - *v;
        }
        for ((c, g), f) in c.iter_mut().zip(g.iter()).zip(f.iter()) {
            *c += *g * *f;
        }
    } else {
        for ((c, g), i) in c.iter_mut().zip(g.iter()).zip(i.iter()) {
            *c += *g * *i;
        }
    }
    if clip > 0.0 {
        clip_all(c, clip);
    }
}

/// One float step (`LstmStepFloat`) over `s.batches` vectors.
#[allow(clippy::too_many_arguments)]
fn step_float(
    w: &Operands<'_>,
    common: &Common,
    s: &Sizes,
    x: &[f32],
    aux: Option<&[f32]>,
    h: &mut [f32],
    c: &mut [f32],
    gates: &mut [&mut [f32]; 4],
) -> Result<(), KernelError> {
    let x_zero = is_zero(x);
    let aux = aux.map(|a| (a, is_zero(a)));
    let peep = w.dir.has(flag::PEEPHOLE).then_some(&*c);
    let sigmoid = FloatActivation::Sigmoid;
    if !w.dir.has(flag::CIFG) {
        gate_float(w, 0, s, x, x_zero, aux, h, peep, sigmoid, gates[0])?;
    }
    gate_float(w, 1, s, x, x_zero, aux, h, peep, sigmoid, gates[1])?;
    gate_float(w, 2, s, x, x_zero, aux, h, None, common.activation, gates[2])?;
    update_cell(c, gates, w.dir.has(flag::CIFG), common.cell_clip);
    let peep = w.dir.has(flag::PEEPHOLE).then_some(&*c);
    gate_float(w, 3, s, x, x_zero, aux, h, peep, sigmoid, gates[3])?;
    // CalculateLstmOutputFloat: o * act(c) in the cell gate's buffer, projected or copied.
    let [_, _, hidden, o] = gates;
    {
        let n = hidden.len().min(c.len());
        let (act, cells) = (&mut hidden[..n], &c[..n]);
        act.copy_from_slice(cells);
        common.activation.apply_all(act);
    }
    for (v, o) in hidden.iter_mut().zip(o.iter()) {
        *v *= *o;
    }
    match w.projection_f {
        Some(p) => {
            match w.projection_bias {
                Some(b) => assign_batches(b, s.output, s.batches, h)?,
                None => h.fill(0.0),
            }
            matmul_acc(p, s.output, s.cell, hidden, s.batches, h)?;
            if common.proj_clip > 0.0 {
                clip_all(h, common.proj_clip);
            }
        }
        None => h.copy_from_slice(first(hidden, h.len())?),
    }
    Ok(())
}

/// Row sums of the hybrid weights (asymmetric inputs), laid out as [`Hybrid::sums`].
fn hybrid_row_sums(w: &Operands<'_>, s: &Sizes, sums: &mut [i32]) -> Result<(), KernelError> {
    for g in 0..4 {
        let base = g * 3 * s.cell;
        let part = |k: usize| base + k * s.cell;
        if let Some(m) = w.input_q[g] {
            row_sums(m, s.cell, s.input, sums.get_mut(part(0)..).ok_or(SHORT)?)?;
        }
        if let Some(m) = w.aux_q[g] {
            row_sums(m, s.cell, s.aux, sums.get_mut(part(1)..).ok_or(SHORT)?)?;
        }
        if let Some(m) = w.recurrent_q[g] {
            row_sums(m, s.cell, s.output, sums.get_mut(part(2)..).ok_or(SHORT)?)?;
        }
    }
    if let Some(m) = w.projection_q {
        let at = 12 * s.cell;
        row_sums(m, s.output, s.cell, sums.get_mut(at..).ok_or(SHORT)?)?;
    }
    Ok(())
}

/// One hybrid product accumulated into `gate`: `factor[b] = vector_sf[b] * weight_scale`,
/// then the scaled int8 dot products (less the zero point's share when asymmetric).
#[allow(clippy::too_many_arguments)]
fn hybrid_acc(
    m: &[i8],
    rows: usize,
    cols: usize,
    q: &[i8],
    sf: &[f32],
    zp: &[i32],
    scale: f32,
    sums: Option<&[i32]>,
    product: &mut [f32],
    batches: usize,
    gate: &mut [f32],
) -> Result<(), KernelError> {
    let product = first_mut(product, batches)?;
    for (p, &f) in product.iter_mut().zip(first(sf, batches)?) {
        *p = f * scale;
    }
    hybrid_matmul_acc(
        m,
        rows,
        cols,
        q,
        product,
        sums.map(|s| (zp, s)),
        batches,
        gate,
    )
}

/// What a hybrid gate reads of the step's quantized vectors.
struct Quantized<'q> {
    x: Option<(&'q [i8], &'q [f32], &'q [i32])>,
    aux: Option<(&'q [i8], &'q [f32], &'q [i32])>,
    h: Option<(&'q [i8], &'q [f32], &'q [i32])>,
}

/// `CalculateLstmGateHybrid`.
#[allow(clippy::too_many_arguments)]
fn gate_hybrid(
    w: &Operands<'_>,
    scales: &Scales,
    g: usize,
    s: &Sizes,
    qv: &Quantized<'_>,
    sums: Option<&[i32]>,
    c: Option<&[f32]>,
    act: FloatActivation,
    product: &mut [f32],
    recovered: &mut [f32],
    gate: &mut [f32],
) -> Result<(), KernelError> {
    let ln = w.layer_norm[g];
    let bias = w.bias[g].ok_or(SHORT)?;
    if ln.is_some() {
        gate.fill(0.0);
    } else {
        assign_batches(bias, s.cell, s.batches, gate)?;
    }
    let part = |k: usize| -> Result<Option<&[i32]>, KernelError> {
        match sums {
            Some(all) => {
                let at = (g * 3 + k) * s.cell;
                Ok(Some(all.get(at..at + s.cell).ok_or(SHORT)?))
            }
            None => Ok(None),
        }
    };
    if let Some((q, sf, zp)) = qv.x {
        let m = w.input_q[g].ok_or(SHORT)?;
        let (rows, cols, scale) = (s.cell, s.input, scales.input[g]);
        hybrid_acc(m, rows, cols, q, sf, zp, scale, part(0)?, product, s.batches, gate)?;
    }
    if let (Some((q, sf, zp)), Some(m)) = (qv.aux, w.aux_q[g]) {
        let (rows, cols, scale) = (s.cell, s.aux, scales.aux[g]);
        hybrid_acc(m, rows, cols, q, sf, zp, scale, part(1)?, product, s.batches, gate)?;
    }
    if let Some((q, sf, zp)) = qv.h {
        let m = w.recurrent_q[g].ok_or(SHORT)?;
        let (rows, cols, scale) = (s.cell, s.output, scales.recurrent[g]);
        hybrid_acc(m, rows, cols, q, sf, zp, scale, part(2)?, product, s.batches, gate)?;
    }
    if let (Some(p), Some(c)) = (w.peephole_q[g], c) {
        // VectorScalarMultiply: the int8 weights recovered to float, then the product.
        let p = first(p, s.cell)?;
        let rec = first_mut(recovered, s.cell)?;
        for (r, &q) in rec.iter_mut().zip(p) {
            *r = scales.peephole[g] * f32::from(q);
        }
        diagonal_acc(rec, c, s.cell, gate)?;
    }
    if let Some(gamma) = ln {
        layer_norm(gate, gamma, bias, s.cell)?;
    }
    act.apply_all(gate);
    Ok(())
}

/// One hybrid step (`LstmStepHybrid`).
#[allow(clippy::too_many_arguments)]
fn step_hybrid(
    w: &Operands<'_>,
    scales: &Scales,
    common: &Common,
    s: &Sizes,
    x: &[f32],
    aux: Option<&[f32]>,
    h: &mut [f32],
    c: &mut [f32],
    gates: &mut [&mut [f32]; 4],
    hy: &mut Hybrid<'_>,
) -> Result<(), KernelError> {
    let asym = common.asymmetric;
    let x_zero = is_zero(x);
    let aux_zero = aux.is_none_or(is_zero);
    let h_zero = is_zero(h);
    let b = s.batches;
    if !x_zero {
        quantize_batches(x, b, s.input, hy.q_input, hy.input_sf, hy.input_zp, asym)?;
    }
    if let (Some(a), false) = (aux, aux_zero) {
        quantize_batches(a, b, s.aux, hy.q_aux, hy.aux_sf, hy.aux_zp, asym)?;
    }
    if !h_zero {
        quantize_batches(h, b, s.output, hy.q_state, hy.state_sf, hy.state_zp, asym)?;
    }
    let sums = if asym { Some(&*hy.sums) } else { None };
    let qv = Quantized {
        x: (!x_zero).then_some((&*hy.q_input, &*hy.input_sf, &*hy.input_zp)),
        aux: (!aux_zero).then_some((&*hy.q_aux, &*hy.aux_sf, &*hy.aux_zp)),
        h: (!h_zero).then_some((&*hy.q_state, &*hy.state_sf, &*hy.state_zp)),
    };
    let peep = w.dir.has(flag::PEEPHOLE);
    let sigmoid = FloatActivation::Sigmoid;
    let (product, recovered) = (&mut *hy.product, &mut *hy.recovered);
    let cifg = w.dir.has(flag::CIFG);
    {
        let cp = peep.then_some(&*c);
        if !cifg {
            gate_hybrid(w, scales, 0, s, &qv, sums, cp, sigmoid, product, recovered, gates[0])?;
        }
        gate_hybrid(w, scales, 1, s, &qv, sums, cp, sigmoid, product, recovered, gates[1])?;
        let act = common.activation;
        gate_hybrid(w, scales, 2, s, &qv, sums, None, act, product, recovered, gates[2])?;
    }
    update_cell(c, gates, cifg, common.cell_clip);
    let cp = peep.then_some(&*c);
    gate_hybrid(w, scales, 3, s, &qv, sums, cp, sigmoid, product, recovered, gates[3])?;
    // CalculateLstmOutputHybrid.
    let [_, _, hidden, o] = gates;
    {
        let n = hidden.len().min(c.len());
        let (act, cells) = (&mut hidden[..n], &c[..n]);
        act.copy_from_slice(cells);
        common.activation.apply_all(act);
    }
    for (v, o) in hidden.iter_mut().zip(o.iter()) {
        *v *= *o;
    }
    match w.projection_q {
        Some(p) => {
            match w.projection_bias {
                Some(pb) => assign_batches(pb, s.output, b, h)?,
                None => h.fill(0.0),
            }
            if !is_zero(hidden) {
                // The reference quantizes the hidden state into the input's scaling factor
                // and zero point buffers.
                quantize_batches(hidden, b, s.cell, hy.q_hidden, hy.input_sf, hy.input_zp, asym)?;
                let psums = if asym {
                    let at = 12 * s.cell;
                    Some(hy.sums.get(at..at + s.output).ok_or(SHORT)?)
                } else {
                    None
                };
                hybrid_acc(
                    p,
                    s.output,
                    s.cell,
                    hy.q_hidden,
                    hy.input_sf,
                    hy.input_zp,
                    scales.projection,
                    psums,
                    product,
                    b,
                    h,
                )?;
            }
            if common.proj_clip > 0.0 {
                clip_all(h, common.proj_clip);
            }
        }
        None => h.copy_from_slice(first(hidden, h.len())?),
    }
    Ok(())
}
