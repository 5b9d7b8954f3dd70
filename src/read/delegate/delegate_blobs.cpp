#include "read/delegate/delegate_blobs.h"

#include <vector>

#include "core/checked_math.h"
#include "schema/enums.h"

namespace etpack {

std::optional<Blob> delegate_blob_in_memory(const FileSource& pte, const PteFile& file, const TableValue& delegate,
                                            uint64_t max_bytes) {
  const Value& ref = delegate.get("processed");
  if (!ref.is_table()) return std::nullopt;
  const uint64_t index = ref.table().get_uint("index");
  if (ref.table().is("location", DataLocation::INLINE)) {  // INLINE: backend_delegate_data[index].data, in the head
    const Value& data = file.program.get("backend_delegate_data");
    if (!data.is_items() || index >= data.items().size() || !data.items()[index].is_table()) return std::nullopt;
    const Value& bytes = data.items()[index].table().get("data");
    if (!bytes.is_scalars()) return Blob::view(nullptr, 0);
    if (bytes.scalars().is_external() || bytes.scalars().size() > max_bytes) return std::nullopt;
    return bytes.scalars();
  }
  if (!ref.table().is("location", DataLocation::SEGMENT)) return std::nullopt;
  const Value& segments = file.program.get("segments");
  if (!segments.is_items() || index >= segments.items().size() || !file.header || file.header->segment_base_offset == 0)
    return std::nullopt;
  const TableValue& segment = segments.items()[index].table();
  const uint64_t size = segment.get_uint("size");
  const std::optional<uint64_t> start = checked_add(file.header->segment_base_offset, segment.get_uint("offset"));
  if (!start || *start > pte.size() || size > pte.size() - *start || size > max_bytes) return std::nullopt;
  const Blob slice = pte.file.slice(*start, size);
  if (!slice.is_external()) return slice;
  std::vector<uint8_t> bytes(static_cast<size_t>(size));  // bounded: within the file and max_bytes
  if (size > 0 && !slice.read_into(bytes.data())) return std::nullopt;
  return Blob::own(std::move(bytes));
}

std::vector<std::string> pte_named_keys(const TableValue& program) {
  std::vector<std::string> keys;
  const Value& named = program.get("named_data");
  for (size_t i = 0; named.is_items() && i < named.items().size(); ++i) {
    const Value& entry = named.items()[i];
    if (entry.is_table() && entry.table().get("key").is_string()) keys.push_back(entry.table().get("key").str());
  }
  return keys;
}

}  // namespace etpack
