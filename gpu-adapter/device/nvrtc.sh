# Sourced by check.sh and tbe.sh: puts NVRTC on the loader's path. cudarc opens `libnvrtc.so`
# or `libnvrtc.so.12`; CUDA 13 installs `libnvrtc.so.13`, with the unversioned name only in
# the toolkit's lib64 (not always on the loader's path). Link it.
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null | grep -v -e builtins -e alt | head -1)
if [ -z "$nvrtc" ]; then
  nvrtc=$(find / -xdev -name 'libnvrtc.so*' 2>/dev/null | grep -v -e builtins -e alt | head -1)
fi
[ -n "$nvrtc" ] && nvrtc=$(readlink -f "$nvrtc")
echo "NVRTC: ${nvrtc:-none found}"
if [ -n "$nvrtc" ]; then
  mkdir -p /tmp/nvrtc-link
  ln -sf "$nvrtc" /tmp/nvrtc-link/libnvrtc.so
  export LD_LIBRARY_PATH=/tmp/nvrtc-link:$(dirname "$nvrtc"):${LD_LIBRARY_PATH:-}
fi
