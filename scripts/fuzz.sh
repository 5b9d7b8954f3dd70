#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs them, one after
# another, within a total time budget: one target per operation family over
# .pte/.ptd inputs — etpack_fuzz_read (read and validate) for 2/13 of it,
# etpack_fuzz_inspect (inspect and graph) and etpack_fuzz_repack (write and
# repack) for 1/13 each — over a seed corpus made of ../shared/conformance
# outputs, the real artifacts in ../shared/artifacts, and
# tests/fuzz/regressions; then
# etpack_fuzz_safetensors and etpack_fuzz_weights for 2/13 each, over small
# safetensors files written here (valid, sharing bytes, empty, hostile);
# etpack_fuzz_etdump (.etdp and the profile join) for 2/13 over the
# recordings in ../shared/etdump; etpack_fuzz_bundled (.bpte) for 2/13
# over ../shared/conformance-bpte's files; and etpack_fuzz_delegate (the
# delegate payload decoders) for 1/13 over ../shared/delegates' blobs, each
# behind a byte naming its backend. Seeds and inputs are at most
# 4,096 bytes (max_len): larger seeds are left out (they made every run slow,
# issue 42); the unit tests replay the larger regressions.
#   scripts/fuzz.sh [SECONDS=120]
# Exit status: 0 when every run ends without a finding, 1 when a fuzzer found
# a crash/leak/timeout (the input is saved under build/fuzz/crashes/<target>/),
# 2 on setup problems. New interesting inputs accumulate in
# build/fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
shared="${ETPACK_SHARED_DIR:-../shared}"
# ETPACK_FUZZ_BUILD: a build directory already configured with
# -DETPACK_FUZZ=ON (scripts/test-all.sh passes its sanitizer build, so CI
# compiles the library once for the unit tests and the fuzzers).
build="${ETPACK_FUZZ_BUILD:-build/fuzz}"
max_len=4096
separator=$'\n--etpack-ptd--\n'  # keep in sync with tests/fuzz/exercise.h

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found" >&2; exit 2; }
mkdir -p "$build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CXX=clang++ cmake -S . -B "$build" -DETPACK_FUZZ=ON -DETPACK_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 2; }
fi
cmake --build "$build" --target etpack_fuzz_read etpack_fuzz_inspect etpack_fuzz_repack etpack_fuzz_safetensors etpack_fuzz_weights etpack_fuzz_etdump etpack_fuzz_bundled etpack_fuzz_delegate -j"$(nproc 2>/dev/null || echo 2)" >"$build/build.log" 2>&1 ||
  { tail -50 "$build/build.log" >&2; exit 2; }

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/artifacts" "$seeds/safetensors" "$seeds/etdump" "$seeds/bundled" "$seeds/delegate"
cp "$shared"/etdump/*/*.etdp "$seeds/etdump/" 2>/dev/null || true
n=0
add_seed() { n=$((n + 1)); cat "$@" >"$seeds/artifacts/seed_$n"; }
for f in "$shared"/artifacts/*.pte "$shared"/conformance/*/*.pte "$shared"/conformance/*/*.ptd tests/fuzz/regressions/*; do
  [ -f "$f" ] && add_seed "$f"
done
for f in "$shared"/conformance-bpte/*/*.bpte; do
  [ -f "$f" ] && cp "$f" "$seeds/bundled/$(basename "$(dirname "$f")")_$(basename "$f")"
done
# Each payload behind its backend's byte (fuzz_delegate.cpp's kBackends).
backend_byte() { case "$1" in xnnpack) echo 1;; vulkan) echo 2;; mps) echo 3;; mlx) echo 4;; native) echo 5;;
  coreml) echo 6;; qnn) echo 7;; ethosu) echo 8;; *) echo 0;; esac; }
for blob in "$shared"/delegates/*/*/blob.bin; do
  [ -f "$blob" ] || continue
  kind=$(basename "$(dirname "$(dirname "$blob")")")
  { printf "$(printf '\\%03o' "$(backend_byte "$kind")")"; cat "$blob"; } >"$seeds/delegate/${kind}_$(basename "$(dirname "$blob")")"
done
# Each .pte next to its .ptd files, joined by the separator.
printf '%s' "$separator" >"$build/separator.bin"
for pte in "$shared"/conformance/*/out.pte; do
  for ptd in "$(dirname "$pte")"/*.ptd; do
    [ -f "$ptd" ] && add_seed "$pte" "$build/separator.bin" "$ptd"
  done
done

# Seeds above max_len are left out (libFuzzer would cut them, and a long
# seed makes every input of its target long).
find "$seeds" -type f -size +"$max_len"c -delete

# A safetensors file: 8-byte little-endian header length, the JSON header, data.
safetensors_seed() {  # NAME HEADER DATA(printf format)
  local len=${#2}
  printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x\\x00\\x00\\x00\\x00' $((len & 255)) $(((len >> 8) & 255)) \
    $(((len >> 16) & 255)) $(((len >> 24) & 255)))" >"$seeds/safetensors/$1"
  printf '%s' "$2" >>"$seeds/safetensors/$1"
  printf "$3" >>"$seeds/safetensors/$1"
}
safetensors_seed two '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[1,3],"data_offsets":[8,11]}}' '\x00\x00\x80\x3f\x00\x00\x00\x40\x01\x02\x03'
safetensors_seed meta '{"__metadata__":{"format":"pt"},"layers.0.w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}}    ' '\x01\x02\x03\x04\x05\x06\x07\x08'
safetensors_seed empty '{}' ''
safetensors_seed scalar '{"s":{"dtype":"I64","shape":[],"data_offsets":[0,8]},"z":{"dtype":"F16","shape":[0],"data_offsets":[8,8]}}' '\xff\xff\xff\xff\xff\xff\xff\x7f'
safetensors_seed escapes '{"\ud800x":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]},"__proto__":{"dtype":"I8","shape":[1],"data_offsets":[1,2]}}' '\x01\x02'
safetensors_seed duplicate '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}' '\x00\x00\x00\x00'
safetensors_seed gap '{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}' '\x00\x00\x00\x00\x00\x00\x00\x00'

# The budget in thirteenths (at least 1 s each): see the top of this file.
share() { local s=$((seconds * $1 / 13)); [ "$s" -ge 1 ] && echo "$s" || echo 1; }
echo "fuzz.sh: $(ls "$seeds/artifacts" | wc -l) artifact seeds, $(ls "$seeds/safetensors" | wc -l) safetensors seeds (at most $max_len bytes each), ${seconds}s in all"

# What each input costs beyond the harness (issue 42: every target at
# 1,000 execs/s or more). ASan: a 16 MB quarantine instead of 256 MB (freed
# memory is reused sooner, so far fewer fresh pages; a use after free is
# still caught while the block is among the last 16 MB freed, thousands of
# inputs' worth) and no allocation/free stack per malloc (an ASan report
# then lacks those stacks: replay the saved input with ASAN_OPTIONS unset
# for them). A caller's ASAN_OPTIONS come after these and win. libFuzzer:
# the entropic schedule keeps its rarest features but drops a feature from
# them once it has been seen 8 times rather than 255, which cut its
# bookkeeping (a quarter to half of the time of the .pte targets) to little.
export ASAN_OPTIONS="quarantine_size_mb=16:malloc_context_size=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
entropic_threshold=8

status=0
total=0  # inputs run by all targets
run_target() {  # TARGET SECONDS DICT SEED_DIR...
  local target=$1 secs=$2 dict=$3
  shift 3
  local log="$build/last_run_$target.log" rc=0
  mkdir -p "$build/corpus/$target" "$build/crashes/$target"
  "$build/etpack_fuzz_$target" -max_total_time="$secs" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -entropic_feature_frequency_threshold="$entropic_threshold" \
    ${dict:+-dict=$dict} -artifact_prefix="$build/crashes/$target/" \
    "$build/corpus/$target" "$@" >"$log" 2>&1 || rc=$?
  echo "fuzz.sh: $target ${secs}s (load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|^#[0-9]+ *DONE' "$log" || true
  total=$((total + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 | grep -E '^[0-9]+$' || echo 0)))
  if [ "$rc" -ne 0 ]; then
    echo "fuzz.sh: FINDING in $target (exit $rc); see $log and $build/crashes/$target/" >&2
    grep -E 'ERROR|SUMMARY|runtime error|broken promise' "$log" | head -20 >&2 || true
    echo "fuzz.sh: replay with allocation stacks: ASAN_OPTIONS= $build/etpack_fuzz_$target $build/crashes/$target/<file>" >&2
    status=1
  fi
}
run_target read "$(share 2)" tests/fuzz/etpack.dict "$seeds/artifacts"
run_target inspect "$(share 1)" tests/fuzz/etpack.dict "$seeds/artifacts"
run_target repack "$(share 1)" tests/fuzz/etpack.dict "$seeds/artifacts"
run_target safetensors "$(share 2)" "" "$seeds/safetensors"
run_target weights "$(share 2)" "" "$seeds/safetensors"
run_target etdump "$(share 2)" "" "$seeds/etdump"
run_target bundled "$(share 2)" "" "$seeds/bundled"
run_target delegate "$(share 1)" "" "$seeds/delegate"
echo "fuzz.sh: $total inputs run in all"
[ "$status" -eq 0 ] || exit 1
echo "fuzz.sh: no finding"
