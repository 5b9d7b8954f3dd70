// A .ptd (FlatTensor) file: identifier, FH01 header, flatbuffer, segments,
// named data and tensor layouts.
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "format/file_kinds.h"
#include "read/file_layout.h"
#include "read/ptd_table.h"
#include "read/requirements.h"
#include "read/validate_header_sizes.h"
#include "validate/validate_internal.h"

namespace etpack {
namespace {

// Identifier and header. Returns false when the flatbuffer cannot be
// located; `segments_ok` says whether the segment base and size hold.
bool check_ptd_header(FindingSink& sink, const FileSource& file, bool& segments_ok) {
  const uint64_t size = file.size();
  const uint8_t* data = file.head.data();  // holds min(size, kMinimumHeadBytes) bytes: all this reads
  if (size < 8) {
    sink.error(finding::kFileTooSmall, "file is " + std::to_string(size) + " bytes; a .ptd needs at least 8", 0);
    return false;
  }
  if (const IdentifierMatch id = match_identifier(FileKind::kPtd, data, kIdentifierEnd); id != IdentifierMatch::kMatch) {
    bool ft = id == IdentifierMatch::kOtherVersion;
    sink.error(ft ? finding::kUnsupportedVersion : finding::kBadIdentifier,
               ft ? "data file identifier is not the supported '" + identifier_of(FileKind::kPtd) + "'" : "identifier is not '" + identifier_of(FileKind::kPtd) + "': not a .ptd file", 4);
    return false;
  }
  if (size < kHeaderOffset + 4 || std::memcmp(data + kHeaderOffset, PtdHeader::kMagic, 4) != 0) {
    sink.error(finding::kHeaderMissing, "no " + PtdHeader::name() + " header at byte offset 8; every .ptd has one", 8, "header");
    return false;
  }
  if (size < kHeaderOffset + 8) {
    sink.error(finding::kHeaderTruncated, "file of " + std::to_string(size) + " bytes ends inside the " + PtdHeader::name() + " header", size, "header");
    return false;
  }
  uint32_t length = read_le<uint32_t>(data + 12);
  if (length < PtdHeader::kLength) {
    sink.error(finding::kHeaderLengthInvalid,
               PtdHeader::name() + " header length " + std::to_string(length) + " is below the minimum " + std::to_string(PtdHeader::kLength),
               12, "header.length");
    return false;
  }
  if (length != PtdHeader::kLength)
    sink.warning(finding::kHeaderLengthUnusual,
                 PtdHeader::name() + " header length " + std::to_string(length) +
                     " is not 40; the runtime (FlatTensorHeader::Parse) accepts any length from 40 up and reads only "
                     "the fields of the first 40 bytes, so this changes nothing it loads",
                 12, "header.length");
  if (size < kHeaderOffset + PtdHeader::kLength) {
    sink.error(finding::kHeaderTruncated, "file of " + std::to_string(size) + " bytes ends inside the " + PtdHeader::name() + " header", size, "header");
    return false;
  }
  PtdHeader h;
  h.flatbuffer_offset = read_le<uint64_t>(data + 16);
  h.flatbuffer_size = read_le<uint64_t>(data + 24);
  h.segment_base_offset = read_le<uint64_t>(data + 32);
  h.segment_data_size = read_le<uint64_t>(data + 40);
  auto fb_end = checked_add(h.flatbuffer_offset, h.flatbuffer_size);
  // The fields the runtime reads; a longer length claims nothing more.
  uint64_t header_end = kHeaderOffset + std::min<uint64_t>(length, PtdHeader::kLength);
  if (h.flatbuffer_offset < header_end || !fb_end || *fb_end > size) {
    sink.error(finding::kFlatbufferRangeInvalid,
               PtdHeader::name() + " flatbuffer (offset " + std::to_string(h.flatbuffer_offset) + ", size " +
                   std::to_string(h.flatbuffer_size) + ") is not inside [" + std::to_string(header_end) + ", " +
                   std::to_string(size) + "] (header end, file size)",
               16, "header.flatbuffer_offset");
    return false;
  }
  segments_ok = true;
  if (flatbuffer_end_before_base(file.head, *fb_end, h.segment_base_offset, h.flatbuffer_offset, true)) {
    // FlatTensorDataMap::load loads flatbuffer_offset + flatbuffer_size
    // bytes and reads the flatbuffer from byte 0: a size past the segment
    // base whose flatbuffer fits before the base changes nothing it reads.
    sink.warning(finding::kHeaderSizeLarger,
                 PtdHeader::name() + " flatbuffer_size " + std::to_string(h.flatbuffer_size) + " runs past segment_base_offset " +
                     std::to_string(h.segment_base_offset) +
                     ", but the flatbuffer lies wholly before the base: the runtime loads the extra bytes and reads "
                     "past them, so nothing it loads changes",
                 24, "header.flatbuffer_size");
  } else if (h.segment_base_offset < *fb_end || h.segment_base_offset > size) {
    sink.error(finding::kSegmentBaseOutOfRange,
               PtdHeader::name() + " segment_base_offset " + std::to_string(h.segment_base_offset) + " is outside [" +
                   std::to_string(*fb_end) + ", " + std::to_string(size) + "] (flatbuffer end, file size)",
               32, "header.segment_base_offset");
    segments_ok = false;
    return true;
  }
  auto data_end = checked_add(h.segment_base_offset, h.segment_data_size);
  if (!data_end || *data_end > size)
    sink.error(finding::kSegmentDataPastEnd,
               PtdHeader::name() + " segment_data_size " + std::to_string(h.segment_data_size) + " at base " +
                   std::to_string(h.segment_base_offset) + " runs past the file of " + std::to_string(size) +
                   " bytes (truncated file?)",
               40, "header.segment_data_size");
  return true;
}

// Keys more than one entry holds: for each, in order of its first repeat,
// the entry that holds it first and the entries that repeat it. One
// finding per key, however many repeat it (a million entries of one key
// are one problem, not a million).
struct RepeatedKey {
  size_t first = 0;             // the entry holding the key first
  std::vector<size_t> repeats;  // the first few entries repeating it
  size_t count = 0;             // every entry repeating it
};
constexpr size_t kRepeatsNamed = 3;

struct KeyRepeats {
  std::vector<bool> repeat;                         // per entry: its key was held by an earlier entry
  std::unordered_map<size_t, RepeatedKey> by_first_repeat;  // a key's first repeat -> the key's repeats
};

KeyRepeats repeated_keys(const PtdTable& ptd) {
  KeyRepeats out;
  out.repeat.assign(ptd.named_count(), false);
  std::unordered_map<std::string_view, size_t> first;  // key -> its first entry (views into the file)
  std::unordered_map<size_t, size_t> first_repeat_of;  // first entry -> its key's first repeat
  for (size_t i = 0; i < ptd.named_count(); ++i) {
    auto key = ptd.key(i);
    if (!key) continue;
    auto [it, added] = first.emplace(*key, i);
    if (added) continue;
    out.repeat[i] = true;
    auto [r, fresh] = first_repeat_of.emplace(it->second, i);
    RepeatedKey& repeated = out.by_first_repeat[r->second];
    if (fresh) repeated.first = it->second;
    if (repeated.repeats.size() < kRepeatsNamed) repeated.repeats.push_back(i);
    ++repeated.count;
  }
  return out;
}

std::string repeat_message(const std::string& path, std::string_view key, const RepeatedKey& r) {
  std::string out = path + " repeats the key '" + std::string(key) + "' of named_data[" + std::to_string(r.first) + "]";
  if (r.count == 1) return out;
  out += "; " + std::to_string(r.count) + " entries repeat it: ";
  for (size_t k = 0; k < r.repeats.size(); ++k) out += (k ? ", named_data[" : "named_data[") + std::to_string(r.repeats[k]) + "]";
  if (r.count > r.repeats.size()) out += " and " + std::to_string(r.count - r.repeats.size()) + " more";
  return out;
}

// What validate says of one distinct tensor layout table, worked out once
// however many entries share it.
struct LayoutCheck {
  std::vector<ShapeProblem> problems;
  std::optional<uint64_t> nbytes;  // when it has no problems
};

void check_named_data(FindingSink& sink, const PtdTable& ptd, const std::vector<SegmentCheck>& segments, PtdIndex* index) {
  std::vector<bool> referenced(segments.size(), false);
  const KeyRepeats repeated = repeated_keys(ptd);
  std::vector<LayoutCheck> layouts;
  layouts.reserve(ptd.layouts.size());
  for (const PtdLayout& l : ptd.layouts) {
    LayoutCheck c{shape_problems(l.view), std::nullopt};
    if (c.problems.empty()) c.nbytes = view_nbytes(l.view);
    layouts.push_back(std::move(c));
  }
  for (size_t i = 0; i < ptd.named_count(); ++i) {
    const std::string path = "named_data[" + std::to_string(i) + "]";
    const std::optional<std::string_view> key = ptd.key(i);
    bool unique = false;
    if (!key) {
      sink.error(finding::kNamedDataKeyMissing, path + " has no key", std::nullopt, path + ".key");
    } else if (!(unique = !repeated.repeat[i])) {
      auto r = repeated.by_first_repeat.find(i);
      if (r != repeated.by_first_repeat.end())
        sink.error(finding::kDuplicateKey, repeat_message(path, *key, r->second), std::nullopt, path + ".key");
    }
    uint64_t segment = ptd.segment_index[i];
    const SegmentCheck* seg = nullptr;
    if (segment < segments.size()) {
      referenced[segment] = true;
      seg = &segments[segment];
    } else {
      sink.error(finding::kSegmentIndexOutOfRange,
                 path + " is segment " + std::to_string(segment) + ", but the file has " + std::to_string(segments.size()) +
                     " segments",
                 std::nullopt, path + ".segment_index");
    }
    PtdEntry out;
    if (seg && seg->in_bounds) out.data_size = seg->size;
    if (const PtdLayout* layout = ptd.layout_of(i)) {
      const TensorView& view = layout->view;
      const LayoutCheck& check = layouts[ptd.layout[i]];
      for (const ShapeProblem& p : check.problems)
        sink.error(finding::kLayoutInvalid, path + ".tensor_layout " + p.message, view.sizes_offset, path + ".tensor_layout");
      const std::optional<uint64_t>& nbytes = check.nbytes;
      if (nbytes && out.data_size && *nbytes > *out.data_size)
        sink.error(finding::kLayoutLargerThanData,
                   path + ".tensor_layout " + shape_text(view.sizes) + " needs " + std::to_string(*nbytes) +
                       " bytes, but its segment has " + std::to_string(*out.data_size) +
                       "; the runtime loads it and get_data returns the short blob",
                   seg->start, path);
      else if (nbytes && out.data_size && *nbytes < *out.data_size)
        sink.warning(finding::kLayoutSmallerThanData,
                     path + ".tensor_layout " + shape_text(view.sizes) + " needs " + std::to_string(*nbytes) +
                         " bytes; its segment has " + std::to_string(*out.data_size),
                     seg->start, path);
      if (index && unique) out.layout = view;  // copied only for the cross-file index
    }
    if (index && unique) {
      out.file = sink.file();
      out.path = path;
      (*index)[std::string(*key)].push_back(std::move(out));
    }
  }
  for (size_t i = 0; i < referenced.size(); ++i)
    if (!referenced[i])
      sink.warning(finding::kSegmentUnreferenced,
                   "segments[" + std::to_string(i) + "] (" + std::to_string(segments[i].size) +
                       " bytes) is not used by any named data",
                   segments[i].start, "segments[" + std::to_string(i) + "]");
}

}  // namespace

void validate_ptd_into(ValidationReport& report, const std::string& name, const FileSource& file, PtdIndex* index) {
  FindingSink sink(report, name);
  bool segments_ok = false;
  const size_t errors_before = report.errors.size();
  // FlatTensorDataMap::load checks the header and nothing of the flatbuffer
  // (no verifier): what stops the reading here is InvalidExternalData there.
  auto refused = [&] {
    for (size_t i = errors_before; i < report.errors.size(); ++i)
      report.errors[i].message += "; the runtime refuses this .ptd: InvalidExternalData";
  };
  bool header_ok = check_ptd_header(sink, file, segments_ok);
  if (!header_ok) return refused();
  if (auto old = ptd_old_layout_fields(file.head)) {
    sink.error(finding::kPtdOldLayout,
               "the FlatTensor table uses the layout of ExecuTorch 0.6 (fields " + *old +
                   " at their 0.6 positions); runtimes since 0.7 read its fields 1 and 2 as segments and named_data "
                   "and misread or refuse the file. Re-export the .ptd",
               0, "FlatTensor");
    return;
  }
  auto table = read_ptd_table(file.head, file.size());
  if (!table.ok()) {
    report_read_error(sink, table.error());
    return refused();
  }
  const PtdTable& ptd = table.value();
  const PtdHeader& h = ptd.header;
  if (uint64_t version = ptd.version; version != 0)
    sink.error(finding::kUnsupportedVersion, "FlatTensor version " + std::to_string(version) + " is not the supported 0",
               std::nullopt, "version");
  for (const auto& [field, present] : {std::pair{"segments", ptd.has_segments}, std::pair{"named_data", ptd.has_named_data}})
    if (!present)
      sink.error(finding::kMissingField, std::string("FlatTensor.") + field + " is absent; the runtime requires it",
                 std::nullopt, field);
  std::vector<SegmentCheck> checked;
  if (segments_ok) {
    const uint64_t base = h.segment_base_offset;
    auto declared_end = checked_add(base, h.segment_data_size);
    if (base > ptd.flatbuffer_end && !infer_segment_alignment(ptd.flatbuffer_end, base) && declared_end &&
        *declared_end < file.size())
      // As for a .pte (validate_pte_file.cpp): writers put the segments at
      // the flatbuffer's end rounded up to the segment alignment and end
      // the file with them. A base no power-of-two alignment explains, with
      // bytes left past the declared data, was moved back: the runtime's
      // FlatTensorDataMap would silently hand out other bytes.
      sink.error(finding::kSegmentBaseMoved,
                 PtdHeader::name() + " segment_base_offset " + std::to_string(base) + " is not the flatbuffer's end " +
                     std::to_string(ptd.flatbuffer_end) +
                     " rounded up to any power-of-two alignment, and the file runs past the declared segment data: the "
                     "base was moved, and the runtime would silently read every tensor from other bytes",
                 32, "header.segment_base_offset");
    uint64_t data_size = std::min(h.segment_data_size, file.size() - h.segment_base_offset);
    checked = check_segments(sink, ptd.segments, h.segment_base_offset, data_size,
                             infer_segment_alignment(ptd.flatbuffer_end, h.segment_base_offset));
  } else {
    checked.resize(ptd.segments.size());
  }
  check_named_data(sink, ptd, checked, index);
  if (segments_ok) check_layout_bytes(sink, file, ptd_layout(file.head, file.size(), ptd, ptd_segment_uses(ptd)));
}

}  // namespace etpack
