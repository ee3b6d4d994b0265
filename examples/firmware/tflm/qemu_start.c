/* Startup for running keyword_footprint.cc under qemu-system-arm
 * -machine mps2-an386 -cpu cortex-m4 (build.sh, QEMU=1); not part of any
 * measured program.  The vector table goes to address 0 (the linker is given
 * --section-start=.qemu_vectors=0): initial stack pointer at the top of the
 * board's 4 MiB SSRAM at 0, reset handler below.  The reset handler enables
 * the FPU (CP10/CP11 in CPACR; the code is built for -mfloat-abi=hard) and
 * jumps to newlib's crt0 _start (--specs=rdimon.specs: semihosting, which
 * sets up stack and heap, runs the constructors, main and exit). */
extern void _start(void);

__attribute__((naked, noreturn)) void qemu_reset(void) {
  __asm__ volatile(
      "ldr r0, =0xE000ED88\n" /* CPACR */
      "ldr r1, [r0]\n"
      "orr r1, r1, #(0xF << 20)\n"
      "str r1, [r0]\n"
      "dsb\n"
      "isb\n"
      "b _start\n");
}

__attribute__((section(".qemu_vectors"), used)) void (*const qemu_vectors[2])(void) = {
    (void (*)(void))0x00400000, qemu_reset};
