//! Conformance with TensorFlow's `ctstring_test.cc`, the byte layout on both endiannesses,
//! owners, and property tests of the assignment rules against a `Vec<u8>` model.

extern crate std;

use core::cell::Cell;
use core::ffi::c_void;
use core::ptr::NonNull;
use std::alloc::{Layout, alloc, dealloc, realloc};
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::error::CapacityError;

std::thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

/// Rust's allocator with a per-thread count of live blocks, to catch leaks and double frees.
struct TestHeap;

// SAFETY: forwards to the global allocator with the sizes it is given.
unsafe impl StringHeap for TestHeap {
    fn allocate(bytes: usize) -> Option<NonNull<u8>> {
        LIVE.with(|l| l.set(l.get() + 1));
        // SAFETY: bytes > 0 (TString always asks for cap + 1).
        NonNull::new(unsafe { alloc(Layout::from_size_align(bytes, 1).ok()?) })
    }
    unsafe fn reallocate(p: NonNull<u8>, old: usize, new: usize) -> Option<NonNull<u8>> {
        // SAFETY: `p` came from `allocate(old)`.
        NonNull::new(unsafe { realloc(p.as_ptr(), Layout::from_size_align(old, 1).ok()?, new) })
    }
    unsafe fn release(p: NonNull<u8>, bytes: usize) {
        LIVE.with(|l| l.set(l.get() - 1));
        // SAFETY: `p` came from `allocate(bytes)`.
        unsafe { dealloc(p.as_ptr(), Layout::from_size_align(bytes, 1).unwrap()) }
    }
    fn out_of_memory(bytes: usize) -> ! {
        panic!("out of memory: {bytes}")
    }
}

fn live() -> isize {
    LIVE.with(|l| l.get())
}

type HS<'a> = TString<'a, TestHeap>;

const LONG: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIKLMNO";

#[test]
fn layout_is_tf_tstring() {
    assert_eq!(core::mem::size_of::<TString>(), 24);
    assert_eq!(
        core::mem::align_of::<TString>(),
        core::mem::align_of::<usize>()
    );
    assert_eq!(core::mem::size_of::<HS>(), 24);
    let s: TString = TString::from_bytes(b"hello").unwrap();
    let mut want = [0u8; 24];
    want[..7].copy_from_slice(b"\x14hello\0");
    assert_eq!(s.repr_bytes(), &want);
    assert_eq!(TString::<NoHeap>::new().repr_bytes(), &[0u8; 24]);
}

#[test]
fn view_size_word_is_packed_for_the_host_byte_order() {
    let data = [7u8; 0x102];
    let s: TString = TString::view(&data).unwrap();
    let word = &s.repr_bytes()[..core::mem::size_of::<usize>()];
    if cfg!(target_endian = "little") {
        assert_eq!(&word[..3], &[0x0B, 0x04, 0x00]);
    } else {
        // Tag in byte 0 (the top byte); the low bytes hold the length unshifted.
        let mut want = [0u8; core::mem::size_of::<usize>()];
        want[0] = 3;
        let n = want.len();
        want[n - 2] = 0x01;
        want[n - 1] = 0x02;
        assert_eq!(word, &want);
    }
    assert_eq!(s.len(), 0x102);
    assert_eq!(s.string_type(), TStringType::View);
}

#[test]
fn empty_small_assign_move() {
    let s10: HS = TString::new();
    let mut s11: HS = TString::new();
    s11.assign(&s10).unwrap();
    assert_eq!((s11.len(), s11.string_type()), (0, TStringType::Small));
    let mut s12: HS = TString::new();
    // SAFETY: both are valid, distinct strings.
    unsafe { ctstring::move_from(&mut s12, &mut s11) };
    assert_eq!((s12.len(), s12.string_type()), (0, TStringType::Small));
    assert_eq!(s12.as_mut_bytes().unwrap(), b"");
}

#[test]
fn small_to_large_by_append() {
    let before = live();
    let mut s: HS = TString::from_bytes(&LONG[..21]).unwrap();
    assert_eq!((s.string_type(), s.capacity()), (TStringType::Small, 22));
    s.append(&LONG[21..22]).unwrap();
    assert_eq!(
        (s.string_type(), s.len(), s.capacity()),
        (TStringType::Small, 22, 22)
    );
    // SMALL null-terminates inside its 24 bytes.
    assert_eq!(s.repr_bytes()[23], 0);
    s.append(&LONG[22..23]).unwrap();
    assert_eq!(s.string_type(), TStringType::Large);
    assert_eq!(s.as_bytes(), &LONG[..23]);
    // Amortised: max(23, 2 * 22) = 44 -> align16(45) - 1.
    assert_eq!(s.capacity(), 47);
    // SAFETY: LARGE data is NUL-terminated at len.
    assert_eq!(unsafe { *s.as_ptr().wrapping_add(23) }, 0);

    let mut s31: HS = TString::new();
    // SAFETY: valid, distinct strings.
    unsafe { ctstring::move_from(&mut s31, &mut s) };
    assert_eq!((s.string_type(), s.len()), (TStringType::Small, 0));
    assert_eq!(s31.as_bytes(), &LONG[..23]);
    drop(s31);
    drop(s);
    assert_eq!(live(), before);
}

#[test]
fn large_append_assign_then_view() {
    let before = live();
    let mut s40: HS = TString::from_bytes(LONG).unwrap();
    let mut s41: HS = TString::new();
    s41.assign(&s40).unwrap();
    assert_eq!(s41.as_bytes(), LONG);
    assert_ne!(s41.as_ptr(), s40.as_ptr(), "LARGE assign deep-copies");
    s40.append(LONG).unwrap();
    let s41_ptr: *const HS = &s41;
    // SAFETY: distinct valid strings.
    unsafe { ctstring::append(&mut s40, s41_ptr).unwrap() };
    let mut three = Vec::new();
    for _ in 0..3 {
        three.extend_from_slice(LONG);
    }
    assert_eq!(s40.as_bytes(), &three[..]);

    let k = b"abcdef";
    s40.assign_view(k).unwrap();
    assert_eq!(
        (s40.string_type(), s40.len(), s40.capacity()),
        (TStringType::View, 6, 0)
    );
    assert_eq!(s40.as_ptr(), k.as_ptr());
    assert_eq!(s40.as_mut_bytes().unwrap(), k);
    assert_eq!(
        (s40.string_type(), s40.capacity()),
        (TStringType::Small, 22)
    );
    drop((s40, s41));
    assert_eq!(live(), before);
}

#[test]
fn capacity_rounding_matches_tensorflow() {
    let mut s: HS = TString::from_bytes(b"a").unwrap();
    s.copy_from(LONG).unwrap();
    assert_eq!(s.capacity(), 63); // align16(51) - 1
    s.copy_from(&LONG[..23]).unwrap();
    assert_eq!((s.string_type(), s.capacity()), (TStringType::Large, 31)); // shrink: align16(31+1)-1
    s.copy_from(b"c").unwrap();
    assert_eq!(
        (s.string_type(), s.as_bytes()),
        (TStringType::Small, &b"c"[..])
    );

    // A 23-byte copy into a fresh string is LARGE with capacity 31.
    let t: HS = TString::from_bytes(&LONG[..23]).unwrap();
    assert_eq!(t.capacity(), 31);
    // Shrinking but not below half keeps the capacity.
    let mut u: HS = TString::from_bytes(LONG).unwrap();
    u.truncate(40).unwrap();
    assert_eq!(u.capacity(), 63);
}

#[test]
fn resize_fills_and_keeps() {
    let mut s: HS = TString::new();
    s.resize(2, b'a').unwrap();
    assert_eq!(s.as_bytes(), b"aa");
    s.resize(4, 0).unwrap();
    assert_eq!(s.as_bytes(), b"aa\0\0");
    s.resize(6, b'b').unwrap();
    assert_eq!(s.as_bytes(), b"aa\0\0bb");
    s.resize(2, b'c').unwrap();
    assert_eq!(s.as_bytes(), b"aa");
    s.resize(40, b'z').unwrap();
    assert_eq!(&s.as_bytes()[..3], b"aaz");
    assert_eq!(s.len(), 40);
}

#[test]
fn reserve_and_reserve_amortized() {
    for amortized in [false, true] {
        let res = |s: &mut HS, c| {
            if amortized {
                s.reserve_amortized(c)
            } else {
                s.reserve(c)
            }
        };
        let mut s: HS = TString::new();
        res(&mut s, 21).unwrap();
        res(&mut s, 22).unwrap();
        assert_eq!((s.capacity(), s.string_type()), (22, TStringType::Small));
        s.copy_from(b"hello").unwrap();
        res(&mut s, 100).unwrap();
        assert_eq!(
            (s.capacity(), s.len(), s.string_type()),
            (111, 5, TStringType::Large)
        );
        s.assign_view(LONG).unwrap();
        res(&mut s, 10).unwrap();
        assert_eq!((s.string_type(), s.capacity()), (TStringType::View, 0));
        res(&mut s, 100).unwrap();
        assert_eq!((s.string_type(), s.capacity()), (TStringType::Large, 111));
        assert_eq!(s.as_bytes(), LONG);
        res(&mut s, 200).unwrap();
        assert_eq!(s.capacity(), if amortized { 223 } else { 207 });
    }
}

#[test]
fn no_heap_reports_bytes_needed() {
    let mut s: TString = TString::from_bytes(b"fits in small").unwrap();
    assert_eq!(
        s.append(&[b'x'; 20]),
        Err(TStringError::Alloc { bytes: 48 }) // amortised reserve: align16(max(33,44)+1)
    );
    assert_eq!(
        s.as_bytes(),
        b"fits in small",
        "failure leaves the string unchanged"
    );
    let long = [b'x'; 40];
    let mut v: TString = TString::view(&long).unwrap();
    assert_eq!(v.as_mut_bytes(), Err(TStringError::Alloc { bytes: 48 }));
    assert_eq!(v.string_type(), TStringType::View);
    assert!(TString::<NoHeap>::from_bytes(&long).is_err());
    assert_eq!(
        s.resize(usize::MAX, 0),
        Err(TStringError::TooLong {
            len: usize::MAX,
            max: MAX_LEN
        })
    );
}

#[test]
fn equality_and_hash_go_by_content() {
    use core::hash::{Hash, Hasher};
    use std::collections::hash_map::DefaultHasher;
    let h = |x: &dyn Fn(&mut DefaultHasher)| {
        let mut s = DefaultHasher::new();
        x(&mut s);
        s.finish()
    };
    let bytes = b"same bytes".to_vec();
    let small: TString = TString::from_bytes(&bytes).unwrap();
    let view: TString = TString::view(&bytes).unwrap();
    assert_eq!(small, view);
    assert_eq!(small, "same bytes");
    assert_eq!(h(&|s| small.hash(s)), h(&|s| view.hash(s)));
    assert_eq!(h(&|s| small.hash(s)), h(&|s| bytes[..].hash(s)));
    let large: HS = TString::from_bytes(LONG).unwrap();
    let large_view: HS = TString::view(LONG).unwrap();
    assert_eq!(large, large_view);
    assert!(small < TString::view(b"zzz").unwrap());
    assert!(TString::<NoHeap>::view(b"\xff").unwrap().as_str().is_err());
}

#[repr(C, align(8))]
struct Aligned<const N: usize>([u8; N]);

#[test]
fn offset_strings_read_in_place_through_raw_pointers() {
    // TensorFlow's OffsetType test: one header then "test\0".
    let mut buf = Aligned([0u8; 24 + 5]);
    buf.0[24..].copy_from_slice(b"test\0");
    buf.0[0..4].copy_from_slice(&((5u32 << 2) | 2).to_le_bytes());
    buf.0[4..8].copy_from_slice(&24u32.to_le_bytes());
    buf.0[8..12].copy_from_slice(&1u32.to_le_bytes());
    let p = buf.0.as_mut_ptr().cast::<TString>();
    // Every block below: `p` is aligned, its provenance covers the whole buffer, and the
    // header is a valid OFFSET string whose bytes lie inside it.
    // SAFETY: as just said.
    assert_eq!(unsafe { ctstring::string_type(p) }, TStringType::Offset);
    // SAFETY: as above.
    assert_eq!(unsafe { ctstring::len(p) }, 5);
    // SAFETY: as above.
    assert_eq!(unsafe { ctstring::bytes(p) }, b"test\0");
    // Assigning an OFFSET gives a VIEW of the same bytes.
    let mut v: TString = TString::new();
    // SAFETY: as above; `v` is a valid string and does not outlive `buf`.
    unsafe { ctstring::assign(&mut v, p) }.unwrap();
    assert_eq!(v.string_type(), TStringType::View);
    assert_eq!(v.as_ptr(), buf.0.as_ptr().wrapping_add(24));
    // Mutable access converts in place to an owned SMALL.
    // SAFETY: as above.
    let m = unsafe { ctstring::mutable_data_ptr(p) }.unwrap();
    // SAFETY: `m` points at the 5 bytes of the now SMALL string.
    unsafe { *m = b'T' };
    // SAFETY: as above.
    assert_eq!(unsafe { ctstring::string_type(p) }, TStringType::Small);
    // SAFETY: as above.
    assert_eq!(unsafe { ctstring::bytes(p) }, b"Test\0");
    let array = OffsetStrings::new(&buf.0, 0, 1).unwrap();
    assert_eq!(array.get(0), Some(&b"Test\0"[..]));
}

// A ref-counted owner for tests: the count lives in a Cell the owner points to.
unsafe extern "C" fn bump(obj: *mut c_void) {
    // SAFETY: tests pass a live `Cell<isize>`.
    let c = unsafe { &*(obj as *const Cell<isize>) };
    c.set(c.get() + 1);
}
unsafe extern "C" fn drop_ref(obj: *mut c_void) {
    // SAFETY: as above.
    let c = unsafe { &*(obj as *const Cell<isize>) };
    c.set(c.get() - 1);
}

#[test]
fn owned_views_count_references() {
    let count = Cell::new(1isize);
    let owner = TStringOwner {
        ref_fn: Some(bump),
        unref_fn: Some(drop_ref),
        obj: (&count as *const Cell<isize>).cast_mut().cast(),
    };
    let data = b"kept alive by the owner, not by a borrow";
    let owner_ptr = NonNull::from(&owner);
    // SAFETY: the owner and data outlive every string made here; callbacks are test-local.
    let s: HS = unsafe { TString::view_with_owner(data.as_ptr(), data.len(), owner_ptr) }.unwrap();
    assert_eq!(count.get(), 2);
    assert_eq!(s.owner(), Some(owner_ptr));
    let c = s.clone();
    assert_eq!(count.get(), 3);
    let mut moved: HS = TString::new();
    let mut c = c;
    // SAFETY: distinct valid strings.
    unsafe { ctstring::move_from(&mut moved, &mut c) };
    assert_eq!(count.get(), 3, "move transfers the reference");
    assert_eq!(c.string_type(), TStringType::Small);
    drop(c);
    assert_eq!(count.get(), 3);
    let mut owned = moved;
    owned.as_mut_bytes().unwrap()[0] = b'K';
    assert_eq!(count.get(), 2, "converting to owned releases the owner");
    assert_eq!(&owned.as_bytes()[..4], b"Kept");
    drop(owned);
    drop(s);
    assert_eq!(count.get(), 1);
}

#[test]
fn prealloc_rewrites_in_place() {
    let mut region = [0u8; 3 * 32];
    let mut strings: [TString; 3] = Default::default();
    let region_start = region.as_ptr().addr();
    {
        let mut a = PreallocStrings::new(&mut strings, &mut region, 32).unwrap();
        a.set(1, &LONG[..30]).unwrap();
        let first = a.as_tstrings()[1].as_ptr();
        assert_eq!(first.addr(), region_start + 32);
        a.set(1, &LONG[..25]).unwrap();
        assert_eq!(a.as_tstrings()[1].as_ptr(), first, "rewritten in its slot");
        a.set(0, b"tiny").unwrap();
        assert_eq!(a.as_tstrings()[0].string_type(), TStringType::Small);
        assert_eq!(
            a.set(2, &LONG[..33]),
            Err(PreallocError::TooLong {
                index: 2,
                len: 33,
                slot_capacity: 32
            })
        );
        assert_eq!(
            a.set(3, b"x"),
            Err(PreallocError::IndexOutOfRange { index: 3, len: 3 })
        );
        assert_eq!(a.get(1), Some(&LONG[..25]));
    }
    assert_eq!(strings[1], &LONG[..25]);
    let mut small_region = [0u8; 10];
    let mut more: [TString; 3] = Default::default();
    let err = PreallocStrings::new(&mut more, &mut small_region, 32).unwrap_err();
    assert_eq!((err.needed, err.available), (96, 10));
}

#[test]
fn tflite_to_views_and_offsets_and_back() {
    let tflite: &[u8] = b"\x03\0\0\0\x14\0\0\0\x16\0\0\0\x16\0\0\0\x19\0\0\0ABCDE";
    let tensor = crate::strings::TfliteStrings::new(tflite).unwrap();
    let mut views: [TString; 3] = Default::default();
    views_of_tflite(tensor, &mut views).unwrap();
    assert!(views.iter().all(|v| v.string_type() == TStringType::View));
    assert_eq!(views[2].as_ptr(), tflite[22..].as_ptr(), "no copy");
    let mut out = [0u8; 25];
    let n = crate::strings::encode_tflite(&views, &mut out).unwrap();
    assert_eq!(&out[..n], tflite);
    let mut too_few: [TString; 2] = Default::default();
    assert_eq!(views_of_tflite(tensor, &mut too_few).unwrap_err().needed, 3);

    let mut buf = [0u8; 72 + 25];
    buf[72..].copy_from_slice(tflite);
    let array = OffsetStrings::from_tflite(&mut buf, 72).unwrap();
    assert!(array.iter().eq([&b"AB"[..], b"", b"CDE"]));
    let mut cramped = [0u8; 71 + 25];
    cramped[71..].copy_from_slice(tflite);
    assert!(matches!(
        OffsetStrings::from_tflite(&mut cramped, 71),
        Err(OffsetError::Capacity(CapacityError {
            needed: 72,
            available: 71
        }))
    ));
}

#[test]
fn offset_array_rejects_bad_headers() {
    let words: [&[u8]; 2] = [b"one", b"two two two two two two two"];
    let mut buf = [0u8; 128];
    let n = OffsetStrings::encoded_len(words).unwrap();
    OffsetStrings::encode(words, &mut buf).unwrap();
    let buf = &buf[..n];
    assert!(OffsetStrings::new(buf, 0, 2).is_ok());
    assert!(matches!(
        OffsetStrings::new(buf, 0, 10),
        Err(OffsetError::HeadersOutOfBounds { .. })
    ));
    assert!(matches!(
        OffsetStrings::new(&buf[..n - 1], 0, 2),
        Err(OffsetError::DataOutOfBounds { index: 1, .. })
    ));
    let mut bad = [0u8; 24];
    bad[0] = 1; // LARGE
    assert!(matches!(
        OffsetStrings::new(&bad, 0, 1),
        Err(OffsetError::PointerType {
            index: 0,
            string_type: TStringType::Large,
            ..
        })
    ));
    bad[0] = 23 << 2; // SMALL claiming 23 bytes
    assert!(matches!(
        OffsetStrings::new(&bad, 0, 1),
        Err(OffsetError::SmallTooLong { len: 23, .. })
    ));
    let mut tiny = [0u8; 30];
    assert!(matches!(
        OffsetStrings::encode(words, &mut tiny),
        Err(OffsetError::Capacity(CapacityError { needed, available: 30 })) if needed == n
    ));
    assert_eq!(
        OffsetStrings::new(&[], 0, usize::MAX).unwrap_err(),
        OffsetError::HeadersOutOfBounds {
            start: 0,
            count: usize::MAX,
            len: 0
        }
    );
}

/// Longest edit sequence of the model test; under Miri, generating the inputs costs more
/// than running them, so the sequences are shorter there.
const MAX_OPS: usize = if cfg!(miri) { 12 } else { 24 };

fn cases() -> ProptestConfig {
    let mut c = ProptestConfig::with_cases(if cfg!(miri) { 6 } else { 256 });
    if cfg!(miri) {
        c.failure_persistence = None;
    }
    c
}

#[derive(Debug, Clone)]
enum Op {
    Copy(Vec<u8>),
    CopyReusing(Vec<u8>),
    Append(Vec<u8>),
    Resize(usize, u8),
    Truncate(usize),
    Reserve(usize),
    ReserveAmortized(usize),
    View(usize),
    Mutate(usize, u8),
    Clear,
    Assign,
}

fn op() -> impl Strategy<Value = Op> {
    let bytes = proptest::collection::vec(any::<u8>(), 0..80);
    prop_oneof![
        bytes.clone().prop_map(Op::Copy),
        bytes.clone().prop_map(Op::CopyReusing),
        bytes.prop_map(Op::Append),
        (0usize..120, any::<u8>()).prop_map(|(n, c)| Op::Resize(n, c)),
        (0usize..120).prop_map(Op::Truncate),
        (0usize..200).prop_map(Op::Reserve),
        (0usize..200).prop_map(Op::ReserveAmortized),
        (0usize..100).prop_map(Op::View),
        (0usize..100, any::<u8>()).prop_map(|(i, c)| Op::Mutate(i, c)),
        Just(Op::Clear),
        Just(Op::Assign),
    ]
}

proptest! {
    #![proptest_config(cases())]

    /// Every operation leaves the same bytes as the same edit on a `Vec<u8>`, and the type
    /// and capacity obey TensorFlow's invariants; nothing leaks.
    #[test]
    fn operations_match_a_vec_model(ops in proptest::collection::vec(op(), 1..MAX_OPS)) {
        let source: Vec<u8> = (0..100u8).collect();
        let before = live();
        {
            let mut s: HS = TString::new();
            let mut model: Vec<u8> = Vec::new();
            for op in ops {
                match op {
                    Op::Copy(b) => { s.copy_from(&b).unwrap(); model = b; }
                    Op::CopyReusing(b) => {
                        let cap = s.capacity();
                        let was_large = s.string_type() == TStringType::Large;
                        s.copy_reusing(&b).unwrap();
                        if was_large && b.len() <= cap {
                            prop_assert_eq!((s.string_type(), s.capacity()), (TStringType::Large, cap));
                        }
                        model = b;
                    }
                    Op::Append(b) => { s.append(&b).unwrap(); model.extend_from_slice(&b); }
                    Op::Resize(n, c) => { s.resize(n, c).unwrap(); model.resize(n, c); }
                    Op::Truncate(n) => { s.truncate(n).unwrap(); model.truncate(n); }
                    Op::Reserve(c) => {
                        s.reserve(c).unwrap();
                        prop_assert!(s.capacity() >= c || s.string_type() == TStringType::View);
                    }
                    Op::ReserveAmortized(c) => { s.reserve_amortized(c).unwrap(); }
                    Op::View(n) => { s.assign_view(&source[..n]).unwrap(); model = source[..n].to_vec(); }
                    Op::Mutate(i, c) => {
                        let m = s.as_mut_bytes().unwrap();
                        if !m.is_empty() { m[i % m.len()] = c; let k = i % model.len(); model[k] = c; }
                        prop_assert_ne!(s.string_type(), TStringType::View);
                    }
                    Op::Clear => { s.clear(); model.clear(); }
                    Op::Assign => {
                        let copy = s.clone();
                        prop_assert_eq!(&copy, &s);
                        s.assign(&copy).unwrap();
                    }
                }
                prop_assert_eq!(s.as_bytes(), &model[..]);
                prop_assert_eq!(s.len(), model.len());
                match s.string_type() {
                    TStringType::Small => prop_assert!(s.len() <= SMALL_CAPACITY),
                    // `copy_reusing` may keep a LARGE block for a short string.
                    TStringType::Large => {
                        prop_assert!(s.capacity() >= s.len());
                        prop_assert_eq!(s.capacity() % 16, 15);
                        // SAFETY: LARGE strings are NUL-terminated at len.
                        prop_assert_eq!(unsafe { *s.as_ptr().wrapping_add(s.len()) }, 0);
                    }
                    TStringType::View => prop_assert_eq!(s.capacity(), 0),
                    TStringType::Offset => prop_assert!(false, "safe code made an OFFSET string"),
                }
            }
        }
        prop_assert_eq!(live(), before);
    }

    #[test]
    fn offset_arrays_round_trip(words in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..12)) {
        let n = OffsetStrings::encoded_len(&words).unwrap();
        let mut buf = std::vec![0u8; n];
        let array = OffsetStrings::encode(&words, &mut buf).unwrap();
        prop_assert!(array.iter().eq(words.iter().map(|w| &w[..])));
        let again = OffsetStrings::new(&buf, 0, words.len()).unwrap();
        prop_assert!(again.iter().rev().eq(words.iter().rev().map(|w| &w[..])));
    }

    #[test]
    fn offset_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200), start in 0usize..64, count in 0usize..10) {
        if let Ok(array) = OffsetStrings::new(&bytes, start, count) {
            for s in array.iter() {
                prop_assert!(s.len() <= bytes.len());
            }
        }
    }
}
