// Delegate payloads in inspect and validate, on the .pte-wrapped vectors of
// ../shared/delegates (or $ETPACK_DELEGATES_DIR): inspect shows each
// delegate's payload kind, operators and named keys; validate refuses a .pte
// whose delegate needs a named-data key no given file holds, naming key,
// delegate and method (x08 alone), and passes it with its .ptd.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "inspect/inspect.h"
#include "validate/validate.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

fs::path delegates_root() {
  if (const char* env = std::getenv("ETPACK_DELEGATES_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates";
}

Blob file(const fs::path& p) { return testing::load_file(p); }

std::vector<const Finding*> with_code(const ValidationReport& r, const std::string& code) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.errors)
    if (f.code == code) out.push_back(&f);
  return out;
}

TEST(DelegateRules, InspectShowsEveryWrappedPayload) {
  size_t seen = 0;
  std::error_code ec;
  for (const char* kind : {"xnnpack", "vulkan"}) {
    for (const auto& v : fs::directory_iterator(delegates_root() / kind, ec)) {
      for (const char* wrap : {"pte_inline", "pte_segment"}) {
        const fs::path pte = v.path() / wrap / "out.pte";
        if (!fs::exists(pte)) continue;
        SCOPED_TRACE(pte.string());
        auto summary = inspect_pte(file(pte));
        ASSERT_TRUE(summary.ok()) << summary.error().message;
        const Json& delegate = summary->find("methods")->items().at(0).find("delegates")->items().at(0);
        const Json* payload = delegate.find("payload");
        ASSERT_NE(payload, nullptr);
        ASSERT_TRUE(payload->is_object()) << write_json(delegate);
        EXPECT_EQ(payload->find("kind")->text(), kind);
        EXPECT_GT(payload->find("nodes")->as_uint64().value_or(0), 0u);
        EXPECT_FALSE(payload->find("operators")->members().empty());
        ++seen;
      }
    }
  }
  EXPECT_GE(seen, 12u);
}

TEST(DelegateRules, XnnpackNamedWeightsInThePtd) {
  const fs::path dir = delegates_root() / "xnnpack" / "x08_dynamic_qdint8_linear" / "pte_segment";
  const Blob pte = file(dir / "out.pte");
  const ValidationReport alone = validate_artifacts(pte, {});
  const auto missing = with_code(alone, "DELEGATE_NAMED_KEY_MISSING");
  ASSERT_FALSE(missing.empty()) << write_json(alone.to_json());
  for (const Finding* f : missing) {
    EXPECT_NE(f->message.find("delegate 0 (XnnpackBackend) of method 'forward'"), std::string::npos) << f->message;
    EXPECT_NE(f->message.find("needs the named-data key '"), std::string::npos) << f->message;
    EXPECT_EQ(f->path, "execution_plan[0].delegates[0]");
  }
  const ValidationReport with_ptd = validate_artifacts(pte, {{"xnnpack_weights.ptd", file(dir / "xnnpack_weights.ptd")}});
  EXPECT_TRUE(with_ptd.ok()) << write_json(with_ptd.to_json());
  // The keys inspect lists are those validate looked for; none in the .pte.
  auto summary = inspect_pte(pte);
  ASSERT_TRUE(summary.ok());
  const Json& payload = *summary->find("methods")->items().at(0).find("delegates")->items().at(0).find("payload");
  EXPECT_EQ(payload.find("namedKeys")->items().size(), missing.size());
  for (const Json& k : payload.find("namedKeys")->items()) EXPECT_TRUE(k.find("in")->is_null());
}

TEST(DelegateRules, NamedWeightsInThePteResolve) {
  const fs::path dir = delegates_root() / "xnnpack" / "x02_linear_fp32_named";
  for (const char* wrap : {"pte_inline", "pte_segment"}) {
    const Blob pte = file(dir / wrap / "out.pte");
    EXPECT_TRUE(with_code(validate_artifacts(pte, {}), "DELEGATE_NAMED_KEY_MISSING").empty()) << wrap;
    auto summary = inspect_pte(pte);
    ASSERT_TRUE(summary.ok());
    const Json& payload = *summary->find("methods")->items().at(0).find("delegates")->items().at(0).find("payload");
    ASSERT_FALSE(payload.find("namedKeys")->items().empty());
    for (const Json& k : payload.find("namedKeys")->items()) EXPECT_EQ(k.find("in")->text(), "pte");
  }
}

// XNNPACK's runtime looks a constant up by name whenever the named_key field
// is present, and the serializer writes "" for inline constants: on the
// runtime at cff6f4dd such a blob's init() asks the named data map for "".
TEST(DelegateRules, XnnpackInlineConstantsAreLookedUpByAnEmptyKey) {
  const Blob pte = file(delegates_root() / "xnnpack" / "x01_linear_fp32_inline" / "pte_inline" / "out.pte");
  // The report outlives the findings with_code points into.
  const ValidationReport report = validate_artifacts(pte, {});
  const auto missing = with_code(report, "DELEGATE_NAMED_KEY_MISSING");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0]->message.find("named-data key ''"), std::string::npos) << missing[0]->message;
  EXPECT_NE(missing[0]->message.find("even empty"), std::string::npos) << missing[0]->message;
}

}  // namespace
}  // namespace etpack
