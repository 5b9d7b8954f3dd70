// libFuzzer target over what reads untrusted .bpte bytes: the reader,
// inspect and validate of a BundledProgram (src/ops/bundled_program.h).
// Promises checked: no crash, no sanitizer report; every refusal is a coded
// error with a message; validate never fails on the contents (findings
// instead); a bundle the reader accepts and the writer takes again reads
// back. Save a finding under tests/fuzz/regressions.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "ops/bundled_program.h"
#include "encode/bundled_writer.h"
#include "read/bundled_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy: reads past the input are sanitizer reports.
  std::vector<uint8_t> bytes(data, data + size);
  const etpack::Blob file = etpack::Blob::view(bytes.data(), bytes.size());
  auto read = etpack::read_bundled_program(file);
  if (!read.ok() && read.error().message.empty()) __builtin_trap();
  auto inspected = etpack::inspect_bundled_program(etpack::FileSource::in_memory(file));
  if (read.ok() != inspected.ok()) {
    std::fprintf(stderr, "broken promise: inspect and the reader disagree\n");
    __builtin_trap();
  }
  auto report = etpack::validate_bundled_program(etpack::FileSource::in_memory(file), {}, {});
  if (!report.ok() && report.error().code != etpack::ErrorCode::kResourceLimit) {
    std::fprintf(stderr, "broken promise: validate failed on contents: %s\n", report.error().message.c_str());
    __builtin_trap();
  }
  if (read.ok()) {
    auto again = etpack::write_bundled_program(read->bundle);
    if (again.ok() && !etpack::read_bundled_program(etpack::Blob::own(std::move(*again))).ok()) {
      std::fprintf(stderr, "broken promise: a bundle we wrote does not read back\n");
      __builtin_trap();
    }
  }
  return 0;
}
