//! `Landmarks2TransformMatrix`, version 2: the rotation from the landmarks at
//! `left_rotation_idx` and `right_rotation_idx` (`target - atan2(dy, dx)`), the subset's
//! landmarks (pairs of `subset_idxs`; an odd last index pairs with itself) rotated by it,
//! their bounding box, and the 4x4 matrix `shift(centre) * rotate(-rotation) *
//! scale(scale * box / output size) * shift(-output size / 2)`, each product a float sum from
//! 0 term by term as MediaPipe's `Mat3` / `Mat4` compute them. MediaPipe calls `cosf`,
//! `sinf` and `atan2f`; here they are the double functions of the float argument, rounded
//! to float (the correctly rounded values, which glibc's are within an ulp of).
//!
//! Options (a FlexBuffer map): `subset_idxs`, `left_rotation_idx`, `right_rotation_idx`,
//! `target_rotation_radians`, `output_height`, `output_width`, `scale_x`, `scale_y` (absent
//! numbers read as 0, as flexbuffers' accessors give them). The subset is kept in the
//! operator's persistent bytes, every index checked against the landmarks at set-up.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check;
use super::super::base::tensors::{input_n, output_n, words, words_mut};
use super::{arity, float, rank, version_2};
use crate::interpreter::{Eval, Init, KernelError, Prepare, Shape};
use crate::model::{FlexMap, FlexType, FlexValue};

#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Params {
    left: u32,
    right: u32,
    target_rotation: f32,
    out_h: u32,
    out_w: u32,
    scale_x: f32,
    scale_y: f32,
    /// Landmarks in the subset (twice its pairs), in the persistent bytes.
    subset: u32,
    /// Floats of the landmarks input read (3 per landmark).
    input: u32,
}

const OPTIONS: KernelError = KernelError::Mismatch {
    what: "Landmarks2TransformMatrix options are not a FlexBuffer map of numbers",
};

fn value<'a>(m: &FlexMap<'a>, key: &str) -> Option<FlexValue<'a>> {
    m.get(key).filter(|v| v.flex_type() != FlexType::Null)
}

/// `AsInt32` (absent: 0).
fn int(m: &FlexMap<'_>, key: &str) -> Result<i32, KernelError> {
    match value(m, key) {
        None => Ok(0),
        Some(v) => v
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .ok_or(OPTIONS),
    }
}

/// `AsFloat` (absent: 0).
fn float_option(m: &FlexMap<'_>, key: &str) -> Result<f32, KernelError> {
    match value(m, key) {
        None => Ok(0.0),
        Some(v) => Ok(v.as_f64().ok_or(OPTIONS)? as f32),
    }
}

/// The subset's landmark indices in order (an odd count's last one twice), each checked
/// against `landmarks`; `f(k, index)` for each.
fn subset(
    m: &FlexMap<'_>,
    landmarks: usize,
    mut f: impl FnMut(usize, u32) -> Result<(), KernelError>,
) -> Result<usize, KernelError> {
    let v = value(m, "subset_idxs")
        .and_then(|v| v.as_vector())
        .ok_or(KernelError::Mismatch {
            what: "Landmarks2TransformMatrix without subset_idxs",
        })?;
    let n = v.len();
    let mut k = 0;
    let mut put = |i: usize| -> Result<(), KernelError> {
        let idx = v.get(i).and_then(|x| x.as_i64()).ok_or(OPTIONS)?;
        let idx = landmark(idx, landmarks)?;
        f(k, idx)?;
        k += 1;
        Ok(())
    };
    for i in 0..n {
        put(i)?;
    }
    if n % 2 == 1 {
        put(n - 1)?;
    }
    Ok(k)
}

/// A landmark index, non-negative (MediaPipe's check) and below `landmarks` (where it reads).
fn landmark(idx: i64, landmarks: usize) -> Result<u32, KernelError> {
    usize::try_from(idx)
        .ok()
        .filter(|&i| i < landmarks)
        .and_then(|i| u32::try_from(i).ok())
        .ok_or(KernelError::Mismatch {
            what: "Landmarks2TransformMatrix landmark index negative or past the landmarks",
        })
}

/// The options map and the number of landmarks (`[x, y, z]` each) the input holds.
fn parsed<'m>(ctx: &Prepare<'m>) -> Result<(FlexMap<'m>, usize), KernelError> {
    let m = FlexValue::root(ctx.custom_options())
        .ok()
        .and_then(|v| v.as_map())
        .ok_or(OPTIONS)?;
    Ok((m, ctx.input(0)?.shape.elements() / 3))
}

pub(super) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    arity(ctx, 1, 1)?;
    version_2(ctx)?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    float(&input)?;
    float(&output)?;
    rank(&input, 3)?;
    check::output_shape(&output, &Shape::new(&[1, 4, 4]).ok_or(check::OUTPUT_SHAPE)?)?;
    let (m, landmarks) = parsed(ctx)?;
    let left = landmark(int(&m, "left_rotation_idx")?.into(), landmarks)?;
    let right = landmark(int(&m, "right_rotation_idx")?.into(), landmarks)?;
    let (out_h, out_w) = (int(&m, "output_height")?, int(&m, "output_width")?);
    if out_h <= 0 || out_w <= 0 {
        return Err(KernelError::Mismatch {
            what: "Landmarks2TransformMatrix output size not positive",
        });
    }
    let (scale_x, scale_y) = (float_option(&m, "scale_x")?, float_option(&m, "scale_y")?);
    // MediaPipe refuses `scale <= 0` (a NaN passes).
    if scale_x <= 0.0 || scale_y <= 0.0 {
        return Err(KernelError::Mismatch {
            what: "Landmarks2TransformMatrix scale not positive",
        });
    }
    let count = subset(&m, landmarks, |_, _| Ok(()))?;
    if count == 0 {
        return Err(KernelError::Mismatch {
            what: "Landmarks2TransformMatrix with an empty subset",
        });
    }
    ctx.request_persistent(count.checked_mul(4).ok_or(check::DIM_OVER_U32)?);
    ctx.set_params(&Params {
        left,
        right,
        target_rotation: float_option(&m, "target_rotation_radians")?,
        out_h: out_h as u32,
        out_w: out_w as u32,
        scale_x,
        scale_y,
        subset: check::dim(count)?,
        input: check::dim(landmarks * 3)?,
    });
    Ok(())
}

pub(super) fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let (m, landmarks) = parsed(ctx.prepared())?;
    let p: Params = ctx.params();
    let bytes = ctx
        .persistent()
        .get_mut(..p.subset as usize * 4)
        .ok_or(check::SHORT)?;
    let slots: &mut [u32] = words_mut(bytes)?;
    subset(&m, landmarks, |k, idx| {
        *slots.get_mut(k).ok_or(check::SHORT)? = idx;
        Ok(())
    })?;
    Ok(())
}

/// A row-major 3x3 or 4x4 float matrix.
type Mat<const N: usize> = [[f32; N]; N];

/// `Mat3::operator*` / `Mat4::operator*=`: each entry summed from 0 in float, `k` in order.
fn mul<const N: usize>(a: &Mat<N>, b: &Mat<N>) -> Mat<N> {
    let mut out = [[0.0; N]; N];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, o) in row.iter_mut().enumerate() {
            let mut sum = 0.0f32;
            for k in 0..N {
                sum += a[r][k] * b[k][c];
            }
            *o = sum;
        }
    }
    out
}

/// `Mat3 * float3`.
fn apply(a: &Mat<3>, v: [f32; 3]) -> [f32; 3] {
    let mut out = [0.0; 3];
    for (r, o) in out.iter_mut().enumerate() {
        let mut sum = 0.0f32;
        for k in 0..3 {
            sum += a[r][k] * v[k];
        }
        *o = sum;
    }
    out
}

fn cos(r: f32) -> f32 {
    libm::cos(f64::from(r)) as f32
}

fn sin(r: f32) -> f32 {
    libm::sin(f64::from(r)) as f32
}

pub(super) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let data = input_n::<f32>(ctx, 0, p.input as usize)?;
    let subset: &[u32] = words(
        ctx.persistent()
            .get(..p.subset as usize * 4)
            .ok_or(check::SHORT)?,
    )?;
    let out = output_n::<f32>(ctx, 0, 16)?;
    let xyz = |i: u32| -> Result<[f32; 3], KernelError> {
        let at = i as usize * 3;
        match data.get(at..at + 3) {
            Some(&[x, y, z]) => Ok([x, y, z]),
            _ => Err(check::SHORT),
        }
    };

    // EstimateRotationRadians.
    let (left, right) = (xyz(p.left)?, xyz(p.right)?);
    let angle = libm::atan2(f64::from(right[1] - left[1]), f64::from(right[0] - left[0])) as f32;
    let rotation = p.target_rotation - angle;

    // EstimateCenterAndSize.
    let r = rotation;
    let t_rotation: Mat<3> = [[cos(r), -sin(r), 0.0], [sin(r), cos(r), 0.0], [0.0, 0.0, 1.0]];
    let t_inverse: Mat<3> = [
        [cos(-r), -sin(-r), 0.0],
        [sin(-r), cos(-r), 0.0],
        [0.0, 0.0, 1.0],
    ];
    let (mut max, mut min) = ([0.0f32; 3], [0.0f32; 3]);
    for (k, &i) in subset.iter().enumerate() {
        let [x, y, _] = xyz(i)?;
        let v = apply(&t_rotation, [x, y, 1.0]);
        if k == 0 {
            (max, min) = (v, v);
            continue;
        }
        if max[0] < v[0] {
            max[0] = v[0];
        }
        if max[1] < v[1] {
            max[1] = v[1];
        }
        if min[0] > v[0] {
            min[0] = v[0];
        }
        if min[1] > v[1] {
            min[1] = v[1];
        }
    }
    let (crop_w, crop_h) = (max[0] - min[0], max[1] - min[1]);
    let centre = [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0, min[2]];
    let [crop_x, crop_y, _] = apply(&t_inverse, centre);

    // LandmarksToTransformMatrixV2.
    let identity: Mat<4> = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let shift = |x: f32, y: f32| -> Mat<4> {
        [
            [1.0, 0.0, 0.0, x],
            [0.0, 1.0, 0.0, y],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    };
    let mut t = mul(&identity, &shift(crop_x, crop_y));
    let r = -rotation;
    t = mul(
        &t,
        &[
            [cos(r), -sin(r), 0.0, 0.0],
            [sin(r), cos(r), 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ],
    );
    let (out_w, out_h) = (p.out_w as f32, p.out_h as f32);
    let scale_x = p.scale_x * crop_w / out_w;
    let scale_y = p.scale_y * crop_h / out_h;
    t = mul(
        &t,
        &[
            [scale_x, 0.0, 0.0, 0.0],
            [0.0, scale_y, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ],
    );
    // -1.0 * (output_width / 2.0), in double (the product by -1 is the negation).
    let shift_x = -(f64::from(p.out_w) / 2.0) as f32;
    let shift_y = -(f64::from(p.out_h) / 2.0) as f32;
    t = mul(&t, &shift(shift_x, shift_y));
    for (o, v) in out.iter_mut().zip(t.iter().flatten()) {
        *o = *v;
    }
    Ok(())
}
