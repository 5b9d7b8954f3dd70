// The .pte as a file: identifier, eh00 header, flatbuffer, segment table and
// the bytes between them. Program-level checks follow in validate_program.cpp.
#include <algorithm>
#include <string>

#include "core/checked_math.h"
#include "format/file_kinds.h"
#include "read/file_layout.h"
#include "read/shared_names.h"
#include "read/validate_header_sizes.h"
#include "validate/validate_internal.h"
#include "read/verified_decode.h"

namespace etpack {
namespace {

std::string shown_identifier(const uint8_t* id) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    if (id[i] >= 0x20 && id[i] < 0x7f) {
      out += static_cast<char>(id[i]);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += std::string("\\x") + kHex[id[i] >> 4] + kHex[id[i] & 15];
    }
  }
  return out;
}

// Identifier and header; fills `header` and returns false when the
// flatbuffer cannot be located. `segments_ok` says whether the segment base
// (and data size) can be trusted.
bool check_file_header(FindingSink& sink, const FileSource& file, std::optional<PteHeader>& header, bool& segments_ok) {
  const uint64_t size = file.size();
  const uint8_t* data = file.head.data();  // holds min(size, kMinimumHeadBytes) bytes: all this reads
  if (size < 8) {
    sink.error(finding::kFileTooSmall, "file is " + std::to_string(size) + " bytes; a .pte needs at least 8", 0);
    return false;
  }
  if (const IdentifierMatch id = match_identifier(FileKind::kPte, data, kIdentifierEnd); id != IdentifierMatch::kMatch) {
    bool et = id == IdentifierMatch::kOtherVersion;
    sink.error(et ? finding::kUnsupportedVersion : finding::kBadIdentifier,
               "program identifier '" + shown_identifier(data + 4) + "' is not " +
                   (et ? "the supported '" + identifier_of(FileKind::kPte) + "'" : "'" + identifier_of(FileKind::kPte) + "': not a .pte file"),
               4);
    return false;
  }
  segments_ok = true;
  // The header is parsed in format/ (scan_pte_header); here each state is a finding.
  const ScannedHeader<PteHeader> scanned = scan_pte_header(data, size);
  const uint32_t length = scanned.header.length;
  switch (scanned.scan) {
    case HeaderScan::kAbsent: return true;  // a .pte may have no eh00
    case HeaderScan::kNoLength:
      sink.error(finding::kHeaderTruncated, "file of " + std::to_string(size) + " bytes ends inside the " + PteHeader::name() + " header", size,
                 "header");
      return false;
    case HeaderScan::kLengthTooSmall:
      sink.error(finding::kHeaderLengthInvalid,
                 PteHeader::name() + " header length " + std::to_string(length) + " is below the minimum " +
                     std::to_string(PteHeader::kMinimumLength),
                 12, "header.length");
      return false;
    case HeaderScan::kTruncated:
    case HeaderScan::kComplete: break;
  }
  if (length != PteHeader::kMinimumLength && length != PteHeader::kLength)
    sink.warning(finding::kHeaderLengthUnusual,
                 PteHeader::name() + " header length " + std::to_string(length) +
                     " is neither 24 nor 32; the runtime (ExtendedHeader::Parse) accepts any length from 24 up and "
                     "reads only the fields of the first 32 bytes, so this changes nothing it loads",
                 12, "header.length");
  // The fields the runtime reads; a longer length claims nothing more.
  const uint64_t header_end = scanned.fields_end();
  if (scanned.scan == HeaderScan::kTruncated) {
    sink.error(finding::kHeaderTruncated,
               "file of " + std::to_string(size) + " bytes ends inside the " + PteHeader::name() + " header (" + std::to_string(header_end) +
                   " bytes needed)",
               size, "header");
    return false;
  }
  header = scanned.header;
  const PteHeader& h = *header;
  if (h.program_size < header_end || h.program_size > size) {
    sink.error(finding::kProgramSizeOutOfRange,
               PteHeader::name() + " program_size " + std::to_string(h.program_size) + " is outside [" + std::to_string(header_end) +
                   ", " + std::to_string(size) + "] (header end, file size)",
               16, "header.program_size");
    return false;
  }
  if (h.segment_base_offset == 0) return true;  // no segments
  if (flatbuffer_end_before_base(file.head, h.program_size, h.segment_base_offset, header_end, false)) {
    // Program::load loads program_size bytes and reads the flatbuffer from
    // byte 0: a program_size past the segment base whose flatbuffer fits
    // before the base changes nothing it reads.
    sink.warning(finding::kHeaderSizeLarger,
                 PteHeader::name() + " program_size " + std::to_string(h.program_size) + " runs past segment_base_offset " +
                     std::to_string(h.segment_base_offset) +
                     ", but the program's flatbuffer lies wholly before the base: the runtime loads the extra bytes "
                     "and reads past them, so nothing it loads changes",
                 16, "header.program_size");
    header->program_size = h.segment_base_offset;  // judge the rest by the bytes the flatbuffer uses
  }
  if (h.segment_base_offset < h.program_size || h.segment_base_offset > size) {
    sink.error(finding::kSegmentBaseOutOfRange,
               PteHeader::name() + " segment_base_offset " + std::to_string(h.segment_base_offset) + " is outside [" +
                   std::to_string(h.program_size) + ", " + std::to_string(size) +
                   "] (program_size, file size); the runtime would read every segment from the wrong place",
               24, "header.segment_base_offset");
    segments_ok = false;
    return true;
  }
  if (h.length >= PteHeader::kLength) {
    auto end = checked_add(h.segment_base_offset, h.segment_data_size);
    if (!end || *end > size) {
      sink.error(finding::kSegmentDataPastEnd,
                 PteHeader::name() + " segment_data_size " + std::to_string(h.segment_data_size) + " at base " +
                     std::to_string(h.segment_base_offset) + " runs past the file of " + std::to_string(size) +
                     " bytes (truncated file?)",
                 32, "header.segment_data_size");
    }
  }
  return true;
}

}  // namespace

PteReads pte_reads(const FileSource& file, const PteFile& pte, size_t segment_count) {
  PteReads out;
  out.whole.assign(segment_count, false);
  out.sliced.assign(segment_count, false);
  auto mark = [&](std::vector<bool>& flags, uint64_t index) {
    if (index < flags.size()) flags[static_cast<size_t>(index)] = true;  // past them: SEGMENT_INDEX_OUT_OF_RANGE
  };
  const Value& cs = pte.program.get("constant_segment");
  if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1)
    mark(out.whole, cs.table().get_uint("segment_index"));
  const Value& mds = pte.program.get("mutable_data_segments");
  for (size_t i = 0; mds.is_items() && i < mds.items().size(); ++i)
    mark(out.sliced, mds.items()[i].table().get_uint("segment_index"));
  for_each_segment_delegate(pte.program,
                            [&](size_t, size_t, const TableValue&, uint64_t index) { mark(out.whole, index); });
  const Value& named = pte.program.get("named_data");
  if (named.is_items() && !named.items().empty()) {
    out.keys = delegate_keys(file, pte);  // the blobs are decoded only when there is named data to look up
    for (const Value& entry : named.items()) {
      const Value& key = entry.table().get("key");
      if (key.is_string() && out.keys.count(key.str()) != 0) mark(out.whole, entry.table().get_uint("segment_index"));
    }
  }
  return out;
}

namespace {

// The checks of a decoded program: segments, the program, padding bytes,
// runtime rules and the layout. With `spans_out`, stops after the program
// checks and returns the zero-padding ranges there (validate_pte_into).
void check_decoded_pte(FindingSink& sink, const FileSource& file, const std::optional<PteHeader>& header, bool segments_ok,
                       uint64_t program_size, const PteFile& pte, const ValidateOptions& options,
                       std::vector<ZeroSpan>* spans_out) {
  const Value& segments = pte.program.get("segments");
  std::vector<SegmentCheck> checked;
  bool have_segments = segments.is_items() && !segments.items().empty();
  // What the runtime reads (only findings need it: inspect's spans do not).
  const std::optional<PteReads> reads =
      spans_out ? std::nullopt : std::optional<PteReads>(pte_reads(file, pte, have_segments ? segments.items().size() : 0));
  std::optional<uint64_t> orphan_alignment;  // set when a segment lies outside the data
  if (have_segments && (!header || header->segment_base_offset == 0)) {
    // Upstream writes no header when every segment is empty (a placeholder
    // constant segment); only segments with bytes need a base.
    checked.resize(segments.items().size());
    bool any_bytes = false;
    for (size_t i = 0; i < checked.size(); ++i) {
      checked[i].size = segments.items()[i].table().get_uint("size");
      checked[i].in_bounds = checked[i].size == 0;
      any_bytes = any_bytes || checked[i].size > 0;
    }
    if (any_bytes)
      sink.error(finding::kSegmentsWithoutHeader,
                 "the program lists " + std::to_string(segments.items().size()) +
                     " segments with data, but the file has no " + PteHeader::name() + " header with a segment base offset; the runtime "
                     "would read them as if they began at the start of the file and silently hand out other bytes",
                 header ? std::optional<uint64_t>(24) : std::nullopt, "segments");
  } else if (have_segments && segments_ok) {
    const uint64_t base = header->segment_base_offset;
    uint64_t data_size = file.size() - base;
    if (header->length >= PteHeader::kLength) data_size = std::min(data_size, header->segment_data_size);
    std::optional<uint64_t> alignment = infer_segment_alignment(program_size, base);
    const uint64_t declared_end = header->length >= PteHeader::kLength ? base + data_size : file.size();
    if (!alignment && base > program_size && declared_end < file.size())
      // Writers put the segments at the program's end rounded up to the
      // segment alignment, and the file ends with them. A base no
      // power-of-two alignment explains, with file bytes left over past the
      // declared segment data, was moved back: the runtime would read every
      // segment from too early. (Only the two together: an odd alignment
      // alone is legal.)
      sink.error(finding::kSegmentBaseMoved,
                 PteHeader::name() + " segment_base_offset " + std::to_string(base) + " is not program_size " +
                     std::to_string(program_size) +
                     " rounded up to any power-of-two alignment: it was moved, and the runtime would silently read "
                     "every segment (constants, delegates, named data) from other bytes",
                 24, "header.segment_base_offset");
    checked = check_segments(sink, segment_ranges(segments), base, data_size, alignment, reads ? &reads->whole : nullptr,
                             reads ? &reads->sliced : nullptr);
    for (const SegmentCheck& c : checked)
      if (!c.in_bounds) orphan_alignment = alignment.value_or(1);  // its bytes may remain as padding
  } else if (have_segments) {
    checked.resize(segments.items().size());  // base unusable (already reported)
  } else if (header && header->segment_base_offset != 0 && segments_ok) {
    // Upstream writes eh00 only for a program with segments; data after the
    // base that no segment claims means the header or the program is wrong.
    uint64_t declared = header->length >= PteHeader::kLength ? header->segment_data_size : 0;
    uint64_t after = file.size() - header->segment_base_offset;
    if (declared > 0 || after > 0)
      sink.error(finding::kSegmentDataWithoutSegments,
                 PteHeader::name() + " declares segment data (base " + std::to_string(header->segment_base_offset) + ", " +
                     std::to_string(std::max(declared, after)) + " bytes), but the program lists no segments",
                 24, "segments");
  }

  WorkBudget budget(WorkBudget::for_file_size(file.size()));
  std::vector<ZeroSpan> zero_spans;
  check_program(sink, budget, file.head, pte, checked, zero_spans, reads ? &*reads : nullptr);
  if (spans_out) {
    *spans_out = std::move(zero_spans);
    return;
  }
  for (const ZeroSpan& span : zero_spans)
    if (auto found = first_non_zero(file, span.start, span.end))
      sink.error(finding::kSlicePaddingNotZero,
                 span.what + " [" + std::to_string(span.start) + ", " + std::to_string(span.end) +
                     ") should be zero padding but hold the byte " + std::to_string(found->second) + " at offset " +
                     std::to_string(found->first) +
                     ": an offset was moved or a slice cut short; the runtime would silently hand a tensor other bytes",
                 found->first, span.path);
  check_runtime_rules(sink, budget, file.head, pte, options);
  // Legal for the runtime, but weights import refuses it and export cannot
  // write both layouts under one name: say so, naming the tensors.
  // Linear in the program's tensors (one hash per name).
  const std::vector<NamedTensor> named = named_tensors(pte.program, file.head);
  for (const SharedNameConflict& c : shared_name_conflicts(named))
    sink.warning(finding::kTensorNameShared,
                 "tensors of different layouts share one name: " + c.message +
                     "; a .ptd or safetensors entry of that name can fit only one of them",
                 std::nullopt, named[c.tensors.back()].path);
  if (segments_ok) {
    const Value& segments = pte.program.get("segments");
    auto uses = pte_segment_uses(pte.program, segments.is_items() ? segments.items().size() : 0);
    std::vector<bool> read(reads->whole.size());  // spans_out returned above: reads is set
    for (size_t i = 0; i < read.size(); ++i) read[i] = reads->whole[i] || reads->sliced[i];
    check_layout_bytes(sink, file, pte_layout(file.head, file.size(), pte, uses), &read, orphan_alignment);
  }
  }

}  // namespace

std::optional<PteFile> validate_pte_into(ValidationReport& report, const FileSource& file, const ValidateOptions& options,
                                         std::vector<ZeroSpan>* spans_out) {
  FindingSink sink(report, "pte");
  std::optional<PteHeader> header;
  bool segments_ok = false;
  if (!check_file_header(sink, file, header, segments_ok)) return std::nullopt;

  const uint64_t program_size = pte_program_end(header, file.head, file.size());
  if (program_size > file.head.size()) {
    // Only a caller that read too little of the file gets here.
    sink.error(finding::kFlatbufferRangeInvalid,
               "the program's " + std::to_string(program_size) + " bytes are not all in the " +
                   std::to_string(file.head.size()) + " bytes read from the start of the file",
               0);
    return std::nullopt;
  }
  auto decoded = decode_verified_program(file.head.slice(0, program_size));
  if (!decoded.ok()) {
    report_read_error(sink, decoded.error());
    return std::nullopt;
  }
  PteFile pte;
  pte.program = std::move(decoded.value());
  pte.header = header;

  check_decoded_pte(sink, file, header, segments_ok, program_size, pte, options, spans_out);
  return pte;
}

std::vector<std::pair<uint64_t, uint64_t>> pte_padding_in_segments(const FileSource& file, const PteFile& pte) {
  // The ranges are the slices tensors use in the constant segment (one
  // with more than the placeholder offset) or in mutable_data_segments[0]
  // (check_program's slice_padding): without either there are none, and
  // the whole check below is skipped (a fifth of inspect's time for a
  // program whose tensors are all planned).
  const Value& cs = pte.program.get("constant_segment");
  const bool constants = cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1;
  const Value& mds = pte.program.get("mutable_data_segments");
  if (!constants && !(mds.is_items() && !mds.items().empty())) return {};
  ValidationReport scratch;  // findings are validate's business
  FindingSink sink(scratch, "pte");
  std::optional<PteHeader> header;
  bool segments_ok = false;
  std::vector<ZeroSpan> spans;
  // The program is already decoded (inspect's): only the header is read again.
  if (!check_file_header(sink, file, header, segments_ok)) return {};
  const uint64_t program_size = pte_program_end(header, file.head, file.size());
  check_decoded_pte(sink, file, header, segments_ok, program_size, pte, ValidateOptions{}, &spans);
  std::vector<std::pair<uint64_t, uint64_t>> out;
  out.reserve(spans.size());
  for (const ZeroSpan& s : spans) out.emplace_back(s.start, s.end);
  return out;
}

}  // namespace etpack
