#include "ops/repack.h"

#include <algorithm>
#include <initializer_list>
#include <set>

#include "format/headers.h"
#include "ops/delegate_keys_guard.h"
#include "ops/repack_checks.h"
#include "ops/repack_layout.h"
#include "read/program_tensors.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"

namespace etpack {

std::string data_tag(const std::string& name) {
  static const std::string kSuffix = ".ptd";
  if (name.size() > kSuffix.size() && name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
    return name.substr(0, name.size() - kSuffix.size());
  return name;
}

namespace {

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

struct MissingData {
  std::vector<std::string> keys;  // in order of first use
  std::set<std::string> paths;    // every tensor that uses one of them
};

// EXTERNAL tensors whose key none of the data files holds.
MissingData missing_external_data(const TableValue& program, std::initializer_list<const std::vector<PtdFile>*> files) {
  std::set<std::string> available;
  for (const std::vector<PtdFile>* list : files)
    for (const PtdFile& ptd : *list)
      for (const auto& entry : ptd.payload.named_data) available.insert(entry.first);
  MissingData out;
  std::set<std::string> listed;
  for_each_tensor(program, [&](size_t p, size_t v, const TableValue& tensor) {
    const Value& info = tensor.get("extra_tensor_info");
    if (!info.is_table() || !info.table().is("location", TensorDataLocation::EXTERNAL)) return;
    const Value& fqn = info.table().get("fully_qualified_name");
    if (!fqn.is_string() || available.count(fqn.str())) return;  // no name: the validator's error
    if (listed.insert(fqn.str()).second) out.keys.push_back(fqn.str());
    out.paths.insert(value_path(p, v));
  });
  return out;
}

std::string key_list(const std::vector<std::string>& keys) {
  constexpr size_t kNamed = 10;
  std::string out;
  for (size_t i = 0; i < keys.size() && i < kNamed; ++i) out += (i ? ", '" : "'") + keys[i] + "'";
  if (keys.size() > kNamed) out += " and " + std::to_string(keys.size() - kNamed) + " more";
  return out;
}

// The runtime's default build refuses a program whose constant_segment has
// no placeholder entry. A restored program holds its constants (the
// placeholder first) in constant_buffer, which the writer turns into the
// constant segment: a program without any gets the empty placeholder,
// exactly what upstream's emitter writes for a program without constants.
// Constants of old exports already in constant_buffer move to the segment
// through the same writer step.
void ensure_constant_placeholder(TableValue& program) {
  Value& constant_buffer = program.at("constant_buffer");
  if (constant_buffer.is_items() && !constant_buffer.items().empty()) return;
  TableValue placeholder(&table_def("Buffer"));
  placeholder.at("storage") = Value::from_scalars(Blob());
  Value::Items items;
  items.push_back(Value::from_table(std::move(placeholder)));
  constant_buffer = Value::from_items(std::move(items));
}

// A .pte without eh00 has no segment data, yet upstream writes one for a
// program whose only constant is the empty placeholder: segments
// [{0, 0}], constant_segment {0, [0]} and no header
// (conformance 01b_placeholder_constant_only). The reader restores segments
// only from files with a header; restore this one the same way (empty
// constant buffers, no segments) so the writer can lay it out again.
Status restore_headerless_segments(PteFile& pte) {
  if (pte.header && pte.header->segment_base_offset != 0) return {};
  TableValue& program = pte.program;
  Value& segments = program.at("segments");
  if (!segments.is_items() || segments.items().empty()) return {};
  auto refuse = [](const std::string& what) {
    return make_error(ErrorCode::kMalformedFile, "the .pte has no segment data (no " + PteHeader::name() + " header) but " + what);
  };
  for (const Value& s : segments.items())
    if (s.table().get_uint("size") != 0) return refuse("lists a segment of " + std::to_string(s.table().get_uint("size")) + " bytes");
  const Value& mutable_segments = program.get("mutable_data_segments");
  if (mutable_segments.is_items() && !mutable_segments.items().empty()) return refuse("lists mutable data segments");
  const Value& named = program.get("named_data");
  if (named.is_items() && !named.items().empty()) return refuse("lists named data in segments");
  Value& constant_segment = program.at("constant_segment");
  if (constant_segment.is_table()) {
    const Value& offsets = constant_segment.table().get("offsets");
    const size_t n = scalar_vector_length(offsets, BaseType::kULong);
    Value::Items buffers;
    for (size_t i = 0; i < n; ++i) {
      if (scalar_vector_uint(offsets, BaseType::kULong, i) != 0) return refuse("has constants at non-zero offsets");
      TableValue buffer(&table_def("Buffer"));
      buffer.at("storage") = Value::from_scalars(Blob());
      buffers.push_back(Value::from_table(std::move(buffer)));
    }
    if (n > 0) {
      program.at("constant_buffer") = Value::from_items(std::move(buffers));
      constant_segment.table().set_uint("segment_index", 0);
      constant_segment.table().at("offsets") = Value::from_scalars(Blob());
    }
  }
  segments = Value::from_items({});
  return {};
}

// The writer's config: what the caller chose, the input's layout for what
// it did not; and what that moves.
void keep_layout(const InputLayout& input, const std::vector<bool>& has_data, const RepackOptions& options,
                 PteConfig& config, RepackResult& result) {
  if (options.keep_segment_alignment && input.segment_alignment) {
    config.segment_alignment = *input.segment_alignment;
    result.segment_alignment_kept = true;
  }
  result.segment_alignment = config.segment_alignment;
  const size_t n = std::min(input.delegate_in_segment.size(), has_data.size());
  if (options.keep_delegate_placement) {
    // All inline: written as they are (backend_delegate_data untouched, as
    // upstream writes without extraction); else each where it was.
    const bool any = std::find(input.delegate_in_segment.begin(), input.delegate_in_segment.end(), true) != input.delegate_in_segment.end();
    config.extract_delegate_segments = any;
    config.extract_only = any ? input.delegate_in_segment : std::vector<bool>();
  }
  DelegatePlacement& d = result.delegates;
  for (size_t i = 0; i < n; ++i) {
    const bool was = input.delegate_in_segment[i];
    const bool chosen = config.extract_only.empty() || (i < config.extract_only.size() && config.extract_only[i]);
    const bool now = config.extract_delegate_segments && chosen && has_data[i];
    ++(now ? d.in_segments : d.inline_);
    if (now && !was) ++d.moved_to_segments;
    if (!now && was) ++d.moved_inline;
  }
}

}  // namespace

Result<RepackResult> repack(const FileSource& source, const RepackOptions& options, RepackRefusal* refusal) {
  RepackRefusal unused;
  RepackRefusal& why = refusal ? *refusal : unused;
  for (const auto& [name, file] : options.data)
    if (data_tag(name).empty())
      return make_error(ErrorCode::kInvalidArgument, "the data file name '" + name + "' leaves an empty tag");

  // 1. The inputs must validate (errors repack fixes or handles aside).
  ETP_TRY(check_inputs(source, options.data, options.merge, why.findings));

  ETP_ASSIGN(InputLayout layout_in, input_layout(source));
  ETP_ASSIGN(PteFile pte, deserialize_pte_binary(source.head, source.file));
  ETP_TRY(restore_headerless_segments(pte));
  std::vector<PtdFile> data, merged;
  for (const auto& [name, file] : options.data) {
    ETP_ASSIGN(PtdFile ptd, deserialize_ptd(file.head, file.file));
    data.push_back(std::move(ptd));
  }
  for (const FileSource& file : options.merge) {
    ETP_ASSIGN(PtdFile ptd, deserialize_ptd(file.head, file.file));
    merged.push_back(std::move(ptd));
  }

  // 2. Every EXTERNAL tensor must find its data (in a data file or a merged
  // one: both are carried), unless the caller says not.
  RepackResult result;
  MissingData missing = missing_external_data(pte.program, {&data, &merged});
  if (!missing.keys.empty()) {
    if (!options.allow_missing_data) {
      why.missing_keys = missing.keys;
      return make_error(ErrorCode::kMissingExternalData,
                        std::to_string(missing.keys.size()) + " EXTERNAL tensor key" + (missing.keys.size() == 1 ? " is" : "s are") +
                            " in none of the given .ptd files: " + key_list(missing.keys) +
                            "; give the .ptd files the .pte uses (or allow missing data to repack without them)");
    }
    result.missing_keys = missing.keys;
  }

  // 3. Named data: the .pte's own, the data files' (carried under their
  // tags), externalized constants, merged files. Bytes stay references.
  NamedDataStore store;
  KeyLayouts layouts;
  if (pte.named_data) {
    ETP_TRY(store.merge_named_data_store(*pte.named_data));
    for (const auto& [key, entry] : pte.named_data->pte_data) layouts.emplace(key, entry.tensor_layout);
  }
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string tag = data_tag(options.data[i].first);
    for (const auto& [key, entry] : data[i].payload.named_data) {
      if (entry.buffer_index >= data[i].payload.buffers.size())
        return make_error(ErrorCode::kMalformedFile, "'" + key + "' in " + options.data[i].first + " names a missing segment");
      ETP_TRY(add_keyed_data(store, layouts, key, data[i].payload.buffers[entry.buffer_index], entry.alignment, tag,
                             entry.tensor_layout));
      ++result.carried_entries;
    }
  }
  if (options.externalize)
    ETP_TRY(externalize_constants(pte.program, *options.externalize, store, layouts, result.moved));
  for (const PtdFile& ptd : merged) {
    for (const auto& [key, entry] : ptd.payload.named_data) {
      if (entry.buffer_index >= ptd.payload.buffers.size())
        return make_error(ErrorCode::kMalformedFile, "'" + key + "' in a merged .ptd names a missing segment");
      ETP_TRY(add_keyed_data(store, layouts, key, ptd.payload.buffers[entry.buffer_index], entry.alignment,
                             options.merge_tag, entry.tensor_layout));
      ++result.merged_entries;
    }
  }

  // Every named-data key a delegate looks up must be in an output (the
  // store holds the .pte's and every .ptd's entries), unless missing data
  // is allowed: then the output refers to keys it lacks, as the input did.
  ETP_ASSIGN(DelegateKeyNeeds delegate_keys, delegate_key_needs(source));
  const std::vector<DelegateKeyNeed>& needs = delegate_keys.needs;
  std::vector<std::string> delegate_missing;
  Status held = guard_delegate_keys(needs, [&](const std::string& key) { return store.contains(key); },
                                    "the repacked .pte's named_data and the .ptd files written", &delegate_missing);
  if (!held.ok()) {
    if (!options.allow_missing_data) {
      why.missing_keys = delegate_missing;
      return held;
    }
    for (const DelegateKeyNeed& need : needs)
      if (!store.contains(need.key)) missing.paths.insert(delegate_path(need));
    for (std::string& key : delegate_missing) result.missing_keys.push_back(std::move(key));
  }

  // 4. The runtime's rules, then the files.
  ensure_constant_placeholder(pte.program);
  EmitterOutput emitter;
  emitter.program = std::move(pte.program);
  if (pte.mutable_data) {
    emitter.has_mutable_data = true;
    emitter.mutable_data = std::move(*pte.mutable_data);
  }
  PteConfig config = options.config;
  keep_layout(layout_in, delegates_with_data(emitter.program), options, config, result);
  NamedDataStoreOutput named = store.get_named_data_store_output();
  FlatTensorSerializer serializer(options.data_config);
  ETP_ASSIGN(result.artifacts, serialize_for_executorch(emitter, config, serializer, &named));

  // 5. Nothing leaves that our validator would reject.
  ETP_TRY(check_outputs(result.artifacts.pte, result.artifacts.ptd, missing.paths, why.findings));
  return result;
}

}  // namespace etpack
