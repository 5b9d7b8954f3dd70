// The embind surface of rewriting a file's layout: repack and extract (in
// a file of their own so that the wasm build can compile them for size,
// cmake/wasm.cmake: neither is on the path of the P1 metadata operations).
#include <optional>
#include <string>

#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "bindings/request.h"
#include "ops/extract.h"
#include "ops/repack.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

// {keys: [...]} for missing external data, {findings: [...]} (validate's
// finding shape) for an input or output that does not validate.
Json refusal_to_json(const RepackRefusal& why) {
  Json j = Json::object();
  if (!why.missing_keys.empty()) {
    Json keys = Json::array();
    for (const std::string& k : why.missing_keys) keys.push(Json::string(k));
    j.set("keys", std::move(keys));
  }
  if (!why.findings.empty()) {
    ValidationReport report;
    report.errors = why.findings;
    Json reported = report.to_json();
    if (const Json* errors = reported.find("errors")) j.set("findings", *errors);
  }
  return j;
}

Output* repack_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(FileSource source, file_source_from_json(*request.find("pte")));
    RepackOptions options;
    ETP_ASSIGN(options.config, pte_config_from_json(request.find("config")));
    // A layout choice left out (null) keeps the input's (ops/repack.h).
    if (const Json* config = request.find("config"); config && config->is_object()) {
      const Json* extract = config->find("extract_delegate_segments");
      options.keep_delegate_placement = extract == nullptr || extract->is_null();
      const Json* alignment = config->find("segment_alignment");
      options.keep_segment_alignment = alignment == nullptr || alignment->is_null();
    }
    options.data_config = data_config_from_json(request.find("data_serializer_config"));
    if (const Json* ext = request.find("externalize"); ext && ext->is_object()) {
      ExternalizeOptions e;
      if (const Json* tag = ext->find("tag"); tag && tag->is_string()) e.tag = tag->text();
      if (const Json* patterns = ext->find("patterns"); patterns && patterns->is_array())
        for (const Json& p : patterns->items()) e.patterns.push_back(p.text());
      if (const Json* min = ext->find("min_bytes"); min && min->as_uint64()) e.min_bytes = *min->as_uint64();
      if (const Json* align = ext->find("alignment"); align && align->as_uint64()) e.alignment = *align->as_uint64();
      if (e.alignment == 0) return make_error(ErrorCode::kInvalidAlignment, "externalize alignment must be positive");
      options.externalize = std::move(e);
    }
    if (const Json* merge = request.find("merge"); merge && merge->is_array())
      for (const Json& m : merge->items()) {
        ETP_ASSIGN(FileSource s, file_source_from_json(m));
        options.merge.push_back(std::move(s));
      }
    if (const Json* tag = request.find("merge_tag"); tag && tag->is_string()) options.merge_tag = tag->text();
    if (const Json* data = request.find("data"); data && data->is_array())
      for (const Json& d : data->items()) {
        const Json* name = d.find("name");
        if (name == nullptr || !name->is_string()) return make_error(ErrorCode::kInvalidArgument, "data entries need a name");
        ETP_ASSIGN(FileSource s, file_source_from_json(d));
        options.data.emplace_back(name->text(), std::move(s));
      }
    if (const Json* allow = request.find("allow_missing_data"); allow && allow->is_bool())
      options.allow_missing_data = allow->bool_value();
    RepackRefusal why;
    auto repacked = repack(source, options, &why);
    if (!repacked.ok()) {
      // The refusal's details travel in the failed Output's JSON; the glue
      // puts them on the EtpackError (.keys, .findings).
      out.set_json(write_json(refusal_to_json(why)));
      return repacked.take_error();
    }
    RepackResult& result = *repacked;
    Json j = Json::object();
    Json tags = Json::array();
    out.add_cord(std::move(result.artifacts.pte));
    for (auto& [tag, cord] : result.artifacts.ptd) {
      tags.push(Json::string(tag));
      out.add_cord(std::move(cord));
    }
    j.set("ptd_tags", std::move(tags));
    Json delegates = Json::object();
    delegates.set("in_segments", Json::unsigned_integer(result.delegates.in_segments));
    delegates.set("inline", Json::unsigned_integer(result.delegates.inline_));
    delegates.set("moved_to_segments", Json::unsigned_integer(result.delegates.moved_to_segments));
    delegates.set("moved_inline", Json::unsigned_integer(result.delegates.moved_inline));
    j.set("delegates", std::move(delegates));
    j.set("segment_alignment", Json::unsigned_integer(result.segment_alignment));
    j.set("segment_alignment_kept", Json::boolean(result.segment_alignment_kept));
    Json moved = Json::array();
    for (const MovedTensor& m : result.moved) {
      Json t = Json::object();
      t.set("key", Json::string(m.key));
      t.set("bytes", Json::unsigned_integer(m.bytes));
      Json paths = Json::array();
      for (const std::string& p : m.paths) paths.push(Json::string(p));
      t.set("paths", std::move(paths));
      moved.push(std::move(t));
    }
    j.set("moved", std::move(moved));
    j.set("merged_entries", Json::unsigned_integer(result.merged_entries));
    j.set("carried_entries", Json::unsigned_integer(result.carried_entries));
    Json missing = Json::array();
    for (const std::string& k : result.missing_keys) missing.push(Json::string(k));
    j.set("missing_keys", std::move(missing));
    out.set_json(write_json(j));
    return {};
  });
}

// {"pte": file, "delegate": n, "method": s | null} -> the blob as the
// Output's one file (a slice of the input: copied once, where the glue
// writes it) and {"method", "index", "id", "location", "offset", "size"}.
Output* extract_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    const Json* pte = request.find("pte");
    const Json* delegate = request.find("delegate");
    if (pte == nullptr || delegate == nullptr || !delegate->as_uint64())
      return make_error(ErrorCode::kInvalidArgument, "request needs pte and a delegate index");
    ETP_ASSIGN(FileSource source, file_source_from_json(*pte));
    std::optional<std::string> method;
    if (const Json* m = request.find("method"); m && m->is_string()) method = m->text();
    ETP_ASSIGN(ExtractedDelegate d, extract_delegate(source, method, *delegate->as_uint64()));
    Json j = Json::object();
    j.set("method", Json::string(d.method));
    j.set("index", Json::unsigned_integer(d.index));
    j.set("id", d.id ? Json::string(*d.id) : Json::null());
    j.set("location", Json::string(d.location));
    j.set("offset", d.offset ? Json::unsigned_integer(*d.offset) : Json::null());
    j.set("size", Json::unsigned_integer(d.bytes.size()));
    out.add_cord(std::move(d.bytes));
    out.set_json(write_json(j));
    return {};
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_repack) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("repack", &repack_js, allow_raw_pointers());
  function("extract", &extract_js, allow_raw_pointers());
}
