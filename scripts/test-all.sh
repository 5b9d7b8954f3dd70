#!/usr/bin/env bash
# Runs every test: native unit tests + all conformance vectors (one clang
# ASan/UBSan build), the wasm build with the Node test suite, the browser
# tests, and a bounded fuzzing run. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

jobs=$(nproc 2>/dev/null || echo 2)

# Native code is built once, with clang: the layers with ASan + UBSan and
# libFuzzer's coverage hooks (-O1: quick to compile, quick enough to fuzz),
# linked by the unit tests, the conformance runner and the fuzz targets.
# The unit tests run as gtest shards (a sanitized process takes ~0.45 s to
# start and end; 365 of them cost minutes). No separate optimized native
# build: the shipped code is the -O3 wasm, which runs every conformance
# vector again through the JS API (tests/js/conformance.test.mjs), and a
# third compile of the library cost CI minutes (`npm run build:native`
# makes one for local use).
echo "== native build (clang, ASan + UBSan) and tests: unit tests, conformance vectors, layers"
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
