//! Random convolution shapes for the kernels' property tests (the reference tests in
//! `kernels/tests/conv.rs` and the AVX2-against-portable tests), and the [`Geometry`] each
//! describes, as `prepare` would work it out.

use super::super::base::window::{out_size, pad_before};
use super::Geometry;
use crate::model::Padding;
use proptest::prelude::*;

/// One convolution's shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Case {
    pub batches: u32,
    pub in_h: u32,
    pub in_w: u32,
    pub in_c: u32,
    pub f_h: u32,
    pub f_w: u32,
    /// Output channels (CONV_2D) or depth multiplier (depthwise).
    pub chan: u32,
    pub stride: (u32, u32),
    pub dil: (u32, u32),
    pub same: bool,
    /// Seeds the tensors' contents.
    pub seed: u64,
}

/// How large a [`case`] may be.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub side: u32,
    pub in_c: u32,
    pub chan: u32,
    pub stride_dil: u32,
}

/// Cases within `l`: 1-2 batches, 1-4 filter rows and columns, padding SAME or VALID.
pub(crate) fn case(l: Limits) -> impl Strategy<Value = Case> {
    (
        (1u32..=2, 1u32..=l.side, 1u32..=l.side, 1u32..=l.in_c),
        (1u32..=4, 1u32..=4, 1u32..=l.chan),
        (
            (1u32..=l.stride_dil, 1u32..=l.stride_dil),
            (1u32..=l.stride_dil, 1u32..=l.stride_dil),
            any::<bool>(),
            1u64..u64::MAX,
        ),
    )
        .prop_map(
            |((batches, in_h, in_w, in_c), (f_h, f_w, chan), (stride, dil, same, seed))| Case {
                batches,
                in_h,
                in_w,
                in_c,
                f_h,
                f_w,
                chan,
                stride,
                dil,
                same,
                seed,
            },
        )
}

/// The geometry of `c` for a kernel of `kind`, with no output clamp (the tests set one).
pub(crate) fn geometry_of(c: &Case, depthwise: bool, kind: u32) -> Geometry {
    let padding = if c.same {
        Padding::Same
    } else {
        Padding::Valid
    };
    let (sh, sw) = (u64::from(c.stride.0), u64::from(c.stride.1));
    let (dh, dw) = (u64::from(c.dil.0), u64::from(c.dil.1));
    let out_h = out_size(padding, c.in_h.into(), c.f_h.into(), sh, dh);
    let out_w = out_size(padding, c.in_w.into(), c.f_w.into(), sw, dw);
    Geometry {
        kind,
        depthwise: u32::from(depthwise),
        batches: c.batches,
        in_h: c.in_h,
        in_w: c.in_w,
        in_c: c.in_c,
        out_h: out_h as u32,
        out_w: out_w as u32,
        out_c: if depthwise { c.in_c * c.chan } else { c.chan },
        f_h: c.f_h,
        f_w: c.f_w,
        depth_mult: if depthwise { c.chan } else { 1 },
        stride_h: c.stride.0,
        stride_w: c.stride.1,
        dil_h: c.dil.0,
        dil_w: c.dil.1,
        pad_h: pad_before(sh, dh, c.in_h.into(), c.f_h.into(), out_h) as u32,
        pad_w: pad_before(sw, dw, c.in_w.into(), c.f_w.into(), out_w) as u32,
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
        ..Geometry::default()
    }
}
