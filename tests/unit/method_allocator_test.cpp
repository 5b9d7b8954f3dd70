// The method allocator's minimum per method: the replay of load_method's
// requests equals the real runtime's minimum, found by bisection (64-byte
// aligned pool, stub kernels and backends) on x86_64 with and without a
// temp allocator; and ARM 32-bit's figure for add.pte (../shared/RUNTIME.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "read/method_allocator.h"
#include "read/pte_reader.h"
#include "test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

struct Measured {
  const char* file;  // under ../shared
  const char* method;
  uint64_t with_temp;
  uint64_t without_temp;
};

// Bisection on the runtime at cff6f4dd, x86_64: every method of the
// conformance outputs and artifacts that loads without .ptd files.
const Measured kMeasured64[] = {
    {"conformance/01b_placeholder_constant_only/out.pte", "forward", 1072, 1328},
    {"conformance/02_constants_default/out.pte", "forward", 1888, 2622},
    {"conformance/03_constants_align64_seg4096/out.pte", "forward", 1888, 2622},
    {"conformance/04_mutable_data/out.pte", "forward", 2208, 3148},
    {"conformance/05_delegate_inline/out.pte", "forward", 1488, 1904},
    {"conformance/06_delegates_extracted_dedup/out.pte", "forward", 1920, 2336},
    {"conformance/18_deser_pte_01b_placeholder_constant_only/in.pte", "forward", 1072, 1328},
    {"conformance/18_deser_pte_02_constants_default/in.pte", "forward", 1888, 2622},
    {"conformance/18_deser_pte_03_constants_align64_seg4096/in.pte", "forward", 1888, 2622},
    {"conformance/18_deser_pte_04_mutable_data/in.pte", "forward", 2208, 3148},
    {"conformance/18_deser_pte_06_delegates_extracted_dedup/in.pte", "forward", 1920, 2336},
    {"conformance/19_real_add_default/out.pte", "forward", 376, 548},
    {"conformance/19_real_add_extract/out.pte", "forward", 376, 548},
    {"conformance/19_real_arduino_add_default/out.pte", "forward", 376, 547},
    {"conformance/19_real_arduino_add_default_nd_none/out.pte", "forward", 376, 547},
    {"conformance/19_real_arduino_add_extract/out.pte", "forward", 376, 547},
    {"conformance/19_real_arduino_add_extract_nd_none/out.pte", "forward", 376, 547},
    {"conformance/19_real_module_linear_no_constant_segment_default/out.pte", "forward", 616, 896},
    {"conformance/19_real_module_linear_no_constant_segment_extract/out.pte", "forward", 616, 896},
    {"artifacts/add.pte", "forward", 376, 548},
    {"artifacts/arduino_add.pte", "forward", 376, 547},
};

const TableValue* plan_named(const TableValue& program, const std::string& name) {
  const Value& plans = program.get("execution_plan");
  for (size_t i = 0; plans.is_items() && i < plans.items().size(); ++i) {
    const Value& n = plans.items()[i].table().get("name");
    if (n.is_string() && n.str() == name) return &plans.items()[i].table();
  }
  return nullptr;
}

fs::path shared(const std::string& rel) { return fs::path(ETPACK_CONFORMANCE_DIR).parent_path() / rel; }

TEST(MethodAllocator, ReplayEqualsTheRuntimesMeasuredMinimumOn64Bit) {
  for (const Measured& m : kMeasured64) {
    SCOPED_TRACE(std::string(m.file) + " " + m.method);
    const Blob file = testing::load_file(shared(m.file));
    Result<PteFile> pte = read_pte_program(file);
    ASSERT_TRUE(pte.ok()) << pte.error().message;
    const TableValue* plan = plan_named(pte->program, m.method);
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(method_allocator_bytes(*plan, AllocatorArch::k64Bit, true), m.with_temp);
    EXPECT_EQ(method_allocator_bytes(*plan, AllocatorArch::k64Bit, false), m.without_temp);
  }
}

TEST(MethodAllocator, AddOnArm32IsTheMeasuredFigure) {
  const Blob file = testing::load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte");
  Result<PteFile> pte = read_pte_program(file);
  ASSERT_TRUE(pte.ok());
  const TableValue* plan = plan_named(pte->program, "forward");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(method_allocator_bytes(*plan, AllocatorArch::kArm32, true), 224u);  // RUNTIME.md: 376 / 208 / 224
  Json j = method_allocator_json(*plan);
  EXPECT_EQ(write_json(j), R"({"64-bit": {"withTempAllocator": 376, "withoutTempAllocator": 548}, )"
                           R"("arm32": {"withTempAllocator": 224, "withoutTempAllocator": 320}, "runtime": ")" +
                               std::string(kMethodAllocatorRuntime) + "\"}");
}

}  // namespace
}  // namespace etpack
