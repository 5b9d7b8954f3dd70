// What the validate tests ask of a report: its findings of one code, the
// one error a patched file must give, and the report as JSON for failure
// messages. Shared so that each test file states only its cases.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/blob.h"
#include "core/json.h"
#include "validate/validate.h"

namespace etpack::testing {

// The report as JSON text, for a failing check's message.
inline std::string describe(const ValidationReport& r) { return write_json(r.to_json()); }

// A conformance vector's folder, an artifact's path (the test binaries get
// both folders as compile definitions).
inline std::filesystem::path conformance(const char* name) { return std::filesystem::path(ETPACK_CONFORMANCE_DIR) / name; }
inline std::filesystem::path artifact(const char* name) { return std::filesystem::path(ETPACK_ARTIFACTS_DIR) / name; }

// Bytes held by the test, as a Blob that does not copy them.
inline Blob view(const std::vector<uint8_t>& bytes) { return Blob::view(bytes.data(), bytes.size()); }

// The findings of `code` in `list` (errors or warnings), in report order.
inline std::vector<const Finding*> with_code(const std::vector<Finding>& list, const std::string& code) {
  std::vector<const Finding*> out;
  for (const Finding& f : list)
    if (f.code == code) out.push_back(&f);
  return out;
}

// The one error of `code`, which must name `path` and say `text`.
inline void expect_error(const ValidationReport& r, const std::string& code, const std::string& path,
                         const std::string& text) {
  auto found = with_code(r.errors, code);
  ASSERT_EQ(found.size(), 1u) << code << " in " << describe(r);
  EXPECT_EQ(found[0]->path, path) << describe(r);
  EXPECT_NE(found[0]->message.find(text), std::string::npos) << found[0]->message;
}

}  // namespace etpack::testing
