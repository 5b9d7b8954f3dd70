// The model card: methods that run no instruction and return only
// non-tensor constants (get_max_seq_len, get_bos_id, quantization
// attributes...), which exporters write as metadata and users read by
// running the method. inspect reads them from the file instead.
#pragma once

#include "core/json.h"
#include "model/fb_value.h"
#include "read/work_budget.h"

namespace etpack {

// {"method name": value | [value, ...], ...} in method order: one output is
// its value, several an array of them. Values: Int (int64, exact), Double
// (written as Python's repr: bit exact), Bool, String, null (None), and
// IntList / DoubleList / BoolList as arrays. A method qualifies when its
// chains hold no instruction, it has at least one output, and every output
// is one of those values and not an input. A method without a name, or
// whose name an earlier method already took, is left out. Each element read
// is charged to `budget`; nullopt when it runs out.
std::optional<Json> constant_methods_json(const TableValue& program, WorkBudget& budget);

}  // namespace etpack
