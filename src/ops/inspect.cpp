#include "ops/inspect.h"

#include "ops/bundled_program.h"
#include "inspect/inspect.h"
#include "validate/validate.h"

namespace etpack {

Result<InspectReply> inspect_file(FileKind kind, const FileSource& file, size_t data_files) {
  // No default: a new row in format/file_kinds.def warns (-Wswitch) here.
  switch (kind) {
    case FileKind::kPte:
      return inspect_pte_reply(file, data_files, pte_padding_in_segments);
    case FileKind::kPtd:
      return inspect_ptd_reply(file);
    case FileKind::kBpte:
      return inspect_bundled_program(file);
    case FileKind::kEtdp:  // an ETDump is read by et.readETDump / profile
      break;
  }
  return make_error(ErrorCode::kInvalidArgument, "no inspector for this file kind");
}

}  // namespace etpack
