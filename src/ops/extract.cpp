#include "ops/extract.h"

#include "core/checked_math.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"
#include "schema/enums.h"

namespace etpack {
namespace {

Error malformed(const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); }

// The blob of `delegate` (a BackendDelegate table) as a slice of the file.
Result<ExtractedDelegate> blob_of(const FileSource& pte, const PteFile& file, const TableValue& delegate) {
  const TableValue& program = file.program;
  const Value& ref = delegate.get("processed");
  if (!ref.is_table()) return malformed("the delegate has no processed data reference");
  const uint64_t index = ref.table().get_uint("index");
  const uint64_t location = ref.table().get_uint("location");
  ExtractedDelegate out;
  uint64_t size = 0;
  if (location == code(DataLocation::INLINE)) {
    // INLINE: backend_delegate_data[index].data, inside the flatbuffer (the head).
    const Value& inline_data = program.get("backend_delegate_data");
    const size_t count = inline_data.is_items() ? inline_data.items().size() : 0;
    if (index >= count)
      return malformed("the delegate's inline data index " + std::to_string(index) + " is past backend_delegate_data (" +
                       std::to_string(count) + " entries)");
    const Value& data = inline_data.items()[index].table().get("data");
    size = data.is_scalars() ? data.scalars().size() : 0;
    if (size > 0) {
      std::optional<uint64_t> at = offset_in_file(data.scalars(), pte.head);
      if (!at) return make_error(ErrorCode::kInternal, "inline delegate data is not inside the file's head");
      out.offset = *at;
    }
    out.location = "inline";
  } else if (location == code(DataLocation::SEGMENT)) {
    // SEGMENT: segments[index], from the extended header's segment base.
    const Value& segments = program.get("segments");
    const size_t count = segments.is_items() ? segments.items().size() : 0;
    if (index >= count)
      return malformed("the delegate's segment index " + std::to_string(index) + " is past the segment list (" +
                       std::to_string(count) + " segments)");
    if (!file.header || file.header->segment_base_offset == 0)
      return malformed("the delegate's data is in segment " + std::to_string(index) + " but the file has no segment base offset");
    const TableValue& segment = segments.items()[index].table();
    size = segment.get_uint("size");
    std::optional<uint64_t> at = checked_add(file.header->segment_base_offset, segment.get_uint("offset"));
    if (!at) return malformed("segment " + std::to_string(index) + "'s offset overflows");
    out.offset = *at;
    out.location = "segment";
  } else {
    return malformed("the delegate's data location " + std::to_string(location) + " is neither INLINE (0) nor SEGMENT (1)");
  }
  const uint64_t start = out.offset.value_or(0);
  std::optional<uint64_t> end = checked_add(start, size);
  if (!end || *end > pte.size())
    return malformed("the delegate's blob (" + std::to_string(size) + " bytes at offset " + std::to_string(start) +
                     ") runs past the end of the file (" + std::to_string(pte.size()) + " bytes)");
  // A reference to the input's own bytes (in memory or external): the
  // caller's output copies it once, where it writes it.
  if (size > 0) out.bytes.append(pte.file.slice(start, size));
  const Value& id = delegate.get("id");
  if (id.is_string()) out.id = id.str();
  return out;
}

}  // namespace

Result<ExtractedDelegate> extract_delegate(const FileSource& pte, const std::optional<std::string>& method, uint64_t index) {
  ETP_ASSIGN(PteFile file, read_pte_program(pte.head, pte.size()));
  const Value& plans = file.program.get("execution_plan");
  const size_t plan_count = plans.is_items() ? plans.items().size() : 0;
  uint64_t seen = 0;  // delegates in the methods searched so far
  bool method_found = false;
  for (size_t p = 0; p < plan_count; ++p) {
    const TableValue& plan = plans.items()[p].table();
    const Value& name = plan.get("name");
    if (method && !(name.is_string() && name.str() == *method)) continue;
    method_found = true;
    const Value& delegates = plan.get("delegates");
    const uint64_t count = delegates.is_items() ? delegates.items().size() : 0;
    if (index - seen < count) {
      ETP_ASSIGN(ExtractedDelegate out, blob_of(pte, file, delegates.items()[static_cast<size_t>(index - seen)].table()));
      out.method = name.is_string() ? name.str() : std::string();
      out.index = index - seen;
      return out;
    }
    seen += count;
    if (method) break;
  }
  if (method && !method_found) return make_error(ErrorCode::kInvalidArgument, "the program has no method named '" + *method + "'");
  return make_error(ErrorCode::kInvalidArgument, "there is no delegate " + std::to_string(index) + ": " +
                                                     (method ? "method '" + *method + "'" : std::string("the program")) + " has " +
                                                     std::to_string(seen) + " delegate(s)");
}

}  // namespace etpack
