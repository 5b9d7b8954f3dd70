// The weights requests of the one request parser (bindings/request.h).
#include "bindings/request.h"

namespace etpack::bindings {
namespace {

Error bad(const std::string& message) { return make_error(ErrorCode::kInvalidArgument, message); }

// [[a, b], ...] of strings into pairs; `strict`: anything else is `message`,
// else skipped.
Result<std::vector<std::pair<std::string, std::string>>> string_pairs(const Json* list, bool strict, const char* message) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!list || !list->is_array()) return out;
  for (const Json& r : list->items()) {
    const bool pair = r.is_array() && r.items().size() == 2;
    if (strict && (!pair || !r.items()[0].is_string() || !r.items()[1].is_string())) return bad(message);
    if (pair) out.emplace_back(r.items()[0].text(), r.items()[1].text());
  }
  return out;
}

}  // namespace

Result<std::string> text_field(const Json& j, const char* key) {
  const Json* v = j.find(key);
  if (!v || !v->is_string()) return bad(std::string("request lacks string ") + key);
  return v->text();
}

Result<uint64_t> uint_field(const Json& j, const char* key) {
  const Json* v = j.find(key);
  auto n = v ? v->as_uint64() : std::nullopt;
  if (!n) return bad(std::string("request lacks integer ") + key);
  return *n;
}

Result<std::string_view> bytes_field(const Json& j, const char* key) {
  const Json* v = j.find(key);
  if (!v) return bad(std::string("request lacks bytes ") + key);
  ETP_ASSIGN(Blob b, blob_from_json(*v));
  if (b.is_external()) return bad(std::string(key) + " must be heap bytes");
  return std::string_view(reinterpret_cast<const char*>(b.data()), static_cast<size_t>(b.size()));
}

Result<FileSource> weights_file(const Json& request, const char* key, const char* op) {
  const Json* member = request.find(key);
  if (!member || !member->find("head") || !member->find("file")) return bad(std::string(op) + " needs the " + key);
  FileSource source;
  ETP_ASSIGN(source.head, blob_from_json(*member->find("head")));
  ETP_ASSIGN(source.file, blob_from_json(*member->find("file")));
  return source;
}

Result<SafetensorsHeaderBytes> safetensors_header_bytes(const Json& request) {
  SafetensorsHeaderBytes out;
  ETP_ASSIGN(out.file, text_field(request, "file"));
  ETP_ASSIGN(out.size, uint_field(request, "size"));
  ETP_ASSIGN(out.header, bytes_field(request, "header"));
  return out;
}

Result<NamedTensor> named_tensor_from_json(const Json& j) {
  NamedTensor t;
  const Json* name = j.find("name");
  t.has_name = name && name->is_string();
  if (t.has_name) t.name = name->text();
  if (const Json* path = j.find("path"); path && path->is_string()) t.path = path->text();
  const Json* type = j.find("scalar_type");
  if (!type || !type->as_int64()) return bad("tensor lacks scalar_type");
  t.scalar_type = *type->as_int64();
  if (const Json* sizes = j.find("sizes"); sizes && sizes->is_array())
    for (const Json& s : sizes->items()) {
      if (!s.as_int64()) return bad("tensor sizes must be integers");
      t.sizes.push_back(*s.as_int64());
    }
  if (const Json* order = j.find("dim_order"); order && order->is_array())
    for (const Json& d : order->items()) {
      auto v = d.as_uint64();
      if (!v || *v > 255) return bad("tensor dim_order must be bytes");
      t.dim_order.push_back(static_cast<uint8_t>(*v));
    }
  if (const Json* e = j.find("external"); e && e->is_bool()) t.external = e->bool_value();
  if (const Json* b = j.find("buffer"); b && b->as_uint64()) t.data_buffer_idx = *b->as_uint64();
  return t;
}

Result<WeightsMatchRequest> weights_match_request(const Json& request) {
  WeightsMatchRequest out;
  ETP_ASSIGN(out.target, text_field(request, "target"));
  ETP_ASSIGN(out.rename, string_pairs(request.find("rename"), true, "rename must be [[from, to], ...] of strings"));
  const Json* list = request.find("files");
  if (!list || !list->is_array()) return bad("request lacks files");
  for (const Json& f : list->items()) {
    WeightsMatchRequest::File file;
    ETP_ASSIGN(file.header, safetensors_header_bytes(f));
    if (const Json* expect = f.find("expect"); expect && expect->is_array()) {
      file.expect.emplace();
      for (const Json& e : expect->items()) file.expect->push_back(e.text());
    }
    if (const Json* index = f.find("index"); index && index->is_string()) file.index = index->text();
    out.files.push_back(std::move(file));
  }
  if (const Json* pte = request.find("pte")) {
    if (!pte->find("head") || !pte->find("file")) return bad("pte needs head and file");
    ETP_ASSIGN(out.pte, weights_file(request, "pte", "match"));
    return out;
  }
  const Json* program = request.find("program");
  if (!program || !program->is_array()) return bad("request lacks the program's tensors");
  for (const Json& j : program->items()) {
    ETP_ASSIGN(NamedTensor t, named_tensor_from_json(j));
    out.program.push_back(std::move(t));
  }
  return out;
}

Result<WeightsExportRequest> weights_export_request(const Json& request) {
  WeightsExportRequest out;
  if (const Json* inc = request.find("include"); inc && inc->is_array())
    for (const Json& p : inc->items()) out.include.push_back(p.text());
  const Json* list = request.find("tensors");
  if (!list || !list->is_array()) return bad("request lacks tensors");
  for (const Json& j : list->items()) {
    ETP_ASSIGN(NamedTensor t, named_tensor_from_json(j));
    ExportCandidate c{std::move(t), std::nullopt, ""};
    if (const Json* a = j.find("available"); a && a->as_uint64()) c.available = *a->as_uint64();
    if (const Json* s = j.find("source"); s && s->is_string()) c.source = s->text();
    out.candidates.push_back(std::move(c));
  }
  ETP_ASSIGN(out.metadata, string_pairs(request.find("metadata"), false, ""));
  return out;
}

Result<std::vector<ByteRange>> byte_ranges_request(const Json& request) {
  std::vector<ByteRange> ranges;
  if (const Json* list = request.find("ranges"); list && list->is_array())
    for (const Json& r : list->items()) {
      if (!r.is_array() || r.items().size() != 2 || !r.items()[0].as_uint64() || !r.items()[1].as_uint64())
        return bad("ranges must be [offset, length] pairs");
      ranges.push_back({*r.items()[0].as_uint64(), *r.items()[1].as_uint64()});
    }
  return ranges;
}

}  // namespace etpack::bindings
