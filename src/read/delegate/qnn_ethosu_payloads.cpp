// QNN (a 256-byte header before an opaque context binary; upstream
// backends/qualcomm/runtime/backends/QnnCustomProtocol.{h,cpp}) and
// Ethos-U (vela_bin_stream blocks; upstream backends/arm/runtime/
// VelaBinStream.{h,cpp}). Keep the constants in sync with those files.
#include <cstring>
#include <string>

#include "core/le_bytes.h"
#include "core/utf8_text.h"
#include "read/delegate/delegate_payload.h"

namespace etpack {
namespace {

Json u64(uint64_t v) { return Json::unsigned_integer(v); }

// QNN_CTX_BIN_ALIGNMENT: the header is padded to it.
constexpr uint64_t kQnnHeaderSize = 256;
constexpr uint32_t kQnnMagic = 0x5678ABCD;

// Vela blocks: 16-byte name, u32 size, u8 external flag, 11 reserved.
constexpr uint64_t kVelaHeader = 32;
constexpr uint64_t kVelaAlign = 16;
constexpr uint64_t kVelaNameBytes = 16;
constexpr uint64_t kVelaIoWords = 9;  // shape[6], elem_size, offset, region
constexpr const char* kVelaEnd = "vela_end_stream";

// Names and keys from the blob need not be UTF-8.
Json text(const uint8_t* p, size_t n) {
  std::string valid;
  append_decoded_utf8(std::string_view(reinterpret_cast<const char*>(p), n), valid);
  return Json::string(std::move(valid));
}

int32_t i32_at(const uint8_t* p) { return static_cast<int32_t>(read_le<uint32_t>(p)); }

// inputs / outputs: i32 count, then per tensor nine i32.
Result<Json> vela_ios(const uint8_t* data, uint64_t size, uint64_t at) {
  if (size < 4) return payload_error("an inputs/outputs block holds " + std::to_string(size) + " bytes; it needs a count", at);
  const int32_t count = i32_at(data);
  if (count < 0 || static_cast<uint64_t>(count) > (size - 4) / (4 * kVelaIoWords))
    return payload_error("inputs/outputs count " + std::to_string(count) + " does not fit the block's " +
                             std::to_string(size) + " bytes",
                         at);
  Json ios = Json::array();
  for (int32_t i = 0; i < count; ++i) {
    const uint8_t* p = data + 4 + 4 * kVelaIoWords * static_cast<uint64_t>(i);
    Json io = Json::object();
    Json shape = Json::array();
    for (int d = 0; d < 6; ++d) shape.push(Json::integer(i32_at(p + 4 * d)));
    io.set("shape", std::move(shape));
    io.set("elem_size", Json::integer(i32_at(p + 24)));
    io.set("offset", Json::integer(i32_at(p + 28)));
    io.set("region", Json::integer(i32_at(p + 32)));
    ios.push(std::move(io));
  }
  return ios;
}

}  // namespace

Result<DelegatePayload> decode_qnn_payload(const Blob& blob) {
  const uint8_t* data = blob.data();
  const uint64_t size = blob.size();
  if (size < kQnnHeaderSize)
    return payload_error("the QNN header needs " + std::to_string(kQnnHeaderSize) + " bytes; the payload has " +
                             std::to_string(size),
                         size);
  const uint32_t magic = read_le<uint32_t>(data);
  if (magic != kQnnMagic) return payload_error("no QNN magic 0x5678ABCD", 0);
  const int64_t signature = static_cast<int64_t>(read_le<uint64_t>(data + 4));
  const uint64_t binary_size = read_le<uint64_t>(data + 12);
  if (binary_size > size - kQnnHeaderSize)
    return payload_error("context binary size " + std::to_string(binary_size) + " runs past the " +
                             std::to_string(size) + "-byte payload",
                         12);
  DelegatePayload out;
  out.header = Json::object();
  out.header.set("magic", u64(magic));
  out.header.set("magic_hex", Json::string("0x5678ABCD"));
  out.header.set("signature", Json::integer(signature));
  out.header.set("binary_size", u64(binary_size));
  out.header.set("binary_offset", u64(kQnnHeaderSize));
  out.header.set("header_size", u64(kQnnHeaderSize));
  out.header.set("blob_size", u64(size));
  Json content = Json::object();
  content.set("magic", Json::string("0x5678ABCD"));
  content.set("signature", Json::integer(signature));
  content.set("context_binary_size", u64(binary_size));
  content.set("context_binary_offset", u64(kQnnHeaderSize));
  out.content = std::move(content);
  return out;
}

Result<DelegatePayload> decode_ethosu_payload(const Blob& blob) {
  const uint8_t* data = blob.data();
  const uint64_t size = blob.size();
  Json blocks = Json::array();
  Json content = Json::object();
  std::string first, last;
  uint64_t at = 0;
  size_t count = 0;
  bool ended = false;
  while (!ended) {
    if (at >= size || size - at < kVelaHeader)
      return payload_error("the block stream ends without a vela_end_stream block", at);
    const uint8_t* h = data + at;
    const size_t name_len = strnlen(reinterpret_cast<const char*>(h), kVelaNameBytes - 1);
    const std::string name(reinterpret_cast<const char*>(h), name_len);
    const uint64_t block_size = read_le<uint32_t>(h + 16);
    const unsigned external = h[20];
    const uint64_t data_at = at + kVelaHeader;
    const uint64_t padded = (block_size + kVelaAlign - 1) / kVelaAlign * kVelaAlign;
    if (padded > size - data_at)
      return payload_error("block \"" + name + "\" of " + std::to_string(block_size) + " bytes runs past the " +
                               std::to_string(size) + "-byte payload",
                           at + 16);
    Json b = Json::object();
    b.set("name", text(h, name_len));
    b.set("header_offset", u64(at));
    b.set("data_offset", u64(data_at));
    b.set("size", u64(block_size));
    b.set("padded_size", u64(padded));
    b.set("external", u64(external));
    const uint8_t* d = data + data_at;
    if (external == 1) {
      b.set("named_data_key", text(d, static_cast<size_t>(block_size)));
    } else if (name == "scratch_size") {
      if (block_size < 4) return payload_error("scratch_size block holds " + std::to_string(block_size) + " bytes", at + 16);
      b.set("value", u64(read_le<uint32_t>(d)));
      content.set("scratch_size", u64(read_le<uint32_t>(d)));
    } else if (name == "inputs" || name == "outputs") {
      ETP_ASSIGN(Json ios, vela_ios(d, block_size, data_at));
      b.set("count", u64(ios.items().size()));
      b.set("ios", ios);
      content.set(name, std::move(ios));
    }
    blocks.push(std::move(b));
    if (count++ == 0) first = name;
    last = name;
    ended = name == kVelaEnd;
    at = data_at + padded;
  }
  DelegatePayload out;
  out.header = Json::object();
  out.header.set("block_header_size", u64(kVelaHeader));
  out.header.set("block_alignment", u64(kVelaAlign));
  out.header.set("block_count", u64(count));
  out.header.set("first_block", text(reinterpret_cast<const uint8_t*>(first.data()), first.size()));
  out.header.set("last_block", text(reinterpret_cast<const uint8_t*>(last.data()), last.size()));
  out.header.set("parsed_bytes", u64(at));
  out.header.set("blob_size", u64(size));
  Json ordered = Json::object();
  ordered.set("blocks", std::move(blocks));
  for (const char* key : {"inputs", "outputs", "scratch_size"})
    if (const Json* v = content.find(key)) ordered.set(key, *v);
  out.content = std::move(ordered);
  return out;
}

}  // namespace etpack
