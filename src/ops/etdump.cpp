#include "ops/etdump.h"

#include "read/etdump_reader.h"
#include "read/pte_reader.h"

namespace etpack {

Result<std::string> etdump_read_json(const FileSource& etdp) {
  ETP_ASSIGN(EtdumpFile file, read_etdump(etdp.head));
  return etdump_json(file);
}

Result<std::string> etdump_profile_json(const FileSource& etdp, const FileSource& pte, const ProfileOptions& options) {
  ETP_ASSIGN(EtdumpFile file, read_etdump(etdp.head));
  ETP_ASSIGN(PteFile program, read_pte_program(pte.head, pte.size()));
  return profile_json(file, program.program, options);
}

}  // namespace etpack
