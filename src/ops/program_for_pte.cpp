#include "ops/program_for_pte.h"

#include "model/stream_table.h"
#include "schema/schema.h"

namespace etpack {

Result<TableValue> program_stream_for_pte(std::string_view stream, const BlobResolver& resolve_blob, bool extracting_delegates,
                                          bool external_constants, std::optional<StreamPrefix>& plans) {
  plans.reset();
  const TableDef& root = *program_schema().root;
  if (external_constants) return table_from_value_stream(stream, root, resolve_blob);
  const FieldDef* field = root.find("execution_plan");
  const TableDef* delegate = program_schema().find_table("BackendDelegate");
  if (field != nullptr && delegate != nullptr) plans = encode_stream_prefix(stream, root, *field, EncodeOptions{}, delegate);
  // Extracting delegates rewrites the plans' delegates: only plans with none.
  if (plans && extracting_delegates && plans->counted != 0) plans.reset();
  if (!plans) return table_from_value_stream(stream, root, resolve_blob);
  auto read = table_from_value_stream_without(stream, root, resolve_blob, plans->value_begin, plans->value_end, plans->keys);
  const Value* segments = read.ok() ? &read->get("segments") : nullptr;
  if (read.ok() && !(segments->is_items() && !segments->items().empty())) return read;
  // An error (reported as the whole program's read reports it) or listed
  // segments: the model route, from the start.
  plans.reset();
  return table_from_value_stream(stream, root, resolve_blob);
}

}  // namespace etpack
