#include "read/validate_header_sizes.h"

#include "format/headers.h"
#include "read/aligned_bytes.h"
#include "schema/verify.h"

namespace etpack {

bool flatbuffer_verifies(const Blob& head, uint64_t size, bool ptd) {
  if (size > head.size() || size < kHeaderOffset) return false;
  // One aligned copy of the flatbuffer metadata when the head is not aligned.
  AlignedBytes aligned(head.data(), static_cast<size_t>(size));
  return flatbuffer_verifies(ptd ? VerifiedRoot::kFlatTensor : VerifiedRoot::kProgram, aligned.data(), aligned.size());
}

std::optional<uint64_t> flatbuffer_end_before_base(const Blob& head, uint64_t claimed_end, uint64_t base,
                                                   uint64_t min_base, bool ptd) {
  if (base == 0 || base >= claimed_end || base < min_base || base % kRaisedSizeBaseAlignment != 0) return std::nullopt;
  if (!flatbuffer_verifies(head, base, ptd)) return std::nullopt;
  return base;
}

}  // namespace etpack
