// The method allocator's figures where users read them: inspect's per-method
// and whole-model figures (with and without .ptd files), and validate's
// METHOD_ALLOCATOR_TOO_SMALL against a pool the caller names.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "inspect/inspect.h"
#include "validate/validate.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

using testing::load_file;

fs::path shared(const std::string& rel) { return fs::path(ETPACK_CONFORMANCE_DIR).parent_path() / rel; }

uint64_t figure(const Json& pool, const char* arch, const char* which) {
  const Json* a = pool.find(arch);
  const Json* v = a ? a->find(which) : nullptr;
  return v ? v->as_uint64().value_or(UINT64_MAX) : UINT64_MAX;
}

const Json& forward_pool(const Json& summary) {
  return *summary.find("methods")->items()[0].find("memory")->find("methodAllocator");
}

TEST(MethodAllocatorFigures, InspectGivesTheModelTotalAndTheRuntime) {
  auto r = inspect_pte(load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Json* model = r->find("methodAllocator");
  ASSERT_TRUE(model && model->is_object());
  EXPECT_EQ(model->find("runtime")->text(), kMethodAllocatorRuntime);
  EXPECT_EQ(model->find("dataFiles")->as_uint64(), 0u);
  EXPECT_FALSE(model->find("mergedDataMap")->bool_value());
  // One method: the total is its figure (RUNTIME.md: add 376 on x86_64, 224 on ARM 32-bit).
  const Json& all = *model->find("allMethods");
  EXPECT_EQ(figure(all, "64-bit", "withTempAllocator"), 376u);
  EXPECT_EQ(figure(all, "64-bit", "withoutTempAllocator"), 548u);
  EXPECT_EQ(figure(all, "arm32", "withTempAllocator"), 224u);
  EXPECT_EQ(all.find("runtime"), nullptr);
}

TEST(MethodAllocatorFigures, InspectWithDataFilesCountsTheMergedDataMap) {
  const Blob pte = load_file(shared("conformance/13_everything/out.pte"));
  auto alone = inspect_pte(pte);
  auto with_ptd = inspect_pte(pte, 2);
  ASSERT_TRUE(alone.ok() && with_ptd.ok());
  EXPECT_TRUE(with_ptd->find("methodAllocator")->find("mergedDataMap")->bool_value());
  EXPECT_EQ(with_ptd->find("methodAllocator")->find("dataFiles")->as_uint64(), 2u);
  for (const char* which : {"withTempAllocator", "withoutTempAllocator"}) {
    EXPECT_EQ(figure(forward_pool(*with_ptd), "64-bit", which), figure(forward_pool(*alone), "64-bit", which) + 24);
    EXPECT_EQ(figure(forward_pool(*with_ptd), "arm32", which), figure(forward_pool(*alone), "arm32", which) + 12);
  }
  // A program without a named_data table uses the .ptd's map as it is.
  const Blob plain = load_file(shared("conformance/11_external_constants_only/out.pte"));
  auto a = inspect_pte(plain), b = inspect_pte(plain, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(b->find("methodAllocator")->find("mergedDataMap")->bool_value());
  EXPECT_EQ(write_json(forward_pool(*a)), write_json(forward_pool(*b)));
}

ValidateOptions pool_of(uint64_t bytes, AllocatorArch arch, bool temp) {
  ValidateOptions o;
  o.method_allocator = ValidateOptions::MethodAllocator{bytes, arch, temp};
  return o;
}

const Finding* find_code(const ValidationReport& r, const std::string& code) {
  for (const Finding& f : r.errors)
    if (f.code == code) return &f;
  return nullptr;
}

TEST(MethodAllocatorFigures, ValidateNamesTheMethodAndTheBytesMissing) {
  const Blob add = load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte");
  // The measured minimum fits, one byte less does not (x86_64 376 / 548, arm32 224).
  EXPECT_TRUE(validate_artifacts(add, {}, pool_of(376, AllocatorArch::k64Bit, true)).ok());
  EXPECT_TRUE(validate_artifacts(add, {}, pool_of(548, AllocatorArch::k64Bit, false)).ok());
  EXPECT_TRUE(validate_artifacts(add, {}, pool_of(224, AllocatorArch::kArm32, true)).ok());
  ValidationReport small = validate_artifacts(add, {}, pool_of(375, AllocatorArch::k64Bit, true));
  ASSERT_EQ(small.errors.size(), 1u);
  const Finding& f = small.errors[0];
  EXPECT_EQ(f.code, finding::kMethodAllocatorTooSmall);
  EXPECT_EQ(f.path, "execution_plan[0]");
  EXPECT_EQ(f.file, "pte");
  EXPECT_NE(f.message.find("load_method('forward')"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("needs 376 bytes"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find(", 1 more than the 375 given"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("with a temp allocator"), std::string::npos) << f.message;
  ValidationReport arm = validate_artifacts(add, {}, pool_of(300, AllocatorArch::kArm32, false));
  ASSERT_NE(find_code(arm, finding::kMethodAllocatorTooSmall), nullptr);
  EXPECT_NE(find_code(arm, finding::kMethodAllocatorTooSmall)->message.find("needs 320 bytes of the method allocator on arm32 without"),
            std::string::npos);
  // No option, no such check.
  EXPECT_TRUE(validate_artifacts(add, {}).ok());
}

TEST(MethodAllocatorFigures, ValidateCountsTheDataFilesGiven) {
  const fs::path dir = shared("conformance/13_everything");
  const Blob pte = load_file(dir / "out.pte");
  auto summary = inspect_pte(pte, 2);
  ASSERT_TRUE(summary.ok());
  const uint64_t need = figure(forward_pool(*summary), "64-bit", "withTempAllocator");
  const std::vector<std::pair<std::string, Blob>> ptds = {{"model.ptd", load_file(dir / "model.ptd")},
                                                          {"shard_b.ptd", load_file(dir / "shard_b.ptd")}};
  ValidationReport fits = validate_artifacts(pte, ptds, pool_of(need, AllocatorArch::k64Bit, true));
  EXPECT_EQ(find_code(fits, finding::kMethodAllocatorTooSmall), nullptr);
  ValidationReport short_by_24 = validate_artifacts(pte, ptds, pool_of(need - 24, AllocatorArch::k64Bit, true));
  const Finding* f = find_code(short_by_24, finding::kMethodAllocatorTooSmall);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find(", 24 more than"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("and the .ptd files given"), std::string::npos) << f->message;
  // The .pte alone costs 24 bytes less: the same pool passes its method allocator check.
  ValidationReport alone = validate_artifacts(pte, {}, pool_of(need - 24, AllocatorArch::k64Bit, true));
  EXPECT_EQ(find_code(alone, finding::kMethodAllocatorTooSmall), nullptr);
}

}  // namespace
}  // namespace etpack
