// validate's TENSOR_NAME_SHARED warning: one fully_qualified_name on tensors
// of different layouts loads, but no .ptd or safetensors entry fits both,
// so the file is valid with a warning naming the tensors.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "encode/pte_writer.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::describe;

// Indices of plan 0's Tensor values that carry a fully_qualified_name and
// weights (no planned memory: mutable buffers are not weights).
std::vector<size_t> named_values(const TableValue& program) {
  std::vector<size_t> out;
  const Value& values = program.get("execution_plan").items()[0].table().get("values");
  for (size_t i = 0; i < values.items().size(); ++i) {
    const Value& val = values.items()[i].table().get("val");
    if (!val.is_table() || val.table().def->name != "Tensor") continue;
    const Value& extra = val.table().get("extra_tensor_info");
    if (extra.is_table() && extra.table().get("fully_qualified_name").is_string() &&
        val.table().get("allocation_info").absent())
      out.push_back(i);
  }
  return out;
}

TableValue& tensor(TableValue& program, size_t value) {
  return program.at("execution_plan").items()[0].table().at("values").items()[value].table().at("val").table();
}

std::vector<uint8_t> rewrite(const PteFile& pte) {
  auto cord = serialize_pte_binary(pte.program, pte.mutable_data ? &*pte.mutable_data : nullptr,
                                   pte.named_data ? &*pte.named_data : nullptr, PteConfig{});
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  return std::move(cord->to_bytes().value());
}

std::vector<const Finding*> shared(const ValidationReport& r) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.warnings)
    if (f.code == finding::kTensorNameShared) out.push_back(&f);
  return out;
}

TEST(ValidateSharedNames, OneNameTwoLayoutsWarnsNamingIt) {
  Blob file = testing::load_file(fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything" / "out.pte");
  auto read = deserialize_pte_binary(file);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_TRUE(shared(validate_artifacts(file, {})).empty());

  // The first named tensor, and the first after it of other sizes.
  std::vector<size_t> named = named_values(read->program);
  ASSERT_GE(named.size(), 2u);
  auto sizes_of = [&](size_t v) {
    const Blob& b = tensor(read->program, v).get("sizes").scalars();
    return std::vector<uint8_t>(b.data(), b.data() + b.size());
  };
  size_t other = 1;
  while (other < named.size() && sizes_of(named[other]) == sizes_of(named[0])) ++other;
  ASSERT_LT(other, named.size()) << "13_everything has named tensors of two shapes";
  const std::string name = tensor(read->program, named[0]).get("extra_tensor_info").table().get("fully_qualified_name").str();
  TableValue& second = tensor(read->program, named[other]);
  second.at("extra_tensor_info").table().at("fully_qualified_name") = Value::from_string(name);

  std::vector<uint8_t> bytes = rewrite(*read);
  ValidationReport r = validate_artifacts(Blob::view(bytes.data(), bytes.size()), {});
  auto found = shared(r);
  ASSERT_EQ(found.size(), 1u) << describe(r);
  EXPECT_EQ(found[0]->file, "pte");
  EXPECT_EQ(found[0]->path, "execution_plan[0].values[" + std::to_string(named[other]) + "]");
  EXPECT_NE(found[0]->message.find("\"" + name + "\""), std::string::npos) << found[0]->message;
  EXPECT_NE(found[0]->message.find("values[" + std::to_string(named[0]) + "]"), std::string::npos) << found[0]->message;
}

TEST(ValidateSharedNames, OneNameOneLayoutIsQuiet) {
  // The same name twice at the same layout fits one entry: no warning.
  Blob file = testing::load_file(fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything" / "out.pte");
  auto read = deserialize_pte_binary(file);
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::vector<size_t> named = named_values(read->program);
  ASSERT_GE(named.size(), 2u);
  TableValue& first = tensor(read->program, named[0]);
  TableValue& second = tensor(read->program, named[1]);
  second.at("sizes") = first.get("sizes");
  second.at("dim_order") = first.get("dim_order");
  second.at("scalar_type") = first.get("scalar_type");
  second.at("extra_tensor_info").table().at("fully_qualified_name") =
      first.get("extra_tensor_info").table().get("fully_qualified_name");
  std::vector<uint8_t> bytes = rewrite(*read);
  ValidationReport r = validate_artifacts(Blob::view(bytes.data(), bytes.size()), {});
  EXPECT_TRUE(shared(r).empty()) << describe(r);
}

}  // namespace
}  // namespace etpack
