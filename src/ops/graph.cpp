#include "ops/graph.h"

#include "read/ptd_table.h"
#include "read/pte_reader.h"

namespace etpack {

Result<ProgramGraph> graph_of(const FileSource& pte, const std::vector<std::pair<std::string, FileSource>>& ptds,
                              const std::optional<std::string>& method, const GraphOptions& options) {
  ETP_ASSIGN(PteFile program, read_pte_program(pte.head, pte.size()));
  // Only the .ptd flatbuffers are read: keys, never tensor data.
  PtdKeyFiles keys;
  for (const auto& [name, file] : ptds) {
    auto table = read_ptd_table(file.head, file.size());
    if (!table.ok()) {
      Error e = table.take_error();
      return make_error(e.code, name + ": " + e.message);
    }
    for (size_t i = 0; i < table->named_count(); ++i)
      if (auto key = table->key(i)) keys.emplace(std::string(*key), name);  // the first file holding a key wins
  }
  return program_graph(pte, program, keys, method, options);
}

}  // namespace etpack
