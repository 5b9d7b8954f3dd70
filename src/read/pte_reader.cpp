#include "read/pte_reader.h"

#include <cstring>
#include <string>

#include "core/checked_math.h"
#include "program_generated.h"
#include "read/aligned_bytes.h"
#include "read/fb_decoder.h"

namespace etpack {
namespace {

Error malformed(const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); }

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

Status check_identifier(const Blob& file) {
  if (file.size() < 8)
    return malformed("file is " + std::to_string(file.size()) + " bytes; a .pte needs at least 8 (at byte offset 0)");
  const char* id = reinterpret_cast<const char*>(file.data() + 4);
  if (std::memcmp(id, "ET12", 4) == 0) return {};
  std::string shown;
  for (int i = 0; i < 4; ++i) {
    unsigned char c = static_cast<unsigned char>(id[i]);
    shown += (c >= 0x20 && c < 0x7f) ? std::string(1, static_cast<char>(c)) : "\\x" + std::to_string(c);
  }
  if (id[0] == 'E' && id[1] == 'T')
    return make_error(ErrorCode::kUnsupportedVersion,
                      "program identifier '" + shown + "' is not the supported 'ET12' (at byte offset 4)");
  return malformed("not a .pte file: identifier '" + shown + "' != 'ET12' (at byte offset 4)");
}

}  // namespace

Result<PteFile> read_pte_program(const Blob& file) { return read_pte_program(file, file.size()); }

Result<uint64_t> pte_head_size(const Blob& first_bytes, uint64_t file_size) {
  ETP_TRY(check_identifier(first_bytes));
  ETP_ASSIGN(auto header, parse_pte_header(first_bytes.data(), static_cast<size_t>(first_bytes.size())));
  if (!header) return file_size;
  if (header->program_size > file_size)
    return malformed("eh00 program_size " + std::to_string(header->program_size) + " is outside the file of " +
                     std::to_string(file_size) + " bytes (at byte offset 16)");
  return header->program_size;
}

Result<PteFile> read_pte_program(const Blob& head, uint64_t file_size) {
  if (head.is_external()) return make_error(ErrorCode::kInvalidArgument, "the .pte head must be in memory");
  ETP_TRY(check_identifier(head));
  PteFile out;
  ETP_ASSIGN(out.header, parse_pte_header(head.data(), static_cast<size_t>(head.size())));
  uint64_t program_size = file_size;
  if (out.header) {
    const PteHeader& h = *out.header;
    if (h.program_size < kHeaderOffset + PteHeader::kMinimumLength || h.program_size > file_size)
      return malformed("eh00 program_size " + std::to_string(h.program_size) + " is outside the file of " +
                       std::to_string(file_size) + " bytes (at byte offset 16)");
    if (h.segment_base_offset != 0 && (h.segment_base_offset < h.program_size || h.segment_base_offset > file_size))
      return malformed("eh00 segment_base_offset " + std::to_string(h.segment_base_offset) + " is outside [" +
                       std::to_string(h.program_size) + ", " + std::to_string(file_size) + "] (at byte offset 24)");
    program_size = h.program_size;
  }
  if (program_size > head.size())
    return make_error(ErrorCode::kInvalidArgument, "the .pte head holds " + std::to_string(head.size()) +
                                                       " bytes; the flatbuffer needs " + std::to_string(program_size));
  Blob flatbuffer = head.slice(0, static_cast<size_t>(program_size));
  ETP_ASSIGN(out.program, decode_flatbuffer(flatbuffer, *program_schema().root));
  // Second opinion from flatc's generated verifier (the runtime's check).
  AlignedBytes aligned(flatbuffer.data(), static_cast<size_t>(flatbuffer.size()));
  flatbuffers::Verifier verifier(aligned.data(), aligned.size(), 128, 100000000);
  if (!executorch_flatbuffer::VerifyProgramBuffer(verifier))
    return malformed("the Program flatbuffer fails flatbuffers verification (bytes 0.." + std::to_string(program_size) + ")");
  return out;
}

Result<PteFile> deserialize_pte_binary(const Blob& file) { return deserialize_pte_binary(file, file); }

Result<PteFile> deserialize_pte_binary(const Blob& head, const Blob& file) {
  ETP_ASSIGN(PteFile out, read_pte_program(head, file.size()));
  if (!out.header || out.header->segment_base_offset == 0) return out;

  const uint64_t base = out.header->segment_base_offset;
  const uint64_t data_size = file.size() - base;
  TableValue& program = out.program;

  std::vector<Blob> segments;
  const Value& segment_list = program.get("segments");
  if (segment_list.is_items()) {
    for (size_t i = 0; i < segment_list.items().size(); ++i) {
      const TableValue& s = segment_list.items()[i].table();
      uint64_t offset = s.get_uint("offset"), size = s.get_uint("size");
      if (!range_within(offset, size, data_size))
        return malformed("segment " + std::to_string(i) + " (offset " + std::to_string(offset) + ", size " +
                         std::to_string(size) + ") overflows the " + std::to_string(data_size) +
                         " bytes of segment data (at byte offset " + std::to_string(base + offset) + ")");
      segments.push_back(file.slice(base + offset, size));
    }
  }

  // Delegates stored in segments come back inline, one entry per delegate.
  Value& plans = program.at("execution_plan");
  Value& bdd = program.at("backend_delegate_data");
  if (plans.is_items()) {
    for (size_t p = 0; p < plans.items().size(); ++p) {
      Value& delegates = plans.items()[p].table().at("delegates");
      if (!delegates.is_items()) continue;
      for (size_t d = 0; d < delegates.items().size(); ++d) {
        Value& processed = delegates.items()[d].table().at("processed");
        if (!processed.is_table() || processed.table().get_uint("location") != 1) continue;
        uint64_t index = processed.table().get_uint("index");
        if (index >= segments.size())
          return malformed("execution_plan[" + std::to_string(p) + "].delegates[" + std::to_string(d) +
                           "] refers to segment " + std::to_string(index) + " of " + std::to_string(segments.size()));
        if (!bdd.is_items()) bdd = Value::from_items({});
        TableValue inline_data(&table_def("BackendDelegateInlineData"));
        inline_data.at("data") = Value::from_scalars(segments[static_cast<size_t>(index)]);
        TableValue ref(&table_def("BackendDelegateDataReference"));
        ref.set_uint("index", bdd.items().size());
        bdd.items().push_back(Value::from_table(std::move(inline_data)));
        processed = Value::from_table(std::move(ref));
      }
    }
  }

  // Slices between consecutive offsets (the last runs to the segment end).
  auto restore = [&](const TableValue& sub, const char* what) -> Result<std::vector<Blob>> {
    uint64_t index = sub.get_uint("segment_index");
    if (index >= segments.size())
      return malformed(std::string(what) + " refers to segment " + std::to_string(index) + " of " +
                       std::to_string(segments.size()));
    const Blob& seg = segments[static_cast<size_t>(index)];
    const Value& offsets = sub.get("offsets");
    size_t n = scalar_vector_length(offsets, BaseType::kULong);
    std::vector<Blob> out_blobs;
    out_blobs.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      uint64_t start = scalar_vector_uint(offsets, BaseType::kULong, i);
      uint64_t end = i + 1 < n ? scalar_vector_uint(offsets, BaseType::kULong, i + 1) : seg.size();
      if (start > end || end > seg.size())
        return malformed(std::string(what) + " offset " + std::to_string(i) + " (" + std::to_string(start) +
                         ") is outside its segment of " + std::to_string(seg.size()) + " bytes or out of order");
      out_blobs.push_back(seg.slice(start, end - start));
    }
    return out_blobs;
  };

  Value& constant_segment = program.at("constant_segment");
  if (constant_segment.is_table() &&
      scalar_vector_length(constant_segment.table().get("offsets"), BaseType::kULong) > 0) {
    ETP_ASSIGN(std::vector<Blob> constants, restore(constant_segment.table(), "constant_segment"));
    Value::Items buffers;
    for (Blob& b : constants) {
      TableValue buffer(&table_def("Buffer"));
      buffer.at("storage") = Value::from_scalars(std::move(b));
      buffers.push_back(Value::from_table(std::move(buffer)));
    }
    program.at("constant_buffer") = Value::from_items(std::move(buffers));
    constant_segment.table().set_uint("segment_index", 0);
    constant_segment.table().at("offsets") = Value::from_scalars(Blob());
  }

  Value& mutable_segments = program.at("mutable_data_segments");
  if (mutable_segments.is_items() && !mutable_segments.items().empty()) {
    if (mutable_segments.items().size() > 1)
      return malformed("the program has " + std::to_string(mutable_segments.items().size()) +
                       " mutable data segments; only one can be restored");
    ETP_ASSIGN(std::vector<Blob> mutable_data, restore(mutable_segments.items()[0].table(), "mutable_data_segments[0]"));
    out.mutable_data = std::move(mutable_data);
    mutable_segments = Value();
  }

  Value& named = program.at("named_data");
  if (named.is_items() && !named.items().empty()) {
    NamedDataStore store;
    for (const Value& entry : named.items()) {
      const TableValue& nd = entry.table();
      std::string key = nd.get("key").is_string() ? nd.get("key").str() : "";
      uint64_t index = nd.get_uint("segment_index");
      if (index >= segments.size())
        return malformed("named data '" + key + "' refers to segment " + std::to_string(index) + " of " +
                         std::to_string(segments.size()));
      Status added = store.add_named_data(key, segments[static_cast<size_t>(index)], 1);
      if (!added.ok()) return malformed("named data: " + added.error().message);
    }
    out.named_data = store.get_named_data_store_output();
  }
  // Empty, as before serialization; an absent list stays absent.
  if (named.is_items()) named = Value::from_items({});
  Value& seg_field = program.at("segments");
  if (seg_field.is_items()) seg_field = Value::from_items({});
  return out;
}

}  // namespace etpack
