// XNNPACK (XH00 + XN01, or a bare XN00/XN01 flatbuffer), Vulkan (VH00 +
// VK00), MPS (MP00 header + MP00 flatbuffer), MLX (MLX0 header + a
// flatbuffer without identifier) and native (a bare NPTG flatbuffer):
// the wrapper header, then the flatbuffer decoded generically against our
// schema (schema/<kind>.fbs) and printed as flatc prints it.
#include <cstring>
#include <memory>

#include "core/le_bytes.h"
#include "read/delegate/delegate_payload.h"
#include "read/delegate/flatc_json.h"
#include "read/fb_decoder.h"
#include "schema/schema.h"

namespace etpack {
namespace {

constexpr uint64_t kRootAndIdentifier = 8;

const Schema* schema_of(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::kXnnpack:
    case PayloadKind::kXnnpackLegacy: return &delegate_schema(DelegateSchema::kXnnpack);
    case PayloadKind::kVulkan: return &delegate_schema(DelegateSchema::kVulkan);
    case PayloadKind::kMps: return &delegate_schema(DelegateSchema::kMps);
    case PayloadKind::kMlx: return &delegate_schema(DelegateSchema::kMlx);
    case PayloadKind::kNative: return &delegate_schema(DelegateSchema::kNative);
    default: return nullptr;
  }
}

// The identifiers a runtime accepts for `kind` (XNNPACK takes both).
bool identifier_accepted(PayloadKind kind, const std::string& id) {
  if (kind == PayloadKind::kXnnpack || kind == PayloadKind::kXnnpackLegacy)
    return id == payload_kind(PayloadKind::kXnnpack).identifier ||
           id == payload_kind(PayloadKind::kXnnpackLegacy).identifier;
  return id == payload_kind(kind).identifier;
}

Json u64(uint64_t v) { return Json::unsigned_integer(v); }

// Region of the flatbuffer in the blob, and the header fields.
struct Cut {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t data_size = 0;  // the constant / data region
  Json header = Json::object();
};

Result<Cut> cut_wrapped30(const Blob& blob, PayloadKind kind) {
  const PayloadKindInfo& info = payload_kind(kind);
  ETP_ASSIGN(std::optional<WrapperHeader30> h,
             parse_wrapper_header30(blob.data(), static_cast<size_t>(blob.size()), info.magic));
  if (!h) return payload_error("no " + std::string(info.magic) + " header", WrapperHeader30::kMagicOffset);
  const bool xnnpack = kind == PayloadKind::kXnnpack;
  Cut cut;
  cut.offset = h->flatbuffer_offset;
  cut.size = h->flatbuffer_size;
  cut.data_size = h->data_size;
  cut.header.set("magic", Json::string(h->magic));
  cut.header.set("header_length", u64(h->header_length));
  cut.header.set("flatbuffer_offset", u64(h->flatbuffer_offset));
  cut.header.set("flatbuffer_size", u64(h->flatbuffer_size));
  cut.header.set(xnnpack ? "constant_data_offset" : "bytes_offset", u64(h->data_offset));
  cut.header.set(xnnpack ? "constant_data_size" : "bytes_size", u64(h->data_size));
  return cut;
}

Result<Cut> cut_segmented24(const Blob& blob, PayloadKind kind) {
  const PayloadKindInfo& info = payload_kind(kind);
  ETP_ASSIGN(std::optional<WrapperHeader24> h,
             parse_wrapper_header24(blob.data(), static_cast<size_t>(blob.size()), info.magic));
  if (!h) return payload_error("no " + std::string(info.magic) + " header", WrapperHeader30::kMagicOffset);
  Cut cut;
  cut.offset = WrapperHeader24::kLength;
  cut.size = h->data_segment_offset - WrapperHeader24::kLength;  // parse checked offset >= 24
  cut.data_size = h->data_segment_size;
  cut.header.set("magic", Json::string(h->magic));
  cut.header.set("data_segment_offset", u64(h->data_segment_offset));
  cut.header.set("data_segment_size", u64(h->data_segment_size));
  cut.header.set("flatbuffer_offset", u64(cut.offset));
  cut.header.set("flatbuffer_region_end", u64(h->data_segment_offset));
  return cut;
}

}  // namespace

Result<DelegatePayload> decode_flatbuffer_payload(const Blob& blob, PayloadKind kind) {
  const PayloadKindInfo& info = payload_kind(kind);
  Cut cut;
  if (info.layout == PayloadLayout::kWrapped30) {
    ETP_ASSIGN(cut, cut_wrapped30(blob, kind));
  } else if (info.layout == PayloadLayout::kSegmented24) {
    ETP_ASSIGN(cut, cut_segmented24(blob, kind));
  } else {
    cut.size = blob.size();
    cut.header.set("flatbuffer_offset", u64(0));
    cut.header.set("flatbuffer_size", u64(cut.size));
  }
  cut.header.set("blob_size", u64(blob.size()));
  if (cut.size < kRootAndIdentifier)
    return payload_error("the flatbuffer region is " + std::to_string(cut.size) +
                             " bytes; a flatbuffer needs at least 8 (root offset and identifier)",
                         cut.offset);
  const uint8_t* fb = blob.data() + cut.offset;
  const Schema* schema = schema_of(kind);
  std::string identifier;
  if (!info.identifier.empty()) {
    identifier.assign(reinterpret_cast<const char*>(fb + 4), 4);
    if (!identifier_accepted(kind, identifier)) {
      std::string shown;
      for (char c : identifier) shown.push_back(c >= 0x20 && c < 0x7f ? c : '?');
      return payload_error("flatbuffer identifier \"" + shown + "\" is not \"" + std::string(info.identifier) + "\"",
                           cut.offset + 4);
    }
    cut.header.set("flatbuffer_identifier", Json::string(identifier));
  }
  cut.header.set("flatbuffer_root_offset", u64(read_le<uint32_t>(fb)));
  DelegatePayload out;
  out.header = std::move(cut.header);
  out.constant_bytes = cut.data_size;
  if (schema == nullptr || schema->root == nullptr) return out;
  ETP_ASSIGN(TableValue root, decode_flatbuffer(blob.slice(cut.offset, cut.size), *schema->root, cut.offset));
  out.graph = flatc_json(root, identifier);
  out.root = std::make_shared<const TableValue>(std::move(root));
  return out;
}

}  // namespace etpack
