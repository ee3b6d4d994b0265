//! Fuzzes the Norm data path's C entry points (`tessera_norm_*`), called through raw pointers
//! as C calls them: any configuration (fields out of range included), key type, batch arrays
//! sized by `tessera_norm_batch_lens` or cut short, and arbitrary bytes fed whole or in
//! chunks. No call may panic or touch memory outside the arrays it was given (the sanitizer
//! checks that); what a successful call reports must agree with what it wrote.
#![no_main]

use core::mem::MaybeUninit;
use core::ptr::null_mut;

use libfuzzer_sys::fuzz_target;
use tessera::TesseraStatus as S;
use tessera::data::{
    TesseraBatchI64, TesseraBatchU32, TesseraDecodeStatus, TesseraNormConfig, TesseraNormDecoder,
    TesseraNormProgress, tessera_norm_batch_lens, tessera_norm_decode_i64, tessera_norm_decode_u32,
    tessera_norm_decoder_finish, tessera_norm_decoder_init,
};
use tessera::interpreter::TesseraError;

/// The most elements one batch array may have here: arbitrary dimensions ask for more, and
/// the fuzzer should spend its time decoding, not allocating.
const MAX_ELEMENTS: usize = 1 << 16;

fn error() -> TesseraError {
    // SAFETY: integers and a c_char array: all-zero bytes are a valid value.
    unsafe { MaybeUninit::<TesseraError>::zeroed().assume_init() }
}

/// A key type's C batch struct and decode function.
trait Keys: Copy + Default + Into<i64> {
    type Batch;
    fn batch(ld: &mut [f32], offsets: &mut [Self], keys: &mut [Self]) -> Self::Batch;
    /// # Safety
    /// As `tessera_norm_decode_u32`.
    unsafe fn decode(
        d: *mut TesseraNormDecoder,
        input: &[u8],
        batch: &Self::Batch,
        p: *mut TesseraNormProgress,
        err: *mut TesseraError,
    ) -> S;
}

/// `Keys` for one key type: its C batch struct and decode function.
macro_rules! keys {
    ($key:ty, $batch:ident, $decode:ident) => {
        impl Keys for $key {
            type Batch = $batch;
            fn batch(ld: &mut [f32], offsets: &mut [$key], keys: &mut [$key]) -> $batch {
                $batch {
                    label_dense: ld.as_mut_ptr(),
                    label_dense_len: ld.len(),
                    row_offsets: offsets.as_mut_ptr(),
                    row_offsets_len: offsets.len(),
                    keys: keys.as_mut_ptr(),
                    keys_len: keys.len(),
                }
            }
            unsafe fn decode(
                d: *mut TesseraNormDecoder,
                input: &[u8],
                batch: &$batch,
                p: *mut TesseraNormProgress,
                err: *mut TesseraError,
            ) -> S {
                // SAFETY: the caller's precondition.
                unsafe { $decode(d, input.as_ptr(), input.len(), batch, p, err) }
            }
        }
    };
}

keys!(u32, TesseraBatchU32, tessera_norm_decode_u32);
keys!(i64, TesseraBatchI64, tessera_norm_decode_i64);

/// Decodes `file` as C would, `chunk` bytes more each time the decoder asks for more.
fn run<K: Keys>(
    d: *mut TesseraNormDecoder,
    config: &TesseraNormConfig,
    lens: (usize, usize, usize),
    file: &[u8],
    chunk: usize,
) {
    let (mut ld, mut offsets, mut keys) = (
        vec![0f32; lens.0],
        vec![K::default(); lens.1],
        vec![K::default(); lens.2],
    );
    let slots = config.slot_num as usize;
    let mut err = error();
    let (mut start, mut avail) = (0, chunk.min(file.len()));
    // Each round consumes a record, grows the input or ends: the bound only guards the test.
    for _ in 0..=2 * file.len() + 2 {
        let batch = K::batch(&mut ld, &mut offsets, &mut keys);
        let mut p = MaybeUninit::<TesseraNormProgress>::uninit();
        // SAFETY: the decoder was set up; the arrays are live, disjoint from `file`.
        let st = unsafe { K::decode(d, &file[start..avail], &batch, p.as_mut_ptr(), &mut err) };
        if st != S::TESSERA_OK {
            assert!(matches!(
                st,
                S::TESSERA_MALFORMED | S::TESSERA_BUFFER_TOO_SMALL
            ));
            assert!(err.message.contains(&0), "the message is NUL-terminated");
            return;
        }
        // SAFETY: written on success.
        let p = unsafe { p.assume_init() };
        assert!(p.consumed <= avail - start);
        assert!(p.samples * config.label_dim as usize <= ld.len());
        if slots > 0 && p.samples > 0 {
            let rows = p.samples * slots;
            let end: i64 = offsets[rows].into();
            assert_eq!(end, p.nnz as i64);
            assert!(p.nnz <= keys.len());
            assert!(
                offsets[..=rows]
                    .windows(2)
                    .all(|w| w[0].into() <= w[1].into())
            );
        }
        start += p.consumed;
        match p.status {
            TesseraDecodeStatus::TESSERA_DECODE_BATCH_FULL => {
                assert!(
                    p.samples > 0 || p.consumed > 0,
                    "a full batch made progress"
                );
            }
            TesseraDecodeStatus::TESSERA_DECODE_NEED_MORE if avail < file.len() => {
                avail = file.len().min(avail.max(start) + chunk);
            }
            _ => break,
        }
    }
    let (mut decoded, mut skipped) = (0u64, 0u64);
    let rest = &file[start..];
    // SAFETY: the decoder was set up; live locals.
    let st = unsafe {
        tessera_norm_decoder_finish(
            d,
            rest.as_ptr(),
            rest.len(),
            &mut decoded,
            &mut skipped,
            &mut err,
        )
    };
    assert!(matches!(st, S::TESSERA_OK | S::TESSERA_MALFORMED));
}

fuzz_target!(|input: &[u8]| {
    let [dims, max_nnz, flags, samples, cut, chunk, file @ ..] = input else {
        return;
    };
    let config = TesseraNormConfig {
        label_dim: u32::from(dims & 3),
        dense_dim: u32::from((dims >> 2) & 3),
        slot_num: u32::from((dims >> 4) & 7),
        max_nnz: u32::from(max_nnz & 15),
        // 2 is out of range: refused at init.
        check: u32::from(flags % 3),
        skip_bad: u32::from((flags / 3) % 3),
    };
    let key_type = u32::from((flags / 9) % 3);
    let samples = usize::from(samples & 7);
    let (mut ld, mut offsets, mut keys) = (0, 0, 0);
    // SAFETY: live locals.
    let st = unsafe { tessera_norm_batch_lens(&config, samples, &mut ld, &mut offsets, &mut keys) };
    assert_eq!(st, S::TESSERA_OK, "small dimensions never overflow");
    if ld.max(offsets).max(keys) > MAX_ELEMENTS {
        return;
    }
    // Arrays cut short exercise the capacity errors.
    let (ld, offsets, keys) = if cut & 1 == 0 {
        (ld, offsets, keys)
    } else {
        let c = usize::from(cut >> 1);
        (ld.min(c), offsets.min(c + 1), keys.min(c))
    };
    let mut storage = Box::new(MaybeUninit::<TesseraNormDecoder>::zeroed());
    let d = storage.as_mut_ptr();
    let mut err = error();
    // SAFETY: live memory of the decoder's size and alignment; live locals.
    let st = unsafe { tessera_norm_decoder_init(d, &config, key_type, &mut err) };
    if config.check > 1 || config.skip_bad > 1 || key_type > 1 {
        assert_eq!(st, S::TESSERA_BAD_ARGUMENT);
        return;
    }
    assert_eq!(st, S::TESSERA_OK);
    let chunk = 1 + usize::from(*chunk);
    // The other key type's decode function is refused before anything is read.
    let mut p = MaybeUninit::<TesseraNormProgress>::uninit();
    let wrong = if key_type == 0 {
        let (mut a, mut b, mut c) = ([0f32; 0], [0i64; 1], [0i64; 0]);
        let batch = i64::batch(&mut a, &mut b, &mut c);
        // SAFETY: set-up decoder; live locals.
        unsafe { i64::decode(d, file, &batch, p.as_mut_ptr(), null_mut()) }
    } else {
        let (mut a, mut b, mut c) = ([0f32; 0], [0u32; 1], [0u32; 0]);
        let batch = u32::batch(&mut a, &mut b, &mut c);
        // SAFETY: set-up decoder; live locals.
        unsafe { u32::decode(d, file, &batch, p.as_mut_ptr(), null_mut()) }
    };
    assert_eq!(wrong, S::TESSERA_BAD_ARGUMENT);
    if key_type == 0 {
        run::<u32>(d, &config, (ld, offsets, keys), file, chunk);
    } else {
        run::<i64>(d, &config, (ld, offsets, keys), file, chunk);
    }
});
