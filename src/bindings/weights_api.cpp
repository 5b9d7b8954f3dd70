// The embind surface of weights, safetensors and diff's hashing (issue 28):
// `weights(op, request, host)` plans in the core what the JS glue
// (npm/src/weights.mjs, safetensors.mjs, diff.mjs, program-tensors.mjs)
// then carries out by moving bytes. Requests are JSON text; byte inputs are
// heap references {"ptr", "len"} the glue copied in (safetensors headers,
// tensors to permute) and frees after the call. Kept beside api.cpp, in its
// own EMSCRIPTEN_BINDINGS block, so the two evolve without touching.
#include <cstring>
#include <unordered_set>

#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/weights_fields.h"
#include "core/sha256.h"
#include "encode/safetensors_writer.h"
#include "model/scalar_type.h"
#include "ops/diff_ranges.h"
#include "ops/diff_values.h"
#include "ops/weights_layout.h"
#include "ops/weights_match.h"
#include "read/program_tensors.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "read/safetensors_index.h"
#include "read/safetensors_reader.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Result<NamedTensor> tensor_from_json(const Json& j) {
  NamedTensor t;
  const Json* name = j.find("name");
  t.has_name = name && name->is_string();
  if (t.has_name) t.name = name->text();
  if (const Json* path = j.find("path"); path && path->is_string()) t.path = path->text();
  const Json* type = j.find("scalar_type");
  if (!type || !type->as_int64()) return make_error(ErrorCode::kInvalidArgument, "tensor lacks scalar_type");
  t.scalar_type = *type->as_int64();
  if (const Json* sizes = j.find("sizes"); sizes && sizes->is_array())
    for (const Json& s : sizes->items()) {
      if (!s.as_int64()) return make_error(ErrorCode::kInvalidArgument, "tensor sizes must be integers");
      t.sizes.push_back(*s.as_int64());
    }
  if (const Json* order = j.find("dim_order"); order && order->is_array())
    for (const Json& d : order->items()) {
      auto v = d.as_uint64();
      if (!v || *v > 255) return make_error(ErrorCode::kInvalidArgument, "tensor dim_order must be bytes");
      t.dim_order.push_back(static_cast<uint8_t>(*v));
    }
  if (const Json* e = j.find("external"); e && e->is_bool()) t.external = e->bool_value();
  if (const Json* b = j.find("buffer"); b && b->as_uint64()) t.data_buffer_idx = *b->as_uint64();
  return t;
}

Result<std::vector<NamedTensor>> tensors_from_json(const Json* list) {
  std::vector<NamedTensor> out;
  if (!list || !list->is_array()) return make_error(ErrorCode::kInvalidArgument, "request lacks the program's tensors");
  for (const Json& j : list->items()) {
    ETP_ASSIGN(NamedTensor t, tensor_from_json(j));
    out.push_back(std::move(t));
  }
  return out;
}

Result<SafetensorsHeader> header_from_json(const Json& f, const std::string& file) {
  ETP_ASSIGN(uint64_t size, uint_field(f, "size"));
  ETP_ASSIGN(std::string_view header, bytes_field(f, "header"));
  return read_safetensors_header(header, size, file);
}

// {target, rename, files: [{file, size, header, expect?, index?}], program: [...]}
Status match(const Json& request, Output& out) {
  ETP_ASSIGN(std::string target, text_field(request, "target"));
  std::vector<std::pair<std::string, std::string>> rename;
  if (const Json* rules = request.find("rename"); rules && rules->is_array())
    for (const Json& r : rules->items()) {
      if (!r.is_array() || r.items().size() != 2 || !r.items()[0].is_string() || !r.items()[1].is_string())
        return make_error(ErrorCode::kInvalidArgument, "rename must be [[from, to], ...] of strings");
      rename.emplace_back(r.items()[0].text(), r.items()[1].text());
    }
  std::vector<CheckpointFile> files;
  const Json* list = request.find("files");
  if (!list || !list->is_array()) return make_error(ErrorCode::kInvalidArgument, "request lacks files");
  for (const Json& f : list->items()) {
    ETP_ASSIGN(std::string file, text_field(f, "file"));
    ETP_ASSIGN(SafetensorsHeader header, header_from_json(f, file));
    // A sharded checkpoint's index promised these names in this shard.
    if (const Json* expect = f.find("expect"); expect && expect->is_array()) {
      std::unordered_set<std::string_view> names;  // views of the header text (alive through this call)
      for (const SafetensorsTensor& t : header.tensors) names.insert(t.name);
      const Json* index = f.find("index");
      for (const Json& e : expect->items())
        if (!names.count(e.text()))
          return make_error(ErrorCode::kSafetensorsIndex, (index && index->is_string() ? index->text() : std::string("index")) + ": " +
                                                              escaped_name(e.text()) + " is not in " + file);
    }
    files.push_back({std::move(file), std::move(header)});
  }
  ETP_ASSIGN(Checkpoints checkpoints, collect_checkpoints(std::move(files), rename));
  const bool constants = target == "constant";
  std::vector<NamedTensor> program;
  if (const Json* pte = request.find("pte")) {
    // The program's tensors as the file holds them: names are its bytes
    // (a lone surrogate stays one, and prints escaped).
    const Json* head = pte->find("head");
    const Json* file = pte->find("file");
    if (!head || !file) return make_error(ErrorCode::kInvalidArgument, "pte needs head and file");
    ETP_ASSIGN(Blob head_bytes, blob_from_json(*head));
    ETP_ASSIGN(Blob file_bytes, blob_from_json(*file));
    ETP_ASSIGN(PteFile decoded, read_pte_program(head_bytes, file_bytes.size()));
    program = named_tensors(decoded.program, head_bytes, constants);
  } else {
    ETP_ASSIGN(program, tensors_from_json(request.find("program")));
  }
  const WeightsPlan plan = match_weights(program, checkpoints, constants ? WeightsTarget::kConstant : WeightsTarget::kExternal);
  // Written by hand: names go through write_name (lone surrogates kept).
  std::string j = "{\"assigned\":[";
  auto range = [&](size_t k) {  // a checkpoint tensor: its name and bytes
    const CheckpointTensor& c = checkpoints.tensors[k];
    j += "\"name\":";
    write_name(c.name, j);
    j += ",\"file\":" + std::to_string(c.file) + ",\"offset\":" + std::to_string(checkpoints.files[c.file].header.data_start + checkpoints.at(k).begin) +
         ",\"size\":" + std::to_string(checkpoints.at(k).size());
  };
  for (size_t i = 0; i < plan.assigned.size(); ++i) {
    const WeightsAssignment& a = plan.assigned[i];
    j += (i ? "," : "") + std::string("{\"tensor\":") + std::to_string(a.tensor) + ",\"path\":\"" + program[a.tensor].path + "\",";
    range(a.checkpoint);
    j += std::string(",\"permute\":") + (a.permute ? "true" : "false") + ",\"same_as\":[";  // tied weights: each must hold equal bytes
    for (size_t k = 0; k < a.same_as.size(); ++k) {
      j += k ? ",{" : "{";
      range(a.same_as[k]);
      j += "}";
    }
    j += "]}";
  }
  j += "]";
  auto names = [&](const char* key, const std::vector<std::string>& list) {
    j += std::string(",\"") + key + "\":[";
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) j.push_back(',');
      write_name(list[i], j);
    }
    j.push_back(']');
  };
  names("written", plan.written);
  names("kept", plan.kept);
  j += ",\"unused\":[";  // straight from the checkpoint names (no copy of each)
  for (size_t k = 0; k < plan.unused.size(); ++k) {
    if (k) j.push_back(',');
    write_name(checkpoints.tensors[plan.unused[k]].name, j);
  }
  j.push_back(']');
  j += ",\"problems\":[";
  for (size_t i = 0; i < plan.problems.size(); ++i) {
    const WeightsProblem& p = plan.problems[i];
    j += i ? ",{\"name\":" : "{\"name\":";
    write_name(p.name, j);
    j += ",\"problem\":\"" + p.problem + "\",\"message\":";
    write_name(p.message, j);
    j.push_back('}');
  }
  j += "]";
  if (!plan.problems.empty()) {
    j += ",\"message\":";
    write_name(weights_mismatch(plan.problems).message, j);
  }
  j += "}";
  out.set_json(std::move(j));
  return {};
}

// {include, metadata: [[k, v]], tensors: [{..., available, source}]} -> chosen + the file's head as blob 0.
Status export_plan(const Json& request, Output& out) {
  std::vector<std::string> include;
  if (const Json* inc = request.find("include"); inc && inc->is_array())
    for (const Json& p : inc->items()) include.push_back(p.text());
  std::vector<ExportCandidate> candidates;
  const Json* list = request.find("tensors");
  if (!list || !list->is_array()) return make_error(ErrorCode::kInvalidArgument, "request lacks tensors");
  for (const Json& j : list->items()) {
    ETP_ASSIGN(NamedTensor t, tensor_from_json(j));
    ExportCandidate c{std::move(t), std::nullopt, ""};
    if (const Json* a = j.find("available"); a && a->as_uint64()) c.available = *a->as_uint64();
    if (const Json* s = j.find("source"); s && s->is_string()) c.source = s->text();
    candidates.push_back(std::move(c));
  }
  ETP_ASSIGN(ExportPlan plan, plan_export(candidates, include));
  std::vector<SafetensorsEntry> entries;
  for (size_t i : plan.chosen) {
    const NamedTensor& t = candidates[i].tensor;
    SafetensorsEntry e{t.name, scalar_safetensors_dtype(t.scalar_type), {}, *t.nbytes()};
    for (int64_t s : t.sizes) e.shape.push_back(static_cast<uint64_t>(s));
    entries.push_back(std::move(e));
  }
  std::vector<std::pair<std::string, std::string>> metadata;
  if (const Json* m = request.find("metadata"); m && m->is_array())
    for (const Json& kv : m->items())
      if (kv.is_array() && kv.items().size() == 2) metadata.emplace_back(kv.items()[0].text(), kv.items()[1].text());
  ETP_ASSIGN(std::string head, safetensors_head(entries, metadata));
  out.add_blob(Blob::own(std::vector<uint8_t>(head.begin(), head.end())));
  std::string j = "{\"chosen\":[";
  for (size_t k = 0; k < plan.chosen.size(); ++k)
    j += (k ? "," : "") + std::string("{\"tensor\":") + std::to_string(plan.chosen[k]) + ",\"size\":" + std::to_string(entries[k].size) +
         ",\"permute\":" + (plan.permute[k] ? "true" : "false") + "}";
  j += "],\"skipped\":[";
  for (size_t k = 0; k < plan.skipped.size(); ++k) {
    j += k ? ",{\"name\":" : "{\"name\":";
    write_name(plan.skipped[k].first, j);
    j += ",\"reason\":";
    write_name(plan.skipped[k].second, j);
    j.push_back('}');
  }
  j += "]}";
  out.set_json(std::move(j));
  return {};
}

// {bytes, scalar_type, sizes, dim_order, to_row_major} -> the permuted bytes as blob 0.
Status permute(const Json& request, Output& out) {
  ETP_ASSIGN(std::string_view bytes, bytes_field(request, "bytes"));
  ETP_ASSIGN(NamedTensor t, tensor_from_json(request));
  auto element = scalar_type_size(t.scalar_type);
  if (!element) return make_error(ErrorCode::kInvalidArgument, "unknown scalar type " + std::to_string(t.scalar_type));
  const Json* dir = request.find("to_row_major");
  // The one copy a non-trivial dim_order costs: input heap bytes -> output heap bytes.
  std::vector<uint8_t> permuted(bytes.size());
  ETP_TRY(permute_tensor(reinterpret_cast<const uint8_t*>(bytes.data()), permuted.data(), bytes.size(), t.sizes, t.dim_order, *element,
                         dir && dir->is_bool() && dir->bool_value() ? PermuteDirection::kToRowMajor : PermuteDirection::kFromRowMajor));
  out.add_blob(Blob::own(std::move(permuted)));
  out.set_json("{}");
  return {};
}

// {size, ranges: [[offset, length], ...]} -> {range_of, streams: [[start, [[end, distinct]...]]...]}
Status range_plan(const Json& request, Output& out) {
  ETP_ASSIGN(uint64_t size, uint_field(request, "size"));
  std::vector<ByteRange> ranges;
  if (const Json* list = request.find("ranges"); list && list->is_array())
    for (const Json& r : list->items()) {
      if (!r.is_array() || r.items().size() != 2 || !r.items()[0].as_uint64() || !r.items()[1].as_uint64())
        return make_error(ErrorCode::kInvalidArgument, "ranges must be [offset, length] pairs");
      ranges.push_back({*r.items()[0].as_uint64(), *r.items()[1].as_uint64()});
    }
  ETP_ASSIGN(RangeHashPlan plan, plan_range_hashes(ranges, size));
  std::string j = "{\"count\":" + std::to_string(plan.distinct.size()) + ",\"range_of\":[";
  for (size_t i = 0; i < plan.range_of.size(); ++i) j += (i ? "," : "") + std::to_string(plan.range_of[i]);
  j += "],\"streams\":[";
  for (size_t s = 0; s < plan.streams.size(); ++s) {
    j += (s ? ",[" : "[") + std::to_string(plan.streams[s].start) + ",[";
    for (size_t k = 0; k < plan.streams[s].ends.size(); ++k) {
      const size_t d = plan.streams[s].ends[k];
      j += (k ? ",[" : "[") + std::to_string(plan.distinct[d].offset + plan.distinct[d].length) + "," + std::to_string(d) + "]";
    }
    j += "]]";
  }
  j += "]}";
  out.set_json(std::move(j));
  return {};
}

Output* weights_js(std::string op, std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& reply) -> Status {
    Output* out = &reply;
    auto request = parse_json(request_text);
    if (!request.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + request.error().message);
    if (op == "header_size") {
      ETP_ASSIGN(std::string file, text_field(*request, "file"));
      ETP_ASSIGN(uint64_t size, uint_field(*request, "size"));
      ETP_ASSIGN(std::string_view probe, bytes_field(*request, "probe"));
      ETP_ASSIGN(uint64_t n, safetensors_header_size(probe, size, file));
      out->set_json("{\"header_size\":" + std::to_string(n) + "}");
      return {};
    }
    if (op == "header") {
      ETP_ASSIGN(std::string file, text_field(*request, "file"));
      ETP_ASSIGN(SafetensorsHeader h, header_from_json(*request, file));
      std::string j = "{\"header_size\":" + std::to_string(h.header_size) + ",\"data_start\":" + std::to_string(h.data_start) + ",\"metadata\":[";
      for (size_t i = 0; i < h.metadata.size(); ++i) {
        j += i ? ",[" : "[";
        write_name(h.metadata[i].first, j);
        j.push_back(',');
        write_name(h.metadata[i].second, j);
        j.push_back(']');
      }
      j += "],\"tensors\":[";
      for (size_t i = 0; i < h.tensors.size(); ++i) {
        const SafetensorsTensor& t = h.tensors[i];
        j += i ? ",[" : "[";
        write_name(t.name, j);
        j += std::string(",\"") + t.dtype + "\"," + (t.scalar_type ? std::to_string(*t.scalar_type) : "null") + ",[";
        for (size_t k = 0; k < t.shape.size(); ++k) j += (k ? "," : "") + std::to_string(t.shape[k]);
        j += "]," + std::to_string(h.data_start + t.begin) + "," + std::to_string(t.size()) + "]";
      }
      out->set_json(j + "]}");
      return {};
    }
    if (op == "index") {  // {file, text}: the shards of a model.safetensors.index.json
      ETP_ASSIGN(std::string file, text_field(*request, "file"));
      ETP_ASSIGN(std::string_view text, bytes_field(*request, "text"));
      ETP_ASSIGN(std::vector<SafetensorsShard> shards, read_safetensors_index(text, file));
      std::string j = "{\"shards\":[";
      for (size_t i = 0; i < shards.size(); ++i) {
        j += i ? ",[" : "[";
        write_name(shards[i].file, j);
        j += ",[";
        for (size_t k = 0; k < shards[i].tensors.size(); ++k) {
          if (k) j.push_back(',');
          write_name(shards[i].tensors[k], j);
        }
        j += "]]";
      }
      out->set_json(j + "]}");
      return {};
    }
    if (op == "tensor_names") {  // {pte}: [[path, fqn]] of every Tensor value with a name
      // Names as the file holds them (a lone surrogate stays one, and JSON
      // gives it back escaped): the JS walk of the deserialized program has
      // them as decoded text, where it is U+FFFD.
      const Json* pte = request->find("pte");
      if (!pte || !pte->find("head") || !pte->find("file")) return make_error(ErrorCode::kInvalidArgument, "tensor_names needs the pte");
      ETP_ASSIGN(Blob head, blob_from_json(*pte->find("head")));
      ETP_ASSIGN(Blob file, blob_from_json(*pte->find("file")));
      ETP_ASSIGN(PteFile decoded, read_pte_program(head, file.size()));
      std::string j = "{\"names\":[";
      bool first = true;
      for_each_tensor(decoded.program, [&](size_t p, size_t v, const TableValue& tensor) {
        const Value& extra = tensor.get("extra_tensor_info");
        if (!extra.is_table()) return;
        const Value& fqn = extra.table().get("fully_qualified_name");
        if (!fqn.is_string()) return;
        j += first ? "[\"" : ",[\"";
        first = false;
        j += value_path(p, v) + "\",";
        write_name(fqn.str(), j);
        j.push_back(']');
      });
      out->set_json(j + "]}");
      return {};
    }
    if (op == "ptd_keys") {  // {ptd}: {"keys": [[key, segment, layout | null], ...]} of every named-data entry, in file order
      // Keys as the file holds them, like tensor_names: the JS payload of
      // FlatTensorSerializer.deserialize has them as decoded text (a lone
      // surrogate as U+FFFD, two such keys as one).
      const Json* ptd = request->find("ptd");
      if (!ptd || !ptd->find("head") || !ptd->find("file")) return make_error(ErrorCode::kInvalidArgument, "ptd_keys needs the ptd");
      ETP_ASSIGN(Blob head, blob_from_json(*ptd->find("head")));
      ETP_ASSIGN(Blob file, blob_from_json(*ptd->find("file")));
      ETP_ASSIGN(PtdFile decoded, deserialize_ptd(head, file));
      std::string j = "{\"keys\":[";
      for (size_t i = 0; i < decoded.payload.named_data.size(); ++i) {
        const auto& [key, entry] = decoded.payload.named_data[i];
        j += i ? ",[" : "[";
        write_name(key, j);
        j += "," + std::to_string(entry.buffer_index) + ",";
        if (!entry.tensor_layout) {
          j += "null]";
          continue;
        }
        const TensorLayout& l = *entry.tensor_layout;
        j += "{\"scalar_type\":" + std::to_string(l.scalar_type) + ",\"sizes\":[";
        for (size_t k = 0; k < l.sizes.size(); ++k) j += (k ? "," : "") + std::to_string(l.sizes[k]);
        j += "],\"dim_order\":[";
        for (size_t k = 0; k < l.dim_order.size(); ++k) j += (k ? "," : "") + std::to_string(l.dim_order[k]);
        j += "]}]";
      }
      out->set_json(j + "]}");
      return {};
    }
    if (op == "match") return match(*request, *out);
    if (op == "export") return export_plan(*request, *out);
    if (op == "permute") return permute(*request, *out);
    if (op == "range_plan") return range_plan(*request, *out);
    if (op == "nan_values") {
      const Json* pte = request->find("pte");
      if (!pte || !pte->find("head") || !pte->find("file")) return make_error(ErrorCode::kInvalidArgument, "nan_values needs the pte");
      ETP_ASSIGN(Blob head, blob_from_json(*pte->find("head")));
      ETP_ASSIGN(Blob file, blob_from_json(*pte->find("file")));
      ETP_ASSIGN(PteFile decoded, read_pte_program(head, file.size()));
      std::string j = "{\"nans\":[";
      const auto nans = nan_values(decoded.program);
      static const char* kHex = "0123456789abcdef";
      for (size_t i = 0; i < nans.size(); ++i) {
        j += (i ? ",[\"" : "[\"") + nans[i].path + "\",\"0x";
        for (int shift = 60; shift >= 0; shift -= 4) j.push_back(kHex[(nans[i].bits >> shift) & 15]);
        j += "\"]";
      }
      out->set_json(j + "]}");
      return {};
    }
    return make_error(ErrorCode::kInvalidArgument, "unknown weights operation " + op);
  });
}

// SHA-256 whose state can be copied mid-stream (diff's shared-start ranges),
// for hosts without a synchronous, copyable hash (browsers).
class Sha256State {
 public:
  void update(double ptr, double len) {
    hasher_.update(reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(ptr)), static_cast<size_t>(len));
  }
  std::string finish() {
    auto d = hasher_.finish();
    return to_hex(d.data(), d.size());
  }
  Sha256State* copy() const { return new Sha256State(*this); }

 private:
  Sha256 hasher_;
};

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_weights) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("weights", &weights_js, allow_raw_pointers());
  class_<Sha256State>("Sha256State")
      .constructor<>()
      .function("update", &Sha256State::update)
      .function("finish", &Sha256State::finish)
      .function("copy", &Sha256State::copy, allow_raw_pointers());
}
