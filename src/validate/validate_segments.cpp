// Segment tables and the bytes between regions, for both .pte and .ptd.
#include <algorithm>
#include <string>

#include "core/checked_math.h"
#include "validate/validate_internal.h"

namespace etpack {
namespace {

// Alignment every segment should have whatever the file asked for: the
// smallest default alignment upstream uses for tensor and delegate data.
constexpr uint64_t kMinimumSegmentAlignment = 16;

// Upstream pads only up to the next aligned offset, so a gap this large
// means an alignment nobody uses or bytes something else left behind.
constexpr uint64_t kLargePadding = 64 * 1024;

// Said of a fault in a segment nothing the runtime loads reads.
constexpr const char* kUnread =
    "; nothing the program loads reads this segment (no tensor, delegate or backend lookup), so the runtime never "
    "loads it";

std::string range_text(uint64_t start, uint64_t end) {
  return "[" + std::to_string(start) + ", " + std::to_string(end) + ")";
}

}  // namespace

std::vector<SegmentCheck> check_segments(FindingSink& sink, const Value& segments, uint64_t base, uint64_t data_size,
                                         std::optional<uint64_t> alignment) {
  return check_segments(sink, segment_ranges(segments), base, data_size, alignment);
}

std::vector<SegmentCheck> check_segments(FindingSink& sink, const std::vector<SegmentRange>& segments, uint64_t base,
                                         uint64_t data_size, std::optional<uint64_t> alignment,
                                         const std::vector<bool>* read, const std::vector<bool>* sliced) {
  std::vector<SegmentCheck> out;
  auto by_slices = [&](size_t i) { return sliced != nullptr && i < sliced->size() && (*sliced)[i]; };
  // A fault of a segment the runtime never loads is a warning.
  auto loaded = [&](size_t i) { return read == nullptr || (i < read->size() && (*read)[i]) || by_slices(i); };
  auto report = [&](bool fatal, const char* code, const std::string& message, std::optional<uint64_t> at,
                    const std::string& path) {
    if (fatal)
      sink.error(code, message, at, path);
    else
      sink.warning(code, message + kUnread, at, path);
  };
  // Order and overlap are judged against the segments that lie in the data
  // (an offset or size past it is that segment's own fault, said once).
  std::optional<size_t> prev, end_owner;  // the last in-bounds segment; the one reaching furthest
  uint64_t prev_end = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    SegmentCheck c;
    c.offset = segments[i].offset;
    c.size = segments[i].size;
    c.start = checked_add(base, c.offset);
    c.in_bounds = range_within(c.offset, c.size, data_size);
    c.room = c.offset <= data_size ? data_size - c.offset : 0;
    const std::string path = "segments[" + std::to_string(i) + "]";
    const std::string what = path + " (offset " + std::to_string(c.offset) + ", size " + std::to_string(c.size) + ")";
    if (!c.in_bounds) {
      const std::string message = what + " runs past the " + std::to_string(data_size) +
                                  " bytes of segment data at base offset " + std::to_string(base);
      if (by_slices(i) && !(read != nullptr && i < read->size() && (*read)[i]))
        sink.warning(finding::kSegmentOutOfBounds,
                     message + "; the runtime reads this mutable data segment only by the slices its tensors name "
                               "(Program::load_mutable_subsegment_into), each checked against the recorded size and "
                               "read from the file: those slices are checked against the " +
                         std::to_string(c.room) + " bytes that are there",
                     c.start, path);
      else
        report(loaded(i), finding::kSegmentOutOfBounds, message, c.start, path);
    } else {
      if (prev && c.offset < segments[*prev].offset) {
        report(loaded(i) || loaded(*prev), finding::kSegmentsUnsorted,
               what + " starts before " + indexed_path("segments", *prev) + " (offset " +
                   std::to_string(segments[*prev].offset) + ")",
               c.start, path);
      } else if (end_owner && c.size > 0 && c.offset < prev_end) {
        report(loaded(i) || loaded(*end_owner), finding::kSegmentsOverlap,
               what + " starts inside " + indexed_path("segments", *end_owner) + ", which ends at offset " +
                   std::to_string(prev_end),
               c.start, path);
      }
      prev = i;
      if (!end_owner || c.offset + c.size > prev_end) {  // in bounds: no overflow
        prev_end = c.offset + c.size;
        end_owner = i;
      }
    }
    if (c.start) {
      uint64_t want = std::max(alignment.value_or(1), kMinimumSegmentAlignment);
      if (*c.start % want != 0)
        sink.warning(finding::kSegmentMisaligned,
                     what + " starts at file offset " + std::to_string(*c.start) + ", not a multiple of " +
                         std::to_string(want) +
                         (alignment && *alignment >= kMinimumSegmentAlignment ? " (the segment alignment the header implies)"
                                                                             : " (the minimum tensor alignment)"),
                     c.start, path);
    }
    out.push_back(c);
  }
  return out;
}

std::optional<std::pair<uint64_t, uint8_t>> first_non_zero(const FileSource& file, uint64_t start, uint64_t end) {
  const Blob& in_memory = file.file.is_external() ? file.head : file.file;
  uint64_t at = start;
  for (; at < end && at < in_memory.size(); ++at)
    if (in_memory.data()[at] != 0) return std::make_pair(at, in_memory.data()[at]);
  constexpr uint64_t kChunk = 64 * 1024;
  std::vector<uint8_t> buffer;
  while (at < end) {
    const uint64_t n = std::min(kChunk, end - at);
    buffer.resize(static_cast<size_t>(n));
    if (!file.file.slice(at, n).peek_into(buffer.data())) return std::nullopt;
    for (uint64_t i = 0; i < n; ++i)
      if (buffer[i] != 0) return std::make_pair(at + i, buffer[i]);
    at += n;
  }
  return std::nullopt;
}

namespace {

// A region holding a segment's bytes (not inline data inside the flatbuffer).
bool is_segment_region(const Region& r) {
  return r.segment.has_value() && r.kind != RegionKind::kPadding && r.kind != RegionKind::kUnused;
}

}  // namespace

void check_layout_bytes(FindingSink& sink, const FileSource& file, const std::vector<Region>& layout,
                        const std::vector<bool>* read, std::optional<uint64_t> orphan_alignment) {
  auto loaded = [&](const Region& seg) {
    return read == nullptr || (*seg.segment < read->size() && (*read)[*seg.segment]);
  };
  // Bytes from the first aligned offset past a segment's end on, when some
  // segment's recorded range left the data: its bytes, where it was written.
  auto orphaned = [&](uint64_t at, uint64_t segment_end) {
    if (!orphan_alignment) return false;
    const uint64_t a = std::max(*orphan_alignment, kMinimumSegmentAlignment);
    auto up = checked_add(segment_end, a - 1);
    return up && at >= *up / a * a;
  };
  for (size_t i = 0; i < layout.size(); ++i) {
    const Region& r = layout[i];
    if (r.kind == RegionKind::kUnused) {
      sink.warning(finding::kTrailingBytes,
                   std::to_string(r.end - r.start) + " bytes " + range_text(r.start, r.end) +
                       " lie past the data the header declares",
                   r.start);
      continue;
    }
    if (r.kind != RegionKind::kPadding) continue;
    if (r.end - r.start >= kLargePadding)
      sink.warning(finding::kPaddingLarge,
                   std::to_string(r.end - r.start) + " bytes of padding " + range_text(r.start, r.end) +
                       ": more than any alignment needs (upstream pads only to the next aligned offset)",
                   r.start);
    auto found = first_non_zero(file, r.start, r.end);
    if (found && i > 0 && is_segment_region(layout[i - 1]) && orphaned(found->first, layout[i - 1].end)) {
      sink.warning(finding::kPaddingNotZero,
                   "padding " + range_text(r.start, r.end) + " holds the non-zero byte " + std::to_string(found->second) +
                       " at offset " + std::to_string(found->first) + ", past the aligned end of segment " +
                       std::to_string(*layout[i - 1].segment) +
                       ": the data of a segment whose recorded range lies outside the segment data (reported on its own), "
                       "left where it was written",
                   found->first);
    } else if (found && i > 0 && is_segment_region(layout[i - 1])) {
      // Writers pad a segment with zeros up to the next one; bytes there are
      // what remains of a longer segment whose recorded size was cut.
      const Region& seg = layout[i - 1];
      const std::string message =
          "padding " + range_text(r.start, r.end) + " right after segment " + std::to_string(*seg.segment) + " (" +
          range_text(seg.start, seg.end) + ") holds the non-zero byte " + std::to_string(found->second) +
          " at offset " + std::to_string(found->first) +
          ": the segment's recorded size looks cut short; the runtime would silently hand out only its first " +
          std::to_string(seg.end - seg.start) + " bytes";
      if (loaded(seg))
        sink.error(finding::kPaddingAfterSegmentNotZero, message, found->first, "segments[" + std::to_string(*seg.segment) + "]");
      else
        sink.warning(finding::kPaddingAfterSegmentNotZero, message + kUnread, found->first,
                     "segments[" + std::to_string(*seg.segment) + "]");
    } else if (found && i + 1 < layout.size() && is_segment_region(layout[i + 1]) && found->first < r.end &&
               first_non_zero(file, r.end - 1, r.end)) {
      // Data running right up to a segment's recorded start: that start was
      // moved forward past the segment's first bytes.
      const Region& seg = layout[i + 1];
      const std::string message = "the padding byte right before segment " + std::to_string(*seg.segment) +
                                  " (at offset " + std::to_string(r.end - 1) +
                                  ") is not zero: the segment's recorded offset looks moved past the start of its "
                                  "data; the runtime would silently read other bytes";
      if (loaded(seg))
        sink.error(finding::kPaddingBeforeSegmentNotZero, message, r.end - 1, "segments[" + std::to_string(*seg.segment) + "]");
      else
        sink.warning(finding::kPaddingBeforeSegmentNotZero, message + kUnread, r.end - 1,
                     "segments[" + std::to_string(*seg.segment) + "]");
    } else if (found) {
      sink.warning(finding::kPaddingNotZero,
                   "padding " + range_text(r.start, r.end) + " holds the non-zero byte " +
                       std::to_string(found->second) + " at offset " + std::to_string(found->first),
                   found->first);
    }
  }
}

}  // namespace etpack
