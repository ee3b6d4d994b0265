//! What the recurrent families (LSTM, RNN, SVDF) share, as LiteRT's `tensor_utils` computes
//! it (the portable bodies its reference build runs): the float matrix-times-batch-of-vectors
//! product accumulated into a result, the float fused activations applied to a vector (TANH
//! and SIGN_BIT included), the on-the-fly quantization of float vectors of the hybrid kernels
//! (`BatchQuantizeFloats`, symmetric or asymmetric) and their int8 products scaled back to
//! float, the state tensors' checks, and the carving of a kernel's one scratch request into
//! typed buffers.
//!
//! Every function takes exact lengths (`rows`, `cols`, `batches`) and checks its slices
//! against them before reading: a short slice is [`SHORT`], never an out-of-bounds access.

use zerocopy::{FromBytes, IntoBytes, KnownLayout};

pub(crate) mod panel;

use super::check::SHORT;
use super::fused::clamp;
use super::math;
use crate::interpreter::{Desc, Eval, KernelError};
use crate::model::{Activation, TensorType};
use tessera_core::tensor::Element;

/// Bytes each typed buffer carved from scratch is aligned to (the arena's scratch is
/// 16-byte aligned, so every piece is too).
const ALIGN: usize = 16;

/// The bytes `n` elements of `T` take in a scratch carved by [`Carve`], padding included;
/// `None` past `usize`.
#[must_use]
pub(crate) fn carved_bytes<T>(n: usize) -> Option<usize> {
    n.checked_mul(size_of::<T>())?
        .checked_add(ALIGN - 1)
        .map(|b| b / ALIGN * ALIGN)
}

/// Sums the [`carved_bytes`] of several pieces; `None` on overflow.
#[must_use]
pub(crate) fn total_bytes(pieces: &[Option<usize>]) -> Option<usize> {
    pieces
        .iter()
        .try_fold(0usize, |acc, p| acc.checked_add((*p)?))
}

/// A kernel's scratch bytes handed out as typed buffers, in the order set-up sized them
/// (with [`carved_bytes`]).
pub(crate) struct Carve<'a> {
    rest: &'a mut [u8],
}

const SCRATCH_SHORT: KernelError = KernelError::Mismatch {
    what: "scratch shorter than the kernel asked for",
};

impl<'a> Carve<'a> {
    /// Carves `bytes`.
    pub(crate) fn new(bytes: &'a mut [u8]) -> Self {
        Self { rest: bytes }
    }

    /// The next `n` elements of `T` (zeroed bytes are not promised: write before reading).
    ///
    /// # Errors
    /// A mismatch if the scratch is shorter or misaligned.
    pub(crate) fn take<T: FromBytes + IntoBytes + KnownLayout>(
        &mut self,
        n: usize,
    ) -> Result<&'a mut [T], KernelError> {
        let bytes = carved_bytes::<T>(n).ok_or(SCRATCH_SHORT)?;
        if bytes > self.rest.len() {
            return Err(SCRATCH_SHORT);
        }
        let rest = core::mem::take(&mut self.rest);
        let (piece, rest) = rest.split_at_mut(bytes);
        self.rest = rest;
        let used = &mut piece[..n * size_of::<T>()];
        if used.is_empty() {
            return Ok(&mut []);
        }
        <[T]>::mut_from_bytes(used).map_err(|_| SCRATCH_SHORT)
    }
}

/// `slice[..n]`, or [`SHORT`].
#[inline]
pub(crate) fn first<T>(slice: &[T], n: usize) -> Result<&[T], KernelError> {
    slice.get(..n).ok_or(SHORT)
}

/// `slice[..n]` to write, or [`SHORT`].
#[inline]
pub(crate) fn first_mut<T>(slice: &mut [T], n: usize) -> Result<&mut [T], KernelError> {
    slice.get_mut(..n).ok_or(SHORT)
}

/// `rows * cols`, checked.
fn area(rows: usize, cols: usize) -> Result<usize, KernelError> {
    rows.checked_mul(cols).ok_or(SHORT)
}

/// `PortableMatrixBatchVectorMultiplyAccumulate` (float): for each of `batches` vectors of
/// `cols` and each of the `rows` rows of `matrix`, `result[b * rows + r] += dot`, the dot
/// product summed from zero in eight lanes ([`math::dot`]; the reference sums in column
/// order, LiteRT's optimized kernels in blocks: float rounding apart, the same).
///
/// # Errors
/// [`SHORT`] if a slice is shorter than its sizes.
pub(crate) fn matmul_acc(
    matrix: &[f32],
    rows: usize,
    cols: usize,
    vectors: &[f32],
    batches: usize,
    result: &mut [f32],
) -> Result<(), KernelError> {
    let matrix = first(matrix, area(rows, cols)?)?;
    let vectors = first(vectors, area(batches, cols)?)?;
    let result = first_mut(result, area(batches, rows)?)?;
    if no_products(rows, cols, batches, result) {
        return Ok(());
    }
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        unsafe { products_avx2(matrix, cols, vectors, result) };
        return Ok(());
    }
    products(matrix, cols, vectors, result);
    Ok(())
}

/// The products' cases with nothing to multiply, which both layouts' products share: no
/// rows or no vectors, nothing to do; no columns, every dot product is +0, added to the
/// result (which keeps each value; a -0 becomes +0, as in C). `true` when handled.
pub(crate) fn no_products(rows: usize, cols: usize, batches: usize, result: &mut [f32]) -> bool {
    if rows == 0 || batches == 0 {
        return true;
    }
    if cols == 0 {
        for r in result.iter_mut() {
            *r += 0.0;
        }
        return true;
    }
    false
}

/// [`products`] compiled for AVX2: the same operations, eight lanes to a register.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn products_avx2(matrix: &[f32], cols: usize, vectors: &[f32], result: &mut [f32]) {
    products(matrix, cols, vectors, result);
}

/// `result[b][r] += dot(matrix row r, vector b)` for every vector (`cols` > 0, the slices of
/// whole rows), four rows at a time.
#[inline(always)]
fn products(matrix: &[f32], cols: usize, vectors: &[f32], result: &mut [f32]) {
    let rows = matrix.len() / cols;
    for (v, out) in vectors
        .chunks_exact(cols)
        .zip(result.chunks_exact_mut(rows))
    {
        let mut quads = matrix.chunks_exact(4 * cols);
        let mut outs = out.chunks_exact_mut(4);
        for (m, o) in (&mut quads).zip(&mut outs) {
            let (r0, rest) = m.split_at(cols);
            let (r1, rest) = rest.split_at(cols);
            let (r2, r3) = rest.split_at(cols);
            for (o, d) in o.iter_mut().zip(math::dot4(v, [r0, r1, r2, r3])) {
                *o += d;
            }
        }
        for (row, o) in quads
            .remainder()
            .chunks_exact(cols)
            .zip(outs.into_remainder())
        {
            *o += math::dot(row, v);
        }
    }
}

/// `VectorBatchVectorAssign`: `batch[b * n + i] = vector[i]` for each of `batches`.
///
/// # Errors
/// [`SHORT`].
pub(crate) fn assign_batches<T: Copy>(
    vector: &[T],
    n: usize,
    batches: usize,
    batch: &mut [T],
) -> Result<(), KernelError> {
    let vector = first(vector, n)?;
    let batch = first_mut(batch, area(batches, n)?)?;
    if n > 0 {
        for chunk in batch.chunks_exact_mut(n) {
            chunk.copy_from_slice(vector);
        }
    }
    Ok(())
}

/// A float activation a recurrent kernel applies to a vector (`ApplyActivationToVector`):
/// the fused activations, TANH and SIGN_BIT included.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum FloatActivation {
    /// None.
    None = 0,
    /// `max(x, 0)`.
    Relu = 1,
    /// `clamp(x, -1, 1)`.
    ReluN1To1 = 2,
    /// `clamp(x, 0, 6)`.
    Relu6 = 3,
    /// `tanh(x)`.
    Tanh = 4,
    /// 1 where the sign bit is set, else 0.
    SignBit = 5,
    /// `1 / (1 + exp(-x))` (the gates').
    Sigmoid = 6,
}

impl FloatActivation {
    /// The activation of an options field.
    ///
    /// # Errors
    /// [`KernelError::Unsupported`] for a value the schema does not define.
    pub(crate) fn from_option(a: Activation) -> Result<Self, KernelError> {
        Ok(match a {
            Activation::None => Self::None,
            Activation::Relu => Self::Relu,
            Activation::ReluN1To1 => Self::ReluN1To1,
            Activation::Relu6 => Self::Relu6,
            Activation::Tanh => Self::Tanh,
            Activation::SignBit => Self::SignBit,
            Activation::Other(_) => {
                return Err(KernelError::Unsupported {
                    what: "fused activation",
                });
            }
        })
    }

    /// The activation a kernel stored as `code` (its `as u8`); `None` for another byte.
    #[must_use]
    pub(crate) fn from_code(code: u8) -> Self {
        match code {
            1 => Self::Relu,
            2 => Self::ReluN1To1,
            3 => Self::Relu6,
            4 => Self::Tanh,
            5 => Self::SignBit,
            6 => Self::Sigmoid,
            _ => Self::None,
        }
    }

    /// `f(x)`.
    #[inline]
    #[must_use]
    pub(crate) fn apply(self, x: f32) -> f32 {
        match self {
            Self::None => x,
            Self::Relu => clamp(x, 0.0, f32::INFINITY),
            Self::ReluN1To1 => clamp(x, -1.0, 1.0),
            Self::Relu6 => clamp(x, 0.0, 6.0),
            Self::Tanh => math::tanh(x),
            // std::signbit: the sign bit, for NaN and -0 too.
            Self::SignBit => f32::from(u8::from(x.to_bits() >> 31 == 1)),
            Self::Sigmoid => math::logistic(x),
        }
    }

    /// Applies `f` to every element of `v`: one loop per activation, so that each vectorizes,
    /// compiled for AVX2 where the CPU has it (the same operations, twice the lanes).
    pub(crate) fn apply_all(self, v: &mut [f32]) {
        if self == Self::None {
            return;
        }
        #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
            return unsafe { self.apply_all_avx2(v) };
        }
        self.apply_loops(v);
    }

    /// [`apply_loops`](Self::apply_loops) compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    #[target_feature(enable = "avx2")]
    unsafe fn apply_all_avx2(self, v: &mut [f32]) {
        self.apply_loops(v);
    }

    #[inline(always)]
    fn apply_loops(self, v: &mut [f32]) {
        match self {
            Self::None => {}
            Self::Tanh => v.iter_mut().for_each(|x| *x = math::tanh(*x)),
            Self::Sigmoid => v.iter_mut().for_each(|x| *x = math::logistic(*x)),
            other => v.iter_mut().for_each(|x| *x = other.apply(*x)),
        }
    }
}

/// `IsZeroVector`: every element is zero (`-0` included; NaN is not).
#[must_use]
pub(crate) fn is_zero(v: &[f32]) -> bool {
    v.iter().all(|&x| x == 0.0)
}

/// `SymmetricQuantizeFloats` of one vector: `q = clamp(round(x * 127 / range), -127, 127)`
/// with `range = max(|min|, |max|)`; returns the scaling factor `range / 127` (1 and all
/// zeros for a zero range).
fn quantize_symmetric(values: &[f32], q: &mut [i8]) -> f32 {
    // std::minmax_element: the first smallest and the last largest (NaN compares false).
    let (mut lo, mut hi) = match values.first() {
        Some(&v) => (v, v),
        None => (0.0, 0.0),
    };
    for &v in values.iter().skip(1) {
        if v < lo {
            lo = v;
        }
        // `!(v < hi)`: the last of equal largest, as std::minmax_element.
        if v >= hi || v.is_nan() {
            hi = v;
        }
    }
    let range = {
        let (a, b) = (math::abs(lo), math::abs(hi));
        // std::max(a, b): a unless a < b.
        if a < b { b } else { a }
    };
    if range == 0.0 {
        q.fill(0);
        return 1.0;
    }
    let inv = 127.0 / range;
    for (o, &v) in q.iter_mut().zip(values) {
        let r = libm::roundf(v * inv) as i32;
        *o = r.clamp(-127, 127) as i8;
    }
    range / 127.0
}

/// `AsymmetricQuantizeFloats` of one vector: the int8 grid spanning `[min(0, min), max(0,
/// max)]` (scale and zero point computed in double, the zero point nudged as TensorFlow Lite
/// does); returns `(scaling factor, zero point)`.
fn quantize_asymmetric(values: &[f32], q: &mut [i8]) -> (f32, i32) {
    let (mut lo, mut hi) = match values.first() {
        Some(&v) => (v, v),
        None => (0.0, 0.0),
    };
    for &v in values.iter().skip(1) {
        if v < lo {
            lo = v;
        }
        // `!(v < hi)`: the last of equal largest, as std::minmax_element.
        if v >= hi || v.is_nan() {
            hi = v;
        }
    }
    // std::min(0.0f, lo), std::max(0.0f, hi).
    let rmin = f64::from(if lo < 0.0 { lo } else { 0.0 });
    let rmax = f64::from(if 0.0 < hi { hi } else { 0.0 });
    if rmin == rmax {
        q.fill(0);
        return (1.0, 0);
    }
    let (qmin, qmax) = (-128.0f64, 127.0f64);
    let scale = (rmax - rmin) / (qmax - qmin);
    let zp_from_min = qmin - rmin / scale;
    let zp_from_max = qmax - rmax / scale;
    let err_min = libm::fabs(qmin) + libm::fabs(rmin / scale);
    let err_max = libm::fabs(qmax) + libm::fabs(rmax / scale);
    let zp = if err_min < err_max {
        zp_from_min
    } else {
        zp_from_max
    };
    let nudged = if zp <= qmin {
        -128
    } else if zp >= qmax {
        127
    } else {
        libm::round(zp) as i32
    };
    let sf = scale as f32;
    let inv = 1.0 / sf;
    for (o, &v) in q.iter_mut().zip(values) {
        let r = libm::roundf(nudged as f32 + v * inv) as i32;
        *o = r.clamp(-128, 127) as i8;
    }
    (sf, nudged)
}

/// `BatchQuantizeFloats`: each of `batches` vectors of `n` floats quantized to int8 on its
/// own, its scaling factor in `factors[b]` and (asymmetric) its zero point in `offsets[b]`
/// (0 when symmetric).
///
/// # Errors
/// [`SHORT`].
pub(crate) fn quantize_batches(
    values: &[f32],
    batches: usize,
    n: usize,
    q: &mut [i8],
    factors: &mut [f32],
    offsets: &mut [i32],
    asymmetric: bool,
) -> Result<(), KernelError> {
    let total = area(batches, n)?;
    let values = first(values, total)?;
    let q = first_mut(q, total)?;
    let factors = first_mut(factors, batches)?;
    let offsets = first_mut(offsets, batches)?;
    for b in 0..batches {
        let (from, to) = (b * n, b * n + n);
        let (v, out) = (&values[from..to], &mut q[from..to]);
        if asymmetric {
            let (sf, zp) = quantize_asymmetric(v, out);
            factors[b] = sf;
            offsets[b] = zp;
        } else {
            factors[b] = quantize_symmetric(v, out);
            offsets[b] = 0;
        }
    }
    Ok(())
}

/// `ReductionSumVector` of int8 rows: `sums[r] = sum of matrix[r, ..]`.
///
/// # Errors
/// [`SHORT`].
pub(crate) fn row_sums(
    matrix: &[i8],
    rows: usize,
    cols: usize,
    sums: &mut [i32],
) -> Result<(), KernelError> {
    let matrix = first(matrix, area(rows, cols)?)?;
    let sums = first_mut(sums, rows)?;
    for (r, s) in sums.iter_mut().enumerate() {
        let row = &matrix[r * cols..r * cols + cols];
        *s = row.iter().fold(0i32, |a, &w| a.wrapping_add(i32::from(w)));
    }
    Ok(())
}

/// The hybrid product (`MatrixBatchVectorMultiplyAccumulate` with int8 operands): for each
/// of `batches` quantized vectors, `result[b * rows + r] += dot * factors[b]` with the int32
/// dot product of row `r` and the vector, less `row_sums[r] * offsets[b]` when `offsets` is
/// given (asymmetric inputs). `factors` already hold the vector's scale times the matrix's.
///
/// # Errors
/// [`SHORT`].
#[allow(clippy::too_many_arguments)] // the reference's operands, one for one
pub(crate) fn hybrid_matmul_acc(
    matrix: &[i8],
    rows: usize,
    cols: usize,
    vectors: &[i8],
    factors: &[f32],
    offsets: Option<(&[i32], &[i32])>,
    batches: usize,
    result: &mut [f32],
) -> Result<(), KernelError> {
    let matrix = first(matrix, area(rows, cols)?)?;
    let vectors = first(vectors, area(batches, cols)?)?;
    let factors = first(factors, batches)?;
    let result = first_mut(result, area(batches, rows)?)?;
    let offsets = match offsets {
        Some((zp, sums)) => Some((first(zp, batches)?, first(sums, rows)?)),
        None => None,
    };
    for b in 0..batches {
        let v = &vectors[b * cols..b * cols + cols];
        let out = &mut result[b * rows..b * rows + rows];
        for (r, o) in out.iter_mut().enumerate() {
            let row = &matrix[r * cols..r * cols + cols];
            let mut dot = 0i32;
            for (&w, &x) in row.iter().zip(v) {
                dot = dot.wrapping_add(i32::from(w) * i32::from(x));
            }
            if let Some((zp, sums)) = offsets {
                dot = dot.wrapping_sub(sums[r].wrapping_mul(zp[b]));
            }
            *o += dot as f32 * factors[b];
        }
    }
    Ok(())
}

/// Whether `d` is a variable tensor of type `t` holding `elements` elements: the state a
/// recurrent kernel updates in place between invokes (TensorFlow Lite's `GetVariableInput`).
///
/// # Errors
/// A mismatch naming what differs.
pub(crate) fn state(d: &Desc<'_>, t: TensorType, elements: usize) -> Result<(), KernelError> {
    if !d.tensor.is_variable() {
        return Err(KernelError::Mismatch {
            what: "a state input is not a variable tensor",
        });
    }
    if d.dtype != t {
        return Err(KernelError::Mismatch {
            what: "a state input is not of the kernel's state type",
        });
    }
    if d.shape.elements() != elements {
        return Err(KernelError::Mismatch {
            what: "a state input's size differs from batches x units",
        });
    }
    Ok(())
}

/// Variable input `i` of `n` elements to update in place; an empty slice when `n` is 0 (an
/// empty state takes no arena bytes, so the interpreter hands none out).
///
/// # Errors
/// As [`Eval::input_mut`] ([`KernelError::Unsupported`] without the `state` feature), and
/// [`SHORT`].
pub(crate) fn state_mut<'e, T: Element>(
    ctx: &mut Eval<'e>,
    i: usize,
    n: usize,
) -> Result<&'e mut [T], KernelError> {
    if n == 0 {
        return Ok(&mut []);
    }
    first_mut(ctx.input_mut::<T>(i)?, n)
}

/// A tensor's one scale (hybrid weights, per-tensor): the first of its scales, 1 when it has
/// none (as `GetTensorScale` of a tensor without parameters).
///
/// # Errors
/// A mismatch for several scales (per-channel weights, which the hybrid kernels do not read)
/// or a scale that is not finite.
pub(crate) fn single_scale(d: &Desc<'_>) -> Result<f32, KernelError> {
    let Some(q) = d.quantization() else {
        return Ok(1.0);
    };
    let scales = q.scale();
    match scales.len() {
        0 => Ok(1.0),
        1 => {
            let s = scales.get(0).unwrap_or(1.0);
            if s.is_finite() {
                Ok(s)
            } else {
                Err(KernelError::Mismatch {
                    what: "quantization scale not finite",
                })
            }
        }
        _ => Err(KernelError::Unsupported {
            what: "per-channel weights in a hybrid recurrent kernel",
        }),
    }
}

/// A sequence op's walk over its input: which vector (or, time-major, which `batches`
/// vectors) step `t` of batch `b` reads and which output rows it writes, forward or
/// backward in time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walk {
    /// Steps in the sequence.
    pub time: usize,
    /// The batch.
    pub batches: usize,
    /// `[time, batch, ...]` (else `[batch, time, ...]`).
    pub time_major: bool,
    /// From the first step to the last (else backward).
    pub forward: bool,
}

impl Walk {
    /// The steps as `(b, t)`: `b` is the batch (batch-major) or 0 (time-major, all batches
    /// at once); `t` the time index read and written (reversed for the backward direction).
    pub(crate) fn steps(self) -> impl Iterator<Item = (usize, usize)> {
        let outer = if self.time_major { 1 } else { self.batches };
        (0..outer).flat_map(move |b| {
            (0..self.time).map(move |k| {
                let t = if self.forward { k } else { self.time - 1 - k };
                (b, t)
            })
        })
    }

    /// The first vector (of `n` elements) step `(b, t)` reads or writes, as an element offset.
    pub(crate) fn at(self, b: usize, t: usize, n: usize) -> Option<usize> {
        let row = if self.time_major {
            t.checked_mul(self.batches)?
        } else {
            b.checked_mul(self.time)?.checked_add(t)?
        };
        row.checked_mul(n)
    }
}

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
