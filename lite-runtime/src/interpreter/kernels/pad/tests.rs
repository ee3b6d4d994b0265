//! PAD against a naive per-output-coordinate reference.

use super::*;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(512, 8)
}

/// Each output coordinate: the input's element when inside, else the constant.
fn naive(x: &[u8], in_dims: &[usize], pads: &[(usize, usize)], value: &[u8]) -> Vec<u8> {
    let size = value.len();
    let out_dims: Vec<usize> = in_dims
        .iter()
        .zip(pads)
        .map(|(&d, &(b, a))| d + b + a)
        .collect();
    let n: usize = out_dims.iter().product();
    let mut y = Vec::new();
    for flat in 0..n {
        let mut rem = flat;
        let mut coord = vec![0; out_dims.len()];
        for d in (0..out_dims.len()).rev() {
            coord[d] = rem % out_dims[d];
            rem /= out_dims[d];
        }
        let mut src = Some(0usize);
        for d in 0..in_dims.len() {
            let c = coord[d];
            src = match src {
                Some(s) if c >= pads[d].0 && c < pads[d].0 + in_dims[d] => {
                    Some(s * in_dims[d] + c - pads[d].0)
                }
                _ => None,
            };
        }
        match src {
            Some(s) => y.extend_from_slice(&x[s * size..(s + 1) * size]),
            None => y.extend_from_slice(value),
        }
    }
    y
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn pad_is_the_naive_walk(
        dims in prop::collection::vec((0usize..4, 0usize..3, 0usize..3), 0..=5),
        size in prop::sample::select(vec![1usize, 2, 4, 8]),
        fill in any::<u8>(),
        seed in any::<u8>(),
    ) {
        let in_dims: Vec<usize> = dims.iter().map(|d| d.0).collect();
        let pairs: Vec<(usize, usize)> = dims.iter().map(|d| (d.1, d.2)).collect();
        let mut pads = [(0, 0); MAX_DIMS];
        pads[..pairs.len()].copy_from_slice(&pairs);
        let out_dims: Vec<usize> = in_dims.iter().zip(&pairs).map(|(&d, &(b, a))| d + b + a).collect();
        let n_in: usize = in_dims.iter().product::<usize>() * size;
        let x: Vec<u8> = (0..n_in).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
        let value: Vec<u8> = (0..size).map(|i| fill.wrapping_add(i as u8)).collect();
        let mut y = vec![0xAAu8; out_dims.iter().product::<usize>() * size];
        pad_bytes(&x, &in_dims, &mut y, &out_dims, &pads, &value).unwrap();
        prop_assert_eq!(y, naive(&x, &in_dims, &pairs, &value));
    }
}

#[test]
fn paddings_read_both_widths_and_refuse_negatives() {
    let le32: Vec<u8> = [1i32, 2, 0, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let p = read_paddings(&le32, false, 2, true).unwrap();
    assert_eq!(&p[..2], &[(1, 2), (0, 3)]);
    let le64: Vec<u8> = [4i64, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(read_paddings(&le64, true, 1, true).unwrap()[0], (4, 5));
    let neg: Vec<u8> = [-1i32, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert!(read_paddings(&neg, false, 1, true).is_err());
    assert!(read_paddings(&le32, false, 3, true).is_err());
    assert!(check_shape(&[2, 3], &[5, 6], &p).is_ok());
    assert!(check_shape(&[2, 3], &[5, 7], &p).is_err());
}

// ---- End to end: PAD and PADV2 as one-operator models ----

use super::super::one_op::{F32, I8, I32, Tensor, const_i32, f32s, model, run, to_f32s, var};

const PAD_CODE: i32 = 34;
const PADV2_CODE: i32 = 60;

/// A constant of `ty` holding `bytes`.
fn constant(ty: u8, shape: &[i32], bytes: &[u8]) -> Tensor {
    Tensor {
        ty,
        shape: shape.to_vec(),
        data: Some(bytes.to_vec()),
    }
}

#[test]
fn padv2_pads_with_its_constant_or_its_input() {
    let pads = const_i32(&[2, 2], &[0, 1, 1, 0]);
    let x = f32s(&[1.0, 2.0, 3.0, 4.0]);
    // A constant value (little-endian in the model).
    let m = model(
        PADV2_CODE,
        None,
        &[
            var(F32, &[2, 2]),
            pads,
            constant(F32, &[], &7.5f32.to_le_bytes()),
            var(F32, &[3, 3]),
        ],
        3,
    );
    let out = to_f32s(&run(&m, &[&x]).unwrap()[0]);
    assert_eq!(out, [7.5, 1.0, 2.0, 7.5, 3.0, 4.0, 7.5, 7.5, 7.5]);
    // The value as a graph input, read at every invoke.
    let m = model(
        PADV2_CODE,
        None,
        &[
            var(F32, &[2, 2]),
            const_i32(&[2, 2], &[0, 1, 1, 0]),
            var(F32, &[]),
            var(F32, &[3, 3]),
        ],
        3,
    );
    let out = to_f32s(&run(&m, &[&x, &f32s(&[-1.0])]).unwrap()[0]);
    assert_eq!(out, [-1.0, 1.0, 2.0, -1.0, 3.0, 4.0, -1.0, -1.0, -1.0]);
    // PAD of the same operands fills with 0.
    let m = model(
        PAD_CODE,
        None,
        &[var(F32, &[2, 2]), const_i32(&[2, 2], &[0, 1, 1, 0]), var(F32, &[3, 3])],
        2,
    );
    let out = to_f32s(&run(&m, &[&x]).unwrap()[0]);
    assert_eq!(out, [0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0]);
}

#[test]
fn padv2_refuses_a_value_that_is_not_one_element_of_the_input_type() {
    let operands = |value: Tensor| {
        model(
            PADV2_CODE,
            None,
            &[var(I8, &[2]), const_i32(&[1, 2], &[1, 1]), value, var(I8, &[4])],
            3,
        )
    };
    let e = super::super::one_op::setup_error(&operands(constant(I32, &[], &[1, 0, 0, 0])));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = super::super::one_op::setup_error(&operands(constant(I8, &[2], &[1, 2])));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // An int8 value of one element pads with its stored byte.
    let out = run(&operands(constant(I8, &[], &[0xF6])), &[&[3, 4]]).unwrap();
    assert_eq!(out[0], [0xF6, 3, 4, 0xF6]);
}
