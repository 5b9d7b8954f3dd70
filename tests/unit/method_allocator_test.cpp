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
  Json j = method_allocator_json(method_allocator_figures(*plan));
  EXPECT_EQ(write_json(j), R"({"64-bit": {"withTempAllocator": 376, "withoutTempAllocator": 548}, )"
                           R"("arm32": {"withTempAllocator": 224, "withoutTempAllocator": 320}, "runtime": ")" +
                               std::string(kMethodAllocatorRuntime) + "\"}");
}

const TableValue& forward_of(const TableValue& program) {
  const TableValue* plan = plan_named(program, "forward");
  EXPECT_NE(plan, nullptr);
  return *plan;
}

// One walk gives the four figures the per-figure replay gives.
TEST(MethodAllocator, FiguresOfOneWalkEqualEachReplay) {
  for (const Measured& m : kMeasured64) {
    SCOPED_TRACE(m.file);
    Result<PteFile> pte = read_pte_program(testing::load_file(shared(m.file)));
    ASSERT_TRUE(pte.ok());
    const TableValue& plan = forward_of(pte->program);
    const MethodAllocatorFigures f = method_allocator_figures(plan);
    EXPECT_EQ(f.get(AllocatorArch::k64Bit, true), m.with_temp);
    EXPECT_EQ(f.get(AllocatorArch::k64Bit, false), m.without_temp);
    for (AllocatorArch arch : {AllocatorArch::k64Bit, AllocatorArch::kArm32})
      for (bool temp : {true, false}) EXPECT_EQ(f.get(arch, temp), method_allocator_bytes(plan, arch, temp));
  }
}

// method.cpp Method::init: given an external data map while the .pte has a
// named_data table, load_method places a MergedDataMap (24 bytes on 64-bit,
// 12 on arm32) after the delegates; later requests align to at most 8 (4
// on arm32 after the delegates), so the figure grows by exactly that.
TEST(MethodAllocator, DataFilesCostAMergedDataMapWhenTheProgramHasNamedData) {
  Result<PteFile> pte = read_pte_program(testing::load_file(shared("conformance/13_everything/out.pte")));
  ASSERT_TRUE(pte.ok());
  ASSERT_TRUE(pte->program.has("named_data"));
  EXPECT_FALSE(method_allocator_merges_data_map(pte->program, 0));
  EXPECT_TRUE(method_allocator_merges_data_map(pte->program, 1));
  EXPECT_TRUE(method_allocator_merges_data_map(pte->program, 3));  // Module merges several .ptd files on the heap
  const TableValue& plan = forward_of(pte->program);
  const MethodAllocatorFigures alone = method_allocator_figures(plan, false);
  const MethodAllocatorFigures merged = method_allocator_figures(plan, true);
  for (bool temp : {true, false}) {
    EXPECT_EQ(merged.get(AllocatorArch::k64Bit, temp), alone.get(AllocatorArch::k64Bit, temp) + 24);
    EXPECT_EQ(merged.get(AllocatorArch::kArm32, temp), alone.get(AllocatorArch::kArm32, temp) + 12);
  }
}

// Program::load makes a PteDataMap whenever the named_data table is
// there, empty or not; without the table, the .ptd's map is used as it is.
TEST(MethodAllocator, AnEmptyNamedDataTableStillMerges) {
  Result<PteFile> with = read_pte_program(testing::load_file(shared("conformance/19_real_arduino_add_default/out.pte")));
  Result<PteFile> without = read_pte_program(testing::load_file(shared("conformance/19_real_arduino_add_default_nd_none/out.pte")));
  ASSERT_TRUE(with.ok() && without.ok());
  ASSERT_TRUE(with->program.get("named_data").is_items());
  EXPECT_TRUE(with->program.get("named_data").items().empty());
  EXPECT_TRUE(method_allocator_merges_data_map(with->program, 1));
  EXPECT_FALSE(without->program.has("named_data"));
  EXPECT_FALSE(method_allocator_merges_data_map(without->program, 1));
}

// One pool for every method: each figure but the last rounded up to 8.
TEST(MethodAllocator, TotalRoundsEachMethodButTheLastUpTo8) {
  MethodAllocatorFigures a, b;
  for (size_t arch = 0; arch < 2; ++arch)
    for (size_t temp = 0; temp < 2; ++temp) {
      a.bytes[arch][temp] = 547 + arch + temp;
      b.bytes[arch][temp] = 101;
    }
  const MethodAllocatorFigures total = method_allocator_total({a, b});
  EXPECT_EQ(total.get(AllocatorArch::k64Bit, true), 552u + 101u);   // 547 -> 552
  EXPECT_EQ(total.get(AllocatorArch::k64Bit, false), 552u + 101u);  // 548 -> 552
  EXPECT_EQ(total.get(AllocatorArch::kArm32, false), 552u + 101u);  // 549 -> 552
  EXPECT_EQ(method_allocator_total({a}).get(AllocatorArch::k64Bit, true), 547u);
  EXPECT_EQ(method_allocator_total({}).get(AllocatorArch::kArm32, true), 0u);
  b.bytes[0][0] = UINT64_MAX;
  EXPECT_EQ(method_allocator_total({b, a}).get(AllocatorArch::k64Bit, true), UINT64_MAX);  // saturates
}

}  // namespace
}  // namespace etpack
