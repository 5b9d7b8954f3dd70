// What a Core ML payload says about its model, beside its file tree: the
// I/O names and identifier ExecuTorch's Core ML backend wrote into the
// root's metadata.json, and the Core ML specification version, the first
// field of the model file the .mlpackage's Manifest.json names as its root
// (Model.specificationVersion: protobuf field 1, a varint). Only bytes the
// decoded tree placed inside the blob are read.
#include <string>

#include "read/delegate/delegate_payload.h"

namespace etpack {
namespace {

const Json* member(const Json* j, const char* key) { return j && j->is_object() ? j->find(key) : nullptr; }

Json strings(const Json* list) {
  if (list == nullptr || !list->is_array()) return Json::null();
  Json out = Json::array();
  for (const Json& s : list->items())
    if (s.is_string()) out.push(s);
  return out;
}

// The varint of protobuf field 1 when the message starts with it.
std::optional<uint64_t> first_varint_field(const uint8_t* p, uint64_t size) {
  if (size < 2 || p[0] != 0x08) return std::nullopt;  // tag: field 1, wire type 0
  uint64_t value = 0;
  for (uint64_t i = 1; i < size && i <= 10; ++i) {
    value |= static_cast<uint64_t>(p[i] & 0x7f) << (7 * (i - 1));
    if ((p[i] & 0x80) == 0) return value;
  }
  return std::nullopt;
}

const Json* file_at(const Json& files, const std::string& path) {
  for (const Json& f : files.items())
    if (const Json* p = member(&f, "path"); p && p->is_string() && p->text() == path) return &f;
  return nullptr;
}

std::string_view bytes_of(const Json& file, const Blob& blob) {
  const uint64_t offset = member(&file, "offset")->as_uint64().value_or(0);
  const uint64_t size = member(&file, "size")->as_uint64().value_or(0);
  if (offset > blob.size() || size > blob.size() - offset) return {};
  return {reinterpret_cast<const char*>(blob.data() + offset), static_cast<size_t>(size)};
}

}  // namespace

Json coreml_model_facts(const Json& content, const Blob& blob) {
  Json out = Json::object();
  const Json* text = member(&content, "coreml_metadata_json_text");
  auto metadata = text && text->is_string() ? parse_json(text->text(), 16) : Result<Json>(Json::null());
  const Json* meta = metadata.ok() ? &*metadata : nullptr;
  const Json* id = member(meta, "identifier");
  out.set("identifier", id && id->is_string() ? *id : Json::null());
  out.set("inputNames", strings(member(meta, "inputNames")));
  out.set("outputNames", strings(member(meta, "outputNames")));
  Json version = Json::null(), model_file = Json::null();
  const Json* files = member(&content, "files");
  for (size_t i = 0; files && files->is_array() && i < files->items().size(); ++i) {
    const Json* path = member(&files->items()[i], "path");
    static const std::string kManifest = ".mlpackage/Manifest.json";
    if (!path || !path->is_string() || path->text().size() < kManifest.size() ||
        path->text().compare(path->text().size() - kManifest.size(), kManifest.size(), kManifest) != 0)
      continue;
    auto manifest = parse_json(bytes_of(files->items()[i], blob), 16);
    if (!manifest.ok()) continue;
    const Json* root = member(&*manifest, "rootModelIdentifier");
    const Json* entry = root && root->is_string() ? member(member(&*manifest, "itemInfoEntries"), root->text().c_str()) : nullptr;
    const Json* item = member(entry, "path");
    if (!item || !item->is_string()) continue;
    const std::string package = path->text().substr(0, path->text().size() - std::string("Manifest.json").size());
    const std::string model = package + "Data/" + item->text();
    const Json* file = file_at(*files, model);
    if (file == nullptr) continue;
    model_file = Json::string(model);
    const std::string_view bytes = bytes_of(*file, blob);
    if (auto v = first_varint_field(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()))
      version = Json::unsigned_integer(*v);
    break;
  }
  out.set("modelFile", std::move(model_file));
  out.set("specificationVersion", std::move(version));
  return out;
}

}  // namespace etpack
