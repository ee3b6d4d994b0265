//! Views against a naive reference (position lists per axis, Cartesian product), the DL4J
//! encoding both ways, and errors with their positions.

extern crate std;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::dl4j::{self, decode_index, decode_indices, encode_index, encode_indices};
use super::*;
use crate::tensor::{Layout, MAX_RANK, TensorView, TensorViewMut};

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// Base position, per-axis position lists, shape.
type Reference = (usize, Vec<Vec<usize>>, Vec<usize>);

/// The reference: for each output axis, the list of input positions it walks (a new axis
/// walks `[0]` with no input axis), or the error numpy would raise, by brute force.
fn reference(shape: &[usize], indices: &[ViewIndex]) -> Result<Reference, ViewError> {
    let mut point_offset_axes: Vec<(usize, usize)> = vec![]; // (axis, position)
    let mut out_axes: Vec<(Option<usize>, Vec<usize>)> = vec![];
    let mut axis = 0;
    for (position, index) in indices.iter().enumerate() {
        if *index == ViewIndex::NewAxis {
            out_axes.push((None, vec![0]));
        } else {
            if axis >= shape.len() {
                return Err(ViewError::TooManyIndices {
                    position,
                    rank: shape.len(),
                });
            }
            let len = shape[axis] as i64;
            match *index {
                ViewIndex::Point(i) => {
                    let j = if i < 0 {
                        i as i128 + len as i128
                    } else {
                        i as i128
                    };
                    if j < 0 || j >= len as i128 {
                        return Err(ViewError::PointOutOfRange {
                            position,
                            axis,
                            index: i,
                            len: len as usize,
                        });
                    }
                    point_offset_axes.push((axis, j as usize));
                }
                ViewIndex::All => out_axes.push((Some(axis), (0..len as usize).collect())),
                ViewIndex::Interval {
                    start,
                    end,
                    stride,
                    inclusive,
                } => {
                    if stride < 1 {
                        return Err(ViewError::BadStride { position, stride });
                    }
                    // Python's range(len)[start:end:stride], end widened by one if inclusive.
                    let norm = |x: i64| -> i128 {
                        let x = x as i128;
                        if x < 0 {
                            (x + len as i128).max(0)
                        } else {
                            x.min(len as i128)
                        }
                    };
                    let s = norm(start);
                    let e = if inclusive {
                        let w = if end < 0 {
                            end as i128 + len as i128
                        } else {
                            end as i128
                        };
                        (w + 1).clamp(0, len as i128)
                    } else {
                        norm(end)
                    };
                    let picked: Vec<usize> = (0..len as i128)
                        .filter(|&k| k >= s && k < e && (k - s) % stride as i128 == 0)
                        .map(|k| k as usize)
                        .collect();
                    out_axes.push((Some(axis), picked));
                }
                ViewIndex::NewAxis => unreachable!(),
            }
            axis += 1;
        }
        if out_axes.len() > MAX_RANK {
            return Err(ViewError::RankTooLarge {
                position,
                max: MAX_RANK,
            });
        }
    }
    for (a, &dim) in shape.iter().enumerate().skip(axis) {
        out_axes.push((Some(a), (0..dim).collect()));
        if out_axes.len() > MAX_RANK {
            return Err(ViewError::RankTooLarge {
                position: indices.len(),
                max: MAX_RANK,
            });
        }
    }
    // Row-major strides of the input, to turn positions into buffer offsets.
    let mut strides = vec![1usize; shape.len()];
    for a in (0..shape.len().saturating_sub(1)).rev() {
        strides[a] = strides[a + 1] * shape[a + 1].max(1);
    }
    let base: usize = point_offset_axes.iter().map(|&(a, p)| p * strides[a]).sum();
    let out_shape = out_axes.iter().map(|(_, v)| v.len()).collect();
    let lists = out_axes
        .iter()
        .map(|(a, v)| match a {
            Some(a) => v.iter().map(|p| p * strides[*a]).collect(),
            None => vec![0],
        })
        .collect();
    Ok((base, lists, out_shape))
}

/// Buffer positions of the reference view, in logical order.
fn reference_positions(base: usize, lists: &[Vec<usize>]) -> Vec<usize> {
    let mut out = vec![base];
    for list in lists {
        out = out
            .iter()
            .flat_map(|&p| list.iter().map(move |q| p + q))
            .collect();
    }
    out
}

fn index() -> impl Strategy<Value = ViewIndex> {
    let bound = prop_oneof![4 => -8i64..8, 1 => any::<i64>()];
    prop_oneof![
        2 => (-8i64..8).prop_map(ViewIndex::Point),
        1 => any::<i64>().prop_map(ViewIndex::Point),
        4 => (bound.clone(), bound, prop_oneof![8 => 1i64..4, 1 => -2i64..1, 1 => Just(i64::MAX)], any::<bool>())
            .prop_map(|(start, end, stride, inclusive)| ViewIndex::Interval { start, end, stride, inclusive }),
        2 => Just(ViewIndex::All),
        2 => Just(ViewIndex::NewAxis),
    ]
}

fn cases() -> impl Strategy<Value = (Vec<usize>, Vec<ViewIndex>)> {
    let dim = if cfg!(miri) { 0usize..=3 } else { 0usize..=6 };
    (
        prop::collection::vec(dim, 0..=4),
        prop::collection::vec(index(), 0..=6),
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn views_match_the_reference((shape, indices) in cases()) {
        let n: usize = shape.iter().product();
        let mut data: Vec<i64> = (0..n as i64).collect();
        let t = TensorView::new(&data[..], &shape).unwrap();
        let got = t.view(&indices);
        match reference(&shape, &indices) {
            Err(e) => prop_assert_eq!(got.unwrap_err(), e),
            Ok((base, lists, out_shape)) => {
                let v = got.unwrap();
                prop_assert_eq!(v.shape(), &out_shape[..]);
                let expected = reference_positions(base, &lists);
                let values: Vec<i64> = v.iter().copied().collect();
                let expected_values: Vec<i64> = if v.is_empty() { vec![] } else { expected.iter().map(|&p| p as i64).collect() };
                prop_assert_eq!(&values, &expected_values);
                prop_assert!(v.layout().span() <= n);
                let layout = *v.layout();
                // The writable view shares the buffer: exactly those positions change.
                let mut t = TensorViewMut::new(&mut data[..], &shape).unwrap();
                let mut w = t.view_mut(&indices).unwrap();
                w.fill(-1);
                for (p, x) in data.iter().enumerate() {
                    let hit = !expected_values.is_empty() && expected.contains(&p);
                    prop_assert_eq!(*x == -1, hit);
                }
                // The same view through the DL4J encoding, if the encoding can say it.
                let mut words = vec![0i64; dl4j::encoded_indices_len(&indices)];
                encode_indices(&indices, &mut words).unwrap();
                let t = TensorView::new(&data[..], &shape).unwrap();
                let again = *t.view_encoded(&words).unwrap().layout();
                prop_assert_eq!(again, layout);
            }
        }
    }

    #[test]
    fn encodings_round_trip(indices in prop::collection::vec(index(), 0..6)) {
        let valid = indices.iter().all(|i| !matches!(i, ViewIndex::Interval { stride, .. } if *stride < 1));
        let mut words = vec![0i64; dl4j::encoded_indices_len(&indices)];
        prop_assert_eq!(encode_indices(&indices, &mut words), Ok(words.len()));
        let mut out = [ViewIndex::All; 6];
        let decoded = decode_indices(&words, &mut out);
        if valid {
            prop_assert_eq!(decoded, Ok(indices.len()));
            prop_assert_eq!(&out[..indices.len()], &indices[..]);
        } else {
            let is_bad_stride = matches!(decoded, Err(IndexDecodeError::BadStride { .. }));
            prop_assert!(is_bad_stride);
        }
        if !words.is_empty() {
            prop_assert!(encode_indices(&indices, &mut words[1..]).is_err());
        }
    }

    #[test]
    fn decoding_anything_never_panics(words in prop::collection::vec(prop_oneof![4 => -2i64..12, 1 => any::<i64>()], 0..24)) {
        let mut out = [ViewIndex::All; 4];
        if let Err(e) = decode_indices(&words, &mut out) {
            let position = match e {
                IndexDecodeError::UnknownType { position, .. }
                | IndexDecodeError::Truncated { position, .. }
                | IndexDecodeError::BadField { position, .. }
                | IndexDecodeError::BadFlag { position, .. }
                | IndexDecodeError::BadStride { position, .. }
                | IndexDecodeError::TooMany { position, .. } => position,
            };
            prop_assert!(position < words.len());
            prop_assert!(!e.to_string().is_empty());
        }
        let data = [0u8; 24];
        let t = TensorView::new(&data[..], &[2, 3, 4]).unwrap();
        if let Ok(v) = t.view_encoded(&words) {
            prop_assert!(v.layout().span() <= data.len());
            prop_assert_eq!(v.iter().count(), v.len());
        }
    }
}

#[test]
fn numpy_examples() {
    let l = Layout::contiguous(&[4, 5, 6]).unwrap();
    // a[1, ::2, None, -2:]
    let v = l
        .view(&[
            ViewIndex::Point(1),
            ViewIndex::from_by(0, 2),
            ViewIndex::NewAxis,
            ViewIndex::from(-2..),
        ])
        .unwrap();
    assert_eq!(v.shape(), &[3, 1, 2]);
    assert_eq!(v.strides(), &[12, 0, 1]);
    assert_eq!(v.offset(), 30 + 4);
    // a[10:20:3] clamps to empty; numpy then starts it at 0 with step 1.
    let v = l.view(&[ViewIndex::interval_by(10, 20, 3)]).unwrap();
    assert_eq!(
        (v.shape(), v.strides(), v.offset()),
        (&[0, 5, 6][..], &[30, 6, 1][..], 0)
    );
    // a[-100:2] clamps the start to 0.
    assert_eq!(
        l.view(&[ViewIndex::interval(-100, 2)]).unwrap().shape(),
        &[2, 5, 6]
    );
    // DL4J's inclusive end: [1, 3] inclusive on an axis of 4 is 1, 2, 3.
    let v = l
        .view(&[ViewIndex::Interval {
            start: 1,
            end: 3,
            stride: 1,
            inclusive: true,
        }])
        .unwrap();
    assert_eq!(v.shape(), &[3, 5, 6]);
    assert_eq!(
        l.view(&[ViewIndex::from(..=-1)]).unwrap().shape(),
        &[4, 5, 6]
    );
    assert_eq!(
        l.view(&[(..).into(), 2.into(), (1..4).into()])
            .unwrap()
            .shape(),
        &[4, 3]
    );
    // Errors name the index and axis.
    assert_eq!(
        l.view(&[ViewIndex::All, ViewIndex::Point(-6)]),
        Err(ViewError::PointOutOfRange {
            position: 1,
            axis: 1,
            index: -6,
            len: 5
        })
    );
    assert_eq!(
        l.view(&[ViewIndex::NewAxis, ViewIndex::interval_by(0, 1, 0)]),
        Err(ViewError::BadStride {
            position: 1,
            stride: 0
        })
    );
    assert_eq!(
        l.view(&[ViewIndex::All; 4]),
        Err(ViewError::TooManyIndices {
            position: 3,
            rank: 3
        })
    );
    assert_eq!(
        l.view(&[ViewIndex::NewAxis; 6]),
        Err(ViewError::RankTooLarge {
            position: 6,
            max: 8
        })
    );
}

#[test]
fn dl4j_encodings_from_the_adr() {
    let cases: [(&[i64], ViewIndex); 5] = [
        (&[0, 1, 1, 7, 1], ViewIndex::Point(7)),
        (
            &[1, 2, 1, 2, 9, 3, 1],
            ViewIndex::Interval {
                start: 2,
                end: 9,
                stride: 3,
                inclusive: true,
            },
        ),
        (&[2, 0, 1, 1], ViewIndex::All),
        (&[3, 1, 1, 0, 1], ViewIndex::NewAxis),
        (&[3, 1, 10, 1], ViewIndex::NewAxis), // the Java spelling
    ];
    for (words, index) in cases {
        assert_eq!(decode_index(words, 0), Ok((index, words.len())));
        if words != [3, 1, 10, 1] {
            let mut out = [0i64; 7];
            assert_eq!(encode_index(&index, &mut out), Ok(words.len()));
            assert_eq!(&out[..words.len()], words);
        }
    }
    assert_eq!(
        encode_index(&ViewIndex::All, &mut [0; 3]),
        Err(crate::error::CapacityError {
            needed: 4,
            available: 3
        })
    );
}

#[test]
fn malformed_encodings_name_the_word() {
    let err = |words: &[i64]| decode_indices(words, &mut [ViewIndex::All; 2]).unwrap_err();
    assert_eq!(
        err(&[4]),
        IndexDecodeError::UnknownType {
            position: 0,
            found: 4
        }
    );
    assert_eq!(
        err(&[2, 0, 1, 1, -1]),
        IndexDecodeError::UnknownType {
            position: 4,
            found: -1
        }
    );
    assert_eq!(
        err(&[1, 2, 1, 0, 5]),
        IndexDecodeError::Truncated {
            position: 0,
            needed: 7,
            available: 5
        }
    );
    assert_eq!(
        err(&[3, 1]),
        IndexDecodeError::Truncated {
            position: 0,
            needed: 4,
            available: 2
        }
    );
    assert_eq!(
        err(&[3, 1, 1, 0]),
        IndexDecodeError::Truncated {
            position: 0,
            needed: 5,
            available: 4
        }
    );
    assert_eq!(
        err(&[0, 2, 1, 0, 1]),
        IndexDecodeError::BadField {
            position: 1,
            expected: 1,
            found: 2
        }
    );
    assert_eq!(
        err(&[2, 0, 3, 1]),
        IndexDecodeError::BadField {
            position: 2,
            expected: 1,
            found: 3
        }
    );
    assert_eq!(
        err(&[3, 1, 1, 5, 1]),
        IndexDecodeError::BadField {
            position: 3,
            expected: 0,
            found: 5
        }
    );
    assert_eq!(
        err(&[2, 0, 1, 2]),
        IndexDecodeError::BadFlag {
            position: 3,
            found: 2
        }
    );
    assert_eq!(
        err(&[1, 2, 1, 0, 5, 0, 0]),
        IndexDecodeError::BadStride {
            position: 5,
            found: 0
        }
    );
    assert_eq!(
        err(&[2, 0, 1, 1, 2, 0, 1, 1, 2, 0, 1, 1]),
        IndexDecodeError::TooMany {
            position: 8,
            max: 2
        }
    );
    // Through a tensor, the error keeps its position.
    let data = [0f32; 6];
    let t = TensorView::new(&data[..], &[2, 3]).unwrap();
    assert_eq!(
        t.view_encoded(&[2, 0, 1, 1, 0, 1, 1, 3, 1]).unwrap_err(),
        ViewError::PointOutOfRange {
            position: 1,
            axis: 1,
            index: 3,
            len: 3
        }
    );
    assert_eq!(
        t.view_encoded(&[9]).unwrap_err(),
        ViewError::Encoding(IndexDecodeError::UnknownType {
            position: 0,
            found: 9
        })
    );
    for e in [
        ViewError::TooManyIndices {
            position: 0,
            rank: 0,
        },
        ViewError::PointOutOfRange {
            position: 0,
            axis: 0,
            index: 0,
            len: 0,
        },
        ViewError::BadStride {
            position: 0,
            stride: 0,
        },
        ViewError::RankTooLarge {
            position: 0,
            max: 8,
        },
        ViewError::Encoding(IndexDecodeError::TooMany {
            position: 0,
            max: 0,
        }),
    ] {
        assert!(e.to_string().starts_with("view"));
    }
}

#[test]
fn views_of_views_keep_the_borrow() {
    let mut data: Vec<u16> = (0..24).collect();
    let t = TensorViewMut::new(&mut data[..], &[2, 3, 4]).unwrap();
    let mut row = t.into_view_mut(&[ViewIndex::Point(1)]).unwrap();
    row.view_mut(&[ViewIndex::All, ViewIndex::Point(0)])
        .unwrap()
        .add_assign_scalar(100);
    let col = row
        .into_view_ref()
        .into_view(&[ViewIndex::All, ViewIndex::Point(0)])
        .unwrap();
    assert_eq!(col.iter().copied().collect::<Vec<_>>(), [112, 116, 120]);
}
