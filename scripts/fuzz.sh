#!/usr/bin/env bash
# Builds the libFuzzer target (clang, ASan + UBSan) and runs it for a bounded
# time over a seed corpus made of ../shared/conformance outputs, the real
# artifacts in ../shared/artifacts, and tests/fuzz/regressions.
#   scripts/fuzz.sh [SECONDS=120]
# Exit status: 0 when the run ends without a finding, 1 when the fuzzer found
# a crash/leak/timeout (the input is saved under build/fuzz/crashes/), 2 on
# setup problems. New interesting inputs accumulate in build/fuzz/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
shared="${ETPACK_SHARED_DIR:-../shared}"
build=build/fuzz
target="$build/etpack_fuzz_artifacts"
separator=$'\n--etpack-ptd--\n'  # keep in sync with tests/fuzz/exercise.h

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found" >&2; exit 2; }
mkdir -p "$build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CXX=clang++ cmake -S . -B "$build" -DETPACK_FUZZ=ON -DETPACK_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 2; }
fi
cmake --build "$build" --target etpack_fuzz_artifacts -j"$(nproc 2>/dev/null || echo 2)" >"$build/build.log" 2>&1 ||
  { tail -50 "$build/build.log" >&2; exit 2; }

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$build/corpus" "$build/crashes"
n=0
add_seed() { n=$((n + 1)); cat "$@" >"$seeds/seed_$n"; }
for f in "$shared"/artifacts/*.pte "$shared"/conformance/*/*.pte "$shared"/conformance/*/*.ptd tests/fuzz/regressions/*; do
  [ -f "$f" ] && add_seed "$f"
done
# Each .pte next to its .ptd files, joined by the separator.
printf '%s' "$separator" >"$build/separator.bin"
for pte in "$shared"/conformance/*/out.pte; do
  for ptd in "$(dirname "$pte")"/*.ptd; do
    [ -f "$ptd" ] && add_seed "$pte" "$build/separator.bin" "$ptd"
  done
done
echo "fuzz.sh: $n seeds, running ${seconds}s"

log="$build/last_run.log"
status=0
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -dict=tests/fuzz/etpack.dict -artifact_prefix="$build/crashes/" \
  "$build/corpus" "$seeds" >"$log" 2>&1 || status=$?
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+ *DONE' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "fuzz.sh: FINDING (exit $status); see $log and $build/crashes/" >&2
  grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -20 >&2 || true
  exit 1
fi
echo "fuzz.sh: no finding"
