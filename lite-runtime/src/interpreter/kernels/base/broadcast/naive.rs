//! A naive NumPy-style broadcast for the element-wise kernels' tests: every output index
//! mapped to its inputs' indices one at a time, and proptest strategies for shapes that
//! broadcast (empty ones included) with values.

use proptest::prelude::*;

/// NumPy's broadcast of two shapes (None if they do not).
pub fn naive_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let pad = |s: &[usize]| {
        let mut v = vec![1; r - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (a, b) = (pad(a), pad(b));
    a.iter()
        .zip(&b)
        .map(|(&x, &y)| match (x, y) {
            _ if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// The flat index in `input` of output multi-index `idx`.
pub fn source(idx: &[usize], input: &[usize]) -> usize {
    let skip = idx.len() - input.len();
    let mut flat = 0;
    for (&i, &d) in idx[skip..].iter().zip(input) {
        flat = flat * d + if d == 1 { 0 } else { i };
    }
    flat
}

/// Every multi-index of `dims`, row-major.
pub fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|mut f| {
            let mut idx = vec![0; dims.len()];
            for (i, &d) in idx.iter_mut().zip(dims).rev() {
                *i = f % d;
                f /= d;
            }
            idx
        })
        .collect()
}

/// `f` over `a` and `b` broadcast: the output shape and values.
pub fn naive2<A: Copy, B: Copy, O>(
    a: &[A],
    sa: &[usize],
    b: &[B],
    sb: &[usize],
    f: impl Fn(A, B) -> O,
) -> (Vec<usize>, Vec<O>) {
    let so = naive_shape(sa, sb).unwrap();
    let out = indices(&so)
        .iter()
        .map(|i| f(a[source(i, sa)], b[source(i, sb)]))
        .collect();
    (so, out)
}

/// Two shapes that broadcast: a random output shape, each input dropping leading dimensions
/// and setting some to 1.
pub fn shapes2() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec(0usize..4, 0..=6).prop_flat_map(|out| {
        let r = out.len();
        let pick = move |out: Vec<usize>| {
            (0..=r, prop::collection::vec(any::<bool>(), r)).prop_map(move |(rank, ones)| {
                out[r - rank..]
                    .iter()
                    .zip(&ones[r - rank..])
                    .map(|(&d, &one)| if one { 1 } else { d })
                    .collect::<Vec<_>>()
            })
        };
        (pick(out.clone()), pick(out))
    })
}

/// `n` values.
pub fn values<T: std::fmt::Debug>(
    n: usize,
    v: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(v, n)
}

/// Two shapes that broadcast and values for each.
pub fn with_values<T: std::fmt::Debug>(
    v: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = (Vec<usize>, Vec<T>, Vec<usize>, Vec<T>)> {
    shapes2().prop_flat_map(move |(sa, sb)| {
        let n = |s: &[usize]| s.iter().product::<usize>();
        let (va, vb) = (values(n(&sa), v.clone()), values(n(&sb), v.clone()));
        (Just(sa), va, Just(sb), vb)
    })
}
