#include "schema/verify.h"

#include "program_generated.h"
#include "schema/verify_files.h"

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
  if (root != VerifiedRoot::kProgram) return data_file_verifies(root, data, size, limits);
  flatbuffers::Verifier verifier(data, size, limits.max_depth, limits.max_tables);
  return executorch_flatbuffer::VerifyProgramBuffer(verifier);
}

}  // namespace etpack
