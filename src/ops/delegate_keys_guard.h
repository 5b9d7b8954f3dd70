// The one guard every writer of a model's files runs before writing
// (repack with externalize and merge; weights' .ptd): a named-data entry a
// delegate's backend looks up at init() (read/delegate/payload_summary.h:
// XNNPACK's named constants, even under an empty key; Vulkan's, MLX's, the
// native backend's, Core ML's CMJR reference, Ethos-U's external blocks)
// that none of the outputs would hold makes that backend's init() fail, so
// load_method fails (../shared/RUNTIME.md "Delegates"). The writer refuses
// instead, naming the key, the delegate and the method.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "format/file_source.h"

namespace etpack {

// One key one delegate looks up.
struct DelegateKeyNeed {
  std::string key;
  std::optional<uint64_t> bytes;  // the byte count the blob records, when it does
  std::string method;             // the method's name (its index when unnamed)
  size_t method_index = 0;
  size_t delegate = 0;            // index in the method's delegates
  std::string backend;            // the delegate's id ("XnnpackBackend"; "" when absent)
};

struct DelegateKeyNeeds {
  std::vector<DelegateKeyNeed> needs;
  std::vector<std::string> pte_named_keys;  // the keys of the .pte's own named_data
};

// Every key each delegate of the .pte `pte` looks up, in method and
// delegate order (a delegate's keys once each), and the keys the .pte holds
// itself. A blob that is not where the program says, is too large to decode
// (delegate_blobs.h) or does not decode adds none: validate reports those.
// Reads the head and each delegate's blob (segments through `pte.file`).
// Errors: those of the .pte reader (kMalformedFile, kUnsupportedVersion,
// kResourceLimit).
Result<DelegateKeyNeeds> delegate_key_needs(const FileSource& pte);

// kMissingDelegateData unless `held(key)` for every need: the message names
// the first missing key with its delegate, backend and method, says where
// it was looked for (`outputs`, e.g. "the repacked .pte's named_data and
// the .ptd files written") and how many other keys are missing. `missing`
// (when given) receives every missing key once, in need order.
Status guard_delegate_keys(const std::vector<DelegateKeyNeed>& needs, const std::function<bool(const std::string&)>& held,
                           const std::string& outputs, std::vector<std::string>* missing = nullptr);

// "execution_plan[p].delegates[d]": the path validate's findings use.
std::string delegate_path(const DelegateKeyNeed& need);

}  // namespace etpack
