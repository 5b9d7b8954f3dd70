// The ETDump's entry in the file-kind table (ops/file_kind_ops.h): read by
// et.readETDump and profile (ops/profile.h), never by inspect; validate
// judges it as a program (whose identifier check names it).
#include "ops/file_kind_ops.h"
#include "read/etdump_reader.h"

namespace etpack {

const FileKindOps kEtdpOps = {
    etdump_head_size,  // the whole flatbuffer: 4 + its size prefix
    nullptr,
    nullptr,
};

}  // namespace etpack
