// What fuzz_repack does with one input, shared with the unit test that
// replays saved findings (tests/fuzz/regressions), so a repack finding
// stays fixed like a reader's.
#pragma once

#include <string>
#include <vector>

#include "core/blob.h"
#include "fuzz/exercise.h"
#include "ops/repack.h"
#include "read/pte_reader.h"

namespace etpack::fuzz {

// Repacks `pte` with `ptd` (none when the split found no separator: both
// views are then the same bytes). Promises: every refusal is a coded error;
// repack never writes what the validator refuses (kInvalidOutput: repack
// validates its input first and runs only on what it can write loadably);
// an output reads back with deserialize_pte_binary. Returns the promises
// that broke.
inline std::vector<std::string> exercise_repack(const Blob& pte, const Blob& ptd) {
  std::vector<std::string> broken;
  RepackOptions options;
  if (ptd.data() != pte.data()) options.data = {{"fuzz.ptd", FileSource::in_memory(ptd)}};
  options.allow_missing_data = true;
  RepackRefusal refusal;
  auto result = repack(FileSource::in_memory(pte), options, &refusal);
  if (!result.ok()) {
    if (uncoded(result.error().code)) broken.push_back("repack uncoded: " + result.error().message);
    if (result.error().code == ErrorCode::kInvalidOutput)
      broken.push_back("repack wrote an invalid output: " + result.error().message);
    return broken;
  }
  auto bytes = result->artifacts.pte.to_bytes();
  if (!bytes.ok()) {
    broken.push_back("repack's output cannot be flattened: " + bytes.error().message);
    return broken;
  }
  auto again = deserialize_pte_binary(Blob::view(bytes->data(), bytes->size()));
  if (!again.ok()) broken.push_back("repack's output does not read back: " + again.error().message);
  return broken;
}

}  // namespace etpack::fuzz
