// The indices a .pte's methods hold, checked against the lists they index:
// each plan's inputs and outputs, and each chain's lists and instructions
// (values, operators, delegates, jump targets). The runtime uses most of
// them unchecked (method.cpp), so one out of range is an error; a chain's
// own inputs/outputs it never reads (a warning).
#include <optional>
#include <string>

#include "validate/validate_internal.h"

namespace etpack {
namespace {

class MethodIndexChecker {
 public:
  MethodIndexChecker(FindingSink& sink, BudgetGate& gate, const Blob& file) : sink_(sink), gate_(gate), file_(file) {}

  // False when the budget ran out.
  bool run(const TableValue& program) {
    const Value& plans = program.get("execution_plan");
    if (!plans.is_items()) return true;
    for (size_t p = 0; p < plans.items().size(); ++p) {
      const TableValue& plan = plans.items()[p].table();
      const std::string path = indexed_path("execution_plan", p);
      for (const char* field : {"name", "values", "inputs", "outputs", "non_const_buffer_sizes"})
        require_field(sink_, plan, field, path);
      const Value& values = plan.get("values");
      size_t count = values.is_items() ? values.items().size() : 0;
      for (const char* list : {"inputs", "outputs"}) {
        const Value& indices = plan.get(list);
        size_t n = scalar_vector_length(indices, BaseType::kInt);
        if (!gate_.spend(n)) return false;
        std::optional<size_t> first_bad;
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i) {
          int64_t v = scalar_vector_int(indices, BaseType::kInt, i);
          if (v >= 0 && static_cast<uint64_t>(v) < count) continue;
          if (!first_bad) first_bad = i;
          ++bad;
        }
        if (first_bad) {
          // Every set_input/get_output reads the index through get_value,
          // whose ET_CHECK aborts (method.cpp): the method loads, then dies.
          std::string at = path + "." + list + "[" + std::to_string(*first_bad) + "]";
          sink_.error(finding::kValueIndexOutOfRange,
                      at + " is value " + std::to_string(scalar_vector_int(indices, BaseType::kInt, *first_bad)) +
                          ", outside the method's " + std::to_string(count) + " values" +
                          (bad > 1 ? " (" + std::to_string(bad - 1) + " more " + list + " are too)" : "") +
                          "; the method loads, then the first set_input/get_output aborts (ET_CHECK in get_value)",
                      element_offset(indices, *first_bad), at);
        }
      }
      if (!check_chains(plan, path, count)) return false;
    }
    return true;
  }

 private:
  // An index the runtime uses unchecked: error when outside [0, count).
  // at() + field names it, built only for a finding (no longer three
  // strings for each instruction of the method).
  template <typename At>
  void index_in_range(int64_t index, size_t count, const char* code, const At& at, const char* field, const char* what) {
    if (index >= 0 && static_cast<uint64_t>(index) < count) return;
    out_of_range(code, at() + field, index, count, what);
  }

  ETPACK_COLD void out_of_range(const char* code, const std::string& at, int64_t index, size_t count, const char* what) {
    sink_.error(code, at + " is " + std::to_string(index) + ", outside the method's " + std::to_string(count) + " " + what,
                std::nullopt, at);
  }

  // Where element i of the int vector `list` lies in the file.
  std::optional<uint64_t> element_offset(const Value& list, size_t i) const {
    if (!list.is_scalars()) return std::nullopt;
    auto at = offset_in_file(list.scalars(), file_);
    return at ? std::optional<uint64_t>(*at + 4 * i) : std::nullopt;
  }

  // The first value index of `list` (at() + field) outside [0, count),
  // reported once.
  template <typename At>
  void value_list_in_range(const Value& list, size_t count, const At& at, const char* field) {
    const size_t n = scalar_vector_length(list, BaseType::kInt);
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = scalar_vector_int(list, BaseType::kInt, i);
      if (v >= 0 && static_cast<uint64_t>(v) < count) continue;
      out_of_range(finding::kValueIndexOutOfRange, at() + field + "[" + std::to_string(i) + "]", v, count, "values");
      return;
    }
  }

  // A chain's own inputs/outputs: Method::init builds each chain from its
  // instructions alone and nothing reads these lists (upstream
  // runtime/executor/method.cpp), so an index past the values is odd, not
  // fatal: the first one, as a warning.
  ETPACK_COLD void unread_value_list(const Value& list, size_t count, const std::string& at) {
    const size_t n = scalar_vector_length(list, BaseType::kInt);
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = scalar_vector_int(list, BaseType::kInt, i);
      if (v >= 0 && static_cast<uint64_t>(v) < count) continue;
      const std::string here = at + "[" + std::to_string(i) + "]";
      sink_.warning(finding::kChainValueIndexUnread,
                    here + " is " + std::to_string(v) + ", outside the method's " + std::to_string(count) +
                        " values; the runtime never reads a chain's own inputs/outputs, so this loads",
                    element_offset(list, i), here);
      return;
    }
  }

  // Chains: their inputs/outputs and every instruction's indices (values,
  // operators, delegates, jump targets). False when the work budget ran out.
  bool check_chains(const TableValue& plan, const std::string& path, size_t values) {
    const Value& chains = plan.get("chains");
    if (!chains.is_items()) return true;
    const Value& ops = plan.get("operators");
    const Value& delegates = plan.get("delegates");
    const size_t op_count = ops.is_items() ? ops.items().size() : 0;
    const size_t delegate_count = delegates.is_items() ? delegates.items().size() : 0;
    for (size_t c = 0; c < chains.items().size(); ++c) {
      const TableValue& chain = chains.items()[c].table();
      const std::string at = path + "." + indexed_path("chains", c);
      for (const char* list : {"inputs", "outputs"}) {
        if (!gate_.spend(scalar_vector_length(chain.get(list), BaseType::kInt) + 1)) return false;
        unread_value_list(chain.get(list), values, at + "." + list);
      }
      const Value& instructions = chain.get("instructions");
      if (!instructions.is_items()) continue;
      const size_t count = instructions.items().size();
      for (size_t i = 0; i < count; ++i) {
        const TableValue& instruction = instructions.items()[i].table();
        auto here = [&] { return at + "." + indexed_path("instructions", i) + ".instr_args"; };
        const Value& args = instruction.get("instr_args");
        if (!args.is_table()) continue;  // an absent instruction: nothing the runtime indexes
        const TableValue& call = args.table();
        const std::string& kind = call.def->name;
        if (!gate_.spend(1)) return false;
        if (kind == "KernelCall" || kind == "DelegateCall") {
          const bool kernel = kind == "KernelCall";
          if (kernel)
            index_in_range(call.get_int("op_index"), op_count, finding::kOperatorIndexOutOfRange, here, ".op_index", "operators");
          else
            index_in_range(call.get_int("delegate_index"), delegate_count, finding::kDelegateIndexOutOfRange, here,
                           ".delegate_index", "delegates");
          if (!gate_.spend(scalar_vector_length(call.get("args"), BaseType::kInt))) return false;
          value_list_in_range(call.get("args"), values, here, ".args");
        } else if (kind == "MoveCall") {
          index_in_range(call.get_int("move_from"), values, finding::kValueIndexOutOfRange, here, ".move_from", "values");
          index_in_range(call.get_int("move_to"), values, finding::kValueIndexOutOfRange, here, ".move_to", "values");
        } else if (kind == "JumpFalseCall") {
          index_in_range(call.get_int("cond_value_index"), values, finding::kValueIndexOutOfRange, here,
                         ".cond_value_index", "values");
          index_in_range(call.get_int("destination_instruction"), count, finding::kInstructionIndexOutOfRange, here,
                         ".destination_instruction", "instructions in this chain");
        } else if (kind == "FreeCall") {
          index_in_range(call.get_int("value_index"), values, finding::kValueIndexOutOfRange, here, ".value_index", "values");
        }
      }
    }
    return true;
  }

  FindingSink& sink_;
  BudgetGate& gate_;
  const Blob& file_;
};

}  // namespace

bool check_method_indices(FindingSink& sink, BudgetGate& gate, const TableValue& program, const Blob& file) {
  return MethodIndexChecker(sink, gate, file).run(program);
}

}  // namespace etpack
