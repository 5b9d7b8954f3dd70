// inspect_ptd: the .ptd half of inspect (see inspect.h for the shape).
#include <string>

#include "core/le_bytes.h"
#include "model/scalar_type.h"
#include "read/file_layout.h"
#include "read/inspect.h"
#include "read/layout_json.h"
#include "read/program_tensors.h"
#include "read/ptd_table.h"
#include "read/requirements.h"

namespace etpack {
namespace {

Json u64(uint64_t v) { return Json::unsigned_integer(v); }

Json small_ints(const std::vector<int64_t>& values) {
  Json out = Json::array();
  for (int64_t v : values) out.push(Json::integer(v));
  return out;
}

Json named_data_json(const Blob& file, const TableValue& root) {
  Json out = Json::array();
  const Value& named = root.get("named_data");
  const Value& segments = root.get("segments");
  for (size_t i = 0; named.is_items() && i < named.items().size(); ++i) {
    const TableValue& entry = named.items()[i].table();
    uint64_t index = entry.get_uint("segment_index");
    Json j = Json::object();
    const Value& key = entry.get("key");
    j.set("key", key.is_string() ? Json::string(key.str()) : Json::null());
    j.set("segment", u64(index));
    bool known = segments.is_items() && index < segments.items().size();
    j.set("size", known ? u64(segments.items()[index].table().get_uint("size")) : Json::null());
    const Value& layout = entry.get("tensor_layout");
    Json dtype = Json::null(), shape = Json::null(), dim_order = Json::null();
    if (layout.is_table()) {
      TensorView t = view_tensor(layout.table(), file);
      if (const char* name = scalar_type_name(t.scalar_type)) dtype = Json::string(name);
      if (t.rank && *t.rank <= kMaxTensorRank) shape = small_ints(t.sizes);
      if (t.dim_order_length && *t.dim_order_length <= kMaxTensorRank)
        dim_order = small_ints(std::vector<int64_t>(t.dim_order.begin(), t.dim_order.end()));
    }
    j.set("dtype", std::move(dtype));
    j.set("shape", std::move(shape));
    j.set("dimOrder", std::move(dim_order));
    out.push(std::move(j));
  }
  return out;
}

}  // namespace

Result<Json> inspect_ptd(const Blob& ptd) { return inspect_ptd(FileSource::in_memory(ptd)); }

Result<Json> inspect_ptd(const FileSource& source) {
  const Blob& ptd = source.head;
  ETP_ASSIGN(PtdTable table, read_ptd_table(ptd, source.size()));
  const PtdHeader& h = table.header;
  Json out = Json::object();
  out.set("format", Json::string("ptd"));
  out.set("fileSize", u64(source.size()));
  out.set("identifier", Json::string("FT01"));
  out.set("rootOffset", u64(read_le<uint32_t>(ptd.data())));
  Json header = Json::object();
  header.set("length", u64(h.length));
  header.set("flatbufferOffset", u64(h.flatbuffer_offset));
  header.set("flatbufferSize", u64(h.flatbuffer_size));
  header.set("segmentBaseOffset", u64(h.segment_base_offset));
  header.set("segmentDataSize", u64(h.segment_data_size));
  out.set("header", std::move(header));
  out.set("version", u64(table.root.get_uint("version")));
  // A table in the FlatTensor layout of ExecuTorch 0.6 still decodes with
  // today's schema (its fields read as other fields): summarized, and the
  // old fields named, so the user learns why validate refuses it.
  auto old = ptd_old_layout_fields(ptd);
  out.set("oldLayoutFields", old ? Json::string(*old) : Json::null());
  const Value& segments = table.root.get("segments");
  auto alignment = actual_segment_alignment(segments, h.segment_base_offset);
  out.set("segmentAlignment", alignment ? u64(*alignment) : Json::null());
  out.set("namedData", named_data_json(ptd, table.root));
  out.set("requirements", requirements_json(ptd_requirements(ptd, table.root)));
  size_t count = segments.is_items() ? segments.items().size() : 0;
  out.set("segments", segments_json(segments, h.segment_base_offset, ptd_segment_uses(table.root, count)));
  std::vector<Region> layout = ptd_layout(ptd, source.size(), table);
  out.set("segmentMap", segment_map_json(layout));
  out.set("bytesByCategory", bytes_by_category_json(layout));
  return out;
}

}  // namespace etpack
