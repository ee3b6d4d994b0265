use std::path::Path;

use super::*;

/// A `.npy` file of two int32 values.
fn demo_file_of_i32() -> Vec<u8> {
    use tessera_core::npy::{npy_header_len, write_npy_header};
    let mut file = vec![0u8; npy_header_len(NpyType::I32, &[2]) + 8];
    let n = write_npy_header(NpyType::I32, &[2], &mut file).unwrap();
    assert_eq!(file.len(), n + 8);
    file
}

/// A file of the demo (`lite-runtime/cli/demo`), the inputs `tessera` reads by default.
fn demo(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cli/demo")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// Safe code only, over the whole bundled file: minutes under Miri, which checks the
// same decoder and pooling in tessera-core's own tests.
#[test]
#[cfg_attr(miri, ignore)]
fn the_demo_dataset_decodes_whole_and_pools() {
    let table = demo_table(DEMO_VOCAB, 16).unwrap();
    let r = run(
        &demo("demo.norm"),
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
    // The buffers are checked before the file is read: no file is needed.
    for (batch, dim) in [(usize::MAX, 1), (100_000_000_000, 1), (1, usize::MAX)] {
        let e = run(&[], DEMO_CONFIG, batch, &table, dim, Duration::ZERO, None).unwrap_err();
        assert!(matches!(e, PipelineError::Memory(_)), "{e}");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn the_demo_model_predicts_what_litert_does() {
    use tessera_lite::interpreter::{AllOps, Interpreter, Options};
    let bytes = demo("ctr_b4.tflite");
    let model = tessera_lite::model::Model::load(&bytes).unwrap();
    let options = Options::default();
    let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options).unwrap()];
    let it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
    let mut p = Predictor::new(it).unwrap();
    let table = demo_table(DEMO_VOCAB, 4).unwrap();
    // 250 does not divide by the model's batch of 4: the last group of each is padded.
    let r = run(
        &demo("demo.norm"),
        DEMO_CONFIG,
        250,
        &table,
        4,
        Duration::ZERO,
        Some(&mut p),
    )
    .unwrap();
    let reference = demo("ctr_b4.demo_predictions.npy");
    let litert = NpyView::parse(&reference).unwrap();
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
    let reference = Reference::parse(&reference).unwrap();
    assert_eq!(reference.len(), 1024);
    let worst = reference.largest_difference(&r.predictions).unwrap();
    assert!(worst <= 1e-4, "{worst}");
    // A reference that is not one float32 per prediction is refused, naming the counts, the
    // type, or what is wrong with the file.
    let e = reference
        .largest_difference(&r.predictions[1..])
        .unwrap_err();
    assert_eq!(e.to_string(), "holds 1024 predictions, the run made 1023");
    let ints = demo_file_of_i32();
    let e = Reference::parse(&ints).unwrap_err();
    assert_eq!(
        e.to_string(),
        "holds <i4 values, not float32 predictions (<f4)"
    );
    let e = Reference::parse(&demo("ctr_b4.demo_predictions.npy")[..100]).unwrap_err();
    assert!(matches!(e, ReferenceError::Npy(_)), "{e}");
}

#[test]
#[cfg_attr(miri, ignore)]
fn a_corrupt_copy_names_its_sample() {
    let mut bad = demo("demo.norm");
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
