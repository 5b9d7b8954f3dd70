// libFuzzer target for the ETDump reader (src/read/etdump_reader.h) and the
// profile join (src/ops/profile.h): any bytes as a whole .etdp, joined to a
// small fixed program. Promises checked: a file that reads has a head size
// equal to its prefixed buffer, its JSON decode parses, and the join
// succeeds with one block per RunData. A crash, hang, sanitizer report or
// broken promise is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/json.h"
#include "ops/profile.h"
#include "read/etdump_reader.h"
#include "schema/schema.h"

namespace {

void broken(const char* what) {
  std::fprintf(stderr, "broken promise: %s\n", what);
  __builtin_trap();
}

// One method, one chain: a KernelCall and a DelegateCall, so joins happen.
const etpack::TableValue& program() {
  using namespace etpack;
  static const TableValue p = [] {
    const Schema& s = program_schema();
    TableValue root(s.root);
    TableValue plan(s.find_table("ExecutionPlan"));
    plan.at("name") = Value::from_string("forward");
    TableValue op(s.find_table("Operator"));
    op.at("name") = Value::from_string("aten::add");
    op.at("overload") = Value::from_string("out");
    plan.at("operators") = Value::from_items({Value::from_table(op)});
    TableValue delegate(s.find_table("BackendDelegate"));
    delegate.at("id") = Value::from_string("XnnpackBackend");
    plan.at("delegates") = Value::from_items({Value::from_table(delegate)});
    TableValue kernel(s.find_table("KernelCall"));
    TableValue call(s.find_table("DelegateCall"));
    TableValue i0(s.find_table("Instruction")), i1(s.find_table("Instruction"));
    i0.at("instr_args") = Value::from_table(kernel);
    i1.at("instr_args") = Value::from_table(call);
    TableValue chain(s.find_table("Chain"));
    chain.at("instructions") = Value::from_items({Value::from_table(i0), Value::from_table(i1)});
    plan.at("chains") = Value::from_items({Value::from_table(chain)});
    root.at("execution_plan") = Value::from_items({Value::from_table(plan)});
    return root;
  }();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etpack;
  const Blob bytes = Blob::own(std::vector<uint8_t>(data, data + size));
  auto file = read_etdump(bytes);
  if (!file.ok()) return 0;
  auto head = etdump_head_size(bytes, size);
  if (!head.ok() || *head > size) broken("a file that reads has a head inside it");
  if (!parse_json(etdump_json(*file)).ok()) broken("the decode is JSON");
  auto joined = profile_json(*file, program(), {});
  if (!joined.ok()) broken("the join of a file that reads succeeds");
  auto parsed = parse_json(*joined);
  if (!parsed.ok()) broken("the join is JSON");
  if (parsed->find("blocks")->items().size() != file->blocks.size()) broken("one block per RunData");
  return 0;
}
