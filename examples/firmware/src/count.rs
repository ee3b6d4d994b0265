//! Instructions per invoke under QEMU (`count.sh`): the `count` feature reads the board's
//! CMSDK APB timer 0 around a call. Run with `-icount shift=0`, QEMU's virtual clock advances
//! one nanosecond per guest instruction, and the timer counts down at the board's 25 MHz
//! peripheral clock, so one tick is 40 instructions. The Cortex-M4 of `mps2-an386` has no DWT
//! cycle counter in QEMU (it reads 0), hence the timer.

use core::ptr::{read_volatile, write_volatile};

/// CMSDK APB timer 0 of `mps2-an386` (QEMU's `hw/arm/mps2.c`): control, current value and
/// reload registers.
const CTRL: *mut u32 = 0x4000_0000 as *mut u32;
const VALUE: *mut u32 = 0x4000_0004 as *mut u32;
const RELOAD: *mut u32 = 0x4000_0008 as *mut u32;

/// Guest instructions per timer tick with `-icount shift=0`: 1 ns each, 40 ns per tick at
/// 25 MHz.
pub const INSTRUCTIONS_PER_TICK: u32 = 40;

/// Restarts the timer from `u32::MAX` (enabled, no interrupt) and reads it: 2^32 ticks, 171 s
/// of virtual time, before it wraps.
fn restart() -> u32 {
    // SAFETY: the timer's registers are device memory at these addresses on mps2-an386, the
    // only board this firmware runs on, and nothing else in the firmware uses timer 0.
    unsafe { write_volatile(CTRL, 0) };
    // SAFETY: as above.
    unsafe { write_volatile(RELOAD, u32::MAX) };
    // SAFETY: as above.
    unsafe { write_volatile(VALUE, u32::MAX) };
    // SAFETY: as above; bit 0 enables the count.
    unsafe { write_volatile(CTRL, 1) };
    now()
}

/// The timer's current value (it counts down).
fn now() -> u32 {
    // SAFETY: as in `restart`.
    unsafe { read_volatile(VALUE) }
}

/// Runs `f`, and the timer ticks it took (to the tick: 40 instructions).
#[inline(never)]
pub fn ticks<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let start = restart();
    let r = f();
    let end = now();
    (r, start.wrapping_sub(end))
}

/// Prints the instructions `ticks` stand for, less what reading the timer around an empty
/// call takes.
pub fn report(ticks: u32) {
    let ((), empty) = self::ticks(|| ());
    say!(
        "count: {} instructions per invoke (timer ticks {} x {}, less {} for the timer reads; valid only under -icount shift=0)",
        ticks.saturating_sub(empty) * INSTRUCTIONS_PER_TICK,
        ticks,
        INSTRUCTIONS_PER_TICK,
        empty * INSTRUCTIONS_PER_TICK
    );
}
