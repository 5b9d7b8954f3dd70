#include "ops/decode_delegate.h"

#include "read/delegate/delegate_payload.h"

namespace etpack {

Result<std::string> decode_delegate_json(const Blob& blob, std::string_view backend) {
  ETP_ASSIGN(DelegatePayload payload, decode_delegate_payload(blob, backend));
  return delegate_payload_json(payload);
}

}  // namespace etpack
