// Decoders of delegate payloads (the processed blobs backends read at
// init; format/payload_kinds.def lists the kinds, ../shared/delegates/
// README.md gives the layouts). Every decoder is bounds-checked: offsets
// and sizes read from the blob are checked before use, nothing is
// allocated or looped over because the blob claims it, and a blob cut short
// anywhere is refused. Errors are kMalformedFile naming the byte offset in
// the payload (kLimitExceeded / kResourceLimit from the flatbuffer
// decoder's budgets).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/blob.h"
#include "core/json.h"
#include "core/result.h"
#include "format/payload_kinds.h"
#include "model/fb_value.h"

namespace etpack {

struct DelegatePayload {
  std::optional<PayloadKind> kind;  // nullopt: opaque (no known layout)
  std::string kind_name;            // payload_kind(*kind).name, or "opaque"
  Json header;                      // the wrapper's fields (header.json's names)
  std::optional<Json> graph;        // flatbuffer kinds: flatc-shaped JSON
  std::shared_ptr<const TableValue> root;  // flatbuffer kinds: the decoded graph
  uint64_t constant_bytes = 0;      // the blob's own constant/data region
  std::optional<Json> content;      // other kinds: what the blob says
  // Core ML's file tree: the model's facts (coreml_model_facts).
  std::optional<Json> model;
};

// Decodes `blob` (held in memory; the payload's bytes, not copied).
// `backend` is the delegate's backend id ("XnnpackBackend", ...; empty when
// unknown: the kind is then found by magic). A blob no row describes is
// opaque (kind nullopt, header {"blob_size"}), as is any blob of a backend
// we do not know; a blob that a known backend's row names but that does not
// hold together is an error.
Result<DelegatePayload> decode_delegate_payload(const Blob& blob, std::string_view backend);

// The same as inspect and validate judge a .pte's delegates: a blob whose
// backend we know but which lacks every mark of that backend's layout (its
// magic or identifier: test data, a fork's own format) is opaque, not an
// error; one that carries the mark but does not hold together is an error.
Result<DelegatePayload> decode_delegate_in_program(const Blob& blob, std::string_view backend);

// {"kind", "header", "graph" | "content", "model" (Core ML's file tree)} as JSON text.
std::string delegate_payload_json(const DelegatePayload& payload);

// The decoders by layout (delegate_payload.cpp dispatches on the table).
Result<DelegatePayload> decode_flatbuffer_payload(const Blob& blob, PayloadKind kind);
Result<DelegatePayload> decode_coreml_payload(const Blob& blob, PayloadKind kind);
Result<DelegatePayload> decode_qnn_payload(const Blob& blob);
Result<DelegatePayload> decode_ethosu_payload(const Blob& blob);

// A Core ML file tree's model (from its decoded `content` and the blob):
// {"identifier", "inputNames", "outputNames" (metadata.json's; null when
// absent), "modelFile" (the .mlpackage's root model, from Manifest.json),
// "specificationVersion" (that file's Model.specificationVersion)}.
Json coreml_model_facts(const Json& content, const Blob& blob);

// kMalformedFile "<what> (at byte offset <offset> of the payload)".
Error payload_error(const std::string& what, uint64_t offset);

}  // namespace etpack
