#include "ops/diff_values.h"

#include <cmath>
#include <cstring>

#include "read/program_tensors.h"

namespace etpack {

std::vector<NanValue> nan_values(const TableValue& program) {
  std::vector<NanValue> out;
  for_each_value(program, [&](size_t p, size_t v, const TableValue& val) {
    const std::string& type = val.def->name;
    if (type == "Double") {
      const Value& d = val.get("double_val");
      if (!d.is_scalar() || !std::isnan(d.scalar().d)) return;
      uint64_t bits;
      const double x = d.scalar().d;
      std::memcpy(&bits, &x, sizeof bits);
      out.push_back({value_path(p, v) + ".val.double_val", bits});
    } else if (type == "DoubleList") {
      const Value& items = val.get("items");
      if (!items.is_scalars()) return;
      const Blob& b = items.scalars();
      for (size_t i = 0; i + 1 <= b.size() / 8; ++i) {
        uint64_t bits = 0;
        for (int k = 7; k >= 0; --k) bits = (bits << 8) | b.data()[i * 8 + static_cast<size_t>(k)];  // little-endian
        double x;
        std::memcpy(&x, &bits, sizeof x);
        if (std::isnan(x)) out.push_back({value_path(p, v) + ".val.items[" + std::to_string(i) + "]", bits});
      }
    }
  });
  return out;
}

}  // namespace etpack
