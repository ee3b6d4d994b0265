//! Fuzzes OFFSET string arrays: `OffsetStrings::new` on arbitrary bytes, start and count must
//! never panic; whatever it accepts must stay inside the buffer, agree with TensorFlow's
//! pointer-based reading (`ctstring::bytes` through the array's own address), and re-encode to
//! the same strings.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_core::tstring::{OffsetStrings, TString, ctstring};

fuzz_target!(|input: &[u8]| {
    let [start, count, data @ ..] = input else {
        return;
    };
    let (start, count) = (*start as usize % 32, *count as usize % 16);
    let array = match OffsetStrings::new(data, start, count) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let range = data.as_ptr_range();
    let strings: Vec<&[u8]> = array.iter().collect();
    assert_eq!(strings.len(), count);
    for s in &strings {
        assert!(s.is_empty() || (range.contains(&s.as_ptr()) && s.as_ptr_range().end <= range.end));
    }
    assert!(array.iter().rev().eq(strings.iter().rev().copied()));

    // The same bytes in 8-aligned memory, read the way C reads a TF_TString array. Only when
    // the headers are aligned, as a C caller's would be.
    if start % 8 == 0 {
        let mut words = vec![0u64; data.len().div_ceil(8)];
        let aligned: &mut [u8] = bytemuck_bytes(&mut words, data.len());
        aligned.copy_from_slice(data);
        let base = aligned.as_mut_ptr();
        for (i, s) in strings.iter().enumerate() {
            // SAFETY: `new` checked header `i` is SMALL or an OFFSET whose bytes lie inside the
            // buffer, and `base`'s provenance covers the whole buffer.
            let via_pointer = unsafe {
                let p = base.add(start + 24 * i).cast::<TString>();
                ctstring::bytes::<tessera_core::tstring::NoHeap>(p)
            };
            assert_eq!(via_pointer, *s);
        }
    }

    let mut out = vec![0u8; OffsetStrings::encoded_len(&strings).unwrap()];
    let again = OffsetStrings::encode(&strings, &mut out).unwrap();
    assert!(again.iter().eq(strings.iter().copied()));
});

fn bytemuck_bytes(words: &mut [u64], len: usize) -> &mut [u8] {
    // SAFETY: u64 has no padding and any byte pattern is valid; `len <= 8 * words.len()`.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}
