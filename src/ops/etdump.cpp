#include "ops/etdump.h"

#include "ops/profile_delegates.h"
#include "read/etdump_reader.h"
#include "read/pte_reader.h"

namespace etpack {

Result<std::string> etdump_read_json(const FileSource& etdp) {
  ETP_ASSIGN(EtdumpFile file, read_etdump(etdp.head));
  return etdump_json(file);
}

Result<std::string> etdump_profile_json(const FileSource& etdp, const FileSource& pte, const ProfileOptions& options) {
  // The runs alone (no decoded tree): a million events take ~60 MB, not ~0.5 GB.
  ETP_ASSIGN(EtdumpFile file, read_etdump_runs(etdp.head));
  ETP_ASSIGN(PteFile program, read_pte_program(pte.head, pte.size()));
  ProfileOptions with_nodes = options;  // delegate-internal events joined to their nodes
  if (!with_nodes.delegate_nodes) with_nodes.delegate_nodes = delegate_node_lookup(pte, program);
  return profile_json(file, program.program, with_nodes);
}

}  // namespace etpack
