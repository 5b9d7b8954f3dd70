// inspect's requirements: each row of the feature table (a file using the
// feature yields its release), the requirements of every artifact and
// conformance output, the memory plan, the largest constants and decoded
// compile specs.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "encode/pte_writer.h"
#include "inspect/inspect.h"
#include "read/pte_reader.h"
#include "read/requirements.h"
#include "unit/pte_cases.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::load_file;

fs::path conformance(const char* name) { return fs::path(ETPACK_CONFORMANCE_DIR) / name; }
fs::path artifact(const char* name) { return fs::path(ETPACK_ARTIFACTS_DIR) / name; }

Json inspect(const Blob& file) {
  auto r = inspect_pte(file);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : Json::object();
}

std::string text(const Json& j, const char* key) {
  const Json* v = j.find(key);
  return v && v->is_string() ? v->text() : "<none>";
}

std::vector<std::string> strings(const Json& list) {
  std::vector<std::string> out;
  for (const Json& s : list.items()) out.push_back(s.text());
  return out;
}

std::string min_version(const Blob& file) { return text(*inspect(file).find("requirements"), "minRuntimeVersion"); }

// The requirements of a program after `edit`, written by our serializer.
std::string min_version_after(const fs::path& path, const std::function<void(TableValue&)>& edit) {
  auto read = deserialize_pte_binary(load_file(path));
  EXPECT_TRUE(read.ok());
  edit(read->program);
  const std::vector<Blob>* mutable_data = read->mutable_data ? &*read->mutable_data : nullptr;
  const NamedDataStoreOutput* named = read->named_data ? &*read->named_data : nullptr;
  auto cord = serialize_pte_binary(read->program, mutable_data, named, PteConfig{});
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  auto bytes = cord->to_bytes();
  return min_version(Blob::own(std::move(bytes.value())));
}

TableValue& first_tensor(TableValue& program, int64_t data_buffer_idx) {
  for (Value& v : program.at("execution_plan").items()[0].table().at("values").items()) {
    Value& val = v.table().at("val");
    if (val.is_table() && val.table().def->name == "Tensor" &&
        val.table().get_int("data_buffer_idx") == data_buffer_idx && !val.table().has("allocation_info"))
      return val.table();
  }
  ADD_FAILURE() << "no constant tensor";
  return program;
}

// One file per row of the feature table in src/read/requirements.cpp.
TEST(FeatureTable, EachRowGivesItsRelease) {
  EXPECT_EQ(min_version(load_file(conformance("01_no_segments") / "out.pte")), "0.1");
  EXPECT_EQ(min_version(load_file(conformance("02_constants_default") / "out.pte")), "0.2");
  EXPECT_EQ(min_version(load_file(conformance("04b_mutable_only") / "out.pte")), "0.4");
  EXPECT_EQ(min_version(load_file(conformance("11_external_constants_only") / "out.pte")), "0.5");
  EXPECT_EQ(min_version(load_file(conformance("08_named_data_pte") / "out.pte")), "0.6");
  auto ptd = inspect_ptd(load_file(conformance("13_everything") / "model.ptd"));
  ASSERT_TRUE(ptd.ok());
  EXPECT_EQ(text(*ptd->find("requirements"), "minRuntimeVersion"), "0.7");
  // Several .ptd files (1.0) are a property of the set: see RuntimeTarget tests.
  EXPECT_EQ(min_version_after(conformance("02_constants_default") / "out.pte",
                              [](TableValue& p) { first_tensor(p, 1).set_int("scalar_type", 15); }),
            "1.2");  // bfloat16; the constant keeps its 12 bytes as 6 bf16 values
  EXPECT_EQ(min_version_after(artifact("add.pte"),
                              [](TableValue& p) {
                                TableValue& plan = p.at("execution_plan").items()[0].table();
                                TableValue device(program_schema().find_table("NonConstBufferDevice"));
                                device.set_int("buffer_idx", 1);
                                device.set_int("device_type", 1);  // CUDA
                                plan.at("non_const_buffer_device") = Value::from_items({Value::from_table(device)});
                              }),
            "1.3");
  // CPU devices are what older runtimes assume: no 1.3 needed.
  EXPECT_EQ(min_version(load_file(conformance("13_everything") / "out.pte")), "0.6");
}

TEST(FeatureTable, EveryFeatureHasARelease) {
  for (Feature f : {Feature::kProgram, Feature::kConstantSegment, Feature::kMutableData, Feature::kExternalTensors,
                    Feature::kNamedDataInPte, Feature::kPtdFile, Feature::kSeveralPtdFiles, Feature::kBFloat16,
                    Feature::kDeviceFields}) {
    EXPECT_FALSE(std::string(feature_name(f)).empty());
    EXPECT_TRUE(parse_release(feature_since(f).text()));
  }
}

TEST(Requirements, EveryFileListsWhatItNeeds) {
  size_t files = 0;
  for (const testing::PteCase& c : testing::every_pte_case()) {
    ++files;
    Json s = inspect(load_file(c.pte));
    const Json& r = *s.find("requirements");
    EXPECT_TRUE(parse_release(text(r, "minRuntimeVersion"))) << c.pte;
    std::set<std::string> ops, backends, keys;
    for (const Json& m : s.find("methods")->items()) {
      for (const Json& op : m.find("operators")->items()) {
        const Json* overload = op.find("overload");
        ops.insert(text(op, "name") + (overload->is_string() ? "." + overload->text() : ""));
      }
      for (const Json& d : m.find("delegates")->items()) backends.insert(text(d, "id"));
    }
    for (const Json& t : s.find("externalTensors")->items()) keys.insert(text(t, "name"));
    auto listed = [&](const char* key) {
      std::vector<std::string> v = strings(*r.find(key));
      return std::set<std::string>(v.begin(), v.end());
    };
    EXPECT_EQ(listed("operators"), ops) << c.pte;
    EXPECT_EQ(listed("backends"), backends) << c.pte;
    std::set<std::string> external;
    for (const Json& e : r.find("externalData")->items()) external.insert(text(e, "key"));
    EXPECT_EQ(external, keys) << c.pte;
    // Every key the program needs is in its .ptd files.
    for (const std::string& key : external) {
      bool found = false;
      for (const auto& [name, bytes] : c.ptds) {
        auto ptd = inspect_ptd(bytes);
        for (const Json& k : ptd->find("namedData")->find("key")->items()) found = found || k.text() == key;
      }
      EXPECT_TRUE(found) << c.pte << " needs " << key;
    }
  }
  EXPECT_GT(files, 30u);
}

TEST(Requirements, EverythingNeedsTwoBackendsItsKernelsAndTwoKeys) {
  Json s = inspect(load_file(conformance("13_everything") / "out.pte"));
  const Json& r = *s.find("requirements");
  EXPECT_EQ(strings(*r.find("backends")), (std::vector<std::string>{"XnnpackBackend", "QnnBackend"}));
  EXPECT_EQ(strings(*r.find("operators")),
            (std::vector<std::string>{"aten::add.out", "aten::clone.out", "aten::mul.out", "aten::copy_"}));
  const Json& external = *r.find("externalData");
  ASSERT_EQ(external.items().size(), 2u);
  EXPECT_EQ(text(external.items()[0], "key"), "lin.weight");
  EXPECT_EQ(text(external.items()[0], "dtype"), "Float");
  EXPECT_EQ(write_json(*external.items()[0].find("shape")), "[3, 3]");
  EXPECT_EQ(write_json(*external.items()[0].find("bytes")), "36");
  EXPECT_EQ(write_json(*external.items()[0].find("methods")), "[\"forward\"]");
  EXPECT_EQ(text(external.items()[1], "key"), "lin.bias");
  std::vector<std::string> features;
  for (const Json& f : r.find("features")->items()) features.push_back(text(f, "since"));
  EXPECT_EQ(features, (std::vector<std::string>{"0.1", "0.2", "0.4", "0.6", "0.5"}));
}

TEST(Requirements, MemoryPlanPerMethod) {
  Json s = inspect(load_file(conformance("13_everything") / "out.pte"));
  const Json& memory = *s.find("methods")->items()[0].find("memory");
  EXPECT_EQ(write_json(*memory.find("plannedBuffers")), "[0, 176]");
  EXPECT_EQ(write_json(*memory.find("plannedTotal")), "176");
}

TEST(Requirements, LargestConstantsByNameElsePath) {
  // 02: six constants of 12/33/10/1/100/64 bytes, no names.
  Json s = inspect(load_file(conformance("02_constants_default") / "out.pte"));
  const Json& largest = *s.find("constants")->find("largest");
  ASSERT_EQ(largest.items().size(), 6u);
  std::vector<std::string> bytes;
  for (const Json& c : largest.items()) bytes.push_back(write_json(*c.find("bytes")));
  EXPECT_EQ(bytes, (std::vector<std::string>{"100", "64", "33", "12", "10", "1"}));
  EXPECT_EQ(text(largest.items()[0], "name"), "execution_plan[0].values[23]");
  EXPECT_EQ(text(largest.items()[0], "dtype"), "Int");
  EXPECT_EQ(write_json(*largest.items()[0].find("shape")), "[5, 5]");
  EXPECT_EQ(text(largest.items()[0], "where"), "constant_segment.offsets[5]");
  // A named constant shows its name: give the largest one a fully_qualified_name.
  auto read = deserialize_pte_binary(load_file(conformance("02_constants_default") / "out.pte"));
  ASSERT_TRUE(read.ok());
  TableValue& t = first_tensor(read->program, 5);
  TableValue info(program_schema().find_table("ExtraTensorInfo"));
  info.at("fully_qualified_name") = Value::from_string("encoder.weight");
  t.at("extra_tensor_info") = Value::from_table(info);
  auto cord = serialize_pte_binary(read->program, nullptr, nullptr, PteConfig{});
  ASSERT_TRUE(cord.ok());
  Json named = inspect(Blob::own(std::move(cord->to_bytes().value())));
  EXPECT_EQ(text(named.find("constants")->find("largest")->items()[0], "name"), "encoder.weight");
  // Old exports: constants in constant_buffer.
  Json old = inspect(load_file(artifact("module_linear_no_constant_segment.pte")));
  const Json& first = old.find("constants")->find("largest")->items()[0];
  EXPECT_EQ(text(first, "where").rfind("constant_buffer[", 0), 0u);
}

TEST(Requirements, CompileSpecsAreDecodedWhenReadable) {
  Json s = inspect(load_file(conformance("13_everything") / "out.pte"));
  const Json& specs = *s.find("methods")->items()[0].find("delegates")->items()[0].find("compileSpecValues");
  EXPECT_EQ(write_json(specs),
            "[{\"key\": \"num_threads\", \"bytes\": 4, \"value\": 4}, {\"key\": \"name\", \"bytes\": 14, \"value\": \"XnnpackBackend\"}]");
}

}  // namespace
}  // namespace etpack
