// The weights operations that read a file and list what it holds:
// header_size, header and index of safetensors; program_tensors and
// nan_values of a .pte; ptd_keys of a .ptd (ops/weights_ops.h).
#include "core/json_writer.h"
#include "core/utf8_text.h"
#include "model/scalar_type.h"
#include "ops/diff_values.h"
#include "ops/weights_ops.h"
#include "read/program_tensors.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "read/safetensors_index.h"
#include "read/safetensors_reader.h"

namespace etpack {

Result<WeightsReply> weights_header_size(const std::string& file, uint64_t size, std::string_view probe) {
  ETP_ASSIGN(uint64_t n, safetensors_header_size(probe, size, file));
  WeightsReply reply;
  JsonWriter(reply.json).begin_object().key("header_size").number(n).end_object();
  return reply;
}

Result<WeightsReply> weights_header(const SafetensorsHeaderBytes& bytes) {
  ETP_ASSIGN(SafetensorsHeader h, read_safetensors_header(bytes.header, bytes.size, bytes.file));
  WeightsReply reply;
  JsonWriter w(reply.json);
  w.begin_object().key("header_size").number(h.header_size).key("data_start").number(h.data_start);
  w.key("metadata").begin_array();
  for (const auto& [k, v] : h.metadata) w.begin_array().string(k).string(v).end_array();
  w.end_array().key("tensors").begin_array();
  for (const SafetensorsTensor& t : h.tensors) {
    w.begin_array().string(t.name).string(t.dtype);
    if (t.scalar_type) w.integer(*t.scalar_type);
    else w.null();
    w.begin_array();
    for (uint64_t d : t.shape) w.number(d);
    w.end_array().number(h.data_start + t.begin).number(t.size()).end_array();
  }
  w.end_array().end_object();
  return reply;
}

Result<WeightsReply> weights_index(const std::string& file, std::string_view text) {
  ETP_ASSIGN(std::vector<SafetensorsShard> shards, read_safetensors_index(text, file));
  WeightsReply reply;
  JsonWriter w(reply.json);
  w.begin_object().key("shards").begin_array();
  for (const SafetensorsShard& shard : shards) {
    w.begin_array().string(shard.file).begin_array();
    for (const std::string& name : shard.tensors) w.string(name);
    w.end_array().end_array();
  }
  w.end_array().end_object();
  return reply;
}

namespace {

// Element size x sizes as a JS safe integer, as the glue's BigInt product
// gave it: nullopt for an unknown type or a negative size, 0 when a size is
// 0 (before any overflow), nullopt past 2^53 - 1.
std::optional<uint64_t> safe_nbytes(int64_t scalar_type, const std::vector<int64_t>& sizes) {
  constexpr uint64_t kMaxSafe = (uint64_t{1} << 53) - 1;
  const std::optional<uint64_t> element = scalar_type_size(scalar_type);
  if (!element) return std::nullopt;
  for (int64_t s : sizes)
    if (s < 0) return std::nullopt;
  for (int64_t s : sizes)
    if (s == 0) return 0;
  uint64_t total = *element;
  for (int64_t s : sizes) {
    if (total > kMaxSafe / static_cast<uint64_t>(s)) return std::nullopt;
    total *= static_cast<uint64_t>(s);
  }
  return total <= kMaxSafe ? std::optional<uint64_t>(total) : std::nullopt;
}

}  // namespace

Result<WeightsReply> weights_program_tensors(const FileSource& pte) {
  ETP_ASSIGN(PteFile decoded, read_pte_program(pte.head, pte.size()));
  WeightsReply reply;
  JsonWriter w(reply.json);
  w.begin_object().key("tensors").begin_array();
  for_each_tensor(decoded.program, [&](size_t p, size_t v, const TableValue& tensor) {
    const TensorData data = tensor_data(tensor);
    const char* kind = is_external(data) ? "external" : data == TensorData::kConstant ? "constant" : data == TensorData::kMutable ? "mutable" : nullptr;
    if (kind == nullptr) return;
    w.begin_array().string(kind);
    const Value& extra = tensor.get("extra_tensor_info");
    const Value* fqn = extra.is_table() ? &extra.table().get("fully_qualified_name") : nullptr;
    if (fqn && fqn->is_string()) {
      std::string text;
      append_decoded_utf8(fqn->str(), text);
      w.string(text).string(fqn->str());
    } else {
      w.null().null();
    }
    w.string(value_path(p, v));
    const int64_t scalar_type = tensor.get_int("scalar_type");
    w.integer(scalar_type).begin_array();
    std::vector<int64_t> sizes;
    if (const Value& list = tensor.get("sizes"); list.is_scalars())
      for (size_t i = 0, n = scalar_vector_length(list, BaseType::kInt); i < n; ++i) sizes.push_back(scalar_vector_int(list, BaseType::kInt, i));
    for (int64_t s : sizes) w.integer(s);
    w.end_array().begin_array();
    if (const Value& list = tensor.get("dim_order"); list.is_scalars())
      for (size_t i = 0, n = scalar_vector_length(list, BaseType::kUByte); i < n; ++i) w.number(scalar_vector_uint(list, BaseType::kUByte, i));
    w.end_array();
    if (auto nbytes = safe_nbytes(scalar_type, sizes)) w.number(*nbytes);
    else w.null();
    w.number(tensor.get_uint("data_buffer_idx")).end_array();
  });
  w.end_array().end_object();
  return reply;
}

Result<WeightsReply> weights_ptd_keys(const FileSource& ptd) {
  ETP_ASSIGN(PtdFile decoded, deserialize_ptd(ptd.head, ptd.file));
  WeightsReply reply;
  JsonWriter w(reply.json);
  w.begin_object().key("keys").begin_array();
  for (const auto& [key, entry] : decoded.payload.named_data) {
    w.begin_array().string(key).number(entry.buffer_index);
    if (!entry.tensor_layout) {
      w.null().end_array();
      continue;
    }
    const TensorLayout& l = *entry.tensor_layout;
    w.begin_object().key("scalar_type").integer(l.scalar_type).key("sizes").begin_array();
    for (auto s : l.sizes) w.integer(s);
    w.end_array().key("dim_order").begin_array();
    for (auto d : l.dim_order) w.integer(d);
    w.end_array().end_object().end_array();
  }
  w.end_array().end_object();
  return reply;
}

Result<WeightsReply> weights_nan_values(const FileSource& pte) {
  ETP_ASSIGN(PteFile decoded, read_pte_program(pte.head, pte.size()));
  WeightsReply reply;
  JsonWriter w(reply.json);
  w.begin_object().key("nans").begin_array();
  static const char* kHex = "0123456789abcdef";
  for (const NanValue& nan : nan_values(decoded.program)) {
    std::string bits = "0x";
    for (int shift = 60; shift >= 0; shift -= 4) bits.push_back(kHex[(nan.bits >> shift) & 15]);
    w.begin_array().string(nan.path).string(bits).end_array();
  }
  w.end_array().end_object();
  return reply;
}

}  // namespace etpack
