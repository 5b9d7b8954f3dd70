// A .ptd (FlatTensor) file: identifier, FH01 header, flatbuffer, segments,
// named data and tensor layouts.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/checked_math.h"
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
  // The header is parsed in format/ (scan_ptd_header); here each state is a finding.
  const ScannedHeader<PtdHeader> scanned = scan_ptd_header(data, size);
  const PtdHeader& h = scanned.header;
  const auto truncated = [&] {
    sink.error(finding::kHeaderTruncated, "file of " + std::to_string(size) + " bytes ends inside the " + PtdHeader::name() + " header", size, "header");
    return false;
  };
  switch (scanned.scan) {
    case HeaderScan::kAbsent:
      sink.error(finding::kHeaderMissing, "no " + PtdHeader::name() + " header at byte offset 8; every .ptd has one", 8, "header");
      return false;
    case HeaderScan::kNoLength: return truncated();
    case HeaderScan::kLengthTooSmall:
      sink.error(finding::kHeaderLengthInvalid,
                 PtdHeader::name() + " header length " + std::to_string(h.length) + " is below the minimum " + std::to_string(PtdHeader::kLength),
                 12, "header.length");
      return false;
    case HeaderScan::kTruncated:
    case HeaderScan::kComplete: break;
  }
  if (h.length != PtdHeader::kLength)
    sink.warning(finding::kHeaderLengthUnusual,
                 PtdHeader::name() + " header length " + std::to_string(h.length) +
                     " is not 40; the runtime (FlatTensorHeader::Parse) accepts any length from 40 up and reads only "
                     "the fields of the first 40 bytes, so this changes nothing it loads",
                 12, "header.length");
  if (scanned.scan == HeaderScan::kTruncated) return truncated();
  auto fb_end = checked_add(h.flatbuffer_offset, h.flatbuffer_size);
  // The fields the runtime reads; a longer length claims nothing more.
  const uint64_t header_end = scanned.fields_end();
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
    // MergedDataMap::load keys its map by each key's C string (up to a NUL).
    auto [it, added] = first.emplace(key->substr(0, key->find('\0')), i);
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

// Whether the runtime reads entry i: FlatTensorDataMap::get_named_data
// compares the whole key (size and bytes) with the key a tensor asks for,
// then checks that entry's segment index and bounds; get_tensor_layout
// reads its layout. MergedDataMap::load reads every key (a crash on one
// missing), nothing else. Without a program to tell, every entry counts.
bool entry_read(const PtdTable& ptd, size_t i, const std::unordered_set<std::string>* read_keys) {
  if (read_keys == nullptr) return true;
  const std::optional<std::string_view> key = ptd.key(i);
  // MergedDataMap maps each entry's C string to its file.
  return key && read_keys->count(std::string(key->substr(0, key->find('\0')))) > 0;
}

// Segments the runtime loads: those of the entries it reads.
std::vector<bool> segments_read(const PtdTable& ptd, const std::unordered_set<std::string>* read_keys) {
  std::vector<bool> read(ptd.segments.size(), read_keys == nullptr);
  if (read_keys == nullptr) return read;
  for (size_t i = 0; i < ptd.named_count(); ++i)
    if (ptd.segment_index[i] < read.size() && entry_read(ptd, i, read_keys)) read[ptd.segment_index[i]] = true;
  return read;
}

void check_named_data(FindingSink& sink, const PtdTable& ptd, const std::vector<SegmentCheck>& segments, PtdIndex* index,
                      const Blob& head, const std::unordered_set<std::string>* read_keys) {
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
    // A fault of an entry no tensor looks up: the runtime never reads it.
    const bool read = entry_read(ptd, i, read_keys);
    auto fault = [&](const char* code, const std::string& message, std::optional<uint64_t> at, const std::string& where) {
      if (read)
        sink.error(code, message, at, where);
      else
        sink.warning(code, message + "; no tensor of the program uses it (key '" + printable_name(key.value_or("")) +
                               "'), so the runtime never reads it (a backend asking for the key would get "
                               "InvalidExternalData or the bytes as they are)",
                     at, where);
    };
    if (const PtdFault* f = ptd.fault_of_entry(i))
      fault(finding::kFlatbufferInvalid, path + " cannot be read: " + f->message, f->offset, path);
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
    } else if (segment < ptd.segment_count) {
      fault(finding::kFlatbufferInvalid,
            path + " is segment " + std::to_string(segment) + ", whose slot lies past the flatbuffer's end (the segments "
                   "vector claims " + std::to_string(ptd.segment_count) + " and holds " + std::to_string(segments.size()) + ")",
            ptd_entry_field_offset(head, i, "segment_index"), path + ".segment_index");
    } else {
      fault(finding::kSegmentIndexOutOfRange,
            path + " is segment " + std::to_string(segment) + ", but the file has " + std::to_string(segments.size()) +
                " segments",
            ptd_entry_field_offset(head, i, "segment_index"), path + ".segment_index");
    }
    PtdEntry out;
    if (seg && seg->in_bounds) out.data_size = seg->size;
    if (const PtdLayout* layout = ptd.layout_of(i)) {
      const TensorView& view = layout->view;
      const LayoutCheck& check = layouts[ptd.layout[i]];
      if (view.dim_order_length && layout->dim_order_count != *view.dim_order_length)
        sink.warning(finding::kLayoutInvalid,
                     path + ".tensor_layout.dim_order holds " + std::to_string(layout->dim_order_count) + " entries for rank " +
                         std::to_string(*view.dim_order_length) + "; the runtime reads only the first " + std::to_string(*view.dim_order_length) +
                         " bytes (create_tensor_layout), so this changes nothing it loads (deserialize and repack write those bytes as "
                         "the vector)",
                     view.sizes_offset, path + ".tensor_layout");
      for (const ShapeProblem& p : check.problems)
        fault(finding::kLayoutInvalid, path + ".tensor_layout " + p.message, view.sizes_offset, path + ".tensor_layout");
      const std::optional<uint64_t>& nbytes = check.nbytes;
      if (nbytes && out.data_size && *nbytes > *out.data_size)
        fault(finding::kLayoutLargerThanData,
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

// The segments as check_segments judges them: one that cannot be read
// (read_ptd_entries) sits, empty, at the previous one's offset, so that it
// adds no finding of order or bounds (its own is FLATBUFFER_INVALID).
std::vector<SegmentRange> judged_segments(const PtdTable& ptd) {
  std::vector<SegmentRange> out = ptd.segments;
  for (size_t i = 0; i < out.size(); ++i)
    if (ptd.fault_of_segment(i)) out[i] = SegmentRange{i ? out[i - 1].offset : 0, 0};
  return out;
}

}  // namespace

void validate_ptd_into(ValidationReport& report, const std::string& name, const FileSource& file, PtdIndex* index,
                       const ValidateOptions& options, const std::unordered_set<std::string>* read_keys) {
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
  // With a program to tell what is looked up, the file is read as the
  // runtime reads it (read_ptd_entries): what only an unused key would make
  // it read may be unreadable, and flatc's verifier is not the judge.
  Status verification;
  auto table = read_keys ? read_ptd_entries(file.head, file.size(), &verification) : read_ptd_table(file.head, file.size());
  if (!table.ok()) {
    report_read_error(sink, table.error());
    if (!read_keys) return refused();
    // Read as the runtime reads it: what failed is a part it reads for
    // every load (the FlatTensor table, its vectors, every entry's key).
    for (size_t i = errors_before; i < report.errors.size(); ++i)
      report.errors[i].message +=
          "; the runtime reads this part of every .ptd it loads, without a verifier: it reads outside the bytes it "
          "loaded (undefined behaviour: a crash, or a load from other bytes)";
    return;
  }
  const PtdTable& ptd = table.value();
  if (!verification.ok())
    sink.warning(finding::kFlatbufferInvalid,
                 "flatc's verifier refuses the FlatTensor flatbuffer: " + verification.error().message +
                     "; the runtime never verifies a .ptd (FlatTensorDataMap::load), and the findings below say "
                     "whether a part it reads is broken",
                 0, "FlatTensor");
  const PtdHeader& h = ptd.header;
  if (ptd.version_fault != PtdTable::kNoFault)
    sink.warning(finding::kFlatbufferInvalid,
                 "FlatTensor.version cannot be read: " + ptd.faults[ptd.version_fault].message +
                     "; runtimes before pytorch/executorch PR #22114 never read it, later ones check it at load",
                 ptd.faults[ptd.version_fault].offset, "version");
  if (ptd.version != 0)
    check_schema_version(sink, "FlatTensor", ptd.version, ptd.version_offset, options,
                         "FlatTensorDataMap::load: InvalidExternalData");
  for (const auto& [field, present] : {std::pair{"segments", ptd.has_segments}, std::pair{"named_data", ptd.has_named_data}})
    if (!present)
      sink.error(finding::kMissingField, std::string("FlatTensor.") + field + " is absent; the runtime requires it",
                 std::nullopt, field);
  std::vector<SegmentCheck> checked;
  const std::vector<bool> seg_read = segments_read(ptd, read_keys);
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
    checked = check_segments(sink, judged_segments(ptd), h.segment_base_offset, data_size,
                             infer_segment_alignment(ptd.flatbuffer_end, h.segment_base_offset), &seg_read);
  } else {
    checked.resize(ptd.segments.size());
  }
  if (ptd.segment_count > ptd.segments.size())
    sink.warning(finding::kFlatbufferInvalid,
                 "FlatTensor.segments claims " + std::to_string(ptd.segment_count) + " segments; the slots of " +
                     std::to_string(ptd.segments.size()) + " lie inside the flatbuffer. The runtime reads only the slots "
                     "of the entries it looks up",
                 std::nullopt, "segments");
  for (size_t i = 0; i < ptd.segments.size(); ++i)
    if (const PtdFault* f = ptd.fault_of_segment(i)) {
      const std::string path = "segments[" + std::to_string(i) + "]";
      if (seg_read[i])
        sink.error(finding::kFlatbufferInvalid, path + " cannot be read: " + f->message, f->offset, path);
      else
        sink.warning(finding::kFlatbufferInvalid,
                     path + " cannot be read: " + f->message +
                         "; no entry a program tensor uses points at it, so the runtime never reads it",
                     f->offset, path);
    }
  // Field offsets are looked up in the flatbuffer's bytes only, so that a
  // whole file and its head (validate from a head, the rest peeked) name
  // the same offsets.
  const uint64_t fb_end = checked_add(h.flatbuffer_offset, h.flatbuffer_size).value_or(0);
  const Blob flatbuffer = file.head.slice(0, static_cast<size_t>(std::min<uint64_t>(fb_end, file.head.size())));
  check_named_data(sink, ptd, checked, index, flatbuffer, read_keys);
  if (segments_ok) {
    // Where the bytes of a segment that cannot be read lie is unknown: what
    // looks like padding may be its data, so padding is no proof then.
    const bool unknown = std::any_of(ptd.segment_fault.begin(), ptd.segment_fault.end(),
                                     [](uint32_t f) { return f != PtdTable::kNoFault; });
    const std::vector<bool> none(ptd.segments.size(), false);
    std::optional<uint64_t> orphan_alignment;  // a segment outside the data: its bytes may remain as padding
    if (std::any_of(checked.begin(), checked.end(), [](const SegmentCheck& c) { return !c.in_bounds; }))
      orphan_alignment = infer_segment_alignment(ptd.flatbuffer_end, h.segment_base_offset).value_or(1);
    check_layout_bytes(sink, file, ptd_layout(file.head, file.size(), ptd, ptd_segment_uses(ptd)), unknown ? &none : &seg_read,
                       orphan_alignment);
  }
}

}  // namespace etpack
