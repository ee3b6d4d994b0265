//! Float math the kernels share, as LiteRT's float kernels compute it: `exp`, the logistic
//! function and `tanh`, branch-free so loops over slices vectorize (as LiteRT's Eigen kernels,
//! themselves approximations, do), within 2e-6 relative of the true values; and the dot
//! product in eight lanes that the float convolutions and matrix products sum with.

/// `sum a b` in eight interleaved lanes, then the lanes pairwise: independent sums that
/// vectorize, where one running sum waits on each addition (4-8x slower on long rows). The
/// order differs from the reference kernels' column order by float rounding only, as
/// LiteRT's optimized kernels and XNNPACK reorder it.
#[inline(always)]
#[must_use]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, w) in ca.zip(cb) {
        for ((l, &x), &w) in lanes.iter_mut().zip(x).zip(w) {
            *l += x * w;
        }
    }
    for ((l, &x), &w) in lanes.iter_mut().zip(ra).zip(rb) {
        *l += x * w;
    }
    let [a0, a1, a2, a3, a4, a5, a6, a7] = lanes;
    ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))
}

/// [`dot`] of `a` with four rows at once, each result the same bits as `dot(a, row)`: `a`'s
/// values are loaded once for the four rows, and the four sets of lanes are independent sums
/// (the matrix products' register blocking). Rows are read up to `a`'s length.
#[inline(always)]
#[must_use]
pub(crate) fn dot4(a: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
    let m = rows.iter().fold(a.len(), |m, r| m.min(r.len()));
    let [r0, r1, r2, r3] = rows.map(|r| r.get(..m).unwrap_or_default());
    let a = a.get(..m).unwrap_or_default();
    let mut lanes = [[0.0f32; 8]; 4];
    let chunks = a
        .chunks_exact(8)
        .zip(r0.chunks_exact(8))
        .zip(r1.chunks_exact(8))
        .zip(r2.chunks_exact(8))
        .zip(r3.chunks_exact(8));
    for ((((x, w0), w1), w2), w3) in chunks {
        for (l, w) in lanes.iter_mut().zip([w0, w1, w2, w3]) {
            for ((l, &x), &w) in l.iter_mut().zip(x).zip(w) {
                *l += x * w;
            }
        }
    }
    let tail = m / 8 * 8;
    for (l, r) in lanes.iter_mut().zip([r0, r1, r2, r3]) {
        let (ra, rb) = (
            a.get(tail..).unwrap_or_default(),
            r.get(tail..).unwrap_or_default(),
        );
        for ((l, &x), &w) in l.iter_mut().zip(ra).zip(rb) {
            *l += x * w;
        }
    }
    lanes.map(|[a0, a1, a2, a3, a4, a5, a6, a7]| ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)))
}

/// `exp(x)` in f32, branch-free so that loops over slices vectorize (as LiteRT's Eigen
/// kernels do): Cephes' `expf` (range reduction by `ln 2` in two parts, a degree-5
/// polynomial), within 2 ulp of the true value over the normal range; `+inf` past
/// `ln(f32::MAX)`, subnormal results (rounded twice) down to 0 below -104, NaN for NaN.
#[inline(always)]
#[must_use]
pub(crate) fn exp(x: f32) -> f32 {
    const MAX_LOG: f32 = 88.722_84;
    // 1.5 * 2^23: adding and subtracting it rounds a float below 2^22 to an integer.
    const ROUND: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // clamp keeps NaN, which flows through as NaN. Below -104 the result rounds to 0.
    let c = x.clamp(-104.0, MAX_LOG);
    let t = c * core::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    // n as an integer straight from t's mantissa (no float-to-int conversion, which would
    // keep the loop from vectorizing): t = 1.5 * 2^23 + n.
    let k = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let r = c - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_2e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    // 2^n in two normal factors: n is in [-150, 128] after the clamp, past the exponent's
    // range at both ends (subnormal results, and x near MAX_LOG). For NaN, k is garbage
    // and y NaN.
    let half = k >> 1;
    let scale = |e: i32| f32::from_bits((e.wrapping_add(127) as u32) << 23);
    let v = y * scale(half) * scale(k.wrapping_sub(half));
    if x > MAX_LOG { f32::INFINITY } else { v }
}

const SIGN: u32 = 0x8000_0000;

/// `|x|` by clearing the sign bit: `f32::abs` and `copysign` reached `core` late, and this
/// crate builds without `std` on Rust 1.85.
#[inline(always)]
pub(crate) fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !SIGN)
}

/// The logistic function as TensorFlow Lite's reference kernel computes it: `1` above
/// 16.619047 (where `1 / (1 + exp(-x))` rounds to 1 anyway), `exp(x)` below -9 (where the
/// two agree within 1e-8), `1 / (1 + exp(-x))` between, with one [`exp`] of `-|x|` and
/// selects (no branches: the loop vectorizes).
#[inline(always)]
#[must_use]
pub(crate) fn logistic(x: f32) -> f32 {
    const UPPER: f32 = 16.619_047;
    const LOWER: f32 = -9.0;
    let e = exp(-abs(x));
    // x >= 0: 1 / (1 + exp(-x)); x < 0: exp(x) / (1 + exp(x)), the same value.
    let mid = if x >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    // NaN fails both tests and stays NaN through `mid`.
    if x > UPPER {
        1.0
    } else if x < LOWER {
        e
    } else {
        mid
    }
}

/// `tanh(x)` within 2e-6 relative (LiteRT's float TANH is Eigen's rational approximation,
/// itself a few ulp from the true value): an odd Taylor polynomial below 1/16, else
/// `sign(x) (1 - e) / (1 + e)` with `e = exp(-2|x|)`; branch-free.
#[inline(always)]
#[must_use]
pub(crate) fn tanh(x: f32) -> f32 {
    let a = abs(x);
    let e = exp(-2.0 * a);
    // sign(x) * (1 - e) / (1 + e): the quotient is >= 0 (or NaN), so or-ing in x's sign bit
    // is copysign.
    let big = f32::from_bits(((1.0 - e) / (1.0 + e)).to_bits() | (x.to_bits() & SIGN));
    let x2 = x * x;
    // As x * (1 + ...), so -0 stays -0.
    let small = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
    // NaN: `a < 1/16` is false and `big` is NaN.
    if a < 0.0625 { small } else { big }
}

#[cfg(test)]
mod tests;
