#include "bindings/request.h"

#include <cstdint>

namespace etpack::bindings {
namespace {

Error bad(const std::string& message) { return make_error(ErrorCode::kInvalidArgument, message); }

// A byte count as a JSON integer or, for a BigInt the glue cannot write as
// a JSON number, a string of decimal digits; both within uint64.
std::optional<uint64_t> byte_count(const Json& j) {
  if (j.is_number()) return j.as_uint64();
  if (!j.is_string()) return std::nullopt;
  const std::string& text = j.text();
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

// options.methodAllocator into options.method_allocator.
Status method_allocator_option_from_json(const Json* json, ValidateOptions& options) {
  if (json == nullptr || json->is_null()) return {};
  if (!json->is_object()) return bad("options.methodAllocator must be an object {bytes, arch, tempAllocator}");
  ValidateOptions::MethodAllocator pool;
  const Json* bytes = json->find("bytes");
  std::optional<uint64_t> count = bytes ? byte_count(*bytes) : std::nullopt;
  if (!count) return bad("options.methodAllocator.bytes must be a non-negative integer (bytes)");
  pool.bytes = *count;
  if (const Json* arch = json->find("arch"); arch && !arch->is_null()) {
    if (arch->is_string() && arch->text() == "64-bit") {
      pool.arch = AllocatorArch::k64Bit;
    } else if (arch->is_string() && arch->text() == "arm32") {
      pool.arch = AllocatorArch::kArm32;
    } else {
      return bad("options.methodAllocator.arch must be \"64-bit\" or \"arm32\"");
    }
  }
  if (const Json* temp = json->find("tempAllocator"); temp && !temp->is_null()) {
    if (!temp->is_bool()) return bad("options.methodAllocator.tempAllocator must be a boolean");
    pool.temp_allocator = temp->bool_value();
  }
  options.method_allocator = pool;
  return {};
}

}  // namespace

Result<Json> parse_request(const std::string& text) {
  auto j = parse_json(text);
  if (!j.ok()) return bad("bad request: " + j.error().message);
  return j;
}

Result<FileSource> file_source_from_json(const Json& request) {
  const Json* head = request.find("head");
  const Json* file = request.find("file");
  if (head == nullptr || file == nullptr) return bad("request needs head and file");
  FileSource source;
  ETP_ASSIGN(source.head, blob_from_json(*head));
  ETP_ASSIGN(source.file, blob_from_json(*file));
  return source;
}

Result<FileSource> file_source_member(const Json& request, const char* key) {
  const Json* member = request.find(key);
  const Json* head = member ? member->find("head") : nullptr;
  if (head == nullptr) return bad(std::string("request lacks ") + key + ".head");
  FileSource source;
  ETP_ASSIGN(source.head, blob_from_json(*head));
  if (source.head.is_external()) return bad(std::string(key) + ".head must be heap bytes");
  const Json* file = member->find("file");
  if (file == nullptr) return bad(std::string("request lacks ") + key + ".file");
  ETP_ASSIGN(source.file, blob_from_json(*file));
  return source;
}

Result<ValidateOptions> validate_options_from_json(const Json* json) {
  ValidateOptions options;
  if (json == nullptr || json->is_null()) return options;
  if (!json->is_object()) return bad("validate options must be an object");
  if (const Json* d = json->find("deprecatedConstantBuffer"); d && !d->is_null()) {
    if (!d->is_bool()) return bad("options.deprecatedConstantBuffer must be a boolean");
    options.deprecated_constant_buffer = d->bool_value();
  }
  if (const Json* r = json->find("runtime"); r && !r->is_null()) {
    std::optional<std::pair<int, int>> release = r->is_string() ? parse_runtime_release(r->text()) : std::nullopt;
    if (!release) return bad("options.runtime must be a release like \"1.0\" or \"0.7\"");
    options.runtime = *release;
  }
  if (const Json* b = json->find("backends"); b && !b->is_null()) {
    if (!b->is_array()) return bad("options.backends must be an array of backend ids");
    std::vector<std::string> ids;
    for (const Json& id : b->items()) {
      if (!id.is_string()) return bad("options.backends must hold strings");
      ids.push_back(id.text());
    }
    options.backends = std::move(ids);
  }
  ETP_TRY(method_allocator_option_from_json(json->find("methodAllocator"), options));
  return options;
}

Result<ProfileOptions> profile_options_from_json(const Json& request) {
  ProfileOptions options;
  if (const Json* all = request.find("method"); all && all->is_string()) options.all_blocks = all->text();
  const Json* methods = request.find("methods");
  if (methods == nullptr || methods->is_null()) return options;
  if (!methods->is_array()) return bad("methods must be an array");
  for (const Json& m : methods->items()) {
    if (m.is_null()) options.methods.emplace_back(std::nullopt);
    else if (m.is_string()) options.methods.emplace_back(m.text());
    else return bad("methods holds names or null");
  }
  return options;
}

Result<SafetensorsHeadRequest> safetensors_head_request(const Json& request) {
  SafetensorsHeadRequest out;
  if (const Json* list = request.find("tensors"); list && list->is_array()) {
    for (const Json& t : list->items()) {
      SafetensorsEntry e;
      const Json* name = t.find("name");
      const Json* dtype = t.find("dtype");
      const Json* shape = t.find("shape");
      const Json* size = t.find("size");
      if (!name || !name->is_string() || !dtype || !dtype->is_string() || !shape || !shape->is_array() || !size ||
          !size->as_uint64())
        return bad("each tensor needs name, dtype, shape and size");
      e.name = name->text();
      e.dtype = dtype->text();
      for (const Json& d : shape->items()) {
        if (!d.as_uint64()) return bad("tensor '" + e.name + "' has a bad shape");
        e.shape.push_back(*d.as_uint64());
      }
      e.size = *size->as_uint64();
      out.tensors.push_back(std::move(e));
    }
  }
  if (const Json* list = request.find("metadata"); list && list->is_array())
    for (const Json& kv : list->items())
      if (kv.is_array() && kv.items().size() == 2 && kv.items()[0].is_string() && kv.items()[1].is_string())
        out.metadata.emplace_back(kv.items()[0].text(), kv.items()[1].text());
  return out;
}

}  // namespace etpack::bindings
