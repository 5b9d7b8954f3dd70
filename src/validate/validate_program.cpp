// Program-level checks of a .pte: methods, tensors, constants, mutable data, delegates, named
// data and which segments are used, following what the runtime (runtime/executor/program.cpp,
// method.cpp, tensor_parser*.cpp) and our readers rely on.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/checked_math.h"
#include "schema/enums.h"
#include "validate/validate_internal.h"

namespace etpack {
namespace {

// A SubsegmentOffsets table (constant_segment, mutable_data_segments[i])
// resolved against its segment.
struct Subsegment {
  bool usable = false;  // the segment exists, lies in the file and every offset is inside it
  bool sorted = true;
  bool size_known = true;  // false: mutable data whose recorded size runs past the file (judged by the bytes there)
  uint64_t segment_size = 0;
  std::optional<uint64_t> segment_start;
  std::vector<uint64_t> offsets;
  std::vector<bool> read;             // per offset: a tensor's data_buffer_idx names it
  std::map<uint64_t, uint64_t> used;  // slice index -> the most bytes a tensor reads from it
};

// Where slice `index`'s bytes end: the next offset (writers pad each slice
// up to it), skipping offsets no tensor reads that lie out of order or past
// the segment (the runtime never reads them; their values say nothing).
uint64_t slice_end(const Subsegment& sub, size_t index) {
  for (size_t j = index + 1; j < sub.offsets.size(); ++j) {
    const uint64_t o = sub.offsets[j];
    if (sub.read[j] || (o >= sub.offsets[index] && o <= sub.segment_size)) return o;
  }
  return sub.segment_size;
}

class ProgramChecker {
 public:
  ProgramChecker(FindingSink& sink, WorkBudget& budget, const Blob& file, const PteFile& pte,
                 const std::vector<SegmentCheck>& segments, std::vector<ZeroSpan>& zero_spans, const PteReads* reads)
      : sink_(sink),
        gate_(sink, budget,
              "the program's vectors are shared so often that checking them all would cost more than " +
                  std::to_string(budget.units()) + " steps; checks stopped"),
        file_(file), program_(pte.program), segments_(segments),
        referenced_(segments.size(), false), zero_spans_(zero_spans), reads_(reads) {}

  void run() {
    check_method_indices(sink_, gate_, program_, file_);
    check_delegates();
    check_named_data();
    const Value& cs = program_.get("constant_segment");
    constant_offsets_ = cs.is_table() ? scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) : 0;
    // The slices tensors read: the runtime reads only those offsets
    // (Program::get_constant_buffer_data, Method's mutable data: the offset
    // a tensor's data_buffer_idx names, checked against the segment).
    const Value& mds_list = program_.get("mutable_data_segments");
    const size_t mutable_offsets = mds_list.is_items() && !mds_list.items().empty()
                                       ? scalar_vector_length(mds_list.items()[0].table().get("offsets"), BaseType::kULong)
                                       : 0;
    std::vector<bool> constant_read(constant_offsets_, false), mutable_read(mutable_offsets, false);  // a bit per offset in the file
    for_each_tensor(program_, [&](size_t, size_t, const TableValue& t) {
      const TensorData data = tensor_data(t);
      if (data != TensorData::kConstant && data != TensorData::kMutable) return;
      std::vector<bool>& read = data == TensorData::kConstant ? constant_read : mutable_read;
      const uint64_t index = t.get_uint("data_buffer_idx");
      if (index < read.size()) read[static_cast<size_t>(index)] = true;  // past them: check_slice reports it
    });
    // Only the placeholder offset: Program::load never loads the segment, nor checks its index.
    if (constant_offsets_ == 1 && cs.table().get_uint("segment_index") >= segments_.size())
      reference_segment(cs.table().get_uint("segment_index"), "constant_segment.segment_index",
                        "; constant_segment holds only the placeholder offset, so the runtime never loads it");
    else if (constant_offsets_ > 0) constants_ = subsegment(cs.table(), "constant_segment", constant_read);
    const Value& mds = program_.get("mutable_data_segments");
    if (mds.is_items()) {
      if (mds.items().size() > 1)
        sink_.error(finding::kMutableSegmentsMultiple,
                    "the program has " + std::to_string(mds.items().size()) +
                        " mutable_data_segments; the runtime reads only the first and no reader can restore the rest",
                    std::nullopt, "mutable_data_segments");
      for (size_t i = 0; i < mds.items().size(); ++i) {
        Subsegment s = subsegment(mds.items()[i].table(), indexed_path("mutable_data_segments", i),
                                  i == 0 ? mutable_read : std::vector<bool>{}, /*by_slices=*/true);
        if (i == 0) mutable_ = std::move(s);
      }
    }
    check_constants_exclusive();
    for_each_tensor(program_, [&](size_t p, size_t v, const TableValue& t) { check_tensor(p, v, t); });
    constant_placement();
    slice_padding(constants_, "constant", "constant_segment");
    slice_padding(mutable_, "mutable data", "mutable_data_segments[0]");
    for (size_t i = 0; i < referenced_.size(); ++i)
      if (!referenced_[i])
        sink_.warning(finding::kSegmentUnreferenced,
                      indexed_path("segments", i) + " (" + std::to_string(segments_[i].size) +
                          " bytes) is not used by constants, mutable data, delegates or named data",
                      segments_[i].start, indexed_path("segments", i));
  }

 private:
  // Marks segment `index` as used; false (after a finding) when it does not
  // exist. `unread`: why the runtime never follows the index (a warning).
  ETPACK_COLD bool reference_segment(uint64_t index, const std::string& path, const std::string& unread = "") {
    if (index < segments_.size()) {
      referenced_[index] = true;
      return true;
    }
    const std::string message = path + " is segment " + std::to_string(index) + ", but the program has " +
                                std::to_string(segments_.size()) + " segments";
    if (unread.empty()) sink_.error(finding::kSegmentIndexOutOfRange, message, std::nullopt, path);
    else sink_.warning(finding::kSegmentIndexOutOfRange, message + unread, std::nullopt, path);
    return false;
  }

  ETPACK_COLD void check_delegates() {
    const Value& bdd = program_.get("backend_delegate_data");
    size_t inline_count = bdd.is_items() ? bdd.items().size() : 0;
    std::vector<bool> inline_used(inline_count, false);
    const Value& plans = program_.get("execution_plan");
    for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
      const Value& delegates = plans.items()[p].table().get("delegates");
      for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
        const TableValue& delegate = delegates.items()[d].table();
        const std::string path = indexed_path(indexed_path("execution_plan", p) + ".delegates", d);
        require_field(sink_, delegate, "id", path);
        const Value& ref = delegate.get("processed");
        if (!ref.is_table()) {
          sink_.error(finding::kDelegateReferenceMissing, path + " has no `processed` data reference", std::nullopt,
                      path + ".processed");
          continue;
        }
        uint64_t location = ref.table().get_uint("location"), index = ref.table().get_uint("index");
        if (location == code(DataLocation::INLINE)) {
          if (index < inline_count)
            inline_used[index] = true;
          else
            sink_.error(finding::kDelegateIndexOutOfRange,
                        path + " refers to INLINE data " + std::to_string(index) + ", but backend_delegate_data has " +
                            std::to_string(inline_count) + " entries",
                        std::nullopt, path + ".processed.index");
        } else if (location == code(DataLocation::SEGMENT)) {
          if (index < segments_.size())
            referenced_[index] = true;
          else
            sink_.error(finding::kDelegateIndexOutOfRange,
                        path + " refers to segment " + std::to_string(index) + ", but the program has " +
                            std::to_string(segments_.size()) + " segments",
                        std::nullopt, path + ".processed.index");
        } else {
          sink_.error(finding::kDelegateLocationInvalid,
                      path + " has data location " + std::to_string(location) + ", neither INLINE (0) nor SEGMENT (1)",
                      std::nullopt, path + ".processed.location");
        }
      }
    }
    for (size_t i = 0; i < inline_count; ++i)
      if (!inline_used[i])
        sink_.warning(finding::kDelegateDataUnreferenced,
                      indexed_path("backend_delegate_data", i) + " is not used by any delegate", std::nullopt,
                      indexed_path("backend_delegate_data", i));
  }

  ETPACK_COLD void check_named_data() {
    const Value& named = program_.get("named_data");
    if (!named.is_items()) return;
    if (!program_.has("segments"))
      sink_.error(finding::kMissingField, "the program has named_data but no segments list; the runtime rejects it",
                  std::nullopt, "segments");
    // The runtime's PteDataMap answers a key with the first entry that has
    // it and never looks further: a repeat on the first entry's segment is
    // harmless, a repeat on another segment is data no lookup reaches.
    std::unordered_map<std::string, std::pair<size_t, uint64_t>> first_of;  // key -> (entry, segment_index)
    for (size_t i = 0; i < named.items().size(); ++i) {
      const TableValue& entry = named.items()[i].table();
      const std::string path = indexed_path("named_data", i);
      const Value& key = entry.get("key");
      const uint64_t segment = entry.get_uint("segment_index");
      if (!key.is_string()) {
        sink_.error(finding::kNamedDataKeyMissing, path + " has no key", std::nullopt, path + ".key");
      } else if (auto [it, fresh] = first_of.emplace(key.str(), std::make_pair(i, segment)); !fresh) {
        const std::string first = indexed_path("named_data", it->second.first);
        if (it->second.second == segment)
          sink_.warning(finding::kDuplicateKeySameData,
                        path + " repeats the key '" + key.str() + "' of " + first + " on the same segment " +
                            std::to_string(segment) + ": the runtime's lookup finds " + first + " and the same bytes",
                        std::nullopt, path + ".key");
        else
          sink_.error(finding::kDuplicateKey,
                      path + " repeats the key '" + key.str() + "' of " + first + " with other data (segment " +
                          std::to_string(segment) + ", not " + std::to_string(it->second.second) +
                          "): the runtime's lookup finds only " + first + ", so " + path + "'s data is never loaded",
                      std::nullopt, path + ".key");
      }
      // PteDataMap::get_data follows the index only for a key a backend asks for.
      const bool asked = reads_ == nullptr || (key.is_string() && reads_->keys.count(key.str()) != 0);
      reference_segment(segment, path + ".segment_index",
                        asked ? "" : "; no delegate's backend asks for its key, so the runtime never follows it");
    }
  }

  // `read`: the offsets tensors read (by index). A fault in an offset no
  // tensor reads is a warning: the runtime never reads it. `by_slices`
  // (mutable data): the runtime reads only the slices, from the file, so a
  // segment whose size runs past the data is judged by the bytes there.
  ETPACK_COLD Subsegment subsegment(const TableValue& table, const std::string& path, const std::vector<bool>& read,
                        bool by_slices = false) {
    Subsegment out;
    uint64_t index = table.get_uint("segment_index");
    if (!reference_segment(index, path + ".segment_index")) return out;
    const SegmentCheck& seg = segments_[index];
    const Value& offsets = table.get("offsets");
    size_t n = scalar_vector_length(offsets, BaseType::kULong);
    if (!(seg.in_bounds || (by_slices && seg.start)) || !gate_.spend(n)) return out;
    out.usable = true;
    out.size_known = seg.in_bounds;
    out.segment_size = seg.in_bounds ? seg.size : seg.room;
    out.segment_start = seg.start;
    out.offsets.reserve(n);  // bounded: 8 bytes of the file per offset
    out.read.assign(n, false);
    const std::optional<uint64_t> first =
        offsets.is_scalars() ? offset_in_file(offsets.scalars(), file_) : std::nullopt;
    std::optional<uint64_t> last_read;  // the offset of the previous slice a tensor reads
    bool unread_unsorted = false;
    const std::string unread = "; no tensor uses it, so the runtime never reads it";
    for (size_t i = 0; i < n; ++i) {
      uint64_t offset = scalar_vector_uint(offsets, BaseType::kULong, i);
      const bool is_read = i < read.size() && read[i];
      out.read[i] = is_read;
      const std::string at = path + ".offsets[" + std::to_string(i) + "]";
      const std::optional<uint64_t> where = first ? std::optional<uint64_t>(*first + 8 * i) : std::nullopt;
      if (offset > out.segment_size) {
        const std::string what = at + " = " + std::to_string(offset) + " is past the end of segment " +
                                 std::to_string(index) + " (" + std::to_string(out.segment_size) +
                                 (out.size_known ? " bytes)" : " bytes of it in the file)");
        if (is_read) {
          out.usable = false;
          sink_.error(finding::kSubsegmentOffsetOutOfRange, what, where, at);
        } else {
          sink_.warning(finding::kSubsegmentOffsetOutOfRange, what + unread, where, at);
        }
      }
      if (is_read) {
        if (last_read && offset < *last_read && out.sorted) {
          out.sorted = false;
          sink_.error(finding::kSubsegmentOffsetsUnsorted,
                      at + " = " + std::to_string(offset) + " is below the offset " + std::to_string(*last_read) +
                          " of an earlier slice; readers restore slices between consecutive offsets",
                      where, at);
        }
        last_read = offset;
      } else if (i > 0 && offset < out.offsets.back() && !unread_unsorted) {
        unread_unsorted = true;
        sink_.warning(finding::kSubsegmentOffsetsUnsorted,
                      at + " = " + std::to_string(offset) + " is below the previous offset " +
                          std::to_string(out.offsets.back()) + unread,
                      where, at);
      }
      out.offsets.push_back(offset);
    }
    return out;
  }

  ETPACK_COLD void check_constants_exclusive() {
    const Value& cb = program_.get("constant_buffer");
    size_t buffers = cb.is_items() ? cb.items().size() : 0;
    const size_t offsets = constant_offsets_;  // set by run()
    if (buffers > 0 && offsets > 1)
      sink_.error(finding::kConstantsInBoth,
                  "constant_buffer has " + std::to_string(buffers) + " entries and constant_segment " +
                      std::to_string(offsets) + " offsets; the runtime accepts only one of them",
                  std::nullopt, "constant_buffer");
  }

  // Upstream's writer (_extract_constant_segment) puts constant i at
  // offsets[i] and pads it with zeros to the segment's tensor alignment A,
  // a power of two (the last one unpadded); a constant's buffer holds
  // exactly its tensor's bytes (the emitter checks). So every offset is a
  // multiple of A and every padding after a used constant is below A: the
  // largest padding P gives a lower bound, A >= the power of two above P,
  // that holds for every file such a writer wrote. An offset that is no
  // multiple of that bound was moved: the tensor reads bytes that start
  // inside the previous slice (its padding or data) and stop short of its
  // own, silently. (Zero padding alone misses this when the moved-over
  // bytes are zeros, or belong to the placeholder slice 0.)
  ETPACK_COLD void constant_placement() {
    const Subsegment& sub = constants_;
    if (!sub.usable || !sub.sorted || sub.used.empty()) return;
    uint64_t widest = 0, alignment = 1;
    size_t widest_at = 0;
    for (const auto& [index, nbytes] : sub.used) {
      const uint64_t end = slice_end(sub, static_cast<size_t>(index));
      const uint64_t padding = end - sub.offsets[index] - nbytes;  // >= 0: check_slice kept only tensors that fit
      if (padding > widest) widest = padding, widest_at = index;
    }
    while (alignment <= widest && alignment < (uint64_t{1} << 62)) alignment <<= 1;
    if (alignment == 1) return;
    // Name the least aligned offset: the one a few bytes' move left.
    std::optional<size_t> moved;
    uint64_t moved_bits = alignment;
    for (size_t i = 0; i < sub.offsets.size(); ++i) {
      if (!sub.read[i]) continue;  // an offset no tensor reads moves no tensor's bytes
      const uint64_t bits = sub.offsets[i] & (~sub.offsets[i] + 1);  // lowest set bit (0 for offset 0: aligned)
      if (bits != 0 && bits < moved_bits) moved = i, moved_bits = bits;
    }
    if (moved) {
      const size_t i = *moved;
      const std::string at = "constant_segment.offsets[" + std::to_string(i) + "]";
      sink_.error(finding::kConstantOffsetMoved,
                  at + " = " + std::to_string(sub.offsets[i]) + " is not a multiple of " + std::to_string(alignment) +
                      ", the least tensor alignment the " + std::to_string(widest) + " padding bytes after constant " +
                      std::to_string(widest_at) + " imply (writers align every offset and pad less than the "
                      "alignment): the offset was moved, and the runtime would silently hand constant " +
                      std::to_string(i) + " other bytes",
                  sub.segment_start ? checked_add(*sub.segment_start, sub.offsets[i]) : std::nullopt, at);
    }
  }

  // Writers put each tensor at its offset and pad with zeros up to the next
  // one, so non-zero bytes after a tensor's data mean an offset was moved
  // (or the slice belongs to a tensor of another size): the runtime would
  // silently hand a tensor other bytes.
  ETPACK_COLD void slice_padding(const Subsegment& sub, const char* what, const std::string& owner) {
    if (!sub.usable || !sub.sorted || !sub.segment_start) return;
    for (const auto& [index, nbytes] : sub.used) {
      const uint64_t start = sub.offsets[index] + nbytes;  // checked in bounds by check_slice
      const uint64_t end = slice_end(sub, static_cast<size_t>(index));
      if (end <= start || (!sub.size_known && end == sub.segment_size)) continue;  // no known end: nothing to say
      zero_spans_.push_back({*sub.segment_start + start, *sub.segment_start + end,
                             "the " + std::to_string(end - start) + " bytes after " + what + " " + std::to_string(index) +
                                 "'s data in " + owner + "'s segment",
                             owner + ".offsets[" + std::to_string(index) + "]"});
    }
  }

  // Tensor bytes [offset, offset + nbytes) of slice `index` in `sub`.
  ETPACK_COLD void check_slice(Subsegment& sub, uint64_t index, uint64_t nbytes, const char* what, const std::string& path,
                   const std::string& owner) {
    if (!sub.usable) return;
    if (index >= sub.offsets.size()) {
      sink_.error(finding::kTensorDataIndexOutOfRange,
                  path + " uses " + what + " " + std::to_string(index) + ", but " + owner + " has " +
                      std::to_string(sub.offsets.size()) + " offsets",
                  std::nullopt, path);
      return;
    }
    uint64_t offset = sub.offsets[index];
    std::optional<uint64_t> at = sub.segment_start ? checked_add(*sub.segment_start, offset) : std::nullopt;
    if (!range_within(offset, nbytes, sub.segment_size)) {
      sink_.error(finding::kTensorDataOutOfBounds,
                  path + " needs " + std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) + " of " +
                      owner + "'s segment, which has " + std::to_string(sub.segment_size),
                  at, path);
    } else if (sub.sorted && offset + nbytes > slice_end(sub, static_cast<size_t>(index))) {
      sink_.error(finding::kTensorDataOverlapsNext,
                  path + " needs " + std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) + " of " +
                      owner + "'s segment, but the next slice starts at " +
                      std::to_string(slice_end(sub, static_cast<size_t>(index))),
                  at, path);
    } else {
      uint64_t& most = sub.used[index];
      most = std::max(most, nbytes);
    }
  }

  void check_tensor(size_t p, size_t v, const TableValue& table) {
    TensorView t = view_tensor(table, file_);
    // Well-formed planned or run-time tensors (most of a model): nothing more to check, no path built.
    const bool data_free = t.data == TensorData::kPlanned || t.data == TensorData::kNone;
    if (!data_free || t.storage_offset != 0 || !shape_problems(t).empty()) tensor_findings(p, v, t);
  }
  ETPACK_COLD void tensor_findings(size_t p, size_t v, const TensorView& t) {
    const std::string path = value_path(p, v);
    bool shape_ok = check_tensor_shape(t, path);
    if (t.storage_offset != 0)
      sink_.error(finding::kTensorStorageOffset,
                  path + " has storage_offset " + std::to_string(t.storage_offset) + "; the runtime supports only 0",
                  t.sizes_offset, path + ".val.storage_offset");
    std::optional<uint64_t> nbytes = view_nbytes(t);
    if (!shape_ok || !nbytes) return;
    if (t.data == TensorData::kConstant) {
      const Value& cb = program_.get("constant_buffer");
      // As the runtime decides: more than the placeholder offset means the
      // constants live in the segment (checked only when it is usable).
      if (constant_offsets_ > 1) {
        check_slice(constants_, t.data_buffer_idx, *nbytes, "constant", path, "constant_segment");
      } else if (!cb.is_items() || t.data_buffer_idx >= cb.items().size()) {
        sink_.error(finding::kTensorDataIndexOutOfRange,
                    path + " uses constant " + std::to_string(t.data_buffer_idx) + ", but the program has " +
                        std::to_string(cb.is_items() ? cb.items().size() : 0) +
                        " constant_buffer entries and no constant segment",
                    t.sizes_offset, path + ".val.data_buffer_idx");
      } else {
        const Value& storage = cb.items()[t.data_buffer_idx].table().get("storage");
        uint64_t have = storage.is_scalars() ? storage.scalars().size() : 0;
        if (have != *nbytes)
          sink_.error(finding::kConstantBufferSizeMismatch,
                      path + " needs " + std::to_string(*nbytes) + " bytes, but constant_buffer[" +
                          std::to_string(t.data_buffer_idx) + "] holds " + std::to_string(have),
                      storage.is_scalars() ? offset_in_file(storage.scalars(), file_) : std::nullopt, path);
      }
    } else if (t.data == TensorData::kMutable) {
      if (!program_.get("mutable_data_segments").is_items() || program_.get("mutable_data_segments").items().empty()) {
        sink_.error(finding::kMutableDataMissing,
                    path + " has initial data " + std::to_string(t.data_buffer_idx) +
                        " (allocation_info and data_buffer_idx > 0), but the program has no mutable_data_segments",
                    t.sizes_offset, path);
      } else {
        check_slice(mutable_, t.data_buffer_idx, *nbytes, "mutable data", path, "mutable_data_segments[0]");
      }
    } else if ((t.data == TensorData::kExternalConstant || t.data == TensorData::kExternalMutable) && !t.fqn) {
      sink_.error(finding::kExternalTensorNoName, path + " is EXTERNAL but has no fully_qualified_name", t.sizes_offset,
                  path + ".val.extra_tensor_info");
    }
  }

  ETPACK_COLD bool check_tensor_shape(const TensorView& t, const std::string& path) {
    std::vector<ShapeProblem> problems = shape_problems(t);
    for (const ShapeProblem& p : problems) {
      const char* code = p.kind == ShapeProblem::kScalarType ? finding::kTensorScalarTypeInvalid
                         : p.kind == ShapeProblem::kSizes    ? finding::kTensorSizesInvalid
                                                             : finding::kTensorDimOrderInvalid;
      sink_.error(code, path + " " + p.message, t.sizes_offset, path);
    }
    return problems.empty();
  }

  FindingSink& sink_;
  BudgetGate gate_;  // shared with check_method_indices, so the limit is reported once
  const Blob& file_;
  const TableValue& program_;
  const std::vector<SegmentCheck>& segments_;
  std::vector<bool> referenced_;
  std::vector<ZeroSpan>& zero_spans_;
  const PteReads* reads_;
  Subsegment constants_, mutable_;
  size_t constant_offsets_ = 0;
};

}  // namespace

ETPACK_OUT_OF_LINE void check_program(FindingSink& sink, WorkBudget& budget, const Blob& file, const PteFile& pte,
                                      const std::vector<SegmentCheck>& segments, std::vector<ZeroSpan>& zero_spans, const PteReads* reads) {
  ProgramChecker(sink, budget, file, pte, segments, zero_spans, reads).run();
}

}  // namespace etpack
