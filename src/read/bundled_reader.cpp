#include "read/bundled_reader.h"

#include <string>

#include "format/file_kinds.h"
#include "read/fb_decoder.h"
#include "read/verified_decode.h"

namespace etpack {

Result<BundledFile> read_bundled_program(const Blob& file) {
  if (file.is_external()) return make_error(ErrorCode::kInvalidArgument, "a bundled program is read from memory");
  ETP_TRY(check_identifier(FileKind::kBpte, file.data(), static_cast<size_t>(file.size()), file.size()));
  const Schema& schema = bundled_program_schema();
  if (schema.root == nullptr) return make_error(ErrorCode::kInternal, "the BundledProgram schema did not load");
  // The bounded decoder first: it names the offset of a bad field, and
  // charges the tree's memory against the file's size before allocating.
  ETP_ASSIGN(TableValue bundle, decode_flatbuffer(file, *schema.root));
  // Then the verifier the generated code provides (the runtime itself only
  // checks the identifier): tables, vectors and strings in bounds and
  // aligned. Read through an aligned view (a copy only when misaligned).
  if (!flatbuffer_verifies_aligned(VerifiedRoot::kBundledProgram, file))
    return make_error(ErrorCode::kMalformedFile, "the BundledProgram flatbuffer (bytes 0.." + std::to_string(file.size()) +
                                                     ") fails flatbuffers verification (at byte offset 0)");
  BundledFile out{std::move(bundle), Blob()};
  const Value& program = out.bundle.get("program");
  if (program.is_scalars()) out.program = program.scalars();
  return out;
}

}  // namespace etpack
