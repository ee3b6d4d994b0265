//! The Norm data path's C ABI driven from Rust through raw pointers, as C would (also under
//! Miri, which checks every pointer the ABI reads and writes): whole files, chunks, bad bytes
//! and every misuse a C caller can make.
// Test code calls the ABI in a row, each call's pointers live locals; one SAFETY per block.
#![allow(clippy::multiple_unsafe_ops_per_block)]

extern crate std;

use core::mem::MaybeUninit;
use core::ptr::{null, null_mut};
use std::boxed::Box;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;
use tessera_core::data::{Check, Dims, NormConfig, NormEncoder};

use crate::data::*;
use crate::interpreter::TesseraError;
use crate::status::TesseraStatus as S;

/// 1 label, 1 dense feature, 2 slots of at most 3 keys, with checksums.
const C: TesseraNormConfig = TesseraNormConfig {
    label_dim: 1,
    dense_dim: 1,
    slot_num: 2,
    max_nnz: 3,
    check: 1,
    skip_bad: 0,
};

fn norm_config() -> NormConfig {
    NormConfig::new(Dims::new(1, 1, 2), 3).with_check(Check::Sum)
}

/// Three samples: keys `[0, 2] [1]`, `[] [1, 1]`, `[5] []`.
fn file() -> Vec<u8> {
    let enc = NormEncoder::<u32>::new(norm_config());
    let mut f = vec![0u8; 512];
    let mut n = enc.header(3, &mut f).unwrap();
    n += enc
        .sample(&[1.0], &[0.5], &[&[0, 2], &[1]], &mut f[n..])
        .unwrap();
    n += enc
        .sample(&[0.0], &[0.25], &[&[], &[1, 1]], &mut f[n..])
        .unwrap();
    n += enc
        .sample(&[1.0], &[2.0], &[&[5], &[]], &mut f[n..])
        .unwrap();
    f.truncate(n);
    f
}

fn error() -> TesseraError {
    // SAFETY: integers and a c_char array: all-zero bytes are a valid value.
    unsafe { MaybeUninit::<TesseraError>::zeroed().assume_init() }
}

/// A decoder's memory on the heap, as C would keep it in a struct of its own.
struct Dec(Box<MaybeUninit<TesseraNormDecoder>>);

impl Dec {
    fn p(&mut self) -> *mut TesseraNormDecoder {
        self.0.as_mut_ptr()
    }
}

fn decoder(key_type: u32) -> Dec {
    let mut d = Dec(Box::new(MaybeUninit::zeroed()));
    let mut err = error();
    // SAFETY: live memory of the decoder's size and alignment; live locals.
    let st = unsafe { tessera_norm_decoder_init(d.p(), &C, key_type, &mut err) };
    assert_eq!(st, S::TESSERA_OK);
    d
}

/// Arrays for `samples` samples, as C would allocate them from `tessera_norm_batch_lens`.
struct Arrays {
    ld: Vec<f32>,
    offsets: Vec<u32>,
    keys: Vec<u32>,
}

impl Arrays {
    fn new(samples: usize) -> Self {
        let (mut a, mut b, mut c) = (0, 0, 0);
        // SAFETY: live locals.
        let st = unsafe { tessera_norm_batch_lens(&C, samples, &mut a, &mut b, &mut c) };
        assert_eq!(st, S::TESSERA_OK);
        assert_eq!((a, b, c), (samples * 2, samples * 2 + 1, samples * 6));
        Self {
            ld: vec![0.0; a],
            offsets: vec![0; b],
            keys: vec![0; c],
        }
    }

    fn batch(&mut self) -> TesseraBatchU32 {
        TesseraBatchU32 {
            label_dense: self.ld.as_mut_ptr(),
            label_dense_len: self.ld.len(),
            row_offsets: self.offsets.as_mut_ptr(),
            row_offsets_len: self.offsets.len(),
            keys: self.keys.as_mut_ptr(),
            keys_len: self.keys.len(),
        }
    }
}

fn decode(
    d: *mut TesseraNormDecoder,
    input: &[u8],
    batch: &TesseraBatchU32,
    err: &mut TesseraError,
) -> (S, TesseraNormProgress) {
    let mut p = MaybeUninit::<TesseraNormProgress>::zeroed();
    // SAFETY: live locals; the batch's arrays are live and disjoint from `input`.
    let st = unsafe {
        tessera_norm_decode_u32(d, input.as_ptr(), input.len(), batch, p.as_mut_ptr(), err)
    };
    // SAFETY: zeroed is a valid progress (status 0 is DONE), written on success.
    (st, unsafe { p.assume_init() })
}

#[test]
fn a_file_in_memory_decodes_batch_by_batch_into_caller_arrays() {
    let f = file();
    let mut d = decoder(0);
    let mut a = Arrays::new(2);
    let mut err = error();
    let (st, p) = decode(d.p(), &f, &a.batch(), &mut err);
    assert_eq!(st, S::TESSERA_OK);
    assert_eq!(p.status, TesseraDecodeStatus::TESSERA_DECODE_BATCH_FULL);
    assert_eq!((p.samples, p.nnz, p.decoded), (2, 5, 2));
    assert_eq!(a.ld, [1.0, 0.5, 0.0, 0.25]);
    assert_eq!(a.offsets, [0, 2, 3, 3, 5]);
    assert_eq!(a.keys[..5], [0, 2, 1, 1, 1]);
    let rest = &f[p.consumed..];
    let (st, q) = decode(d.p(), rest, &a.batch(), &mut err);
    assert_eq!(st, S::TESSERA_OK);
    assert_eq!(q.status, TesseraDecodeStatus::TESSERA_DECODE_DONE);
    assert_eq!((q.samples, q.nnz, q.decoded, q.skipped), (1, 1, 3, 0));
    assert_eq!(a.ld[..2], [1.0, 2.0]);
    assert_eq!(a.offsets[..3], [0, 1, 1]);
    assert_eq!(a.keys[0], 5);
    let rest = &rest[q.consumed..];
    let (mut decoded, mut skipped) = (0u64, 9u64);
    // SAFETY: live locals.
    let st = unsafe {
        tessera_norm_decoder_finish(
            d.p(),
            rest.as_ptr(),
            rest.len(),
            &mut decoded,
            &mut skipped,
            &mut err,
        )
    };
    assert_eq!((st, decoded, skipped), (S::TESSERA_OK, 3, 0));
}

/// A set-up decoder is plain bytes to its owner: Rust may move it by value and copy it as a
/// checkpoint (as C does with assignment), and each copy resumes where the original stood.
/// Under Miri this checks that the storage may hold the state's uninitialised padding (typed
/// moves of a `[u64; 32]` holding it were undefined behaviour).
#[test]
fn a_decoder_moved_and_copied_by_value_resumes_the_stream() {
    let f = file();
    let mut err = error();
    let mut m = MaybeUninit::<TesseraNormDecoder>::uninit();
    // SAFETY: live memory of the decoder's size and alignment; live locals.
    let st = unsafe { tessera_norm_decoder_init(m.as_mut_ptr(), &C, 0, &mut err) };
    assert_eq!(st, S::TESSERA_OK);
    // SAFETY: the storage is `MaybeUninit`, so any bytes (set up or not) are a valid value.
    let mut d = unsafe { m.assume_init() };
    let mut a = Arrays::new(2);
    let (st, p) = decode(&mut d, &f, &a.batch(), &mut err);
    assert_eq!((st, p.decoded), (S::TESSERA_OK, 2));
    let rest = &f[p.consumed..];
    // SAFETY: a bitwise copy of a struct that holds no pointer (its documented contract).
    let mut checkpoint = unsafe { core::ptr::read(&d) };
    let mut moved = Box::new(d);
    for d in [&mut *moved, &mut checkpoint] {
        let (st, q) = decode(d, rest, &a.batch(), &mut err);
        assert_eq!(st, S::TESSERA_OK);
        assert_eq!(q.status, TesseraDecodeStatus::TESSERA_DECODE_DONE);
        assert_eq!((q.samples, q.decoded), (1, 3));
        assert_eq!(a.keys[0], 5);
    }
}

#[test]
fn chunks_ask_for_the_bytes_the_next_record_needs() {
    let f = file();
    let mut d = decoder(0);
    let mut a = Arrays::new(4);
    let mut err = error();
    // The header alone (69 bytes framed), then one byte short of the first record.
    let (st, p) = decode(d.p(), &f[..10], &a.batch(), &mut err);
    assert_eq!(st, S::TESSERA_OK);
    assert_eq!(p.status, TesseraDecodeStatus::TESSERA_DECODE_NEED_MORE);
    assert_eq!((p.consumed, p.needed, p.samples), (0, 69, 0));
    let (_, p) = decode(d.p(), &f[..80], &a.batch(), &mut err);
    assert_eq!(p.consumed, 69);
    assert_eq!(p.status, TesseraDecodeStatus::TESSERA_DECODE_NEED_MORE);
    assert!(p.needed > 80 - 69);
    // The stream ends there: finish names what is missing.
    // SAFETY: live locals.
    let st = unsafe {
        tessera_norm_decoder_finish(
            d.p(),
            f[69..80].as_ptr(),
            11,
            null_mut(),
            null_mut(),
            &mut err,
        )
    };
    assert_eq!(st, S::TESSERA_MALFORMED);
    assert_eq!((err.sample, err.byte_offset), (0, 69));
}

#[test]
fn a_flipped_byte_is_malformed_naming_the_sample_and_offset() {
    let mut f = file();
    let last = f.len() - 1; // the third record's checksum byte
    f[last] ^= 0x40;
    let mut d = decoder(0);
    let mut a = Arrays::new(4);
    let mut err = error();
    let (st, _) = decode(d.p(), &f, &a.batch(), &mut err);
    assert_eq!(st, S::TESSERA_MALFORMED);
    assert_eq!(err.sample, 2);
    assert!(err.byte_offset > 69);
    let msg: Vec<u8> = err
        .message
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    assert!(msg.starts_with(b"sample 2, byte "), "{msg:?}");
    // The two good samples before it stay in the arrays, whole.
    assert_eq!(a.offsets[..5], [0, 2, 3, 3, 5]);
}

#[test]
fn arrays_too_small_say_the_bytes_needed() {
    let f = file();
    let mut d = decoder(0);
    let mut err = error();
    // Room for one sample's rows but only one key: the first sample has three.
    let (mut ld, mut offsets, mut keys) = ([0f32; 2], [0u32; 3], [0u32; 1]);
    let b = TesseraBatchU32 {
        label_dense: ld.as_mut_ptr(),
        label_dense_len: 2,
        row_offsets: offsets.as_mut_ptr(),
        row_offsets_len: 3,
        keys: keys.as_mut_ptr(),
        keys_len: 1,
    };
    let (st, _) = decode(d.p(), &f, &b, &mut err);
    assert_eq!(st, S::TESSERA_BUFFER_TOO_SMALL);
    // The decoder stops at the first slot that does not fit (two keys): at least 8 bytes.
    assert_eq!(err.needed, 2 * 4);
    // No room for a single sample's rows: the bytes of one sample's label/dense and offsets.
    let mut d = decoder(0);
    let b = TesseraBatchU32 {
        row_offsets_len: 2,
        ..b
    };
    let (st, _) = decode(d.p(), &f, &b, &mut err);
    assert_eq!(st, S::TESSERA_BUFFER_TOO_SMALL);
    assert_eq!(err.needed, 2 * 4 + 3 * 4);
}

#[test]
fn misuse_is_refused_before_any_pointer_is_followed() {
    let f = file();
    let mut a = Arrays::new(2);
    let mut err = error();
    let mut p = MaybeUninit::<TesseraNormProgress>::uninit();
    // SAFETY: every pointer is null, a live local, or refused before it is read.
    unsafe {
        // Never set up: the magic is missing.
        let mut zeroed = MaybeUninit::<TesseraNormDecoder>::zeroed().assume_init();
        let b = a.batch();
        let st = tessera_norm_decode_u32(
            &mut zeroed,
            f.as_ptr(),
            f.len(),
            &b,
            p.as_mut_ptr(),
            &mut err,
        );
        assert_eq!(st, S::TESSERA_BAD_ARGUMENT);
        // Set up for i64 keys, decoded as u32.
        let mut d = decoder(1);
        let st = tessera_norm_decode_u32(d.p(), f.as_ptr(), f.len(), &b, p.as_mut_ptr(), &mut err);
        assert_eq!(st, S::TESSERA_BAD_ARGUMENT);
        // Nulls.
        let mut d = decoder(0);
        let st = tessera_norm_decode_u32(
            null_mut(),
            f.as_ptr(),
            f.len(),
            &b,
            p.as_mut_ptr(),
            &mut err,
        );
        assert_eq!(st, S::TESSERA_NULL_ARGUMENT);
        let st = tessera_norm_decode_u32(d.p(), null(), 4, &b, p.as_mut_ptr(), &mut err);
        assert_eq!(st, S::TESSERA_NULL_ARGUMENT);
        let st =
            tessera_norm_decode_u32(d.p(), f.as_ptr(), f.len(), null(), p.as_mut_ptr(), &mut err);
        assert_eq!(st, S::TESSERA_NULL_ARGUMENT);
        let nokeys = TesseraBatchU32 {
            keys: null_mut(),
            ..b
        };
        let st = tessera_norm_decode_u32(
            d.p(),
            f.as_ptr(),
            f.len(),
            &nokeys,
            p.as_mut_ptr(),
            &mut err,
        );
        assert_eq!(st, S::TESSERA_NULL_ARGUMENT);
        // Misaligned offsets.
        let odd = TesseraBatchU32 {
            row_offsets: b.row_offsets.cast::<u8>().add(1).cast::<u32>(),
            row_offsets_len: b.row_offsets_len - 1,
            ..b
        };
        let st =
            tessera_norm_decode_u32(d.p(), f.as_ptr(), f.len(), &odd, p.as_mut_ptr(), &mut err);
        assert_eq!(st, S::TESSERA_BAD_ARGUMENT);
        // Keys overlapping the offsets.
        let overlap = TesseraBatchU32 {
            keys: b.row_offsets.add(1),
            keys_len: 2,
            ..b
        };
        let st = tessera_norm_decode_u32(
            d.p(),
            f.as_ptr(),
            f.len(),
            &overlap,
            p.as_mut_ptr(),
            &mut err,
        );
        assert_eq!(st, S::TESSERA_BAD_ARGUMENT);
        // A configuration out of range.
        let mut fresh = MaybeUninit::<TesseraNormDecoder>::zeroed().assume_init();
        let bad = TesseraNormConfig { check: 2, ..C };
        assert_eq!(
            tessera_norm_decoder_init(&mut fresh, &bad, 0, &mut err),
            S::TESSERA_BAD_ARGUMENT
        );
        assert_eq!(
            tessera_norm_decoder_init(&mut fresh, &C, 7, &mut err),
            S::TESSERA_BAD_ARGUMENT
        );
        // Sizes that overflow size_t.
        let huge = TesseraNormConfig {
            max_nnz: u32::MAX,
            slot_num: u32::MAX,
            ..C
        };
        let (mut x, mut y, mut z) = (0, 0, 0);
        assert_eq!(
            tessera_norm_batch_lens(&huge, usize::MAX / 2, &mut x, &mut y, &mut z),
            S::TESSERA_TOO_LARGE
        );
        // The decoder refused everything above without changing state: it still decodes.
        let (st, p) = decode(d.p(), &f, &b, &mut err);
        assert_eq!((st, p.samples), (S::TESSERA_OK, 2));
    }
}

#[test]
fn i64_keys_decode_through_their_own_function() {
    let config = NormConfig::new(Dims::new(1, 1, 2), 3).with_check(Check::Sum);
    let enc = NormEncoder::<i64>::new(config);
    let mut f = vec![0u8; 256];
    let mut n = enc.header(1, &mut f).unwrap();
    n += enc
        .sample(&[1.0], &[0.5], &[&[-7, 1 << 40], &[3]], &mut f[n..])
        .unwrap();
    let mut d = decoder(1);
    let (mut ld, mut offsets, mut keys) = ([0f32; 2], [0i64; 3], [0i64; 6]);
    let b = TesseraBatchI64 {
        label_dense: ld.as_mut_ptr(),
        label_dense_len: 2,
        row_offsets: offsets.as_mut_ptr(),
        row_offsets_len: 3,
        keys: keys.as_mut_ptr(),
        keys_len: 6,
    };
    let mut p = MaybeUninit::<TesseraNormProgress>::uninit();
    let mut err = error();
    // SAFETY: live locals, disjoint.
    let st = unsafe { tessera_norm_decode_i64(d.p(), f.as_ptr(), n, &b, p.as_mut_ptr(), &mut err) };
    assert_eq!(st, S::TESSERA_OK);
    // SAFETY: written on success.
    let p = unsafe { p.assume_init() };
    assert_eq!((p.samples, p.nnz), (1, 3));
    assert_eq!(offsets, [0, 2, 3]);
    assert_eq!(keys[..3], [-7, 1 << 40, 3]);
}

/// Case counts: small under Miri, which runs each case thousands of times slower.
const CASES: u32 = if cfg!(miri) { 4 } else { 256 };

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES,
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        ..ProptestConfig::default()
    })]

    /// Any bytes, cut anywhere into two chunks, give a status and never more samples than the
    /// arrays hold; a valid file cut anywhere decodes to the same offsets as whole.
    #[test]
    fn any_bytes_in_any_chunks_give_a_status(
        flip in proptest::option::of((0usize..200, 1u8..=255)),
        cut in 0usize..200,
    ) {
        let mut f = file();
        if let Some((at, x)) = flip {
            let at = at % f.len();
            f[at] ^= x;
        }
        let cut = cut % (f.len() + 1);
        let mut d = decoder(0);
        let mut a = Arrays::new(4);
        let mut err = error();
        let (st, p) = decode(d.p(), &f[..cut], &a.batch(), &mut err);
        prop_assert!(matches!(st, S::TESSERA_OK | S::TESSERA_MALFORMED | S::TESSERA_BUFFER_TOO_SMALL));
        if st == S::TESSERA_OK {
            prop_assert!(p.samples <= 4 && p.consumed <= cut);
            let (st2, q) = decode(d.p(), &f[p.consumed..], &a.batch(), &mut err);
            prop_assert!(matches!(st2, S::TESSERA_OK | S::TESSERA_MALFORMED | S::TESSERA_BUFFER_TOO_SMALL));
            if flip.is_none() {
                prop_assert_eq!(st2, S::TESSERA_OK);
                prop_assert_eq!(p.samples + q.samples, 3);
                prop_assert_eq!(q.status, TesseraDecodeStatus::TESSERA_DECODE_DONE);
            }
        }
    }
}
