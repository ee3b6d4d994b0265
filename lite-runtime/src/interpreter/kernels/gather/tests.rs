//! GATHER's geometry and copy against a naive per-index reference (TensorFlow Lite's
//! `Gather` written with multi-indices), with indices in and out of range, both index widths,
//! and the string path's element mapping.

use super::*;
use super::super::row_major::{shape, strides};
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

/// `out[p[:axis], i[batch:], p[axis+1:]] = data[p[:axis], idx[p[:batch], i[batch:]], ..]`.
fn naive(
    dd: &[usize],
    id: &[usize],
    idx: &[i64],
    axis: usize,
    batch: usize,
) -> Result<Vec<u32>, usize> {
    if let Some(bad) = idx.iter().position(|&v| v < 0 || v >= dd[axis] as i64) {
        return Err(bad);
    }
    let od: Vec<usize> = dd[..axis]
        .iter()
        .chain(&id[batch..])
        .chain(&dd[axis + 1..])
        .copied()
        .collect();
    let (ost, dst, ist) = (strides(&od), strides(dd), strides(id));
    let n: usize = od.iter().product();
    let ir = id.len() - batch;
    Ok((0..n)
        .map(|flat| {
            let c: Vec<usize> = (0..od.len()).map(|k| flat / ost[k] % od[k]).collect();
            // Index coordinates: the batch ones, then the gathered ones.
            let mut ic: Vec<usize> = c[..batch].to_vec();
            ic.extend_from_slice(&c[axis..axis + ir]);
            let at: usize = ic.iter().zip(&ist).map(|(a, b)| a * b).sum();
            let mut dc: Vec<usize> = c[..axis].to_vec();
            dc.push(idx[at] as usize);
            dc.extend_from_slice(&c[axis + ir..]);
            dc.iter().zip(&dst).map(|(a, b)| a * b).sum::<usize>() as u32
        })
        .collect())
}

fn case() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize, usize, Vec<i64>)> {
    (1usize..=3, 0usize..=2)
        .prop_flat_map(|(dr, extra)| {
            (
                proptest::collection::vec(0usize..4, dr),
                0..dr,
                proptest::collection::vec(0usize..4, extra),
            )
        })
        .prop_flat_map(|(dd, axis, tail)| {
            // batch_dims <= axis; the indices share the data's leading batch dimensions.
            (Just(dd), Just(axis), Just(tail), 0..=axis)
        })
        .prop_flat_map(|(dd, axis, tail, batch)| {
            let mut id: Vec<usize> = dd[..batch].to_vec();
            id.extend_from_slice(&tail);
            let n: usize = id.iter().product();
            let lim = dd[axis] as i64;
            (
                Just(dd),
                Just(id),
                Just(axis),
                Just(batch),
                proptest::collection::vec(
                    prop_oneof![8 => 0..lim.max(1), 1 => -3i64..0, 1 => lim..lim + 3],
                    n,
                ),
            )
        })
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn gather_matches_index_math((dd, id, axis, batch, idx) in case()) {
        let (g, out) = gather_geometry(&shape(&dd), &shape(&id), axis as i32, batch as i32).unwrap();
        let src: Vec<u32> = (0..dd.iter().product::<usize>() as u32).collect();
        let mut dst = vec![u32::MAX; out.elements()];
        let idx32: Vec<i32> = idx.iter().map(|&v| v as i32).collect();
        let got64 = gather(&src, &idx, &mut dst, &g, 1).map(|()| dst.clone());
        let mut dst32 = vec![u32::MAX; out.elements()];
        let got32 = gather(&src, &idx32, &mut dst32, &g, 1).map(|()| dst32);
        prop_assert_eq!(&got64, &got32);
        match naive(&dd, &id, &idx, axis, batch) {
            Ok(want) => {
                prop_assert_eq!(got64.unwrap(), want.clone());
                // The string path maps each output element to the same source element.
                let picked: Vec<u32> = (0..want.len()).map(|k| source(&g, &idx, k).unwrap() as u32).collect();
                prop_assert_eq!(picked, want);
            }
            Err(bad) => {
                // TensorFlow Lite checks indices as it copies: with no rows nothing is read.
                if g.outer == 0 {
                    prop_assert!(got64.is_ok());
                } else {
                    let e = got64.unwrap_err();
                    prop_assert_eq!(e, KernelError::IndexOutOfRange {
                        input: 1, position: bad, index: idx[bad], limit: dd[axis],
                    });
                    prop_assert_eq!(check_indices(&idx, &g, 1), Err(e));
                }
            }
        }
    }
}

#[test]
fn negative_axis_and_batch_dims_count_from_the_end() {
    let (g, out) = gather_geometry(&shape(&[2, 3, 4]), &shape(&[2, 2]), -2, -1).unwrap();
    assert_eq!(out.dims(), [2, 2, 4]);
    assert_eq!(
        (g.batch, g.outer, g.axis, g.inner, g.coord),
        (2, 1, 3, 4, 2)
    );
}

#[test]
fn bad_geometry_is_refused() {
    // batch_dims past the axis, axis past the rank, batch dimensions that differ.
    assert!(gather_geometry(&shape(&[2, 3]), &shape(&[2, 2]), 0, 1).is_err());
    assert!(gather_geometry(&shape(&[2, 3]), &shape(&[2]), 2, 0).is_err());
    assert!(gather_geometry(&shape(&[2, 3]), &shape(&[3, 1]), 1, 1).is_err());
    // Output over 6 dimensions.
    assert!(matches!(
        gather_geometry(&shape(&[1, 1, 1, 1]), &shape(&[1, 1, 1, 1]), 1, 0),
        Err(KernelError::Unsupported { .. })
    ));
}

#[test]
fn an_index_out_of_range_names_its_position() {
    let g = gather_geometry(&shape(&[4, 2]), &shape(&[3]), 0, 0)
        .unwrap()
        .0;
    let src = [0u32; 8];
    let mut dst = [0u32; 6];
    let e = gather(&src, &[1i32, 4, -1], &mut dst, &g, 0).unwrap_err();
    assert_eq!(
        e,
        KernelError::IndexOutOfRange {
            input: 0,
            position: 1,
            index: 4,
            limit: 4
        }
    );
    assert_eq!(
        e.to_string(),
        "index 4 at position 1 of input 0 is outside 0..4"
    );
}

use super::super::one_op;

/// GATHER and EMBEDDING_LOOKUP through setup and invoke, on one-operator models.
mod end_to_end {
    use super::one_op::{F, F32, I32, I64, f32s, i64s, model, run, to_f32s, var};

    use crate::interpreter::{ErrorKind, KernelError};
    use crate::model::BuiltinOperator as Op;

    #[test]
    fn gather_with_int64_indices_names_a_bad_index_and_the_operator() {
        let m = model(
            Op::Gather as i32,
            Some((23, vec![(0, F::I32(1))])),
            &[var(F32, &[2, 3]), var(I64, &[2]), var(F32, &[2, 2])],
            2,
        );
        let x = f32s(&[0., 1., 2., 3., 4., 5.]);
        let out = run(&m, &[&x, &i64s(&[2, 0])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [2., 0., 5., 3.]);
        let e = run(&m, &[&x, &i64s(&[0, -1])]).unwrap_err();
        assert_eq!(e.operator, Some(0));
        assert_eq!(e.op, Some(crate::model::BuiltinOperator::Gather));
        assert_eq!(
            e.kind,
            ErrorKind::Kernel(KernelError::IndexOutOfRange {
                input: 1,
                position: 1,
                index: -1,
                limit: 3
            })
        );
    }

    #[test]
    fn embedding_lookup_checks_every_id() {
        let m = model(
            Op::EmbeddingLookup as i32,
            None,
            &[var(I32, &[3]), var(F32, &[2, 2]), var(F32, &[3, 2])],
            2,
        );
        let table = f32s(&[1., 2., 3., 4.]);
        let ids = |v: &[i32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let out = run(&m, &[&ids(&[1, 0, 1]), &table]).unwrap();
        assert_eq!(to_f32s(&out[0]), [3., 4., 1., 2., 3., 4.]);
        let e = run(&m, &[&ids(&[1, 2, 0]), &table]).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::Kernel(KernelError::IndexOutOfRange {
                input: 0,
                position: 1,
                index: 2,
                limit: 2
            })
        );
    }
}
