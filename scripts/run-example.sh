#!/usr/bin/env bash
# The README's main job: install what a fresh machine lacks, build the wasm
# package if npm/dist is missing or older than the sources, then run the
# bundled example, which writes out/model.pte + out/model.ptd and validates them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

if ! node scripts/check-dist.mjs >/dev/null 2>&1; then
  echo "== building the wasm package (npm/dist is missing or stale)"
  npm run build:wasm
  node scripts/check-dist.mjs
fi

echo "== examples/build-model.mjs"
node examples/build-model.mjs "${1:-out}"
