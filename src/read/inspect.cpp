#include "read/inspect.h"

namespace etpack {

// Placeholders until the full inspector lands.
Result<Json> inspect_pte(const Blob&) { return Json::object(); }
Result<Json> inspect_ptd(const Blob&) { return Json::object(); }

}  // namespace etpack
