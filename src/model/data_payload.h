// What a .ptd holds, as writers take it and readers give it back: unique
// buffers and key -> entry (insertion order). Shared by encode/ptd_writer
// (a DataSerializer's input) and read/ptd_reader (a parsed file), so it
// lives below both.
#pragma once

#include <vector>

#include "core/blob.h"
#include "model/named_data_store.h"

namespace etpack {

struct DataPayload {
  std::vector<Blob> buffers;  // references (views or external), not copies
  EntryMap named_data;
};

}  // namespace etpack
