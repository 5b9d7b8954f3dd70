#include "schema/verify.h"

#include "bundled_program_generated.h"
#include "flat_tensor_generated.h"
#include "program_generated.h"

namespace etpack {

VerifyLimits verify_limits(VerifiedRoot root) {
  switch (root) {
    case VerifiedRoot::kProgram: return kProgramVerifyLimits;
    case VerifiedRoot::kFlatTensor: return kFlatTensorVerifyLimits;
    case VerifiedRoot::kBundledProgram: return kBundledProgramVerifyLimits;
  }
  return kProgramVerifyLimits;
}

bool flatbuffer_verifies(VerifiedRoot root, const uint8_t* data, size_t size, VerifyLimits limits) {
  flatbuffers::Verifier verifier(data, size, limits.max_depth, limits.max_tables);
  switch (root) {
    case VerifiedRoot::kProgram: return executorch_flatbuffer::VerifyProgramBuffer(verifier);
    case VerifiedRoot::kFlatTensor: return flat_tensor_flatbuffer::VerifyFlatTensorBuffer(verifier);
    case VerifiedRoot::kBundledProgram: return bundled_program_flatbuffer::VerifyBundledProgramBuffer(verifier);
  }
  return false;
}

}  // namespace etpack
