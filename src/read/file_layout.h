// The byte layout of a .pte or .ptd: a list of regions that covers every
// byte of the file exactly once, in order. inspect prints it as the segment
// map; validate checks its padding and unused bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/blob.h"
#include "read/ptd_table.h"
#include "read/pte_reader.h"

namespace etpack {

// What a byte range holds.
enum class RegionKind : uint8_t {
  kPreamble,    // root offset + file identifier (bytes 0..8)
  kHeader,      // eh00 / FH01 extended header
  kPadding,     // alignment gap (expected to be zero)
  kFlatbuffer,  // flatbuffer metadata
  kConstant,    // constant tensor data (segment or inline Buffer.storage)
  kMutable,     // initial values of mutable tensors
  kDelegate,    // a delegate's processed blob (segment or inline)
  kNamedData,   // named data (PTE segments, every .ptd segment)
  kSegment,     // a segment nothing refers to
  kUnused,      // bytes past the declared data
};

// "preamble", "header", "padding", "flatbuffer", "constant", "mutable",
// "delegate", "namedData", "segment", "unused": the names inspect prints.
const char* region_kind_name(RegionKind kind);

struct Region {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  RegionKind kind = RegionKind::kPadding;
  std::optional<uint64_t> segment;  // segment index, for segment regions
  // Who refers to the bytes, e.g. "constant_backend_data[0]"; empty for a
  // segment's region, whose owners are its SegmentUse's (a segment a
  // million named-data entries share would copy a million names).
  std::vector<std::string> owners;
  bool clipped = false;             // declared larger than shown: it overlapped another region or the file end
};

// Builds a partition of [0, file_size) from declared regions, which may
// overlap or run past the end: regions are ordered by start, a region is
// clipped where an earlier one already covers its bytes, and uncovered gaps
// become padding (before `data_end`) or unused (from `data_end` on).
std::vector<Region> partition_regions(std::vector<Region> declared, uint64_t file_size, uint64_t data_end);

// Where the flatbuffer's objects begin: the lower of the root table and its
// vtable (both builders write them last, at the lowest addresses), clamped
// to [min_start, flatbuffer_end]. Bytes before it are the builder's padding.
uint64_t flatbuffer_objects_start(const Blob& file, uint64_t min_start, uint64_t flatbuffer_end);

// The smallest power of two P with `base` a multiple of P and
// base - data_end < P: the alignment that `base = aligned(data_end, P)`
// implies. nullopt when it cannot be told (base == data_end, or no P fits).
std::optional<uint64_t> infer_segment_alignment(uint64_t data_end, uint64_t base);

// What refers to one segment: the kind of the first reference (none when
// nothing does) and every referrer, e.g. "execution_plan[0].delegates[1]
// XnnpackBackend", then the named-data entries (by index: a segment a
// million entries share would otherwise cost a million strings; their
// names are named_data_owner's).
struct SegmentUse {
  std::optional<RegionKind> kind;
  std::vector<std::string> owners;
  std::vector<uint32_t> named_data;  // indices into the file's named_data, in order
};

// Uses of segments 0..count-1 by a Program's constant_segment,
// mutable_data_segments, SEGMENT delegates and named_data; references past
// `count` are ignored.
std::vector<SegmentUse> pte_segment_uses(const TableValue& program, size_t count);
// Uses by a FlatTensor's named_data (segments 0..ptd.segments.size()-1).
std::vector<SegmentUse> ptd_segment_uses(const PtdTable& ptd);

// The owner name of entry `index` of `named` ([NamedData] of either
// schema), "named_data[3] weight" ("named_data[3]" without a key), written
// into `out` (cleared first).
void named_data_owner(const Value& named, size_t index, std::string& out);
// The same for entry `index` of a .ptd's named_data.
void named_data_owner(const PtdTable& ptd, size_t index, std::string& out);

// A [DataSegment] value's (offset, size) pairs ([] when absent).
std::vector<SegmentRange> segment_ranges(const Value& segments);

// Layout of a .pte that read_pte_program accepted (`pte` is its result):
// `head` holds the file's first bytes (at least through the flatbuffer),
// `file_size` is the size of the whole file, `uses` its segments' uses
// (pte_segment_uses; a segment's region takes its kind).
std::vector<Region> pte_layout(const Blob& head, uint64_t file_size, const PteFile& pte, const std::vector<SegmentUse>& uses);

// Layout of a .ptd that read_ptd_table accepted (`uses`: ptd_segment_uses).
std::vector<Region> ptd_layout(const Blob& head, uint64_t file_size, const PtdTable& ptd, const std::vector<SegmentUse>& uses);

}  // namespace etpack
