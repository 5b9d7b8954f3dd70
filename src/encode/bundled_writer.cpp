#include "encode/bundled_writer.h"

#include <string>

#include "encode/fb_encoder.h"
#include "format/file_kinds.h"

namespace etpack {
namespace {

Status required(const TableValue& t, const char* field, const std::string& path) {
  if (t.get(field).absent())
    return make_error(ErrorCode::kSchemaMismatch, path + "." + field + " is required (upstream's BundledProgram has no default for it)");
  return {};
}

// A list item that is no table (null in JSON) has no upstream equivalent.
Status item_is_table(const Value& item, const std::string& path) {
  if (!item.is_table()) return make_error(ErrorCode::kSchemaMismatch, path + " must be an object, not null");
  return {};
}

Status check_values(const Value& list, const std::string& path) {
  if (!list.is_items()) return {};
  for (size_t i = 0; i < list.items().size(); ++i) {
    ETP_TRY(item_is_table(list.items()[i], path + "[" + std::to_string(i) + "]"));
    const TableValue& value = list.items()[i].table();
    const Value& val = value.get("val");
    const std::string where = path + "[" + std::to_string(i) + "].val";
    // Upstream derives the type from the value: a type without one cannot be written.
    if (!val.is_table() && !value.is("val_type", ValueUnion::NONE))
      return make_error(ErrorCode::kSchemaMismatch, where + " is missing (val_type names a member, no value given)");
    if (!val.is_table()) continue;
    // Every member's fields, scalars included: upstream writes a null one
    // nowhere (it refuses it), so absent is not "the default" here.
    const std::string& member = val.table().def->name;
    if (member == "Tensor") {
      for (const char* field : {"scalar_type", "sizes", "data", "dim_order"}) ETP_TRY(required(val.table(), field, where));
    } else {
      ETP_TRY(required(val.table(), member == "Int" ? "int_val" : member == "Bool" ? "bool_val" : "double_val", where));
    }
  }
  return {};
}

// Upstream builds the file from dataclasses whose fields have no defaults:
// a missing list there is a TypeError, never an absent vector. Refusing
// them here keeps every file we write one upstream could have written.
Status check_required(const TableValue& bundle) {
  ETP_TRY(required(bundle, "version", "bundle"));
  ETP_TRY(required(bundle, "method_test_suites", "bundle"));
  ETP_TRY(required(bundle, "program", "bundle"));
  const Value& suites = bundle.get("method_test_suites");
  if (!suites.is_items()) return {};
  for (size_t s = 0; s < suites.items().size(); ++s) {
    const std::string path = "method_test_suites[" + std::to_string(s) + "]";
    ETP_TRY(item_is_table(suites.items()[s], path));
    const TableValue& suite = suites.items()[s].table();
    ETP_TRY(required(suite, "method_name", path));
    ETP_TRY(required(suite, "test_cases", path));
    const Value& cases = suite.get("test_cases");
    if (!cases.is_items()) continue;
    for (size_t c = 0; c < cases.items().size(); ++c) {
      const std::string case_path = path + ".test_cases[" + std::to_string(c) + "]";
      ETP_TRY(item_is_table(cases.items()[c], case_path));
      const TableValue& test_case = cases.items()[c].table();
      ETP_TRY(required(test_case, "inputs", case_path));
      ETP_TRY(required(test_case, "expected_outputs", case_path));
      ETP_TRY(check_values(test_case.get("inputs"), case_path + ".inputs"));
      ETP_TRY(check_values(test_case.get("expected_outputs"), case_path + ".expected_outputs"));
    }
  }
  return {};
}

}  // namespace

Result<std::vector<uint8_t>> write_bundled_program(const TableValue& bundle) {
  if (bundle.def == nullptr || bundle.def != bundled_program_schema().root)
    return make_error(ErrorCode::kInternal, "write_bundled_program takes a BundledProgram table");
  ETP_TRY(check_required(bundle));
  EncodeOptions options;
  options.policy = EncodePolicy::kReferencePython;
  ETP_ASSIGN(EncodedFlatbuffer encoded, encode_flatbuffer(bundle, identifier_of(FileKind::kBpte), options));
  return std::move(encoded.bytes);
}

}  // namespace etpack
