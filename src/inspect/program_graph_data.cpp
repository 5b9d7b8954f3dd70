#include "inspect/program_graph_data.h"

#include "core/checked_math.h"

namespace etpack {
namespace {

Json opt_u64(std::optional<uint64_t> v) { return v ? Json::unsigned_integer(*v) : Json::null(); }

}  // namespace

Json DataLocator::constant(const TensorView& t) {
  const TableValue& program = pte_.program;
  const Value& cs = program.get("constant_segment");
  if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1)
    return in_segment("constant", "constant_segment", cs.table(), t);
  const Value& cb = program.get("constant_buffer");
  Json j = base("constant", "constant_buffer[" + std::to_string(t.data_buffer_idx) + "]", t);
  if (cb.is_items() && t.data_buffer_idx < cb.items().size()) {
    const Value& storage = cb.items()[static_cast<size_t>(t.data_buffer_idx)].table().get("storage");
    if (storage.is_scalars()) j.members()[kDataOffset].second = opt_u64(offset_in_file(storage.scalars(), file_.head));
  }
  return j;
}

Json DataLocator::mutable_data(const TensorView& t) {
  const Value& mds = pte_.program.get("mutable_data_segments");
  if (!mds.is_items() || mds.items().empty()) return base("mutable", std::nullopt, t);
  return in_segment("mutable", "mutable_data_segments[0]", mds.items()[0].table(), t);
}

Json DataLocator::base(const char* kind, std::optional<std::string> where, const TensorView& t) {
  Json j = Json::object();
  j.set("kind", Json::string(kind));
  j.set("where", where ? Json::string(*where) : Json::null());
  j.set("offset", Json::null());
  j.set("size", opt_u64(view_nbytes(t)));
  j.set("key", Json::null());
  j.set("file", Json::null());
  return j;
}

// segment base + segments[segment_index].offset + offsets[data_buffer_idx]
Json DataLocator::in_segment(const char* kind, const std::string& name, const TableValue& sub, const TensorView& t) {
  Json j = base(kind, name + ".offsets[" + std::to_string(t.data_buffer_idx) + "]", t);
  const Value& offsets = sub.get("offsets");
  const Value& segments = pte_.program.get("segments");
  const uint64_t index = sub.get_uint("segment_index");
  if (!pte_.header || t.data_buffer_idx >= scalar_vector_length(offsets, BaseType::kULong) || !segments.is_items() ||
      index >= segments.items().size())
    return j;
  std::optional<uint64_t> at = checked_add(pte_.header->segment_base_offset,
                                           segments.items()[static_cast<size_t>(index)].table().get_uint("offset"));
  if (at) at = checked_add(*at, scalar_vector_uint(offsets, BaseType::kULong, static_cast<size_t>(t.data_buffer_idx)));
  j.members()[kDataOffset].second = opt_u64(at);
  return j;
}

}  // namespace etpack
