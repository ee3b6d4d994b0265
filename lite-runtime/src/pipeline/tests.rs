use super::*;

// Safe code only, over the whole bundled file: minutes under Miri, which checks the
// same decoder and pooling in tessera-core's own tests.
#[test]
#[cfg_attr(miri, ignore)]
fn the_bundled_dataset_decodes_whole_and_pools() {
    let table = demo_table(DEMO_VOCAB, 16).unwrap();
    let r = run(
        DEMO_NORM,
        DEMO_CONFIG,
        256,
        &table,
        16,
        Duration::ZERO,
        None,
    )
    .unwrap();
    assert_eq!((r.samples, r.batches, r.passes), (1024, 4, 1));
    assert_eq!(r.stats.skipped, 0);
    assert!(r.keys >= 1024 * 26 && r.keys <= 1024 * 26 * 3);
    assert!(r.pooled_sum.is_finite());
}

#[test]
fn absurd_sizes_are_errors_naming_the_bytes() {
    assert!(matches!(
        demo_table(usize::MAX, usize::MAX),
        Err(MemoryError::OverBudget { .. })
    ));
    let table = [0f32; 4];
    for (batch, dim) in [(usize::MAX, 1), (100_000_000_000, 1), (1, usize::MAX)] {
        let e = run(
            DEMO_NORM,
            DEMO_CONFIG,
            batch,
            &table,
            dim,
            Duration::ZERO,
            None,
        )
        .unwrap_err();
        assert!(matches!(e, PipelineError::Memory(_)), "{e}");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn the_bundled_model_predicts_what_litert_does() {
    use crate::interpreter::{AllOps, Interpreter, Options};
    let model = crate::model::Model::load(crate::ctr::model()).unwrap();
    let options = Options::default();
    let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options).unwrap()];
    let it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
    let mut p = Predictor::new(it).unwrap();
    let table = demo_table(DEMO_VOCAB, 4).unwrap();
    // 250 does not divide by the model's batch of 4: the last group of each is padded.
    let r = run(
        DEMO_NORM,
        DEMO_CONFIG,
        250,
        &table,
        4,
        Duration::ZERO,
        Some(&mut p),
    )
    .unwrap();
    let litert = tessera_core::npy::NpyView::parse(DEMO_PREDICTIONS).unwrap();
    assert_eq!(r.predictions.len(), 1024);
    for (i, (g, w)) in r
        .predictions
        .iter()
        .zip(litert.data().chunks(4))
        .enumerate()
    {
        let w = f32::from_le_bytes(w.try_into().unwrap());
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "sample {i}: {g}, LiteRT {w}"
        );
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn a_corrupt_copy_names_its_sample() {
    let mut bad = DEMO_NORM.to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    let table = demo_table(DEMO_VOCAB, 4).unwrap();
    let e = run(&bad, DEMO_CONFIG, 256, &table, 4, Duration::ZERO, None).unwrap_err();
    assert!(
        matches!(
            e,
            PipelineError::Data(DataError {
                sample: Some(1023),
                ..
            })
        ),
        "{e}"
    );
}
