//! GATHER_ND against a naive per-tuple gather, end to end, with indices out of range, and its
//! refusals.

use super::*;
use super::super::row_major::{shape, strides};
use super::super::one_op::{F32, I16, I32, I8, f32s, i32s, model, run, setup_error, to_f32s, var};
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn gather_nd_is_the_naive_gather(
        pd in proptest::collection::vec(1usize..4, 1..=4),
        lead in proptest::collection::vec(0usize..3, 0..=2),
        k in 0usize..=4,
        seed in any::<u64>(),
    ) {
        let k = k.min(pd.len());
        let mut id = lead.clone();
        id.push(k);
        let count: usize = lead.iter().product();
        let mut s = seed;
        let idx: Vec<i32> = (0..count * k).map(|p| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as usize % pd[p % k]) as i32
        }).collect();
        let (ps, is) = (shape(&pd), shape(&id));
        let g = geometry(&ps, &is);
        let src: Vec<u32> = (0..ps.elements() as u32).collect();
        let mut got = vec![0u32; count * g.slice];
        copy(&src, &mut got, g.slice, starts(&g, &idx).unwrap()).unwrap();
        let st = strides(&pd);
        let slice: usize = pd[k..].iter().product();
        let mut want = Vec::new();
        for t in 0..count {
            let base: usize = (0..k).map(|j| idx[t * k + j] as usize * st[j]).sum();
            want.extend((base..base + slice).map(|v| v as u32));
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn end_to_end_and_out_of_range() {
    let x: Vec<f32> = (0..6).map(|v| v as f32).collect();
    let file = model(107, None, &[var(F32, &[2, 3]), var(I32, &[2, 2]), var(F32, &[2])], 2);
    let out = run(&file, &[&f32s(&x), &i32s(&[1, 2, 0, 1])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [5.0, 1.0]);
    let e = run(&file, &[&f32s(&x), &i32s(&[1, 3, 0, 1])]).unwrap_err();
    assert!(matches!(e.kind, crate::interpreter::ErrorKind::Kernel(KernelError::IndexOutOfRange { position: 1, .. })));
    assert!(run(&file, &[&f32s(&x), &i32s(&[-1, 0, 0, 1])]).is_err());
    // Rows of int8 picked by int16 tuples of length 1.
    let file = model(107, None, &[var(I8, &[3, 2]), var(I16, &[2, 1]), var(I8, &[2, 2])], 2);
    let idx: Vec<u8> = [2i16, 0].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(run(&file, &[&[1, 2, 3, 4, 5, 6], &idx]).unwrap()[0], [5, 6, 1, 2]);
}

#[test]
fn refusals() {
    let e = setup_error(&model(107, None, &[var(F32, &[2, 3]), var(I32, &[2, 3]), var(F32, &[2])], 2));
    assert!(matches!(e, KernelError::Mismatch { .. }));
    let e = setup_error(&model(107, None, &[var(F32, &[2, 3]), var(I32, &[2, 2]), var(F32, &[3])], 2));
    assert_eq!(e, OUTPUT_SHAPE);
    let e = setup_error(&model(107, None, &[var(F32, &[2, 3]), var(F32, &[2, 2]), var(F32, &[2])], 2));
    assert!(matches!(e, KernelError::Unsupported { .. }));
}
