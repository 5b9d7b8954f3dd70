#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, by package name, and the npm
# dev dependencies. Idempotent: packages already present are not reinstalled.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake g++ make                       # native build
  clang libclang-rt-14-dev             # libFuzzer + sanitizer runtimes
  flatbuffers-compiler libflatbuffers-dev  # flatc and headers (same package version)
  libgtest-dev libbenchmark-dev        # native tests and benchmarks
  emscripten                           # the wasm build (Debian's emcc 3.1.6)
  chromium                             # browser tests
  graphviz                             # dot: graph --format dot is rendered in tests
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "== installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v node >/dev/null; then
  echo "Node.js 20+ is required (it ships with this machine image)." >&2
  exit 1
fi
# node_modules is (re)installed when missing or older than the lock file: a
# checkout whose lock gained dev dependencies must not run with stale ones.
if [ -f package-lock.json ] && { [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  npm ci --no-audit --no-fund
fi
