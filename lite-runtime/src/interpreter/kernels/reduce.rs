//! Reductions over axes, as TensorFlow Lite's reference kernels compute them: MEAN, SUM and
//! REDUCE_PROD (float32, int32, int64, and the quantized forms in [`quantized`]: MEAN over
//! int8, uint8, int16; SUM over int8, uint8, int16; REDUCE_PROD over int8, int16), REDUCE_MAX
//! and REDUCE_MIN (float32, int32, int64, bool, and int8, uint8, int16 compared as stored,
//! input and output quantized alike), REDUCE_ANY and REDUCE_ALL (bool); and ARG_MAX, ARG_MIN
//! (float32, int32, int8, uint8, bool in; int32 or int64 out).
//!
//! The reductions take their axes from a constant INT32 tensor (negative axes count from the
//! end, duplicates count once). `prepare` merges neighbouring dimensions that are all reduced
//! or all kept (size-1 dimensions drop out), so `eval` walks the input once in row-major order
//! over at most [`MAX_DIMS`] segments and folds each innermost run in one loop: every output
//! element sees its inputs in the reference kernel's order, so float sums round as the
//! reference's do (LiteRT's optimized paths may add in another order; they agree within float
//! tolerance). When every dimension is reduced, the reference starts from the first input
//! rather than the initial value (`ReduceAllDims`), and so does this kernel. Integer sums and
//! products wrap (two's complement), as the reference's `...WithExpectedOverflow`; an int32
//! MEAN sums in i64 (as LiteRT's `temp_sum`) and divides truncating toward zero; an empty
//! reduction gives the initial value (MEAN 0, REDUCE_MAX the type's lowest, REDUCE_MIN its
//! highest, REDUCE_PROD 1, REDUCE_ANY false, REDUCE_ALL true).

mod quantized;

use super::base::check::{self, SHORT, dim};
use super::base::tensors::{input_n, output_n, same_quantization};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, MAX_DIMS, Prepare};
use crate::model::{ArgMaxOptions, ArgMinOptions, BuiltinOperator, ReducerOptions, TensorType};
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// MEAN.
pub static MEAN: Kernel = Kernel {
    op: BuiltinOperator::Mean,
    prepare: prepare_mean,
    init: None,
    eval: eval_mean,
};

/// SUM.
pub static SUM: Kernel = Kernel {
    op: BuiltinOperator::Sum,
    prepare: prepare_sum,
    init: None,
    eval: eval_sum,
};

/// REDUCE_MAX.
pub static REDUCE_MAX: Kernel = Kernel {
    op: BuiltinOperator::ReduceMax,
    prepare: prepare_max,
    init: None,
    eval: eval_max,
};

/// REDUCE_MIN.
pub static REDUCE_MIN: Kernel = Kernel {
    op: BuiltinOperator::ReduceMin,
    prepare: prepare_min,
    init: None,
    eval: eval_min,
};

/// REDUCE_PROD.
pub static REDUCE_PROD: Kernel = Kernel {
    op: BuiltinOperator::ReduceProd,
    prepare: prepare_prod,
    init: None,
    eval: eval_prod,
};

/// REDUCE_ANY.
pub static REDUCE_ANY: Kernel = Kernel {
    op: BuiltinOperator::ReduceAny,
    prepare: prepare_any_all,
    init: None,
    eval: eval_any,
};

/// REDUCE_ALL.
pub static REDUCE_ALL: Kernel = Kernel {
    op: BuiltinOperator::ReduceAll,
    prepare: prepare_any_all,
    init: None,
    eval: eval_all,
};

/// ARG_MAX.
pub static ARG_MAX: Kernel = Kernel {
    op: BuiltinOperator::ArgMax,
    prepare: prepare_arg::<true>,
    init: None,
    eval: eval_arg_max,
};

/// ARG_MIN.
pub static ARG_MIN: Kernel = Kernel {
    op: BuiltinOperator::ArgMin,
    prepare: prepare_arg::<false>,
    init: None,
    eval: eval_arg_min,
};

/// The input's shape with neighbouring reduced (or kept) dimensions merged: `segs[..count]`
/// alternate between kept and reduced, starting reduced when `first_reduced`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Segments {
    segs: [u32; MAX_DIMS],
    count: u32,
    first_reduced: u32,
}

impl Segments {
    /// Merges `dims` (reduced where bit `i` of `mask` is set). Size-1 dimensions are left out
    /// (reducing over one element changes nothing); an input of no other dimension (a scalar,
    /// or all ones) is one kept segment of 1. `None` if a dimension exceeds u32.
    pub(crate) fn new(dims: &[usize], mask: u32) -> Option<Self> {
        let mut s = Self {
            segs: [0; MAX_DIMS],
            count: 0,
            first_reduced: 0,
        };
        let mut last: Option<bool> = None;
        for (i, &d) in dims.iter().enumerate() {
            if d == 1 {
                continue;
            }
            let d = u32::try_from(d).ok()?;
            let reduced = mask >> i & 1 == 1;
            match last {
                Some(r) if r == reduced => {
                    let k = s.count as usize - 1;
                    let seg = s.segs.get_mut(k)?;
                    *seg = seg.checked_mul(d)?;
                }
                _ => {
                    if last.is_none() {
                        s.first_reduced = u32::from(reduced);
                    }
                    *s.segs.get_mut(s.count as usize)? = d;
                    s.count += 1;
                    last = Some(reduced);
                }
            }
        }
        if s.count == 0 {
            s.segs[0] = 1;
            s.count = 1;
        }
        Some(s)
    }

    fn reduced(&self, k: usize) -> bool {
        (k % 2 == 0) == (self.first_reduced != 0)
    }
}

/// Parameters of MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct ReduceParams {
    segs: Segments,
    /// Input elements.
    inputs: u32,
    /// Output elements.
    outputs: u32,
    /// Input elements per output element (MEAN's divisor).
    count: u32,
    /// 1 when every dimension is reduced: LiteRT's reference then starts from the first
    /// input rather than the initial value (`ReduceAllDims`), which matters for NaNs and -0.
    all: u32,
}

/// What set-up finds for every reduction, float or quantized: the reduced axes
/// (`ReducerOptions`, constant INT32 axes) merged into segments, and how many input elements
/// make one output element; the output checked to be the input's type and reduced shape.
pub(crate) struct Reduction<'m> {
    pub(crate) input: Desc<'m>,
    pub(crate) output: Desc<'m>,
    pub(crate) segs: Segments,
    pub(crate) count: usize,
    /// Whether every dimension is reduced.
    pub(crate) all: bool,
}

pub(crate) fn reduction<'m>(ctx: &Prepare<'m>) -> Result<Reduction<'m>, KernelError> {
    // Every reduction takes ReducerOptions.
    let ReducerOptions { keep_dims } = ctx.options()?;
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    check::output_type(&input, &output)?;
    let rank = input.shape.rank();
    let mask = check::axes_mask(&ctx.input(1)?, rank)?;
    let (shape, count) = check::reduced_shape(&input.shape, mask, keep_dims);
    check::output_shape(&output, &shape)?;
    let segs = Segments::new(input.shape.dims(), mask).ok_or(check::DIM_OVER_U32)?;
    Ok(Reduction {
        input,
        output,
        segs,
        count,
        all: mask.count_ones() as usize == rank,
    })
}

/// The reductions that fold plain values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Sum,
    Max,
    Min,
    Prod,
    Any,
    All,
}

/// Checks a float, integer or bool reduction and records its segments. REDUCE_MAX and
/// REDUCE_MIN also take int8, uint8, int16 (compared as stored: LiteRT requires the output's
/// scale and zero point to be the input's) and bool.
fn prepare_reduce(ctx: &mut Prepare<'_>, how: Option<How>) -> Result<(), KernelError> {
    let t = ctx.input(0)?.dtype;
    let ok = match how {
        Some(How::Max | How::Min) => matches!(
            t,
            TensorType::Float32
                | TensorType::Int32
                | TensorType::Int64
                | TensorType::Int8
                | TensorType::Uint8
                | TensorType::Int16
                | TensorType::Bool
        ),
        Some(How::Any | How::All) => t == TensorType::Bool,
        _ => matches!(
            t,
            TensorType::Float32 | TensorType::Int32 | TensorType::Int64
        ),
    };
    if !ok {
        return Err(KernelError::Unsupported {
            what: "reduction of this element type (MEAN, SUM, REDUCE_PROD: FLOAT32, INT32, \
                   INT64 and quantized INT8, UINT8, INT16 forms; REDUCE_MAX, REDUCE_MIN: also \
                   INT8, UINT8, INT16, BOOL; REDUCE_ANY, REDUCE_ALL: BOOL)",
        });
    }
    let Reduction {
        input,
        output,
        segs,
        count,
        all,
    } = reduction(ctx)?;
    if matches!(t, TensorType::Int8 | TensorType::Uint8 | TensorType::Int16) {
        same_quantization(&input, &output, true)?;
    }
    let outputs = output.shape.elements();
    if how.is_none() && input.dtype == TensorType::Int32 {
        // The i64 sums of an int32 MEAN, as LiteRT's temp_sum.
        ctx.request_scratch(outputs.saturating_mul(8));
    }
    ctx.set_params(&ReduceParams {
        segs,
        inputs: dim(input.shape.elements())?,
        outputs: dim(outputs)?,
        count: dim(count)?,
        all: u32::from(all),
    });
    Ok(())
}

fn prepare_mean(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare(ctx);
    }
    prepare_reduce(ctx, None)
}

fn prepare_sum(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare_sum(ctx);
    }
    prepare_reduce(ctx, Some(How::Sum))
}

fn prepare_max(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_reduce(ctx, Some(How::Max))
}

fn prepare_min(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_reduce(ctx, Some(How::Min))
}

fn prepare_prod(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    if matches!(input.dtype, TensorType::Int8 | TensorType::Int16)
        && input.quantization().is_some_and(|q| q.is_affine())
    {
        return quantized::prepare_prod(ctx);
    }
    prepare_reduce(ctx, Some(How::Prod))
}

fn prepare_any_all(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_reduce(ctx, Some(How::Any))
}

/// Folds `x` (row-major, of shape `segs`) into `y` (the kept segments, row-major), which
/// holds the initial values: `y[o] = f(y[o], x[i])` for every input in order.
///
/// # Errors
/// A mismatch if `x` or `y` is shorter than the segments say (never for the sizes `prepare`
/// checked).
pub(crate) fn fold_into<X: Copy, Y: Copy>(
    x: &[X],
    y: &mut [Y],
    segs: &Segments,
    f: impl Fn(Y, X) -> Y,
) -> Result<(), KernelError> {
    let n = (segs.count as usize).clamp(1, MAX_DIMS);
    let sizes = segs.segs.map(|v| v as usize);
    let last = n - 1;
    let inner = sizes[last];
    if inner == 0 || x.is_empty() {
        return Ok(());
    }
    // Output strides of the outer segments (0 for reduced ones).
    let mut stride = [0usize; MAX_DIMS];
    let mut acc = if segs.reduced(last) { 1 } else { inner };
    for k in (0..last).rev() {
        if !segs.reduced(k) {
            stride[k] = acc;
            acc = acc.saturating_mul(sizes[k]);
        }
    }
    let total: usize = sizes[..n].iter().fold(1, |a, &d| a.saturating_mul(d));
    let x = x.get(..total).ok_or(SHORT)?;
    let mut index = [0usize; MAX_DIMS];
    let mut at = 0usize;
    let last_reduced = segs.reduced(last);
    for row in x.chunks_exact(inner) {
        if last_reduced {
            let slot = y.get_mut(at).ok_or(SHORT)?;
            *slot = row.iter().fold(*slot, |a, &v| f(a, v));
        } else {
            let out = y.get_mut(at..at + inner).ok_or(SHORT)?;
            for (o, &v) in out.iter_mut().zip(row) {
                *o = f(*o, v);
            }
        }
        // Next row: the odometer over the outer segments.
        for k in (0..last).rev() {
            index[k] += 1;
            at += stride[k];
            if index[k] < sizes[k] {
                break;
            }
            at -= stride[k] * sizes[k];
            index[k] = 0;
        }
    }
    Ok(())
}

/// A type the folding reductions reduce.
pub(crate) trait Reduce: Element + PartialOrd {
    /// TensorFlow Lite's `std::numeric_limits<T>::lowest()`: REDUCE_MAX's start.
    const LOWEST: Self;
    /// `std::numeric_limits<T>::max()`: REDUCE_MIN's start.
    const HIGHEST: Self;
    /// Zero.
    const ZERO: Self;
    /// One: REDUCE_PROD's start.
    const ONE: Self;
    /// The sum step (wrapping for integers).
    fn add(self, v: Self) -> Self;
    /// The product step (wrapping for integers).
    fn mul(self, v: Self) -> Self;
    /// The max step: `v > self ? v : self` (a NaN never wins).
    #[inline(always)]
    fn max(self, v: Self) -> Self {
        if v > self { v } else { self }
    }
    /// The min step: `v < self ? v : self` (a NaN never wins).
    #[inline(always)]
    fn min(self, v: Self) -> Self {
        if v < self { v } else { self }
    }
}

impl Reduce for f32 {
    const LOWEST: Self = f32::MIN;
    const HIGHEST: Self = f32::MAX;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline(always)]
    fn add(self, v: Self) -> Self {
        self + v
    }
    #[inline(always)]
    fn mul(self, v: Self) -> Self {
        self * v
    }
}

macro_rules! int_reduce {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn add(self, v: Self) -> Self {
                self.wrapping_add(v)
            }
            #[inline(always)]
            fn mul(self, v: Self) -> Self {
                self.wrapping_mul(v)
            }
        }
    )*};
}

int_reduce!(i32, i64, i8, u8, i16);

impl Reduce for bool {
    const LOWEST: Self = false;
    const HIGHEST: Self = true;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline(always)]
    fn add(self, v: Self) -> Self {
        self || v
    }
    #[inline(always)]
    fn mul(self, v: Self) -> Self {
        self && v
    }
}

fn reduce_typed<T: Reduce>(ctx: &mut Eval<'_>, how: How) -> Result<(), KernelError> {
    let p: ReduceParams = ctx.params();
    let x = input_n::<T>(ctx, 0, p.inputs as usize)?;
    let y = output_n::<T>(ctx, 0, p.outputs as usize)?;
    let (init, f): (T, fn(T, T) -> T) = match how {
        How::Sum => (T::ZERO, T::add),
        How::Max => (T::LOWEST, T::max),
        How::Min => (T::HIGHEST, T::min),
        How::Prod => (T::ONE, T::mul),
        // bool's add and mul are `||` and `&&`.
        How::Any => (T::ZERO, T::add),
        How::All => (T::ONE, T::mul),
    };
    if p.all != 0 {
        // LiteRT's `ReduceAllDims`: the first input, then the others.
        if let (Some(slot), Some((&first, rest))) = (y.first_mut(), x.split_first()) {
            *slot = rest.iter().fold(first, |a, &v| f(a, v));
            return Ok(());
        }
    }
    y.fill(init);
    fold_into(x, y, &p.segs, f)
}

fn eval_how(ctx: &mut Eval<'_>, how: How) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => reduce_typed::<f32>(ctx, how),
        TensorType::Int32 => reduce_typed::<i32>(ctx, how),
        TensorType::Int64 => reduce_typed::<i64>(ctx, how),
        TensorType::Int8 => reduce_typed::<i8>(ctx, how),
        TensorType::Uint8 => reduce_typed::<u8>(ctx, how),
        TensorType::Int16 => reduce_typed::<i16>(ctx, how),
        _ => reduce_typed::<bool>(ctx, how),
    }
}

fn eval_sum(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input_type(0)?) {
        return quantized::eval_sum(ctx);
    }
    eval_how(ctx, How::Sum)
}

fn eval_max(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_how(ctx, How::Max)
}

fn eval_min(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_how(ctx, How::Min)
}

fn eval_prod(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::is_prod(ctx) {
        return quantized::eval_prod(ctx);
    }
    eval_how(ctx, How::Prod)
}

fn eval_any(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_how(ctx, How::Any)
}

fn eval_all(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_how(ctx, How::All)
}

fn eval_mean(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input_type(0)?) {
        return quantized::eval(ctx);
    }
    let p: ReduceParams = ctx.params();
    let (ni, no) = (p.inputs as usize, p.outputs as usize);
    let count = p.count as usize;
    match ctx.input_type(0)? {
        TensorType::Float32 => {
            let x = input_n::<f32>(ctx, 0, ni)?;
            let y = output_n::<f32>(ctx, 0, no)?;
            y.fill(0.0);
            fold_into(x, y, &p.segs, |a, v| a + v)?;
            mean_f32(y, count);
        }
        TensorType::Int32 => {
            let x = input_n::<i32>(ctx, 0, ni)?;
            let y = output_n::<i32>(ctx, 0, no)?;
            let sums = <[i64]>::mut_from_bytes(ctx.scratch())
                .ok()
                .and_then(|s| s.get_mut(..no))
                .ok_or(KernelError::Mismatch {
                    what: "scratch smaller than asked for",
                })?;
            sums.fill(0);
            fold_into(x, sums, &p.segs, |a, v| a.wrapping_add(i64::from(v)))?;
            for (y, &s) in y.iter_mut().zip(sums.iter()) {
                // Truncated to 32 bits as C++'s static_cast<int32_t>.
                *y = mean_i64(s, count) as i32;
            }
        }
        _ => {
            let x = input_n::<i64>(ctx, 0, ni)?;
            let y = output_n::<i64>(ctx, 0, no)?;
            y.fill(0);
            fold_into(x, y, &p.segs, i64::wrapping_add)?;
            for y in y.iter_mut() {
                *y = mean_i64(*y, count);
            }
        }
    }
    Ok(())
}

/// Float sums into means: `sum / count` (an empty reduction stays 0, as in the reference).
pub(crate) fn mean_f32(y: &mut [f32], count: usize) {
    if count > 0 {
        let c = count as f32;
        for y in y.iter_mut() {
            *y /= c;
        }
    }
}

/// An integer sum into a mean, divided toward zero as C++ (0 for an empty reduction).
#[must_use]
pub(crate) fn mean_i64(sum: i64, count: usize) -> i64 {
    match i64::try_from(count) {
        Ok(c) if c > 0 => sum / c,
        _ => 0,
    }
}

// ---- ARG_MAX, ARG_MIN ----

/// Parameters of ARG_MAX and ARG_MIN: the input as `outer x axis x inner`.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct ArgParams {
    outer: u32,
    axis: u32,
    inner: u32,
}

/// Checks an ARG_MAX (`MAX`) or ARG_MIN.
fn prepare_arg<const MAX: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let option_type = if MAX {
        ctx.options::<ArgMaxOptions>()?.output_type
    } else {
        ctx.options::<ArgMinOptions>()?.output_type
    };
    let input = ctx.input(0)?;
    let axis = ctx.input(1)?;
    let output = ctx.output(0)?;
    if !matches!(
        input.dtype,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Bool
    ) {
        return Err(KernelError::Unsupported {
            what: "ARG_MAX / ARG_MIN of other types than FLOAT32, INT32, INT8, UINT8, BOOL",
        });
    }
    if !matches!(output.dtype, TensorType::Int32 | TensorType::Int64) {
        return Err(KernelError::Mismatch {
            what: "ARG_MAX / ARG_MIN output is not INT32 or INT64",
        });
    }
    if output.dtype != option_type {
        return Err(KernelError::Mismatch {
            what: "output type differs from the options' output_type",
        });
    }
    let mut values = check::constant_ints(&axis)?;
    let a = match (values.next(), values.next()) {
        (Some(a), None) => a,
        _ => {
            return Err(KernelError::Mismatch {
                what: "axis is not one INT32 or INT64 value",
            });
        }
    };
    let dims = input.shape.dims();
    let a = check::axis(a, dims.len())?;
    let (shape, _) = check::reduced_shape(&input.shape, 1 << a, false);
    check::output_shape(&output, &shape)?;
    let product = |d: &[usize]| d.iter().fold(1usize, |p, &v| p.saturating_mul(v));
    let (before, after) = dims.split_at(a);
    let (size, after) = after.split_first().ok_or(KernelError::Mismatch {
        what: "axis out of range",
    })?;
    let (outer, inner, size) = (product(before), product(after), *size);
    if size == 0 && output.shape.elements() > 0 {
        return Err(KernelError::Mismatch {
            what: "ARG_MAX / ARG_MIN over an empty axis",
        });
    }
    if output.dtype == TensorType::Int32 && i32::try_from(size).is_err() {
        return Err(KernelError::Unsupported {
            what: "an axis longer than INT32 indices reach",
        });
    }
    ctx.set_params(&ArgParams {
        outer: dim(outer)?,
        axis: dim(size)?,
        inner: dim(inner)?,
    });
    Ok(())
}

/// A type ARG_MAX and ARG_MIN compare.
pub(crate) trait ArgValue: Element + PartialOrd {
    /// Whether the value is a NaN (never for integers).
    #[inline(always)]
    fn nan(self) -> bool {
        false
    }
}

impl ArgValue for f32 {
    #[inline(always)]
    fn nan(self) -> bool {
        self.is_nan()
    }
}
impl ArgValue for i32 {}
impl ArgValue for i8 {}
impl ArgValue for u8 {}
impl ArgValue for bool {}

/// An index type ARG_MAX and ARG_MIN write.
pub(crate) trait ArgIndex: Element {
    /// From an index below the axis length (checked to fit in `prepare`).
    fn from_index(i: usize) -> Self;
}

impl ArgIndex for i32 {
    #[inline(always)]
    fn from_index(i: usize) -> Self {
        i as i32
    }
}

impl ArgIndex for i64 {
    #[inline(always)]
    fn from_index(i: usize) -> Self {
        i as i64
    }
}

/// Whether `candidate` replaces `current` (TensorFlow Lite's NaN-aware comparison: a NaN
/// never wins, and any number beats a NaN; ties keep the first index).
#[inline(always)]
fn better<T: ArgValue>(candidate: T, current: T, max: bool) -> bool {
    !candidate.nan()
        && (current.nan()
            || if max {
                candidate > current
            } else {
                candidate < current
            })
}

/// ARG_MAX (`max`) or ARG_MIN of `x` (`outer x axis x inner`, row-major) over the middle
/// dimension into `y` (`outer x inner`).
///
/// # Errors
/// A mismatch if `x` or `y` is shorter than the dimensions say.
pub(crate) fn arg_into<T: ArgValue, I: ArgIndex>(
    x: &[T],
    y: &mut [I],
    (outer, axis, inner): (usize, usize, usize),
    max: bool,
) -> Result<(), KernelError> {
    let block = axis.saturating_mul(inner);
    if block == 0 || outer == 0 {
        return Ok(());
    }
    let x = x.get(..outer.saturating_mul(block)).ok_or(SHORT)?;
    let y = y.get_mut(..outer.saturating_mul(inner)).ok_or(SHORT)?;
    if inner == 1 {
        // The common case, the last axis: one contiguous row per output.
        for (row, y) in x.chunks_exact(axis).zip(y.iter_mut()) {
            let Some(&first) = row.first() else { break };
            let (mut best, mut value) = (0, first);
            for (i, &v) in row.iter().enumerate().skip(1) {
                if better(v, value, max) {
                    best = i;
                    value = v;
                }
            }
            *y = I::from_index(best);
        }
        return Ok(());
    }
    for (rows, y) in x.chunks_exact(block).zip(y.chunks_exact_mut(inner)) {
        for (j, y) in y.iter_mut().enumerate() {
            let Some(&first) = rows.get(j) else { break };
            let (mut best, mut value) = (0, first);
            for (i, &v) in rows.iter().skip(j).step_by(inner).enumerate().skip(1) {
                if better(v, value, max) {
                    best = i;
                    value = v;
                }
            }
            *y = I::from_index(best);
        }
    }
    Ok(())
}

fn arg_typed<T: ArgValue>(ctx: &mut Eval<'_>, max: bool) -> Result<(), KernelError> {
    let p: ArgParams = ctx.params();
    let (outer, axis, inner) = (p.outer as usize, p.axis as usize, p.inner as usize);
    let (ni, no) = (
        outer.saturating_mul(axis).saturating_mul(inner),
        outer.saturating_mul(inner),
    );
    let x = input_n::<T>(ctx, 0, ni)?;
    match ctx.output_type(0)? {
        TensorType::Int32 => arg_into(x, output_n::<i32>(ctx, 0, no)?, (outer, axis, inner), max),
        _ => arg_into(x, output_n::<i64>(ctx, 0, no)?, (outer, axis, inner), max),
    }
}

fn eval_arg(ctx: &mut Eval<'_>, max: bool) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => arg_typed::<f32>(ctx, max),
        TensorType::Int32 => arg_typed::<i32>(ctx, max),
        TensorType::Int8 => arg_typed::<i8>(ctx, max),
        TensorType::Uint8 => arg_typed::<u8>(ctx, max),
        _ => arg_typed::<bool>(ctx, max),
    }
}

fn eval_arg_max(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_arg(ctx, true)
}

fn eval_arg_min(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    eval_arg(ctx, false)
}

#[cfg(test)]
mod tests;
