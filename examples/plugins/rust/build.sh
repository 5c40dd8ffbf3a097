#!/usr/bin/env bash
# Builds the Rust email_mask transform as a WebAssembly component: ./email_mask.wasm.
#
#   ./build.sh                       # target dir: ./target
#   CARGO_TARGET_DIR=/tmp/t ./build.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

target=wasm32-wasip2
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
fi

target_dir="${CARGO_TARGET_DIR:-$here/target}"
cargo build --release --locked --target "$target" --target-dir "$target_dir"
cp "$target_dir/$target/release/email_mask.wasm" "$here/email_mask.wasm"
echo "built $here/email_mask.wasm ($(wc -c <"$here/email_mask.wasm") bytes)"
