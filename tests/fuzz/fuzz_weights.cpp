// libFuzzer target for the weights matcher and its helpers
// (src/ops/weights_match.h, weights_layout.h, diff_ranges.h, core/glob.h):
// program and checkpoint tensors built from the input. Promises checked:
// every assignment fits (same scalar type and shape as every tensor it
// fills, one dim order per .ptd name); export never chooses two layouts
// under one name; permuting to row-major and back restores the bytes; a
// range plan's digests equal the ranges' own SHA-256; glob terminates
// quickly (the fuzzer's timeout catches a blow-up).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "core/glob.h"
#include "core/sha256.h"
#include "model/scalar_type.h"
#include "ops/diff_ranges.h"
#include "ops/weights_layout.h"
#include "ops/weights_match.h"

namespace {

using namespace etpack;

void broken(const char* what) {
  std::fprintf(stderr, "broken promise: %s\n", what);
  __builtin_trap();
}

const char* const kNames[] = {"a", "b", "c", "layers.0.w", "\xED\xA0\x80"};
const char* const kDtypes[] = {"F32", "F16", "BF16", "U8", "I64", "BOOL", "F4", "C64"};

std::vector<int64_t> sizes_of(FuzzedDataProvider& in) {
  std::vector<int64_t> s(in.ConsumeIntegralInRange<size_t>(0, 4));
  for (auto& d : s) d = in.ConsumeIntegralInRange<int64_t>(-1, 4);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<NamedTensor> program(in.ConsumeIntegralInRange<size_t>(0, 12));
  for (size_t i = 0; i < program.size(); ++i) {
    NamedTensor& t = program[i];
    t.has_name = in.ConsumeBool();
    t.name = kNames[in.ConsumeIntegralInRange<size_t>(0, 4)];
    t.path = "values[" + std::to_string(i) + "]";
    t.scalar_type = in.ConsumeIntegralInRange<int64_t>(-1, 31);
    t.sizes = sizes_of(in);
    t.dim_order.resize(t.sizes.size());
    std::iota(t.dim_order.begin(), t.dim_order.end(), 0);
    if (in.ConsumeBool() && t.dim_order.size() > 1) std::swap(t.dim_order[0], t.dim_order[in.ConsumeIntegralInRange<size_t>(1, t.dim_order.size() - 1)]);
    if (in.ConsumeBool() && !t.dim_order.empty()) t.dim_order[0] = in.ConsumeIntegral<uint8_t>();
    t.external = in.ConsumeBool();
    t.data_buffer_idx = in.ConsumeIntegralInRange<uint64_t>(0, 3);
  }
  std::vector<CheckpointFile> files(in.ConsumeIntegralInRange<size_t>(1, 2));
  for (size_t f = 0; f < files.size(); ++f) {
    files[f].file = "f" + std::to_string(f);
    files[f].header.tensors.resize(in.ConsumeIntegralInRange<size_t>(0, 6));
    for (SafetensorsTensor& t : files[f].header.tensors) {
      t.name = kNames[in.ConsumeIntegralInRange<size_t>(0, 4)];
      t.dtype = kDtypes[in.ConsumeIntegralInRange<size_t>(0, 7)];
      t.scalar_type = safetensors_dtype_scalar(t.dtype);
      for (int64_t d : sizes_of(in)) t.shape.push_back(static_cast<uint64_t>(d < 0 ? 0 : d));
    }
  }
  std::vector<std::pair<std::string, std::string>> rename;
  if (in.ConsumeBool()) rename.emplace_back("layers.", "");
  auto checkpoints = collect_checkpoints(std::move(files), rename);
  if (checkpoints.ok()) {
    for (WeightsTarget target : {WeightsTarget::kExternal, WeightsTarget::kConstant}) {
      const WeightsPlan plan = match_weights(program, *checkpoints, target);
      if (!plan.problems.empty()) continue;
      for (const WeightsAssignment& a : plan.assigned) {
        const SafetensorsTensor& c = checkpoints->at(a.checkpoint);
        const NamedTensor& t = program[a.tensor];
        if (!c.scalar_type || *c.scalar_type != t.scalar_type || c.shape.size() != t.sizes.size()) broken("an assignment that does not fit");
        for (size_t k = 0; k < c.shape.size(); ++k)
          if (t.sizes[k] < 0 || c.shape[k] != static_cast<uint64_t>(t.sizes[k])) broken("an assignment of another shape");
        for (const NamedTensor& other : program)
          if (target == WeightsTarget::kExternal && other.external && other.has_name && other.name == t.name && !other.same_layout(t))
            broken("one .ptd name given to two layouts");
      }
    }
  }
  std::vector<ExportCandidate> candidates;
  for (const NamedTensor& t : program) candidates.push_back({t, in.ConsumeBool() ? std::optional<uint64_t>(in.ConsumeIntegralInRange<uint64_t>(0, 64)) : std::nullopt, "x"});
  if (auto plan = plan_export(candidates, {}); plan.ok()) {
    for (size_t i : plan->chosen)
      for (size_t j : plan->chosen)
        if (i != j && candidates[i].tensor.name == candidates[j].tensor.name) broken("export wrote one name twice");
  }
  for (const NamedTensor& t : program) {
    auto nbytes = t.nbytes();
    auto element = scalar_type_size(t.scalar_type);
    if (!nbytes || !element || *nbytes > 4096) continue;
    std::vector<uint8_t> src(*nbytes), row(*nbytes), back(*nbytes);
    for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<uint8_t>(k * 31 + 7);
    if (!permute_tensor(src.data(), row.data(), src.size(), t.sizes, t.dim_order, *element, PermuteDirection::kToRowMajor).ok()) continue;
    if (!permute_tensor(row.data(), back.data(), row.size(), t.sizes, t.dim_order, *element, PermuteDirection::kFromRowMajor).ok() || back != src)
      broken("permutation is not undone by its inverse");
  }
  std::vector<ByteRange> ranges(in.ConsumeIntegralInRange<size_t>(0, 8));
  for (ByteRange& r : ranges) r = {in.ConsumeIntegralInRange<uint64_t>(0, 70), in.ConsumeIntegralInRange<uint64_t>(0, 70)};
  std::vector<uint8_t> file(64);
  std::iota(file.begin(), file.end(), 1);
  if (auto plan = plan_range_hashes(ranges, file.size()); plan.ok()) {
    auto digests = hash_ranges(*plan, file.data(), file.size());
    for (size_t i = 0; i < ranges.size(); ++i)
      if (digests[plan->range_of[i]] != sha256_hex(file.data() + ranges[i].offset, static_cast<size_t>(ranges[i].length))) broken("a range digest is wrong");
  }
  const std::string pattern = in.ConsumeRandomLengthString(64);
  const std::string text = in.ConsumeRemainingBytesAsString();
  (void)glob_match(pattern, text);
  return 0;
}
