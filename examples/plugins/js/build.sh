#!/usr/bin/env bash
# Builds the JavaScript email_mask transform as a WebAssembly component: ./email_mask.wasm.
#
# Needs node >= 20 and npm. The tools and apache-arrow are pinned in package.json and
# package-lock.json; `npm ci` installs exactly those. @bytecodealliance/preview2-shim is pinned
# too although nothing here imports it: componentize-js 0.22.0 imports it without declaring it,
# and from 0.26 on the shim no longer opens "/" by default, so componentize-js could not read
# the WIT folder ("reading file .../wit: No such file or directory").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
root="$here/../../.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
fi

# componentize-js takes one ES module and resolves only relative imports: bundle apache-arrow
# (and its flatbuffers) in with esbuild. `neutral` picks apache-arrow's browser-free ESM build.
mkdir -p build
node_modules/.bin/esbuild email_mask.js --bundle --format=esm --platform=neutral \
    --main-fields=module,main --target=es2022 --log-level=warning --outfile=build/email_mask.bundle.js

# The component: StarlingMonkey (SpiderMonkey for WASI 0.2) with the bundle pre-initialised
# (Wizer), exporting ldp:plugin/transform. A transform has no network, so `fetch()` and incoming
# HTTP are left out: they would make the component import wasi:http (stdio, random and clocks
# stay: plain WASI 0.2).
node_modules/.bin/componentize-js build/email_mask.bundle.js \
    --wit "$root/wit" --world-name transform-plugin --disable http fetch-event -o email_mask.wasm
echo "built $here/email_mask.wasm ($(wc -c <email_mask.wasm) bytes)"
