// The .bpte's entry in the file-kind table (ops/file_kind_ops.h).
#include "ops/bundled_program.h"
#include "ops/file_kind_ops.h"

namespace etpack {

const FileKindOps kBpteOps = {
    // One flatbuffer, read whole.
    [](const Blob&, uint64_t file_size) -> Result<uint64_t> { return file_size; },
    [](const FileSource& file, size_t) { return inspect_bundled_program(file); },
    [](const std::string&, const FileSource& main, const DataFileSources& data_files, const ValidateOptions& options) {
      return validate_bundled_program(main, data_files, options);
    },
};

}  // namespace etpack
