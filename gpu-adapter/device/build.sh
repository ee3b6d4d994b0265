#!/usr/bin/env bash
# Builds everything tessera-gpu runs on a GPU machine (the GPU tests, the benches and the
# end-to-end examples, release, stripped) into DIR (default .gpu-bin), for a machine that has
# CUDA and Python but no Rust: copy DIR and this folder there and run `device/check.sh DIR`.
#
#   bash gpu-adapter/device/build.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.gpu-bin}
rm -rf "$dir" && mkdir -p "$dir"
# `cargo --message-format=json` names each executable; keep the crate's own targets.
# `--message-format=json` names each executable; keep the crate's own tests and benches.
artifacts() {
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    kind = m.get("target", {}).get("kind", [""])[0]
    if m.get("executable") and "gpu-adapter" in m["manifest_path"] and kind == sys.argv[1]:
        print(m["target"]["name"], m["executable"])
' "$1"
}
cargo test --release -p tessera-gpu --no-run --message-format=json 2>/dev/null | artifacts test |
  while read -r name exe; do cp "$exe" "$dir/test-$name"; done
cargo test --release -p tessera-gpu --no-run --message-format=json 2>/dev/null | artifacts lib |
  while read -r name exe; do cp "$exe" "$dir/test-$name"; done
cargo bench -p tessera-gpu --no-run --message-format=json 2>/dev/null | artifacts bench |
  while read -r name exe; do cp "$exe" "$dir/bench-$name"; done
for example in embedding_bag table_batched; do
  cargo build --release -p tessera-gpu --example "$example"
  cp "target/release/examples/$example" "$dir/example-$example"
done
cp gpu-adapter/benches/torch_embedding_bag.py gpu-adapter/benches/torch_table_batched.py "$dir/"
strip "$dir"/test-* "$dir"/bench-* "$dir"/example-*
ls -l "$dir"
