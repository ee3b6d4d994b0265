//! The DSP-extension instructions the bodies use, one `asm!` each on `thumbv7em`
//! (`core::arch::arm`'s intrinsics are nightly-only), and their exact portable meaning
//! elsewhere, which the host's tests run.
//!
//! Lanes: a word holds two 16-bit halves, "bottom" (bits 0..16) and "top" (bits 16..32).

/// Both halves of `a + b` (SADD16): each 16-bit sum wraps.
#[inline(always)]
pub(super) fn sadd16(a: u32, b: u32) -> u32 {
    #[cfg(tessera_arm_dsp)]
    {
        let r: u32;
        // SAFETY: one register-only instruction of the DSP extension, which `thumbv7em` has
        // (build.rs sets `tessera_arm_dsp` for it alone); it reads and writes no memory.
        unsafe {
            core::arch::asm!("sadd16 {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a,
                b = in(reg) b, options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(tessera_arm_dsp))]
    {
        let lo = (a as u16).wrapping_add(b as u16);
        let hi = ((a >> 16) as u16).wrapping_add((b >> 16) as u16);
        u32::from(lo) | u32::from(hi) << 16
    }
}

/// Bytes 0 and 2 of `x`, sign-extended into the bottom and top halves (SXTB16).
#[inline(always)]
pub(super) fn sxtb16(x: u32) -> u32 {
    #[cfg(tessera_arm_dsp)]
    {
        let r: u32;
        // SAFETY: as in `sadd16`.
        unsafe {
            core::arch::asm!("sxtb16 {r}, {x}", r = lateout(reg) r, x = in(reg) x,
                options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(tessera_arm_dsp))]
    {
        let lo = x as u8 as i8 as i16 as u16;
        let hi = (x >> 16) as u8 as i8 as i16 as u16;
        u32::from(lo) | u32::from(hi) << 16
    }
}

/// Bytes 1 and 3 of `x`, sign-extended into the bottom and top halves (SXTB16, ROR #8).
#[inline(always)]
pub(super) fn sxtb16_ror8(x: u32) -> u32 {
    #[cfg(tessera_arm_dsp)]
    {
        let r: u32;
        // SAFETY: as in `sadd16`.
        unsafe {
            core::arch::asm!("sxtb16 {r}, {x}, ror #8", r = lateout(reg) r, x = in(reg) x,
                options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(tessera_arm_dsp))]
    {
        sxtb16(x.rotate_right(8))
    }
}

/// The halves of `a` and `b` as signed 16-bit values.
#[cfg(not(tessera_arm_dsp))]
#[inline(always)]
fn halves(a: u32) -> (i32, i32) {
    (i32::from(a as i16), i32::from((a >> 16) as i16))
}

/// `acc + a.bottom b.bottom + a.top b.top` (SMLAD), wrapping.
#[inline(always)]
pub(super) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    #[cfg(tessera_arm_dsp)]
    {
        let r: i32;
        // SAFETY: as in `sadd16` (SMLAD sets the Q flag on overflow, which nothing reads).
        unsafe {
            core::arch::asm!("smlad {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a,
                b = in(reg) b, acc = in(reg) acc, options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(tessera_arm_dsp))]
    {
        let ((a0, a1), (b0, b1)) = (halves(a), halves(b));
        acc.wrapping_add(a0 * b0).wrapping_add(a1 * b1)
    }
}

/// `acc + a.bottom b.bottom` (SMLABB), wrapping.
#[inline(always)]
pub(super) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    #[cfg(tessera_arm_dsp)]
    {
        let r: i32;
        // SAFETY: as in `smlad`.
        unsafe {
            core::arch::asm!("smlabb {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a,
                b = in(reg) b, acc = in(reg) acc, options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(tessera_arm_dsp))]
    {
        acc.wrapping_add(halves(a).0 * halves(b).0)
    }
}

/// `acc + a.top b.top` (SMLATT), wrapping.
#[inline(always)]
pub(super) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    #[cfg(tessera_arm_dsp)]
    {
        let r: i32;
        // SAFETY: as in `smlad`.
        unsafe {
            core::arch::asm!("smlatt {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a,
                b = in(reg) b, acc = in(reg) acc, options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(tessera_arm_dsp))]
    {
        acc.wrapping_add(halves(a).1 * halves(b).1)
    }
}
