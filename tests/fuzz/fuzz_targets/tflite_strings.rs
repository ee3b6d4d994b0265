//! Fuzzes `TfliteStrings::new` on arbitrary bytes: it must never panic, and whatever it accepts
//! must iterate consistently and re-encode to exactly the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_core::CapacityError;
use tessera_core::strings::{TfliteEncodeError, TfliteStrings, encode_tflite, tflite_encoded_len};

fuzz_target!(|data: &[u8]| {
    let strings = match TfliteStrings::new(data) {
        Ok(strings) => strings,
        Err(e) => {
            // Messages are built from the bad values: they must not overflow either.
            let _ = e.to_string();
            return;
        }
    };
    assert_eq!(strings.as_bytes(), data);

    // Forward iteration agrees with `len`, `get` and `data_bytes`.
    let mut total = 0usize;
    let mut count = 0usize;
    for (i, s) in strings.iter().enumerate() {
        assert_eq!(strings.get(i), Some(s));
        total += s.len();
        count += 1;
    }
    assert_eq!(count, strings.len());
    assert_eq!(strings.is_empty(), count == 0);
    assert_eq!(strings.get(count), None);
    assert_eq!(total, strings.data_bytes());
    assert_eq!(total + 4 * (count + 2), data.len());

    // Backward iteration yields the same strings.
    let forward: Vec<&[u8]> = strings.iter().collect();
    let mut backward: Vec<&[u8]> = strings.iter().rev().collect();
    backward.reverse();
    assert_eq!(forward, backward);

    // Validation is strict enough that there is exactly one encoding: re-encoding gives the
    // same bytes.
    assert_eq!(tflite_encoded_len(strings), Ok(data.len()));
    let mut out = vec![0u8; data.len()];
    assert_eq!(encode_tflite(strings, &mut out), Ok(data.len()));
    assert_eq!(out, data);

    // Through an iterator of unknown length (measured, then written), into a roomier buffer:
    // the same bytes, and nothing past them.
    let mut roomy = vec![0xA5u8; data.len() + 8];
    assert_eq!(
        encode_tflite(strings.iter().filter(|_| true), &mut roomy),
        Ok(data.len())
    );
    assert_eq!(&roomy[..data.len()], data);
    assert!(roomy[data.len()..].iter().all(|&b| b == 0xA5));

    // One byte short is a capacity error naming the exact size.
    let mut short = vec![0xA5u8; data.len() - 1];
    assert_eq!(
        encode_tflite(strings, &mut short),
        Err(TfliteEncodeError::Capacity(CapacityError {
            needed: data.len(),
            available: data.len() - 1,
        }))
    );
});
