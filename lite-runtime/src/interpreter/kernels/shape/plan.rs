//! The strided reads of SLICE, STRIDED_SLICE and TRANSPOSE: each computes a
//! [`Plan`](super::super::base::strided::Plan) from its operands (TensorFlow Lite's rules for
//! begin, size, perm, masks and strides).

pub(crate) use super::super::base::strided::Plan;
use super::super::base::strided::{BAD_PLAN, strides};
use crate::interpreter::{KernelError, MAX_DIMS, Shape};

fn out_shape(dims: &[usize]) -> Result<Shape, KernelError> {
    Shape::new(dims).ok_or(KernelError::Unsupported {
        what: "output of more than 6 dimensions",
    })
}

/// SLICE: `begin` and `size` (`-1`: to the end) per dimension, as TensorFlow Lite checks
/// them (`0 <= begin`, `begin + size <= dim`).
pub(crate) fn slice(
    input: &Shape,
    begin: &[i64],
    size: &[i64],
) -> Result<(Plan, Shape), KernelError> {
    let dims = input.dims();
    if begin.len() != dims.len() || size.len() != dims.len() {
        return Err(KernelError::Mismatch {
            what: "begin and size do not have one entry per input dimension",
        });
    }
    let st = strides(dims);
    let mut plan = Plan::new();
    let mut out = [0usize; MAX_DIMS];
    for (k, &d) in dims.iter().enumerate() {
        let (b, s) = (begin[k], size[k]);
        let d = d as i64;
        if b < 0 || b > d {
            return Err(KernelError::IndexOutOfRange {
                input: 1,
                position: k,
                index: b,
                limit: d as usize + 1,
            });
        }
        let s = if s == -1 { d - b } else { s };
        if s < 0 || s > d - b {
            return Err(KernelError::IndexOutOfRange {
                input: 2,
                position: k,
                index: size[k],
                limit: (d - b) as usize + 1,
            });
        }
        out[k] = s as usize;
        plan.push(s as usize, st[k])?;
        plan.base += b as usize * st[k] as usize;
    }
    if plan.elements() == 0 {
        plan.base = 0;
    }
    Ok((plan, out_shape(&out[..dims.len()])?))
}

/// TRANSPOSE: output dimension `k` is input dimension `perm[k]`.
pub(crate) fn transpose(input: &Shape, perm: &[i64]) -> Result<(Plan, Shape), KernelError> {
    let dims = input.dims();
    if perm.len() != dims.len() {
        return Err(KernelError::Mismatch {
            what: "perm does not have one entry per input dimension",
        });
    }
    let st = strides(dims);
    let mut plan = Plan::new();
    let mut out = [0usize; MAX_DIMS];
    let mut seen = 0u32;
    for (k, &p) in perm.iter().enumerate() {
        let a = usize::try_from(p)
            .ok()
            .filter(|&a| a < dims.len() && seen & (1 << a) == 0)
            .ok_or(KernelError::IndexOutOfRange {
                input: 1,
                position: k,
                index: p,
                limit: dims.len(),
            })?;
        seen |= 1 << a;
        out[k] = dims[a];
        plan.push(dims[a], st[a])?;
    }
    Ok((plan, out_shape(&out[..dims.len()])?))
}

/// STRIDED_SLICE's options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    pub begin: i32,
    pub end: i32,
    pub ellipsis: i32,
    pub new_axis: i32,
    pub shrink: i32,
    pub offset: bool,
}

fn bit(mask: i32, i: usize) -> bool {
    i < 32 && (mask >> i) & 1 != 0
}

/// One dimension of a strided slice once the ellipsis and new axes are expanded
/// (TensorFlow Lite's `BuildStridedSliceParams`).
#[derive(Debug, Clone, Copy, Default)]
struct Axis {
    start: i64,
    stop: i64,
    stride: i64,
    begin_mask: bool,
    end_mask: bool,
    shrink: bool,
    /// Input dimension it walks; `None` for a new axis.
    input: Option<usize>,
}

/// STRIDED_SLICE, as TensorFlow Lite computes it: the spec expanded over the input's
/// dimensions (`BuildStridedSliceParams`), then per axis `StartForAxis` / `EndForAxis`.
/// A shrunk axis whose position is outside the input is an error (TensorFlow Lite leaves the
/// output unwritten there).
pub(crate) fn strided(
    input: &Shape,
    begin: &[i64],
    end: &[i64],
    stride: &[i64],
    m: Masks,
) -> Result<(Plan, Shape), KernelError> {
    let dims = input.dims();
    let n = begin.len();
    if end.len() != n || stride.len() != n {
        return Err(KernelError::Mismatch {
            what: "begin, end and strides differ in length",
        });
    }
    // Mask bits past the spec name no entry (TensorFlow Lite would still read some of them
    // and walk past the input): ignored.
    let keep = if n >= 32 { -1 } else { (1i32 << n) - 1 };
    let m = Masks {
        begin: m.begin & keep,
        end: m.end & keep,
        ellipsis: m.ellipsis & keep,
        new_axis: m.new_axis & keep,
        shrink: m.shrink & keep,
        offset: m.offset,
    };
    if m.ellipsis.count_ones() > 1 {
        return Err(KernelError::Unsupported {
            what: "more than one ellipsis in a strided slice",
        });
    }
    let num_add = (0..n)
        .filter(|&i| !bit(m.ellipsis, i) && bit(m.new_axis, i))
        .count();
    let effective = dims.len() + num_add;
    if effective > MAX_DIMS {
        return Err(KernelError::Unsupported {
            what: "strided slice over more than 6 dimensions",
        });
    }
    // Which effective axes the ellipsis covers and which are new.
    let (mut ell, mut new) = (0u32, 0u32);
    let (mut ell_start, mut expanded) = (effective, 0usize);
    let mut i = 0;
    while i < effective {
        if bit(m.ellipsis, i) {
            ell_start = i;
            let wide = (i + 1 + num_add + dims.len()) as i64 - n as i64;
            let stop = (i as i64 + 1).max(wide.min(effective as i64)) as usize;
            expanded = stop - i - 1;
            while i < stop {
                ell |= 1 << i;
                i += 1;
            }
            continue;
        }
        if i >= expanded && bit(m.new_axis, i - expanded) {
            new |= 1 << i;
        }
        i += 1;
    }
    let mut axes = [Axis::default(); MAX_DIMS];
    let (mut added_ell, mut added_axes) = (0usize, 0usize);
    for (i, a) in axes.iter_mut().enumerate().take(effective) {
        let whole = Axis {
            start: 0,
            stop: 0,
            stride: 1,
            begin_mask: true,
            end_mask: true,
            shrink: false,
            input: Some(i - added_axes),
        };
        *a = if ell & (1 << i) != 0 {
            added_ell = i.saturating_sub(ell_start);
            whole
        } else if new & (1 << i) != 0 {
            added_axes += 1;
            Axis {
                start: 0,
                stop: 1,
                stride: 1,
                input: None,
                ..Axis::default()
            }
        } else if i >= n + expanded {
            whole
        } else {
            let o = i - added_ell;
            let get = |v: &[i64]| v.get(o).copied().ok_or(BAD_PLAN);
            Axis {
                start: get(begin)?,
                stop: get(end)?,
                stride: get(stride)?,
                begin_mask: bit(m.begin, o),
                end_mask: bit(m.end, o),
                shrink: bit(m.shrink, o),
                input: Some(i - added_axes),
            }
        };
    }
    let walked = axes[..effective]
        .iter()
        .filter(|a| a.input.is_some())
        .count();
    let in_order = axes[..effective]
        .iter()
        .filter_map(|a| a.input)
        .enumerate()
        .all(|(k, d)| k == d);
    if walked != dims.len() || !in_order {
        return Err(KernelError::Mismatch {
            what: "strided slice spec does not fit the input's dimensions",
        });
    }
    let st = strides(dims);
    let mut plan = Plan::new();
    let mut out = [0usize; MAX_DIMS];
    let mut out_rank = 0;
    let mut empty = false;
    for (k, a) in axes.iter().enumerate().take(effective) {
        let size = match a.input {
            Some(d) => *dims.get(d).ok_or(KernelError::Mismatch {
                what: "strided slice spec does not fit the input's dimensions",
            })? as i64,
            None => 1,
        };
        if a.stride == 0 {
            return Err(KernelError::Mismatch {
                what: "a stride is 0",
            });
        }
        let start = start_for_axis(a, size);
        let count = if a.shrink {
            if start < 0 || start >= size {
                return Err(KernelError::IndexOutOfRange {
                    input: 1,
                    position: k,
                    index: a.start,
                    limit: size as usize,
                });
            }
            1
        } else {
            let stop = end_for_axis(a, size, start, m.offset);
            ceil_div(i128::from(stop - start), i128::from(a.stride)).clamp(0, size.into()) as usize
        };
        if !a.shrink {
            *out.get_mut(out_rank).ok_or(BAD_PLAN)? = count;
            out_rank += 1;
        }
        if count == 0 {
            empty = true;
        }
        if let Some(d) = a.input {
            let s = st[d];
            plan.push(count, s.saturating_mul(a.stride as isize))?;
            if !empty {
                plan.base += start as usize * s as usize;
            }
        }
    }
    if empty {
        plan.base = 0;
    }
    Ok((plan, out_shape(&out[..out_rank])?))
}

/// TensorFlow Lite's `StartForAxis` (the dynamic-params form its reference kernel uses):
/// negative from the end, clamped, then the begin mask.
fn start_for_axis(a: &Axis, size: i64) -> i64 {
    let mut start = a.start;
    if start < 0 {
        start += size;
    }
    start = if a.stride > 0 {
        start.clamp(0, size)
    } else {
        clamp(start, -1, size - 1)
    };
    if a.begin_mask {
        start = if a.stride > 0 { 0 } else { size - 1 };
    }
    start
}

/// TensorFlow Lite's `EndForAxis` for an axis that is not shrunk.
fn end_for_axis(a: &Axis, size: i64, start: i64, offset: bool) -> i64 {
    let mut end = a.stop;
    if offset {
        end = end.saturating_add(start);
    }
    if end < 0 {
        end += size;
    }
    end = if a.stride > 0 {
        end.clamp(0, size)
    } else {
        clamp(end, -1, size - 1)
    };
    if a.end_mask {
        end = if a.stride > 0 { size } else { -1 };
    }
    end
}

/// `ceil(a / b)` (TensorFlow Lite computes it in float; exact here).
fn ceil_div(a: i128, b: i128) -> i128 {
    let (q, r) = (a / b, a % b);
    if r != 0 && (r > 0) == (b > 0) {
        q + 1
    } else {
        q
    }
}

/// `strided_slice::Clamp`: `hi` wins when `hi < lo` (an empty axis walked backwards).
fn clamp(v: i64, lo: i64, hi: i64) -> i64 {
    if hi < v {
        hi
    } else if v < lo {
        lo
    } else {
        v
    }
}
