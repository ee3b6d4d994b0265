//! `TFLite_Detection_PostProcess`: its orderings against libstdc++ and naive references,
//! IoU and decoding on hand-computed boxes, one-operator models end to end, and refusals.
//! (LiteRT's own outputs on 38 cases are tests/tests/custom_ops.rs's.)

use super::nms::{Candidates, arg_max, iou, partial_sort};
use super::*;
use super::super::custom_one_op::{
    Flex, Tensor, const_f32, f32_bytes, flex_map, kernel_error, model, run, to_f32s, var,
};
use super::super::one_op::{F32, I8, U8};
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

/// `std::partial_sort` of `0..len` by decreasing `values`, as g++ 12's libstdc++ leaves the
/// whole array (printed by a C++ program calling it).
#[test]
fn partial_sort_leaves_what_libstdcxx_leaves() {
    let check = |values: &[f32], middle: usize, want: &[u32]| {
        let mut v: Vec<u32> = (0..values.len() as u32).collect();
        partial_sort(&mut v, middle, |a, b| values[a as usize] > values[b as usize]);
        assert_eq!(v, want, "{values:?} middle {middle}");
    };
    check(&[0.5; 6], 3, &[0, 1, 2, 3, 4, 5]);
    check(
        &[0.25, 0.5, 0.5, 0.25, 0.75, 0.5, 0.25],
        2,
        &[4, 2, 0, 3, 1, 5, 6],
    );
    check(
        &[1.0, 2.0, 2.0, 1.0, 3.0, 3.0, 0.0, 2.0, 1.0],
        4,
        &[5, 4, 1, 2, 3, 0, 6, 7, 8],
    );
}

proptest! {
    #![proptest_config(cases())]

    /// The first `middle` are the greatest values, in decreasing order; the whole stays a
    /// permutation.
    #[test]
    fn partial_sort_puts_the_greatest_first(
        values in prop::collection::vec(0u8..6, 1..40),
        middle in 0usize..40,
    ) {
        let values: Vec<f32> = values.into_iter().map(f32::from).collect();
        let middle = middle.min(values.len());
        let mut v: Vec<u32> = (0..values.len() as u32).collect();
        partial_sort(&mut v, middle, |a, b| values[a as usize] > values[b as usize]);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..values.len() as u32).collect::<Vec<_>>());
        let got: Vec<f32> = v[..middle].iter().map(|&i| values[i as usize]).collect();
        let mut want = values.clone();
        want.sort_by(|a, b| b.total_cmp(a));
        prop_assert_eq!(got, want[..middle].to_vec());
    }

    /// One class's NMS against a naive one: stable sort by score, greedy suppression.
    #[test]
    fn single_class_nms_is_the_greedy_one(
        raw in prop::collection::vec((0u8..8, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..0.5, 0.0f32..0.5), 0..40),
        threshold in 0u8..8,
        iou_threshold in 0.05f32..1.0,
        max in 0usize..12,
    ) {
        let scores: Vec<f32> = raw.iter().map(|r| f32::from(r.0) / 8.0).collect();
        let boxes: Vec<f32> = raw
            .iter()
            .flat_map(|&(_, y, x, h, w)| [y, x, y + h, x + w])
            .collect();
        let score_threshold = f32::from(threshold) / 8.0;
        let n = scores.len();
        let (mut order, mut active, mut selected) = (vec![0; n], vec![0; n], vec![0; max.min(n)]);
        let mut c = Candidates {
            boxes: &boxes,
            order: &mut order,
            active: &mut active,
            selected: &mut selected,
            score_threshold,
            iou_threshold,
        };
        let k = c.single_class(&scores, max).unwrap();
        let corners = |i: usize| Corners {
            ymin: boxes[4 * i],
            xmin: boxes[4 * i + 1],
            ymax: boxes[4 * i + 2],
            xmax: boxes[4 * i + 3],
        };
        let mut candidates: Vec<usize> = (0..n).filter(|&i| scores[i] >= score_threshold).collect();
        candidates.sort_by(|&a, &b| scores[b].partial_cmp(&scores[a]).unwrap());
        let mut want: Vec<u32> = Vec::new();
        for &i in &candidates {
            if want.len() >= max {
                break;
            }
            if want.iter().all(|&j| iou(corners(j as usize), corners(i)) <= iou_threshold) {
                want.push(i as u32);
            }
        }
        prop_assert_eq!(&selected[..k], &want[..]);
    }
}

#[test]
fn arg_max_takes_the_first_greatest_and_skips_nan() {
    assert_eq!(arg_max(&[1.0, 3.0, 3.0, 2.0]), 1);
    assert_eq!(arg_max(&[f32::NAN, 1.0, 2.0]), 2);
    assert_eq!(arg_max(&[0.5, f32::NAN, 2.0]), 2);
    assert_eq!(arg_max(&[f32::NAN, f32::NAN]), 0);
    assert_eq!(arg_max(&[]), 0);
    assert_eq!(arg_max(&[-0.0, 0.0]), 0);
}

#[test]
fn iou_of_hand_computed_boxes() {
    let b = |ymin, xmin, ymax, xmax| Corners {
        ymin,
        xmin,
        ymax,
        xmax,
    };
    assert_eq!(iou(b(0.0, 0.0, 1.0, 1.0), b(0.0, 0.0, 1.0, 1.0)), 1.0);
    assert_eq!(iou(b(0.0, 0.0, 1.0, 1.0), b(2.0, 2.0, 3.0, 3.0)), 0.0);
    // Half of each overlaps: 0.5 / 1.5.
    assert_eq!(iou(b(0.0, 0.0, 1.0, 1.0), b(0.0, 0.5, 1.0, 1.5)), 0.5 / 1.5);
    // No area: 0, whatever the overlap.
    assert_eq!(iou(b(0.0, 0.0, 0.0, 1.0), b(0.0, 0.0, 1.0, 1.0)), 0.0);
    assert!(iou(b(f32::NAN, 0.0, 1.0, 1.0), b(0.0, 0.0, 1.0, 1.0)).is_nan());
}

#[test]
fn decoding_follows_the_centre_size_coder() {
    // Zero encodings give the anchor itself.
    let c = decode([0.0; 4], [0.5, 0.5, 0.2, 0.4], [10.0, 10.0, 5.0, 5.0]);
    assert_eq!((c.ymin, c.xmin, c.ymax, c.xmax), (0.4, 0.3, 0.6, 0.7));
    // y moves by y / y_scale * anchor h; h scales by exp(h / h_scale).
    let c = decode([10.0, 0.0, 5.0 * 2f32.ln(), 0.0], [0.5, 0.5, 0.2, 0.4], [10.0, 10.0, 5.0, 5.0]);
    assert!((c.ymin - 0.5).abs() < 1e-6 && (c.ymax - 0.9).abs() < 1e-6, "{c:?}");
}

/// The standard options, with `changes` applied (`None` removes a key).
fn options(changes: &[(&str, Option<Flex>)]) -> Vec<u8> {
    let mut o: Vec<(&str, Flex)> = vec![
        ("max_detections", Flex::Int(3)),
        ("max_classes_per_detection", Flex::Int(1)),
        ("detections_per_class", Flex::Int(100)),
        ("use_regular_nms", Flex::Bool(false)),
        ("nms_score_threshold", Flex::Float(0.3)),
        ("nms_iou_threshold", Flex::Float(0.5)),
        ("num_classes", Flex::Int(2)),
        ("y_scale", Flex::Float(10.0)),
        ("x_scale", Flex::Float(10.0)),
        ("h_scale", Flex::Float(5.0)),
        ("w_scale", Flex::Float(5.0)),
    ];
    for (k, v) in changes {
        o.retain(|(key, _)| key != k);
        if let Some(v) = v {
            o.push((k, v.clone()));
        }
    }
    flex_map(&o)
}

/// Anchors for 4 boxes: two overlapping heavily, two apart.
const ANCHORS: [f32; 16] = [
    0.5, 0.5, 0.2, 0.2, //
    0.5, 0.52, 0.2, 0.2, //
    0.1, 0.1, 0.1, 0.1, //
    0.9, 0.9, 0.1, 0.1,
];

/// The model over 4 anchors and 2 classes (+ background), `rows` output rows.
fn detection(options: &[u8], rows: i32) -> Vec<u8> {
    model(
        "TFLite_Detection_PostProcess",
        1,
        options,
        &[
            var(F32, &[1, 4, 4]),
            var(F32, &[1, 4, 3]),
            const_f32(&[4, 4], &ANCHORS),
            var(F32, &[1, rows, 4]),
            var(F32, &[1, rows]),
            var(F32, &[1, rows]),
            var(F32, &[1]),
        ],
        3,
    )
}

const SCORES: [f32; 12] = [
    0.0, 0.9, 0.1, //
    0.0, 0.8, 0.7, //
    0.0, 0.2, 0.6, //
    0.0, 0.1, 0.2,
];

fn outputs(file: &[u8], scores: &[f32]) -> Vec<Vec<f32>> {
    let boxes = [0.0f32; 16];
    run(file, &[&f32_bytes(&boxes), &f32_bytes(scores)])
        .unwrap()
        .iter()
        .map(|b| to_f32s(b))
        .collect()
}

#[test]
fn fast_nms_end_to_end() {
    let out = outputs(&detection(&options(&[]), 3), &SCORES);
    // Anchor 0 (class 0, 0.9) suppresses anchor 1 (0.8); anchor 2 (class 1, 0.6) is apart;
    // anchor 3's best (0.2) is under the threshold.
    assert_eq!(out[3], [2.0]);
    assert_eq!(out[1], [0.0, 1.0, 0.0]);
    assert_eq!(out[2], [0.9, 0.6, 0.0]);
    assert_eq!(&out[0][..4], &[0.4, 0.4, 0.6, 0.6]);
    assert_eq!(&out[0][8..], &[0.0; 4]);
}

#[test]
fn fast_nms_with_every_class_per_detection() {
    let o = options(&[("max_classes_per_detection", Some(Flex::Int(2)))]);
    let out = outputs(&detection(&o, 6), &SCORES);
    assert_eq!(out[3], [2.0]);
    assert_eq!(out[1], [0.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(out[2], [0.9, 0.1, 0.6, 0.2, 0.0, 0.0]);
}

#[test]
fn regular_nms_end_to_end() {
    let o = options(&[("use_regular_nms", Some(Flex::Bool(true)))]);
    let out = outputs(&detection(&o, 3), &SCORES);
    // Class 0: anchor 0 (0.9) suppresses 1. Class 1: anchor 1 (0.7), then anchor 2 (0.6).
    // Merged by score, the best 3.
    assert_eq!(out[3], [3.0]);
    assert_eq!(out[1], [0.0, 1.0, 1.0]);
    assert_eq!(out[2], [0.9, 0.7, 0.6]);
    let o = options(&[
        ("use_regular_nms", Some(Flex::Bool(true))),
        ("detections_per_class", Some(Flex::Int(1))),
    ]);
    let out = outputs(&detection(&o, 3), &SCORES);
    assert_eq!(out[3], [2.0]);
    assert_eq!(out[2], [0.9, 0.7, 0.0]);
}

#[test]
fn absent_optional_options_take_their_defaults() {
    let o = options(&[("detections_per_class", None), ("use_regular_nms", None)]);
    assert_eq!(
        outputs(&detection(&o, 3), &SCORES),
        outputs(&detection(&options(&[]), 3), &SCORES)
    );
}

#[test]
fn uint8_inputs_are_dequantized() {
    let q = |v: &[f32], scale: f32| -> Vec<u8> {
        v.iter().map(|x| (x / scale).round() as u8).collect()
    };
    let file = model(
        "TFLite_Detection_PostProcess",
        1,
        &options(&[]),
        &[
            var(U8, &[1, 4, 4]).quantized(0.1, 128),
            var(U8, &[1, 4, 3]).quantized(0.1, 0),
            Tensor {
                ty: U8,
                shape: vec![4, 4],
                data: Some(q(&ANCHORS, 0.01)),
                quant: Some((0.01, 0)),
            },
            var(F32, &[1, 3, 4]),
            var(F32, &[1, 3]),
            var(F32, &[1, 3]),
            var(F32, &[1]),
        ],
        3,
    );
    let out = run(&file, &[&[128; 16], &q(&SCORES, 0.1)]).unwrap();
    let scores = to_f32s(&out[2]);
    assert_eq!(to_f32s(&out[3]), [2.0]);
    assert_eq!(scores[1], (0.1f64 * 6.0) as f32);
    let boxes = to_f32s(&out[0]);
    assert!((boxes[0] - 0.4).abs() < 1e-6, "{boxes:?}");
}

/// The kernel error setting up `file` gives.
fn refused(file: &[u8]) -> KernelError {
    kernel_error(run(file, &[]).expect_err("refused"))
}

#[test]
fn bad_options_are_refused() {
    let bad = [
        (options(&[("num_classes", Some(Flex::Int(0)))]), "num_classes below 1"),
        (options(&[("nms_iou_threshold", Some(Flex::Float(0.0)))]), "nms_iou_threshold"),
        (options(&[("nms_iou_threshold", None)]), "nms_iou_threshold"),
        (options(&[("nms_iou_threshold", Some(Flex::Float(1.5)))]), "nms_iou_threshold"),
        (options(&[("max_classes_per_detection", Some(Flex::Int(0)))]), "max_classes"),
        (options(&[("max_detections", Some(Flex::Int(-1)))]), "max_detections"),
        (options(&[("num_classes", Some(Flex::Str("two")))]), "FlexBuffer"),
        (options(&[("num_classes", Some(Flex::Int(1 << 40)))]), "FlexBuffer"),
        (
            options(&[
                ("use_regular_nms", Some(Flex::Bool(true))),
                ("detections_per_class", Some(Flex::Int(0))),
            ]),
            "regular NMS",
        ),
        (b"not a flexbuffer map".to_vec(), "FlexBuffer"),
        (Vec::new(), "FlexBuffer"),
    ];
    for (o, what) in bad {
        let e = refused(&detection(&o, 3));
        assert!(e.to_string().contains(what), "{e} (wanted {what})");
    }
}

#[test]
fn bad_shapes_and_types_are_refused() {
    let o = options(&[]);
    let with = |t: Vec<Tensor>| model("TFLite_Detection_PostProcess", 1, &o, &t, 3);
    let outs = || {
        vec![
            var(F32, &[1, 3, 4]),
            var(F32, &[1, 3]),
            var(F32, &[1, 3]),
            var(F32, &[1]),
        ]
    };
    let anchors = || const_f32(&[4, 4], &ANCHORS);
    let cases: Vec<(Vec<Tensor>, &str)> = vec![
        (vec![var(F32, &[1, 4, 3]), var(F32, &[1, 4, 3]), anchors()], "shorter than 4"),
        (vec![var(F32, &[2, 4, 4]), var(F32, &[2, 4, 3]), anchors()], "batch"),
        (vec![var(F32, &[1, 4, 4]), var(F32, &[1, 5, 3]), anchors()], "number of anchors"),
        (vec![var(F32, &[1, 4, 4]), var(F32, &[1, 4, 5]), anchors()], "num_classes"),
        (vec![var(F32, &[1, 4, 4]), var(F32, &[1, 4, 3]), const_f32(&[3, 4], &ANCHORS[..12])], "anchors not"),
        (vec![var(F32, &[4, 4]), var(F32, &[1, 4, 3]), anchors()], "3-D"),
        (vec![var(I8, &[1, 4, 4]).quantized(0.1, 0), var(F32, &[1, 4, 3]), anchors()], "box encodings other"),
        (vec![var(U8, &[1, 4, 4]).quantized(0.1, 0), var(F32, &[1, 4, 3]), anchors()], "anchors of another type"),
        (vec![var(F32, &[1, 4, 4]), var(I8, &[1, 4, 3]).quantized(0.1, 0), anchors()], "scores other"),
        (vec![var(F32, &[1, 4, 4]), var(U8, &[1, 4, 3]), anchors()], "quantized tensor without"),
    ];
    for (mut inputs, what) in cases {
        inputs.extend(outs());
        let e = refused(&with(inputs));
        assert!(e.to_string().contains(what), "{e} (wanted {what})");
    }
    // Outputs: another row count, another type.
    assert_eq!(refused(&detection(&o, 4)), check::OUTPUT_SHAPE);
    let mut t = vec![var(F32, &[1, 4, 4]), var(F32, &[1, 4, 3]), anchors()];
    t.extend([var(F32, &[1, 3, 4]), var(U8, &[1, 3]), var(F32, &[1, 3]), var(F32, &[1])]);
    assert!(refused(&with(t)).to_string().contains("not FLOAT32"));
    // Three outputs.
    let mut t = vec![var(F32, &[1, 4, 4]), var(F32, &[1, 4, 3]), anchors()];
    t.extend([var(F32, &[1, 3, 4]), var(F32, &[1, 3]), var(F32, &[1, 3])]);
    assert!(matches!(refused(&with(t)), KernelError::Arity { .. }));
}

#[test]
fn a_box_decoded_inside_out_stops_invoke() {
    // A negative anchor height turns the box inside out: LiteRT's ValidateBoxes fails.
    let mut anchors = ANCHORS;
    anchors[2] = -0.2;
    let file = model(
        "TFLite_Detection_PostProcess",
        1,
        &options(&[]),
        &[
            var(F32, &[1, 4, 4]),
            var(F32, &[1, 4, 3]),
            const_f32(&[4, 4], &anchors),
            var(F32, &[1, 3, 4]),
            var(F32, &[1, 3]),
            var(F32, &[1, 3]),
            var(F32, &[1]),
        ],
        3,
    );
    let e = kernel_error(run(&file, &[&f32_bytes(&[0.0; 16]), &f32_bytes(&SCORES)]).unwrap_err());
    assert!(e.to_string().contains("minimum above"), "{e}");
}

#[test]
fn no_anchors_no_detections() {
    let file = model(
        "TFLite_Detection_PostProcess",
        1,
        &options(&[]),
        &[
            var(F32, &[1, 0, 4]),
            var(F32, &[1, 0, 3]),
            var(F32, &[0, 4]),
            var(F32, &[1, 3, 4]),
            var(F32, &[1, 3]),
            var(F32, &[1, 3]),
            var(F32, &[1]),
        ],
        3,
    );
    let out = run(&file, &[&[], &[], &[]]).unwrap();
    assert_eq!(to_f32s(&out[3]), [0.0]);
    assert_eq!(to_f32s(&out[2]), [0.0; 3]);
}
