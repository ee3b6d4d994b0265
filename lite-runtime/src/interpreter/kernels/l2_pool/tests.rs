//! L2_POOL_2D against `reference_ops::L2Pool` written literally (per output and channel, the
//! clipped window walked row by row), end to end, and its refusals.

use super::*;
use super::super::base::window::{out_size, pad_before};
use super::super::one_op::{F32, I8, f32s, model, run, setup_error, to_f32s, var};
use crate::model::tests::builder::F;
use proptest::prelude::*;

const L2_POOL_2D_CODE: i32 = 12;

fn geometry(
    (b, h, w, c): (u32, u32, u32, u32),
    (fh, fw): (u32, u32),
    (sh, sw): (u32, u32),
    same: bool,
) -> Geometry {
    let padding = if same { Padding::Same } else { Padding::Valid };
    let oh = out_size(padding, h.into(), fh.into(), sh.into(), 1);
    let ow = out_size(padding, w.into(), fw.into(), sw.into(), 1);
    Geometry {
        window: PoolWindow {
            batches: b,
            in_h: h,
            in_w: w,
            channels: c,
            out_h: oh as u32,
            out_w: ow as u32,
            f_h: fh,
            f_w: fw,
            stride_h: sh,
            stride_w: sw,
            pad_h: pad_before(sh.into(), 1, h.into(), fh.into(), oh) as u32,
            pad_w: pad_before(sw.into(), 1, w.into(), fw.into(), ow) as u32,
        },
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
    }
}

fn naive(g: &Geometry, x: &[f32]) -> Vec<f32> {
    let mut out = Vec::new();
    for b in 0..g.window.batches as i64 {
        for oy in 0..g.window.out_h as i64 {
            for ox in 0..g.window.out_w as i64 {
                for ch in 0..g.window.channels as i64 {
                    let y0 = oy * i64::from(g.window.stride_h) - i64::from(g.window.pad_h);
                    let x0 = ox * i64::from(g.window.stride_w) - i64::from(g.window.pad_w);
                    let (fys, fye) = ((-y0).max(0), i64::from(g.window.f_h).min(i64::from(g.window.in_h) - y0));
                    let (fxs, fxe) = ((-x0).max(0), i64::from(g.window.f_w).min(i64::from(g.window.in_w) - x0));
                    let (mut sum, mut count) = (0.0f32, 0);
                    for fy in fys..fye {
                        for fx in fxs..fxe {
                            let i = ((b * i64::from(g.window.in_h) + y0 + fy) * i64::from(g.window.in_w) + x0 + fx)
                                * i64::from(g.window.channels)
                                + ch;
                            let v = x[i as usize];
                            sum += v * v;
                            count += 1;
                        }
                    }
                    out.push((sum / count as f32).sqrt().max(g.lo).min(g.hi));
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(512, 4))]

    #[test]
    fn l2_pool_is_the_reference(
        shape in (1u32..=2, 1u32..=9, 1u32..=9, 1u32..=4),
        f in (1u32..=4, 1u32..=4),
        s in (1u32..=3, 1u32..=3),
        same in any::<bool>(),
        relu6 in any::<bool>(),
        seed in any::<u32>(),
    ) {
        let mut g = geometry(shape, f, s, same);
        if relu6 {
            (g.lo, g.hi) = (0.0, 6.0);
        }
        let n = (shape.0 * shape.1 * shape.2 * shape.3) as usize;
        let x: Vec<f32> = (0..n).map(|i| ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / 1e9 - 2.0).collect();
        let mut got = vec![f32::NAN; (g.window.batches * g.window.out_h * g.window.out_w * g.window.channels) as usize];
        l2_pool(&g, &x, &mut got).unwrap();
        prop_assert_eq!(got, naive(&g, &x));
    }
}

fn options(padding: u8, stride: (i32, i32), filter: (i32, i32), act: u8) -> super::super::one_op::Opts {
    Some((
        5,
        vec![
            (0, F::U8(padding)),
            (1, F::I32(stride.1)),
            (2, F::I32(stride.0)),
            (3, F::I32(filter.1)),
            (4, F::I32(filter.0)),
            (5, F::U8(act)),
        ],
    ))
}

#[test]
fn a_one_operator_model_runs_and_bad_ones_are_refused() {
    let file = model(
        L2_POOL_2D_CODE,
        options(0, (2, 2), (2, 2), 0),
        &[var(F32, &[1, 3, 3, 1]), var(F32, &[1, 2, 2, 1])],
        1,
    );
    let x = [3.0f32, 4.0, 1.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0];
    let got = to_f32s(&run(&file, &[&f32s(&x)]).unwrap()[0]);
    // Windows {3,4,0,0}, {1,1}, {2,2}, {2}: sqrt(25/4), sqrt(2/2), sqrt(8/2), 2.
    assert_eq!(got, [2.5, 1.0, 2.0, 2.0]);
    // The output shape another than the pool's; int8 (LiteRT has no quantized L2 pool).
    let e = setup_error(&model(
        L2_POOL_2D_CODE,
        options(0, (2, 2), (2, 2), 0),
        &[var(F32, &[1, 3, 3, 1]), var(F32, &[1, 3, 3, 1])],
        1,
    ));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
    let e = setup_error(&model(
        L2_POOL_2D_CODE,
        options(0, (2, 2), (2, 2), 0),
        &[var(I8, &[1, 3, 3, 1]), var(I8, &[1, 2, 2, 1])],
        1,
    ));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e:?}");
    let e = setup_error(&model(
        L2_POOL_2D_CODE,
        options(0, (0, 2), (2, 2), 0),
        &[var(F32, &[1, 3, 3, 1]), var(F32, &[1, 2, 2, 1])],
        1,
    ));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
}
