// Delegate payloads against what their backends read at init()
// (../shared/RUNTIME.md "Delegates"; upstream backends/xnnpack/runtime/
// XNNCompiler.cpp getConstantDataPtr, backends/vulkan/runtime/
// VulkanBackend.cpp, the other backends' init()): a blob of a known
// backend must decode (its init() refuses it otherwise), and every
// named-data key it looks up must be in the named data map load_method
// hands the backend, the .pte's named_data merged with the .ptd files.
// XNNPACK takes the named path when the key field is present, even "".
#include <set>
#include <string>

#include "read/delegate/delegate_blobs.h"
#include "read/delegate/delegate_payload.h"
#include "read/delegate/payload_summary.h"
#include "validate/validate_internal.h"

namespace etpack {

void check_delegate_payloads(FindingSink& sink, const FileSource& pte, const PteFile& file, const PtdIndex& index,
                             bool have_ptds) {
  std::vector<std::string> own = pte_named_keys(file.program);
  const std::set<std::string> in_pte(own.begin(), own.end());
  const Value& plans = file.program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    const TableValue& plan = plans.items()[p].table();
    const Value& name = plan.get("name");
    const std::string method = name.is_string() ? name.str() : std::to_string(p);
    const Value& delegates = plan.get("delegates");
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      const TableValue& delegate = delegates.items()[d].table();
      const std::string id = delegate.get("id").is_string() ? delegate.get("id").str() : std::string();
      const std::string path = "execution_plan[" + std::to_string(p) + "].delegates[" + std::to_string(d) + "]";
      const std::string who = "delegate " + std::to_string(d) + " (" + (id.empty() ? "no backend id" : id) +
                              ") of method '" + method + "'";
      std::optional<Blob> blob = delegate_blob_in_memory(pte, file, delegate);
      if (!blob) continue;  // not where the program says (reported elsewhere), or too large to decode
      auto payload = decode_delegate_in_program(*blob, id);
      if (!payload.ok()) {
        sink.error(finding::kDelegatePayloadInvalid,
                   who + ": " + payload.error().message + "; the backend's init() refuses it, so load_method fails",
                   std::nullopt, path);
        continue;
      }
      for (const PayloadNamedKey& k : summarize_payload(*payload).named_keys) {
        if (in_pte.count(k.key) != 0 || index.count(k.key) != 0) continue;
        std::string message = who + " needs the named-data key '" + k.key + "'" +
                              (k.bytes ? " (" + std::to_string(*k.bytes) + " bytes)" : std::string()) +
                              ", in neither the .pte's named_data nor " +
                              (have_ptds ? std::string("the given .ptd files") : std::string("a .ptd (none was given)")) +
                              ": the backend's init() fails, so load_method fails";
        if (k.key.empty() && payload->kind_name == "xnnpack")
          message += " (XNNPACK looks a constant up by name whenever its named_key field is present, even empty; "
                     "this blob's inline constants carry an empty key)";
        else if (!have_ptds)
          message += ". Validate with the .ptd files the program ships with";
        sink.error(finding::kDelegateNamedKeyMissing, std::move(message), std::nullopt, path);
      }
    }
  }
}

}  // namespace etpack
