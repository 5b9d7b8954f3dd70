// Helpers shared by the repack tests: build inputs, write outputs, and read
// back the bytes behind every tensor of a model.
#pragma once

#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "encode/pte_writer.h"
#include "ops/repack.h"
#include "model/scalar_type.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "test_files.h"

namespace etpack::testing {

inline std::string conformance_dir() { return ETPACK_CONFORMANCE_DIR; }
inline std::string artifacts_dir() { return ETPACK_ARTIFACTS_DIR; }

// The .ptd files beside a conformance .pte, by file name.
inline std::vector<std::pair<std::string, FileSource>> ptds_beside(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, FileSource>> out;
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".ptd") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) out.emplace_back(p.filename().string(), FileSource::in_memory(load_file(p)));
  return out;
}

inline Blob int32_vector(const std::vector<int32_t>& v) {
  std::vector<uint8_t> bytes(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i)
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<uint8_t>(static_cast<uint32_t>(v[i]) >> (8 * b));
  return Blob::own(std::move(bytes));
}

inline std::vector<int64_t> sizes_of(const TableValue& tensor) {
  std::vector<int64_t> sizes;
  const Value& s = tensor.get("sizes");
  for (size_t k = 0; k < scalar_vector_length(s, BaseType::kInt); ++k) sizes.push_back(scalar_vector_int(s, BaseType::kInt, k));
  return sizes;
}

inline Blob write_pte(const TableValue& program) {
  auto cord = serialize_pte_binary(program, nullptr, nullptr, PteConfig{});
  if (!cord.ok()) return Blob();
  return Blob::own(cord->to_bytes().value());
}

struct Outputs {
  Blob pte;
  std::vector<std::pair<std::string, Blob>> ptds;  // "<tag>.ptd"
};

// Contiguous bytes of every file (the tests' sources are in memory).
inline Outputs materialize(const SerializedArtifacts& artifacts) {
  Outputs out;
  out.pte = Blob::own(artifacts.pte.to_bytes().value());
  for (const auto& [tag, cord] : artifacts.ptd) out.ptds.emplace_back(tag + ".ptd", Blob::own(cord.to_bytes().value()));
  return out;
}

// path ("execution_plan[p].values[v]") -> the bytes the runtime hands that
// tensor: a constant's numel x element size from its constant_buffer slice
// (the reader restores the segment there), an EXTERNAL tensor's named-data
// entry from the .ptd files. Tensors without data are left out.
inline std::map<std::string, std::vector<uint8_t>> tensor_bytes(const Blob& pte_bytes,
                                                                const std::vector<std::pair<std::string, Blob>>& ptds,
                                                                std::string* problem) {
  std::map<std::string, std::vector<uint8_t>> out;
  auto pte = deserialize_pte_binary(pte_bytes);
  if (!pte.ok()) {
    *problem = "pte: " + pte.error().message;
    return out;
  }
  std::map<std::string, std::vector<uint8_t>> named;
  for (const auto& [name, bytes] : ptds) {
    auto ptd = deserialize_ptd(bytes);
    if (!ptd.ok()) {
      *problem = name + ": " + ptd.error().message;
      return out;
    }
    for (const auto& [key, entry] : ptd->payload.named_data) {
      const Blob& b = ptd->payload.buffers[entry.buffer_index];
      named[key] = std::vector<uint8_t>(b.data(), b.data() + b.size());
    }
  }
  const Value& buffers = pte->program.get("constant_buffer");
  const auto& plans = pte->program.get("execution_plan").items();
  for (size_t p = 0; p < plans.size(); ++p) {
    const Value& values = plans[p].table().get("values");
    if (!values.is_items()) continue;
    for (size_t v = 0; v < values.items().size(); ++v) {
      const Value& val = values.items()[v].table().get("val");
      if (!val.is_table() || val.table().def->name != "Tensor") continue;
      const TableValue& t = val.table();
      const std::string path = "execution_plan[" + std::to_string(p) + "].values[" + std::to_string(v) + "]";
      const Value& info = t.get("extra_tensor_info");
      if (info.is_table() && info.table().get_uint("location") == 1) {
        auto it = named.find(info.table().get("fully_qualified_name").str());
        if (it == named.end()) {
          *problem = path + ": external key not found";
          continue;
        }
        out[path] = it->second;
        continue;
      }
      uint64_t index = t.get_uint("data_buffer_idx");
      if (index == 0 || t.has("allocation_info")) continue;
      auto nbytes = tensor_nbytes(t.get_int("scalar_type"), sizes_of(t));
      if (!nbytes || !buffers.is_items() || index >= buffers.items().size()) {
        *problem = path + ": constant not readable";
        continue;
      }
      const Blob& storage = buffers.items()[index].table().get("storage").scalars();
      if (storage.size() < *nbytes) {
        *problem = path + ": constant slice too short";
        continue;
      }
      out[path] = std::vector<uint8_t>(storage.data(), storage.data() + *nbytes);
    }
  }
  return out;
}

// constant_segment.offsets of a written .pte, read from the file itself
// (deserializing would move the segment back into constant_buffer).
inline std::vector<uint64_t> constant_offsets(const Blob& pte_bytes) {
  std::vector<uint64_t> out;
  auto pte = read_pte_program(pte_bytes);
  if (!pte.ok()) return out;
  const Value& segment = pte->program.get("constant_segment");
  if (!segment.is_table()) return out;
  const Value& offsets = segment.table().get("offsets");
  for (size_t i = 0; i < scalar_vector_length(offsets, BaseType::kULong); ++i)
    out.push_back(scalar_vector_uint(offsets, BaseType::kULong, i));
  return out;
}

}  // namespace etpack::testing
