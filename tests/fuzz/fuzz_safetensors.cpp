// libFuzzer target for the safetensors reader (src/read/safetensors_reader.h)
// and writer: any bytes as a whole .safetensors file. Promises checked: a
// header that reads has tensors inside the data area that tile it exactly,
// with shape x dtype equal to their byte counts; writing the tensors back
// (safetensors_head) gives a header that reads again to the same tensors.
// A crash, hang, sanitizer report or broken promise is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "encode/safetensors_writer.h"
#include "read/safetensors_reader.h"

namespace {

void broken(const char* what) {
  std::fprintf(stderr, "broken promise: %s\n", what);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etpack;
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  auto n = safetensors_header_size(file, size, "fuzz");
  if (!n.ok()) return 0;
  if (*n > size - 8) broken("header length past the file");
  auto header = read_safetensors_header(file.substr(8, *n), size, "fuzz");
  if (!header.ok()) return 0;
  const uint64_t data_size = size - header->data_start;
  uint64_t total = 0;
  std::vector<SafetensorsEntry> entries;
  for (const SafetensorsTensor& t : header->tensors) {
    if (t.begin > t.end || t.end > data_size) broken("tensor range outside the data area");
    total += t.size();
    entries.push_back({std::string(t.name), t.dtype, t.shape, t.size()});
  }
  if (total != data_size) broken("tensors do not cover the data area exactly");
  auto head = safetensors_head(entries, header->metadata);
  if (!head.ok()) broken("a header that reads cannot be written back");
  const uint64_t rewritten_size = head->size() + data_size;
  auto again = read_safetensors_header(std::string_view(*head).substr(8), rewritten_size, "rewritten");
  if (!again.ok()) {
    std::fprintf(stderr, "%s\n", again.error().message.c_str());
    broken("a written header does not read back");
  }
  if (again->tensors.size() != header->tensors.size() || again->metadata != header->metadata) broken("round trip changed the header");
  for (size_t i = 0; i < entries.size(); ++i) {
    const SafetensorsTensor& t = again->tensors[i];
    if (t.name != entries[i].name || t.dtype != entries[i].dtype || t.shape != entries[i].shape || t.size() != entries[i].size)
      broken("round trip changed a tensor");
  }
  return 0;
}
