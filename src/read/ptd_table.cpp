#include "read/ptd_table.h"

#include <algorithm>
#include <cstring>
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
//
// Per entry (read_ptd_entries), what only a looked-up key makes the runtime
// read (a segment, an entry's segment_index and tensor_layout) is recorded
// as a fault instead of failing the read.
class FlatTensorReader {
 public:
  FlatTensorReader(const Blob& flatbuffer, bool per_entry)
      : data_(flatbuffer.data()), bytes_(flatbuffer.data(), flatbuffer.size(), 0, per_entry), size_(flatbuffer.size()),
        per_entry_(per_entry) {
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
    Result<uint64_t> version_at = bytes_.field(root, def, field(def, "version"));
    if (!version_at.ok()) {
      if (!per_entry_) return version_at.error();
      out.version_fault = fault(out, version_at.error());  // the runtimes of our vectors never read it
    } else {
      if (*version_at) out.version = read_le<uint32_t>(data_ + *version_at);
      out.version_offset = *version_at;
    }
    const FieldDef& segments = field(def, "segments");
    ETP_ASSIGN(uint64_t segments_at, bytes_.field(root, def, segments));
    if (segments_at) {
      out.has_segments = true;
      ETP_ASSIGN(FbVector vec, segment_slots(segments_at, def, segments, out));
      out.segments.reserve(static_cast<size_t>(vec.count));  // bounded: 4 bytes a slot exist in the buffer
      if (per_entry_) out.segment_fault.reserve(static_cast<size_t>(vec.count));
      for (uint64_t i = 0; i < vec.count; ++i) {
        Result<SegmentRange> s = segment_at(vec.first + 4 * i);
        if (!per_entry_ && !s.ok()) return s.error();
        out.segments.push_back(s.ok() ? s.value() : SegmentRange{});
        if (per_entry_) out.segment_fault.push_back(s.ok() ? PtdTable::kNoFault : fault(out, s.error()));
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
      if (per_entry_) out.entry_fault.reserve(n);
      for (uint64_t i = 0; i < vec.count; ++i) {
        ETP_ASSIGN(uint64_t pos, bytes_.follow(vec.first + 4 * i));
        ETP_TRY(named_data(pos, out));
      }
    }
    return {};
  }

 private:
  static const FieldDef& field(const TableDef& def, std::string_view name) { return *def.find(name); }

  // A fault from an error whose message ends "(at byte offset N)" (FbBytes::fail).
  static uint32_t fault(PtdTable& out, const Error& error) {
    PtdFault f;
    f.message = error.message;
    const size_t at = error.message.rfind("at byte offset ");
    if (at != std::string::npos)
      for (size_t i = at + 15; i < error.message.size() && error.message[i] >= '0' && error.message[i] <= '9'; ++i)
        f.offset = f.offset * 10 + static_cast<uint64_t>(error.message[i] - '0');
    out.faults.push_back(std::move(f));
    return static_cast<uint32_t>(out.faults.size() - 1);  // at most one per segment and entry: < 2^32
  }

  // The segments vector. Per entry, the runtime reads its length and only
  // the slots a looked-up entry names: a length past the flatbuffer leaves
  // out the slots outside it (PtdTable::segment_count keeps the length).
  Result<FbVector> segment_slots(uint64_t at, const TableDef& def, const FieldDef& f, PtdTable& out) {
    if (!per_entry_) {
      ETP_ASSIGN(FbVector vec, bytes_.vector(at, def, f));
      out.segment_count = vec.count;
      return vec;
    }
    ETP_ASSIGN(uint64_t v, bytes_.follow(at));
    if (!bytes_.has(v, 4)) return bytes_.fail(v, def.name + "." + f.name + " vector length past the end");
    out.segment_count = read_le<uint32_t>(data_ + v);
    return FbVector{v + 4, std::min<uint64_t>(out.segment_count, (size_ - v - 4) / 4), 4};
  }

  Result<SegmentRange> segment_at(uint64_t slot) {
    ETP_ASSIGN(uint64_t pos, bytes_.follow(slot));
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
    std::optional<Error> mismatch;
    if (key_at) {
      if (per_entry_) {
        ETP_ASSIGN(key, key_string(key_at, mismatch));
      } else {
        ETP_ASSIGN(key, bytes_.string(key_at));  // points into the buffer: never null
      }
    }
    uint32_t segment_index = 0;
    uint32_t layout = PtdTable::kNoLayout;
    Status rest = entry_fields(t, segment_index, layout, out);
    if (!per_entry_ && !rest.ok()) return rest;
    out.keys.push_back(key);
    out.segment_index.push_back(segment_index);
    out.layout.push_back(layout);
    if (per_entry_)
      out.entry_fault.push_back(mismatch ? fault(out, *mismatch) : rest.ok() ? PtdTable::kNoFault : fault(out, rest.error()));
    return {};
  }

  // segment_index and tensor_layout of the NamedData table `t`.
  Status entry_fields(const FbTable& t, uint32_t& segment_index, uint32_t& layout, PtdTable& out) {
    const TableDef& def = *named_;
    ETP_ASSIGN(uint64_t index_at, bytes_.field(t, def, *segment_index_));
    if (index_at) segment_index = read_le<uint32_t>(data_ + index_at);
    ETP_ASSIGN(uint64_t layout_at, bytes_.field(t, def, *tensor_layout_));
    if (layout_at) {
      ETP_ASSIGN(uint64_t layout_pos, bytes_.follow(layout_at));
      ETP_ASSIGN(layout, layout_index(layout_pos, out));
    }
    return {};
  }

  // A key as the runtime reads it: its length and bytes must lie in the
  // buffer; a terminator that is not NUL makes the runtime's C string
  // (MergedDataMap's key) run on, which `unterminated` says.
  // MergedDataMap::load reads every key as a C string (to its NUL); the
  // lookup then compares a key's length and bytes. A key whose C string is
  // not its declared length and bytes is found by the first and missed by
  // the second (`mismatch` says so); the view is the declared key, or the
  // C string when the length runs past the flatbuffer. A C string that
  // runs on for more than kKeyScan bytes past its declared end is refused
  // (the runtime reads on; validate stops).
  static constexpr uint64_t kKeyScan = 4096;
  Result<std::string_view> key_string(uint64_t at, std::optional<Error>& mismatch) {
    ETP_ASSIGN(uint64_t s, bytes_.follow(at));
    if (!bytes_.has(s, 4)) return bytes_.fail(s, "string length past the end");
    const uint64_t len = read_le<uint32_t>(data_ + s);
    const uint64_t start = s + 4;
    const uint64_t limit = std::min<uint64_t>(size_ - std::min(size_, start), (std::min<uint64_t>(len, size_) + kKeyScan));
    const void* nul = limit ? std::memchr(data_ + start, 0, static_cast<size_t>(limit)) : nullptr;
    if (nul == nullptr)
      return bytes_.fail(s, "the key has no NUL within " + std::to_string(limit) + " bytes: the runtime reads it past the flatbuffer");
    const uint64_t c_len = static_cast<uint64_t>(static_cast<const uint8_t*>(nul) - (data_ + start));
    const auto view = [&](uint64_t n) { return std::string_view(reinterpret_cast<const char*>(data_ + start), static_cast<size_t>(n)); };
    if (c_len == len) return view(len);
    const bool inside = bytes_.has(start, len);
    mismatch = bytes_.fail(s, "the key's length " + std::to_string(len) + (inside ? "" : " (past the end of the flatbuffer)") +
                                  " is not its C string's " + std::to_string(c_len) +
                                  ": the runtime's merged map finds it by the C string, its lookup by length never does");
    return view(inside ? len : c_len);
  }

  // The index in out.layouts of the TensorLayout table at `pos`, decoding
  // it the first time it is reached. Runs of entries on one layout (what
  // writers produce for shared layouts) skip the lookup.
  Result<uint32_t> layout_index(uint64_t pos, PtdTable& out) {
    if (last_layout_ != PtdTable::kNoLayout && out.layouts[last_layout_].table_offset == pos) return last_layout_;
    auto found = layout_at_.find(pos);
    if (found != layout_at_.end()) return last_layout_ = found->second;
    if (auto bad = bad_layout_at_.find(pos); bad != bad_layout_at_.end()) return bad->second;
    uint64_t dim_order_count = 0;
    Result<TensorView> read = tensor_layout(pos, dim_order_count);
    if (!read.ok()) {
      if (per_entry_) bad_layout_at_.emplace(pos, read.error());  // one decode however many entries share it
      return read.error();
    }
    TensorView view = std::move(read.value());
    const auto index = static_cast<uint32_t>(out.layouts.size());  // < the entry count, itself < 2^32
    const uint64_t declared = per_entry_ ? dim_order_count : view.dim_order_length.value_or(0);
    out.layouts.push_back(PtdLayout{pos, std::move(view), declared});
    layout_at_.emplace(pos, index);
    return last_layout_ = index;
  }

  // A TensorLayout as view_tensor would view its decoded table: the first
  // kMaxTensorRank elements of sizes and dim_order, and their lengths.
  Result<TensorView> tensor_layout(uint64_t pos, uint64_t& dim_order_count) {
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
    if (dim_order_at && per_entry_) {
      // create_tensor_layout reads as many bytes of dim_order as sizes has
      // elements; the vector's own length is never read.
      const uint64_t rank = v.rank.value_or(0);
      ETP_ASSIGN(uint64_t vec, bytes_.follow(dim_order_at));
      if (!bytes_.has(vec + 4, rank))
        return bytes_.fail(vec, "TensorLayout.dim_order: the " + std::to_string(rank) + " bytes the runtime reads run past the end");
      dim_order_count = bytes_.has(vec, 4) ? read_le<uint32_t>(data_ + vec) : rank;
      v.dim_order_length = static_cast<size_t>(rank);
      for (uint64_t i = 0; i < rank && i < kMaxTensorRank; ++i) v.dim_order.push_back(data_[vec + 4 + i]);
    } else if (dim_order_at) {
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
  const bool per_entry_;
  std::unordered_map<uint64_t, uint32_t> layout_at_;  // table offset -> index in PtdTable::layouts
  std::unordered_map<uint64_t, Error> bad_layout_at_;  // per entry: table offset -> why it cannot be read
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

namespace {

Result<PtdTable> read_ptd(const Blob& head, uint64_t file_size, Status* verification, bool per_entry) {
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
  ETP_TRY(FlatTensorReader(flatbuffer, per_entry).read(out));
  Status verified = verify_flat_tensor(flatbuffer);
  if (verification != nullptr) {
    *verification = std::move(verified);
    return out;
  }
  ETP_TRY(std::move(verified));
  return out;
}

}  // namespace

Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size, Status* verification) {
  return read_ptd(head, file_size, verification, false);
}

Result<PtdTable> read_ptd_entries(const Blob& head, uint64_t file_size, Status* verification) {
  Status ignored;
  return read_ptd(head, file_size, verification != nullptr ? verification : &ignored, true);
}

}  // namespace etpack
