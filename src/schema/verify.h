// The one verification entry: flatc's generated verifier (what the runtime
// itself runs on a program) over a buffer of one of our schemas, with the
// depth and table-count limits named per root. Every flatbuffers::Verifier
// of the tree is constructed in verify.cpp (and verify_files.cpp for .ptd
// and .bpte); readers decode with their own bounded decoder and then ask
// this whether the bytes verify.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etpack {

// The root tables a buffer is verified as: the three file schemas.
enum class VerifiedRoot : uint8_t { kProgram, kFlatTensor, kBundledProgram };

// flatbuffers::Verifier's two limits: nesting depth and tables visited (a
// DAG that reaches one table from many places counts it each time).
struct VerifyLimits {
  uint32_t max_depth;
  uint32_t max_tables;
};

// A Program nests deeper than flatbuffers' default of 64 (values inside
// lists inside chains); its table count scales with the methods' values
// and instructions: 100M bounds the work of a hostile DAG, never a real file.
constexpr VerifyLimits kProgramVerifyLimits{128, 100000000};
// A FlatTensor is flat (root, segments, named data, layouts): depth 64 is
// flatbuffers' default; 10M tables is 3M named entries and more.
constexpr VerifyLimits kFlatTensorVerifyLimits{64, 10000000};
// A BundledProgram holds its program as bytes, so its depth is small; its
// tables grow with the test cases' inputs and outputs.
constexpr VerifyLimits kBundledProgramVerifyLimits{64, 100000000};
// The Program limits with the table count bounded by the buffer's `size`
// (a table takes at least 4 bytes, plus an allowance): the readers' first,
// cheap try, which a DAG reaching one table from many places fails (they
// then decode the whole file, whose memory budget refuses such a DAG).
constexpr VerifyLimits program_verify_limits_for_size(uint64_t size) {
  return {kProgramVerifyLimits.max_depth, static_cast<uint32_t>(size / 4 + 1024)};
}

// The named limits of `root`.
VerifyLimits verify_limits(VerifiedRoot root);

// Whether `size` bytes at `data` are a `root` buffer (with its file
// identifier) that passes flatc's verifier
// within `limits`. `data` must be aligned to alignof(std::max_align_t)
// (read/aligned_bytes.h makes an aligned view): the verifier reads through
// typed pointers. Reads only [data, data + size); allocates nothing.
bool flatbuffer_verifies(VerifiedRoot root, const uint8_t* data, size_t size, VerifyLimits limits);
inline bool flatbuffer_verifies(VerifiedRoot root, const uint8_t* data, size_t size) {
  return flatbuffer_verifies(root, data, size, verify_limits(root));
}

}  // namespace etpack
