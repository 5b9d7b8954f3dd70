#include "read/pte_reader.h"

#include <cstring>
#include <string>

#include "core/checked_math.h"
#include "program_generated.h"
#include "read/aligned_bytes.h"
#include "read/fb_decoder.h"
#include "read/program_tensors.h"
#include "read/validate_header_sizes.h"
#include "schema/verify.h"

namespace etpack {
namespace {

Error malformed(const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); }

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

Status check_pte_identifier(const Blob& file) {
  return check_identifier(FileKind::kPte, file.data(), static_cast<size_t>(file.size()), file.size());
}

}  // namespace

Result<PteFile> read_pte_program(const Blob& file) { return read_pte_program(file, file.size()); }

namespace {

// flatc's verifier over the first `n` bytes, with a table count bounded by
// their size (a DAG that reaches one table from many places fails here and
// gets the whole-file treatment, where the decoder's budget refuses it).
bool verifies_within(const AlignedBytes& aligned, uint64_t n) {
  return flatbuffer_verifies(VerifiedRoot::kProgram, aligned.data(), static_cast<size_t>(n), program_verify_limits_for_size(n));
}

}  // namespace

HeadlessEnd headless_program_end(const Blob& prefix, uint64_t file_size) {
  if (file_size <= 2 * kHeadlessWindow || prefix.is_external()) return {file_size, true};
  const uint64_t have = std::min<uint64_t>(prefix.size(), file_size);
  const uint64_t last_start = file_size - kHeadlessWindow;  // a prefix must end before the last window
  const uint64_t hi = std::min(have, last_start);
  const uint64_t more = std::min(file_size, std::max(kHeadlessWindow, 4 * have));
  if (hi < 8) return {more, false};
  // One view (or one aligned copy) of the bytes; every prefix is a length of it.
  AlignedBytes aligned(prefix.data(), static_cast<size_t>(hi));
  if (!verifies_within(aligned, hi)) return have >= last_start ? HeadlessEnd{file_size, true} : HeadlessEnd{more, false};
  // The smallest verifying prefix: verification is monotonic in the length.
  uint64_t lo = 8, top = hi;
  while (lo < top) {
    const uint64_t mid = lo + (top - lo) / 2;
    if (verifies_within(aligned, mid)) top = mid;
    else lo = mid + 1;
  }
  return {top, true};
}

uint64_t pte_program_end(const std::optional<PteHeader>& header, const Blob& head, uint64_t file_size) {
  if (header) return header->program_size;
  const HeadlessEnd end = headless_program_end(head, file_size);
  return end.known ? end.end : file_size;
}

Result<uint64_t> pte_head_size(const Blob& first_bytes, uint64_t file_size) {
  ETP_TRY(check_pte_identifier(first_bytes));
  ETP_ASSIGN(auto header, parse_pte_header(first_bytes.data(), static_cast<size_t>(first_bytes.size())));
  if (!header) return headless_program_end(first_bytes, file_size).end;
  if (header->program_size > file_size)
    return malformed(PteHeader::name() + " program_size " + std::to_string(header->program_size) + " is outside the file of " +
                     std::to_string(file_size) + " bytes (at byte offset 16)");
  return header->program_size;
}

namespace {

// The header and the flatbuffer part of a .pte, checked.
struct PteHead {
  std::optional<PteHeader> header;
  Blob flatbuffer;
};

Result<PteHead> read_pte_head(const Blob& head, uint64_t file_size) {
  if (head.is_external()) return make_error(ErrorCode::kInvalidArgument, "the .pte head must be in memory");
  ETP_TRY(check_pte_identifier(head));
  PteHead out;
  ETP_ASSIGN(out.header, parse_pte_header(head.data(), static_cast<size_t>(head.size())));
  uint64_t program_size = file_size;
  if (out.header) {
    const PteHeader& h = *out.header;
    if (h.program_size < kHeaderOffset + PteHeader::kMinimumLength || h.program_size > file_size)
      return malformed(PteHeader::name() + " program_size " + std::to_string(h.program_size) + " is outside the file of " +
                       std::to_string(file_size) + " bytes (at byte offset 16)");
    // A program_size past the base that the runtime reads past: see validate_header_sizes.h.
    if (auto end = flatbuffer_end_before_base(head, h.program_size, h.segment_base_offset,
                                              kHeaderOffset + PteHeader::kMinimumLength, false))
      out.header->program_size = *end;
    if (h.segment_base_offset != 0 && (h.segment_base_offset < h.program_size || h.segment_base_offset > file_size))
      return malformed(PteHeader::name() + " segment_base_offset " + std::to_string(h.segment_base_offset) + " is outside [" +
                       std::to_string(h.program_size) + ", " + std::to_string(file_size) + "] (at byte offset 24)");
    program_size = h.program_size;
  } else {
    const HeadlessEnd end = headless_program_end(head, file_size);
    if (!end.known)
      return make_error(ErrorCode::kInvalidArgument, "the .pte head holds " + std::to_string(head.size()) +
                                                         " bytes, too few to tell where its flatbuffer ends (pte_head_size: " +
                                                         std::to_string(end.end) + ")");
    program_size = end.end;
  }
  if (program_size > head.size())
    return make_error(ErrorCode::kInvalidArgument, "the .pte head holds " + std::to_string(head.size()) +
                                                       " bytes; the flatbuffer needs " + std::to_string(program_size));
  out.flatbuffer = head.slice(0, static_cast<size_t>(program_size));
  return out;
}

Error verifier_failure(const Blob& flatbuffer) {
  return malformed("the Program flatbuffer fails flatbuffers verification (bytes 0.." + std::to_string(flatbuffer.size()) + ")");
}

bool verify_program(const AlignedBytes& aligned, VerifyLimits limits) {
  return flatbuffer_verifies(VerifiedRoot::kProgram, aligned.data(), aligned.size(), limits);
}

// What a program says about its segments, read from the model or straight
// from the flatbuffer: the input of restore_segments.
struct SubsegmentRef {
  uint64_t segment_index = 0;
  std::vector<uint64_t> offsets;
};
struct SegmentRefs {
  std::vector<std::pair<uint64_t, uint64_t>> segments;  // offset, size
  // Delegates stored in a segment, in plan order: plan, delegate, segment.
  struct Delegate {
    size_t plan, delegate;
    uint64_t segment_index;
  };
  std::vector<Delegate> delegates;
  std::optional<SubsegmentRef> constants;        // a constant_segment with offsets
  size_t mutable_segment_count = 0;
  std::optional<SubsegmentRef> mutable_segment;  // mutable_data_segments[0]
  std::vector<std::pair<std::string, uint64_t>> named;  // key, segment index
};

// Restores segment data by the refs (all blobs are slices of `file`).
Result<PteRestored> restore_segments(const SegmentRefs& refs, const Blob& file, uint64_t base) {
  PteRestored out;
  const uint64_t data_size = file.size() - base;
  std::vector<Blob> segments;
  for (size_t i = 0; i < refs.segments.size(); ++i) {
    const auto [offset, size] = refs.segments[i];
    if (!range_within(offset, size, data_size))
      return malformed("segment " + std::to_string(i) + " (offset " + std::to_string(offset) + ", size " +
                       std::to_string(size) + ") overflows the " + std::to_string(data_size) +
                       " bytes of segment data (at byte offset " + std::to_string(base + offset) + ")");
    segments.push_back(file.slice(base + offset, size));
  }
  for (const SegmentRefs::Delegate& d : refs.delegates) {
    if (d.segment_index >= segments.size())
      return malformed("execution_plan[" + std::to_string(d.plan) + "].delegates[" + std::to_string(d.delegate) +
                       "] refers to segment " + std::to_string(d.segment_index) + " of " + std::to_string(segments.size()));
    out.delegates.push_back(segments[static_cast<size_t>(d.segment_index)]);
  }
  // Slices between consecutive offsets (the last runs to the segment end).
  auto restore = [&](const SubsegmentRef& sub, const char* what) -> Result<std::vector<Blob>> {
    if (sub.segment_index >= segments.size())
      return malformed(std::string(what) + " refers to segment " + std::to_string(sub.segment_index) + " of " +
                       std::to_string(segments.size()));
    const Blob& seg = segments[static_cast<size_t>(sub.segment_index)];
    const size_t n = sub.offsets.size();
    std::vector<Blob> out_blobs;
    out_blobs.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      uint64_t start = sub.offsets[i];
      uint64_t end = i + 1 < n ? sub.offsets[i + 1] : seg.size();
      if (start > end || end > seg.size())
        return malformed(std::string(what) + " offset " + std::to_string(i) + " (" + std::to_string(start) +
                         ") is outside its segment of " + std::to_string(seg.size()) + " bytes or out of order");
      out_blobs.push_back(seg.slice(start, end - start));
    }
    return out_blobs;
  };
  if (refs.constants) {
    ETP_ASSIGN(std::vector<Blob> constants, restore(*refs.constants, "constant_segment"));
    out.constants = std::move(constants);
  }
  if (refs.mutable_segment_count > 1)
    return malformed("the program has " + std::to_string(refs.mutable_segment_count) +
                     " mutable data segments; only one can be restored");
  if (refs.mutable_segment) {
    ETP_ASSIGN(std::vector<Blob> mutable_data, restore(*refs.mutable_segment, "mutable_data_segments[0]"));
    out.mutable_data = std::move(mutable_data);
  }
  if (!refs.named.empty()) {
    NamedDataStore store;
    for (const auto& [key, index] : refs.named) {
      if (index >= segments.size())
        return malformed("named data '" + key + "' refers to segment " + std::to_string(index) + " of " +
                         std::to_string(segments.size()));
      Status added = store.add_named_data(key, segments[static_cast<size_t>(index)], 1);
      if (!added.ok()) return malformed("named data: " + added.error().message);
    }
    out.named_data = store.get_named_data_store_output();
  }
  return out;
}

SubsegmentRef subsegment_of(const TableValue& sub) {
  SubsegmentRef ref{sub.get_uint("segment_index"), {}};
  const Value& offsets = sub.get("offsets");
  const size_t n = scalar_vector_length(offsets, BaseType::kULong);
  ref.offsets.reserve(n);
  for (size_t i = 0; i < n; ++i) ref.offsets.push_back(scalar_vector_uint(offsets, BaseType::kULong, i));
  return ref;
}

SegmentRefs segment_refs_of(const TableValue& program) {
  SegmentRefs refs;
  const Value& segment_list = program.get("segments");
  if (segment_list.is_items())
    for (const Value& s : segment_list.items()) refs.segments.emplace_back(s.table().get_uint("offset"), s.table().get_uint("size"));
  for_each_segment_delegate(program, [&](size_t p, size_t d, const TableValue&, uint64_t index) {
    refs.delegates.push_back({p, d, index});
  });
  const Value& constant_segment = program.get("constant_segment");
  if (constant_segment.is_table() && scalar_vector_length(constant_segment.table().get("offsets"), BaseType::kULong) > 0)
    refs.constants = subsegment_of(constant_segment.table());
  const Value& mutable_segments = program.get("mutable_data_segments");
  if (mutable_segments.is_items() && !mutable_segments.items().empty()) {
    refs.mutable_segment_count = mutable_segments.items().size();
    refs.mutable_segment = subsegment_of(mutable_segments.items()[0].table());
  }
  const Value& named = program.get("named_data");
  if (named.is_items()) {
    for (const Value& entry : named.items()) {
      const TableValue& nd = entry.table();
      refs.named.emplace_back(nd.get("key").is_string() ? nd.get("key").str() : "", nd.get_uint("segment_index"));
    }
  }
  return refs;
}

// The same, read through flatc's accessors from a verified flatbuffer.
SegmentRefs segment_refs_of(const executorch_flatbuffer::Program& program) {
  SegmentRefs refs;
  if (const auto* segments = program.segments())
    for (const auto* s : *segments) refs.segments.emplace_back(s->offset(), s->size());
  if (const auto* plans = program.execution_plan()) {
    for (flatbuffers::uoffset_t p = 0; p < plans->size(); ++p) {
      const auto* delegates = plans->Get(p)->delegates();
      if (delegates == nullptr) continue;
      for (flatbuffers::uoffset_t d = 0; d < delegates->size(); ++d) {
        const auto* processed = delegates->Get(d)->processed();
        if (processed != nullptr && processed->location() == executorch_flatbuffer::DataLocation_SEGMENT)
          refs.delegates.push_back({p, d, processed->index()});
      }
    }
  }
  auto subsegment = [](const executorch_flatbuffer::SubsegmentOffsets& sub) {
    SubsegmentRef ref{sub.segment_index(), {}};
    if (sub.offsets()) ref.offsets.assign(sub.offsets()->begin(), sub.offsets()->end());
    return ref;
  };
  const auto* constant_segment = program.constant_segment();
  if (constant_segment && constant_segment->offsets() && constant_segment->offsets()->size() > 0)
    refs.constants = subsegment(*constant_segment);
  if (const auto* mutable_segments = program.mutable_data_segments(); mutable_segments && mutable_segments->size() > 0) {
    refs.mutable_segment_count = mutable_segments->size();
    refs.mutable_segment = subsegment(*mutable_segments->Get(0));
  }
  if (const auto* named = program.named_data())
    for (const auto* nd : *named) refs.named.emplace_back(nd->key() ? nd->key()->str() : "", nd->segment_index());
  return refs;
}

}  // namespace

Result<PteFile> read_pte_program(const Blob& head, uint64_t file_size) {
  ETP_ASSIGN(PteHead pte, read_pte_head(head, file_size));
  PteFile out;
  out.header = pte.header;
  ETP_ASSIGN(out.program, decode_flatbuffer(pte.flatbuffer, *program_schema().root));
  // Second opinion from flatc's generated verifier (the runtime's check).
  AlignedBytes aligned(pte.flatbuffer.data(), static_cast<size_t>(pte.flatbuffer.size()));
  if (!verify_program(aligned, kProgramVerifyLimits)) return verifier_failure(pte.flatbuffer);
  return out;
}

Result<PteFile> deserialize_pte_binary(const Blob& file) { return deserialize_pte_binary(file, file); }

Result<PteFile> deserialize_pte_binary(const Blob& head, const Blob& file) {
  ETP_ASSIGN(PteFile out, read_pte_program(head, file.size()));
  if (!out.header || out.header->segment_base_offset == 0) return out;
  TableValue& program = out.program;
  ETP_ASSIGN(PteRestored restored, restore_segments(segment_refs_of(program), file, out.header->segment_base_offset));

  // Delegates stored in segments come back inline, one entry per delegate.
  Value& plans = program.at("execution_plan");
  Value& bdd = program.at("backend_delegate_data");
  size_t next = 0;
  if (plans.is_items()) {
    for (Value& plan : plans.items()) {
      Value& delegates = plan.table().at("delegates");
      if (!delegates.is_items()) continue;
      for (Value& delegate : delegates.items()) {
        Value& processed = delegate.table().at("processed");
        if (!processed.is_table() || !processed.table().is("location", DataLocation::SEGMENT)) continue;
        if (!bdd.is_items()) bdd = Value::from_items({});
        TableValue inline_data(&table_def("BackendDelegateInlineData"));
        inline_data.at("data") = Value::from_scalars(restored.delegates[next++]);
        TableValue ref(&table_def("BackendDelegateDataReference"));
        ref.set_uint("index", bdd.items().size());
        bdd.items().push_back(Value::from_table(std::move(inline_data)));
        processed = Value::from_table(std::move(ref));
      }
    }
  }
  if (restored.constants) {
    Value::Items buffers;
    for (Blob& b : *restored.constants) {
      TableValue buffer(&table_def("Buffer"));
      buffer.at("storage") = Value::from_scalars(std::move(b));
      buffers.push_back(Value::from_table(std::move(buffer)));
    }
    program.at("constant_buffer") = Value::from_items(std::move(buffers));
    TableValue& constant_segment = program.at("constant_segment").table();
    constant_segment.set_uint("segment_index", 0);
    constant_segment.at("offsets") = Value::from_scalars(Blob());
  }
  if (restored.mutable_data) {
    out.mutable_data = std::move(restored.mutable_data);
    program.at("mutable_data_segments") = Value();
  }
  out.named_data = std::move(restored.named_data);
  // Empty, as before serialization; an absent list stays absent.
  Value& named = program.at("named_data");
  if (named.is_items()) named = Value::from_items({});
  Value& seg_field = program.at("segments");
  if (seg_field.is_items()) seg_field = Value::from_items({});
  return out;
}

Result<PteProgramBytes> read_pte_program_bytes(const Blob& head, const Blob& file) {
  ETP_ASSIGN(PteHead pte, read_pte_head(head, file.size()));
  PteProgramBytes out;
  out.flatbuffer = pte.flatbuffer;
  // flatc's verifier first, counting at most one table per four bytes: all
  // a file can hold unless its offsets reach one table from many places.
  // Such a file (or a malformed one) gets the decoder's verdict instead —
  // its error naming the offset, or its budget's RESOURCE_LIMIT — before the
  // verifier may walk it with the usual generous table count.
  AlignedBytes aligned(pte.flatbuffer.data(), static_cast<size_t>(pte.flatbuffer.size()));
  if (!verify_program(aligned, program_verify_limits_for_size(pte.flatbuffer.size()))) {
    if (auto decoded = decode_flatbuffer(pte.flatbuffer, *program_schema().root); !decoded.ok()) return decoded.take_error();
    if (!verify_program(aligned, kProgramVerifyLimits)) return verifier_failure(pte.flatbuffer);
  }
  if (!pte.header || pte.header->segment_base_offset == 0) return out;
  out.restore = true;
  const auto& program = *executorch_flatbuffer::GetProgram(aligned.data());
  ETP_ASSIGN(out.restored, restore_segments(segment_refs_of(program), file, pte.header->segment_base_offset));
  return out;
}

}  // namespace etpack
