#include "read/layout_json.h"

#include <string>

#include "core/checked_math.h"

namespace etpack {
namespace {

Json owners_json(const std::vector<std::string>& owners) {
  Json out = Json::array();
  for (const std::string& o : owners) out.push(Json::string(o));
  return out;
}

}  // namespace

Json segments_json(const Value& segments, uint64_t base, const std::vector<SegmentUse>& uses) {
  Json out = Json::array();
  if (!segments.is_items()) return out;
  for (size_t i = 0; i < segments.items().size(); ++i) {
    const TableValue& s = segments.items()[i].table();
    auto start = checked_add(base, s.get_uint("offset"));
    const SegmentUse* use = i < uses.size() ? &uses[i] : nullptr;
    Json j = Json::object();
    j.set("index", Json::unsigned_integer(i));
    j.set("offset", start ? Json::unsigned_integer(*start) : Json::null());
    j.set("size", Json::unsigned_integer(s.get_uint("size")));
    j.set("kind", Json::string(region_kind_name(use && use->kind ? *use->kind : RegionKind::kSegment)));
    j.set("owners", use ? owners_json(use->owners) : Json::array());
    out.push(std::move(j));
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

Json segment_map_json(const std::vector<Region>& layout) {
  Json out = Json::array();
  for (const Region& r : layout) {
    Json j = Json::object();
    j.set("start", Json::unsigned_integer(r.start));
    j.set("end", Json::unsigned_integer(r.end));
    j.set("size", Json::unsigned_integer(r.end - r.start));
    j.set("kind", Json::string(region_kind_name(r.kind)));
    j.set("segment", r.segment ? Json::unsigned_integer(*r.segment) : Json::null());
    j.set("owners", owners_json(r.owners));
    j.set("clipped", Json::boolean(r.clipped));
    out.push(std::move(j));
  }
  return out;
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

}  // namespace etpack
