#include "ops/repack_layout.h"

#include <algorithm>

#include "core/checked_math.h"
#include "read/pte_reader.h"
#include "schema/enums.h"

namespace etpack {

namespace {

template <typename F>
void for_each_delegate(const TableValue& program, F&& f) {
  const Value& plans = program.get("execution_plan");
  if (!plans.is_items()) return;
  for (const Value& plan : plans.items()) {
    const Value& delegates = plan.table().get("delegates");
    if (!delegates.is_items()) continue;
    for (const Value& d : delegates.items()) f(d.table());
  }
}

}  // namespace

std::optional<uint64_t> kept_segment_alignment(uint64_t program_size, uint64_t base,
                                               const std::vector<std::pair<uint64_t, uint64_t>>& segments) {
  if (base == 0 || segments.empty()) return std::nullopt;
  uint64_t bits = base;
  for (const auto& [offset, size] : segments) bits |= offset;
  const uint64_t shown = bits & (~bits + 1);  // the largest power of two dividing every start
  // Would alignment `a` put the base and every segment where they are?
  auto reproduces = [&](uint64_t a) {
    if (aligned_to(program_size, a) != base) return false;
    uint64_t end = 0;
    for (const auto& [offset, size] : segments) {
      if (aligned_to(end, a) != offset) return false;
      auto next = checked_add(offset, size);
      if (!next) return false;
      end = *next;
    }
    return true;
  };
  uint64_t a = shown;
  while (a > 1 && reproduces(a / 2)) a /= 2;
  return std::max(a, std::min<uint64_t>(shown, 128));
}

Result<InputLayout> input_layout(const FileSource& source) {
  ETP_ASSIGN(PteFile pte, read_pte_program(source.head, source.file.size()));
  InputLayout out;
  for_each_delegate(pte.program, [&](const TableValue& delegate) {
    const Value& processed = delegate.get("processed");
    out.delegate_in_segment.push_back(processed.is_table() && processed.table().is("location", DataLocation::SEGMENT));
  });
  if (pte.header && pte.header->segment_base_offset != 0) {
    std::vector<std::pair<uint64_t, uint64_t>> segments;
    const Value& list = pte.program.get("segments");
    if (list.is_items())
      for (const Value& s : list.items()) segments.emplace_back(s.table().get_uint("offset"), s.table().get_uint("size"));
    out.segment_alignment = kept_segment_alignment(pte.header->program_size, pte.header->segment_base_offset, segments);
  }
  return out;
}

std::vector<bool> delegates_with_data(const TableValue& program) {
  std::vector<bool> out;
  const Value& bdd = program.get("backend_delegate_data");
  for_each_delegate(program, [&](const TableValue& delegate) {
    const Value& processed = delegate.get("processed");
    bool has = false;
    if (processed.is_table() && processed.table().is("location", DataLocation::INLINE) && bdd.is_items()) {
      const uint64_t index = processed.table().get_uint("index");
      if (index < bdd.items().size()) {
        const Value& entry = bdd.items()[static_cast<size_t>(index)];
        const Value& data = entry.is_table() ? entry.table().get("data") : entry;
        has = data.is_scalars() && data.scalars().size() > 0;
      }
    }
    out.push_back(has);
  });
  return out;
}

}  // namespace etpack
