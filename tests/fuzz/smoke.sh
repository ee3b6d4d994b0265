#!/usr/bin/env bash
# Fuzz targets cannot rot: builds every target under tests/fuzz and runs each for a short
# smoke time from a scratch copy of its committed seeds. Exits non-zero if a build fails or
# a target finds a crash (the input is kept and its path printed).
#
#   tests/fuzz/smoke.sh            # 10 s per target
#   FUZZ_SMOKE_SECONDS=60 tests/fuzz/smoke.sh
#
# Installs what it needs: a nightly toolchain (minimal profile) and cargo-fuzz.
set -euo pipefail

cd "$(dirname "$0")"
seconds="${FUZZ_SMOKE_SECONDS:-10}"

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi

cargo +nightly fuzz build

failed=()
for target in $(cargo +nightly fuzz list); do
    # libFuzzer adds what it finds to its corpus directory: a scratch copy keeps the
    # repository's corpus to the committed seeds, and the artifacts beside it.
    work="$(mktemp -d)"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp -R "corpus/$target/." "$work/corpus/" 2>/dev/null || true
    echo "== $target: ${seconds}s from $(ls "$work/corpus" | wc -l) seed(s)"
    if cargo +nightly fuzz run "$target" "$work/corpus" -- \
        -max_total_time="$seconds" -artifact_prefix="$work/artifacts/"; then
        rm -rf "$work"
    else
        echo "!! $target failed; inputs kept in $work/artifacts" >&2
        failed+=("$target")
    fi
done

if ((${#failed[@]})); then
    echo "fuzz smoke failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz smoke: every target built and ran ${seconds}s without a crash"
