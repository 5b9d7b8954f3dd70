// The validate-only module's surface (etpack-validate.wasm, cmake/wasm.cmake):
// a plain C ABI with no embind, for the CLI's `validate FILE...` fast path
// (npm/src/cli/validate-fast.mjs). It calls the same ops as read_api.cpp's
// headSize and validate, on the same objects, so its verdicts are those of
// etpack.wasm; it exists because a Node process starts faster without
// embind's registrations and with less code to compile (issue 42).
//
// Files arrive as read_api.cpp's do: the head copied into the heap by the
// caller, the whole file external, its bytes read through the host (the
// imported etpack_host_read, which copies a range of a file the caller
// opened straight into the heap). Every reply is JSON text held here until
// the next call: etpack_reply_ptr / etpack_reply_size.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/json.h"
#include "core/result.h"
#include "core/sha256.h"
#include "format/file_kinds.h"
#include "format/file_source.h"
#include "ops/deserialize.h"
#include "ops/validate.h"

extern "C" {
// Copies bytes [offset, offset + size) of the caller's file `source` to
// `dst` in the heap: 1 when all were copied, 0 when they could not be read.
__attribute__((import_module("env"), import_name("etpack_host_read"))) int etpack_host_read(uint32_t source, double offset,
                                                                                           double size, uint8_t* dst);
}

namespace etpack::bindings {
namespace {

std::string g_reply;  // the last call's reply

// The caller's files as the core's ExternalHost. A failed read is said in
// the reply's `hostFailed` (the caller then takes the full module's path).
class CallerFiles : public ExternalHost {
 public:
  std::optional<Digest> digest(uint32_t source, uint64_t offset, uint64_t size) override {
    Sha256 hasher;
    std::vector<uint8_t> chunk(static_cast<size_t>(std::min<uint64_t>(size, 1 << 20)));
    for (uint64_t done = 0; done < size;) {
      const uint64_t n = std::min<uint64_t>(chunk.size(), size - done);
      if (!read(source, offset + done, n, chunk.data())) return std::nullopt;
      hasher.update(chunk.data(), static_cast<size_t>(n));
      done += n;
    }
    return hasher.finish();
  }
  bool read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    if (etpack_host_read(source, static_cast<double>(offset), static_cast<double>(size), dst) == 1) return true;
    failed = true;
    return false;
  }
  bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override { return read(source, offset, size, dst); }
  bool failed = false;
};

int reply_error(const Error& error) {
  Json j = Json::object();
  j.set("code", Json::string(error_code_name(error.code)));
  j.set("message", Json::string(error.message));
  g_reply = write_json(j);
  return 1;
}

Result<Blob> heap_bytes(const Json* ref) {
  auto ptr = ref ? (ref->find("ptr") ? ref->find("ptr")->as_uint64() : std::nullopt) : std::nullopt;
  auto len = ref ? (ref->find("len") ? ref->find("len")->as_uint64() : std::nullopt) : std::nullopt;
  if (!ptr || !len) return make_error(ErrorCode::kInvalidArgument, "a head must be {ptr, len}");
  return Blob::view(reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(*ptr)), static_cast<size_t>(*len));
}

// {head: {ptr, len}, file: {src, size}}: the file external, its edges read
// through the host (what the full glue supplies as hex, refs.mjs sourceRef).
Result<FileSource> file_source(const Json* ref, const std::shared_ptr<CallerFiles>& host) {
  if (ref == nullptr || !ref->is_object()) return make_error(ErrorCode::kInvalidArgument, "a file must be {head, file}");
  FileSource source;
  ETP_ASSIGN(source.head, heap_bytes(ref->find("head")));
  const Json* file = ref->find("file");
  auto id = file ? (file->find("src") ? file->find("src")->as_uint64() : std::nullopt) : std::nullopt;
  auto size = file ? (file->find("size") ? file->find("size")->as_uint64() : std::nullopt) : std::nullopt;
  if (!id || !size || *id > UINT32_MAX) return make_error(ErrorCode::kInvalidArgument, "a file must be {src, size}");
  Blob::External info;
  info.source = static_cast<uint32_t>(*id);
  info.host = host;
  const uint64_t edge = std::min<uint64_t>(*size, Blob::kEdgeBytes);
  if (edge > 0) {
    info.head.resize(static_cast<size_t>(edge));
    info.tail.resize(static_cast<size_t>(edge));
    if (!host->read(info.source, 0, edge, info.head.data()) || !host->read(info.source, *size - edge, edge, info.tail.data())) {
      info.head.clear();
      info.tail.clear();
    }
  }
  source.file = Blob::external(std::move(info), *size);
  return source;
}

}  // namespace
}  // namespace etpack::bindings

using etpack::bindings::g_reply;

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* etpack_reply_ptr() { return g_reply.data(); }
EMSCRIPTEN_KEEPALIVE uint32_t etpack_reply_size() { return static_cast<uint32_t>(g_reply.size()); }

// read_api.cpp's headSize: how many first bytes of a file of `kind` ("pte",
// "ptd", ...) to hold, from `probe` and the file's size. Returns the count
// (exact below 2^53), or -1 with the error as the reply {code, message}.
EMSCRIPTEN_KEEPALIVE double etpack_head_size(const char* kind_name, const uint8_t* probe, uint32_t probe_size, double file_size,
                                             int lenient) {
  using namespace etpack;
  std::optional<FileKind> kind = file_kind_named(kind_name);
  if (!kind) {
    bindings::reply_error({ErrorCode::kInvalidArgument, std::string("unknown file kind '") + kind_name + "'"});
    return -1;
  }
  Result<uint64_t> head = head_bytes(*kind, Blob::view(probe, probe_size), static_cast<uint64_t>(file_size), lenient != 0);
  if (!head.ok()) {
    bindings::reply_error(head.error());
    return -1;
  }
  return static_cast<double>(head.value());
}

// read_api.cpp's validate with default options: the request is JSON
// {pte: FILE, ptds: {name: FILE, ...}} (FILE: {head: {ptr, len}, file:
// {src, size}}). Returns 0 with the report as the reply ({ok, errors,
// warnings}), 1 with an error {code, message}, 2 when a host read failed.
EMSCRIPTEN_KEEPALIVE int etpack_validate(const char* request_text, uint32_t request_size) {
  using namespace etpack;
  auto host = std::make_shared<bindings::CallerFiles>();
  Result<ValidationReport> report = [&]() -> Result<ValidationReport> {
    ETP_ASSIGN(Json request, parse_json(std::string_view(request_text, request_size)));
    ETP_ASSIGN(FileSource pte, bindings::file_source(request.find("pte"), host));
    std::vector<std::pair<std::string, FileSource>> ptds;
    if (const Json* list = request.find("ptds"); list && list->is_object())
      for (const auto& [name, ref] : list->members()) {
        ETP_ASSIGN(FileSource f, bindings::file_source(&ref, host));
        ptds.emplace_back(name, std::move(f));
      }
    return validate_files("ptd", pte, ptds, ValidateOptions{});
  }();
  if (host->failed) return 2;
  if (!report.ok()) return bindings::reply_error(report.error());
  g_reply = write_json(report.value().to_json());
  return 0;
}

}  // extern "C"
