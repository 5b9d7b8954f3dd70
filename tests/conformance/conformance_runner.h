// Runs the conformance vectors of ../shared/conformance (see its README):
// serialize cases, NamedDataStore cases and deserialize cases, comparing
// bytes, restored models, and errors by stable code.
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "core/result.h"
#include "model/named_data_store.h"

namespace etpack::conformance {

struct CaseResult {
  std::string name;
  bool passed = false;
  std::string detail;  // why it failed
};

CaseResult run_case(const std::string& case_dir);
// Every folder holding a case.json, directly under each of `dirs`, in name order.
std::vector<std::string> find_cases(const std::vector<std::string>& dirs);

// Helpers shared with unit tests.
Result<Blob> read_file(const std::string& path);
Result<Json> read_json_file(const std::string& path);
// {buffers: [file], pte_data: {key: entry}, external_data: {tag: {key: entry}}}
Result<NamedDataStoreOutput> store_output_from_json(const Json& j, const std::string& dir);
Result<EntryMap> entries_from_json(const Json& j);
// The stable error code the README's table assigns to an upstream error.
std::string expected_code(const Json& expected);

}  // namespace etpack::conformance
