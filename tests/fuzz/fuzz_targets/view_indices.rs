//! Fuzzes DL4J's INT64 index decoder and view creation (`CreateView`) on arbitrary words: it
//! must never panic, and every view it accepts must stay inside the tensor, iterate exactly
//! its elements, write exactly those through `view_mut`, and re-encode to the same view.
//!
//! Input: byte 0 picks the tensor's shape; byte 1's low bit picks how the rest becomes `i64`
//! words (1: one sign-extended byte per word, so small values are common; 0: 8 bytes
//! little-endian per word).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_core::tensor::{TensorView, TensorViewMut};
use tessera_core::view::{ViewIndex, dl4j};

const SHAPES: [&[usize]; 8] = [
    &[2, 3, 4],
    &[5],
    &[],
    &[1, 0, 3],
    &[3, 1, 2, 2],
    &[1, 1, 1, 1, 1, 1, 1, 2],
    &[7, 2],
    &[2, 2, 2, 2, 2],
];

fuzz_target!(|data: &[u8]| {
    let (Some(&pick), Some(&mode)) = (data.first(), data.get(1)) else {
        return;
    };
    let rest = &data[2..];
    let words: Vec<i64> = if mode & 1 == 1 {
        rest.iter().map(|&b| i64::from(b as i8)).collect()
    } else {
        rest.chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let shape = SHAPES[usize::from(pick) % SHAPES.len()];
    let len: usize = shape.iter().product();
    let values: Vec<u32> = (0..len as u32).collect();
    let tensor = TensorView::new(&values[..], shape).unwrap();

    // The decoder alone: errors render, and whatever decodes re-encodes to the same words
    // (up to the Java spelling of a new axis and the point / all / new-axis flags).
    let mut decoded = Vec::new();
    for r in dl4j::Indices::new(&words) {
        match r {
            Ok(i) => decoded.push(i),
            Err(e) => {
                let _ = e.to_string();
                break;
            }
        }
    }
    let mut again = vec![0i64; dl4j::encoded_indices_len(&decoded)];
    dl4j::encode_indices(&decoded, &mut again).unwrap();
    let mut round = [ViewIndex::All; 64];
    if decoded.len() <= round.len() {
        let n = dl4j::decode_indices(&again, &mut round).unwrap();
        assert_eq!(&round[..n], &decoded[..]);
    }

    let view = match tensor.view_encoded(&words) {
        Ok(v) => v,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    // Same as decoding then viewing.
    assert_eq!(tensor.view(&decoded).unwrap().layout(), view.layout());
    assert!(view.layout().span() <= len);
    let seen: Vec<u32> = view.iter().copied().collect();
    assert_eq!(seen.len(), view.len());
    assert_eq!(view.iter().fold(0usize, |n, _| n + 1), view.len());
    // Views pick distinct elements (a new axis has length 1), in increasing order.
    assert!(seen.windows(2).all(|w| w[0] < w[1]));
    let layout = *view.layout();

    let mut buf = values.clone();
    let mut t = TensorViewMut::new(&mut buf[..], shape).unwrap();
    let mut w = t.view_encoded_mut(&words).unwrap();
    assert_eq!(w.layout(), &layout);
    w.add_assign_scalar(1 << 30);
    let changed: Vec<u32> = buf
        .iter()
        .enumerate()
        .filter(|&(_, &x)| x >= 1 << 30)
        .map(|(p, _)| p as u32)
        .collect();
    assert_eq!(changed, seen);
});
