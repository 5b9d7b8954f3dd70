#include "encode/pte_writer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/checked_math.h"
#include "core/content_index.h"
#include "encode/fb_encoder.h"
#include "format/headers.h"
#include "plan/segment_layout.h"
#include "schema/schema.h"
#include "schema/enums.h"

namespace etpack {
namespace {

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

Blob storage_of(const Value& table_value, const char* field) {
  if (!table_value.is_table()) return Blob();
  const Value& v = table_value.table().get(field);
  return v.is_scalars() ? v.scalars() : Blob();
}

TableValue subsegment_offsets(uint64_t segment_index, const std::vector<uint64_t>& offsets) {
  TableValue t(&table_def("SubsegmentOffsets"));
  t.set_uint("segment_index", segment_index);
  t.at("offsets") = Value::from_scalars(make_uint64_vector(offsets));
  return t;
}

// Concatenates `blobs`; each but the last is padded to `alignment` (0 = no
// padding). Returns the data and each blob's offset.
std::pair<Cord, std::vector<uint64_t>> concatenate(const std::vector<Blob>& blobs, uint64_t alignment) {
  Cord data;
  std::vector<uint64_t> offsets;
  uint64_t offset = 0;
  for (size_t i = 0; i < blobs.size(); ++i) {
    uint64_t pad = alignment == 0 ? 0 : padding_to(blobs[i].size(), alignment);
    data.append(blobs[i]);  // a view: the bytes stay where the caller has them
    if (i + 1 < blobs.size()) data.append_zeros(pad);
    offsets.push_back(offset);
    offset += blobs[i].size() + pad;
  }
  return {std::move(data), std::move(offsets)};
}

Status extract_delegates(TableValue& program, std::vector<SegmentInput>& segments, const std::vector<bool>& only) {
  Value& bdd = program.at("backend_delegate_data");
  const size_t count = bdd.is_items() ? bdd.items().size() : 0;
  Value::Items remaining_inline;
  std::set<uint64_t> seen;
  ContentIndex blob_segments;
  size_t ordinal = 0;  // the delegate's place in execution-plan order
  Value& plans = program.at("execution_plan");
  if (plans.is_items()) {
    for (size_t p = 0; p < plans.items().size(); ++p) {
      Value& delegates = plans.items()[p].table().at("delegates");
      if (!delegates.is_items()) continue;
      for (size_t d = 0; d < delegates.items().size(); ++d) {
        TableValue& delegate = delegates.items()[d].table();
        std::string where = "execution_plan[" + std::to_string(p) + "].delegates[" + std::to_string(d) + "]";
        std::string id = delegate.get("id").is_string() ? delegate.get("id").str() : "";
        Value& processed = delegate.at("processed");
        if (!processed.is_table()) processed = Value::from_table(TableValue(&table_def("BackendDelegateDataReference")));
        TableValue& ref = processed.table();
        if (!ref.is("location", DataLocation::INLINE))
          return make_error(ErrorCode::kDelegateNotInline,
                            "Program must only contain inline delegate data, saw delegate '" + id + "' at " + where +
                                " with location SEGMENT, index " + std::to_string(ref.get_uint("index")));
        uint64_t index = ref.get_uint("index");
        if (index >= count)
          return make_error(ErrorCode::kDelegateIndexOutOfRange,
                            "Delegate processed index " + std::to_string(index) + " >= len(Program.backend_delegate_data) " +
                                std::to_string(count) + " in delegate '" + id + "' at " + where);
        seen.insert(index);
        const Value& inline_data = bdd.items()[static_cast<size_t>(index)];
        Blob data = storage_of(inline_data, "data");
        const bool chosen = only.empty() || (ordinal < only.size() && only[ordinal]);
        ++ordinal;
        if (chosen && !data.empty()) {
          int64_t segment = blob_segments.find_or_add(data, static_cast<int64_t>(segments.size()));
          if (segment == static_cast<int64_t>(segments.size())) {
            SegmentInput input;
            input.data.append(data);  // a view of the delegate blob
            segments.push_back(std::move(input));
          }
          TableValue moved(&table_def("BackendDelegateDataReference"));
          moved.set("location", DataLocation::SEGMENT);
          moved.set_uint("index", static_cast<uint64_t>(segment));
          processed = Value::from_table(std::move(moved));
        } else {
          ref.set_uint("index", remaining_inline.size());
          remaining_inline.push_back(inline_data);
        }
      }
    }
  }
  if (seen.size() != count) {
    std::string missing;
    for (size_t i = 0; i < count; ++i)
      if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    return make_error(ErrorCode::kDelegateDataUnreferenced,
                      "Did not handle all elements of backend_delegate_data; remaining: {" + missing + "}");
  }
  if (bdd.is_items() || !remaining_inline.empty()) bdd = Value::from_items(std::move(remaining_inline));
  return {};
}

// Upstream's placeholder-only layout as deserialize leaves a file without
// segment data: one empty segment, used only by a constant_segment of zero
// offsets. It becomes constant_buffer entries again (all empty), which step
// 1 lays out exactly as before; anything else listed stays and is refused
// below when segments are added.
void restore_placeholder_segment(TableValue& program) {
  Value& list = program.at("segments");
  if (!list.is_items() || list.items().size() != 1 || list.items()[0].table().get_uint("size") != 0) return;
  const Value& constant_buffer = program.get("constant_buffer");
  if (constant_buffer.is_items() && !constant_buffer.items().empty()) return;
  const Value& mutable_segments = program.get("mutable_data_segments");
  if (mutable_segments.is_items() && !mutable_segments.items().empty()) return;
  const Value& named = program.get("named_data");
  if (named.is_items() && !named.items().empty()) return;
  const Value& plans = program.get("execution_plan");
  if (plans.is_items())
    for (const Value& plan : plans.items()) {
      const Value& delegates = plan.table().get("delegates");
      if (!delegates.is_items()) continue;
      for (const Value& d : delegates.items()) {
        const Value& processed = d.table().get("processed");
        if (processed.is_table() && !processed.table().is("location", DataLocation::INLINE)) return;
      }
    }
  Value& constant_segment = program.at("constant_segment");
  if (!constant_segment.is_table() || constant_segment.table().get_uint("segment_index") != 0) return;
  const Value& offsets = constant_segment.table().get("offsets");
  const size_t n = scalar_vector_length(offsets, BaseType::kULong);
  if (n == 0) return;
  for (size_t i = 0; i < n; ++i)
    if (scalar_vector_uint(offsets, BaseType::kULong, i) != 0) return;
  Value::Items buffers;
  for (size_t i = 0; i < n; ++i) {
    TableValue buffer(&table_def("Buffer"));
    buffer.at("storage") = Value::from_scalars(Blob());
    buffers.push_back(Value::from_table(std::move(buffer)));
  }
  program.at("constant_buffer") = Value::from_items(std::move(buffers));
  list = Value::from_items({});
}

}  // namespace

Result<Cord> serialize_pte_binary(const TableValue& input, const std::vector<Blob>* mutable_data,
                                  const NamedDataStoreOutput* named_data, const PteConfig& config, const EncodedPrefix* plans) {
  const uint64_t tensor_alignment = config.constant_tensor_alignment.value_or(kDefaultConstantTensorAlignment);
  if (!is_power_of_two(tensor_alignment))
    return make_error(ErrorCode::kInvalidAlignment, "Bad constant_tensor_alignment " + std::to_string(tensor_alignment) +
                                                        ": must be a positive power of two");
  const uint64_t delegate_alignment = config.delegate_alignment.value_or(16);
  if (!is_power_of_two(delegate_alignment))
    return make_error(ErrorCode::kInvalidAlignment, "Bad delegate_alignment " + std::to_string(delegate_alignment) +
                                                        ": must be a positive power of two");
  if (config.segment_alignment == 0)
    return make_error(ErrorCode::kInvalidAlignment, "Bad segment_alignment 0: must be positive");
  if (tensor_alignment > 0x40000000u || delegate_alignment > 0x40000000u)
    return make_error(ErrorCode::kInvalidAlignment, "alignments above 2^30 cannot be encoded in a flatbuffer");

  // Metadata-only copy: byte vectors inside are shared Blobs, not duplicated.
  TableValue program = input;
  std::vector<SegmentInput> segments;
  restore_placeholder_segment(program);

  // 1. Constants: the emitter's constant_buffer becomes one segment.
  Value& constant_buffer = program.at("constant_buffer");
  if (constant_buffer.is_items() && !constant_buffer.items().empty()) {
    std::vector<Blob> storages;
    for (const Value& buffer : constant_buffer.items()) storages.push_back(storage_of(buffer, "storage"));
    auto [data, offsets] = concatenate(storages, tensor_alignment);
    program.at("constant_segment") = Value::from_table(subsegment_offsets(segments.size(), offsets));
    constant_buffer = Value::from_items({});
    SegmentInput segment;
    segment.data = std::move(data);
    segments.push_back(std::move(segment));
  }

  // 2. Mutable data: concatenated without padding (copied at load time).
  if (mutable_data != nullptr) {
    auto [data, offsets] = concatenate(*mutable_data, 0);
    if (data.size() > 0) {
      Value::Items list;
      list.push_back(Value::from_table(subsegment_offsets(segments.size(), offsets)));
      program.at("mutable_data_segments") = Value::from_items(std::move(list));
      SegmentInput segment;
      segment.data = std::move(data);
      segments.push_back(std::move(segment));
    }
  }

  // 3. Delegate blobs.
  if (config.extract_delegate_segments) ETP_TRY(extract_delegates(program, segments, config.extract_only));

  // 4. Named data kept in the PTE: one segment per distinct buffer.
  if (named_data != nullptr) {
    const Value& existing = program.get("named_data");
    if (existing.is_items() && !existing.items().empty())
      return make_error(ErrorCode::kProgramHasNamedData,
                        "Program already has named data. It lists " + std::to_string(existing.items().size()) +
                            " entries and the named data store has PTE data to add.");
    std::map<uint32_t, size_t> segment_of_buffer;
    Value::Items entries;
    for (const auto& [key, entry] : named_data->pte_data) {
      if (entry.buffer_index >= named_data->buffers.size())
        return make_error(ErrorCode::kInvalidArgument, "named data '" + key + "' refers to buffer " +
                                                           std::to_string(entry.buffer_index) + " of " +
                                                           std::to_string(named_data->buffers.size()));
      auto it = segment_of_buffer.find(entry.buffer_index);
      if (it == segment_of_buffer.end()) {
        it = segment_of_buffer.emplace(entry.buffer_index, segments.size()).first;
        SegmentInput segment;
        segment.data.append(named_data->buffers[entry.buffer_index]);  // a view
        segment.alignment = entry.alignment;
        segments.push_back(std::move(segment));
      }
      TableValue nd(&table_def("NamedData"));
      nd.at("key") = Value::from_string(key);
      nd.set_uint("segment_index", it->second);
      entries.push_back(Value::from_table(std::move(nd)));
    }
    program.at("named_data") = Value::from_items(std::move(entries));
  }

  // Layout: offsets relative to the segment base.
  ETP_ASSIGN(SegmentPlan plan, plan_segments(segments, config.segment_alignment));
  if (!segments.empty()) {
    Value& list = program.at("segments");
    if (list.is_items() && !list.items().empty())
      return make_error(ErrorCode::kInvalidArgument,
                        "program.segments already lists " + std::to_string(list.items().size()) +
                            " segments; serialize a program whose segment data was restored (segments = [])");
    Value::Items out;
    for (size_t i = 0; i < segments.size(); ++i) {
      TableValue ds(&table_def("DataSegment"));
      ds.set_uint("offset", plan.offsets[i]);
      ds.set_uint("size", plan.sizes[i]);
      out.push_back(Value::from_table(std::move(ds)));
    }
    list = Value::from_items(std::move(out));
  }

  EncodeOptions options;
  options.policy = EncodePolicy::kReferencePython;
  options.force_align_overrides = {{"Buffer.storage", static_cast<uint32_t>(tensor_alignment)},
                                   {"BackendDelegateInlineData.data", static_cast<uint32_t>(delegate_alignment)}};
  ETP_ASSIGN(EncodedFlatbuffer fb, encode_flatbuffer(program, program_schema().file_identifier, options, plans));

  Cord out;
  if (plan.total_size == 0) {  // upstream: no segment bytes, no extended header
    out.append_owned(std::move(fb.bytes));
    return out;
  }
  // The header is padded to the largest force_align in the (rewritten) schema
  // so that inserting it keeps every aligned vector aligned.
  const uint64_t max_force_align = std::max(tensor_alignment, delegate_alignment);
  const uint64_t header_length = *aligned_to(PteHeader::kLength, max_force_align);
  PteHeader header;
  header.program_size = header_length + fb.bytes.size();
  auto base = aligned_to(header.program_size, config.segment_alignment);
  if (!base || !checked_add(*base, plan.total_size))
    return make_error(ErrorCode::kLimitExceeded, "PTE size overflows 64 bits");
  header.segment_base_offset = *base;
  header.segment_data_size = plan.total_size;
  out.append_owned(insert_header(fb.bytes, encode_pte_header(header, static_cast<size_t>(header_length))));
  out.append_zeros(header.segment_base_offset - header.program_size);
  out.append(assemble_segments(segments, plan));
  return out;
}

}  // namespace etpack
