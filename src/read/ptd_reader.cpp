#include "read/ptd_reader.h"

#include <cstring>
#include <string>
#include <unordered_set>

#include "core/checked_math.h"
#include "read/fb_decoder.h"
#include "read/ptd_table.h"
#include "read/validate_header_sizes.h"
#include "read/verified_decode.h"
#include "schema/schema.h"

namespace etpack {
namespace {

Error malformed(const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); }

// A layout whose dim_order vector holds fewer entries than sizes: the
// runtime (create_tensor_layout) reads as many bytes as sizes has elements,
// past the vector's end, whatever its length says. Those bytes are what it
// loads, so they are the layout; written back as a vector of the full
// length, the file loads the same (validate warns of the short vector;
// when the bytes are no permutation it is an error and repack refuses).
// Rare, so the table is read again only when a layout is short.
Status fill_short_dim_orders(const Blob& head, uint64_t file_size, DataPayload& payload) {
  bool short_layout = false;
  for (const auto& entry : payload.named_data) {
    const std::optional<TensorLayout>& tl = entry.second.tensor_layout;
    if (tl && tl->dim_order.size() < tl->sizes.size()) short_layout = true;
  }
  if (!short_layout) return {};
  Status ignored;
  ETP_ASSIGN(PtdTable table, read_ptd_entries(head, file_size, &ignored));
  for (size_t i = 0; i < payload.named_data.size() && i < table.named_count(); ++i) {
    std::optional<TensorLayout>& tl = payload.named_data[i].second.tensor_layout;
    if (!tl || tl->dim_order.size() >= tl->sizes.size()) continue;
    const PtdLayout* read = table.layout_of(i);
    if (read == nullptr || read->view.dim_order.size() != tl->sizes.size())
      return malformed("named data '" + payload.named_data[i].first + "' has a dim_order of " +
                       std::to_string(tl->dim_order.size()) + " entries for " + std::to_string(tl->sizes.size()) +
                       " sizes, and the bytes the runtime reads in its place cannot be read" +
                       (table.fault_of_entry(i) ? ": " + table.fault_of_entry(i)->message : std::string()));
    tl->dim_order = read->view.dim_order;  // copied: at most kMaxTensorRank bytes
  }
  return {};
}

}  // namespace

Result<PtdFile> deserialize_ptd(const Blob& file) { return deserialize_ptd(file, file); }

Result<uint64_t> ptd_head_size(const Blob& first_bytes, uint64_t file_size) {
  ETP_ASSIGN(PtdHead checked, check_ptd_head(first_bytes, file_size));
  return checked.flatbuffer_end;
}

Result<PtdFile> deserialize_ptd(const Blob& head, const Blob& file) {
  ETP_ASSIGN(PtdHead checked, check_ptd_head(head, file.size()));
  PtdFile out;
  out.header = checked.header;
  const PtdHeader& h = checked.header;
  uint64_t flatbuffer_end = checked.flatbuffer_end;
  // A flatbuffer_size past the base that the runtime reads past: see validate_header_sizes.h.
  if (auto end = flatbuffer_end_before_base(head, flatbuffer_end, h.segment_base_offset, h.flatbuffer_offset, true))
    flatbuffer_end = *end;
  const uint64_t* fb_end = &flatbuffer_end;
  auto data_end = checked_add(h.segment_base_offset, h.segment_data_size);
  if (h.segment_base_offset < *fb_end || !data_end || *data_end > file.size())
    return malformed(PtdHeader::name() + " segment data (base " + std::to_string(h.segment_base_offset) + ", size " +
                     std::to_string(h.segment_data_size) + ") is outside [" + std::to_string(*fb_end) + ", " +
                     std::to_string(file.size()) + "] (at byte offset 32)");

  if (*fb_end > head.size())
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head holds " + std::to_string(head.size()) +
                                                       " bytes; the flatbuffer needs " + std::to_string(*fb_end));
  Blob flatbuffer = head.slice(0, static_cast<size_t>(*fb_end));
  ETP_ASSIGN(TableValue root, decode_flatbuffer(flatbuffer, *flat_tensor_schema().root));
  if (!flatbuffer_verifies_aligned(VerifiedRoot::kFlatTensor, flatbuffer))
    return malformed("the FlatTensor flatbuffer fails flatbuffers verification (bytes 0.." + std::to_string(*fb_end) + ")");
  if (root.get_uint("version") != 0)
    return make_error(ErrorCode::kUnsupportedVersion,
                      "FlatTensor version " + std::to_string(root.get_uint("version")) + " is not the supported 0");

  const Value& segments = root.get("segments");
  if (segments.is_items()) {
    for (size_t i = 0; i < segments.items().size(); ++i) {
      const TableValue& s = segments.items()[i].table();
      uint64_t offset = s.get_uint("offset"), size = s.get_uint("size");
      if (!range_within(offset, size, h.segment_data_size))
        return malformed("segment " + std::to_string(i) + " (offset " + std::to_string(offset) + ", size " +
                         std::to_string(size) + ") overflows the " + std::to_string(h.segment_data_size) +
                         " bytes of segment data (at byte offset " + std::to_string(h.segment_base_offset + offset) + ")");
      out.payload.buffers.push_back(file.slice(h.segment_base_offset + offset, size));
    }
  }
  const Value& named = root.get("named_data");
  if (named.is_items()) {
    std::unordered_set<std::string> keys;  // hashed: a file may hold millions of keys
    keys.reserve(named.items().size());
    out.payload.named_data.reserve(named.items().size());
    for (const Value& entry : named.items()) {
      const TableValue& nd = entry.table();
      std::string key = nd.get("key").is_string() ? nd.get("key").str() : "";
      uint64_t index = nd.get_uint("segment_index");
      if (index >= out.payload.buffers.size())
        return malformed("named data '" + key + "' refers to segment " + std::to_string(index) + " of " +
                         std::to_string(out.payload.buffers.size()));
      if (!keys.insert(key).second) return malformed("named data key '" + key + "' appears twice");
      DataEntry de;
      de.buffer_index = static_cast<uint32_t>(index);
      de.alignment = 1;
      const Value& layout = nd.get("tensor_layout");
      if (layout.is_table()) {
        TensorLayout tl;
        tl.scalar_type = static_cast<int8_t>(layout.table().get_int("scalar_type"));
        const Value& sizes = layout.table().get("sizes");
        for (size_t i = 0; i < scalar_vector_length(sizes, BaseType::kInt); ++i)
          tl.sizes.push_back(static_cast<int32_t>(scalar_vector_int(sizes, BaseType::kInt, i)));
        const Value& dims = layout.table().get("dim_order");
        if (dims.is_scalars()) tl.dim_order.assign(dims.scalars().data(), dims.scalars().data() + dims.scalars().size());
        de.tensor_layout = std::move(tl);
      }
      out.payload.named_data.emplace_back(std::move(key), std::move(de));
    }
  }
  ETP_TRY(fill_short_dim_orders(head, file.size(), out.payload));
  return out;
}

}  // namespace etpack
