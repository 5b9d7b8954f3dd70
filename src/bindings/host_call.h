// One call from JavaScript into the core: the sources it names, the digest
// provider it installs, and the Output it hands back. All knowledge of JS
// lives under src/bindings/; the core never depends on it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <emscripten/val.h>

#include "core/blob.h"
#include "core/json.h"
#include "core/result.h"
#include "core/cord.h"

namespace etpack::bindings {

// What a call returns to JS. Owned by JS (embind object with delete());
// heap pieces stay valid until it is deleted.
class Output {
 public:
  bool ok() const { return error_.code == ErrorCode::kOk; }
  std::string code() const { return ok() ? "" : error_code_name(error_.code); }
  std::string message() const { return error_.message; }
  std::string json() const { return json_; }
  // json() where it lies in the heap, for the glue to decode in place (a
  // program's megabytes of text, spared embind's copies).
  double json_ptr() const { return static_cast<double>(reinterpret_cast<uintptr_t>(json_.data())); }
  double json_size() const { return static_cast<double>(json_.size()); }
  // Texts beside json() (inspect's joined names), where they lie in the heap.
  size_t text_count() const { return texts_.size(); }
  double text_ptr(size_t i) const { return static_cast<double>(reinterpret_cast<uintptr_t>(texts_.at(i).data())); }
  double text_size(size_t i) const { return static_cast<double>(texts_.at(i).size()); }

  // Cords (artifacts) as flat piece lists: [kind, a, b, c] quadruples with
  // kind 0 = heap bytes (a = pointer, b = length), 1 = zeros (b = count),
  // 2 = external (a = source, b = length, c = offset). Lengths and offsets
  // are doubles: exact below 2^53.
  size_t cord_count() const { return cords_.size(); }
  emscripten::val cord_pieces(size_t index) const;
  double cord_size(size_t index) const { return static_cast<double>(cords_[index].size()); }
  // Byte blobs referenced from json() as {"\u0000blob": i}: same encoding.
  emscripten::val blob_list() const;

  void fail(Error error) { error_ = std::move(error); }
  void set_json(std::string json) { json_ = std::move(json); }
  void add_text(std::string text) { texts_.push_back(std::move(text)); }
  size_t add_cord(Cord cord) {
    cords_.push_back(std::move(cord));
    return cords_.size() - 1;
  }
  size_t add_blob(Blob blob) {
    blobs_.push_back(std::move(blob));
    return blobs_.size() - 1;
  }

 private:
  Error error_{ErrorCode::kOk, ""};
  std::string json_;
  std::vector<std::string> texts_;
  std::vector<Cord> cords_;
  std::vector<Blob> blobs_;
};

// Runs `body(out)` on a new Output (JS owns it and deletes it), turning a
// failed Status into the Output's error: every binding returns this way.
template <typename Body>
Output* run_output(Body body) {
  auto* out = new Output();
  Status status = body(*out);
  if (!status.ok()) out->fail(status.take_error());
  return out;
}

// The JS host object of a call as the core's ExternalHost: digests are
// asked of JS (`digest(id, offset, size)` returning 64 hex chars), bytes are
// copied into the heap by `read`/`peek(id, offset, size, ptr)`. Every
// external blob made in the call holds it (a store keeps it past the call:
// the JS object behind it answers for the same source registry).
class JsHost : public ExternalHost {
 public:
  explicit JsHost(emscripten::val host) : host_(std::move(host)) {}
  std::optional<Digest> digest(uint32_t source, uint64_t offset, uint64_t size) override;
  bool read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override;
  bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override;
  // A digest or read the host could not give during this call (the JS error
  // is kept by the host and rethrown after the call). Optional peeks do not count.
  bool failed() const { return failed_; }

 private:
  bool copy(const char* method, uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst);
  emscripten::val host_;
  bool failed_ = false;
};

// One call from JS: while alive, source references parsed by blob_from_json
// become external blobs reached through this call's JsHost. The binding
// functions open one at their start; nothing in the core sees it.
class HostScope {
 public:
  explicit HostScope(emscripten::val host);
  ~HostScope();
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;
  const std::shared_ptr<JsHost>& host() const { return host_; }

 private:
  std::shared_ptr<JsHost> host_;
  const HostScope* outer_;
};

// A byte source named by id: bytes that stay in JS, reached through `host`.
// `size` is exact.
Blob external_source(uint32_t id, uint64_t size, std::shared_ptr<ExternalHost> host);

// Reads JSON like {"src": id, "size": n} (a source reference written by the
// JS glue) into an external Blob reached through the innermost HostScope's
// host (none outside a scope: then its bytes cannot be read), or a heap
// range {"ptr": p, "len": n}.
Result<Blob> blob_from_json(const Json& j);

}  // namespace etpack::bindings
