//! Non-maximum suppression as LiteRT's `detection_postprocess.cc` runs it, in the scratch
//! the kernel laid out: one class's NMS (`NonMaxSuppressionSingleClassHelper`), the fast
//! multi-class NMS over each anchor's best classes, and the regular one over every class,
//! with LiteRT's orderings: candidates by score, ties in anchor order (`std::stable_sort`);
//! an anchor's classes by `ArgMaxVector` or libstdc++'s `std::partial_sort` (a heap
//! select, whose order of equal scores is its own); per-class results merged as
//! `std::inplace_merge` does (earlier classes first among equal scores).

use core::cmp::Ordering;

use super::{Corners, Params};
use crate::interpreter::KernelError;

const SCRATCH: KernelError = KernelError::Mismatch {
    what: "scratch smaller than asked",
};

/// The decoded boxes and the working arrays of one NMS.
pub(super) struct Candidates<'a> {
    /// Decoded boxes, `(ymin, xmin, ymax, xmax)` per anchor.
    pub boxes: &'a [f32],
    /// The candidates' anchors, in score order.
    pub order: &'a mut [u32],
    /// Whether each candidate (in `order`) is still in the running.
    pub active: &'a mut [u8],
    /// The selected anchors, in selection order.
    pub selected: &'a mut [u32],
    pub score_threshold: f32,
    pub iou_threshold: f32,
}

/// Box `i` of the decoded boxes.
fn corners(boxes: &[f32], i: u32) -> Corners {
    let at = i as usize * 4;
    match boxes.get(at..at + 4) {
        Some(&[ymin, xmin, ymax, xmax]) => Corners {
            ymin,
            xmin,
            ymax,
            xmax,
        },
        _ => Corners::default(),
    }
}

/// `std::max<float>(a, b)`: `a` unless `a < b`.
#[inline(always)]
fn max(a: f32, b: f32) -> f32 {
    if a < b { b } else { a }
}

/// `std::min<float>(a, b)`: `a` unless `b < a`.
#[inline(always)]
fn min(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

/// `ComputeIntersectionOverUnion`: 0 when either box has no area.
pub(crate) fn iou(i: Corners, j: Corners) -> f32 {
    let area_i = (i.ymax - i.ymin) * (i.xmax - i.xmin);
    let area_j = (j.ymax - j.ymin) * (j.xmax - j.xmin);
    if area_i <= 0.0 || area_j <= 0.0 {
        return 0.0;
    }
    let ymin = max(i.ymin, j.ymin);
    let xmin = max(i.xmin, j.xmin);
    let ymax = min(i.ymax, j.ymax);
    let xmax = min(i.xmax, j.xmax);
    let intersection = max(ymax - ymin, 0.0) * max(xmax - xmin, 0.0);
    intersection / (area_i + area_j - intersection)
}

/// `values[a]` before `values[b]`: the greater score first, equal ones (never NaN here: a
/// candidate passed `>=` a threshold) in index order, as a stable sort leaves them.
fn by_score(values: &[f32], a: u32, b: u32) -> Ordering {
    let v = |i: u32| values.get(i as usize).copied().unwrap_or(0.0);
    let (x, y) = (v(a), v(b));
    if x > y {
        Ordering::Less
    } else if y > x {
        Ordering::Greater
    } else {
        a.cmp(&b)
    }
}

impl Candidates<'_> {
    /// `NonMaxSuppressionSingleClassHelper` over `scores` (one per anchor): the anchors at
    /// or over the score threshold by decreasing score, each kept unless it overlaps a kept
    /// one by more than the IoU threshold, at most `max_detections`. Returns how many, in
    /// `self.selected`.
    pub(super) fn single_class(
        &mut self,
        scores: &[f32],
        max_detections: usize,
    ) -> Result<usize, KernelError> {
        let mut kept = 0;
        for (i, &s) in scores.iter().enumerate() {
            if s >= self.score_threshold {
                *self.order.get_mut(kept).ok_or(SCRATCH)? = i as u32;
                kept += 1;
            }
        }
        let order = self.order.get_mut(..kept).ok_or(SCRATCH)?;
        order.sort_unstable_by(|&a, &b| by_score(scores, a, b));
        let active = self.active.get_mut(..kept).ok_or(SCRATCH)?;
        active.fill(1);
        let output_size = kept.min(max_detections);
        let mut remaining = kept;
        let mut count = 0;
        for i in 0..kept {
            if remaining == 0 || count >= output_size {
                break;
            }
            if active[i] != 1 {
                continue;
            }
            *self.selected.get_mut(count).ok_or(SCRATCH)? = order[i];
            count += 1;
            active[i] = 0;
            remaining -= 1;
            let box_i = corners(self.boxes, order[i]);
            for j in i + 1..kept {
                if active[j] == 1
                    && iou(box_i, corners(self.boxes, order[j])) > self.iou_threshold
                {
                    active[j] = 0;
                    remaining -= 1;
                }
            }
        }
        Ok(count)
    }
}

/// `ArgMaxVector<float>`: the first greatest value's index, NaN skipped (0 when all are).
pub(crate) fn arg_max(values: &[f32]) -> usize {
    let Some(&first) = values.first() else {
        return 0;
    };
    let (mut best, mut at) = (first, 0);
    for (i, &v) in values.iter().enumerate().skip(1) {
        if !v.is_nan() && (best.is_nan() || v > best) {
            best = v;
            at = i;
        }
    }
    if best.is_nan() { 0 } else { at }
}

/// libstdc++'s `std::partial_sort(first, first + middle, last, less)` over `v`: a heap of
/// the first `middle` (`__make_heap`), each later element that `less` puts before the top
/// swapped in (`__heap_select`), then the heap sorted (`__sort_heap`).
pub(crate) fn partial_sort(v: &mut [u32], middle: usize, less: impl Fn(u32, u32) -> bool) {
    let middle = middle.min(v.len());
    if middle == 0 {
        return;
    }
    make_heap(&mut v[..middle], &less);
    for i in middle..v.len() {
        if less(v[i], v[0]) {
            // __pop_heap(first, middle, i): the top goes to i, i's value sifts in.
            let value = v[i];
            v[i] = v[0];
            adjust_heap(&mut v[..middle], 0, value, &less);
        }
    }
    let mut last = middle;
    while last > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[0];
        adjust_heap(&mut v[..last], 0, value, &less);
    }
}

/// `std::__make_heap`.
fn make_heap(v: &mut [u32], less: &impl Fn(u32, u32) -> bool) {
    let len = v.len();
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = v[parent];
        adjust_heap(v, parent, value, less);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

/// `std::__adjust_heap(first, hole, len, value)`: the hole sifted down to a leaf along the
/// larger children, then `value` pushed up from there (`std::__push_heap`).
fn adjust_heap(v: &mut [u32], mut hole: usize, value: u32, less: &impl Fn(u32, u32) -> bool) {
    let len = v.len();
    let top = hole;
    let mut child = hole;
    while child < len.saturating_sub(1) / 2 {
        child = 2 * (child + 1);
        if less(v[child], v[child - 1]) {
            child -= 1;
        }
        v[hole] = v[child];
        hole = child;
    }
    if len & 1 == 0 && len >= 2 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[hole] = v[child - 1];
        hole = child - 1;
    }
    // __push_heap(first, hole, top, value).
    let mut parent = hole.saturating_sub(1) / 2;
    while hole > top && less(v[parent], value) {
        v[hole] = v[parent];
        hole = parent;
        parent = hole.saturating_sub(1) / 2;
    }
    v[hole] = value;
}

/// An anchor's `per` best classes into `classes` (`DecreasingPartialArgSort`): the first
/// greatest alone, else `std::partial_sort` of all by decreasing score.
fn top_classes(scores: &[f32], per: usize, classes: &mut [u32]) -> Result<(), KernelError> {
    let classes = classes.get_mut(..scores.len()).ok_or(SCRATCH)?;
    if per == 1 {
        *classes.first_mut().ok_or(SCRATCH)? = arg_max(scores) as u32;
    } else {
        for (i, c) in classes.iter_mut().enumerate() {
            *c = i as u32;
        }
        let v = |i: u32| scores.get(i as usize).copied().unwrap_or(0.0);
        partial_sort(classes, per, |a, b| v(a) > v(b));
    }
    Ok(())
}

/// The box, class and score outputs.
type Outputs<'a> = [&'a mut [f32]; 3];

/// Writes detection `row`: anchor `anchor`'s box, `class`, `score`.
fn write(
    out: &mut Outputs<'_>,
    boxes: &[f32],
    row: usize,
    anchor: u32,
    class: u32,
    score: f32,
) -> Result<(), KernelError> {
    let at = anchor as usize * 4;
    let b = boxes.get(at..at + 4).ok_or(SCRATCH)?;
    let [out_boxes, out_classes, out_scores] = out;
    out_boxes
        .get_mut(row * 4..row * 4 + 4)
        .ok_or(SCRATCH)?
        .copy_from_slice(b);
    *out_classes.get_mut(row).ok_or(SCRATCH)? = class as f32;
    *out_scores.get_mut(row).ok_or(SCRATCH)? = score;
    Ok(())
}

/// One anchor's class scores (past the background column).
fn row_scores<'s>(
    scores: &'s [f32],
    p: &Params,
    label_offset: usize,
    anchor: usize,
) -> Result<&'s [f32], KernelError> {
    let start = anchor * p.score_len as usize + label_offset;
    scores
        .get(start..start + p.num_classes as usize)
        .ok_or(SCRATCH)
}

/// `NonMaxSuppressionMultiClassFastHelper`: one NMS over each anchor's best score; each
/// selected anchor then fills `max_classes_per_detection` rows with its best classes.
/// Returns the number of detections.
pub(super) fn fast(
    c: &mut Candidates<'_>,
    scores: &[f32],
    best: &mut [f32],
    classes: &mut [u32],
    p: &Params,
    label_offset: usize,
    mut out: Outputs<'_>,
) -> Result<usize, KernelError> {
    let per = (p.max_classes_per_detection as usize).min(p.num_classes as usize);
    for (anchor, b) in best.iter_mut().enumerate() {
        let s = row_scores(scores, p, label_offset, anchor)?;
        top_classes(s, per, classes)?;
        let top = classes.first().copied().ok_or(SCRATCH)?;
        *b = s.get(top as usize).copied().ok_or(SCRATCH)?;
    }
    let count = c.single_class(best, p.max_detections as usize)?;
    let stride = p.max_classes_per_detection as usize;
    for (d, &anchor) in c.selected.get(..count).ok_or(SCRATCH)?.iter().enumerate() {
        let s = row_scores(scores, p, label_offset, anchor as usize)?;
        top_classes(s, per, classes)?;
        for (col, &class) in classes.iter().take(per).enumerate() {
            let score = s.get(class as usize).copied().ok_or(SCRATCH)?;
            write(&mut out, c.boxes, stride * d + col, anchor, class, score)?;
        }
    }
    Ok(count)
}

/// The regular NMS's merged detections: combined indices (`anchor * score_len + class +
/// label_offset`, as LiteRT's `BoxInfo`) and scores, and room for a merge.
pub(super) struct Regular<'a> {
    pub index: &'a mut [u32],
    pub score: &'a mut [f32],
    pub copy_index: &'a mut [u32],
    pub copy_score: &'a mut [f32],
}

impl Regular<'_> {
    /// `std::inplace_merge` of `[0, mid)` and `[mid, end)` by decreasing score (an equal
    /// score from the first range first), keeping the first `keep`.
    fn merge(&mut self, mid: usize, end: usize, keep: usize) -> Result<(), KernelError> {
        let (mut a, mut b) = (0, mid);
        for o in 0..keep {
            let from_b = a >= mid || (b < end && self.score[b] > self.score[a]);
            let src = if from_b { &mut b } else { &mut a };
            *self.copy_index.get_mut(o).ok_or(SCRATCH)? = self.index[*src];
            *self.copy_score.get_mut(o).ok_or(SCRATCH)? = self.score[*src];
            *src += 1;
        }
        self.index[..keep].copy_from_slice(&self.copy_index[..keep]);
        self.score[..keep].copy_from_slice(&self.copy_score[..keep]);
        Ok(())
    }
}

/// `NonMaxSuppressionMultiClassRegularHelper` (one thread, as LiteRT runs it with one): an
/// NMS per class over that class's scores, each class's selections merged into the best
/// `max_detections` so far. Returns the number of detections.
pub(super) fn regular(
    c: &mut Candidates<'_>,
    scores: &[f32],
    column: &mut [f32],
    mut r: Regular<'_>,
    p: &Params,
    label_offset: usize,
    mut out: Outputs<'_>,
) -> Result<usize, KernelError> {
    let score_len = p.score_len as usize;
    let max_detections = p.max_detections as usize;
    let capacity = max_detections + p.detections_per_class as usize;
    if r.index.len() < capacity || r.score.len() < capacity {
        return Err(SCRATCH);
    }
    let mut len = 0;
    for class in 0..p.num_classes as usize {
        for (anchor, v) in column.iter_mut().enumerate() {
            *v = scores
                .get(anchor * score_len + class + label_offset)
                .copied()
                .ok_or(SCRATCH)?;
        }
        let k = c.single_class(column, p.detections_per_class as usize)?;
        if k == 0 {
            continue;
        }
        for (i, &anchor) in c.selected.get(..k).ok_or(SCRATCH)?.iter().enumerate() {
            let index = (anchor as usize) * score_len + class + label_offset;
            r.index[len + i] = u32::try_from(index).map_err(|_| SCRATCH)?;
            r.score[len + i] = column.get(anchor as usize).copied().ok_or(SCRATCH)?;
        }
        let keep = (len + k).min(max_detections);
        r.merge(len, len + k, keep)?;
        len = keep;
    }
    for row in 0..len {
        let index = r.index[row] as usize;
        let anchor = index / score_len;
        let class = index - anchor * score_len - label_offset;
        write(
            &mut out,
            c.boxes,
            row,
            anchor as u32,
            class as u32,
            r.score[row],
        )?;
    }
    Ok(len)
}
