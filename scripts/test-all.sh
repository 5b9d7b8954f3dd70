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

# One clang build serves the sanitizers and the fuzzers: the layers are
# compiled once with ASan + UBSan and libFuzzer's coverage hooks (-O1: quick
# to compile, quick enough to fuzz), then the unit tests, the conformance
# runner and the fuzz targets link them. The unit tests run as gtest shards
# (a sanitized process takes ~0.45 s to start and end; 365 of them cost
# minutes).
echo "== ASan + UBSan build and tests (clang; the fuzz targets share it)"
CXX=clang++ cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
  -DETPACK_SANITIZE=ON -DETPACK_FUZZ=ON -DETPACK_TEST_SHARDS=6 >/dev/null
cmake --build build/sanitize -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/sanitize --output-on-failure -j"$jobs"

if [ -f package.json ]; then
  echo "== wasm build and JavaScript tests"
  npm run build:wasm
  # npm test, with one test file per core (node --test runs
  # availableParallelism() - 1 at a time: one on a 2-core machine).
  npm run pretest
  node --test --test-concurrency="$jobs" tests/js/
  echo "== browser tests (Debian chromium + playwright-core)"
  node --test tests/browser/
fi

if [ -x scripts/fuzz.sh ]; then
  echo "== fuzzing (bounded)"
  ETPACK_FUZZ_BUILD=build/sanitize scripts/fuzz.sh "${ETPACK_FUZZ_SECONDS:-120}"
fi
