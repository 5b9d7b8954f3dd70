#include "read/ptd_table.h"

#include <string>
#include <unordered_map>

#include "core/checked_math.h"
#include "read/fb_bytes.h"
#include "read/verified_decode.h"
#include "schema/schema.h"

namespace etpack {

Result<PtdHead> check_ptd_head(const Blob& first_bytes, uint64_t file_size) {
  auto malformed = [](const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); };
  if (first_bytes.is_external()) return make_error(ErrorCode::kInvalidArgument, "the .ptd head must be in memory");
  const size_t size = static_cast<size_t>(first_bytes.size());
  ETP_TRY(check_identifier(FileKind::kPtd, first_bytes.data(), size, file_size));
  ETP_ASSIGN(auto header, parse_ptd_header(first_bytes.data(), size));
  if (!header) return malformed("missing " + PtdHeader::name() + " header (at byte offset " + std::to_string(kHeaderOffset) + ")");
  auto fb_end = checked_add(header->flatbuffer_offset, header->flatbuffer_size);
  if (header->flatbuffer_offset < kHeaderOffset + PtdHeader::kLength || !fb_end || *fb_end > file_size)
    return malformed(PtdHeader::name() + " flatbuffer range (offset " + std::to_string(header->flatbuffer_offset) +
                     ", size " + std::to_string(header->flatbuffer_size) + ") is outside the file of " +
                     std::to_string(file_size) + " bytes (at byte offset 16)");
  return PtdHead{*header, *fb_end};
}

namespace {

// Reads the FlatTensor flatbuffer into a PtdTable's columns. It visits the
// tables and fields in the order read/fb_decoder.cpp's generic decoder
// does and checks them with the same FbBytes calls, so a malformed file
// fails at the same offset with the same message. Memory is linear in the
// file with a small constant and no table is expanded twice: an entry
// costs 24 bytes of columns whatever it points at (a slot of 4 bytes in the
// file at least), and a layout table reached from many entries is decoded
// once (memoized by its offset), so the DAGs the decoder's memory budget
// guards against cost nothing here.
class FlatTensorReader {
 public:
  explicit FlatTensorReader(const Blob& flatbuffer)
      : data_(flatbuffer.data()), bytes_(flatbuffer.data(), flatbuffer.size(), 0), size_(flatbuffer.size()) {
    const Schema& schema = flat_tensor_schema();
    flat_tensor_ = schema.root;
    segment_ = schema.find_table("DataSegment");
    named_ = schema.find_table("NamedData");
    layout_ = schema.find_table("TensorLayout");
    key_ = &field(*named_, "key");
    segment_index_ = &field(*named_, "segment_index");
    tensor_layout_ = &field(*named_, "tensor_layout");
    offset_ = &field(*segment_, "offset");
    segment_size_ = &field(*segment_, "size");
    scalar_type_ = &field(*layout_, "scalar_type");
    sizes_ = &field(*layout_, "sizes");
    dim_order_ = &field(*layout_, "dim_order");
  }

  Status read(PtdTable& out) {
    if (size_ < 8) return bytes_.fail(0, "flatbuffer is " + std::to_string(size_) + " bytes, smaller than its 8-byte preamble");
    ETP_ASSIGN(uint64_t root_pos, bytes_.follow(0));
    const TableDef& def = *flat_tensor_;
    ETP_ASSIGN(FbTable root, bytes_.table(root_pos, def));
    ETP_ASSIGN(uint64_t version_at, bytes_.field(root, def, field(def, "version")));
    if (version_at) out.version = read_le<uint32_t>(data_ + version_at);
    out.version_offset = version_at;
    const FieldDef& segments = field(def, "segments");
    ETP_ASSIGN(uint64_t segments_at, bytes_.field(root, def, segments));
    if (segments_at) {
      out.has_segments = true;
      ETP_ASSIGN(FbVector vec, bytes_.vector(segments_at, def, segments));
      out.segments.reserve(static_cast<size_t>(vec.count));  // bounded: 4 bytes a slot exist in the buffer
      for (uint64_t i = 0; i < vec.count; ++i) {
        ETP_ASSIGN(uint64_t pos, bytes_.follow(vec.first + 4 * i));
        ETP_ASSIGN(SegmentRange s, segment(pos));
        out.segments.push_back(s);
      }
    }
    const FieldDef& named = field(def, "named_data");
    ETP_ASSIGN(uint64_t named_at, bytes_.field(root, def, named));
    if (named_at) {
      out.has_named_data = true;
      ETP_ASSIGN(FbVector vec, bytes_.vector(named_at, def, named));
      const size_t n = static_cast<size_t>(vec.count);  // bounded as above
      out.keys.reserve(n);
      out.segment_index.reserve(n);
      out.layout.reserve(n);
      for (uint64_t i = 0; i < vec.count; ++i) {
        ETP_ASSIGN(uint64_t pos, bytes_.follow(vec.first + 4 * i));
        ETP_TRY(named_data(pos, out));
      }
    }
    return {};
  }

 private:
  static const FieldDef& field(const TableDef& def, std::string_view name) { return *def.find(name); }

  Result<SegmentRange> segment(uint64_t pos) {
    const TableDef& def = *segment_;
    ETP_ASSIGN(FbTable t, bytes_.table(pos, def));
    SegmentRange s;
    ETP_ASSIGN(uint64_t offset_at, bytes_.field(t, def, *offset_));
    if (offset_at) s.offset = read_le<uint64_t>(data_ + offset_at);
    ETP_ASSIGN(uint64_t size_at, bytes_.field(t, def, *segment_size_));
    if (size_at) s.size = read_le<uint64_t>(data_ + size_at);
    return s;
  }

  Status named_data(uint64_t pos, PtdTable& out) {
    const TableDef& def = *named_;
    ETP_ASSIGN(FbTable t, bytes_.table(pos, def));
    std::string_view key;  // data() == nullptr: absent
    ETP_ASSIGN(uint64_t key_at, bytes_.field(t, def, *key_));
    if (key_at) {
      ETP_ASSIGN(key, bytes_.string(key_at));  // points into the buffer: never null
    }
    uint32_t segment_index = 0;
    ETP_ASSIGN(uint64_t index_at, bytes_.field(t, def, *segment_index_));
    if (index_at) segment_index = read_le<uint32_t>(data_ + index_at);
    uint32_t layout = PtdTable::kNoLayout;
    ETP_ASSIGN(uint64_t layout_at, bytes_.field(t, def, *tensor_layout_));
    if (layout_at) {
      ETP_ASSIGN(uint64_t layout_pos, bytes_.follow(layout_at));
      ETP_ASSIGN(layout, layout_index(layout_pos, out));
    }
    out.keys.push_back(key);
    out.segment_index.push_back(segment_index);
    out.layout.push_back(layout);
    return {};
  }

  // The index in out.layouts of the TensorLayout table at `pos`, decoding
  // it the first time it is reached. Runs of entries on one layout (what
  // writers produce for shared layouts) skip the lookup.
  Result<uint32_t> layout_index(uint64_t pos, PtdTable& out) {
    if (last_layout_ != PtdTable::kNoLayout && out.layouts[last_layout_].table_offset == pos) return last_layout_;
    auto found = layout_at_.find(pos);
    if (found != layout_at_.end()) return last_layout_ = found->second;
    ETP_ASSIGN(TensorView view, tensor_layout(pos));
    const auto index = static_cast<uint32_t>(out.layouts.size());  // < the entry count, itself < 2^32
    out.layouts.push_back(PtdLayout{pos, std::move(view)});
    layout_at_.emplace(pos, index);
    return last_layout_ = index;
  }

  // A TensorLayout as view_tensor would view its decoded table: the first
  // kMaxTensorRank elements of sizes and dim_order, and their lengths.
  Result<TensorView> tensor_layout(uint64_t pos) {
    const TableDef& def = *layout_;
    ETP_ASSIGN(FbTable t, bytes_.table(pos, def));
    TensorView v;
    ETP_ASSIGN(uint64_t type_at, bytes_.field(t, def, *scalar_type_));
    if (type_at) v.scalar_type = static_cast<int8_t>(data_[type_at]);
    const FieldDef& sizes = *sizes_;
    ETP_ASSIGN(uint64_t sizes_at, bytes_.field(t, def, sizes));
    if (sizes_at) {
      ETP_ASSIGN(FbVector vec, bytes_.vector(sizes_at, def, sizes));
      v.rank = static_cast<size_t>(vec.count);
      // The flatbuffer starts the file: its offsets are the file's. (An
      // empty vector has no elements to point at, as view_tensor says.)
      if (vec.count) v.sizes_offset = vec.first;
      for (uint64_t i = 0; i < vec.count && i < kMaxTensorRank; ++i)
        v.sizes.push_back(static_cast<int32_t>(read_le<uint32_t>(data_ + vec.first + 4 * i)));
    }
    const FieldDef& dim_order = *dim_order_;
    ETP_ASSIGN(uint64_t dim_order_at, bytes_.field(t, def, dim_order));
    if (dim_order_at) {
      ETP_ASSIGN(FbVector vec, bytes_.vector(dim_order_at, def, dim_order));
      v.dim_order_length = static_cast<size_t>(vec.count);
      for (uint64_t i = 0; i < vec.count && i < kMaxTensorRank; ++i) v.dim_order.push_back(data_[vec.first + i]);
    }
    return v;
  }

  const uint8_t* data_;
  FbBytes bytes_;
  uint64_t size_;
  const TableDef* flat_tensor_;
  const TableDef* segment_;
  const TableDef* named_;
  const TableDef* layout_;
  // The fields of the tables read per entry, looked up once (an entry is
  // read in a few dozen nanoseconds; a lookup by name costs as much).
  const FieldDef *key_, *segment_index_, *tensor_layout_, *offset_, *segment_size_, *scalar_type_, *sizes_, *dim_order_;
  std::unordered_map<uint64_t, uint32_t> layout_at_;  // table offset -> index in PtdTable::layouts
  uint32_t last_layout_ = PtdTable::kNoLayout;
};

}  // namespace

Result<PtdTable> read_ptd_table(const Blob& file) { return read_ptd_table(file, file.size()); }

std::optional<uint64_t> ptd_entry_field_offset(const Blob& head, size_t entry, const char* name) {
  const FbBytes bytes(head.data(), head.size(), 0);
  const Schema& schema = flat_tensor_schema();
  const TableDef& root_def = *schema.root;
  const TableDef& named = *schema.find_table("NamedData");
  const FieldDef* list = root_def.find("named_data");
  const FieldDef* field = named.find(name);
  if (!list || !field) return std::nullopt;
  auto root_pos = bytes.follow(0);
  if (!root_pos.ok()) return std::nullopt;
  auto root = bytes.table(*root_pos, root_def);
  if (!root.ok()) return std::nullopt;
  auto list_at = bytes.field(*root, root_def, *list);
  if (!list_at.ok() || *list_at == 0) return std::nullopt;
  auto vec = bytes.vector(*list_at, root_def, *list);
  if (!vec.ok() || entry >= vec->count) return std::nullopt;
  auto pos = bytes.follow(vec->first + 4 * entry);
  if (!pos.ok()) return std::nullopt;
  auto t = bytes.table(*pos, named);
  if (!t.ok()) return std::nullopt;
  auto at = bytes.field(*t, named, *field);
  if (!at.ok() || *at == 0) return std::nullopt;
  return *at;
}

Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size) { return read_ptd_table(head, file_size, nullptr); }

Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size, Status* verification) {
  if (head.is_external() || head.size() < std::min(file_size, kMinimumHeadBytes) || head.size() > file_size)
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head must be in memory and hold the file's first " +
                                                       std::to_string(std::min(file_size, kMinimumHeadBytes)) + " bytes");
  ETP_ASSIGN(PtdHead checked, check_ptd_head(head, file_size));
  const uint64_t fb_end = checked.flatbuffer_end;
  if (fb_end > head.size())
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head (" + std::to_string(head.size()) +
                                                       " bytes) ends before the flatbuffer (" + std::to_string(fb_end) + ")");
  PtdTable out;
  out.header = checked.header;
  out.flatbuffer_end = fb_end;
  const Blob flatbuffer = head.slice(0, fb_end);
  ETP_TRY(FlatTensorReader(flatbuffer).read(out));
  Status verified = verify_flat_tensor(flatbuffer);
  if (verification != nullptr) {
    *verification = std::move(verified);
    return out;
  }
  ETP_TRY(std::move(verified));
  return out;
}

}  // namespace etpack
