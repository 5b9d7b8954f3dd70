#include "bindings/host_call.h"

#include <algorithm>
#include <cstdlib>

#include "core/sha256.h"

namespace etpack::bindings {
namespace {

// The innermost call in progress (calls do not nest today; a scope restores
// the outer one all the same).
const HostScope* g_scope = nullptr;

std::optional<Digest> digest_of_hex(const std::string& text) {
  auto bytes = from_hex(text, 32);
  if (!bytes || bytes->size() != 32) return std::nullopt;
  Digest d{};
  std::copy(bytes->begin(), bytes->end(), d.begin());
  return d;
}

emscripten::val pieces_of(const std::vector<std::pair<int, std::array<double, 3>>>& list) {
  emscripten::val out = emscripten::val::array();
  unsigned i = 0;
  for (const auto& [kind, v] : list) {
    out.set(i++, kind);
    out.set(i++, v[0]);
    out.set(i++, v[1]);
    out.set(i++, v[2]);
  }
  return out;
}

std::pair<int, std::array<double, 3>> piece_of(const Blob& b) {
  if (b.is_external())
    return {2, {static_cast<double>(b.external_info()->source), static_cast<double>(b.size()),
                static_cast<double>(b.external_info()->offset)}};
  return {0, {static_cast<double>(reinterpret_cast<uintptr_t>(b.data())), static_cast<double>(b.size()), 0}};
}

}  // namespace

std::optional<Digest> JsHost::digest(uint32_t source, uint64_t offset, uint64_t size) {
  emscripten::val hex = host_.call<emscripten::val>("digest", source, static_cast<double>(offset), static_cast<double>(size));
  // The host answers every digest it is asked (sources hash themselves);
  // anything else is a failure it recorded.
  if (!hex.isString()) {
    failed_ = true;
    return std::nullopt;
  }
  return digest_of_hex(hex.as<std::string>());
}

// The host copies straight into the heap at `dst` (one copy). `method` is
// "read" (a failure is an error the host records) or "peek" (optional).
bool JsHost::copy(const char* method, uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) {
  emscripten::val ok = host_.call<emscripten::val>(method, source, static_cast<double>(offset), static_cast<double>(size),
                                                   static_cast<double>(reinterpret_cast<uintptr_t>(dst)));
  return ok.as<bool>();
}

bool JsHost::read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) {
  if (copy("read", source, offset, size, dst)) return true;
  failed_ = true;
  return false;
}

bool JsHost::peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) {
  return copy("peek", source, offset, size, dst);
}

emscripten::val Output::cord_pieces(size_t index) const {
  std::vector<std::pair<int, std::array<double, 3>>> list;
  for (const Cord::Piece& p : cords_[index].pieces()) {
    if (p.kind == Cord::Piece::Kind::kZeros) list.push_back({1, {0, static_cast<double>(p.zeros), 0}});
    else list.push_back(piece_of(p.bytes));
  }
  return pieces_of(list);
}

emscripten::val Output::blob_list() const {
  std::vector<std::pair<int, std::array<double, 3>>> list;
  for (const Blob& b : blobs_) list.push_back(piece_of(b));
  return pieces_of(list);
}

Blob external_source(uint32_t id, uint64_t size, std::shared_ptr<ExternalHost> host) {
  Blob::External info;
  info.source = id;
  info.host = std::move(host);
  return Blob::external(std::move(info), size);
}

Result<Blob> blob_from_json(const Json& j) {
  if (const Json* src = j.find("src")) {
    auto id = src->as_uint64();
    auto size = j.find("size") ? j.find("size")->as_uint64() : std::nullopt;
    auto offset = j.find("offset") ? j.find("offset")->as_uint64() : std::optional<uint64_t>(0);
    if (!id || !size || !offset || *id > UINT32_MAX)
      return make_error(ErrorCode::kInvalidArgument, "bad source reference " + write_json(j));
    Blob::External info;
    info.source = static_cast<uint32_t>(*id);
    info.offset = *offset;
    if (g_scope != nullptr) info.host = g_scope->host();
    // What the host already knows of the bytes: their ends (for the dedup
    // fingerprint, so unequal data rarely needs a digest) and their digest.
    const size_t edge = static_cast<size_t>(std::min<uint64_t>(*size, Blob::kEdgeBytes));
    for (auto [key, field] : {std::pair{"head", &info.head}, std::pair{"tail", &info.tail}}) {
      const Json* hex = j.find(key);
      if (hex == nullptr) continue;
      auto bytes = hex->is_string() ? from_hex(hex->text(), Blob::kEdgeBytes) : std::nullopt;
      if (!bytes || bytes->size() != edge)
        return make_error(ErrorCode::kInvalidArgument, std::string("bad ") + key + " bytes in source reference " + write_json(j));
      *field = std::move(*bytes);
    }
    if (const Json* hex = j.find("digest")) {
      auto d = hex->is_string() ? digest_of_hex(hex->text()) : std::nullopt;
      if (!d) return make_error(ErrorCode::kInvalidArgument, "bad digest in source reference " + write_json(j));
      info.digest = *d;
    }
    return Blob::external(std::move(info), *size);
  }
  auto ptr = j.find("ptr") ? j.find("ptr")->as_uint64() : std::nullopt;
  auto len = j.find("len") ? j.find("len")->as_uint64() : std::nullopt;
  if (!ptr || !len) return make_error(ErrorCode::kInvalidArgument, "bad byte reference " + write_json(j));
  // Heap bytes the glue copied in and frees after the call.
  return Blob::view(reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(*ptr)), static_cast<size_t>(*len));
}

HostScope::HostScope(emscripten::val host) : host_(std::make_shared<JsHost>(std::move(host))), outer_(g_scope) {
  g_scope = this;
}

HostScope::~HostScope() { g_scope = outer_; }

}  // namespace etpack::bindings
