//! Tests of the sparse vectors. Differential property tests: every operation on any mix of
//! sparse and dense inputs is compared with the same operation on the densified inputs and
//! with a naive loop over plain arrays, exactly for integers and within the module's stated
//! tolerance for floats. Pairs of inputs follow ML.NET's `VBufferTest` cases (both dense, one
//! dense, equal index sets, subset either way, disjoint, overlapping, empty) plus clustered
//! index sets that make the sparse·sparse merge gallop. Results are written into every
//! destination storage (caller slices, inline, a growable test storage, empty and pre-filled
//! with junk) and must agree.

extern crate std;

use std::string::ToString;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::storage::fixed_capacity;
use super::vbuffer::check_parts;
use super::*;
use crate::error::CapacityError;

mod builder;
mod construct;
mod copy;
mod editor;
mod kinds;
mod math;
mod special;
mod visit;

/// Longest generated vector; small under Miri, which is slow. Long enough for a full
/// 16-lane block and for the merge to gallop.
pub(super) const MAX: usize = if cfg!(miri) { 20 } else { 72 };

/// Capacity of the fixed destinations: room for any result.
pub(super) const CAP: usize = 80;

pub(super) fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// SparseValue types under test.
pub(super) trait TestElem: SparseValue + 'static {
    /// A non-zero value to pre-fill destinations with, so reuse cannot hide stale data.
    fn junk() -> Self;
    /// Values, zeros included.
    fn arb() -> BoxedStrategy<Self>;
    /// A deterministic value from a seed (for the all-kinds sweep).
    fn from_seed(seed: u64) -> Self;
}

/// Numeric element types under test.
pub(super) trait TestNum: TestElem + Numeric {
    /// `got` equals `want` up to the documented tolerance, given `scale = Σ|terms|`.
    fn close(got: Self, want: Self, scale: Self) -> bool;
}

macro_rules! test_int {
    ($($t:ty),*) => {$(
        impl TestElem for $t {
            fn junk() -> Self {
                0x5a as $t
            }
            fn arb() -> BoxedStrategy<Self> {
                if cfg!(miri) {
                    return any::<u64>().prop_map(Self::from_seed).boxed();
                }
                prop_oneof![
                    2 => Just(0 as $t),
                    3 => (0 as $t..9 as $t),
                    3 => any::<$t>(),
                ]
                .boxed()
            }
            fn from_seed(seed: u64) -> Self {
                match seed % 4 {
                    0 => 0 as $t,
                    1 => (seed >> 8) as $t,
                    _ => ((seed >> 8) % 7) as $t,
                }
            }
        }
        impl TestNum for $t {
            fn close(got: Self, want: Self, _scale: Self) -> bool {
                got == want
            }
        }
    )*};
}
test_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! test_float {
    ($($t:ty, $tol:expr);*) => {$(
        impl TestElem for $t {
            fn junk() -> Self {
                -1234.5
            }
            fn arb() -> BoxedStrategy<Self> {
                if cfg!(miri) {
                    return any::<u64>().prop_map(Self::from_seed).boxed();
                }
                prop_oneof![
                    2 => Just(0.0 as $t),
                    2 => (-8i8..8).prop_map(<$t>::from),
                    4 => -100.0 as $t..100.0 as $t,
                ]
                .boxed()
            }
            fn from_seed(seed: u64) -> Self {
                match seed % 4 {
                    0 => 0.0,
                    1 => ((seed >> 8) % 2001) as $t / 10.0 - 100.0,
                    _ => ((seed >> 8) % 15) as $t - 7.0,
                }
            }
        }
        impl TestNum for $t {
            fn close(got: Self, want: Self, scale: Self) -> bool {
                got == want
                    || (got.is_nan() && want.is_nan())
                    || (got - want).abs() <= $tol * (1.0 + scale.abs())
            }
        }
    )*};
}
test_float!(f32, 1e-5; f64, 1e-12);

impl TestElem for bool {
    fn junk() -> Self {
        true
    }
    fn arb() -> BoxedStrategy<Self> {
        any::<bool>().boxed()
    }
    fn from_seed(seed: u64) -> Self {
        seed % 3 == 1
    }
}

/// One generated vector, as plain parts.
#[derive(Clone, Debug)]
pub(super) struct Parts<T> {
    pub(super) len: usize,
    pub(super) values: Vec<T>,
    pub(super) indices: Vec<u32>,
}

impl<T: SparseValue> Parts<T> {
    /// Dense parts of `len` values.
    pub(super) fn dense(values: Vec<T>) -> Self {
        Parts {
            len: values.len(),
            values,
            indices: Vec::new(),
        }
    }

    /// Sparse parts holding `pool[i]` wherever `mask[i]` (dense if the mask is full).
    pub(super) fn from_mask(mask: &[bool], pool: &[T]) -> Self {
        let mut p = Parts {
            len: mask.len(),
            values: Vec::new(),
            indices: Vec::new(),
        };
        for (i, &m) in mask.iter().enumerate() {
            if m {
                p.values.push(pool[i]);
                p.indices.push(i as u32);
            }
        }
        if p.values.len() == p.len {
            p.indices.clear();
        }
        p
    }

    pub(super) fn is_dense(&self) -> bool {
        self.values.len() == self.len
    }

    /// The vector over these parts.
    pub(super) fn view(&self) -> VBufferView<'_, T> {
        VBuffer::try_new(
            self.len,
            self.values.len(),
            Slices::new(&self.values, &self.indices),
        )
        .unwrap()
    }

    /// Every entry.
    pub(super) fn to_dense(&self) -> Vec<T> {
        if self.is_dense() {
            return self.values.clone();
        }
        let mut d = vec![T::default(); self.len];
        for (&i, &v) in self.indices.iter().zip(&self.values) {
            d[i as usize] = v;
        }
        d
    }

    /// Which entries are explicit.
    pub(super) fn explicit(&self) -> Vec<bool> {
        if self.is_dense() {
            return vec![true; self.len];
        }
        let mut m = vec![false; self.len];
        for &i in &self.indices {
            m[i as usize] = true;
        }
        m
    }

    /// The densified vector's parts.
    pub(super) fn densified(&self) -> Parts<T> {
        Parts::dense(self.to_dense())
    }
}

/// ML.NET's pair cases, plus clustered index sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    BothDense,
    FirstDense,
    SecondDense,
    EqualIndices,
    FirstSubset,
    SecondSubset,
    Disjoint,
    Overlapping,
    Empty,
    Clustered,
}

pub(super) const KINDS: [Kind; 10] = [
    Kind::BothDense,
    Kind::FirstDense,
    Kind::SecondDense,
    Kind::EqualIndices,
    Kind::FirstSubset,
    Kind::SecondSubset,
    Kind::Disjoint,
    Kind::Overlapping,
    Kind::Empty,
    Kind::Clustered,
];

/// Two vectors of one length.
#[derive(Clone, Debug)]
pub(super) struct Pair<T> {
    pub(super) kind: Kind,
    pub(super) a: Parts<T>,
    pub(super) b: Parts<T>,
}

impl<T: SparseValue> Pair<T> {
    pub(super) fn len(&self) -> usize {
        self.a.len
    }

    /// The pair with both sides densified.
    pub(super) fn densified(&self) -> Pair<T> {
        Pair {
            kind: Kind::BothDense,
            a: self.a.densified(),
            b: self.b.densified(),
        }
    }

    /// The same vectors in every representation mix: as given, each side densified, both.
    /// Under Miri (slow) only as given and both densified: the pair kinds already include
    /// the one-side-dense mixes.
    pub(super) fn mixes(&self) -> Vec<Pair<T>> {
        let (da, db) = (self.a.densified(), self.b.densified());
        let both = Pair {
            kind: Kind::BothDense,
            a: da.clone(),
            b: db.clone(),
        };
        if cfg!(miri) {
            return vec![self.clone(), both];
        }
        vec![
            self.clone(),
            Pair {
                kind: self.kind,
                a: da,
                b: self.b.clone(),
            },
            Pair {
                kind: self.kind,
                a: self.a.clone(),
                b: db,
            },
            both,
        ]
    }
}

/// Builds the pair of `kind` from two random masks and value pools of length `len`.
pub(super) fn make_pair<T: SparseValue>(
    len: usize,
    kind: Kind,
    m1: &[bool],
    m2: &[bool],
    v1: &[T],
    v2: &[T],
) -> Pair<T> {
    let (m1, m2) = (&m1[..len], &m2[..len]);
    let full = vec![true; len];
    let none = vec![false; len];
    let and =
        |x: &[bool], y: &[bool]| -> Vec<bool> { x.iter().zip(y).map(|(a, b)| *a && *b).collect() };
    let and_not =
        |x: &[bool], y: &[bool]| -> Vec<bool> { x.iter().zip(y).map(|(a, b)| *a && !*b).collect() };
    let (ma, mb): (Vec<bool>, Vec<bool>) = match kind {
        Kind::BothDense => (full.clone(), full),
        Kind::FirstDense => (full, m2.to_vec()),
        Kind::SecondDense => (m1.to_vec(), full),
        Kind::EqualIndices => (m1.to_vec(), m1.to_vec()),
        Kind::FirstSubset => (and(m1, m2), m2.to_vec()),
        Kind::SecondSubset => (m1.to_vec(), and(m1, m2)),
        Kind::Disjoint => (m1.to_vec(), and_not(m2, m1)),
        Kind::Overlapping => (m1.to_vec(), m2.to_vec()),
        Kind::Empty => (none, m2.to_vec()),
        Kind::Clustered => {
            // `a` mostly in the first half, `b` mostly in the second, a few strays each.
            let half = len / 2;
            let a = (0..len).map(|i| {
                if i < half {
                    m1[i]
                } else {
                    m1[i] && m2[i] && i % 7 == 0
                }
            });
            let b = (0..len).map(|i| {
                if i >= half {
                    m2[i]
                } else {
                    m1[i] && m2[i] && i % 5 == 0
                }
            });
            (a.collect(), b.collect())
        }
    };
    Pair {
        kind,
        a: Parts::from_mask(&ma, v1),
        b: Parts::from_mask(&mb, v2),
    }
}

/// Random pairs of every kind, lengths 0..=MAX. Under Miri, where proptest's random
/// generator is very slow, masks and values come from one seed through [`Xorshift`].
pub(super) fn pairs<T: TestElem>() -> BoxedStrategy<Pair<T>> {
    let kind = prop::sample::select(&KINDS[..]);
    if cfg!(miri) {
        return (0..=MAX, kind, any::<u64>())
            .prop_map(|(len, kind, seed)| seeded_pair(len, kind, seed))
            .boxed();
    }
    (
        0..=MAX,
        kind,
        prop::collection::vec(any::<bool>(), MAX),
        prop::collection::vec(any::<bool>(), MAX),
        prop::collection::vec(T::arb(), MAX),
        prop::collection::vec(T::arb(), MAX),
    )
        .prop_map(|(len, kind, m1, m2, v1, v2)| make_pair(len, kind, &m1, &m2, &v1, &v2))
        .boxed()
}

/// A cheap deterministic generator (xorshift64).
pub(super) struct Xorshift(pub(super) u64);

impl Xorshift {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The pair of `kind` and length `len` whose masks and values derive from `seed`.
pub(super) fn seeded_pair<T: TestElem>(len: usize, kind: Kind, seed: u64) -> Pair<T> {
    let mut rng = Xorshift(seed | 1);
    let m1: Vec<bool> = (0..len).map(|_| rng.next() % 3 != 0).collect();
    let m2: Vec<bool> = (0..len).map(|_| rng.next() % 2 == 0).collect();
    let v1: Vec<T> = (0..len).map(|_| T::from_seed(rng.next())).collect();
    let v2: Vec<T> = (0..len).map(|_| T::from_seed(rng.next())).collect();
    make_pair(len, kind, &m1, &m2, &v1, &v2)
}

/// Random single vectors: dense, sparse or empty.
pub(super) fn vectors<T: TestElem>() -> impl Strategy<Value = Parts<T>> {
    pairs::<T>().prop_map(|p| p.b)
}

/// Every kind at a few lengths, with deterministic masks and values: the sweep that gives
/// Miri (which runs only a few random cases) every combination.
pub(super) fn deterministic_pairs<T: TestElem>() -> Vec<Pair<T>> {
    let mut out = Vec::new();
    let lens: &[usize] = if cfg!(miri) {
        &[0, 1, 23]
    } else {
        &[0, 1, 2, 17, 40, 71]
    };
    for (n, &len) in lens.iter().enumerate() {
        for (k, kind) in KINDS.into_iter().enumerate() {
            out.push(seeded_pair(
                len,
                kind,
                0x2545_f491_4f6c_dd1d ^ (n * 16 + k) as u64,
            ));
        }
    }
    out
}

/// What a written vector looks like, storage aside.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Out<T> {
    pub(super) len: usize,
    pub(super) count: usize,
    pub(super) values: Vec<T>,
    pub(super) indices: Vec<u32>,
}

impl<T: SparseValue> Out<T> {
    /// Captures `v`, checking its invariant.
    pub(super) fn of<S: Storage<Elem = T>>(v: &VBuffer<S>) -> Self {
        assert_eq!(
            check_parts(v.len(), v.count(), v.values(), v.indices()),
            Ok(())
        );
        Out {
            len: v.len(),
            count: v.count(),
            values: v.values().to_vec(),
            indices: v.indices().to_vec(),
        }
    }

    pub(super) fn is_dense(&self) -> bool {
        self.count == self.len
    }

    pub(super) fn parts(&self) -> Parts<T> {
        Parts {
            len: self.len,
            values: self.values.clone(),
            indices: self.indices.clone(),
        }
    }

    pub(super) fn to_dense(&self) -> Vec<T> {
        self.parts().to_dense()
    }
}

/// A growable storage for the core tests (the real one is `tessera-alloc`'s): grows by
/// doubling from 4, into new default-filled arrays unless asked to keep.
#[derive(Clone, Debug, Default)]
pub(super) struct Grow<T> {
    pub(super) values: Vec<T>,
    pub(super) indices: Vec<u32>,
}

impl<T: TestElem> Grow<T> {
    /// Pre-filled with junk, so reuse is exercised.
    pub(super) fn junk(n: usize) -> Self {
        Grow {
            values: vec![T::junk(); n],
            indices: vec![u32::MAX; n],
        }
    }
}

fn grown(old: usize, needed: usize) -> usize {
    let mut n = if old == 0 { 4 } else { old * 2 };
    while n < needed {
        n *= 2;
    }
    n
}

impl<T: SparseValue> Storage for Grow<T> {
    type Elem = T;
    fn values(&self) -> &[T] {
        &self.values
    }
    fn indices(&self) -> &[u32] {
        &self.indices
    }
}

// `reserve` only lengthens the `Vec`s, keeping the prefix when asked, and never fails.
impl<T: SparseValue> StorageMut for Grow<T> {
    fn parts_mut(&mut self) -> (&mut [T], &mut [u32]) {
        (&mut self.values, &mut self.indices)
    }
    fn reserve(
        &mut self,
        values: usize,
        indices: usize,
        keep: bool,
    ) -> Result<Reserved, CapacityError> {
        let mut r = Reserved::default();
        if self.values.len() < values {
            let n = grown(self.values.len(), values);
            if keep {
                self.values.resize(n, T::default());
            } else {
                self.values = vec![T::default(); n];
            }
            r.new_values = true;
        }
        if self.indices.len() < indices {
            let n = grown(self.indices.len(), indices);
            if keep {
                self.indices.resize(n, 0);
            } else {
                self.indices = vec![0; n];
            }
            r.new_indices = true;
        }
        Ok(r)
    }
}

/// Runs `$body` (which writes `$dst`) once per destination storage: caller slices and an
/// inline vector (both pre-filled with junk), a growable one starting empty and one
/// pre-filled (under Miri only the first and third). `$init` (given `$dst`) prepares each first, e.g. copies an input in. Asserts
/// that results and written vectors agree, and returns them.
macro_rules! each_dst {
    ($t:ty, |$dst:ident| $init:expr, $body:expr) => {{
        let mut outs: std::vec::Vec<(Result<(), SparseError>, Out<$t>)> = std::vec::Vec::new();
        {
            let mut values = std::vec![<$t as TestElem>::junk(); CAP];
            let mut indices = std::vec![u32::MAX; CAP];
            let mut $dst = VBuffer::with_storage(SlicesMut::new(&mut values, &mut indices));
            let _: () = $init;
            let r = $body;
            outs.push((r, Out::of(&$dst)));
        }
        // Under Miri (slow), two storages: caller slices and growth from empty. The unsafe
        // paths do not depend on the storage.
        if !cfg!(miri) {
            let junk = Inline::<$t, CAP>::from_slices(
                &[<$t as TestElem>::junk(); CAP],
                &[u32::MAX; CAP],
            )
            .unwrap();
            let mut $dst = VBuffer::with_storage(junk);
            let _: () = $init;
            let r = $body;
            outs.push((r, Out::of(&$dst)));
        }
        {
            let mut $dst: VBuffer<Grow<$t>> = VBuffer::default();
            let _: () = $init;
            let r = $body;
            outs.push((r, Out::of(&$dst)));
        }
        if !cfg!(miri) {
            let mut $dst = VBuffer::with_storage(Grow::<$t>::junk(CAP));
            let _: () = $init;
            let r = $body;
            outs.push((r, Out::of(&$dst)));
        }
        for o in &outs[1..] {
            prop_assert_eq!(o, &outs[0]);
        }
        outs.swap_remove(0)
    }};
}
pub(super) use each_dst;

/// Generates one proptest per element type for a generic check.
macro_rules! prop_types {
    ($name:ident: $check:ident($strategy:ident) for $($t:ident),+) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            proptest! {
                #![proptest_config(config())]
                $(
                    #[test]
                    fn $t(input in $strategy::<$t>()) {
                        $check::<$t>(&input)?;
                    }
                )+
            }
        }
    };
}
pub(super) use prop_types;

/// Asserts element-wise closeness of two dense results.
pub(super) fn assert_all_close<T: TestNum>(
    got: &[T],
    want: &[T],
    what: &str,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len(), "{}: lengths", what);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        prop_assert!(
            T::close(g, w, w.abs()),
            "{}: entry {}: got {:?}, want {:?}",
            what,
            i,
            g,
            w
        );
    }
    Ok(())
}

/// `Ok` if the capacity error is what a fixed storage of `available` reports for `needed`.
pub(super) fn capacity(needed: usize, available: usize) -> SparseError {
    SparseError::Capacity(fixed_capacity(available, needed).unwrap_err())
}
