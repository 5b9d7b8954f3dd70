#include "conformance/conformance_runner.h"
#include "conformance/bundled_case.h"

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "encode/ptd_writer.h"
#include "ops/serialize_for_executorch.h"
#include "model/value_json.h"
#include "read/pte_reader.h"
#include "read/ptd_reader.h"

namespace etpack::conformance {
namespace {

std::string join_path(const std::string& a, const std::string& b) { return a + "/" + b; }

Result<std::optional<TensorLayout>> layout_from_json(const Json& j) {
  if (j.is_null()) return std::optional<TensorLayout>();
  TensorLayout l;
  const Json* st = j.find("scalar_type");
  if (st == nullptr || !st->as_int64()) return make_error(ErrorCode::kInvalidArgument, "tensor_layout without scalar_type");
  l.scalar_type = static_cast<int8_t>(*st->as_int64());
  if (const Json* sizes = j.find("sizes"))
    for (const Json& s : sizes->items()) l.sizes.push_back(static_cast<int32_t>(s.as_int64().value_or(0)));
  if (const Json* dims = j.find("dim_order"))
    for (const Json& d : dims->items()) l.dim_order.push_back(static_cast<uint8_t>(d.as_int64().value_or(0)));
  return std::optional<TensorLayout>(std::move(l));
}

bool same_bytes(const Blob& got, const Blob& want) { return got.same_bytes(want); }

std::string first_difference(const std::vector<uint8_t>& got, const Blob& want) {
  size_t n = std::min<size_t>(got.size(), want.size());
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want.data()[i]) return "first difference at byte " + std::to_string(i);
  return "sizes differ: got " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
}

// Compares a store output with the expected JSON form (buffers as files).
std::string compare_store(const NamedDataStoreOutput& got, const Json& want, const std::string& dir) {
  auto expected = store_output_from_json(want, dir);
  if (!expected.ok()) return "bad expected store: " + expected.error().message;
  if (got.buffers.size() != expected->buffers.size())
    return "buffer count " + std::to_string(got.buffers.size()) + " != " + std::to_string(expected->buffers.size());
  for (size_t i = 0; i < got.buffers.size(); ++i)
    if (!same_bytes(got.buffers[i], expected->buffers[i])) return "buffer " + std::to_string(i) + " differs";
  auto same_entries = [](const EntryMap& a, const EntryMap& b) { return a == b; };
  if (!same_entries(got.pte_data, expected->pte_data)) return "pte_data differs";
  if (got.external_data.size() != expected->external_data.size())
    return "external tag count " + std::to_string(got.external_data.size()) + " != " +
           std::to_string(expected->external_data.size());
  for (size_t i = 0; i < got.external_data.size(); ++i) {
    if (got.external_data[i].first != expected->external_data[i].first)
      return "tag " + std::to_string(i) + " is '" + got.external_data[i].first + "', expected '" +
             expected->external_data[i].first + "'";
    if (!same_entries(got.external_data[i].second, expected->external_data[i].second))
      return "entries of tag '" + got.external_data[i].first + "' differ";
  }
  return "";
}

CaseResult check_error(CaseResult r, const Error& error, const Json& expected) {
  std::string want_code = expected_code(expected);
  std::string got_code = error_code_name(error.code);
  const Json* text = expected.find("error");
  std::string fact = text != nullptr ? text->text() : "";
  if (expected.find("error_type") && expected.find("error_type")->text() == "KeyError" && fact.size() > 2 && fact.front() == '\'')
    fact = fact.substr(1, fact.size() - 2);
  if (got_code != want_code) {
    r.detail = "error code " + got_code + " (" + error.message + "), expected " + want_code;
    return r;
  }
  if (!fact.empty() && error.message.find(fact) == std::string::npos) {
    r.detail = "message '" + error.message + "' does not contain '" + fact + "'";
    return r;
  }
  r.passed = true;
  return r;
}

CaseResult run_store_case(CaseResult r, const Json& c, const std::string& dir) {
  NamedDataStore store;
  Status status;
  for (const Json& op : c.find("store_ops")->items()) {
    std::string name = op.find("op")->text();
    if (name == "add_named_data") {
      auto data = read_file(join_path(dir, op.find("data")->text()));
      if (!data.ok()) return r.detail = data.error().message, r;
      auto layout = layout_from_json(*op.find("tensor_layout"));
      if (!layout.ok()) return r.detail = layout.error().message, r;
      const Json* tag = op.find("external_tag");
      int64_t alignment = op.find("alignment")->as_int64().value_or(-1);
      if (alignment < 0) {
        status = make_error(ErrorCode::kInvalidAlignment, "Alignment must be greater than 0, received " + op.find("alignment")->text() + ".");
      } else {
        status = store.add_named_data(op.find("key")->text(), *data, static_cast<uint64_t>(alignment),
                                      tag->is_null() ? std::nullopt : std::optional<std::string>(tag->text()), *layout);
      }
    } else if (name == "merge_named_data_store") {
      auto other = store_output_from_json(*op.find("other"), dir);
      if (!other.ok()) return r.detail = other.error().message, r;
      status = store.merge_named_data_store(*other);
    } else if (name == "externalize_pte_data") {
      int64_t cap = op.find("max_data_bytes")->as_int64().value_or(0);
      if (cap <= 0) {
        status = make_error(ErrorCode::kInvalidArgument, "external data shard cap must be a positive integer, got " +
                                                             op.find("max_data_bytes")->text());
      } else {
        status = store.externalize_pte_data(static_cast<uint64_t>(cap), op.find("tag_prefix")->text());
      }
    } else {
      r.detail = "unknown store op " + name;
      return r;
    }
    if (!status.ok()) break;
  }
  const Json& expected = *c.find("expected");
  if (expected.find("error")) {
    if (status.ok()) return r.detail = "expected an error, got success", r;
    return check_error(r, status.error(), expected);
  }
  if (!status.ok()) return r.detail = std::string(error_code_name(status.error().code)) + ": " + status.error().message, r;
  r.detail = compare_store(store.get_named_data_store_output(), *expected.find("output"), dir);
  r.passed = r.detail.empty();
  return r;
}

struct SerializeInputs {
  EmitterOutput emitter;
  PteConfig config;
  FlatTensorConfig data_config;
  std::optional<NamedDataStoreOutput> store;
};

Result<SerializeInputs> serialize_inputs(const Json& c, const std::string& dir) {
  SerializeInputs in;
  ETP_ASSIGN(Json program_json, read_json_file(join_path(dir, c.find("program")->text())));
  ETP_ASSIGN(in.emitter.program, table_from_json(program_json, *program_schema().root));
  const Json* mutable_data = c.find("mutable_data");
  if (mutable_data != nullptr && mutable_data->is_array()) {
    in.emitter.has_mutable_data = true;
    for (const Json& f : mutable_data->items()) {
      ETP_ASSIGN(Blob b, read_file(join_path(dir, f.text())));
      in.emitter.mutable_data.push_back(b);
    }
  }
  if (const Json* map = c.find("external_constant_map")) {
    for (const auto& [tag, fqns] : map->members()) {
      std::vector<std::pair<std::string, uint32_t>> list;
      for (const auto& [fqn, index] : fqns.members())
        list.emplace_back(fqn, static_cast<uint32_t>(index.as_uint64().value_or(0)));
      in.emitter.external_constant_map.emplace_back(tag, std::move(list));
    }
  }
  if (const Json* buffers = c.find("external_constant_buffer")) {
    for (const Json& f : buffers->items()) {
      ETP_ASSIGN(Blob b, read_file(join_path(dir, f.text())));
      in.emitter.external_constant_buffer.push_back(b);
    }
  }
  const Json* store = c.find("named_data_store");
  if (store != nullptr && !store->is_null()) {
    ETP_ASSIGN(NamedDataStoreOutput s, store_output_from_json(*store, dir));
    in.store = std::move(s);
  }
  if (const Json* config = c.find("config")) {
    if (const Json* v = config->find("extract_delegate_segments")) in.config.extract_delegate_segments = v->bool_value();
    if (const Json* v = config->find("segment_alignment"); v && !v->is_null()) in.config.segment_alignment = v->as_uint64().value_or(0);
    if (const Json* v = config->find("constant_tensor_alignment"); v && !v->is_null())
      in.config.constant_tensor_alignment = v->as_uint64().value_or(0);
    if (const Json* v = config->find("delegate_alignment"); v && !v->is_null()) in.config.delegate_alignment = v->as_uint64().value_or(0);
  }
  if (const Json* dc = c.find("data_serializer_config")) {
    if (const Json* v = dc->find("segment_alignment"); v && !v->is_null()) in.data_config.segment_alignment = v->as_uint64().value_or(0);
  }
  return in;
}

CaseResult run_serialize_case(CaseResult r, const Json& c, const std::string& dir) {
  auto inputs = serialize_inputs(c, dir);
  if (!inputs.ok()) return r.detail = "inputs: " + inputs.error().message, r;
  FlatTensorSerializer serializer(inputs->data_config);
  const NamedDataStoreOutput* store = inputs->store ? &*inputs->store : nullptr;
  auto result = serialize_for_executorch(inputs->emitter, inputs->config, serializer, store);
  const Json& expected = *c.find("expected");
  const Json* error_type = expected.find("error_type");
  if (error_type != nullptr && error_type->text() == "AttributeError") {
    // Upstream crashes on a missing store; ours must equal an empty store's output.
    if (!result.ok()) return r.detail = "missing store failed: " + result.error().message, r;
    NamedDataStoreOutput empty;
    auto with_empty = serialize_for_executorch(inputs->emitter, inputs->config, serializer, &empty);
    if (!with_empty.ok()) return r.detail = "empty store failed: " + with_empty.error().message, r;
    if (result->pte.to_bytes().value() != with_empty->pte.to_bytes().value() || result->ptd.size() != with_empty->ptd.size())
      return r.detail = "missing store and empty store outputs differ", r;
    for (size_t i = 0; i < result->ptd.size(); ++i)
      if (result->ptd[i].first != with_empty->ptd[i].first || result->ptd[i].second.to_bytes().value() != with_empty->ptd[i].second.to_bytes().value())
        return r.detail = "missing store and empty store PTDs differ", r;
    r.passed = true;
    return r;
  }
  if (expected.find("error")) {
    if (result.ok()) return r.detail = "expected an error, got success", r;
    return check_error(r, result.error(), expected);
  }
  if (!result.ok()) return r.detail = std::string(error_code_name(result.error().code)) + ": " + result.error().message, r;
  auto want_pte = read_file(join_path(dir, expected.find("pte")->text()));
  if (!want_pte.ok()) return r.detail = want_pte.error().message, r;
  std::vector<uint8_t> pte = result->pte.to_bytes().value();
  if (!same_bytes(Blob::view(pte.data(), pte.size()), *want_pte)) return r.detail = "pte: " + first_difference(pte, *want_pte), r;
  const Json* ptd = expected.find("ptd");
  size_t want_count = ptd != nullptr ? ptd->members().size() : 0;
  if (result->ptd.size() != want_count)
    return r.detail = "got " + std::to_string(result->ptd.size()) + " ptd files, expected " + std::to_string(want_count), r;
  for (size_t i = 0; i < want_count; ++i) {
    const auto& [tag, file] = ptd->members()[i];
    if (result->ptd[i].first != tag) return r.detail = "ptd " + std::to_string(i) + " has tag '" + result->ptd[i].first + "', expected '" + tag + "'", r;
    auto want = read_file(join_path(dir, file.text()));
    if (!want.ok()) return r.detail = want.error().message, r;
    std::vector<uint8_t> got = result->ptd[i].second.to_bytes().value();
    if (!same_bytes(Blob::view(got.data(), got.size()), *want)) return r.detail = "ptd '" + tag + "': " + first_difference(got, *want), r;
  }
  r.passed = true;
  return r;
}

CaseResult run_deserialize_pte_case(CaseResult r, const Json& c, const std::string& dir) {
  auto file = read_file(join_path(dir, c.find("deserialize_pte")->text()));
  if (!file.ok()) return r.detail = file.error().message, r;
  auto pte = deserialize_pte_binary(*file);
  if (!pte.ok()) return r.detail = std::string(error_code_name(pte.error().code)) + ": " + pte.error().message, r;
  const Json& expected = *c.find("expected");
  auto want_program = read_json_file(join_path(dir, expected.find("program")->text()));
  if (!want_program.ok()) return r.detail = want_program.error().message, r;
  Json got = table_to_json(pte->program);
  // Upstream turns an absent named_data into []; we keep absent apart (so a
  // rewrite reproduces the file). Both mean "no named data".
  for (auto& [name, value] : got.members()) {
    const Json* want = want_program->find(name);
    if (name == "named_data" && value.is_null() && want && want->is_array() && want->items().empty()) value = Json::array();
  }
  if (!got.equals(*want_program)) return r.detail = "restored program differs from program.json", r;
  const Json* mutable_data = expected.find("mutable_data");
  if (mutable_data == nullptr || mutable_data->is_null()) {
    if (pte->mutable_data) return r.detail = "restored mutable data, expected none", r;
  } else {
    if (!pte->mutable_data || pte->mutable_data->size() != mutable_data->items().size())
      return r.detail = "mutable data count differs", r;
    for (size_t i = 0; i < mutable_data->items().size(); ++i) {
      auto want = read_file(join_path(dir, mutable_data->items()[i].text()));
      if (!want.ok()) return r.detail = want.error().message, r;
      if (!same_bytes((*pte->mutable_data)[i], *want)) return r.detail = "mutable data " + std::to_string(i) + " differs", r;
    }
  }
  const Json* store = expected.find("named_data_store");
  if (store == nullptr || store->is_null()) {
    if (pte->named_data) return r.detail = "restored named data, expected none", r;
  } else {
    if (!pte->named_data) return r.detail = "no named data restored", r;
    r.detail = compare_store(*pte->named_data, *store, dir);
    if (!r.detail.empty()) return r;
  }
  r.passed = true;
  return r;
}

CaseResult run_deserialize_ptd_case(CaseResult r, const Json& c, const std::string& dir) {
  auto file = read_file(join_path(dir, c.find("deserialize_ptd")->text()));
  if (!file.ok()) return r.detail = file.error().message, r;
  auto ptd = deserialize_ptd(*file);
  if (!ptd.ok()) return r.detail = std::string(error_code_name(ptd.error().code)) + ": " + ptd.error().message, r;
  const Json& expected = *c.find("expected");
  Json as_store = Json::object();
  as_store.set("buffers", *expected.find("buffers"));
  as_store.set("pte_data", *expected.find("named_data"));
  as_store.set("external_data", Json::object());
  NamedDataStoreOutput got;
  got.buffers = ptd->payload.buffers;
  got.pte_data = ptd->payload.named_data;
  r.detail = compare_store(got, as_store, dir);
  r.passed = r.detail.empty();
  return r;
}

}  // namespace

Result<Blob> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(ErrorCode::kIoError, "cannot open " + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return Blob::own(std::move(bytes));
}

Result<Json> read_json_file(const std::string& path) {
  ETP_ASSIGN(Blob b, read_file(path));
  return parse_json(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

Result<EntryMap> entries_from_json(const Json& j) {
  EntryMap out;
  for (const auto& [key, e] : j.members()) {
    DataEntry entry;
    entry.buffer_index = static_cast<uint32_t>(e.find("buffer_index")->as_uint64().value_or(0));
    entry.alignment = e.find("alignment")->as_uint64().value_or(1);
    ETP_ASSIGN(entry.tensor_layout, layout_from_json(*e.find("tensor_layout")));
    out.emplace_back(key, std::move(entry));
  }
  return out;
}

Result<NamedDataStoreOutput> store_output_from_json(const Json& j, const std::string& dir) {
  NamedDataStoreOutput out;
  for (const Json& f : j.find("buffers")->items()) {
    ETP_ASSIGN(Blob b, read_file(join_path(dir, f.text())));
    out.buffers.push_back(b);
  }
  ETP_ASSIGN(out.pte_data, entries_from_json(*j.find("pte_data")));
  for (const auto& [tag, entries] : j.find("external_data")->members()) {
    ETP_ASSIGN(EntryMap m, entries_from_json(entries));
    out.external_data.emplace_back(tag, std::move(m));
  }
  return out;
}

std::string expected_code(const Json& expected) {
  const Json* e = expected.find("error");
  const Json* t = expected.find("error_type");
  std::string text = e ? e->text() : "";
  if (t && t->text() == "KeyError") return "EXTERNAL_TENSOR_NOT_FOUND";
  struct Rule { const char* phrase; const char* code; };
  static const Rule kRules[] = {
      {"Bad constant_tensor_alignment", "INVALID_ALIGNMENT"},
      {"Bad delegate_alignment", "INVALID_ALIGNMENT"},
      {"Alignment must be greater than 0", "INVALID_ALIGNMENT"},
      {"Program must only contain inline delegate data", "DELEGATE_NOT_INLINE"},
      {"Delegate processed index", "DELEGATE_INDEX_OUT_OF_RANGE"},
      {"Did not handle all elements of backend_delegate_data", "DELEGATE_DATA_UNREFERENCED"},
      {"Program already has named data", "PROGRAM_HAS_NAMED_DATA"},
      {"Duplicate key", "DUPLICATE_KEY"},
      {"exceeds external data shard cap", "SHARD_CAP_EXCEEDED"},
      {"tag prefix must be nonempty", "INVALID_ARGUMENT"},
      {"shard cap must be a positive integer", "INVALID_ARGUMENT"},
  };
  for (const Rule& rule : kRules)
    if (text.find(rule.phrase) != std::string::npos) return rule.code;
  return "UNKNOWN(" + text + ")";
}

CaseResult run_case(const std::string& dir) {
  CaseResult r;
  r.name = dir.substr(dir.find_last_of('/') + 1);
  auto c = read_json_file(join_path(dir, "case.json"));
  if (!c.ok()) return r.detail = c.error().message, r;
  if (c->find("store_ops")) return run_store_case(r, *c, dir);
  if (c->find("deserialize_pte")) return run_deserialize_pte_case(r, *c, dir);
  if (c->find("deserialize_ptd")) return run_deserialize_ptd_case(r, *c, dir);
  if (c->find("method_test_suites")) return run_bundled_case(r, *c, dir);  // ../shared/conformance-bpte
  return run_serialize_case(r, *c, dir);
}

std::vector<std::string> find_cases(const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (const std::string& root : dirs) {
    struct stat st;
    if (stat(join_path(root, "case.json").c_str(), &st) == 0) {
      out.push_back(root);
      continue;
    }
    DIR* d = opendir(root.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (stat(join_path(join_path(root, name), "case.json").c_str(), &st) == 0) names.push_back(join_path(root, name));
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    out.insert(out.end(), names.begin(), names.end());
  }
  return out;
}

}  // namespace etpack::conformance
