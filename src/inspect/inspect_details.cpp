#include "inspect/inspect_details.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "model/scalar_type.h"
#include "read/program_tensors.h"

namespace etpack {
namespace {

constexpr size_t kMaxTextValue = 256;
constexpr size_t kLargestCount = 10;
constexpr int64_t kSmallInteger = int64_t{1} << 31;

std::optional<std::string> printable_text(const Blob& bytes) {
  if (bytes.size() == 0 || bytes.size() > kMaxTextValue) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t c = bytes.data()[i];
    if (c < 0x20 || c > 0x7e) return std::nullopt;
    out += static_cast<char>(c);
  }
  return out;
}

std::optional<int64_t> small_integer(const Blob& bytes) {
  int64_t v = 0;
  switch (bytes.size()) {
    case 1: v = bytes.data()[0]; break;
    case 4: v = read_le<int32_t>(bytes.data()); break;
    case 8: v = read_le<int64_t>(bytes.data()); break;
    default: return std::nullopt;
  }
  if (v <= -kSmallInteger || v >= kSmallInteger) return std::nullopt;
  return v;
}

}  // namespace

Json compile_spec_json(const TableValue& spec) {
  Json out = Json::object();
  const Value& key = spec.get("key");
  out.set("key", key.is_string() ? Json::string(key.str()) : Json::null());
  const Value& value = spec.get("value");
  const Blob empty;
  const Blob& bytes = value.is_scalars() ? value.scalars() : empty;
  out.set("bytes", Json::unsigned_integer(bytes.size()));
  // Text first: a 4-letter word is more likely text than an integer.
  if (auto text = printable_text(bytes)) {
    out.set("value", Json::string(*text));
  } else if (auto number = small_integer(bytes)) {
    out.set("value", Json::integer(*number));
  } else {
    out.set("value", Json::null());
  }
  return out;
}

LargestConstants::LargestConstants(const TableValue& program) {
  // As the runtime decides: more than the placeholder offset means the
  // constants live in the segment.
  const Value& cs = program.get("constant_segment");
  const bool in_segment = cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1;
  storage_ = in_segment ? "constant_segment.offsets[" : "constant_buffer[";
}

void LargestConstants::add(size_t plan, size_t value, const TensorView& t) {
  if (t.data != TensorData::kConstant || !seen_.insert(t.data_buffer_idx).second) return;
  std::optional<uint64_t> bytes = view_nbytes(t);
  std::string name = t.fqn ? *t.fqn : value_path(plan, value);
  std::string where = storage_ + std::to_string(t.data_buffer_idx) + "]";
  entries_.push_back({bytes.value_or(0), t, std::move(name), std::move(where)});
}

Json LargestConstants::json() {
  const size_t keep = std::min(entries_.size(), kLargestCount);
  std::partial_sort(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(keep), entries_.end(),
                    [](const Entry& a, const Entry& b) { return a.bytes > b.bytes; });
  Json out = Json::array();
  for (size_t i = 0; i < keep; ++i) {
    const Entry& e = entries_[i];
    Json j = Json::object();
    j.set("name", Json::string(e.name));
    j.set("bytes", Json::unsigned_integer(e.bytes));
    set_dtype_shape(j, e.view);
    j.set("where", Json::string(e.where));
    out.push(std::move(j));
  }
  return out;
}

Json weights_json(const Json& by_category, uint64_t delegate_constants) {
  auto bytes = [&](const char* name) {
    const Json* v = by_category.find(name);
    return v ? v->as_uint64().value_or(0) : 0;
  };
  const uint64_t blobs = bytes("delegateBlobs");
  const uint64_t inside = std::min(delegate_constants, blobs);
  Json out = Json::object();
  out.set("constants", Json::unsigned_integer(bytes("constants")));
  out.set("namedData", Json::unsigned_integer(bytes("namedData")));
  out.set("delegateConstants", Json::unsigned_integer(inside));
  out.set("delegateGraphs", Json::unsigned_integer(blobs - inside));
  const uint64_t total = checked_add(bytes("constants"), bytes("namedData")).value_or(UINT64_MAX);
  out.set("total", Json::unsigned_integer(checked_add(total, inside).value_or(UINT64_MAX)));
  return out;
}

}  // namespace etpack
