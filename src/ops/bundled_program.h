// The BundledProgram (.bpte) operations the bindings call: serialize (the
// JS shape, upstream's dataclasses as JSON, to bytes matching upstream's
// serializer), deserialize, inspect and validate (the embedded program as a
// .pte, with its .ptd files, then every test case against its method).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "model/value_json.h"
#include "read/bundled_reader.h"
#include "read/file_source.h"
#include "inspect/layout_json.h"
#include "validate/validate.h"

namespace etpack {

// `text` is a BundledProgram as JSON: {version, method_test_suites:
// [{method_name, test_cases: [{inputs, expected_outputs}]}], program}, a
// value {val_type: "Tensor"|"Int"|"Double"|"Bool"|null, val}, a tensor
// {scalar_type, sizes, dim_order, data}. Byte fields (program, data) are
// references `resolve` turns into bytes. Errors: kInvalidJson,
// kSchemaMismatch naming the path (a value out of its field's range, a
// required field missing).
Result<std::vector<uint8_t>> serialize_bundled_program(std::string_view text, const BlobResolver& resolve);

// The file's bytes in memory: its head when that holds the whole file (the
// head size of a .bpte is the file size), else the file itself, read from
// the host when external (one copy: a flatbuffer is read whole).
Result<Blob> bundled_file_bytes(const FileSource& file);

// The whole file read back (see read_bundled_program for the errors).
Result<BundledFile> deserialize_bundled_program(const FileSource& file);

// inspect of a .bpte:
// {"format": "bpte", "fileSize", "identifier", "version",
//  "program": {"offset", "size"} | null,      // the embedded .pte in the file
//  "programSummary": <inspect of the .pte> | null, "programError": {"code", "message"} | null,
//  "methodTestSuites": [{"methodName": s | null, "testCases": [{"inputs": [value], "expectedOutputs": [value]}]}]}
// value: {"type": "Tensor", "dtype": "Float" | null, "scalarType": n, "shape": [n], "dimOrder": [n],
//         "dataOffset": n, "dataSize": n} | {"type": "Int", "value": n} | {"type": "Double", "value": x}
//        | {"type": "Bool", "value": b} | {"type": "None"}
Result<InspectReply> inspect_bundled_program(const FileSource& file);

// validate of a .bpte: the bundle's own structure (file "bpte"), the
// embedded program as validate_artifacts judges a .pte with `ptds` (file
// "pte": offsets inside the embedded program), then validate/bundled_checks.h.
Result<ValidationReport> validate_bundled_program(const FileSource& file,
                                                  const std::vector<std::pair<std::string, FileSource>>& ptds,
                                                  const ValidateOptions& options);

}  // namespace etpack
