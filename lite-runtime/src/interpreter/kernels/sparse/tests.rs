//! DENSIFY: its scatter, and the `sparse` fixture, where the folded DENSIFY takes no arena
//! bytes for the dense weights.

use super::densify;

#[test]
fn densify_scatters_into_zeros_and_refuses_positions_outside() {
    let mut out = [9.0f32; 5];
    densify(&[1.0, 2.0], &[4, 1], &mut out).unwrap();
    assert_eq!(out, [0.0, 2.0, 0.0, 0.0, 1.0]);
    assert!(densify(&[1.0], &[5], &mut out).is_err());
    // float16 (as bits) and int8 move the same way.
    let mut half = [7u16; 3];
    densify(&[0x3c00, 0xc000], &[2, 0], &mut half).unwrap();
    assert_eq!(half, [0xc000, 0, 0x3c00]);
    let mut bytes = [7i8; 4];
    densify(&[-5, 9], &[1, 3], &mut bytes).unwrap();
    assert_eq!(bytes, [0, -5, 0, 9]);
}

#[cfg(feature = "std")]
mod fixture {
    use crate::interpreter::{AllOps, Interpreter, Options};
    use crate::model::Model;

    const SPARSE: &[u8] = include_bytes!("../../../../../tests/fixtures/models/sparse.tflite");
    /// The `sparse` fixture's dense weights: 32 x 64 float32.
    const DENSE_WEIGHTS: usize = 32 * 64 * 4;
    /// Its DENSIFY output.
    const DENSIFIED: i32 = 3;
    /// Its graph output.
    const OUTPUT: i32 = 6;

    /// The model in 4-aligned memory (constants read in place).
    fn aligned(bytes: &[u8]) -> Vec<u32> {
        let mut words = vec![0u32; bytes.len().div_ceil(4)];
        zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..bytes.len()].copy_from_slice(bytes);
        words
    }

    /// The fixture with its graph output replaced by the DENSIFY's output, so the DENSIFY
    /// cannot be folded: the subgraph's `outputs` vector is the `[1, 6]` whose change the
    /// loader reports as graph outputs `[3]` (operator #2's `[1, 6]` is left alone).
    fn unfolded() -> Vec<u32> {
        let pattern: Vec<u8> = [1i32, OUTPUT]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        for at in (0..SPARSE.len() - 8).step_by(4) {
            if SPARSE[at..at + 8] != pattern[..] {
                continue;
            }
            let mut bytes = SPARSE.to_vec();
            bytes[at + 4..at + 8].copy_from_slice(&DENSIFIED.to_le_bytes());
            let words = aligned(&bytes);
            let b = &zerocopy::IntoBytes::as_bytes(&words[..])[..bytes.len()];
            let Ok(model) = Model::load(b) else { continue };
            let g = model.subgraph(0).unwrap();
            let outs: Vec<_> = g.outputs().iter().collect();
            let last = g.operators().iter().last().unwrap();
            let last_outs: Vec<_> = last.outputs().iter().collect();
            if outs == [Some(DENSIFIED as usize)] && last_outs == [Some(OUTPUT as usize)] {
                return words;
            }
        }
        panic!("no graph outputs vector found");
    }

    fn arena(bytes: &[u8]) -> (usize, Vec<f32>) {
        let model = Model::load(bytes).unwrap();
        let options = Options::default();
        let needed = Interpreter::required(&model, &AllOps, &options).unwrap();
        let mut arena = vec![0u8; needed];
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
        {
            let mut x = it.input::<f32>(0).unwrap();
            for (i, v) in x.as_slice_mut().unwrap().iter_mut().enumerate() {
                *v = (i as f32 * 0.3).sin();
            }
        }
        it.invoke().unwrap();
        let out = it.output::<f32>(0).unwrap().as_slice().unwrap().to_vec();
        (it.arena_used_bytes(), out)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn folded_densify_takes_no_dense_weights() {
        let words = aligned(SPARSE);
        let (folded, _) = arena(&zerocopy::IntoBytes::as_bytes(&words[..])[..SPARSE.len()]);
        let words = unfolded();
        let bytes = &zerocopy::IntoBytes::as_bytes(&words[..])[..SPARSE.len()];
        let (unfolded, dense) = arena(bytes);
        // The unfolded DENSIFY writes the whole matrix into the arena.
        assert_eq!(dense.len(), DENSE_WEIGHTS / 4);
        let nonzero = dense.iter().filter(|&&v| v != 0.0).count();
        assert!(nonzero > 0 && nonzero < dense.len() / 4, "{nonzero}");
        assert!(unfolded >= folded + DENSE_WEIGHTS, "{unfolded} vs {folded}");
        assert!(folded < DENSE_WEIGHTS, "{folded}");
    }
}
