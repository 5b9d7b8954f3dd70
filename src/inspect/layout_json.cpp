#include "inspect/layout_json.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/checked_math.h"
#include "core/utf8_text.h"

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

// Every referrer of a segment: the named ones and all named-data entries.
uint64_t owner_count(const SegmentUse& use) { return use.owners.size() + use.named_data.size(); }

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
    c.same = scalar;
    c.text = value;
    return;
  }
  // While every value is row 0's, text holds row 0's alone (a million
  // nulls are not written out); the first other value writes them.
  if (c.same && scalar && std::string_view(c.text) == value) return;
  if (c.same) {
    const std::string first = c.text;
    c.text.reserve((first.size() + 2) * (rows_ + 1) + value.size());
    for (uint64_t row = 1; row < rows_; ++row) c.text.append(", ").append(first);
    c.same = false;
  }
  c.text += ", ";
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

void ColumnsText::reserve(size_t column, size_t bytes) { columns_[column].text.reserve(bytes); }

void ColumnsText::join(Column& c, std::string_view name) {
  if (!c.lengths.empty()) c.lengths += ", ";
  c.lengths += std::to_string(append_decoded_utf8(name, c.text));
}

void ColumnsText::joined_name(size_t column, const std::string* name) {
  joined_name(column, name ? std::optional<std::string_view>(*name) : std::nullopt);
}

void ColumnsText::joined_name(size_t column, std::optional<std::string_view> name) {
  Column& c = columns_[column];
  c.joined = true;
  c.same = false;
  if (name) {
    join(c, *name);
  } else {
    c.lengths += c.lengths.empty() ? "-1" : ", -1";
  }
}

void ColumnsText::list_name(size_t column, std::string_view name) {
  Column& c = columns_[column];
  join(c, name);
  ++c.listed;
}

void ColumnsText::end_list(size_t column) {
  Column& c = columns_[column];
  c.joined = c.lists = true;
  c.same = false;
  if (rows_) c.counts += ", ";
  c.counts += std::to_string(c.listed);
  c.listed = 0;
}

void ColumnsText::boolean(size_t column, bool v) { put(column, v ? "true" : "false"); }
void ColumnsText::raw(size_t column, std::string_view json) { put(column, json, false); }

size_t ColumnsText::text_size() const {
  size_t bytes = 64;
  for (const auto& e : extras_) bytes += e.second.size() + 16;
  for (size_t i = 0; i < names_.size(); ++i) {
    const Column& c = columns_[i];
    bytes += c.text.size() + c.lengths.size() + c.counts.size() + 64 + std::string_view(names_[i]).size();
  }
  return bytes;
}

void ColumnsText::write_to(std::string& out, std::vector<std::string>& names) {
  out += "{\"rows\": " + std::to_string(rows_) + ", \"columns\": {";
  for (size_t i = 0; i < names_.size(); ++i) {
    Column& c = columns_[i];
    if (i) out += ", ";
    write_json_string(names_[i], out);
    if (c.joined) {
      out += ": {\"names\": " + std::to_string(names.size()) + ", \"lengths\": [";
      names.push_back(std::move(c.text));
      out += c.lengths;
      out += "]";
      if (c.lists) {
        out += ", \"counts\": [";
        out += c.counts;
        out += "]";
      }
      out += "}";
    } else if (rows_ >= 2 && c.same) {
      out += ": {\"same\": ";
      out.append(c.text, 0, c.first_size);
      out += "}";
    } else {
      out += ": [";
      out += c.text;
      out += "]";
    }
  }
  out += "}";
  for (const auto& [name, json] : extras_) {
    out += ", ";
    write_json_string(name, out);
    out += ": ";
    out += json;
  }
  out += "}";
}

ColumnsText segments_columns(const std::vector<SegmentRange>& segments, uint64_t base, const std::vector<SegmentUse>& uses,
                             const std::function<void(size_t, std::string&)>& owner_name) {
  enum { kIndex, kOffset, kSize, kKind, kOwners, kOwnerCount };
  ColumnsText out({"index", "offset", "size", "kind", "owners", "ownerCount"});
  std::string name;
  for (size_t i = 0; i < segments.size(); ++i) {
    const SegmentUse* use = i < uses.size() ? &uses[i] : nullptr;
    out.u64(kIndex, i);
    out.opt_u64(kOffset, checked_add(base, segments[i].offset));
    out.u64(kSize, segments[i].size);
    out.string(kKind, region_kind_name(use && use->kind ? *use->kind : RegionKind::kSegment));
    if (use) {
      for (const std::string& owner : use->owners) out.list_name(kOwners, owner);
      // Only the first few named-data entries by name (issue 29): a segment
      // a million entries share would otherwise write a million names;
      // ownerCount counts them all and namedData.segment tells which.
      const size_t shown = std::min(use->named_data.size(), kNamedDataOwnersShown);
      for (size_t k = 0; k < shown; ++k) {
        owner_name(use->named_data[k], name);
        out.list_name(kOwners, name);
      }
    }
    out.end_list(kOwners);
    out.u64(kOwnerCount, use ? owner_count(*use) : 0);
    out.end_row();
  }
  return out;
}

ColumnsText segments_columns(const Value& segments, uint64_t base, const std::vector<SegmentUse>& uses, const Value& named) {
  return segments_columns(segment_ranges(segments), base, uses,
                          [&named](size_t index, std::string& out) { named_data_owner(named, index, out); });
}

ColumnsText segment_map_columns(const std::vector<Region>& layout, const std::vector<SegmentUse>& uses) {
  enum { kStart, kEnd, kSize, kKind, kSegment, kOwners, kOwnerCount, kClipped };
  ColumnsText out({"start", "end", "size", "kind", "segment", "owners", "ownerCount", "clipped"});
  for (const Region& r : layout) {
    out.u64(kStart, r.start);
    out.u64(kEnd, r.end);
    out.u64(kSize, r.end - r.start);
    out.string(kKind, region_kind_name(r.kind));
    out.opt_u64(kSegment, r.segment);
    // A segment's region: its owners are the segment's.
    const bool segment_owners = r.segment && *r.segment < uses.size();
    out.raw(kOwners, segment_owners ? std::to_string(*r.segment) : owners_text(r.owners));
    out.u64(kOwnerCount, segment_owners ? owner_count(uses[*r.segment]) : r.owners.size());
    out.boolean(kClipped, r.clipped);
    out.end_row();
  }
  return out;
}

std::optional<uint64_t> actual_segment_alignment(const std::vector<SegmentRange>& segments, uint64_t base) {
  if (base == 0 || segments.empty()) return std::nullopt;
  uint64_t bits = base;
  for (const SegmentRange& s : segments) {
    auto start = checked_add(base, s.offset);
    if (start) bits |= *start;
  }
  return bits & (~bits + 1);  // lowest set bit
}

std::optional<uint64_t> actual_segment_alignment(const Value& segments, uint64_t base) {
  return actual_segment_alignment(segment_ranges(segments), base);
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

InspectReply write_with_tables(const Json& summary, std::vector<std::pair<std::string, ColumnsText>> tables) {
  size_t bytes = size_t{1} << 16;  // the rest of the summary, roughly
  for (const auto& t : tables) bytes += t.second.text_size();
  InspectReply reply;
  std::string& out = reply.json;
  out.reserve(bytes);
  out += "{";
  for (const auto& [key, value] : summary.members()) {
    if (out.size() > 1) out += ", ";
    write_json_string(key, out);
    out += ": ";
    ColumnsText* table = nullptr;
    for (auto& t : tables)
      if (t.first == key) table = &t.second;
    if (table) {
      table->write_to(out, reply.names);
    } else {
      write_json(value, out);
    }
  }
  out += "}";
  return reply;
}

namespace {

// A joined column (ColumnsText) as the array of its values.
Json split_joined(const Json& column, const std::vector<std::string>& joined) {
  const uint64_t index = column.find("names")->as_uint64().value_or(UINT64_MAX);
  const std::string_view text = index < joined.size() ? std::string_view(joined[index]) : std::string_view();
  const Json* lengths = column.find("lengths");
  const Json* counts = column.find("counts");
  std::vector<Json> names;
  size_t at = 0;
  for (size_t i = 0; lengths && i < lengths->items().size(); ++i) {
    const std::optional<uint64_t> units = lengths->items()[i].as_uint64();
    if (!units) {
      names.push_back(Json::null());
      continue;
    }
    const size_t bytes = utf8_bytes_of_units(text.substr(at), static_cast<size_t>(*units));
    names.push_back(Json::string(std::string(text.substr(at, bytes))));
    at += bytes;
  }
  Json out = Json::array();
  if (!counts) {
    out.items() = std::move(names);
    return out;
  }
  size_t next = 0;
  for (const Json& count : counts->items()) {
    Json list = Json::array();
    for (uint64_t k = count.as_uint64().value_or(0); k > 0 && next < names.size(); --k) list.push(std::move(names[next++]));
    out.push(std::move(list));
  }
  return out;
}

Json rows_of(Json table, const std::vector<std::string>& names) {
  Json out = Json::array();
  const Json* rows = table.find("rows");
  Json* columns = nullptr;
  for (auto& [key, value] : table.members())
    if (key == "columns") columns = &value;
  if (columns)
    for (auto& member : columns->members())
      if (member.second.find("names")) member.second = split_joined(member.second, names);
  const uint64_t n = rows ? rows->as_uint64().value_or(0) : 0;
  for (uint64_t i = 0; columns && i < n; ++i) {
    Json row = Json::object();
    for (auto& [name, column] : columns->members()) {
      const Json* same = column.find("same");
      if (column.is_array() && i < column.items().size()) {
        row.set(name, std::move(column.items()[i]));  // each cell goes to one row
      } else {
        row.set(name, same ? *same : Json::null());
      }
    }
    out.push(std::move(row));
  }
  return out;
}

// namedData's public shape: the columns themselves (a million entries are
// a few arrays, not a million objects), {"same": v} written out, with the
// table's extras (layouts) after them.
Json columns_of(Json table, const std::vector<std::string>& names) {
  Json out = Json::object();
  const Json* rows = table.find("rows");
  const uint64_t n = rows ? rows->as_uint64().value_or(0) : 0;
  out.set("count", Json::unsigned_integer(n));
  for (auto& [key, value] : table.members()) {
    if (key == "rows") continue;
    if (key != "columns") {
      out.set(key, std::move(value));
      continue;
    }
    for (auto& [name, column] : value.members()) {
      if (column.find("names")) {
        out.set(name, split_joined(column, names));
      } else if (const Json* same = column.find("same")) {
        Json list = Json::array();
        for (uint64_t i = 0; i < n; ++i) list.push(*same);
        out.set(name, std::move(list));
      } else {
        out.set(name, std::move(column));
      }
    }
  }
  return out;
}

}  // namespace

Result<Json> summary_from_reply(const InspectReply& reply, const std::vector<std::string>& tables) {
  ETP_ASSIGN(Json summary, parse_json(reply.json));
  for (auto& [key, value] : summary.members()) {
    bool listed = false;
    for (const std::string& name : tables) listed = listed || name == key;
    if (listed) value = key == "namedData" ? columns_of(std::move(value), reply.names) : rows_of(std::move(value), reply.names);
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
