#include "schema/verify_files.h"

#include "bundled_program_generated.h"
#include "flat_tensor_generated.h"

namespace etpack {

bool data_file_verifies(VerifiedRoot root, const uint8_t* data, size_t size, VerifyLimits limits) {
  flatbuffers::Verifier verifier(data, size, limits.max_depth, limits.max_tables);
  switch (root) {
    case VerifiedRoot::kFlatTensor: return flat_tensor_flatbuffer::VerifyFlatTensorBuffer(verifier);
    case VerifiedRoot::kBundledProgram: return bundled_program_flatbuffer::VerifyBundledProgramBuffer(verifier);
    case VerifiedRoot::kProgram: break;
  }
  return false;
}

}  // namespace etpack
