//! `TFLite_Detection_PostProcess`, the SSD post-processing custom operator, as LiteRT's
//! `detection_postprocess.cc` computes it: box encodings decoded against the anchors
//! (centre-size to corners, in double as LiteRT does), then non-maximum suppression, fast
//! (one NMS over each anchor's best class, its top classes kept with LiteRT's
//! `ArgMaxVector` or `std::partial_sort` ordering) or regular (one NMS per class, the
//! results merged by score as `std::inplace_merge` merges them), written to the four float
//! outputs: boxes, classes, scores, number of detections.
//!
//! Inputs: box encodings `[1, boxes, >= 4]` and class scores `[1, boxes, classes (+ 1 for a
//! background column)]`, float32 or uint8 (the quantized type LiteRT's kernel takes,
//! dequantized as it does: boxes in float, scores through double); anchors `[boxes, 4]`
//! (float32 with float boxes, uint8 with uint8 boxes). Options: a FlexBuffer map
//! (`max_detections`, `max_classes_per_detection`, `detections_per_class` (default 100),
//! `use_regular_nms` (default false), `nms_score_threshold`, `nms_iou_threshold`,
//! `num_classes`, `y_scale`, `x_scale`, `h_scale`, `w_scale`; absent numbers read as 0, as
//! flexbuffers' accessors give them).
//!
//! Every candidate order is LiteRT's: candidates sorted by score with ties in index order
//! (its `std::stable_sort`), the suppression loop in that order. All working memory (decoded
//! boxes, dequantized scores, the candidate order, flags, the merged per-class results) is
//! the operator's scratch in the arena, sized at set-up. Output entries LiteRT leaves
//! unwritten (past the detections found) are zeros.

#[cfg(test)]
mod tests;

mod nms;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::quant;
use super::base::tensors::{words, words_mut};
use crate::interpreter::{CustomKernel, Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, FlexMap, FlexType, FlexValue, TensorType};

use nms::{Candidates, Regular};

/// `TFLite_Detection_PostProcess`.
pub static TFLITE_DETECTION_POSTPROCESS: CustomKernel = CustomKernel {
    name: "TFLite_Detection_PostProcess",
    kernel: Kernel {
        op: BuiltinOperator::Custom,
        prepare,
        init: Some(init),
        eval,
    },
};

/// The operator's options and sizes, as `eval` needs them.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    max_detections: u32,
    max_classes_per_detection: u32,
    /// Regular NMS: `min(detections_per_class, max_detections)`.
    detections_per_class: u32,
    num_classes: u32,
    /// Anchors (box encodings' dimension 1).
    boxes: u32,
    /// Values per box encoding (its dimension 2; the first 4 are read).
    box_len: u32,
    /// Scores per anchor: `num_classes`, or one more with a background column first.
    score_len: u32,
    /// [`REGULAR`], [`BOXES_U8`], [`SCORES_U8`].
    flags: u32,
    score_threshold: f32,
    iou_threshold: f32,
    /// `y_scale`, `x_scale`, `h_scale`, `w_scale`.
    scales: [f32; 4],
}

const REGULAR: u32 = 1;
const BOXES_U8: u32 = 2;
const SCORES_U8: u32 = 4;

/// The uint8 inputs' dequantization, in the persistent bytes: `(scale, zero point)` of the
/// box encodings, the anchors and the scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Dequant {
    boxes: Affine,
    anchors: Affine,
    scores: Affine,
}

/// One tensor's scale and zero point.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Affine {
    scale: f32,
    zero_point: i32,
}

const OPTIONS: KernelError = KernelError::Mismatch {
    what: "TFLite_Detection_PostProcess options are not a FlexBuffer map of numbers",
};

/// An option as an `i32` (flexbuffers' `AsInt32`: absent or null is 0, a float truncated);
/// `default` when absent and one is given.
fn int_option(m: &FlexMap<'_>, key: &str, default: Option<i32>) -> Result<i32, KernelError> {
    let v = match m.get(key).filter(|v| v.flex_type() != FlexType::Null) {
        None => return Ok(default.unwrap_or(0)),
        Some(v) => v,
    };
    let n = match v.as_i64() {
        Some(n) => n,
        None => {
            let f = v.as_f64().ok_or(OPTIONS)?;
            if !f.is_finite() {
                return Err(OPTIONS);
            }
            f as i64
        }
    };
    i32::try_from(n).map_err(|_| OPTIONS)
}

/// An option as an `f32` (absent: 0).
fn float_option(m: &FlexMap<'_>, key: &str) -> Result<f32, KernelError> {
    match m.get(key).filter(|v| v.flex_type() != FlexType::Null) {
        None => Ok(0.0),
        Some(v) => Ok(v.as_f64().ok_or(OPTIONS)? as f32),
    }
}

/// An option as a bool (absent: `default`).
fn bool_option(m: &FlexMap<'_>, key: &str, default: bool) -> Result<bool, KernelError> {
    match m.get(key).filter(|v| v.flex_type() != FlexType::Null) {
        None => Ok(default),
        Some(v) => v.as_bool().ok_or(OPTIONS),
    }
}

const SIZE: KernelError = KernelError::Unsupported {
    what: "TFLite_Detection_PostProcess working memory over u32",
};

/// Where each piece of the scratch lies (bytes; every piece a multiple of 4 long, so each
/// starts 4-byte aligned in the 16-byte aligned scratch).
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Decoded boxes: `4 * boxes` f32.
    boxes: usize,
    /// Dequantized scores (uint8 scores only): `boxes * score_len` f32.
    scores: usize,
    /// One score per anchor (fast: each anchor's best; regular: one class's): `boxes` f32.
    column: usize,
    /// The candidates' anchors in order: `boxes` u32.
    order: usize,
    /// The candidates still in the running: `boxes` bytes, rounded up to 4.
    active: usize,
    /// The anchors NMS selects: up to `max_detections` (regular: `detections_per_class`).
    selected: usize,
    /// One anchor's classes in order (fast NMS): `num_classes` u32.
    classes: usize,
    /// Regular NMS's merged detections and the merge's copy: `2 * (max_detections +
    /// detections_per_class)` of (u32 index, f32 score).
    merged: usize,
}

impl Layout {
    fn of(p: &Params) -> Result<Self, KernelError> {
        let n = p.boxes as usize;
        let words = |count: usize| count.checked_mul(4).ok_or(SIZE);
        let regular = p.flags & REGULAR != 0;
        let cap = if regular {
            p.detections_per_class
        } else {
            p.max_detections
        };
        let merged = if regular {
            let entries = (p.max_detections as usize)
                .checked_add(p.detections_per_class as usize)
                .ok_or(SIZE)?;
            words(entries)?.checked_mul(4).ok_or(SIZE)?
        } else {
            0
        };
        Ok(Self {
            boxes: words(n.checked_mul(4).ok_or(SIZE)?)?,
            scores: if p.flags & SCORES_U8 != 0 {
                words(n.checked_mul(p.score_len as usize).ok_or(SIZE)?)?
            } else {
                0
            },
            column: words(n)?,
            order: words(n)?,
            active: n.checked_next_multiple_of(4).ok_or(SIZE)?,
            selected: words((cap as usize).min(n))?,
            classes: if regular {
                0
            } else {
                words(p.num_classes as usize)?
            },
            merged,
        })
    }

    fn total(&self) -> Result<usize, KernelError> {
        [
            self.scores,
            self.column,
            self.order,
            self.active,
            self.selected,
            self.classes,
            self.merged,
        ]
        .iter()
        .try_fold(self.boxes, |a, &b| a.checked_add(b))
        .filter(|&t| u32::try_from(t).is_ok())
        .ok_or(SIZE)
    }
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input_count() != 3 || ctx.output_count() != 4 {
        return Err(KernelError::Arity {
            what: "TFLite_Detection_PostProcess's 3 inputs and 4 outputs",
        });
    }
    let root = FlexValue::root(ctx.custom_options()).map_err(|_| OPTIONS)?;
    let m = root.as_map().ok_or(OPTIONS)?;
    let max_detections = int_option(&m, "max_detections", None)?;
    let max_classes = int_option(&m, "max_classes_per_detection", None)?;
    let per_class = int_option(&m, "detections_per_class", Some(100))?;
    let regular = bool_option(&m, "use_regular_nms", false)?;
    let score_threshold = float_option(&m, "nms_score_threshold")?;
    let iou_threshold = float_option(&m, "nms_iou_threshold")?;
    let num_classes = int_option(&m, "num_classes", None)?;
    let scales = [
        float_option(&m, "y_scale")?,
        float_option(&m, "x_scale")?,
        float_option(&m, "h_scale")?,
        float_option(&m, "w_scale")?,
    ];
    // LiteRT checks these in eval, before or in every NMS (which always runs: there is at
    // least one class); they are refused here instead.
    let bad = |what| Err(KernelError::Mismatch { what });
    if max_detections < 0 {
        return bad("max_detections negative");
    }
    if max_classes < 1 {
        return bad("max_classes_per_detection below 1");
    }
    if num_classes < 1 {
        return bad("num_classes below 1");
    }
    if !(iou_threshold > 0.0 && iou_threshold <= 1.0) {
        return bad("nms_iou_threshold outside (0, 1]");
    }
    let per_class = per_class.min(max_detections);
    if regular && per_class < 1 {
        return bad("regular NMS with detections_per_class or max_detections below 1");
    }

    let boxes = ctx.input(0)?;
    let scores = ctx.input(1)?;
    let anchors = ctx.input(2)?;
    if boxes.shape.rank() != 3 || scores.shape.rank() != 3 || anchors.shape.rank() != 2 {
        return bad("box encodings and scores not 3-D, or anchors not 2-D");
    }
    let d = |s: &crate::interpreter::Shape, i| s.dim(i).unwrap_or(0);
    let n = d(&boxes.shape, 1);
    if d(&boxes.shape, 0) != 1 || d(&scores.shape, 0) != 1 {
        return bad("box encodings or scores with a batch other than 1");
    }
    if d(&boxes.shape, 2) < 4 {
        return bad("box encodings shorter than 4");
    }
    if d(&scores.shape, 1) != n {
        return bad("scores for another number of anchors than the box encodings");
    }
    if d(&anchors.shape, 0) < n || d(&anchors.shape, 1) != 4 {
        return bad("anchors not [anchors, 4] for every box encoding");
    }
    let score_len = d(&scores.shape, 2);
    let classes = num_classes as usize;
    if !(score_len == classes || score_len == classes + 1) {
        return bad("scores per anchor neither num_classes nor num_classes + 1");
    }
    let mut flags = u32::from(regular);
    match (boxes.dtype, anchors.dtype) {
        (TensorType::Float32, TensorType::Float32) => {}
        (TensorType::Uint8, TensorType::Uint8) => flags |= BOXES_U8,
        (TensorType::Float32 | TensorType::Uint8, _) => {
            return bad("anchors of another type than the box encodings");
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "box encodings other than FLOAT32 or UINT8",
            });
        }
    }
    match scores.dtype {
        TensorType::Float32 => {}
        TensorType::Uint8 => flags |= SCORES_U8,
        _ => {
            return Err(KernelError::Unsupported {
                what: "scores other than FLOAT32 or UINT8",
            });
        }
    }

    let rows = (max_detections as usize)
        .checked_mul(max_classes as usize)
        .ok_or(check::DIM_OVER_U32)?;
    let shapes: [&[usize]; 4] = [&[1, rows, 4], &[1, rows], &[1, rows], &[1]];
    for (i, shape) in shapes.iter().enumerate() {
        let out = ctx.output(i)?;
        if out.dtype != TensorType::Float32 {
            return Err(KernelError::Mismatch {
                what: "TFLite_Detection_PostProcess output not FLOAT32",
            });
        }
        // Old converters left these outputs' shapes unknown (`[]`), for the kernel to set,
        // as LiteRT's does.
        ctx.set_output_shape(i, shape)?;
    }

    let p = Params {
        max_detections: max_detections as u32,
        max_classes_per_detection: max_classes as u32,
        detections_per_class: per_class.max(0) as u32,
        num_classes: num_classes as u32,
        boxes: check::dim(n)?,
        box_len: check::dim(d(&boxes.shape, 2))?,
        score_len: check::dim(score_len)?,
        flags,
        score_threshold,
        iou_threshold,
        scales,
    };
    if flags & (BOXES_U8 | SCORES_U8) != 0 {
        dequantization(ctx)?;
        ctx.request_persistent(size_of::<Dequant>());
    }
    ctx.request_scratch(Layout::of(&p)?.total()?);
    ctx.set_params(&p);
    Ok(())
}

/// The uint8 inputs' scales and zero points (unset for float inputs).
fn dequantization(ctx: &Prepare<'_>) -> Result<Dequant, KernelError> {
    let q = |i: usize| -> Result<Affine, KernelError> {
        let d = ctx.input(i)?;
        if d.dtype != TensorType::Uint8 {
            return Ok(Affine::default());
        }
        let (scale, zero_point) = quant::per_tensor(d.quantization(), d.dtype)?;
        Ok(Affine { scale, zero_point })
    };
    Ok(Dequant {
        boxes: q(0)?,
        scores: q(1)?,
        anchors: q(2)?,
    })
}

fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if p.flags & (BOXES_U8 | SCORES_U8) == 0 {
        return Ok(());
    }
    let d = dequantization(ctx.prepared())?;
    let bytes = d.as_bytes();
    ctx.persistent()
        .get_mut(..bytes.len())
        .ok_or(PERSISTENT)?
        .copy_from_slice(bytes);
    Ok(())
}

const PERSISTENT: KernelError = KernelError::Mismatch {
    what: "persistent bytes smaller than asked",
};

const SCRATCH: KernelError = KernelError::Mismatch {
    what: "scratch smaller than asked",
};

/// The next `count` elements of `rest` as `T`s.
fn take<'a, T: FromBytes + IntoBytes + KnownLayout>(
    rest: &mut &'a mut [u8],
    bytes: usize,
) -> Result<&'a mut [T], KernelError> {
    if rest.len() < bytes {
        return Err(SCRATCH);
    }
    let (head, tail) = core::mem::take(rest).split_at_mut(bytes);
    *rest = tail;
    words_mut(head)
}

/// A box as LiteRT's `BoxCornerEncoding`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Corners {
    pub ymin: f32,
    pub xmin: f32,
    pub ymax: f32,
    pub xmax: f32,
}

/// `DecodeCenterSizeBoxes` of one box: `(y, x, h, w)` against the anchor `(y, x, h, w)`, in
/// double, each corner rounded to float once.
fn decode(b: [f32; 4], a: [f32; 4], scales: [f32; 4]) -> Corners {
    let f = f64::from;
    let ycenter = (f(b[0]) / f(scales[0]) * f(a[2]) + f(a[0])) as f32;
    let xcenter = (f(b[1]) / f(scales[1]) * f(a[3]) + f(a[1])) as f32;
    let half_h = (0.5 * libm::exp(f(b[2]) / f(scales[2])) * f(a[2])) as f32;
    let half_w = (0.5 * libm::exp(f(b[3]) / f(scales[3])) * f(a[3])) as f32;
    Corners {
        ymin: ycenter - half_h,
        xmin: xcenter - half_w,
        ymax: ycenter + half_h,
        xmax: xcenter + half_w,
    }
}

/// LiteRT's `Dequantizer` of box encodings and anchors: `(x - zero_point) * scale` in float.
fn dequantize_box(q: &[u8], a: Affine) -> [f32; 4] {
    let mut out = [0.0; 4];
    for (o, &v) in out.iter_mut().zip(q) {
        *o = (f32::from(v) - a.zero_point as f32) * a.scale;
    }
    out
}

/// `optimized_ops::Dequantize` of the uint8 scores as LiteRT's x86 build runs it (its NEON
/// path through `NEON_2_SSE`, as 32-bit ARM without FMA): blocks of 8 as `x * scale +
/// (-zero_point * scale)` in float, multiply and add each rounded (`ScaleWithNewZeroPoint`);
/// the last `len % 8` as `scale * (x - zero_point)` in double. (LiteRT's aarch64 build fuses
/// the block's multiply-add, which can move a score by one ulp.)
fn dequantize_scores(q: &[u8], a: Affine, out: &mut [f32]) {
    let scale = f64::from(a.scale);
    let zero_times_scale = (-f64::from(a.zero_point) * scale) as f32;
    let blocks = q.len() / 8 * 8;
    let (head, tail) = q.split_at(blocks);
    let (out_head, out_tail) = out.split_at_mut(blocks.min(out.len()));
    for (o, &v) in out_head.iter_mut().zip(head) {
        *o = f32::from(v) * a.scale + zero_times_scale;
    }
    for (o, &v) in out_tail.iter_mut().zip(tail) {
        *o = quant::dequantize(i32::from(v), a.zero_point, scale);
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.boxes as usize;
    let box_len = p.box_len as usize;
    let score_len = p.score_len as usize;
    let dq: Dequant = if p.flags & (BOXES_U8 | SCORES_U8) != 0 {
        Dequant::read_from_prefix(ctx.persistent())
            .map_err(|_| PERSISTENT)?
            .0
    } else {
        Dequant::default()
    };
    let layout = Layout::of(&p)?;

    // Inputs and outputs first: they live as long as the context, the scratch as its borrow.
    let encodings = ctx.input_bytes(0)?;
    let raw_scores = ctx.input_bytes(1)?;
    let anchors = ctx.input_bytes(2)?;
    let rows = (p.max_detections as usize) * (p.max_classes_per_detection as usize);
    let out_boxes = output(ctx, 0, rows * 4)?;
    let out_classes = output(ctx, 1, rows)?;
    let out_scores = output(ctx, 2, rows)?;
    let out_count = output(ctx, 3, 1)?;
    for o in [&mut *out_boxes, &mut *out_classes, &mut *out_scores, &mut *out_count] {
        o.fill(0.0);
    }

    let mut rest = ctx.scratch();
    let decoded: &mut [f32] = take(&mut rest, layout.boxes)?;
    let dequantized: &mut [f32] = take(&mut rest, layout.scores)?;
    let column: &mut [f32] = take(&mut rest, layout.column)?;
    let order: &mut [u32] = take(&mut rest, layout.order)?;
    let active: &mut [u8] = take(&mut rest, layout.active)?;
    let selected: &mut [u32] = take(&mut rest, layout.selected)?;
    let classes: &mut [u32] = take(&mut rest, layout.classes)?;
    // Decode every box (DecodeCenterSizeBoxes).
    if p.flags & BOXES_U8 != 0 {
        let enc = encodings.get(..n * box_len).ok_or(check::SHORT)?;
        let anc = anchors.get(..n * 4).ok_or(check::SHORT)?;
        for ((out, e), a) in decoded
            .chunks_exact_mut(4)
            .zip(enc.chunks_exact(box_len))
            .zip(anc.chunks_exact(4))
        {
            let c = decode(
                dequantize_box(e, dq.boxes),
                dequantize_box(a, dq.anchors),
                p.scales,
            );
            out.copy_from_slice(&[c.ymin, c.xmin, c.ymax, c.xmax]);
        }
    } else {
        let enc: &[f32] = words(encodings)?;
        let anc: &[f32] = words(anchors)?;
        let enc = enc.get(..n * box_len).ok_or(check::SHORT)?;
        let anc = anc.get(..n * 4).ok_or(check::SHORT)?;
        for ((out, e), a) in decoded
            .chunks_exact_mut(4)
            .zip(enc.chunks_exact(box_len))
            .zip(anc.chunks_exact(4))
        {
            let c = decode([e[0], e[1], e[2], e[3]], [a[0], a[1], a[2], a[3]], p.scales);
            out.copy_from_slice(&[c.ymin, c.xmin, c.ymax, c.xmax]);
        }
    }
    // NMS refuses boxes with a minimum above their maximum (LiteRT's ValidateBoxes; NaN
    // passes).
    if decoded
        .chunks_exact(4)
        .any(|b| b[0] > b[2] || b[1] > b[3])
    {
        return Err(KernelError::Mismatch {
            what: "a decoded box has its minimum above its maximum",
        });
    }

    // The scores as floats.
    let scores: &[f32] = if p.flags & SCORES_U8 != 0 {
        let q = raw_scores.get(..n * score_len).ok_or(check::SHORT)?;
        dequantize_scores(q, dq.scores, dequantized);
        dequantized
    } else {
        let s: &[f32] = words(raw_scores)?;
        s.get(..n * score_len).ok_or(check::SHORT)?
    };

    let label_offset = score_len - p.num_classes as usize;
    let mut candidates = Candidates {
        boxes: decoded,
        order,
        active,
        selected,
        score_threshold: p.score_threshold,
        iou_threshold: p.iou_threshold,
    };
    let count = if p.flags & REGULAR == 0 {
        nms::fast(
            &mut candidates,
            scores,
            column,
            classes,
            &p,
            label_offset,
            [out_boxes, out_classes, out_scores],
        )?
    } else {
        // The merged detections and the merge's copy: four arrays of `entries`.
        let entries = (p.max_detections as usize) + (p.detections_per_class as usize);
        let regular = Regular {
            index: take(&mut rest, 4 * entries)?,
            score: take(&mut rest, 4 * entries)?,
            copy_index: take(&mut rest, 4 * entries)?,
            copy_score: take(&mut rest, 4 * entries)?,
        };
        nms::regular(
            &mut candidates,
            scores,
            column,
            regular,
            &p,
            label_offset,
            [out_boxes, out_classes, out_scores],
        )?
    };
    out_count[0] = count as f32;
    Ok(())
}

/// Output `i`'s first `n` floats.
fn output<'a>(ctx: &mut Eval<'a>, i: usize, n: usize) -> Result<&'a mut [f32], KernelError> {
    super::base::tensors::output_n(ctx, i, n)
}
