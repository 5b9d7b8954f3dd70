// diff's values by their bits: the JS glue compares a program's values as JS
// numbers, which keep -0.0 but not a NaN's payload (every NaN reaches JS as
// the one NaN). This lists every NaN a program's Double and DoubleList
// values hold, with its bits, so two programs whose NaNs differ are told
// apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fb_value.h"

namespace etpack {

struct NanValue {
  std::string path;  // execution_plan[p].values[v].val.double_val / .items[i]
  uint64_t bits = 0;
};

// Every NaN in the program's Double and DoubleList values, in plan/value
// order. Linear in the number of values and list items.
std::vector<NanValue> nan_values(const TableValue& program);

}  // namespace etpack
