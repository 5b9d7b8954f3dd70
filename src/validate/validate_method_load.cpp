// What load_method refuses once Program::load has passed, as facts from
// upstream (pytorch/executorch at cff6f4dd): runtime/executor/method.cpp
// (get_num_external_constants, parse_values), tensor_parser_portable.cpp
// (parseTensor), tensor_parser_exec_aten.cpp (getMemPlannedPtr,
// parseTensorList), tensor_parser.h (parseListOptionalType),
// runtime/core/hierarchical_allocator.h (get_offset_address),
// method_meta.cpp (memory_planned_buffer_size), program.cpp (LoadSegment)
// and core/exec_aten/util/dim_order_util.h (dim_order_to_stride).
// The runtime stops at the first of these; we report every one, each with
// the runtime error it prevents.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/checked_math.h"
#include "model/scalar_type.h"
#include "program_generated.h"
#include "format/headers.h"
#include "read/aligned_bytes.h"
#include "read/method_allocator.h"
#include "validate/validate_internal.h"

namespace etpack {
namespace {

// Where a value is (execution_plan[p].values[v].val), as text only when a
// finding is made: building it for every value of a large method cost more
// than the checks themselves (validate of 20,000 values ~1.5x slower).
struct ValueAt {
  size_t p, v;
  std::string str() const { return value_path(p, v) + ".val"; }
};
std::string operator+(const ValueAt& at, const char* rest) { return at.str() + rest; }

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

class MethodLoad {
 public:
  MethodLoad(FindingSink& sink, WorkBudget& budget, const Blob& head, const PteFile& pte)
      : sink_(sink),
        gate_(sink, budget,
              "the program's vectors are shared so often that checking them all would cost too much; method load "
              "checks stopped"),
        head_(head), pte_(pte) {}

  void run() {
    const Value& plans = pte_.program.get("execution_plan");
    if (!plans.is_items()) return;
    for (size_t p = 0; p < plans.items().size(); ++p)
      if (!method(p, plans.items()[p].table())) return;
    delegates_need_segments();
  }

 private:
  ETPACK_COLD std::string refuses(const std::string& error, size_t p, const std::string& when) const {
    return "; the runtime refuses this: " + error + " when load_method('" + method_name_ + "') (execution_plan[" +
           std::to_string(p) + "]) " + when;
  }

  bool method(size_t p, const TableValue& plan) {
    method_name_ = plan.get("name").is_string() ? plan.get("name").str() : std::string();
    const std::string path = indexed_path("execution_plan", p);
    // MethodMeta::memory_planned_buffer_size: entries 1.. are the buffers a
    // loader allocates (entry 0 is reserved and never read).
    const Value& sizes = plan.get("non_const_buffer_sizes");
    buffer_sizes_.clear();
    const size_t buffers = scalar_vector_length(sizes, BaseType::kLong);
    if (!gate_.spend(buffers)) return false;
    buffer_sizes_.reserve(buffers);  // bounded: 8 bytes of the file per entry
    for (size_t i = 0; i < buffers; ++i) {
      const int64_t size = scalar_vector_int(sizes, BaseType::kLong, i);
      buffer_sizes_.push_back(size);
      if (i > 0 && size < 0)
        sink_.error(finding::kPlannedBufferSizeNegative,
                    path + ".non_const_buffer_sizes[" + std::to_string(i) + "] is " + std::to_string(size) +
                        ", a negative planned buffer size" + refuses("InvalidProgram", p, "asks for planned buffer " + std::to_string(i - 1)),
                    std::nullopt, path + ".non_const_buffer_sizes[" + std::to_string(i) + "]");
    }
    const Value& values = plan.get("values");
    if (!values.is_items()) return true;
    const size_t count = values.items().size();
    if (!gate_.spend(count)) return false;
    std::vector<size_t> without_val;
    for (size_t v = 0; v < count; ++v) {
      const Value& val = values.items()[v].table().get("val");
      if (!val.is_table()) {
        without_val.push_back(v);
        continue;
      }
      const TableValue& t = val.table();
      const std::string& kind = t.def->name;
      const ValueAt at{p, v};
      if (kind == "Tensor") {
        if (!clean(t)) tensor(p, v, t, at);
      } else if (kind == "IntList" || kind == "TensorList" || kind == "OptionalTensorList") {
        if (!list(p, v, values, kind, t.get("items"), at)) return false;
      }
    }
    null_values(p, without_val);
    return true;
  }

  // get_num_external_constants: every EValue but a Null one must hold its
  // value. The decoder drops the type of a union without a value, so the
  // type is read again from the verified flatbuffer (only for such values).
  ETPACK_COLD void null_values(size_t p, const std::vector<size_t>& without_val) {
    if (without_val.empty()) return;
    const uint64_t program_size = pte_.header ? pte_.header->program_size : head_.size();
    if (program_size > head_.size()) return;
    // At most one aligned copy of the flatbuffer metadata per file, made
    // only when the head is not aligned (the generated accessors read
    // scalars in place): never one per method.
    if (!aligned_) aligned_ = std::make_unique<AlignedBytes>(head_.data(), static_cast<size_t>(program_size));
    const auto* program = executorch_flatbuffer::GetProgram(aligned_->data());  // verified by decode_verified_program
    const auto* values = program->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(p))->values();
    for (size_t v : without_val) {
      const auto type = static_cast<uint8_t>(values->Get(static_cast<flatbuffers::uoffset_t>(v))->val_type());
      if (type == code(KernelTypes::Null)) continue;
      const std::string what = type == code(KernelTypes::NONE) ? "has no type and no value"
                               : type <= static_cast<uint8_t>(executorch_flatbuffer::KernelTypes_MAX)
                                   ? std::string("is a ") + executorch_flatbuffer::EnumNameKernelTypes(
                                                                static_cast<executorch_flatbuffer::KernelTypes>(type)) +
                                         " without its value"
                                   : "has the unknown KernelTypes value " + std::to_string(type) + " and no value";
      sink_.error(finding::kValueNull, value_path(p, v) + " " + what + refuses("InvalidProgram", p, "parses value " + std::to_string(v) + " (null value)"),
                  std::nullopt, value_path(p, v) + ".val");
    }
  }

  // The common case read in place, without a TensorView (two heap vectors
  // per tensor, and shape_problems' third: validate of 5,000 tensors paid
  // ~13% more for them): true only when none of tensor()'s findings can
  // apply, by the same rules in the same order. Every other tensor takes
  // the full path, which decides and words the finding.
  bool clean(const TableValue& table) const {
    if (table.is("shape_dynamism", TensorShapeDynamism::DYNAMIC_UNBOUND)) return false;
    const int64_t scalar_type = table.get_int("scalar_type");
    std::optional<uint64_t> nbytes = scalar_type_size(scalar_type);
    if (!nbytes || scalar_type_name(scalar_type) == nullptr) return false;
    const Value& sizes = table.get("sizes");
    const Value& dim_order = table.get("dim_order");
    if (!sizes.is_scalars() || !dim_order.is_scalars()) return false;
    const size_t rank = scalar_vector_length(sizes, BaseType::kInt);
    if (rank > kMaxTensorRank || scalar_vector_length(dim_order, BaseType::kUByte) != rank) return false;
    std::array<int64_t, kMaxTensorRank> size{};
    std::array<uint8_t, kMaxTensorRank> order{};
    uint32_t seen = 0;  // dim_order must be a permutation of 0..rank-1
    for (size_t i = 0; i < rank; ++i) {
      size[i] = scalar_vector_int(sizes, BaseType::kInt, i);
      if (size[i] < 0) return false;
      nbytes = checked_mul(*nbytes, static_cast<uint64_t>(size[i]));  // tensor_nbytes' order
      if (!nbytes) return false;
      const uint64_t d = scalar_vector_uint(dim_order, BaseType::kUByte, i);
      if (d >= rank || ((seen >> d) & 1u) != 0) return false;
      seen |= 1u << d;
      order[i] = static_cast<uint8_t>(d);
    }
    int64_t stride = 1;  // sizes_overflow
    for (size_t i = rank; i-- > 1;) {
      const int64_t s = size[order[i]];
      if (s == 0) continue;
      if (stride > kInt32Max / s) return false;
      stride *= s;
    }
    const Value& info = table.get("allocation_info");  // planned
    if (!info.is_table()) return true;
    const uint64_t id = info.table().get_uint("memory_id");
    const uint64_t offset = (info.table().get_uint("memory_offset_high") << 32) | info.table().get_uint("memory_offset_low");
    const std::optional<uint64_t> end = checked_add(offset, *nbytes);
    if (!end || id == 0 || id >= buffer_sizes_.size()) return false;
    const int64_t buffer = buffer_sizes_[id];
    return buffer < 0 || *end <= static_cast<uint64_t>(buffer);
  }

  ETPACK_COLD void tensor(size_t p, size_t v, const TableValue& table, const ValueAt& at) {
    TensorView t = view_tensor(table, head_);
    if (t.shape_dynamism == code(TensorShapeDynamism::DYNAMIC_UNBOUND))
      sink_.error(finding::kTensorDynamismUnsupported,
                  at + " has shape_dynamism DYNAMIC_UNBOUND" +
                      refuses("NotSupported", p, "parses value " + std::to_string(v) + " (fully dynamic shapes are not supported)"),
                  t.sizes_offset, at + ".shape_dynamism");
    if (!shape_problems(t).empty()) return;  // reported by check_program
    sizes_overflow(p, v, t, at);
    if (table.get("allocation_info").is_table()) planned(p, v, t, table.get("allocation_info").table(), at);
  }

  // dim_order_to_stride multiplies int32 strides by int32 sizes (a zero
  // size keeps the stride): a stride above INT32_MAX is signed overflow in
  // the runtime's tensor parser, undefined behaviour (a crash class).
  // TensorImpl's numel (a ssize_t product of the sizes) cannot overflow on
  // 64-bit hosts unless a stride does: it is at most the first dim's size
  // (< 2^31) times the first stride. (32-bit hosts' ssize_t overflows above
  // INT32_MAX elements; such tensors do not fit their memory anyway.)
  ETPACK_COLD void sizes_overflow(size_t p, size_t v, const TensorView& t, const ValueAt& at) {
    const size_t rank = t.sizes.size();
    std::string what;
    int64_t stride = 1;
    for (size_t i = rank; i-- > 1 && what.empty();) {
      const int64_t size = t.sizes[t.dim_order[i]];  // dim_order is a permutation: checked by shape_problems
      if (size == 0) continue;
      if (stride > kInt32Max / size)
        what = "the stride of dim " + std::to_string(t.dim_order[i - 1]) + " exceeds INT32_MAX (strides are int32)";
      stride *= size;
    }
    if (what.empty()) return;
    sink_.error(finding::kTensorSizesOverflow,
                at + " has sizes " + shape_text(t.sizes) + ": " + what +
                    "; the runtime hits signed overflow (undefined behaviour, a crash class) when load_method('" +
                    method_name_ + "') (execution_plan[" + std::to_string(p) + "]) parses value " + std::to_string(v),
                t.sizes_offset, at + ".sizes");
  }

  // getMemPlannedPtr + HierarchicalAllocator::get_offset_address: buffer
  // memory_id - 1 of those the loader allocates from non_const_buffer_sizes
  // [1..], and offset + nbytes within it (nbytes = numel x element size).
  ETPACK_COLD void planned(size_t p, size_t v, const TensorView& t, const TableValue& info, const ValueAt& at) {
    const uint64_t id = info.get_uint("memory_id");
    const uint64_t offset = (info.get_uint("memory_offset_high") << 32) | info.get_uint("memory_offset_low");
    auto when = [&] { return "plans value " + std::to_string(v); };  // built only for a finding
    const std::optional<uint64_t> nbytes = view_nbytes(t);
    if (!nbytes) return;
    const std::optional<uint64_t> end = checked_add(offset, *nbytes);
    if (!end) {
      sink_.error(finding::kPlannedTensorPastBuffer,
                  at + " is planned at offset " + std::to_string(offset) + " with " + std::to_string(*nbytes) +
                      " bytes, which overflows" + refuses("InvalidArgument", p, when()),
                  t.sizes_offset, at + ".allocation_info");
      return;
    }
    if (id == 0 || id >= buffer_sizes_.size()) {
      sink_.error(finding::kPlannedMemoryIdInvalid,
                  at + ".allocation_info.memory_id is " + std::to_string(id) + ", but the method has " +
                      std::to_string(buffer_sizes_.size() > 0 ? buffer_sizes_.size() - 1 : 0) +
                      " planned buffers (non_const_buffer_sizes[1.." + std::to_string(buffer_sizes_.size()) +
                      "), entry 0 being reserved" + refuses("InvalidArgument", p, when()),
                  t.sizes_offset, at + ".allocation_info.memory_id");
      return;
    }
    const int64_t size = buffer_sizes_[id];
    if (size < 0 || *end <= static_cast<uint64_t>(size)) return;  // a negative size is reported once per buffer
    sink_.error(finding::kPlannedTensorPastBuffer,
                at + " needs " + std::to_string(*nbytes) + " bytes at offset " + std::to_string(offset) +
                    " of planned buffer " + std::to_string(id) + ", which has " + std::to_string(size) +
                    " (non_const_buffer_sizes[" + std::to_string(id) + "])" + refuses("MemoryAllocationFailed", p, when()),
                t.sizes_offset, at + ".allocation_info");
  }

  // parse_values: IntList items must index the values (InvalidProgram);
  // TensorList items must be Tensor values, OptionalTensorList items -1 or
  // a Tensor or Null value (else InvalidType). Both lists read the item's
  // EValue as already parsed: an item at or after the list's own index is
  // still uninitialized memory when the runtime reads it.
  bool list(size_t p, size_t v, const Value& values, const std::string& kind, const Value& items,
            const ValueAt& at) {
    const size_t count = values.items().size();
    const size_t n = scalar_vector_length(items, kind == "IntList" ? BaseType::kLong : BaseType::kInt);  // IntList: [long]
    if (!gate_.spend(n)) return false;
    const char* code = kind == "IntList"      ? finding::kIntListItemInvalid
                       : kind == "TensorList" ? finding::kTensorListItemInvalid
                                              : finding::kOptionalTensorListItemInvalid;
    const bool int_list = kind == "IntList", optional = kind == "OptionalTensorList";
    for (size_t i = 0; i < n; ++i) {
      const int64_t index = scalar_vector_int(items, int_list ? BaseType::kLong : BaseType::kInt, i);
      if (optional && index == -1) continue;
      // Built only for a finding: lists may be long.
      auto here = [&] { return at + ".items[" + std::to_string(i) + "]"; };
      auto when = [&] { return "parses value " + std::to_string(v) + " (" + kind + ")"; };
      if (index < 0 || static_cast<uint64_t>(index) >= count) {
        sink_.error(code, here() + " is value " + std::to_string(index) + ", outside the method's " + std::to_string(count) +
                              " values" + refuses("InvalidProgram", p, when()),
                    std::nullopt, here());
        return true;  // one finding per list
      }
      if (int_list) continue;  // items are only pointed at while loading
      const Value& target = values.items()[static_cast<size_t>(index)].table().get("val");
      const std::string type = target.is_table() ? target.table().def->name : std::string("empty value");
      const bool fits = type == "Tensor" || (optional && type == "Null");
      if (!fits) {
        sink_.error(code, here() + " is value " + std::to_string(index) + ", a " + type + ", not a Tensor" +
                              (optional ? " or Null" : "") + refuses("InvalidType", p, when()),
                    std::nullopt, here());
        return true;
      }
      if (static_cast<uint64_t>(index) >= v) {
        sink_.error(code, here() + " is value " + std::to_string(index) + ", which the runtime has not parsed yet when it "
                              "parses the list (value " + std::to_string(v) + "): it reads an uninitialized value and "
                              "fails (InvalidType) or crashes",
                    std::nullopt, here());
        return true;
      }
    }
    return true;
  }

  // Program::LoadSegment: without a segment base (no eh00 header, or base
  // 0) every SEGMENT delegate fails with NotFound when its method loads.
  ETPACK_COLD void delegates_need_segments() {
    if (pte_.header && pte_.header->segment_base_offset != 0) return;
    for_each_segment_delegate(pte_.program, [&](size_t p, size_t d, const TableValue& delegate, uint64_t index) {
      const std::string path = indexed_path(indexed_path("execution_plan", p) + ".delegates", d);
      const std::string id = delegate.get("id").is_string() ? " (" + delegate.get("id").str() + ")" : "";
      sink_.error(finding::kDelegateSegmentWithoutSegments,
                  path + id + " has its data in segment " + std::to_string(index) + ", but the file has " +
                      (pte_.header ? "segment_base_offset 0 in its " + PteHeader::name() + " header" : "no " + PteHeader::name() + " header") +
                      ", so it has no segments; the runtime refuses this: NotFound when load_method initializes the delegate",
                  std::nullopt, path + ".processed.location");
    });
  }

  FindingSink& sink_;
  BudgetGate gate_;
  const Blob& head_;
  const PteFile& pte_;
  std::string method_name_;
  std::vector<int64_t> buffer_sizes_;
  std::unique_ptr<AlignedBytes> aligned_;  // the program flatbuffer, for null_values
};

}  // namespace

void check_method_load(FindingSink& sink, WorkBudget& budget, const Blob& head, const PteFile& pte) {
  MethodLoad(sink, budget, head, pte).run();
}

// Method::init takes each request from the method allocator in turn; the
// first that does not fit fails load_method with MemoryAllocationFailed,
// and a few unchecked ones (IntList, bool/double/string wrappers) write
// through a null pointer instead (../shared/RUNTIME.md).
ETPACK_COLD void check_method_allocator(FindingSink& sink, const PteFile& pte, const ValidateOptions& options, size_t data_files) {
  if (!options.method_allocator) return;
  const ValidateOptions::MethodAllocator& pool = *options.method_allocator;
  const bool merged = method_allocator_merges_data_map(pte.program, data_files);
  const char* arch = pool.arch == AllocatorArch::k64Bit ? "64-bit" : "arm32";
  const Value& plans = pte.program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    const TableValue& plan = plans.items()[p].table();
    const uint64_t need = method_allocator_bytes(plan, pool.arch, pool.temp_allocator, merged);
    if (need <= pool.bytes) continue;
    const std::string name = plan.get("name").is_string() ? plan.get("name").str() : std::string();
    const std::string path = indexed_path("execution_plan", p);
    sink.error(finding::kMethodAllocatorTooSmall,
               "load_method('" + name + "') (" + path + ") needs " + std::to_string(need) + " bytes of the method allocator on " +
                   arch + (pool.temp_allocator ? " with a temp allocator" : " without a temp allocator") +
                   (merged ? " and the .ptd files given" : "") + ", " + std::to_string(need - pool.bytes) +
                   " more than the " + std::to_string(pool.bytes) + " given; the runtime fails with MemoryAllocationFailed "
                   "or, where an allocation is unchecked, crashes (" + kMethodAllocatorRuntime + ", backends' init() not counted)",
               std::nullopt, path);
  }
}

}  // namespace etpack
