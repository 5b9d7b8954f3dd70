// EXTERNAL tensors of a .pte against the named data of its .ptd files, as
// the runtime resolves them (Method::parse_external_constants and
// validateTensorLayout): the key must exist, with a tensor layout of the
// same scalar type, sizes and dim order, and exactly the tensor's bytes.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/scalar_type.h"
#include "read/delegate/delegate_blobs.h"
#include "read/delegate/delegate_payload.h"
#include "read/delegate/payload_summary.h"
#include "validate/validate_internal.h"

namespace etpack {
namespace {

std::string type_text(int64_t scalar_type) {
  const char* name = scalar_type_name(scalar_type);
  return name ? std::string(name) + " (" + std::to_string(scalar_type) + ")" : std::to_string(scalar_type);
}

std::string dims_text(const TensorView& t) {
  return "sizes " + shape_text(t.sizes) + ", dim_order " + shape_text(std::vector<int64_t>(t.dim_order.begin(), t.dim_order.end()));
}

}  // namespace

std::unordered_set<std::string> external_keys(const TableValue& program) {
  std::unordered_set<std::string> out;
  for_each_tensor(program, [&](size_t, size_t, const TableValue& table) {
    if (!is_external(tensor_data(table))) return;
    const Value& info = table.get("extra_tensor_info");
    if (!info.is_table()) return;
    const Value& name = info.table().get("fully_qualified_name");
    if (name.is_string()) out.insert(c_string_prefix(name.str()));
  });
  return out;
}

std::unordered_set<std::string> delegate_keys(const FileSource& pte, const PteFile& file) {
  std::unordered_set<std::string> out;
  const Value& plans = file.program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    const Value& delegates = plans.items()[p].table().get("delegates");
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      const TableValue& delegate = delegates.items()[d].table();
      std::optional<Blob> blob = delegate_blob_in_memory(pte, file, delegate);
      if (!blob) continue;
      const Value& id = delegate.get("id");
      auto payload = decode_delegate_in_program(*blob, id.is_string() ? id.str() : std::string());
      if (!payload.ok()) continue;  // DELEGATE_PAYLOAD_INVALID (validate_delegates.cpp)
      for (const PayloadNamedKey& k : summarize_payload(*payload).named_keys) out.insert(c_string_prefix(k.key));
    }
  }
  return out;
}

void check_external_tensors(FindingSink& sink, const Blob& file, const PteFile& pte, const PtdIndex& index,
                            bool have_ptds) {
  std::unordered_set<std::string> reported;  // fqns already reported as missing or unresolved
  // Out of line and small (ETPACK_COLD): only EXTERNAL tensors get here.
  auto external = [&](size_t p, size_t v, const TableValue& table) ETPACK_COLD {
    TensorView t = view_tensor(table, file);
    if ((t.data != TensorData::kExternalConstant && t.data != TensorData::kExternalMutable) || !t.fqn) return;
    const std::string path = value_path(p, v);
    // parse_external_constants passes fully_qualified_name()->c_str() as
    // the key (method.cpp): a NUL inside ends the name there.
    const std::string fqn = c_string_prefix(*t.fqn);
    if (fqn.size() != t.fqn->size())
      sink.warning(finding::kNameTruncatedAtNul,
                   path + ".val.extra_tensor_info.fully_qualified_name '" + printable_name(*t.fqn) +
                       "' holds a NUL: the runtime reads it as a C string and looks up '" + fqn +
                       "' (method.cpp parse_external_constants)",
                   [&]() -> std::optional<uint64_t> {
                     const std::optional<uint64_t> start = fqn_offset(file, p, v);
                     return start ? std::optional<uint64_t>(*start + fqn.size()) : std::nullopt;  // the NUL
                   }(),
                   path + ".val.extra_tensor_info.fully_qualified_name");
    auto found = index.find(fqn);
    if (!have_ptds || found == index.end()) {
      if (!reported.insert(fqn).second) return;
      if (!have_ptds)
        sink.error(finding::kExternalTensorUnresolved,
                   path + " is the EXTERNAL tensor '" + fqn +
                       "'; no .ptd was given to resolve it: without a .ptd providing it, load_method fails "
                       "(InvalidState). Validate with the .ptd files the program ships with",
                   t.sizes_offset, path);
      else
        sink.error(finding::kExternalTensorNotFound,
                   path + " is the EXTERNAL tensor '" + fqn +
                       "', in none of the given .ptd files; load_method would fail (NotFound)",
                   t.sizes_offset, path);
      return;
    }
    const PtdEntry& entry = found->second.front();
    // A key in several files is refused before any tensor is resolved
    // (check_data_files_merge); the first file is the one judged here.
    const std::string where = "'" + fqn + "' in " + entry.file + " (" + entry.path + ")";
    if (!entry.layout) {
      sink.error(finding::kExternalTensorNoLayout,
                 path + " resolves to " + where +
                     ", which has no tensor_layout; the runtime dereferences the missing layout and crashes "
                     "(extension/flat_tensor/flat_tensor_data_map.cpp)",
                 t.sizes_offset, path);
      return;
    }
    const TensorView& layout = *entry.layout;
    if (layout.scalar_type != t.scalar_type)
      sink.error(finding::kExternalTensorTypeMismatch,
                 path + " has scalar type " + type_text(t.scalar_type) + ", " + where + " " + type_text(layout.scalar_type) +
                     "; the runtime refuses this: InvalidExternalData",
                 t.sizes_offset, path);
    if (layout.rank != t.rank || layout.sizes != t.sizes || layout.dim_order_length != t.dim_order_length ||
        layout.dim_order != t.dim_order)
      sink.error(finding::kExternalTensorShapeMismatch,
                 path + " has " + dims_text(t) + ", " + where + " has " + dims_text(layout) +
                     "; the runtime refuses this: InvalidExternalData",
                 t.sizes_offset, path);
    // The runtime never compares the two: a constant points at its segment's
    // first bytes (get_data), mutable data loads the layout's nbytes from
    // the segment's start (load_data_into). Fewer bytes there: the tensor
    // runs into the bytes after them.
    std::optional<uint64_t> nbytes = view_nbytes(t);
    if (nbytes && entry.data_size && *nbytes > *entry.data_size)
      sink.error(finding::kExternalTensorSizeMismatch,
                 path + " needs " + std::to_string(*nbytes) + " bytes, " + where + " holds " +
                     std::to_string(*entry.data_size) + "; the runtime would silently hand the tensor other bytes",
                 t.sizes_offset, path);
    else if (nbytes && entry.data_size && *nbytes < *entry.data_size)
      sink.warning(finding::kExternalTensorSizeMismatch,
                   path + " needs " + std::to_string(*nbytes) + " bytes, " + where + " holds " +
                       std::to_string(*entry.data_size) + "; the runtime reads the first " + std::to_string(*nbytes) +
                       " and never the rest",
                   t.sizes_offset, path);
  };
  for_each_tensor(pte.program, [&](size_t p, size_t v, const TableValue& table) {
    if (is_external(tensor_data(table))) external(p, v, table);  // no view for the other tensors
  });
}

}  // namespace etpack

namespace etpack {

// Module hands load_method its .ptd files through one MergedDataMap
// (extension/named_data_map, the only upstream way to give several), and
// MergedDataMap::load refuses a key held by two of them: InvalidArgument
// "Duplicate key ... in named data maps", before any method loads. One
// finding per pair of files, on the later file's entry of the first such key,
// with the count and the first keys, in key order (the index is unordered).
void check_data_files_merge(ValidationReport& report, const PtdIndex& index) {
  struct Pair {
    std::string first_file, second_file, path;
    std::vector<std::string> keys;
  };
  std::vector<std::pair<std::string, const std::vector<PtdEntry>*>> shared;
  for (const auto& [key, entries] : index) {
    for (const PtdEntry& e : entries)
      if (e.file != entries.front().file) {
        shared.emplace_back(key, &entries);
        break;
      }
  }
  if (shared.empty()) return;
  std::sort(shared.begin(), shared.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Pair> pairs;
  for (const auto& [key, entries] : shared) {
    const PtdEntry& first = entries->front();
    const PtdEntry* second = nullptr;
    for (const PtdEntry& e : *entries)
      if (e.file != first.file) {
        second = &e;
        break;
      }
    auto it = std::find_if(pairs.begin(), pairs.end(), [&](const Pair& p) {
      return p.first_file == first.file && p.second_file == second->file;
    });
    if (it == pairs.end()) it = pairs.insert(pairs.end(), Pair{first.file, second->file, second->path, {}});
    it->keys.push_back(key);
  }
  for (const Pair& p : pairs) {
    std::string named;
    for (size_t i = 0; i < p.keys.size() && i < 3; ++i) named += (i ? ", '" : "'") + p.keys[i] + "'";
    if (p.keys.size() > 3) named += " and " + std::to_string(p.keys.size() - 3) + " more";
    FindingSink sink(report, p.second_file);
    sink.error(finding::kDuplicateKeyAcrossFiles,
               p.first_file + " and " + p.second_file + " both hold " + std::to_string(p.keys.size()) +
                   (p.keys.size() == 1 ? " key (" : " keys (") + named +
                   "); Module merges the .ptd files it is given into one map and refuses a key in two of them "
                   "(InvalidArgument: Duplicate key), so no method loads. Keep each key in one file",
               std::nullopt, p.path + ".key");
  }
}

}  // namespace etpack
