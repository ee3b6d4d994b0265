//! Data movement: CONCATENATION, SLICE, STRIDED_SLICE, TRANSPOSE, PACK, UNPACK, SHAPE and
//! FILL, over float32, int32, int64, bool and the quantized int8, uint8 and int16 (SLICE,
//! STRIDED_SLICE and FILL over strings too, as TensorFlow Lite). Quantized values are
//! copied as bytes, as TensorFlow Lite copies them: PACK, UNPACK and FILL require the
//! output's scale and zero point to be the input's (LiteRT's checks), CONCATENATION
//! requantizes inputs of another scale ([`quantized`]).
//!
//! SLICE, STRIDED_SLICE and TRANSPOSE compute a strided read ([`plan`]) from their index
//! operands at every invoke (a few dozen operations), so operands computed by the graph work
//! as well as constants; when the operands are constants, setup already checks the model's
//! output shape, and every invoke checks it again.

mod operands;
mod plan;
mod quantized;
#[cfg(test)]
mod tests;

use operands::{MAX_SPEC, check_spec, const_spec, eval_spec};
use plan::{Masks, Plan};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, OUTPUT_TYPE};
use super::base::strided::copy_plan;
use super::base::fused::{clamp, float_range};
use super::base::tensors::{element_bytes, same_quantization, words, words_mut, write_strings};
use crate::interpreter::{Eval, Init, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{Activation, BuiltinOperator, ConcatenationOptions, PackOptions, StridedSliceOptions, TensorType, UnpackOptions};

/// CONCATENATION.
pub static CONCATENATION: Kernel = Kernel {
    op: BuiltinOperator::Concatenation,
    prepare: prepare_concatenation,
    init: Some(quantized::init),
    eval: eval_concatenation,
};

/// SLICE.
pub static SLICE: Kernel = Kernel {
    op: BuiltinOperator::Slice,
    prepare: prepare_slice,
    init: Some(init_slice),
    eval: eval_slice,
};

/// STRIDED_SLICE.
pub static STRIDED_SLICE: Kernel = Kernel {
    op: BuiltinOperator::StridedSlice,
    prepare: prepare_strided,
    init: Some(init_strided),
    eval: eval_strided,
};

/// TRANSPOSE.
pub static TRANSPOSE: Kernel = Kernel {
    op: BuiltinOperator::Transpose,
    prepare: prepare_transpose,
    init: Some(init_transpose),
    eval: eval_transpose,
};

/// PACK.
pub static PACK: Kernel = Kernel {
    op: BuiltinOperator::Pack,
    prepare: prepare_pack,
    init: None,
    eval: eval_joined,
};

/// UNPACK.
pub static UNPACK: Kernel = Kernel {
    op: BuiltinOperator::Unpack,
    prepare: prepare_unpack,
    init: None,
    eval: eval_unpack,
};

/// SHAPE.
pub static SHAPE: Kernel = Kernel {
    op: BuiltinOperator::Shape,
    prepare: prepare_shape,
    init: None,
    eval: eval_shape,
};

/// FILL.
pub static FILL: Kernel = Kernel {
    op: BuiltinOperator::Fill,
    prepare: prepare_fill,
    init: None,
    eval: eval_fill,
};


/// Element bytes of a tensor moved as numbers, or 0 for strings.
fn moved_bytes(t: TensorType, strings: bool) -> Result<usize, KernelError> {
    if strings && t == TensorType::String {
        Ok(0)
    } else {
        element_bytes(t)
    }
}

fn product(dims: &[usize]) -> usize {
    dims.iter().product()
}

// ---- CONCATENATION and PACK: each input's rows, side by side ----

/// CONCATENATION and PACK: `outer` rows; input `k` gives each output row its elements from
/// dimension `axis` on.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Joined {
    outer: u32,
    axis: u32,
    element: u32,
    clamp: u32,
    lo: f32,
    hi: f32,
}

fn prepare_concatenation(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare(ctx);
    }
    let ConcatenationOptions { axis, activation } = ctx.options()?;
    let first = ctx.input(0)?;
    let element = element_bytes(first.dtype)?;
    let axis = check::concatenation(ctx, axis)?;
    let (clamp, lo, hi) = match (activation, first.dtype) {
        (Activation::None, _) => (0, 0.0, 0.0),
        (a, TensorType::Float32) => {
            let (lo, hi) = float_range(a)?;
            (1, lo, hi)
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "fused activation on a non-float concatenation",
            });
        }
    };
    ctx.set_params(&Joined {
        outer: check::dim(product(&first.shape.dims()[..axis]))?,
        axis: check::dim(axis)?,
        element: check::dim(element)?,
        clamp,
        lo,
        hi,
    });
    Ok(())
}

fn prepare_pack(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let PackOptions { values_count, axis } = ctx.options()?;
    let first = ctx.input(0)?;
    let output = ctx.output(0)?;
    let element = element_bytes(first.dtype)?;
    let n = ctx.input_count();
    if usize::try_from(values_count).ok() != Some(n) {
        return Err(KernelError::Mismatch {
            what: "values_count differs from the number of inputs",
        });
    }
    let rank = first.shape.rank();
    let axis = check::axis(i64::from(axis), rank + 1)?;
    for k in 0..n {
        let d = ctx.input(k)?;
        if d.dtype != first.dtype || d.shape != first.shape {
            return Err(KernelError::Mismatch {
                what: "inputs of different types or shapes",
            });
        }
        same_quantization(&d, &output, false)?;
    }
    if output.dtype != first.dtype {
        return Err(OUTPUT_TYPE);
    }
    let mut dims = [0usize; MAX_DIMS + 1];
    dims[..axis].copy_from_slice(&first.shape.dims()[..axis]);
    dims[axis] = n;
    dims[axis + 1..=rank].copy_from_slice(&first.shape.dims()[axis..]);
    if Shape::new(&dims[..=rank]) != Some(output.shape) {
        return Err(OUTPUT_SHAPE);
    }
    ctx.set_params(&Joined {
        outer: check::dim(product(&first.shape.dims()[..axis]))?,
        axis: check::dim(axis)?,
        element: check::dim(element)?,
        clamp: 0,
        lo: 0.0,
        hi: 0.0,
    });
    Ok(())
}

fn eval_concatenation(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input_type(0)?) {
        return quantized::eval(ctx);
    }
    eval_joined(ctx)
}

fn eval_joined(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Joined = ctx.params();
    let outer = p.outer as usize;
    let dst = ctx.output_bytes(0)?;
    if outer == 0 || dst.is_empty() {
        return Ok(());
    }
    let row = dst.len() / outer;
    let mut at = 0;
    for k in 0..ctx.input_count() {
        let shape = ctx.input_shape(k)?;
        let tail = shape.dims().get(p.axis as usize..).unwrap_or(&[]);
        let chunk = product(tail) * p.element as usize;
        if chunk == 0 {
            continue;
        }
        join(ctx.input_bytes(k)?, chunk, dst, row, at)?;
        at += chunk;
    }
    if p.clamp != 0 {
        for v in words_mut::<f32>(dst)? {
            *v = clamp(*v, p.lo, p.hi);
        }
    }
    Ok(())
}

// ---- UNPACK ----

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Unpacked {
    /// Bytes of one output's run in each outer row.
    run: u32,
}

fn prepare_unpack(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let UnpackOptions { num, axis } = ctx.options()?;
    let input = ctx.input(0)?;
    let element = element_bytes(input.dtype)?;
    let rank = input.shape.rank();
    let axis = check::axis(i64::from(axis), rank)?;
    let dims = input.shape.dims();
    let n = dims[axis];
    if usize::try_from(num).ok() != Some(n) || ctx.output_count() != n {
        return Err(KernelError::Mismatch {
            what: "num and the outputs differ from the unpacked dimension",
        });
    }
    let mut out = [0usize; MAX_DIMS];
    out[..axis].copy_from_slice(&dims[..axis]);
    out[axis..rank - 1].copy_from_slice(&dims[axis + 1..]);
    let want = Shape::new(&out[..rank - 1]);
    for k in 0..n {
        let o = ctx.output(k)?;
        if o.dtype != input.dtype {
            return Err(OUTPUT_TYPE);
        }
        same_quantization(&input, &o, false)?;
        if Some(o.shape) != want {
            return Err(OUTPUT_SHAPE);
        }
    }
    ctx.set_params(&Unpacked {
        run: check::dim(product(&dims[axis + 1..]) * element)?,
    });
    Ok(())
}

fn eval_unpack(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Unpacked = ctx.params();
    let run = p.run as usize;
    let n = ctx.output_count();
    let src = ctx.input_bytes(0)?;
    if run == 0 || n == 0 {
        return Ok(());
    }
    for k in 0..n {
        split(src, run, n, k, ctx.output_bytes(k)?)?;
    }
    Ok(())
}

/// Places the rows of `src` (`chunk` bytes each) at byte `at` of the rows of `dst` (`row`
/// bytes each): one input of a concatenation.
pub(crate) fn join(
    src: &[u8],
    chunk: usize,
    dst: &mut [u8],
    row: usize,
    at: usize,
) -> Result<(), KernelError> {
    if chunk == 0 || row == 0 {
        return Ok(());
    }
    for (s, d) in src.chunks_exact(chunk).zip(dst.chunks_exact_mut(row)) {
        d.get_mut(at..at + chunk)
            .ok_or(OUTPUT_SHAPE)?
            .copy_from_slice(s);
    }
    Ok(())
}

/// Output `k` of an unpack into `n` outputs: run `k` (of `run` bytes) of every row of `src`.
pub(crate) fn split(
    src: &[u8],
    run: usize,
    n: usize,
    k: usize,
    dst: &mut [u8],
) -> Result<(), KernelError> {
    if run == 0 || n == 0 {
        return Ok(());
    }
    for (s, d) in src.chunks_exact(run * n).zip(dst.chunks_exact_mut(run)) {
        d.copy_from_slice(s.get(k * run..(k + 1) * run).ok_or(OUTPUT_SHAPE)?);
    }
    Ok(())
}

// ---- SLICE, STRIDED_SLICE, TRANSPOSE: strided reads ----

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Sliced {
    /// Element bytes, 0 for strings.
    element: u32,
    begin_mask: i32,
    end_mask: i32,
    ellipsis_mask: i32,
    new_axis_mask: i32,
    shrink_axis_mask: i32,
    offset: u32,
    /// Whether the operands are constants and the plan is in the persistent bytes.
    cached: u32,
}

impl Sliced {
    fn masks(&self) -> Masks {
        Masks {
            begin: self.begin_mask,
            end: self.end_mask,
            ellipsis: self.ellipsis_mask,
            new_axis: self.new_axis_mask,
            shrink: self.shrink_axis_mask,
            offset: self.offset != 0,
        }
    }
}

/// Up to three index operands' entries (begin, end / size, strides).
type Specs = [[i64; MAX_SPEC]; 3];

/// Checks input 0 and output 0 of a strided read and its index operands `1..=specs`;
/// returns the parameters and, if every operand is constant, their entries.
fn prepare_sliced(
    ctx: &Prepare<'_>,
    specs: usize,
    strings: bool,
) -> Result<(Sliced, Option<Specs>, [usize; 3]), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    let element = moved_bytes(input.dtype, strings)?;
    if output.dtype != input.dtype {
        return Err(OUTPUT_TYPE);
    }
    let mut values = [[0i64; MAX_SPEC]; 3];
    let mut lens = [0usize; 3];
    let mut constant = true;
    for k in 0..specs {
        let d = ctx.input(k + 1)?;
        lens[k] = check_spec(&d, "index operand is not a 1-D int32 or int64 tensor")?;
        constant &= const_spec(&d, &mut values[k])?.is_some();
    }
    let params = Sliced {
        element: check::dim(element)?,
        begin_mask: 0,
        end_mask: 0,
        ellipsis_mask: 0,
        new_axis_mask: 0,
        shrink_axis_mask: 0,
        offset: 0,
        cached: 0,
    };
    Ok((params, constant.then_some(values), lens))
}

fn check_output(ctx: &Prepare<'_>, shape: Shape) -> Result<(), KernelError> {
    if ctx.output(0)?.shape == shape {
        Ok(())
    } else {
        Err(OUTPUT_SHAPE)
    }
}

fn prepare_slice(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (p, _, _) = prepare_sliced(ctx, 2, true)?;
    finish_sliced(ctx, p, planned_slice)
}

fn prepare_transpose(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (p, _, _) = prepare_sliced(ctx, 1, false)?;
    finish_sliced(ctx, p, planned_transpose)
}

fn prepare_strided(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: StridedSliceOptions = ctx.options()?;
    let (mut p, _, _) = prepare_sliced(ctx, 3, true)?;
    p.begin_mask = o.begin_mask;
    p.end_mask = o.end_mask;
    p.ellipsis_mask = o.ellipsis_mask;
    p.new_axis_mask = o.new_axis_mask;
    p.shrink_axis_mask = o.shrink_axis_mask;
    p.offset = u32::from(o.offset);
    finish_sliced(ctx, p, planned_strided)
}

/// What a strided read's constant operands plan, or `None` if one is computed at invoke.
type Planned = Option<(Plan, Shape)>;

/// With constant operands: checks the output's shape and keeps the plan (filled by `init`)
/// in persistent bytes, so that `invoke` reads no operand and computes nothing.
fn finish_sliced(
    ctx: &mut Prepare<'_>,
    mut p: Sliced,
    planned: fn(&Prepare<'_>, &Sliced) -> Result<Planned, KernelError>,
) -> Result<(), KernelError> {
    if let Some((_, shape)) = planned(ctx, &p)? {
        check_output(ctx, shape)?;
        p.cached = 1;
        ctx.request_persistent(core::mem::size_of::<Plan>());
    }
    ctx.set_params(&p);
    Ok(())
}

fn planned_slice(ctx: &Prepare<'_>, _: &Sliced) -> Result<Planned, KernelError> {
    let (_, values, lens) = prepare_sliced(ctx, 2, true)?;
    let Some(v) = values else { return Ok(None) };
    let input = ctx.input(0)?.shape;
    plan::slice(&input, &v[0][..lens[0]], &v[1][..lens[1]]).map(Some)
}

fn planned_transpose(ctx: &Prepare<'_>, _: &Sliced) -> Result<Planned, KernelError> {
    let (_, values, lens) = prepare_sliced(ctx, 1, false)?;
    let Some(v) = values else { return Ok(None) };
    let input = ctx.input(0)?.shape;
    plan::transpose(&input, &v[0][..lens[0]]).map(Some)
}

fn planned_strided(ctx: &Prepare<'_>, p: &Sliced) -> Result<Planned, KernelError> {
    let (_, values, lens) = prepare_sliced(ctx, 3, true)?;
    let Some(v) = values else { return Ok(None) };
    let input = ctx.input(0)?.shape;
    plan::strided(
        &input,
        &v[0][..lens[0]],
        &v[1][..lens[1]],
        &v[2][..lens[2]],
        p.masks(),
    )
    .map(Some)
}

/// Stores the plan of constant operands in the persistent bytes.
fn init_sliced(
    ctx: &mut Init<'_, '_>,
    planned: fn(&Prepare<'_>, &Sliced) -> Result<Planned, KernelError>,
) -> Result<(), KernelError> {
    let p: Sliced = ctx.params();
    if p.cached == 0 {
        return Ok(());
    }
    let (plan, _) = planned(ctx.prepared(), &p)?.ok_or(KernelError::Mismatch {
        what: "constant operands no longer constant",
    })?;
    plan.simplified()
        .write_to_prefix(ctx.persistent())
        .map_err(|_| KernelError::Mismatch {
            what: "persistent bytes too short for the plan",
        })
}

fn init_slice(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    init_sliced(ctx, planned_slice)
}

fn init_transpose(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    init_sliced(ctx, planned_transpose)
}

fn init_strided(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    init_sliced(ctx, planned_strided)
}

/// The plan `init` kept, if the operands are constants.
fn cached(ctx: &Eval<'_>) -> Option<Plan> {
    let p: Sliced = ctx.params();
    if p.cached == 0 {
        return None;
    }
    Plan::read_from_prefix(ctx.persistent())
        .ok()
        .map(|(plan, _)| plan)
}

/// Reads index operands `1..=N` at invoke.
fn eval_specs<const N: usize>(
    ctx: &Eval<'_>,
) -> Result<([[i64; MAX_SPEC]; N], [usize; N]), KernelError> {
    let mut values = [[0i64; MAX_SPEC]; N];
    let mut lens = [0usize; N];
    for k in 0..N {
        lens[k] = eval_spec(ctx, k + 1, &mut values[k])?;
    }
    Ok((values, lens))
}

fn eval_slice(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if let Some(plan) = cached(ctx) {
        return copy_planned(ctx, &plan);
    }
    let (v, n) = eval_specs::<2>(ctx)?;
    let input = ctx.input_shape(0)?;
    let planned = plan::slice(&input, &v[0][..n[0]], &v[1][..n[1]])?;
    run_plan(ctx, planned)
}

fn eval_transpose(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if let Some(plan) = cached(ctx) {
        return copy_planned(ctx, &plan);
    }
    let (v, n) = eval_specs::<1>(ctx)?;
    let input = ctx.input_shape(0)?;
    let planned = plan::transpose(&input, &v[0][..n[0]])?;
    run_plan(ctx, planned)
}

fn eval_strided(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if let Some(plan) = cached(ctx) {
        return copy_planned(ctx, &plan);
    }
    let p: Sliced = ctx.params();
    let (v, n) = eval_specs::<3>(ctx)?;
    let input = ctx.input_shape(0)?;
    let planned = plan::strided(
        &input,
        &v[0][..n[0]],
        &v[1][..n[1]],
        &v[2][..n[2]],
        p.masks(),
    )?;
    run_plan(ctx, planned)
}

/// Checks the computed shape against the output's and copies.
fn run_plan(ctx: &mut Eval<'_>, (plan, shape): (Plan, Shape)) -> Result<(), KernelError> {
    if ctx.output_shape(0)? != shape {
        return Err(OUTPUT_SHAPE);
    }
    copy_planned(ctx, &plan)
}

/// Copies input 0 into output 0 as `plan` says (its shape was checked).
fn copy_planned(ctx: &mut Eval<'_>, plan: &Plan) -> Result<(), KernelError> {
    let p: Sliced = ctx.params();
    if p.element == 0 {
        let strings = ctx.input_strings(0)?;
        if strings.len() != ctx.input_shape(0)?.elements() {
            return Err(KernelError::Mismatch {
                what: "string count differs from the input's shape",
            });
        }
        let picked = plan
            .positions()
            .map(move |i| strings.get(i).unwrap_or_default());
        return write_strings(ctx, 0, picked);
    }
    let src = ctx.input_bytes(0)?;
    let dst = ctx.output_bytes(0)?;
    copy_plan(plan, p.element as usize, src, dst)
}

// ---- SHAPE ----

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct ShapeParams {
    wide: u32,
}

fn prepare_shape(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    let wide = match output.dtype {
        TensorType::Int32 => 0,
        TensorType::Int64 => 1,
        _ => {
            return Err(KernelError::Unsupported {
                what: "SHAPE output other than int32 or int64",
            });
        }
    };
    if Shape::new(&[input.shape.rank()]) != Some(output.shape) {
        return Err(OUTPUT_SHAPE);
    }
    ctx.set_params(&ShapeParams { wide });
    Ok(())
}

fn eval_shape(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: ShapeParams = ctx.params();
    let shape = ctx.input_shape(0)?;
    let too_big = KernelError::Unsupported {
        what: "dimension over the output type",
    };
    let out = ctx.output_bytes(0)?;
    if p.wide != 0 {
        let out = words_mut::<i64>(out)?;
        for (o, &d) in out.iter_mut().zip(shape.dims()) {
            *o = i64::try_from(d).map_err(|_| too_big)?;
        }
    } else {
        let out = words_mut::<i32>(out)?;
        for (o, &d) in out.iter_mut().zip(shape.dims()) {
            *o = i32::try_from(d).map_err(|_| too_big)?;
        }
    }
    Ok(())
}

// ---- FILL ----

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Filled {
    /// Element bytes, 0 for strings.
    element: u32,
}

/// Whether FILL's `dims` entries are exactly `shape`.
fn dims_match(dims: &[i64], shape: &Shape) -> bool {
    dims.len() == shape.rank()
        && dims
            .iter()
            .zip(shape.dims())
            .all(|(&a, &b)| usize::try_from(a).ok() == Some(b))
}

const FILL_DIMS: KernelError = KernelError::Mismatch {
    what: "FILL dims differ from the output's shape",
};

fn prepare_fill(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let dims = ctx.input(0)?;
    let value = ctx.input(1)?;
    let output = ctx.output(0)?;
    let n = check_spec(&dims, "FILL dims are not a 1-D int32 or int64 tensor")?;
    let element = moved_bytes(value.dtype, true)?;
    if value.shape.elements() != 1 || value.shape.rank() != 0 {
        return Err(KernelError::Mismatch {
            what: "FILL value is not a scalar",
        });
    }
    if output.dtype != value.dtype {
        return Err(OUTPUT_TYPE);
    }
    same_quantization(&value, &output, true)?;
    let mut v = [0i64; MAX_SPEC];
    if const_spec(&dims, &mut v)?.is_some() && !dims_match(&v[..n], &output.shape) {
        return Err(FILL_DIMS);
    }
    ctx.set_params(&Filled {
        element: check::dim(element)?,
    });
    Ok(())
}

fn eval_fill(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Filled = ctx.params();
    let mut v = [0i64; MAX_SPEC];
    let n = eval_spec(ctx, 0, &mut v)?;
    let shape = ctx.output_shape(0)?;
    if !dims_match(&v[..n], &shape) {
        return Err(FILL_DIMS);
    }
    let count = shape.elements();
    if p.element == 0 {
        let strings = ctx.input_strings(1)?;
        let value = strings.get(0).ok_or(KernelError::Mismatch {
            what: "FILL value holds no string",
        })?;
        return write_strings(ctx, 0, core::iter::repeat_n(value, count));
    }
    let value = ctx.input_bytes(1)?;
    let dst = ctx.output_bytes(0)?;
    fill(value, dst, p.element as usize)
}

/// Repeats the one element in `value` over `dst`.
fn fill(value: &[u8], dst: &mut [u8], element: usize) -> Result<(), KernelError> {
    let short = KernelError::Mismatch {
        what: "FILL value shorter than one element",
    };
    let value = value.get(..element).ok_or(short)?;
    match element {
        1 => dst.fill(value[0]),
        2 => words_mut::<u16>(dst)?.fill(words::<u16>(value)?[0]),
        4 => words_mut::<u32>(dst)?.fill(words::<u32>(value)?[0]),
        8 => words_mut::<u64>(dst)?.fill(words::<u64>(value)?[0]),
        _ => {
            for d in dst.chunks_exact_mut(element) {
                d.copy_from_slice(value);
            }
        }
    }
    Ok(())
}
