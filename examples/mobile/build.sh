#!/usr/bin/env bash
# Builds the C library (tessera-capi) as a static library for Android and iOS and checks that
# every tessera_* function tessera.h declares is a defined, exported symbol of each library.
#
#   examples/mobile/build.sh [--release] [TARGET...]
#
# Default targets: aarch64-linux-android armv7-linux-androideabi x86_64-linux-android
# aarch64-apple-ios aarch64-apple-ios-sim. A static library is an archive of objects, so no
# NDK or Xcode linker is needed; `cargo rustc --crate-type staticlib` builds only that (the
# crate's cdylib would need the platform's linker). Without --release the libraries are built
# with the dev profile: the same code and symbols, several times faster, which is what CI
# needs; --release builds what an app ships and prints its size. Libraries land in
# target/<target>/<profile>/libtessera.a (one target dir: the host's build scripts and
# proc-macros are built once for all targets). The rustup targets and llvm-nm (rustup's
# llvm-tools, which reads ELF and Mach-O alike) are installed when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p target

profile=dev
dir=debug
targets=()
for a in "$@"; do
  case "$a" in
    --release) profile=release dir=release ;;
    -h | --help) sed -n 2,15p "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $a" >&2; exit 2 ;;
    *) targets+=("$a") ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  targets=(aarch64-linux-android armv7-linux-androideabi x86_64-linux-android
           aarch64-apple-ios aarch64-apple-ios-sim)
fi

# Targets whose standard library rustup cannot download (a mirror without it) are built with
# nightly's -Zbuild-std from rust-src instead: slower, the same library.
from_source=()
for t in "${targets[@]}"; do
  rustup target list --installed | grep -qx "$t" && continue
  if ! rustup target add "$t" 2>"target/mobile-rustup-$t.log"; then
    echo "build.sh: rustup could not install $t's standard library; building it from source" \
      "with nightly -Zbuild-std" >&2
    rustup component add rust-src --toolchain nightly
    from_source+=("$t")
  fi
done
host=$(rustc -vV | sed -n 's/^host: //p')
nm="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-nm"
if [ ! -x "$nm" ]; then
  rustup component add llvm-tools
fi

# Every function the header declares: `tessera_name(` at the start of a declaration.
header=lite-runtime/capi/include/tessera.h
mapfile -t wanted < <(grep -oE '\btessera_[a-z0-9_]+\(' "$header" | tr -d '(' | sort -u)
if [ ${#wanted[@]} -lt 10 ]; then
  echo "build.sh: found only ${#wanted[@]} functions in $header" >&2
  exit 1
fi

status=0
for t in "${targets[@]}"; do
  start=$SECONDS
  # --print native-static-libs: the system libraries an app must link with this library.
  cargo=(cargo rustc)
  if printf '%s\n' "${from_source[@]:-}" | grep -qx "$t"; then
    cargo=(cargo +nightly rustc -Zbuild-std=std,panic_abort)
  fi
  "${cargo[@]}" --quiet -p tessera-capi --lib --profile "$profile" --target "$t" \
    --crate-type staticlib -- --print native-static-libs 2>"target/mobile-$t.log" || {
    cat "target/mobile-$t.log" >&2
    exit 1
  }
  lib="target/$t/$dir/libtessera.a"
  libs=$(sed -n 's/.*native-static-libs: //p' "target/mobile-$t.log" | tail -1)
  # Defined (not U), external symbols; Mach-O prefixes C names with an underscore. llvm-nm
  # prints the archive's members even where it cannot read one (2>/dev/null).
  defined=$("$nm" --defined-only --extern-only --format=posix "$lib" 2>/dev/null |
    awk '{print $1}' | sed 's/^_tessera_/tessera_/' | grep '^tessera_' | sort -u || true)
  absent=$(comm -23 <(printf '%s\n' "${wanted[@]}") <(printf '%s\n' "$defined"))
  size=$(stat -c %s "$lib" 2>/dev/null || stat -f %z "$lib")
  if [ -n "$absent" ]; then
    echo "$t: $lib lacks: $absent" >&2
    status=1
  else
    printf '%-26s %s: %3d/%d functions exported, %6.1f MB, %3ds; link with: %s\n' "$t" \
      "$profile" ${#wanted[@]} ${#wanted[@]} "$(awk "BEGIN{print $size / 1e6}")" \
      $((SECONDS - start)) "${libs:-(nothing)}"
  fi
done
exit $status
