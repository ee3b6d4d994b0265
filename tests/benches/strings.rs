//! String benchmarks: tessera's `TString` against `String` and `compact_str::CompactString`,
//! and TFLite string tensors read through the zero-copy [`TfliteStrings`] view against
//! materialising a `Vec<String>`, plus encoding against a plain `memcpy`.
//!
//! Every comparison runs side by side in the same process, on the same inputs, with
//! [`black_box`] around inputs and results. `TString` uses [`RustHeap`] (Rust's global
//! allocator) explicitly, the same allocator `String` and `CompactString` use; the workspace
//! may enable `tessera-alloc/c-heap`, which would make `HeapTString` use `malloc`.
//!
//! Run with `cargo bench -p tessera-tests --bench strings`; results are summarised in
//! `BENCHMARKS.md` at the workspace root.

use std::hint::black_box;
use std::time::Duration;

use compact_str::CompactString;
use criterion::{
    BatchSize, Bencher, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use tessera_alloc::RustHeap;
use tessera_core::strings::{TfliteStrings, encode_tflite, tflite_encoded_len};
use tessera_core::tstring::{NoHeap, TString};

/// `TString` backed by Rust's global allocator, whatever `DefaultHeap` is in this build.
type RustTString<'a> = TString<'a, RustHeap>;

/// String lengths for the single-string groups: SMALL (5, 22), just past SMALL / still inline
/// for `CompactString` (23), and two heap sizes.
const LENGTHS: [usize; 5] = [5, 22, 23, 100, 1000];

/// Number of strings in the TFLite tensor.
const TENSOR_STRINGS: usize = 100_000;

/// Longest string in the TFLite tensor (lengths run 0..=40).
const MAX_TENSOR_STRING: usize = 40;

/// Benchmark names, shared by all groups so the tables line up.
const TSTRING: &str = "TString<RustHeap>";
/// `TString` with no heap, as on a microcontroller: SMALL strings only.
const TSTRING_NO_HEAP: &str = "TString<NoHeap>";
/// `TString::view`: borrows, copies nothing.
const TSTRING_VIEW: &str = "TString::view (zero-copy)";
/// `std::string::String`.
const STRING: &str = "String";
/// `compact_str::CompactString`.
const COMPACT: &str = "CompactString";

/// A short measurement so the whole file runs in a few minutes on a loaded 2-core machine.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// `len` ASCII bytes, deterministic.
fn ascii(len: usize, seed: usize) -> String {
    (0..len)
        .map(|i| char::from(b'a' + ((i * 7 + seed) % 26) as u8))
        .collect()
}

/// The same small amount of work for every string type: length plus first and last byte.
#[inline(always)]
fn touch(bytes: &[u8]) -> usize {
    bytes.len()
        + usize::from(bytes.first().copied().unwrap_or(0))
        + usize::from(bytes.last().copied().unwrap_or(0))
}

/// Creating an owned string from bytes / `&str` (dropping it is included for all three).
fn tstring_create(c: &mut Criterion) {
    let mut g = c.benchmark_group("tstring/create");
    for len in LENGTHS {
        let text = ascii(len, len);
        let s: &str = &text;
        let bytes = s.as_bytes();
        g.bench_with_input(BenchmarkId::new(TSTRING, len), &bytes, |b, &bytes| {
            b.iter(|| RustTString::from_bytes(black_box(bytes)).unwrap());
        });
        g.bench_with_input(BenchmarkId::new(STRING, len), &s, |b, &s| {
            b.iter(|| String::from(black_box(s)));
        });
        g.bench_with_input(BenchmarkId::new(COMPACT, len), &s, |b, &s| {
            b.iter(|| CompactString::new(black_box(s)));
        });
        g.bench_with_input(BenchmarkId::new(TSTRING_VIEW, len), &bytes, |b, &bytes| {
            b.iter(|| RustTString::view(black_box(bytes)).unwrap());
        });
    }
    g.finish();
}

/// How many strings `tstring/create_64` makes per iteration.
const BATCH: usize = 64;

/// Times making a string from each of `inputs` and pushing it into a `Vec` reused across
/// iterations (cleared first, so the last batch's strings are dropped inside the timing).
fn fill<I, T>(b: &mut Bencher<'_>, inputs: &[I; BATCH], make: impl Fn(&I) -> T) {
    let mut made: Vec<T> = Vec::with_capacity(BATCH);
    b.iter(|| {
        made.clear();
        for x in black_box(inputs) {
            made.push(make(x));
        }
        black_box(&made);
    });
}

/// Pushing 64 new strings of one length, from 64 different inputs, into a reused `Vec`, then
/// dropping them all: the pattern of filling a string tensor. The single-string group above
/// times one create with the harness's store and reload of the result around it, which takes
/// as long as the create itself; here that is paid once per 64.
fn tstring_create_batch(c: &mut Criterion) {
    let mut g = c.benchmark_group("tstring/create_64");
    for len in LENGTHS {
        let texts: Vec<String> = (0..BATCH).map(|i| ascii(len, i)).collect();
        let strs: [&str; BATCH] = core::array::from_fn(|i| texts[i].as_str());
        let bytes: [&[u8]; BATCH] = strs.map(str::as_bytes);
        g.throughput(Throughput::Elements(BATCH as u64));
        g.bench_with_input(BenchmarkId::new(TSTRING, len), &bytes, |b, bytes| {
            fill(b, bytes, |x| RustTString::from_bytes(x).unwrap());
        });
        if len <= RustTString::SMALL_CAPACITY {
            // Without a heap (firmware): SMALL strings only.
            g.bench_with_input(
                BenchmarkId::new(TSTRING_NO_HEAP, len),
                &bytes,
                |b, bytes| fill(b, bytes, |x| TString::<NoHeap>::from_bytes(x).unwrap()),
            );
        }
        g.bench_with_input(BenchmarkId::new(STRING, len), &strs, |b, strs| {
            fill(b, strs, |s| String::from(*s));
        });
        g.bench_with_input(BenchmarkId::new(COMPACT, len), &strs, |b, strs| {
            fill(b, strs, |s| CompactString::new(s));
        });
    }
    g.finish();
}

/// `.clone()` of an existing string (dropping the copy is included for all three).
fn tstring_clone(c: &mut Criterion) {
    let mut g = c.benchmark_group("tstring/clone");
    for len in LENGTHS {
        let text = ascii(len, len);
        let t = RustTString::from_bytes(text.as_bytes()).unwrap();
        let s = text.clone();
        let k = CompactString::new(&text);
        g.bench_with_input(BenchmarkId::new(TSTRING, len), &t, |b, t| {
            b.iter(|| black_box(t).clone());
        });
        g.bench_with_input(BenchmarkId::new(STRING, len), &s, |b, s| {
            b.iter(|| black_box(s).clone());
        });
        g.bench_with_input(BenchmarkId::new(COMPACT, len), &k, |b, k| {
            b.iter(|| black_box(k).clone());
        });
        let v = RustTString::view(text.as_bytes()).unwrap();
        g.bench_with_input(BenchmarkId::new(TSTRING_VIEW, len), &v, |b, v| {
            b.iter(|| black_box(v).clone());
        });
    }
    g.finish();
}

/// Getting the bytes and reading length, first and last byte.
fn tstring_read(c: &mut Criterion) {
    let mut g = c.benchmark_group("tstring/read");
    for len in LENGTHS {
        let text = ascii(len, len);
        let t = RustTString::from_bytes(text.as_bytes()).unwrap();
        let s = text.clone();
        let k = CompactString::new(&text);
        let expected = touch(text.as_bytes());
        assert_eq!(touch(t.as_bytes()), expected);
        assert_eq!(touch(k.as_bytes()), expected);
        g.bench_with_input(BenchmarkId::new(TSTRING, len), &t, |b, t| {
            b.iter(|| touch(black_box(t).as_bytes()));
        });
        g.bench_with_input(BenchmarkId::new(STRING, len), &s, |b, s| {
            b.iter(|| touch(black_box(s).as_bytes()));
        });
        g.bench_with_input(BenchmarkId::new(COMPACT, len), &k, |b, k| {
            b.iter(|| touch(black_box(k).as_bytes()));
        });
        let v = RustTString::view(text.as_bytes()).unwrap();
        g.bench_with_input(BenchmarkId::new(TSTRING_VIEW, len), &v, |b, v| {
            b.iter(|| touch(black_box(v).as_bytes()));
        });
    }
    g.finish();
}

/// The tensor's strings: deterministic ASCII, lengths cycling through 0..=40.
fn tensor_strings() -> Vec<String> {
    (0..TENSOR_STRINGS)
        .map(|i| ascii((i * 17 + i / 41) % (MAX_TENSOR_STRING + 1), i))
        .collect()
}

/// Encodes `strings` into a fresh, exactly sized buffer.
fn encode_vec(strings: &[String]) -> Vec<u8> {
    let mut buf = vec![0u8; tflite_encoded_len(strings).unwrap()];
    assert_eq!(encode_tflite(strings, &mut buf), Ok(buf.len()));
    buf
}

/// Reads a little-endian `i32` at byte `at` as an index.
fn word(buf: &[u8], at: usize) -> usize {
    let w = i32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
    usize::try_from(w).unwrap()
}

/// What a user of TFLite's C API does to get Rust strings: parse `N` and the offsets, then
/// copy each string into a `String`, checking UTF-8.
fn materialise(buf: &[u8]) -> Vec<String> {
    let n = word(buf, 0);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let start = word(buf, 4 + 4 * i);
        let end = word(buf, 8 + 4 * i);
        out.push(String::from_utf8(buf[start..end].to_vec()).unwrap());
    }
    out
}

/// Sum of string lengths through the checked zero-copy view: validation plus a full walk.
fn view_sum(buf: &[u8]) -> usize {
    TfliteStrings::new(buf)
        .unwrap()
        .iter()
        .map(<[u8]>::len)
        .sum()
}

/// As [`view_sum`], but also checks each string is UTF-8 (zero-copy `&str`s), which is the
/// part of [`materialise`]'s work that is not copying.
fn view_str_sum(buf: &[u8]) -> usize {
    TfliteStrings::new(buf)
        .unwrap()
        .iter()
        .map(|s| std::str::from_utf8(s).unwrap().len())
        .sum()
}

/// Reading a 100 000-string tensor: the checked view vs a `Vec<String>`.
fn tflite_read(c: &mut Criterion) {
    let strings = tensor_strings();
    let buf = encode_vec(&strings);
    let total: usize = strings.iter().map(String::len).sum();
    assert_eq!(view_sum(&buf), total);
    assert_eq!(view_str_sum(&buf), total);
    assert_eq!(materialise(&buf), strings);

    let mut g = c.benchmark_group("tflite/100k");
    g.throughput(Throughput::Bytes(buf.len() as u64));
    g.bench_function("TfliteStrings::new + iter (zero-copy)", |b| {
        b.iter(|| view_sum(black_box(&buf)));
    });
    g.bench_function(
        "TfliteStrings::new + iter + str::from_utf8 (zero-copy)",
        |b| {
            b.iter(|| view_str_sum(black_box(&buf)));
        },
    );
    g.bench_function("Vec<String> (parse + copy + UTF-8 + drop)", |b| {
        b.iter(|| {
            let v = materialise(black_box(&buf));
            v.iter().map(String::len).sum::<usize>()
        });
    });
    g.bench_function("Vec<String> (parse + copy + UTF-8, drop not timed)", |b| {
        b.iter_batched(
            || (),
            |()| {
                let v = materialise(black_box(&buf));
                let sum = v.iter().map(String::len).sum::<usize>();
                (v, sum)
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

/// The simplest correct encoder for a slice of `String`s that fits `out`: one pass, offset then
/// bytes per string, bounds-checked slicing only. A reference for the cost of 100 000 separate
/// small copies, which a single `memcpy` of the finished buffer does not pay.
fn encode_by_hand(strings: &[String], out: &mut [u8]) -> usize {
    let n = strings.len();
    let put = |out: &mut [u8], at: usize, v: usize| {
        out[at..at + 4].copy_from_slice(&i32::try_from(v).unwrap().to_le_bytes());
    };
    put(out, 0, n);
    let mut pos = 4 * (n + 2);
    for (i, s) in strings.iter().enumerate() {
        put(out, 4 + 4 * i, pos);
        out[pos..pos + s.len()].copy_from_slice(s.as_bytes());
        pos += s.len();
    }
    put(out, 4 + 4 * n, pos);
    pos
}

/// The strings' bytes alone, one after the other: no count, no offsets. What copying 100 000
/// separate small strings costs at the least, whatever is written around them.
fn concat_bytes(strings: &[String], out: &mut [u8]) -> usize {
    let mut pos = 0;
    for s in strings {
        out[pos..pos + s.len()].copy_from_slice(s.as_bytes());
        pos += s.len();
    }
    pos
}

/// Reads one byte of each string (its first, or 0 if empty), the least any encoder from
/// separate strings does: one load of each `String` and one of its heap block.
fn touch_each(strings: &[String]) -> usize {
    strings
        .iter()
        .map(|s| usize::from(s.as_bytes().first().copied().unwrap_or(0)))
        .sum()
}

/// As [`concat_bytes`], with each string of at most 64 bytes moved by one AVX-512 masked load
/// and one masked store: no branch on the length, no call. A reference for the fastest copy
/// of separate strings found on the benchmark machine; `None` where AVX-512 is missing.
#[cfg(target_arch = "x86_64")]
fn concat_masked(strings: &[String], out: &mut [u8]) -> Option<usize> {
    if !(is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("bmi2")) {
        return None;
    }
    let total: usize = strings.iter().map(String::len).sum();
    if out.len() < total {
        return None;
    }
    // SAFETY: the features were detected above, and `out` holds every string's bytes.
    Some(unsafe { concat_masked_avx512(strings, out) })
}

#[cfg(not(target_arch = "x86_64"))]
fn concat_masked(_: &[String], _: &mut [u8]) -> Option<usize> {
    None
}

/// # Safety
/// The CPU has AVX-512BW and BMI2; `out` is at least as long as all strings together.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,bmi2")]
// AVX-512 intrinsics are stable from Rust 1.89; benchmarks are built with a current stable
// (the libraries keep the workspace's `rust-version`).
#[allow(clippy::incompatible_msrv)]
unsafe fn concat_masked_avx512(strings: &[String], out: &mut [u8]) -> usize {
    use std::arch::x86_64::{_bzhi_u64, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8};
    let base = out.as_mut_ptr();
    let mut pos = 0;
    for s in strings {
        let n = s.len();
        // An empty string's pointer is dangling: a masked load from it, even of no bytes,
        // takes a slow fault-suppression path, so it is skipped.
        if n == 0 {
            continue;
        }
        // SAFETY: `pos + n <= out.len()` (the caller's contract).
        let dst = unsafe { base.add(pos) };
        if n <= 64 {
            let k = _bzhi_u64(u64::MAX, n as u32);
            // SAFETY: the mask covers the `n` bytes of `s`; masked-off bytes are not read.
            let v = unsafe { _mm512_maskz_loadu_epi8(k, s.as_ptr().cast()) };
            // SAFETY: the mask covers `n` bytes at `dst`, inside `out` (as above); masked-off
            // bytes are not written.
            unsafe { _mm512_mask_storeu_epi8(dst.cast(), k, v) };
        } else {
            // SAFETY: `dst` has room for `n` bytes (as above) that `s` cannot overlap.
            unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), dst, n) };
        }
        pos += n;
    }
    pos
}

/// Encoding the 100 000 strings into a preallocated buffer vs copying the finished buffer.
fn tflite_encode(c: &mut Criterion) {
    let strings = tensor_strings();
    let encoded = encode_vec(&strings);
    let mut out = vec![0u8; encoded.len()];

    // Check both encoders before timing (with a name filter the timed closures may not run).
    assert_eq!(encode_tflite(&strings, &mut out), Ok(encoded.len()));
    assert_eq!(out, encoded);
    out.fill(0);
    assert_eq!(encode_by_hand(&strings, &mut out), encoded.len());
    assert_eq!(out, encoded);

    let mut g = c.benchmark_group("tflite/encode");
    g.throughput(Throughput::Bytes(encoded.len() as u64));
    g.bench_function("encode_tflite (Vec<String> -> preallocated buffer)", |b| {
        b.iter(|| encode_tflite(black_box(&strings), black_box(&mut out[..])).unwrap());
    });
    // The same strings from one contiguous source (a TFLite view): what encoding costs when the
    // input is not 100 000 separate heap blocks.
    let view = TfliteStrings::new(&encoded).unwrap();
    let mut out2 = vec![0u8; encoded.len()];
    assert_eq!(encode_tflite(view.iter(), &mut out2), Ok(encoded.len()));
    assert_eq!(out2, encoded);
    g.bench_function(
        "encode_tflite (TfliteStrings view -> preallocated buffer)",
        |b| {
            b.iter(|| encode_tflite(black_box(view).iter(), black_box(&mut out2[..])).unwrap());
        },
    );
    // The same strings as `TString`s (TensorFlow's DT_STRING layout): SMALL up to 22 bytes,
    // stored inline in the array, and LARGE past that.
    let tstrings: Vec<RustTString<'static>> = strings
        .iter()
        .map(|s| RustTString::from_bytes(s.as_bytes()).unwrap())
        .collect();
    let mut out3 = vec![0u8; encoded.len()];
    assert_eq!(encode_tflite(&tstrings, &mut out3), Ok(encoded.len()));
    assert_eq!(out3, encoded);
    g.bench_function("encode_tflite (Vec<TString> -> preallocated buffer)", |b| {
        b.iter(|| encode_tflite(black_box(&tstrings), black_box(&mut out3[..])).unwrap());
    });
    g.bench_function("hand-written single pass (reference)", |b| {
        b.iter(|| encode_by_hand(black_box(&strings), black_box(&mut out[..])));
    });
    g.bench_function("bytes only, one copy per string (reference)", |b| {
        b.iter(|| concat_bytes(black_box(&strings), black_box(&mut out[..])));
    });
    let total: usize = strings.iter().map(String::len).sum();
    if concat_masked(&strings, &mut out) == Some(total) {
        assert_eq!(out[..total], encoded[encoded.len() - total..]);
        g.bench_function("bytes only, AVX-512 masked moves (reference)", |b| {
            b.iter(|| concat_masked(black_box(&strings), black_box(&mut out[..])));
        });
    }
    g.bench_function("one byte of each string, no copy (reference)", |b| {
        b.iter(|| touch_each(black_box(&strings)));
    });
    g.bench_function("memcpy of the encoded buffer (copy_from_slice)", |b| {
        b.iter(|| black_box(&mut out[..]).copy_from_slice(black_box(&encoded)));
    });
    g.finish();
}

criterion_group! {
    name = tstring;
    config = config();
    targets = tstring_create, tstring_create_batch, tstring_clone, tstring_read
}
criterion_group! {
    name = tflite;
    config = config();
    targets = tflite_read, tflite_encode
}
criterion_main!(tstring, tflite);
