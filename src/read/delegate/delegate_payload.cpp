#include "read/delegate/delegate_payload.h"

namespace etpack {

Error payload_error(const std::string& what, uint64_t offset) {
  return make_error(ErrorCode::kMalformedFile, what + " (at byte offset " + std::to_string(offset) + " of the payload)");
}

namespace {

DelegatePayload opaque(const Blob& blob) {
  DelegatePayload out;
  out.kind_name = "opaque";
  out.header = Json::object();
  out.header.set("blob_size", Json::unsigned_integer(blob.size()));
  return out;
}

}  // namespace

Result<DelegatePayload> decode_delegate_payload(const Blob& blob, std::string_view backend) {
  if (blob.is_external()) return make_error(ErrorCode::kInvalidArgument, "a delegate payload is decoded from bytes in memory");
  ETP_ASSIGN(std::optional<PayloadKind> kind, detect_payload_kind(blob.data(), static_cast<size_t>(blob.size()), backend));
  if (!kind) return opaque(blob);
  Result<DelegatePayload> decoded = [&]() -> Result<DelegatePayload> {
    switch (payload_kind(*kind).layout) {
      case PayloadLayout::kWrapped30:
      case PayloadLayout::kSegmented24:
      case PayloadLayout::kBareFlatbuffer: return decode_flatbuffer_payload(blob, *kind);
      case PayloadLayout::kCoremlReference:
      case PayloadLayout::kInMemoryFs: return decode_coreml_payload(blob, *kind);
      case PayloadLayout::kQnnContext: return decode_qnn_payload(blob);
      case PayloadLayout::kVelaBlocks: return decode_ethosu_payload(blob);
    }
    return make_error(ErrorCode::kInternal, "unknown payload layout");
  }();
  if (!decoded.ok()) {
    const std::string prefix = std::string(payload_kind(*kind).name) + " payload: ";
    return make_error(decoded.error().code, prefix + decoded.error().message);
  }
  decoded->kind = kind;
  decoded->kind_name = std::string(payload_kind(*kind).name);
  return decoded;
}

Result<DelegatePayload> decode_delegate_in_program(const Blob& blob, std::string_view backend) {
  auto decoded = decode_delegate_payload(blob, backend);
  if (decoded.ok() || blob.is_external()) return decoded;
  // Marked as one of this backend's layouts (found by magic alone)?
  auto marked = detect_payload_kind(blob.data(), static_cast<size_t>(blob.size()), "");
  if (marked.ok() && *marked && payload_kind(**marked).backend_id == backend) return decoded;
  return opaque(blob);
}

std::string delegate_payload_json(const DelegatePayload& payload) {
  Json out = Json::object();
  out.set("kind", Json::string(payload.kind_name));
  out.set("header", payload.header);
  if (payload.graph) out.set("graph", *payload.graph);
  if (payload.content) out.set("content", *payload.content);
  if (payload.model) out.set("model", *payload.model);
  return write_json(out);
}

}  // namespace etpack
