#include "ops/delegate_keys_guard.h"

#include <set>

#include "read/delegate/delegate_blobs.h"
#include "read/delegate/delegate_payload.h"
#include "read/delegate/payload_summary.h"
#include "read/pte_reader.h"

namespace etpack {

Result<DelegateKeyNeeds> delegate_key_needs(const FileSource& pte) {
  ETP_ASSIGN(PteFile file, read_pte_program(pte.head, pte.size()));
  DelegateKeyNeeds out;
  out.pte_named_keys = pte_named_keys(file.program);
  std::vector<DelegateKeyNeed>& needs = out.needs;
  const Value& plans = file.program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    if (!plans.items()[p].is_table()) continue;
    const TableValue& plan = plans.items()[p].table();
    const Value& name = plan.get("name");
    const std::string method = name.is_string() ? name.str() : std::to_string(p);
    const Value& delegates = plan.get("delegates");
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      if (!delegates.items()[d].is_table()) continue;
      const TableValue& delegate = delegates.items()[d].table();
      const std::string id = delegate.get("id").is_string() ? delegate.get("id").str() : std::string();
      std::optional<Blob> blob = delegate_blob_in_memory(pte, file, delegate);
      if (!blob) continue;
      auto payload = decode_delegate_in_program(*blob, id);
      if (!payload.ok()) continue;
      for (PayloadNamedKey& k : summarize_payload(*payload).named_keys)
        needs.push_back({std::move(k.key), k.bytes, method, p, d, id});
    }
  }
  return out;
}

std::string delegate_path(const DelegateKeyNeed& need) {
  return "execution_plan[" + std::to_string(need.method_index) + "].delegates[" + std::to_string(need.delegate) + "]";
}

Status guard_delegate_keys(const std::vector<DelegateKeyNeed>& needs, const std::function<bool(const std::string&)>& held,
                           const std::string& outputs, std::vector<std::string>* missing) {
  const DelegateKeyNeed* first = nullptr;
  std::set<std::string> seen;
  std::vector<std::string> keys;
  for (const DelegateKeyNeed& need : needs) {
    if (held(need.key)) continue;
    if (first == nullptr) first = &need;
    if (seen.insert(need.key).second) keys.push_back(need.key);
  }
  if (first == nullptr) return {};
  std::string message = "delegate " + std::to_string(first->delegate) + " (" +
                        (first->backend.empty() ? std::string("no backend id") : first->backend) + ") of method '" +
                        first->method + "' needs the named-data key '" + first->key + "'" +
                        (first->bytes ? " (" + std::to_string(*first->bytes) + " bytes)" : std::string()) +
                        ", which " + outputs + " would not hold: its backend's init() would fail, so load_method would";
  if (first->key.empty() && first->backend == "XnnpackBackend")
    message += " (XNNPACK looks a constant up by name whenever its named_key field is present, even empty)";
  if (keys.size() > 1)
    message += "; " + std::to_string(keys.size() - 1) + " more key" + (keys.size() == 2 ? " is" : "s are") + " missing";
  message += "; nothing was written";
  if (missing) *missing = std::move(keys);
  return make_error(ErrorCode::kMissingDelegateData, std::move(message));
}

}  // namespace etpack
