// The embind surface of the NamedDataStore (StoreHandle: add, merge,
// externalize, output). Kept beside api.cpp, in its own EMSCRIPTEN_BINDINGS
// block; nothing here throws (failures are Outputs with a code).
#include <optional>
#include <string>

#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "bindings/request.h"
#include "model/named_data_store.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

// The NamedDataStore, held in wasm; its buffers reference JS sources.
class StoreHandle {
 public:
  Output* add(std::string key, std::string ref_text, double alignment, std::string tag, bool has_tag, std::string layout_text, val host) {
    HostScope scope(host);
    return run_output([&](Output&) -> Status {
      auto ref = parse_json(ref_text);
      if (!ref.ok()) return make_error(ErrorCode::kInvalidArgument, ref.error().message);
      ETP_ASSIGN(Blob data, blob_from_json(*ref));
      if (!(alignment >= 0) || alignment > 9007199254740991.0 || alignment != static_cast<double>(static_cast<uint64_t>(alignment)))
        return make_error(ErrorCode::kInvalidAlignment, "Alignment must be greater than 0, received " + std::to_string(alignment) + ".");
      std::optional<TensorLayout> layout;
      if (!layout_text.empty()) {
        auto lj = parse_json(layout_text);
        if (!lj.ok()) return make_error(ErrorCode::kInvalidArgument, lj.error().message);
        if (!lj->is_null()) {
          ETP_ASSIGN(TensorLayout l, layout_from_json(*lj));
          layout = std::move(l);
        }
      }
      return journaled(scope, [&] {
        return store_.add_named_data(key, std::move(data), static_cast<uint64_t>(alignment),
                                     has_tag ? std::optional<std::string>(tag) : std::nullopt, std::move(layout));
      });
    });
  }
  Output* merge(std::string output_text, val host) {
    HostScope scope(host);
    return run_output([&](Output&) -> Status {
      ETP_ASSIGN(Json j, parse_request(output_text));
      ETP_ASSIGN(NamedDataStoreOutput other, store_output_from_json(j));
      return journaled(scope, [&] { return store_.merge_named_data_store(other); });
    });
  }
  Output* externalize(double max_bytes, std::string prefix, val host) {
    HostScope scope(host);
    return run_output([&](Output&) -> Status {
      if (!(max_bytes > 0) || max_bytes != static_cast<double>(static_cast<uint64_t>(max_bytes)))
        return make_error(ErrorCode::kInvalidArgument, "external data shard cap must be a positive integer, received " +
                                                           std::to_string(max_bytes));
      return store_.externalize_pte_data(static_cast<uint64_t>(max_bytes), prefix);
    });
  }
  Output* output() {
    return run_output([&](Output& out) -> Status {
      out.set_json(write_json(store_output_to_json(store_.get_named_data_store_output(), out)));
      return {};
    });
  }

 private:
  // Runs adds that the store can take back: when a source failed under them
  // (an unopened Blob asked for its digest), the store is left as it was,
  // since the glue releases the sources of a failed call and rethrows the
  // host's error. Without this the store would keep a dangling reference.
  template <typename Adds>
  Status journaled(const HostScope& scope, Adds adds) {
    store_.begin_adds();
    Status status = adds();
    if (scope.host()->failed()) {
      store_.undo_adds();
      if (status.ok()) status = make_error(ErrorCode::kInternal, "a byte source failed while the store read it");
    }
    store_.end_adds();
    return status;
  }

  NamedDataStore store_;
};

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_store) {
  using namespace emscripten;
  using namespace etpack::bindings;
  class_<StoreHandle>("StoreHandle")
      .constructor<>()
      .function("add", &StoreHandle::add, allow_raw_pointers())
      .function("merge", &StoreHandle::merge, allow_raw_pointers())
      .function("externalize", &StoreHandle::externalize, allow_raw_pointers())
      .function("output", &StoreHandle::output, allow_raw_pointers());
}
