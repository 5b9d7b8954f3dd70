#!/usr/bin/env bash
# Runs every test: native unit tests + all conformance vectors (Release and
# ASan/UBSan builds), the wasm build with the Node test suite, the browser
# tests, and a bounded fuzzing run. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

jobs=$(nproc 2>/dev/null || echo 2)

echo "== native build and tests"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"
ctest --test-dir build/native --output-on-failure -j"$jobs"
./build/native/etpack-conformance ../shared/conformance

echo "== ASan + UBSan build and tests"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DETPACK_SANITIZE=ON >/dev/null
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/asan --output-on-failure -j"$jobs"

if [ -f package.json ]; then
  echo "== wasm build and JavaScript tests"
  npm run build:wasm
  npm test
  echo "== browser tests (Debian chromium + playwright-core)"
  node --test tests/browser/
fi

if [ -x scripts/fuzz.sh ]; then
  echo "== fuzzing (bounded)"
  scripts/fuzz.sh "${ETPACK_FUZZ_SECONDS:-120}"
fi
