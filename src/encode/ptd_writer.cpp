#include "encode/ptd_writer.h"

#include <map>
#include <string>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "encode/fb_encoder.h"
#include "format/headers.h"
#include "plan/segment_layout.h"
#include "schema/schema.h"

namespace etpack {
namespace {

Blob int32_vector(const std::vector<int32_t>& values) {
  std::vector<uint8_t> raw(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) write_le<uint32_t>(raw.data() + 4 * i, static_cast<uint32_t>(values[i]));
  return Blob::own(std::move(raw));
}

}  // namespace

Result<Cord> FlatTensorSerializer::serialize(const DataPayload& payload) {
  const Schema& schema = flat_tensor_schema();
  const TableDef& flat_tensor = *schema.root;
  const TableDef& segment_def = *schema.find_table("DataSegment");
  const TableDef& named_def = *schema.find_table("NamedData");
  const TableDef& layout_def = *schema.find_table("TensorLayout");

  std::vector<SegmentInput> segments;
  std::map<uint32_t, size_t> segment_of_buffer;
  Value::Items named;
  for (const auto& [key, entry] : payload.named_data) {
    if (entry.buffer_index >= payload.buffers.size())
      return make_error(ErrorCode::kInvalidArgument, "named data '" + key + "' refers to buffer " +
                                                         std::to_string(entry.buffer_index) + " of " +
                                                         std::to_string(payload.buffers.size()));
    if (entry.alignment == 0)
      return make_error(ErrorCode::kInvalidAlignment, "named data '" + key + "' has alignment 0");
    auto it = segment_of_buffer.find(entry.buffer_index);
    if (it == segment_of_buffer.end()) {
      it = segment_of_buffer.emplace(entry.buffer_index, segments.size()).first;
      SegmentInput segment;
      segment.data.append(payload.buffers[entry.buffer_index]);  // a view, not a copy
      segment.alignment = entry.alignment;
      segments.push_back(std::move(segment));
    }
    TableValue nd(&named_def);
    nd.at("key") = Value::from_string(key);
    nd.set_uint("segment_index", it->second);
    if (entry.tensor_layout) {
      TableValue layout(&layout_def);
      layout.set_int("scalar_type", entry.tensor_layout->scalar_type);
      layout.at("sizes") = Value::from_scalars(int32_vector(entry.tensor_layout->sizes));
      layout.at("dim_order") = Value::from_scalars(Blob::own(entry.tensor_layout->dim_order));
      nd.at("tensor_layout") = Value::from_table(std::move(layout));
    }
    named.push_back(Value::from_table(std::move(nd)));
  }

  ETP_ASSIGN(SegmentPlan plan, plan_segments(segments, config_.segment_alignment));
  Value::Items segment_list;
  for (size_t i = 0; i < segments.size(); ++i) {
    TableValue ds(&segment_def);
    ds.set_uint("offset", plan.offsets[i]);
    ds.set_uint("size", plan.sizes[i]);
    segment_list.push_back(Value::from_table(std::move(ds)));
  }
  TableValue root(&flat_tensor);
  root.set_uint("version", 0);  // keep in sync with the runtime's FlatTensor version
  root.at("segments") = Value::from_items(std::move(segment_list));
  root.at("named_data") = Value::from_items(std::move(named));

  EncodeOptions options;
  options.policy = EncodePolicy::kFlatcJson;
  ETP_ASSIGN(EncodedFlatbuffer fb, encode_flatbuffer(root, schema.file_identifier, options));

  PtdHeader header;
  header.flatbuffer_size = fb.bytes.size();
  auto base = aligned_to(PtdHeader::kPaddedLength + header.flatbuffer_size, config_.segment_alignment);
  if (!base || !checked_add(*base, plan.total_size))
    return make_error(ErrorCode::kLimitExceeded, "PTD size overflows 64 bits");
  header.segment_base_offset = *base;
  header.segment_data_size = plan.total_size;

  Cord out;
  out.append_owned(insert_header(fb.bytes, encode_ptd_header(header)));
  out.append_zeros(header.segment_base_offset - out.size());
  out.append(assemble_segments(segments, plan));
  return out;
}

}  // namespace etpack
