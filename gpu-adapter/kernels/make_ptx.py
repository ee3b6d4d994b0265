"""Writes kernels/embedding_bag.ptx: embedding_bag.cu compiled by NVRTC with the options
src/kernel/compile.rs gives it, for machines with a CUDA driver but no NVRTC (the crate
loads this PTX when it cannot open NVRTC). Its first line records the source's FNV-1a hash,
which a test compares with the source's, so a stale PTX fails CI.

NVRTC 12.0 makes PTX ISA 8.0 for compute_52, which every driver since CUDA 12.0 (525)
compiles for its GPU. The command that made the committed file:

    python3 -m pip download --no-deps -d /tmp/nvrtc12 "nvidia-cuda-nvrtc-cu12==12.0.140"
    (cd /tmp/nvrtc12 && unzip -o -q nvidia_cuda_nvrtc_cu12-*.whl)
    python3 gpu-adapter/kernels/make_ptx.py /tmp/nvrtc12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
"""

import ctypes
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
# As src/kernel/compile.rs's `options()` (cudarc passes them in this order).
OPTIONS = [b"--ftz=false", b"--prec-sqrt=true", b"--prec-div=true", b"--fmad=false"]


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nvrtc = ctypes.CDLL(sys.argv[1])
    source = (HERE / "embedding_bag.cu").read_bytes()
    prog = ctypes.c_void_p()
    check = lambda status, what: status == 0 or sys.exit(f"{what} failed: {status}")
    check(
        nvrtc.nvrtcCreateProgram(
            ctypes.byref(prog), source, b"embedding_bag.cu", 0, None, None
        ),
        "nvrtcCreateProgram",
    )
    options = (ctypes.c_char_p * len(OPTIONS))(*OPTIONS)
    status = nvrtc.nvrtcCompileProgram(prog, len(OPTIONS), options)
    if status != 0:
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        sys.exit(f"compile failed:\n{log.value.decode()}")
    size = ctypes.c_size_t()
    check(nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
    ptx = ctypes.create_string_buffer(size.value)
    check(nvrtc.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    major, minor = ctypes.c_int(), ctypes.c_int()
    nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    header = (
        f"// embedding_bag.cu fnv1a64 {fnv1a64(source):016x}, "
        f"NVRTC {major.value}.{minor.value}, made by kernels/make_ptx.py\n"
    )
    (HERE / "embedding_bag.ptx").write_text(header + ptx.value.decode())
    print(f"wrote embedding_bag.ptx ({size.value} bytes of PTX, NVRTC {major.value}.{minor.value})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
