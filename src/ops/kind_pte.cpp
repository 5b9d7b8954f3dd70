// The .pte's entry in the file-kind table (ops/file_kind_ops.h).
#include "inspect/inspect.h"
#include "ops/file_kind_ops.h"
#include "read/pte_reader.h"
#include "validate/validate.h"

namespace etpack {

const FileKindOps kPteOps = {
    pte_head_size,
    // inspect's padding ranges come from validate (inspect/ never includes it).
    [](const FileSource& file, size_t data_files) { return inspect_pte_reply(file, data_files, pte_padding_in_segments); },
    [](const std::string&, const FileSource& main, const DataFileSources& data_files, const ValidateOptions& options) {
      return validate_artifacts(main, data_files, options);
    },
};

}  // namespace etpack
