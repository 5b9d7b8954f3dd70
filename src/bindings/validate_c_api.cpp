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

// A file as the glue describes it: its head in the heap and the whole file
// external, its edges read through the host (what the full glue supplies as
// hex, npm/src/marshal/refs.mjs sourceRef).
FileSource file_source(const uint8_t* head, uint64_t head_size, uint32_t id, uint64_t size,
                       const std::shared_ptr<CallerFiles>& host) {
  FileSource source;
  source.head = Blob::view(head, static_cast<size_t>(head_size));
  Blob::External info;
  info.source = id;
  info.host = host;
  const uint64_t edge = std::min<uint64_t>(size, Blob::kEdgeBytes);
  if (edge > 0) {
    info.head.resize(static_cast<size_t>(edge));
    info.tail.resize(static_cast<size_t>(edge));
    if (!host->read(id, 0, edge, info.head.data()) || !host->read(id, size - edge, edge, info.tail.data())) {
      info.head.clear();
      info.tail.clear();
    }
  }
  source.file = Blob::external(std::move(info), size);
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

// read_api.cpp's validate with default options, on `count` files: the
// main one, then the .ptd files. `table` holds five numbers a file (exact
// below 2^53): its head's heap address and size, the caller's id of the
// file and its size, and the length of its name in `names` (the names one
// after the other, UTF-8; the main file's is empty). A binary request: no
// JSON parser is compiled on the first call (issue 42, start-up). Returns
// 0 with the report as the reply ({ok, errors, warnings}), 1 with an error
// {code, message}, 2 when a host read failed.
EMSCRIPTEN_KEEPALIVE int etpack_validate(const double* table, uint32_t count, const char* names, uint32_t names_size) {
  using namespace etpack;
  if (count == 0) return bindings::reply_error({ErrorCode::kInvalidArgument, "validate needs a file"});
  auto host = std::make_shared<bindings::CallerFiles>();
  auto file = [&](uint32_t i) {
    const double* f = table + 5 * static_cast<size_t>(i);
    return bindings::file_source(reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(f[0])), static_cast<uint64_t>(f[1]),
                                 static_cast<uint32_t>(f[2]), static_cast<uint64_t>(f[3]), host);
  };
  const FileSource main = file(0);
  std::vector<std::pair<std::string, FileSource>> ptds;
  uint64_t at = 0;
  for (uint32_t i = 1; i < count; ++i) {
    const uint64_t length = static_cast<uint64_t>(table[5 * static_cast<size_t>(i) + 4]);
    if (length > names_size - at) return bindings::reply_error({ErrorCode::kInvalidArgument, "validate: names past their buffer"});
    ptds.emplace_back(std::string(names + at, static_cast<size_t>(length)), file(i));
    at += length;
  }
  Result<ValidationReport> report = validate_files("ptd", main, ptds, ValidateOptions{});
  if (host->failed) return 2;
  if (!report.ok()) return bindings::reply_error(report.error());
  g_reply = write_json(report.value().to_json());
  return 0;
}

}  // extern "C"
