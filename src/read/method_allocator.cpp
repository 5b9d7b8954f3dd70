#include "read/method_allocator.h"

#include <array>
#include <optional>
#include <string_view>

#include "core/checked_math.h"
#include "read/program_tensors.h"

namespace etpack {
namespace {

// One request kind of load_method, in the runtime's own terms.
enum Request : uint8_t {
  kValue,              // EValue, one per value
  kInputFlag,          // bool, one per input (none when there are no inputs)
  kExternalConstant,   // NamedData, one per EXTERNAL constant tensor
  kValuePointer,       // EValue*, per item of an IntList / TensorList / OptionalTensorList, per call argument
  kInt64,              // int64_t, per IntList item (the unboxed copy)
  kBoxedList,          // BoxedEvalueList<T>, one per IntList / TensorList / OptionalTensorList
  kArrayRef,           // ArrayRef<bool|double|char>, one per BoolList / DoubleList / String
  kSize,               // SizesType, per dim of a tensor whose shape is not static
  kDimOrder,           // DimOrderType, per dim (dynamic shape copy; kernel metadata without temp allocator)
  kStride,             // StridesType, per dim of every tensor
  kTensorImpl,         // TensorImpl, one per tensor
  kTensorRef,          // Tensor (a TensorImpl*), per TensorList item
  kOptionalTensor,     // std::optional<Tensor>, per OptionalTensorList item
  kBackendDelegate,    // BackendDelegate, one per delegate
  kCompileSpec,        // CompileSpec, per compile spec of a delegate
  kChain,              // Chain, one per chain
  kKernelPointer,      // OpFunction, per instruction
  kInstructionArgs,    // InstructionArgs (Span<EValue*>), per instruction
  kFallbackAllocator,  // PlatformMemoryAllocator, when no temp allocator is given
  kTensorMeta,         // TensorMeta, per kernel-call argument when no temp allocator is given
  kMergedDataMap,      // internal::MergedDataMap, when an external data map meets the .pte's own
  kRequestCount
};

struct Rule {
  uint32_t size;
  uint32_t align;
};

// THE table: bytes and alignment of each request on each architecture
// (64-bit: x86_64 / aarch64; arm32: ARM 32-bit and Cortex-M, where types
// holding an int64 or a double align to 8). Measured by bisection on the
// runtime of kMethodAllocatorRuntime; a new runtime release is a change here.
constexpr std::array<std::array<Rule, kRequestCount>, 2> kRules = {{
    // 64-bit
    {{{16, 8}, {1, 1}, {48, 8}, {8, 8}, {8, 8}, {24, 8}, {16, 8}, {4, 4}, {1, 1}, {4, 4},
      {64, 8}, {8, 8}, {16, 8}, {56, 8}, {24, 8}, {32, 8}, {8, 8}, {16, 8}, {48, 8}, {24, 8}, {24, 8}}},
    // arm32
    {{{16, 8}, {1, 1}, {40, 8}, {4, 4}, {8, 8}, {12, 4}, {8, 4}, {4, 4}, {1, 1}, {4, 4},
      {32, 4}, {4, 4}, {8, 4}, {40, 8}, {12, 4}, {16, 4}, {4, 4}, {8, 4}, {28, 4}, {12, 4}, {12, 4}}},
}};

// A bump allocator's cursor from a 64-byte-aligned base, for both
// architectures, with and without a temp allocator at once (one walk over
// the method gives all four figures): each request is aligned against the
// address, then advances by its bytes.
class Replay {
 public:
  // `only_without_temp`: a request the runtime makes only when no (or too
  // small a) temp allocator is given.
  void list(Request r, uint64_t count, bool only_without_temp = false) {
    for (size_t arch = 0; arch < 2; ++arch) {
      const Rule rule = kRules[arch][r];
      for (size_t temp = only_without_temp ? 1 : 0; temp < 2; ++temp) {
        uint64_t& cursor = figures_.bytes[arch][temp];
        if (cursor == UINT64_MAX) continue;  // saturated: counts no real file has
        const uint64_t padding = (rule.align - cursor % rule.align) % rule.align;
        std::optional<uint64_t> bytes = checked_mul(count, uint64_t{rule.size});
        std::optional<uint64_t> end = bytes ? checked_add(cursor, padding) : std::nullopt;
        end = end ? checked_add(*end, *bytes) : std::nullopt;
        cursor = end.value_or(UINT64_MAX);
      }
    }
  }
  void one(Request r, bool only_without_temp = false) { list(r, 1, only_without_temp); }
  const MethodAllocatorFigures& figures() const { return figures_; }

 private:
  MethodAllocatorFigures figures_;
};

size_t items_of(const Value& v) { return v.is_items() ? v.items().size() : 0; }

const TableValue* val_of(const Value& values, int64_t index) {
  if (!values.is_items() || index < 0 || static_cast<uint64_t>(index) >= values.items().size()) return nullptr;
  const Value& val = values.items()[static_cast<size_t>(index)].table().get("val");
  return val.is_table() ? &val.table() : nullptr;
}

size_t dims_of(const TableValue& tensor) { return scalar_vector_length(tensor.get("sizes"), BaseType::kInt); }

}  // namespace

MethodAllocatorFigures method_allocator_figures(const TableValue& plan, bool data_map) {
  Replay r;
  // Method::load: the fallback temp allocator comes first.
  r.one(kFallbackAllocator, true);
  // parse_values: the values, the input flags, the external constants.
  const Value& values = plan.get("values");
  const size_t n_values = items_of(values);
  r.list(kValue, n_values);
  const size_t n_inputs = scalar_vector_length(plan.get("inputs"), BaseType::kInt);
  if (n_inputs > 0) r.list(kInputFlag, n_inputs);
  uint64_t external = 0;
  for (size_t i = 0; i < n_values; ++i) {
    const TableValue* val = val_of(values, static_cast<int64_t>(i));
    // method.cpp's get_num_external_constants: EXTERNAL and not memory-planned.
    if (val != nullptr && std::string_view(val->def->name) == "Tensor" && tensor_data(*val) == TensorData::kExternalConstant) ++external;
  }
  if (external > 0) r.list(kExternalConstant, external);
  // Then each value in order.
  for (size_t i = 0; i < n_values; ++i) {
    const TableValue* val = val_of(values, static_cast<int64_t>(i));
    if (val == nullptr) continue;
    const std::string_view type = val->def->name;  // compared inline (std::string == char* calls strlen)
    if (type == "IntList") {
      const size_t n = scalar_vector_length(val->get("items"), BaseType::kLong);
      r.list(kValuePointer, n);
      r.list(kInt64, n);
      r.one(kBoxedList);
    } else if (type == "BoolList" || type == "DoubleList" || type == "String") {
      r.one(kArrayRef);
    } else if (type == "Tensor") {
      const size_t dims = dims_of(*val);
      if (!val->is("shape_dynamism", TensorShapeDynamism::STATIC)) {
        r.list(kSize, dims);
        r.list(kDimOrder, dims);
      }
      r.list(kStride, dims);
      r.one(kTensorImpl);
    } else if (type == "TensorList") {
      const size_t n = scalar_vector_length(val->get("items"), BaseType::kInt);
      r.list(kTensorRef, n);
      r.list(kValuePointer, n);
      r.one(kBoxedList);
    } else if (type == "OptionalTensorList") {
      const size_t n = scalar_vector_length(val->get("items"), BaseType::kInt);
      r.list(kValuePointer, n);
      r.list(kOptionalTensor, n);
      r.one(kBoxedList);
    }
  }
  // The delegates, the merged data map (when one is made), then each
  // delegate's compile specs (BackendDelegate::Init).
  const Value& delegates = plan.get("delegates");
  r.list(kBackendDelegate, items_of(delegates));
  if (data_map) r.one(kMergedDataMap);
  for (size_t d = 0; d < items_of(delegates); ++d) r.list(kCompileSpec, items_of(delegates.items()[d].table().get("compile_specs")));
  // The chains; per chain its kernels and argument lists; per call its
  // argument pointers (and, without a temp allocator, each kernel call's
  // TensorMeta and every tensor argument's dim order).
  const Value& chains = plan.get("chains");
  r.list(kChain, items_of(chains));
  for (size_t c = 0; c < items_of(chains); ++c) {
    const Value& instructions = chains.items()[c].table().get("instructions");
    const size_t n = items_of(instructions);
    r.list(kKernelPointer, n);
    r.list(kInstructionArgs, n);
    for (size_t i = 0; i < n; ++i) {
      const Value& args = instructions.items()[i].table().get("instr_args");
      if (!args.is_table()) continue;
      const std::string_view kind = args.table().def->name;
      const bool kernel = kind == "KernelCall";
      if (!kernel && kind != "DelegateCall") continue;
      const Value& arg_list = args.table().get("args");
      const size_t n_args = scalar_vector_length(arg_list, BaseType::kInt);
      r.list(kValuePointer, n_args);
      if (!kernel) continue;
      r.list(kTensorMeta, n_args, true);
      for (size_t a = 0; a < n_args; ++a) {
        const TableValue* arg = val_of(values, scalar_vector_int(arg_list, BaseType::kInt, a));
        if (arg != nullptr && std::string_view(arg->def->name) == "Tensor") r.list(kDimOrder, dims_of(*arg), true);
      }
    }
  }
  return r.figures();
}

uint64_t method_allocator_bytes(const TableValue& plan, AllocatorArch arch, bool with_temp_allocator, bool data_map) {
  return method_allocator_figures(plan, data_map).get(arch, with_temp_allocator);
}

bool method_allocator_merges_data_map(const TableValue& program, size_t data_files) {
  return data_files > 0 && !program.get("named_data").absent();
}

Json method_allocator_json(const MethodAllocatorFigures& figures, bool with_runtime) {
  Json out = Json::object();
  const std::pair<const char*, AllocatorArch> arches[] = {{"64-bit", AllocatorArch::k64Bit}, {"arm32", AllocatorArch::kArm32}};
  for (const auto& [name, arch] : arches) {
    Json j = Json::object();
    j.set("withTempAllocator", Json::unsigned_integer(figures.get(arch, true)));
    j.set("withoutTempAllocator", Json::unsigned_integer(figures.get(arch, false)));
    out.set(name, std::move(j));
  }
  if (with_runtime) out.set("runtime", Json::string(kMethodAllocatorRuntime));
  return out;
}

MethodAllocatorFigures method_allocator_total(const std::vector<MethodAllocatorFigures>& methods) {
  MethodAllocatorFigures total;
  for (size_t m = 0; m < methods.size(); ++m)
    for (size_t arch = 0; arch < 2; ++arch)
      for (size_t temp = 0; temp < 2; ++temp) {
        uint64_t bytes = methods[m].bytes[arch][temp];
        if (m + 1 < methods.size()) {
          const std::optional<uint64_t> up = checked_add(bytes, uint64_t{7});
          bytes = up ? *up / 8 * 8 : UINT64_MAX;  // saturated stays saturated
        }
        uint64_t& sum = total.bytes[arch][temp];
        sum = checked_add(sum, bytes).value_or(UINT64_MAX);
      }
  return total;
}

}  // namespace etpack
