#!/usr/bin/env bash
# Builds the Python email_mask transform as a WebAssembly component: ./email_mask.wasm.
#
# Needs python3 (>= 3.11) with venv; installs componentize-py (pinned) into ./.venv.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
root="$here/../../.."
componentize_py_version=0.25.1

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
if ! .venv/bin/componentize-py --version 2>/dev/null | grep -q " $componentize_py_version\$"; then
    .venv/bin/pip install --quiet "componentize-py==$componentize_py_version"
fi
cpy=(.venv/bin/componentize-py -d "$root/wit" -w transform-plugin)

# The bindings (wit_world, componentize_py_types) for editors and type checkers; `componentize`
# generates its own copy inside the component.
rm -rf bindings
"${cpy[@]}" --quiet bindings bindings

# The component: CPython, its standard library and the Python files of the folders given with
# -p, initialised at build time (imports done) and snapshotted. componentize-py packs the files
# of those folders, so they are staged in build/app with only what the plugin needs: no tests,
# caches or bindings end up in the component. (It is still not reproducible byte for byte; pin
# the sha256 of the file you ship.) VIRTUAL_ENV is unset so that an activated venv is not packed.
rm -rf build && mkdir -p build/app/ldp_arrow
cp app.py email_mask.py build/app/
cp "$root"/sdk/python/ldp_arrow/*.py build/app/ldp_arrow/
env -u VIRTUAL_ENV "${cpy[@]}" componentize app -p build/app -o email_mask.wasm
echo "built $here/email_mask.wasm ($(wc -c <email_mask.wasm) bytes)"
