//! KISS FFT v130 as TensorFlow Lite Micro builds it for the signal library (`kiss_fft.c` and
//! `tools/kiss_fftr.c` with TFLM's patch: `FIXED_POINT` 16 or 32 for int16 and int32, float
//! otherwise), operation for operation: the twiddles from `cos`/`sin` in double rounded as its
//! macros round them, the radix-4, 2, 3 and 5 butterflies with the fixed-point build's
//! divisions by the radix (`C_FIXDIV`), and the real transforms on top. Every arithmetic step
//! has C's widths: int16 sums wrap to 16 bits when stored, products round in 32 bits, int32
//! products in 64; float steps run in single precision in C's order (TFLM's build contracts
//! nothing into FMAs).
//!
//! Complex arrays are interleaved scalars (`[re0, im0, re1, im1, ...]`), as the signal ops'
//! tensors hold them. TFLM's build allocates no scratch for the generic (radix > 5) butterfly,
//! so lengths with such a factor are refused at set-up ([`factor`] says which).

/// A complex number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Cpx<T> {
    pub r: T,
    pub i: T,
}

/// A scalar of one of TFLM's three builds, with KISS FFT's macros as methods.
pub(super) trait Scalar: Copy + Default + PartialEq + core::fmt::Debug {
    /// `a + b`, stored back in the scalar type.
    fn add(self, b: Self) -> Self;
    /// `a - b`, stored back.
    fn sub(self, b: Self) -> Self;
    /// `-a`, stored back.
    fn neg(self) -> Self;
    /// `a *= -1`.
    fn times_minus_one(self) -> Self;
    /// `S_MUL(a, b)`.
    fn s_mul(self, b: Self) -> Self;
    /// `DIVSCALAR(a, k)` (fixed point), nothing in float.
    fn fixdiv(self, k: i32) -> Self;
    /// `HALF_OF(a)`.
    fn half(self) -> Self;
    /// `HALF_OF(a + b)`: the sum in C's `int` (or float) before halving.
    fn half_of_sum(self, b: Self) -> Self;
    /// `HALF_OF(a - b)`.
    fn half_of_difference(self, b: Self) -> Self;
    /// `C_MUL(m, a, b)`.
    fn c_mul(a: Cpx<Self>, b: Cpx<Self>) -> Cpx<Self>;
    /// `KISS_FFT_COS(phase)` / `KISS_FFT_SIN` of a cos or sin already computed.
    fn from_trig(v: f64) -> Self;
}

/// `sround(x)` of the int16 build: round at bit 15, stored in int16.
#[inline(always)]
fn sround16(x: i32) -> i16 {
    (x.wrapping_add(1 << 14) >> 15) as i16
}

/// `sround(x)` of the int32 build.
#[inline(always)]
fn sround32(x: i64) -> i32 {
    (x.wrapping_add(1 << 30) >> 31) as i32
}

impl Scalar for i16 {
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.wrapping_sub(b)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self.wrapping_neg()
    }
    #[inline(always)]
    fn times_minus_one(self) -> Self {
        self.wrapping_neg()
    }
    #[inline(always)]
    fn s_mul(self, b: Self) -> Self {
        sround16(i32::from(self) * i32::from(b))
    }
    #[inline(always)]
    fn fixdiv(self, k: i32) -> Self {
        sround16(i32::from(self).wrapping_mul(32767 / k))
    }
    #[inline(always)]
    fn half(self) -> Self {
        self >> 1
    }
    #[inline(always)]
    fn half_of_sum(self, b: Self) -> Self {
        ((i32::from(self) + i32::from(b)) >> 1) as i16
    }
    #[inline(always)]
    fn half_of_difference(self, b: Self) -> Self {
        ((i32::from(self) - i32::from(b)) >> 1) as i16
    }
    #[inline(always)]
    fn c_mul(a: Cpx<Self>, b: Cpx<Self>) -> Cpx<Self> {
        let m = |x: i16, y: i16| i32::from(x) * i32::from(y);
        Cpx {
            r: sround16(m(a.r, b.r).wrapping_sub(m(a.i, b.i))),
            i: sround16(m(a.r, b.i).wrapping_add(m(a.i, b.r))),
        }
    }
    #[inline(always)]
    fn from_trig(v: f64) -> Self {
        libm::floor(0.5 + 32767.0 * v) as i16
    }
}

impl Scalar for i32 {
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.wrapping_sub(b)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self.wrapping_neg()
    }
    #[inline(always)]
    fn times_minus_one(self) -> Self {
        self.wrapping_neg()
    }
    #[inline(always)]
    fn s_mul(self, b: Self) -> Self {
        sround32(i64::from(self) * i64::from(b))
    }
    #[inline(always)]
    fn fixdiv(self, k: i32) -> Self {
        sround32(i64::from(self) * i64::from(2_147_483_647 / k))
    }
    #[inline(always)]
    fn half(self) -> Self {
        self >> 1
    }
    #[inline(always)]
    fn half_of_sum(self, b: Self) -> Self {
        // C's int is 32 bits here: the sum wraps before the shift.
        self.wrapping_add(b) >> 1
    }
    #[inline(always)]
    fn half_of_difference(self, b: Self) -> Self {
        self.wrapping_sub(b) >> 1
    }
    #[inline(always)]
    fn c_mul(a: Cpx<Self>, b: Cpx<Self>) -> Cpx<Self> {
        let m = |x: i32, y: i32| i64::from(x) * i64::from(y);
        Cpx {
            r: sround32(m(a.r, b.r).wrapping_sub(m(a.i, b.i))),
            i: sround32(m(a.r, b.i).wrapping_add(m(a.i, b.r))),
        }
    }
    #[inline(always)]
    fn from_trig(v: f64) -> Self {
        libm::floor(0.5 + 2_147_483_647.0 * v) as i32
    }
}

impl Scalar for f32 {
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self + b
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self - b
    }
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
    #[inline(always)]
    fn times_minus_one(self) -> Self {
        // `x *= -1` in C: compilers fold it into a negation (they may: only a NaN's sign
        // could tell), as LLVM does here.
        -self
    }
    #[inline(always)]
    fn s_mul(self, b: Self) -> Self {
        self * b
    }
    #[inline(always)]
    fn fixdiv(self, _: i32) -> Self {
        self
    }
    #[inline(always)]
    fn half(self) -> Self {
        // TFLM's patch: `(x) * (kiss_fft_scalar).5`, in float.
        self * 0.5
    }
    #[inline(always)]
    fn half_of_sum(self, b: Self) -> Self {
        (self + b) * 0.5
    }
    #[inline(always)]
    fn half_of_difference(self, b: Self) -> Self {
        (self - b) * 0.5
    }
    #[inline(always)]
    fn c_mul(a: Cpx<Self>, b: Cpx<Self>) -> Cpx<Self> {
        Cpx {
            r: a.r * b.r - a.i * b.i,
            i: a.r * b.i + a.i * b.r,
        }
    }
    #[inline(always)]
    fn from_trig(v: f64) -> Self {
        v as f32
    }
}

/// Element `k` of an interleaved complex array (callers index within bounds they checked).
#[inline(always)]
fn get<T: Copy>(a: &[T], k: usize) -> Cpx<T> {
    Cpx {
        r: a[2 * k],
        i: a[2 * k + 1],
    }
}

#[inline(always)]
fn set<T>(a: &mut [T], k: usize, v: Cpx<T>) {
    a[2 * k] = v.r;
    a[2 * k + 1] = v.i;
}

/// `C_FIXDIV(c, k)`.
#[inline(always)]
fn fixdiv<T: Scalar>(c: Cpx<T>, k: i32) -> Cpx<T> {
    Cpx {
        r: c.r.fixdiv(k),
        i: c.i.fixdiv(k),
    }
}

#[inline(always)]
fn c_add<T: Scalar>(a: Cpx<T>, b: Cpx<T>) -> Cpx<T> {
    Cpx {
        r: a.r.add(b.r),
        i: a.i.add(b.i),
    }
}

#[inline(always)]
fn c_sub<T: Scalar>(a: Cpx<T>, b: Cpx<T>) -> Cpx<T> {
    Cpx {
        r: a.r.sub(b.r),
        i: a.i.sub(b.i),
    }
}

/// Most radix stages: KISS FFT's `MAXFACTORS`.
pub(super) const MAX_FACTORS: usize = 32;

/// `kf_factor(n)`: the radices (4s first, then 2s, then odd primes), each with the length
/// below it; `None` if a radix is not 2, 3, 4 or 5 (TFLM's build would run its generic
/// butterfly on a null scratch buffer), or `n` is below 2.
pub(super) fn factor(n: usize) -> Option<([(u32, u32); MAX_FACTORS], usize)> {
    if n < 2 || n > i32::MAX as usize {
        return None;
    }
    let mut out = [(0u32, 0u32); MAX_FACTORS];
    let mut count = 0;
    let mut n = n;
    // floor(sqrt(n)) of the original n, as kf_factor computes it once.
    let floor_sqrt = {
        let mut r = libm::sqrt(n as f64) as usize;
        while r * r > n {
            r -= 1;
        }
        while (r + 1) * (r + 1) <= n {
            r += 1;
        }
        r
    };
    let mut p = 4usize;
    loop {
        while n % p != 0 {
            p = match p {
                4 => 2,
                2 => 3,
                _ => p + 2,
            };
            if p > floor_sqrt {
                p = n;
            }
        }
        n /= p;
        if !(2..=5).contains(&p) {
            return None;
        }
        *out.get_mut(count)? = (p as u32, n as u32);
        count += 1;
        if n <= 1 {
            break;
        }
    }
    Some((out, count))
}

/// A complex FFT's configuration over borrowed twiddles (`kiss_fft_state`).
pub(super) struct Plan<'a, T> {
    /// The length.
    pub nfft: usize,
    /// Inverse (positive exponent) or forward.
    pub inverse: bool,
    /// The radices and the lengths below them.
    pub factors: &'a [(u32, u32)],
    /// `nfft` twiddles, interleaved.
    pub twiddles: &'a [T],
}

/// Fills `twiddles` (`nfft` complex, interleaved) as `kiss_fft_alloc` does.
pub(super) fn twiddles<T: Scalar>(nfft: usize, inverse: bool, twiddles: &mut [T]) {
    for i in 0..nfft.min(twiddles.len() / 2) {
        let pi = core::f64::consts::PI;
        let mut phase = -2.0 * pi * i as f64 / nfft as f64;
        if inverse {
            phase *= -1.0;
        }
        set(
            twiddles,
            i,
            Cpx {
                r: T::from_trig(libm::cos(phase)),
                i: T::from_trig(libm::sin(phase)),
            },
        );
    }
}

/// Fills the real transform's `nfft / 2` super-twiddles (`nfft` the complex length: half the
/// real one) as `kiss_fftr_alloc` does.
pub(super) fn super_twiddles<T: Scalar>(nfft: usize, inverse: bool, out: &mut [T]) {
    for i in 0..(nfft / 2).min(out.len() / 2) {
        let pi = core::f64::consts::PI;
        let mut phase = -pi * ((i + 1) as f64 / nfft as f64 + 0.5);
        if inverse {
            phase *= -1.0;
        }
        set(
            out,
            i,
            Cpx {
                r: T::from_trig(libm::cos(phase)),
                i: T::from_trig(libm::sin(phase)),
            },
        );
    }
}

impl<T: Scalar> Plan<'_, T> {
    #[inline(always)]
    fn tw(&self, k: usize) -> Cpx<T> {
        get(self.twiddles, k)
    }

    /// `kiss_fft(cfg, fin, fout)`: `input` and `output` hold `nfft` complex each (checked by
    /// the callers, [`fftr`] and [`fftri`]).
    fn run(&self, input: &[T], output: &mut [T]) {
        self.work(output, 0, input, 0, 1, 0);
    }

    /// `kf_work`: the DFT of `input[offset + k·stride]` into `out[at..]`, by `factors[level..]`.
    fn work(
        &self,
        out: &mut [T],
        at: usize,
        input: &[T],
        offset: usize,
        stride: usize,
        level: usize,
    ) {
        let Some(&(p, m)) = self.factors.get(level) else {
            return;
        };
        let (p, m) = (p as usize, m as usize);
        if m == 1 {
            for j in 0..p {
                set(out, at + j, get(input, offset + j * stride));
            }
        } else {
            for k in 0..p {
                self.work(out, at + k * m, input, offset + k * stride, stride * p, level + 1);
            }
        }
        match p {
            2 => self.bfly2(out, at, stride, m),
            3 => self.bfly3(out, at, stride, m),
            4 => self.bfly4(out, at, stride, m),
            _ => self.bfly5(out, at, stride, m),
        }
    }

    fn bfly2(&self, out: &mut [T], at: usize, fstride: usize, m: usize) {
        for k in 0..m {
            let f = fixdiv(get(out, at + k), 2);
            let f2 = fixdiv(get(out, at + k + m), 2);
            let t = T::c_mul(f2, self.tw(k * fstride));
            set(out, at + k + m, c_sub(f, t));
            set(out, at + k, c_add(f, t));
        }
    }

    fn bfly4(&self, out: &mut [T], at: usize, fstride: usize, m: usize) {
        for k in 0..m {
            let i0 = at + k;
            let f0 = fixdiv(get(out, i0), 4);
            let f1 = fixdiv(get(out, i0 + m), 4);
            let f2 = fixdiv(get(out, i0 + 2 * m), 4);
            let f3 = fixdiv(get(out, i0 + 3 * m), 4);
            let s0 = T::c_mul(f1, self.tw(k * fstride));
            let s1 = T::c_mul(f2, self.tw(2 * k * fstride));
            let s2 = T::c_mul(f3, self.tw(3 * k * fstride));
            let s5 = c_sub(f0, s1);
            let f0 = c_add(f0, s1);
            let s3 = c_add(s0, s2);
            let s4 = c_sub(s0, s2);
            set(out, i0 + 2 * m, c_sub(f0, s3));
            set(out, i0, c_add(f0, s3));
            let (a, b) = if self.inverse {
                (
                    Cpx {
                        r: s5.r.sub(s4.i),
                        i: s5.i.add(s4.r),
                    },
                    Cpx {
                        r: s5.r.add(s4.i),
                        i: s5.i.sub(s4.r),
                    },
                )
            } else {
                (
                    Cpx {
                        r: s5.r.add(s4.i),
                        i: s5.i.sub(s4.r),
                    },
                    Cpx {
                        r: s5.r.sub(s4.i),
                        i: s5.i.add(s4.r),
                    },
                )
            };
            set(out, i0 + m, a);
            set(out, i0 + 3 * m, b);
        }
    }

    fn bfly3(&self, out: &mut [T], at: usize, fstride: usize, m: usize) {
        let epi3 = self.tw(fstride * m);
        for k in 0..m {
            let i0 = at + k;
            let f0 = fixdiv(get(out, i0), 3);
            let f1 = fixdiv(get(out, i0 + m), 3);
            let f2 = fixdiv(get(out, i0 + 2 * m), 3);
            let s1 = T::c_mul(f1, self.tw(k * fstride));
            let s2 = T::c_mul(f2, self.tw(2 * k * fstride));
            let s3 = c_add(s1, s2);
            let s0 = c_sub(s1, s2);
            let fm = Cpx {
                r: f0.r.sub(s3.r.half()),
                i: f0.i.sub(s3.i.half()),
            };
            // C_MULBYSCALAR(scratch[0], epi3.i)
            let s0 = Cpx {
                r: s0.r.s_mul(epi3.i),
                i: s0.i.s_mul(epi3.i),
            };
            set(out, i0, c_add(f0, s3));
            set(
                out,
                i0 + 2 * m,
                Cpx {
                    r: fm.r.add(s0.i),
                    i: fm.i.sub(s0.r),
                },
            );
            set(
                out,
                i0 + m,
                Cpx {
                    r: fm.r.sub(s0.i),
                    i: fm.i.add(s0.r),
                },
            );
        }
    }

    fn bfly5(&self, out: &mut [T], at: usize, fstride: usize, m: usize) {
        let ya = self.tw(fstride * m);
        let yb = self.tw(fstride * 2 * m);
        for u in 0..m {
            let i0 = at + u;
            let f0 = fixdiv(get(out, i0), 5);
            let f1 = fixdiv(get(out, i0 + m), 5);
            let f2 = fixdiv(get(out, i0 + 2 * m), 5);
            let f3 = fixdiv(get(out, i0 + 3 * m), 5);
            let f4 = fixdiv(get(out, i0 + 4 * m), 5);
            let s0 = f0;
            let s1 = T::c_mul(f1, self.tw(u * fstride));
            let s2 = T::c_mul(f2, self.tw(2 * u * fstride));
            let s3 = T::c_mul(f3, self.tw(3 * u * fstride));
            let s4 = T::c_mul(f4, self.tw(4 * u * fstride));
            let s7 = c_add(s1, s4);
            let s10 = c_sub(s1, s4);
            let s8 = c_add(s2, s3);
            let s9 = c_sub(s2, s3);
            // Fout0->r += scratch[7].r + scratch[8].r
            let out0 = Cpx {
                r: f0.r.add(s7.r.add(s8.r)),
                i: f0.i.add(s7.i.add(s8.i)),
            };
            let s5 = Cpx {
                r: s0.r.add(s7.r.s_mul(ya.r)).add(s8.r.s_mul(yb.r)),
                i: s0.i.add(s7.i.s_mul(ya.r)).add(s8.i.s_mul(yb.r)),
            };
            let s6 = Cpx {
                r: s10.i.s_mul(ya.i).add(s9.i.s_mul(yb.i)),
                i: s10.r.s_mul(ya.i).neg().sub(s9.r.s_mul(yb.i)),
            };
            let s11 = Cpx {
                r: s0.r.add(s7.r.s_mul(yb.r)).add(s8.r.s_mul(ya.r)),
                i: s0.i.add(s7.i.s_mul(yb.r)).add(s8.i.s_mul(ya.r)),
            };
            let s12 = Cpx {
                r: s10.i.s_mul(yb.i).neg().add(s9.i.s_mul(ya.i)),
                i: s10.r.s_mul(yb.i).sub(s9.r.s_mul(ya.i)),
            };
            set(out, i0, out0);
            set(out, i0 + m, c_sub(s5, s6));
            set(out, i0 + 4 * m, c_add(s5, s6));
            set(out, i0 + 2 * m, c_add(s11, s12));
            set(out, i0 + 3 * m, c_sub(s11, s12));
        }
    }
}

/// Whether the arrays are long enough for `plan`: `time` and `tmp` `2·nfft` scalars, `freq`
/// `nfft + 1` complex, the twiddles `nfft` and the super-twiddles `nfft / 2` complex (every
/// index the transforms compute is then within bounds: the radices multiply to `nfft`).
fn fits<T>(plan: &Plan<'_, T>, sup: &[T], time: &[T], freq: &[T], tmp: &[T]) -> bool {
    let n = plan.nfft;
    let product = plan
        .factors
        .iter()
        .try_fold(1usize, |a, &(p, _)| a.checked_mul(p as usize));
    product == Some(n)
        && plan.twiddles.len() >= 2 * n
        && sup.len() >= 2 * (n / 2)
        && time.len() >= 2 * n
        && tmp.len() >= 2 * n
        && freq.len() >= 2 * (n + 1)
}

/// `kiss_fftr`: the real FFT of `time` (`2·nfft` scalars, `plan` forward of length `nfft`)
/// into `freq` (`nfft + 1` complex), through `tmp` (`nfft` complex). False (nothing written)
/// if an array is too short.
pub(super) fn fftr<T: Scalar>(
    plan: &Plan<'_, T>,
    super_twiddles: &[T],
    time: &[T],
    freq: &mut [T],
    tmp: &mut [T],
) -> bool {
    if !fits(plan, super_twiddles, time, freq, tmp) {
        return false;
    }
    let ncfft = plan.nfft;
    plan.run(time, tmp);
    let tdc = fixdiv(get(tmp, 0), 2);
    set(
        freq,
        0,
        Cpx {
            r: tdc.r.add(tdc.i),
            i: T::default(),
        },
    );
    set(
        freq,
        ncfft,
        Cpx {
            r: tdc.r.sub(tdc.i),
            i: T::default(),
        },
    );
    for k in 1..=ncfft / 2 {
        let fpk = fixdiv(get(tmp, k), 2);
        let c = get(tmp, ncfft - k);
        let fpnk = fixdiv(Cpx { r: c.r, i: c.i.neg() }, 2);
        let f1k = c_add(fpk, fpnk);
        let f2k = c_sub(fpk, fpnk);
        let tw = T::c_mul(f2k, get(super_twiddles, k - 1));
        set(
            freq,
            k,
            Cpx {
                r: f1k.r.half_of_sum(tw.r),
                i: f1k.i.half_of_sum(tw.i),
            },
        );
        set(
            freq,
            ncfft - k,
            Cpx {
                r: f1k.r.half_of_difference(tw.r),
                i: tw.i.half_of_difference(f1k.i),
            },
        );
    }
    true
}

/// `kiss_fftri`: the real inverse FFT of `freq` (`nfft + 1` complex, `plan` inverse of
/// length `nfft`) into `time` (`2·nfft` scalars), through `tmp` (`nfft` complex). False
/// (nothing written) if an array is too short.
pub(super) fn fftri<T: Scalar>(
    plan: &Plan<'_, T>,
    super_twiddles: &[T],
    freq: &[T],
    time: &mut [T],
    tmp: &mut [T],
) -> bool {
    if !fits(plan, super_twiddles, time, freq, tmp) {
        return false;
    }
    let ncfft = plan.nfft;
    let f0 = get(freq, 0);
    let fn_ = get(freq, ncfft);
    // The sums are stored before C_FIXDIV.
    let t0 = Cpx {
        r: f0.r.add(fn_.r),
        i: f0.r.sub(fn_.r),
    };
    set(tmp, 0, fixdiv(t0, 2));
    for k in 1..=ncfft / 2 {
        let fk = fixdiv(get(freq, k), 2);
        let c = get(freq, ncfft - k);
        let fnkc = fixdiv(Cpx { r: c.r, i: c.i.neg() }, 2);
        let fek = c_add(fk, fnkc);
        let t = c_sub(fk, fnkc);
        let fok = T::c_mul(t, get(super_twiddles, k - 1));
        set(tmp, k, c_add(fek, fok));
        let mut low = c_sub(fek, fok);
        low.i = low.i.times_minus_one();
        set(tmp, ncfft - k, low);
    }
    plan.run(tmp, time);
    true
}
