// inspect_ptd: the .ptd half of inspect (see inspect.h for the shape).
#include <string>
#include <unordered_map>

#include "core/le_bytes.h"
#include "format/file_kinds.h"
#include "model/scalar_type.h"
#include "read/file_layout.h"
#include "inspect/inspect.h"
#include "inspect/layout_json.h"
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
// million entries of one layout write it once; two layout tables of equal
// content are one layout.
std::string layout_text(const TensorView& t) {
  const char* dtype = scalar_type_name(t.scalar_type);
  std::string text = "{\"dtype\": ";
  text += dtype ? "\"" + std::string(dtype) + "\"" : "null";
  text += ", \"shape\": ";
  text += t.rank && *t.rank <= kMaxTensorRank ? small_ints(t.sizes) : "null";
  text += ", \"dimOrder\": ";
  text += t.dim_order_length && *t.dim_order_length <= kMaxTensorRank
              ? small_ints(std::vector<int64_t>(t.dim_order.begin(), t.dim_order.end()))
              : "null";
  return text + "}";
}

ColumnsText named_data_columns(const PtdTable& ptd) {
  enum { kKey, kSegment, kSize, kLayout };
  ColumnsText out({"key", "segment", "size", "layout"});
  constexpr size_t kUnset = SIZE_MAX;
  std::vector<size_t> shown(ptd.layouts.size(), kUnset);  // a layout table's index among the distinct texts
  std::unordered_map<std::string, size_t> text_index;
  std::string layouts = "[";
  for (size_t i = 0; i < ptd.named_count(); ++i) {
    const uint64_t index = ptd.segment_index[i];
    out.joined_name(kKey, ptd.key(i));
    out.u64(kSegment, index);
    index < ptd.segments.size() ? out.u64(kSize, ptd.segments[index].size) : out.null(kSize);
    const uint32_t layout = ptd.layout[i];
    if (layout == PtdTable::kNoLayout) {
      out.null(kLayout);
      out.end_row();
      continue;
    }
    if (shown[layout] == kUnset) {  // once per layout table
      std::string text = layout_text(ptd.layouts[layout].view);
      auto [it, added] = text_index.emplace(text, text_index.size());
      if (added) layouts += (it->second ? ", " : "") + text;
      shown[layout] = it->second;
    }
    out.u64(kLayout, shown[layout]);
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
  out.set("version", u64(table.version));
  // A table in the FlatTensor layout of ExecuTorch 0.6 still decodes with
  // today's schema (its fields read as other fields): summarized, and the
  // old fields named, so the user learns why validate refuses it.
  auto old = ptd_old_layout_fields(ptd);
  out.set("oldLayoutFields", old ? Json::string(*old) : Json::null());
  auto alignment = actual_segment_alignment(table.segments, h.segment_base_offset);
  out.set("segmentAlignment", alignment ? u64(*alignment) : Json::null());
  // The long lists are written as column text at their place (null here).
  out.set("namedData", Json::null());
  out.set("requirements", requirements_json(ptd_requirements(table)));
  std::vector<SegmentUse> uses = ptd_segment_uses(table);
  out.set("segments", Json::null());
  std::vector<Region> layout = ptd_layout(ptd, source.size(), table, uses);
  out.set("segmentMap", Json::null());
  out.set("bytesByCategory", bytes_by_category_json(layout));
  std::vector<std::pair<std::string, ColumnsText>> tables;
  tables.emplace_back("namedData", named_data_columns(table));
  tables.emplace_back("segments", segments_columns(table.segments, h.segment_base_offset, uses,
                                                   [&table](size_t index, std::string& name) { named_data_owner(table, index, name); }));
  tables.emplace_back("segmentMap", segment_map_columns(layout, uses));
  return write_with_tables(out, std::move(tables));
}

}  // namespace etpack
