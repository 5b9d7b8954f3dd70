#include "read/layout_json.h"

#include <string>
#include <string_view>

#include "core/checked_math.h"

namespace etpack {
namespace {

// A JSON string token: names that need no escape (nearly all) copied whole,
// the others through write_json_string (which goes byte by byte).
void write_plain_or_escaped(const std::string& s, std::string& out) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == '"' || c == '\\') {
      write_json_string(s, out);
      return;
    }
  }
  out.append(1, '"').append(s).append(1, '"');
}

std::string owners_text(const std::vector<std::string>& owners) {
  std::string out = "[";
  for (size_t i = 0; i < owners.size(); ++i) {
    if (i) out += ", ";
    write_plain_or_escaped(owners[i], out);
  }
  out += "]";
  return out;
}

}  // namespace

ColumnsText::ColumnsText(std::vector<const char*> names) : names_(std::move(names)), columns_(names_.size()) {}

void ColumnsText::put(size_t column, std::string_view value, bool scalar) {
  Column& c = columns_[column];
  if (rows_ == 0) {
    c.first_size = value.size();
  } else {
    c.text += ", ";
    c.same = c.same && std::string_view(c.text.data(), c.first_size) == value;
  }
  c.same = c.same && scalar;
  c.text += value;
}

void ColumnsText::u64(size_t column, uint64_t v) { put(column, std::to_string(v)); }
void ColumnsText::opt_u64(size_t column, std::optional<uint64_t> v) { v ? u64(column, *v) : null(column); }
void ColumnsText::string(size_t column, const std::string& s) {
  scratch_.clear();
  write_plain_or_escaped(s, scratch_);
  put(column, scratch_);
}
void ColumnsText::null(size_t column) { put(column, "null"); }
void ColumnsText::boolean(size_t column, bool v) { put(column, v ? "true" : "false"); }
void ColumnsText::raw(size_t column, std::string_view json) { put(column, json, false); }

size_t ColumnsText::text_size() const {
  size_t bytes = 64;
  for (size_t i = 0; i < names_.size(); ++i) bytes += columns_[i].text.size() + 16 + std::string_view(names_[i]).size();
  return bytes;
}

void ColumnsText::write_to(std::string& out) const {
  out += "{\"rows\": " + std::to_string(rows_) + ", \"columns\": {";
  for (size_t i = 0; i < names_.size(); ++i) {
    const Column& c = columns_[i];
    if (i) out += ", ";
    write_json_string(names_[i], out);
    if (rows_ >= 2 && c.same) {
      out += ": {\"same\": ";
      out.append(c.text, 0, c.first_size);
      out += "}";
    } else {
      out += ": [";
      out += c.text;
      out += "]";
    }
  }
  out += "}}";
}

ColumnsText segments_columns(const Value& segments, uint64_t base, const std::vector<SegmentUse>& uses) {
  enum { kIndex, kOffset, kSize, kKind, kOwners };
  ColumnsText out({"index", "offset", "size", "kind", "owners"});
  for (size_t i = 0; segments.is_items() && i < segments.items().size(); ++i) {
    const TableValue& s = segments.items()[i].table();
    const SegmentUse* use = i < uses.size() ? &uses[i] : nullptr;
    out.u64(kIndex, i);
    out.opt_u64(kOffset, checked_add(base, s.get_uint("offset")));
    out.u64(kSize, s.get_uint("size"));
    out.string(kKind, region_kind_name(use && use->kind ? *use->kind : RegionKind::kSegment));
    out.raw(kOwners, use ? owners_text(use->owners) : "[]");
    out.end_row();
  }
  return out;
}

ColumnsText segment_map_columns(const std::vector<Region>& layout, const std::vector<SegmentUse>& uses) {
  enum { kStart, kEnd, kSize, kKind, kSegment, kOwners, kClipped };
  ColumnsText out({"start", "end", "size", "kind", "segment", "owners", "clipped"});
  for (const Region& r : layout) {
    out.u64(kStart, r.start);
    out.u64(kEnd, r.end);
    out.u64(kSize, r.end - r.start);
    out.string(kKind, region_kind_name(r.kind));
    out.opt_u64(kSegment, r.segment);
    const bool segment_owners = r.segment && *r.segment < uses.size() && uses[*r.segment].owners == r.owners;
    out.raw(kOwners, segment_owners ? std::to_string(*r.segment) : owners_text(r.owners));
    out.boolean(kClipped, r.clipped);
    out.end_row();
  }
  return out;
}

std::optional<uint64_t> actual_segment_alignment(const Value& segments, uint64_t base) {
  if (base == 0 || !segments.is_items() || segments.items().empty()) return std::nullopt;
  uint64_t bits = base;
  for (const Value& s : segments.items()) {
    auto start = checked_add(base, s.table().get_uint("offset"));
    if (start) bits |= *start;
  }
  return bits & (~bits + 1);  // lowest set bit
}

Json bytes_by_category_json(const std::vector<Region>& layout) {
  struct Category {
    const char* name;
    std::vector<RegionKind> kinds;
    uint64_t bytes = 0;
  };
  std::vector<Category> categories = {
      {"header", {RegionKind::kPreamble, RegionKind::kHeader}},
      {"flatbufferMetadata", {RegionKind::kFlatbuffer}},
      {"constants", {RegionKind::kConstant}},
      {"mutableData", {RegionKind::kMutable}},
      {"delegateBlobs", {RegionKind::kDelegate}},
      {"namedData", {RegionKind::kNamedData}},
      {"padding", {RegionKind::kPadding}},
      {"unused", {RegionKind::kSegment, RegionKind::kUnused}},
  };
  for (const Region& r : layout)
    for (Category& c : categories)
      for (RegionKind kind : c.kinds)
        if (kind == r.kind) c.bytes += r.end - r.start;
  Json out = Json::object();
  for (const Category& c : categories) out.set(c.name, Json::unsigned_integer(c.bytes));
  return out;
}

std::string write_with_tables(const Json& summary, const std::vector<std::pair<std::string, ColumnsText>>& tables) {
  size_t bytes = size_t{1} << 16;  // the rest of the summary, roughly
  for (const auto& t : tables) bytes += t.second.text_size();
  std::string out;
  out.reserve(bytes);
  out += "{";
  for (const auto& [key, value] : summary.members()) {
    if (out.size() > 1) out += ", ";
    write_json_string(key, out);
    out += ": ";
    const ColumnsText* table = nullptr;
    for (const auto& t : tables)
      if (t.first == key) table = &t.second;
    if (table) {
      table->write_to(out);
    } else {
      write_json(value, out);
    }
  }
  out += "}";
  return out;
}

namespace {

Json rows_of(const Json& table) {
  Json out = Json::array();
  const Json* rows = table.find("rows");
  const Json* columns = table.find("columns");
  const uint64_t n = rows ? rows->as_uint64().value_or(0) : 0;
  for (uint64_t i = 0; columns && i < n; ++i) {
    Json row = Json::object();
    for (const auto& [name, column] : columns->members()) {
      const Json* same = column.find("same");
      if (column.is_array() && i < column.items().size()) {
        row.set(name, column.items()[i]);
      } else {
        row.set(name, same ? *same : Json::null());
      }
    }
    out.push(std::move(row));
  }
  return out;
}

}  // namespace

Result<Json> summary_from_reply(const std::string& reply, const std::vector<std::string>& names) {
  ETP_ASSIGN(Json summary, parse_json(reply));
  for (auto& [key, value] : summary.members()) {
    bool listed = false;
    for (const std::string& name : names) listed = listed || name == key;
    if (listed) value = rows_of(value);
  }
  Json* segments = nullptr;
  Json* map = nullptr;
  for (auto& [key, value] : summary.members()) {
    if (key == "segments") segments = &value;
    if (key == "segmentMap") map = &value;
  }
  for (size_t i = 0; map && i < map->items().size(); ++i) {
    for (auto& [key, value] : map->items()[i].members()) {
      if (key != "owners" || !value.is_number()) continue;
      const uint64_t segment = value.as_uint64().value_or(UINT64_MAX);
      const Json* owners = segments && segment < segments->items().size() ? segments->items()[segment].find("owners") : nullptr;
      value = owners ? *owners : Json::array();
    }
  }
  return summary;
}

}  // namespace etpack
