#include "read/verified_decode.h"

#include <string>

#include "read/aligned_bytes.h"
#include "read/fb_decoder.h"

namespace etpack {

bool flatbuffer_verifies_aligned(VerifiedRoot root, const Blob& bytes) {
  AlignedBytes aligned(bytes.data(), static_cast<size_t>(bytes.size()));
  return flatbuffer_verifies(root, aligned.data(), aligned.size());
}

namespace {

Status verify(const Blob& flatbuffer, const char* what, VerifiedRoot root) {
  if (!flatbuffer_verifies_aligned(root, flatbuffer))
    return make_error(ErrorCode::kMalformedFile, std::string("the ") + what + " flatbuffer (bytes 0.." +
                                                     std::to_string(flatbuffer.size()) +
                                                     ") fails flatbuffers verification (at byte offset 0)");
  return {};
}

Result<TableValue> decode_verified(const Blob& flatbuffer, const TableDef& root, const char* what, VerifiedRoot kind) {
  ETP_ASSIGN(TableValue tree, decode_flatbuffer(flatbuffer, root));
  ETP_TRY(verify(flatbuffer, what, kind));
  return tree;
}

}  // namespace

Result<TableValue> decode_verified_program(const Blob& flatbuffer) {
  return decode_verified(flatbuffer, *program_schema().root, "Program", VerifiedRoot::kProgram);
}

Result<TableValue> decode_verified_flat_tensor(const Blob& flatbuffer) {
  return decode_verified(flatbuffer, *flat_tensor_schema().root, "FlatTensor", VerifiedRoot::kFlatTensor);
}

Status verify_flat_tensor(const Blob& flatbuffer) { return verify(flatbuffer, "FlatTensor", VerifiedRoot::kFlatTensor); }

}  // namespace etpack
