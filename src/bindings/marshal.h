// JSON shapes exchanged with the JS glue (npm/src/marshal.mjs is the other
// half). Byte references: {"src": id, "size": n[, "offset": o]} for bytes
// that stay in JS, {"ptr": p, "len": n} for bytes the glue put in the heap.
// Returned bytes are {"\u0000blob": i}, an index into Output::blob_list().
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bindings/host_call.h"
#include "core/json.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"
#include "model/stream_table.h"
#include "model/value_json.h"
#include "ops/program_for_pte.h"  // StreamPrefix
#include "ops/serialize_for_executorch.h"  // PteConfig, FlatTensorConfig: the writers' options

namespace etpack::bindings {

Result<TensorLayout> layout_from_json(const Json& j);
Json layout_to_json(const std::optional<TensorLayout>& layout);
Result<EntryMap> entries_from_json(const Json& j);
Json entries_to_json(const EntryMap& entries);
// {buffers: [ref], pte_data: {...}, external_data: {tag: {...}}}
Result<NamedDataStoreOutput> store_output_from_json(const Json& j);
// The same with buffers as {"\u0000blob": i} registered in `out`.
Json store_output_to_json(const NamedDataStoreOutput& store, Output& out);
Result<PteConfig> pte_config_from_json(const Json* j);
FlatTensorConfig data_config_from_json(const Json* j);

// Program text with byte references, into the model.
Result<TableValue> program_from_text(std::string_view text);
// The same from the value stream the JS glue writes for a program object
// (core/value_stream.h, npm/src/program-stream.mjs).
Result<TableValue> program_from_stream(std::string_view bytes);
// Either, as the request's "program_form" says ("stream"; else JSON text).
Result<TableValue> program_from_request(std::string_view program, const Json& request);
// The same for writing a .pte (ops/program_for_pte.h): a value stream's
// execution plans may come back encoded, in `plans`, instead of in the model.
Result<TableValue> program_for_pte(std::string_view program, const Json& request, std::optional<StreamPrefix>& plans);

Json blob_marker(size_t index);

}  // namespace etpack::bindings
