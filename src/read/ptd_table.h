// The FlatTensor table of a .ptd, read but not interpreted: what inspect,
// validate and graph walk. Unlike deserialize_ptd, segments and named data
// are not checked here, so a file whose flatbuffer is sound can still be
// described and each of its problems reported.
//
// The table is read in columns (issue 29): a .ptd can hold a million
// named-data entries, so an entry costs a key view and two integers, not a
// decoded table of its own; the tensor layouts entries point at are decoded
// once per distinct table (a million entries sharing one layout decode it
// once), and the segments are a plain vector of (offset, size).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "format/headers.h"
#include "format/file_source.h"
#include "read/program_tensors.h"

namespace etpack {

// The start of a .ptd, checked: the one identifier + header + flatbuffer
// range check that deserialize_ptd, ptd_head_size and read_ptd_table share.
struct PtdHead {
  PtdHeader header;
  uint64_t flatbuffer_end = 0;  // header.flatbuffer_offset + flatbuffer_size, checked <= file_size
};
// Reads the identifier (at format/file_kinds.def's offset) and the header
// from `first_bytes` (in memory; what is missing counts as absent).
// Errors: kMalformedFile (too short, another identifier, no header, a
// corrupt header, a flatbuffer range outside [header end, file_size]),
// kUnsupportedVersion (another FTxx identifier); each names the offset.
Result<PtdHead> check_ptd_head(const Blob& first_bytes, uint64_t file_size);

// One DataSegment: offset from the segment base, and size.
struct SegmentRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// One distinct TensorLayout table of the file.
struct PtdLayout {
  uint64_t table_offset = 0;  // where the table lies in the file
  TensorView view;            // scalar_type, rank, sizes, dim_order, sizes_offset (view_tensor's fields)
  // dim_order's own length. read_ptd_entries reads the rank's bytes of
  // dim_order into the view, as the runtime does, whatever this says.
  uint64_t dim_order_count = 0;
};

// A part of one segment or named-data entry that could not be read (a
// table, field or vector outside the flatbuffer, or a key string without
// its NUL): where, and what. Only read_ptd_entries records these.
struct PtdFault {
  uint64_t offset = 0;  // in the file
  std::string message;
};

struct PtdTable {
  static constexpr uint32_t kNoLayout = UINT32_MAX;
  static constexpr uint32_t kNoFault = UINT32_MAX;

  PtdHeader header;
  uint64_t flatbuffer_end = 0;  // header.flatbuffer_offset + flatbuffer_size, checked
  uint64_t version = 0;         // FlatTensor.version (0 when absent)
  uint64_t version_offset = 0;  // where it lies in the file (0: absent)
  bool has_segments = false;    // the FlatTensor table holds the field
  bool has_named_data = false;
  std::vector<SegmentRange> segments;
  // The segments vector's length. read_ptd_entries reads only the slots
  // inside the flatbuffer into `segments`; this may claim more.
  uint64_t segment_count = 0;
  // named_data, one row per entry, in file order.
  std::vector<std::string_view> keys;  // views into the file's head; data() == nullptr: no key
  std::vector<uint32_t> segment_index;
  std::vector<uint32_t> layout;  // index into `layouts`, or kNoLayout
  std::vector<PtdLayout> layouts;  // in order of first use
  // read_ptd_entries only (empty otherwise): per segment and per entry, the
  // index in `faults` of what could not be read, or kNoFault. A faulty
  // segment reads as (0, 0); an entry whose segment_index could not be read
  // as segment 0, whose tensor_layout could not be read as kNoLayout.
  std::vector<PtdFault> faults;
  std::vector<uint32_t> segment_fault;
  std::vector<uint32_t> entry_fault;
  uint32_t version_fault = kNoFault;  // FlatTensor.version could not be read (read as 0)

  size_t named_count() const { return keys.size(); }
  const PtdFault* fault_of_segment(size_t i) const {
    return i < segment_fault.size() && segment_fault[i] != kNoFault ? &faults[segment_fault[i]] : nullptr;
  }
  const PtdFault* fault_of_entry(size_t i) const {
    return i < entry_fault.size() && entry_fault[i] != kNoFault ? &faults[entry_fault[i]] : nullptr;
  }
  std::optional<std::string_view> key(size_t i) const {
    if (keys[i].data() == nullptr) return std::nullopt;
    return keys[i];
  }
  const PtdLayout* layout_of(size_t i) const { return layout[i] == kNoLayout ? nullptr : &layouts[layout[i]]; }
};

// Checks the head (check_ptd_head): identifier, header, flatbuffer range,
// then reads and verifies the flatbuffer (every offset bounds-checked as
// read/fb_decoder.cpp checks it, with the same messages, then flatc's
// verifier). The version field is not checked. The keys are views of the
// head, which must outlive the table.
// Errors: kMalformedFile (naming the offset), kUnsupportedVersion (another
// FTxx identifier).
Result<PtdTable> read_ptd_table(const Blob& file);
// The same from the file's first bytes (`head`, in memory, ending at or
// after the flatbuffer) and its size; kInvalidArgument when the head is
// too short.
Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size);
// The same, with flatc's verifier's verdict stored in `verification`
// instead of failing the read: every column was still read with the bounds
// checks above (validate: the runtime never verifies a .ptd).
Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size, Status* verification);

// As the runtime reads a .ptd (extension/flat_tensor/flat_tensor_data_map.cpp
// never verifies it): the header, the FlatTensor table and its two vectors,
// and every entry's table and key (MergedDataMap::load reads every key)
// must read, else the error as above; a segment, or an entry's
// segment_index or tensor_layout (read only for the keys a program looks
// up), that cannot be read is recorded in the table's fault columns
// instead. A key whose NUL terminator is missing is an entry fault (the
// runtime reads it as a longer C string). flatc's verifier's verdict is
// stored in `verification`, never fails the read.
Result<PtdTable> read_ptd_entries(const Blob& head, uint64_t file_size, Status* verification);

// Where field `field` ("segment_index", "tensor_layout", "key") of
// named_data[entry] lies in a .ptd whose table read_ptd_table read from
// `head` (for findings; the table is not kept per entry): nullopt when the
// field is absent.
std::optional<uint64_t> ptd_entry_field_offset(const Blob& head, size_t entry, const char* field);

}  // namespace etpack
