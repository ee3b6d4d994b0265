//! The planners: hand-written lifetime sets whose optimum is known, and properties of random
//! ones (no two simultaneously live buffers overlap; greedy equals a separate transcription of
//! TFLite Micro's algorithm).

extern crate std;
use std::string::ToString;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

fn buffers(spec: &[(usize, u32, u32)]) -> Vec<PlanBuffer> {
    spec.iter()
        .map(|&(size, first, last)| PlanBuffer::new(size, 1, Lifetime::new(first, last)))
        .collect()
}

/// Checks a plan: aligned, no overlap between buffers alive together, peak is the highest end.
fn check(b: &[PlanBuffer], peak: usize) {
    for (i, x) in b.iter().enumerate() {
        assert_eq!(x.offset() % x.align(), 0, "buffer {i} misaligned");
        if x.size() > 0 {
            assert!(x.end() <= peak, "buffer {i} past the peak");
        }
        for (j, y) in b.iter().enumerate().skip(i + 1) {
            if x.size() > 0 && y.size() > 0 && x.lifetime().overlaps(y.lifetime()) {
                assert!(
                    x.end() <= y.offset() || y.end() <= x.offset(),
                    "buffers {i} and {j} overlap: {x:?} {y:?}"
                );
            }
        }
    }
    let highest = b
        .iter()
        .filter(|x| x.size() > 0)
        .map(|x| x.end())
        .max()
        .unwrap_or(0);
    assert_eq!(highest, peak);
}

/// Buffers as (size, first, last).
type Spec = [(usize, u32, u32)];

/// Known optima: (buffers, optimum).
const KNOWN: &[(&Spec, usize)] = &[
    // A chain: neighbours overlap, so the optimum is the largest neighbouring pair.
    (
        &[
            (300, 0, 1),
            (600, 1, 2),
            (150, 2, 3),
            (600, 3, 4),
            (300, 4, 5),
            (75, 5, 6),
        ],
        900,
    ),
    // Disjoint lifetimes: everything shares the largest buffer's bytes.
    (&[(100, 0, 0), (200, 1, 1), (50, 2, 2)], 200),
    // All alive at once: the sum.
    (&[(100, 0, 9), (200, 0, 9), (50, 0, 9)], 350),
    // A diamond (two branches joined at step 3).
    (&[(64, 0, 1), (32, 1, 3), (32, 2, 3), (64, 3, 4)], 128),
    // A residual connection kept alive across two layers.
    (&[(100, 0, 3), (200, 1, 2), (200, 2, 3), (100, 3, 4)], 500),
    // An encoder–decoder with a long skip: the skip and the bottleneck stay, the rest reuse.
    (
        &[
            (512, 0, 1),
            (256, 1, 6),
            (128, 2, 3),
            (64, 3, 4),
            (128, 4, 5),
            (256, 5, 6),
            (512, 6, 7),
        ],
        1024,
    ),
];

#[test]
fn greedy_reaches_the_known_optimum() {
    for (spec, optimum) in KNOWN {
        let mut b = buffers(spec);
        let peak = plan_greedy(&mut b).unwrap();
        check(&b, peak);
        assert_eq!(peak, *optimum, "{spec:?}");
        assert_eq!(
            live_peak(&b),
            *optimum,
            "the optimum is the lower bound here"
        );
        assert_eq!(peak, tflite_micro_greedy(&b), "{spec:?}");
    }
}

#[test]
fn sequential_and_alignment() {
    let mut b = [
        PlanBuffer::new(10, 32, Lifetime::ALWAYS),
        PlanBuffer::new(0, 32, Lifetime::ALWAYS),
        PlanBuffer::new(10, 8, Lifetime::ALWAYS),
        PlanBuffer::new(1, 64, Lifetime::ALWAYS),
    ];
    assert_eq!(plan_sequential(&mut b).unwrap(), 65);
    assert_eq!(b.map(|x| x.offset()), [0, 0, 16, 64]);
    let peak = plan_greedy(&mut b).unwrap();
    check(&b, peak);
    assert_eq!(peak, 65);
}

#[test]
fn bad_input_is_an_error() {
    let mut b = [PlanBuffer::new(1, 1, Lifetime::new(3, 2))];
    assert_eq!(
        plan_greedy(&mut b),
        Err(PlanError::BadLifetime {
            buffer: 0,
            lifetime: Lifetime::new(3, 2)
        })
    );
    let mut b = [
        PlanBuffer::new(1, 1, Lifetime::ALWAYS),
        PlanBuffer::new(1, 3, Lifetime::ALWAYS),
    ];
    assert_eq!(
        plan_sequential(&mut b),
        Err(PlanError::BadAlignment {
            buffer: 1,
            align: 3
        })
    );
    let mut b = [
        PlanBuffer::new(usize::MAX - 4, 1, Lifetime::ALWAYS),
        PlanBuffer::new(8, 1, Lifetime::ALWAYS),
    ];
    assert_eq!(
        plan_sequential(&mut b),
        Err(PlanError::TooLarge { buffer: 1 })
    );
    assert_eq!(plan_greedy(&mut b), Err(PlanError::TooLarge { buffer: 1 }));
    let mut b = [
        PlanBuffer::new(usize::MAX - 4, 1, Lifetime::ALWAYS),
        PlanBuffer::new(2, 16, Lifetime::ALWAYS),
    ];
    assert_eq!(plan_greedy(&mut b), Err(PlanError::TooLarge { buffer: 1 }));
    for e in [
        PlanError::BadLifetime {
            buffer: 0,
            lifetime: Lifetime::ALWAYS,
        },
        PlanError::BadAlignment {
            buffer: 0,
            align: 3,
        },
        PlanError::TooLarge { buffer: 0 },
        PlanError::TooMany { count: 0 },
    ] {
        assert!(e.to_string().starts_with("plan"));
    }
    assert_eq!(plan_greedy::<PlanBuffer>(&mut []), Ok(0));
    assert_eq!(live_peak::<PlanBuffer>(&[]), 0);
}

/// TFLite Micro's `GreedyMemoryPlanner::CalculateOffsetsIfNeeded`, transcribed with `Vec`s
/// (the buffers in reverse order, as it fills its array from the tail, then a stable sort by
/// size, largest first; first fit among simultaneously active buffers in offset order).
/// Returns the peak.
fn tflite_micro_greedy(b: &[PlanBuffer]) -> usize {
    let mut ids: Vec<usize> = (0..b.len()).rev().collect();
    ids.sort_by(|&x, &y| b[y].size().cmp(&b[x].size())); // stable
    let mut placed: Vec<(usize, usize)> = Vec::new(); // (offset, id), sorted by offset
    let mut peak = 0;
    for id in ids {
        let w = &b[id];
        if w.size() == 0 {
            continue;
        }
        let mut candidate = 0usize;
        for &(offset, other) in &placed {
            let o = &b[other];
            if !o.lifetime().overlaps(w.lifetime()) {
                continue;
            }
            if candidate + w.size() <= offset {
                break;
            }
            let end = (offset + o.size()).next_multiple_of(w.align());
            candidate = candidate.max(end);
        }
        let at = placed.partition_point(|&(offset, _)| offset <= candidate);
        placed.insert(at, (candidate, id));
        peak = peak.max(candidate + w.size());
    }
    peak
}

fn random_buffers() -> impl Strategy<Value = Vec<PlanBuffer>> {
    let n = if cfg!(miri) { 0..8usize } else { 0..40usize };
    prop::collection::vec(
        (
            0usize..200,
            prop::sample::select(&[1usize, 4, 32][..]),
            0u32..12,
            0u32..5,
            prop::bool::weighted(0.1),
        ),
        n,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(size, align, first, len, always)| {
                let life = if always {
                    Lifetime::ALWAYS
                } else {
                    Lifetime::new(first, first + len)
                };
                PlanBuffer::new(size, align, life)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn greedy_plans_are_sound(mut b in random_buffers()) {
        let peak = plan_greedy(&mut b).unwrap();
        check(&b, peak);
        prop_assert!(peak >= live_peak(&b));
        prop_assert_eq!(peak, tflite_micro_greedy(&b));
        let padded: usize = b.iter().map(|x| x.size().next_multiple_of(32) + 32).sum();
        prop_assert!(peak <= padded);
    }

    #[test]
    fn sequential_plans_are_sound(mut b in random_buffers()) {
        let peak = plan_sequential(&mut b).unwrap();
        // Back to back: no two non-empty buffers overlap at all.
        let all: Vec<PlanBuffer> = b.iter().map(|x| PlanBuffer::new(x.size(), x.align(), Lifetime::ALWAYS)).collect();
        let mut all = all;
        for (a, x) in all.iter_mut().zip(&b) {
            a.offset = x.offset();
        }
        check(&all, peak);
        let mut last = 0;
        for x in b.iter().filter(|x| x.size() > 0) {
            prop_assert!(x.offset() >= last);
            last = x.end();
        }
    }
}
