#include "read/file_layout.h"

#include <algorithm>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "read/program_tensors.h"

namespace etpack {
namespace {

// Adds [start, start + size) when it does not overflow (clipping happens in
// partition_regions).
void declare(std::vector<Region>& out, uint64_t start, uint64_t size, RegionKind kind,
             std::optional<uint64_t> segment = std::nullopt, std::vector<std::string> owners = {}) {
  auto end = checked_add(start, size);
  Region r;
  r.start = start;
  r.end = end ? *end : UINT64_MAX;
  r.clipped = !end;
  r.kind = kind;
  r.segment = segment;
  r.owners = std::move(owners);
  out.push_back(std::move(r));
}

void use(std::vector<SegmentUse>& uses, uint64_t index, RegionKind kind, std::string owner) {
  if (index >= uses.size()) return;
  if (!uses[index].kind) uses[index].kind = kind;
  uses[index].owners.push_back(std::move(owner));
}

// Named data entries ([NamedData] of either schema) as segment users.
void use_named_data(std::vector<SegmentUse>& uses, const Value& named) {
  if (!named.is_items()) return;
  for (size_t i = 0; i < named.items().size(); ++i) {
    const uint64_t index = named.items()[i].table().get_uint("segment_index");
    if (index >= uses.size()) continue;
    if (!uses[index].kind) uses[index].kind = RegionKind::kNamedData;
    uses[index].named_data.push_back(static_cast<uint32_t>(i));  // a vector's length fits 32 bits in a flatbuffer
  }
}

}  // namespace

void named_data_owner(const Value& named, size_t index, std::string& out) {
  out.assign("named_data[").append(std::to_string(index)).append("]");
  const Value& key = named.items()[index].table().get("key");
  if (key.is_string()) out.append(" ").append(key.str());
}

void named_data_owner(const PtdTable& ptd, size_t index, std::string& out) {
  out.assign("named_data[").append(std::to_string(index)).append("]");
  if (auto key = ptd.key(index)) out.append(" ").append(*key);
}

std::vector<SegmentRange> segment_ranges(const Value& segments) {
  std::vector<SegmentRange> out;
  if (!segments.is_items()) return out;
  out.reserve(segments.items().size());
  for (const Value& s : segments.items()) out.push_back({s.table().get_uint("offset"), s.table().get_uint("size")});
  return out;
}

const char* region_kind_name(RegionKind kind) {
  switch (kind) {
    case RegionKind::kPreamble: return "preamble";
    case RegionKind::kHeader: return "header";
    case RegionKind::kPadding: return "padding";
    case RegionKind::kFlatbuffer: return "flatbuffer";
    case RegionKind::kConstant: return "constant";
    case RegionKind::kMutable: return "mutable";
    case RegionKind::kDelegate: return "delegate";
    case RegionKind::kNamedData: return "namedData";
    case RegionKind::kSegment: return "segment";
    case RegionKind::kUnused: return "unused";
  }
  return "unused";
}

std::optional<uint64_t> infer_segment_alignment(uint64_t data_end, uint64_t base) {
  if (base <= data_end) return std::nullopt;
  uint64_t gap = base - data_end;
  uint64_t p = 1;
  while (p <= gap) {
    if (p > (uint64_t{1} << 62)) return std::nullopt;
    p <<= 1;
  }
  if (base % p != 0) return std::nullopt;
  return p;
}

std::vector<SegmentUse> pte_segment_uses(const TableValue& program, size_t count) {
  std::vector<SegmentUse> uses(count);
  const Value& cs = program.get("constant_segment");
  if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 0)
    use(uses, cs.table().get_uint("segment_index"), RegionKind::kConstant, "constant_segment");
  const Value& mds = program.get("mutable_data_segments");
  if (mds.is_items())
    for (size_t i = 0; i < mds.items().size(); ++i)
      use(uses, mds.items()[i].table().get_uint("segment_index"), RegionKind::kMutable,
          "mutable_data_segments[" + std::to_string(i) + "]");
  for_each_segment_delegate(program, [&](size_t p, size_t d, const TableValue& delegate, uint64_t index) {
    std::string owner = "execution_plan[" + std::to_string(p) + "].delegates[" + std::to_string(d) + "]";
    if (delegate.get("id").is_string()) owner += " " + delegate.get("id").str();
    use(uses, index, RegionKind::kDelegate, std::move(owner));
  });
  use_named_data(uses, program.get("named_data"));
  return uses;
}

namespace {

// Declares each segment at `base`, of the kind its use gives (owners stay
// with the use).
void declare_segments(std::vector<Region>& out, const std::vector<SegmentRange>& segments, uint64_t base,
                      const std::vector<SegmentUse>& uses) {
  for (size_t i = 0; i < segments.size(); ++i) {
    auto start = checked_add(base, segments[i].offset);
    if (!start) continue;
    const RegionKind kind = i < uses.size() && uses[i].kind ? *uses[i].kind : RegionKind::kSegment;
    declare(out, *start, segments[i].size, kind, i);
  }
}

// Inline byte vectors inside the flatbuffer: constant storage and delegate data.
void declare_inline_data(std::vector<Region>& out, const Blob& file, const TableValue& program) {
  auto each = [&](const char* list, const char* field, RegionKind kind) {
    const Value& items = program.get(list);
    if (!items.is_items()) return;
    for (size_t i = 0; i < items.items().size(); ++i) {
      const Value& bytes = items.items()[i].table().get(field);
      if (!bytes.is_scalars()) continue;
      auto at = offset_in_file(bytes.scalars(), file);
      if (at && bytes.scalars().size() > 0)
        declare(out, *at, bytes.scalars().size(), kind, std::nullopt, {std::string(list) + "[" + std::to_string(i) + "]"});
    }
  };
  each("constant_buffer", "storage", RegionKind::kConstant);
  each("backend_delegate_data", "data", RegionKind::kDelegate);
}

}  // namespace

std::vector<SegmentUse> ptd_segment_uses(const PtdTable& ptd) {
  std::vector<SegmentUse> uses(ptd.segments.size());
  for (size_t i = 0; i < ptd.named_count(); ++i) {
    const uint32_t index = ptd.segment_index[i];
    if (index >= uses.size()) continue;
    if (!uses[index].kind) uses[index].kind = RegionKind::kNamedData;
    uses[index].named_data.push_back(static_cast<uint32_t>(i));  // a vector's length fits 32 bits in a flatbuffer
  }
  return uses;
}

std::vector<Region> partition_regions(std::vector<Region> declared, uint64_t file_size, uint64_t data_end) {
  std::stable_sort(declared.begin(), declared.end(),
                   [](const Region& a, const Region& b) { return a.start < b.start; });
  std::vector<Region> out;
  uint64_t cursor = 0;
  auto gap_to = [&](uint64_t to) {
    while (cursor < to) {
      uint64_t stop = cursor < data_end ? std::min(to, data_end) : to;
      Region g;
      g.start = cursor;
      g.end = stop;
      g.kind = cursor < data_end ? RegionKind::kPadding : RegionKind::kUnused;
      out.push_back(std::move(g));
      cursor = stop;
    }
  };
  for (Region& r : declared) {
    if (r.start >= file_size) continue;
    if (r.end > file_size) {
      r.end = file_size;
      r.clipped = true;
    }
    if (r.end <= r.start || r.end <= cursor) continue;  // empty, or entirely covered
    if (r.start < cursor) {
      r.start = cursor;
      r.clipped = true;
    }
    gap_to(r.start);
    cursor = r.end;
    out.push_back(std::move(r));
  }
  gap_to(file_size);
  return out;
}

uint64_t flatbuffer_objects_start(const Blob& file, uint64_t min_start, uint64_t flatbuffer_end) {
  if (flatbuffer_end > file.size() || min_start > flatbuffer_end) return min_start;
  uint64_t first = flatbuffer_end;
  uint64_t root = read_le<uint32_t>(file.data());
  if (root < flatbuffer_end && range_within(root, 4, flatbuffer_end)) {
    first = root;
    int64_t vtable = static_cast<int64_t>(root) - static_cast<int32_t>(read_le<uint32_t>(file.data() + root));
    if (vtable >= 0 && static_cast<uint64_t>(vtable) < first) first = static_cast<uint64_t>(vtable);
  }
  return std::max(first, min_start);
}

std::vector<Region> pte_layout(const Blob& head, uint64_t size, const PteFile& pte, const std::vector<SegmentUse>& uses) {
  std::vector<Region> declared;
  const Blob& file = head;  // pointers into the flatbuffer are pointers into the head
  declare(declared, 0, 8, RegionKind::kPreamble);
  // Without eh00: the flatbuffer's own end; what follows it is unused.
  uint64_t program_end = pte_program_end(pte.header, head, size), header_end = 8, data_end = size;
  if (pte.header) {
    program_end = pte.header->program_size;
    header_end = std::min<uint64_t>(8 + uint64_t{pte.header->length}, program_end);
    declare(declared, 8, header_end - 8, RegionKind::kHeader);
  }
  // The flatbuffer, minus the inline data inside it.
  uint64_t cursor = flatbuffer_objects_start(file, header_end, program_end);
  std::vector<Region> inline_data;
  declare_inline_data(inline_data, file, pte.program);
  std::stable_sort(inline_data.begin(), inline_data.end(),
                   [](const Region& a, const Region& b) { return a.start < b.start; });
  for (Region& r : inline_data) {
    if (r.start < cursor || r.end > program_end) continue;  // overlapping or misplaced: stays metadata
    declare(declared, cursor, r.start - cursor, RegionKind::kFlatbuffer);
    cursor = r.end;
    declared.push_back(std::move(r));
  }
  declare(declared, cursor, program_end - cursor, RegionKind::kFlatbuffer);
  const Value& segments = pte.program.get("segments");
  if (pte.header && pte.header->segment_base_offset != 0 && segments.is_items()) {
    const uint64_t base = pte.header->segment_base_offset;
    if (pte.header->length >= PteHeader::kLength) {
      auto end = checked_add(base, pte.header->segment_data_size);
      data_end = end ? std::min(*end, size) : size;
    }
    declare_segments(declared, segment_ranges(segments), base, uses);
  } else {
    data_end = program_end;
  }
  return partition_regions(std::move(declared), size, data_end);
}

std::vector<Region> ptd_layout(const Blob& head, uint64_t size, const PtdTable& ptd, const std::vector<SegmentUse>& uses) {
  std::vector<Region> declared;
  const PtdHeader& h = ptd.header;
  const Blob& file = head;
  declare(declared, 0, 8, RegionKind::kPreamble);
  declare(declared, 8, std::min<uint64_t>(h.length, ptd.flatbuffer_end - 8), RegionKind::kHeader);
  uint64_t header_end = std::min<uint64_t>(8 + uint64_t{h.length}, ptd.flatbuffer_end);
  uint64_t objects = flatbuffer_objects_start(file, std::max(header_end, h.flatbuffer_offset), ptd.flatbuffer_end);
  declare(declared, objects, ptd.flatbuffer_end - objects, RegionKind::kFlatbuffer);
  uint64_t data_end = size;
  if (auto end = checked_add(h.segment_base_offset, h.segment_data_size)) data_end = std::min(*end, size);
  declare_segments(declared, ptd.segments, h.segment_base_offset, uses);
  return partition_regions(std::move(declared), size, data_end);
}

}  // namespace etpack
