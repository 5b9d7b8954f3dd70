// programToJson is upstream's _program_to_json text exactly: for every
// program.json that upstream wrote in ../shared/conformance, reading it into
// the model and writing it back gives the same bytes (key order of the
// exir/schema.py dataclasses, Python float repr, ", " and ": " spacing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/json.h"
#include "model/value_json.h"
#include "schema/schema.h"
#include "test_files.h"

namespace etpack {
namespace {

TEST(HostileJsonText, ProgramJsonRoundTripsByteForByte) {
  size_t checked = 0;
  for (const auto& [path, text] : testing::conformance_programs()) {
    auto program = table_from_json_text(text, *program_schema().root);
    ASSERT_TRUE(program.ok()) << path << ": " << program.error().message;
    const std::string out = write_json(table_to_json(*program));
    if (out != text) {
      size_t i = 0;
      while (i < out.size() && i < text.size() && out[i] == text[i]) ++i;
      ADD_FAILURE() << path << " differs at byte " << i << ":\n  upstream: " << text.substr(i < 60 ? 0 : i - 60, 140)
                    << "\n  ours:     " << out.substr(i < 60 ? 0 : i - 60, 140);
    }
    ++checked;
  }
  // 38 serialize cases plus the deserialize cases' programs.
  EXPECT_GE(checked, 38u) << "program.json files found under " << testing::conformance_root();
}

}  // namespace
}  // namespace etpack
