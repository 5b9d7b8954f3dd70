// inspect_ptd: the .ptd half of inspect (see inspect.h for the shape).
#include <optional>
#include <string>
#include <unordered_map>

#include "core/le_bytes.h"
#include "format/file_kinds.h"
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

std::string small_ints(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

// namedData in columns (see layout_json.h): key, segment, size, and layout,
// an index into the distinct tensor layouts (the table's "layouts": {dtype,
// shape, dimOrder}, in order of first use; null: the entry has none). A
// million entries of one layout write it once.
ColumnsText named_data_columns(const Blob& file, const TableValue& root) {
  enum { kKey, kSegment, kSize, kLayout };
  ColumnsText out({"key", "segment", "size", "layout"});
  const Value& named = root.get("named_data");
  const Value& segments = root.get("segments");
  std::unordered_map<std::string, size_t> layout_index;
  std::string layouts = "[";
  std::string text;
  std::optional<TensorView> last;  // the previous row's layout, and its index
  size_t last_index = 0;
  for (size_t i = 0; named.is_items() && i < named.items().size(); ++i) {
    const TableValue& entry = named.items()[i].table();
    uint64_t index = entry.get_uint("segment_index");
    const Value& key = entry.get("key");
    out.joined_name(kKey, key.is_string() ? &key.str() : nullptr);
    out.u64(kSegment, index);
    bool known = segments.is_items() && index < segments.items().size();
    known ? out.u64(kSize, segments.items()[index].table().get_uint("size")) : out.null(kSize);
    const Value& layout = entry.get("tensor_layout");
    if (!layout.is_table()) {
      out.null(kLayout);
      out.end_row();
      continue;
    }
    const TensorView t = view_tensor(layout.table(), file);
    // Runs of one layout (the common case) skip the text and the lookup.
    if (last && t.scalar_type == last->scalar_type && t.rank == last->rank && t.sizes == last->sizes &&
        t.dim_order_length == last->dim_order_length && t.dim_order == last->dim_order) {
      out.u64(kLayout, last_index);
      out.end_row();
      continue;
    }
    const char* dtype = scalar_type_name(t.scalar_type);
    text = "{\"dtype\": ";
    text += dtype ? "\"" + std::string(dtype) + "\"" : "null";
    text += ", \"shape\": ";
    text += t.rank && *t.rank <= kMaxTensorRank ? small_ints(t.sizes) : "null";
    text += ", \"dimOrder\": ";
    text += t.dim_order_length && *t.dim_order_length <= kMaxTensorRank
                ? small_ints(std::vector<int64_t>(t.dim_order.begin(), t.dim_order.end()))
                : "null";
    text += "}";
    auto [it, added] = layout_index.emplace(text, layout_index.size());
    if (added) layouts += (it->second ? ", " : "") + text;
    last = t;
    last_index = it->second;
    out.u64(kLayout, it->second);
    out.end_row();
  }
  out.extra("layouts", layouts + "]");
  return out;
}

}  // namespace

Result<Json> inspect_ptd(const Blob& ptd) { return inspect_ptd(FileSource::in_memory(ptd)); }

Result<Json> inspect_ptd(const FileSource& ptd) {
  ETP_ASSIGN(InspectReply reply, inspect_ptd_reply(ptd));
  return summary_from_reply(reply, kInspectTables);
}

Result<InspectReply> inspect_ptd_reply(const FileSource& source) {
  const Blob& ptd = source.head;
  ETP_ASSIGN(PtdTable table, read_ptd_table(ptd, source.size()));
  const PtdHeader& h = table.header;
  Json out = Json::object();
  out.set("format", Json::string("ptd"));
  out.set("fileSize", u64(source.size()));
  out.set("identifier", Json::string(identifier_of(FileKind::kPtd)));
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
  // The long lists are written as column text at their place (null here).
  out.set("namedData", Json::null());
  out.set("requirements", requirements_json(ptd_requirements(ptd, table.root)));
  size_t count = segments.is_items() ? segments.items().size() : 0;
  std::vector<SegmentUse> uses = ptd_segment_uses(table.root, count);
  out.set("segments", Json::null());
  std::vector<Region> layout = ptd_layout(ptd, source.size(), table, uses);
  out.set("segmentMap", Json::null());
  out.set("bytesByCategory", bytes_by_category_json(layout));
  std::vector<std::pair<std::string, ColumnsText>> tables;
  tables.emplace_back("namedData", named_data_columns(ptd, table.root));
  tables.emplace_back("segments", segments_columns(segments, h.segment_base_offset, uses, table.root.get("named_data")));
  tables.emplace_back("segmentMap", segment_map_columns(layout, uses));
  return write_with_tables(out, std::move(tables));
}

}  // namespace etpack
