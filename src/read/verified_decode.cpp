#include "read/verified_decode.h"

#include <string>

#include "flat_tensor_generated.h"
#include "program_generated.h"
#include "read/aligned_bytes.h"
#include "read/fb_decoder.h"

namespace etpack {
namespace {

template <typename Verify>
Status verify(const Blob& flatbuffer, const char* what, size_t max_depth, size_t max_tables, Verify check) {
  AlignedBytes aligned(flatbuffer.data(), static_cast<size_t>(flatbuffer.size()));
  flatbuffers::Verifier verifier(aligned.data(), aligned.size(), static_cast<flatbuffers::uoffset_t>(max_depth),
                                 static_cast<flatbuffers::uoffset_t>(max_tables));
  if (!check(verifier))
    return make_error(ErrorCode::kMalformedFile, std::string("the ") + what + " flatbuffer (bytes 0.." +
                                                     std::to_string(flatbuffer.size()) +
                                                     ") fails flatbuffers verification (at byte offset 0)");
  return {};
}

template <typename Verify>
Result<TableValue> decode_verified(const Blob& flatbuffer, const TableDef& root, const char* what, size_t max_depth,
                                   size_t max_tables, Verify check) {
  ETP_ASSIGN(TableValue tree, decode_flatbuffer(flatbuffer, root));
  ETP_TRY(verify(flatbuffer, what, max_depth, max_tables, check));
  return tree;
}

const auto verify_flat_tensor_buffer = [](flatbuffers::Verifier& v) { return flat_tensor_flatbuffer::VerifyFlatTensorBuffer(v); };

}  // namespace

Result<TableValue> decode_verified_program(const Blob& flatbuffer) {
  return decode_verified(flatbuffer, *program_schema().root, "Program", 128, 100000000,
                         [](flatbuffers::Verifier& v) { return executorch_flatbuffer::VerifyProgramBuffer(v); });
}

Result<TableValue> decode_verified_flat_tensor(const Blob& flatbuffer) {
  return decode_verified(flatbuffer, *flat_tensor_schema().root, "FlatTensor", 64, 10000000, verify_flat_tensor_buffer);
}

Status verify_flat_tensor(const Blob& flatbuffer) {
  return verify(flatbuffer, "FlatTensor", 64, 10000000, verify_flat_tensor_buffer);
}

}  // namespace etpack
