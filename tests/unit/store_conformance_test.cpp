// Replays every store case of the conformance vectors (case.json with
// `store_ops`) on a NamedDataStore and compares the result with what
// upstream's own NamedDataStore produced.
//
// The vectors live outside the repository: ETPACK_CONFORMANCE_DIR names the
// folder; otherwise ../shared/conformance relative to the source tree, taken
// from ETPACK_SOURCE_DIR when the build defines it, else from this file's
// path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/named_data_store.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

fs::path conformance_dir() {
  if (const char* env = std::getenv("ETPACK_CONFORMANCE_DIR"); env != nullptr && *env != '\0') {
    return fs::path(env);
  }
#ifdef ETPACK_SOURCE_DIR
  return fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "conformance";
#else
  // tests/unit/<this file> -> the source root.
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / ".." / "shared" /
         "conformance";
#endif
}

// Which code each error case must raise (conformance/README.md, "Errors").
// A case id is the folder name up to its first '_'.
const std::map<std::string, ErrorCode>& expected_codes() {
  static const std::map<std::string, ErrorCode> codes = {
      {"16a", ErrorCode::kInvalidAlignment},  {"16a2", ErrorCode::kInvalidAlignment},
      {"16h", ErrorCode::kInvalidAlignment},  {"16e", ErrorCode::kDuplicateKey},
      {"16g", ErrorCode::kDuplicateKey},      {"16g2", ErrorCode::kDuplicateKey},
      {"16j", ErrorCode::kDuplicateKey},      {"16i", ErrorCode::kShardCapExceeded},
      {"16i2", ErrorCode::kInvalidArgument},  {"16i3", ErrorCode::kInvalidArgument},
  };
  return codes;
}

Result<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kIoError, "cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<Blob> read_blob(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kIoError, "cannot open " + path.string());
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Blob::own(std::move(bytes));
}

Error schema(const std::string& what) { return make_error(ErrorCode::kSchemaMismatch, what); }

Result<const Json*> member(const Json& object, const char* name) {
  if (!object.is_object()) return schema(std::string("not an object where '") + name + "' was expected");
  const Json* value = object.find(name);
  if (value == nullptr) return schema(std::string("missing '") + name + "'");
  return value;
}

Result<std::string> string_member(const Json& object, const char* name) {
  ETP_ASSIGN(const Json* value, member(object, name));
  if (!value->is_string()) return schema(std::string("'") + name + "' is not a string");
  return value->text();
}

Result<uint64_t> uint_member(const Json& object, const char* name) {
  ETP_ASSIGN(const Json* value, member(object, name));
  std::optional<uint64_t> v = value->as_uint64();
  if (!v) return schema(std::string("'") + name + "' is not a non-negative integer");
  return *v;
}

Result<std::optional<TensorLayout>> parse_layout(const Json& value) {
  if (value.is_null()) return std::optional<TensorLayout>();
  TensorLayout layout;
  ETP_ASSIGN(const Json* scalar_type, member(value, "scalar_type"));
  std::optional<int64_t> st = scalar_type->as_int64();
  if (!st || *st < -128 || *st > 127) return schema("bad scalar_type");
  layout.scalar_type = static_cast<int8_t>(*st);
  ETP_ASSIGN(const Json* sizes, member(value, "sizes"));
  if (!sizes->is_array()) return schema("sizes is not a list");
  for (const Json& s : sizes->items()) {
    std::optional<int64_t> v = s.as_int64();
    if (!v || *v < INT32_MIN || *v > INT32_MAX) return schema("bad size");
    layout.sizes.push_back(static_cast<int32_t>(*v));
  }
  ETP_ASSIGN(const Json* dim_order, member(value, "dim_order"));
  if (!dim_order->is_array()) return schema("dim_order is not a list");
  for (const Json& d : dim_order->items()) {
    std::optional<uint64_t> v = d.as_uint64();
    if (!v || *v > 255) return schema("bad dim_order entry");
    layout.dim_order.push_back(static_cast<uint8_t>(*v));
  }
  return std::optional<TensorLayout>(std::move(layout));
}

Result<DataEntry> parse_entry(const Json& value) {
  DataEntry entry;
  ETP_ASSIGN(const uint64_t index, uint_member(value, "buffer_index"));
  if (index > UINT32_MAX) return schema("buffer_index too large");
  entry.buffer_index = static_cast<uint32_t>(index);
  ETP_ASSIGN(entry.alignment, uint_member(value, "alignment"));
  ETP_ASSIGN(const Json* layout, member(value, "tensor_layout"));
  ETP_ASSIGN(entry.tensor_layout, parse_layout(*layout));
  return entry;
}

Result<EntryMap> parse_entry_map(const Json& value) {
  if (!value.is_object()) return schema("entry map is not an object");
  EntryMap map;
  for (const auto& [key, entry_json] : value.members()) {
    ETP_ASSIGN(DataEntry entry, parse_entry(entry_json));
    map.emplace_back(key, std::move(entry));
  }
  return map;
}

// {buffers: [files], pte_data: {...}, external_data: {tag: {...}}}
Result<NamedDataStoreOutput> parse_output(const Json& value, const fs::path& dir) {
  NamedDataStoreOutput out;
  ETP_ASSIGN(const Json* buffers, member(value, "buffers"));
  if (!buffers->is_array()) return schema("buffers is not a list");
  for (const Json& file : buffers->items()) {
    if (!file.is_string()) return schema("buffer file is not a string");
    ETP_ASSIGN(Blob blob, read_blob(dir / file.text()));
    out.buffers.push_back(std::move(blob));
  }
  ETP_ASSIGN(const Json* pte, member(value, "pte_data"));
  ETP_ASSIGN(out.pte_data, parse_entry_map(*pte));
  ETP_ASSIGN(const Json* external, member(value, "external_data"));
  if (!external->is_object()) return schema("external_data is not an object");
  for (const auto& [tag, entries_json] : external->members()) {
    ETP_ASSIGN(EntryMap entries, parse_entry_map(entries_json));
    out.external_data.emplace_back(tag, std::move(entries));
  }
  return out;
}

// Runs one op and puts the store's own answer in `answer`; the returned
// Status fails only when the case itself is malformed.
Status apply_op(NamedDataStore& store, const Json& op, const fs::path& dir, Status& answer) {
  ETP_ASSIGN(const std::string name, string_member(op, "op"));
  if (name == "add_named_data") {
    ETP_ASSIGN(const std::string key, string_member(op, "key"));
    ETP_ASSIGN(const std::string file, string_member(op, "data"));
    ETP_ASSIGN(Blob data, read_blob(dir / file));
    ETP_ASSIGN(const uint64_t alignment, uint_member(op, "alignment"));
    ETP_ASSIGN(const Json* tag_json, member(op, "external_tag"));
    std::optional<std::string> tag;
    if (tag_json->is_string()) {
      tag = tag_json->text();
    } else if (!tag_json->is_null()) {
      return schema("external_tag is neither a string nor null");
    }
    ETP_ASSIGN(const Json* layout_json, member(op, "tensor_layout"));
    ETP_ASSIGN(std::optional<TensorLayout> layout, parse_layout(*layout_json));
    answer = store.add_named_data(key, std::move(data), alignment, std::move(tag), std::move(layout));
    return {};
  }
  if (name == "merge_named_data_store") {
    ETP_ASSIGN(const Json* other_json, member(op, "other"));
    ETP_ASSIGN(NamedDataStoreOutput other, parse_output(*other_json, dir));
    answer = store.merge_named_data_store(other);
    return {};
  }
  if (name == "externalize_pte_data") {
    ETP_ASSIGN(const uint64_t cap, uint_member(op, "max_data_bytes"));
    ETP_ASSIGN(const std::string prefix, string_member(op, "tag_prefix"));
    answer = store.externalize_pte_data(cap, prefix);
    return {};
  }
  return schema("unknown op '" + name + "'");
}

std::string describe(const std::optional<TensorLayout>& layout) {
  if (!layout) return "null";
  std::string s = "{scalar_type " + std::to_string(layout->scalar_type) + ", sizes [";
  for (int32_t v : layout->sizes) s += std::to_string(v) + ",";
  s += "], dim_order [";
  for (uint8_t v : layout->dim_order) s += std::to_string(v) + ",";
  return s + "]}";
}

void expect_same_entries(const EntryMap& actual, const EntryMap& expected, const std::string& where) {
  ASSERT_EQ(actual.size(), expected.size()) << where << ": number of entries";
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& [ak, ae] = actual[i];
    const auto& [ek, ee] = expected[i];
    EXPECT_EQ(ak, ek) << where << ": key at position " << i;
    EXPECT_EQ(ae.buffer_index, ee.buffer_index) << where << "/" << ek << ": buffer_index";
    EXPECT_EQ(ae.alignment, ee.alignment) << where << "/" << ek << ": alignment";
    EXPECT_TRUE(ae.tensor_layout == ee.tensor_layout)
        << where << "/" << ek << ": tensor_layout " << describe(ae.tensor_layout) << " vs expected "
        << describe(ee.tensor_layout);
  }
}

struct StoreCase {
  std::string name;
  fs::path dir;
};

// gtest prints a parameter on failure; the folder name says it all.
void PrintTo(const StoreCase& c, std::ostream* os) { *os << c.name; }

std::vector<StoreCase> list_store_cases() {
  std::vector<StoreCase> cases;
  std::error_code ec;
  const fs::path root = conformance_dir();
  if (!fs::is_directory(root, ec)) return cases;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory()) continue;
    Result<std::string> text = read_text(entry.path() / "case.json");
    if (!text.ok()) continue;
    Result<Json> doc = parse_json(text.value());
    // A case.json that does not parse is kept, so that the test reports it.
    if (!doc.ok() || doc->find("store_ops") != nullptr) {
      cases.push_back({entry.path().filename().string(), entry.path()});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const StoreCase& a, const StoreCase& b) { return a.name < b.name; });
  return cases;
}

const std::vector<StoreCase>& store_cases() {
  static const std::vector<StoreCase> cases = list_store_cases();
  return cases;
}

TEST(StoreConformance, FindsTheStoreCases) {
  // 16g, 16g2, 16h, 16i, 16i2, 16i3, 16j and 17a..17g at the time of writing:
  // finding none means the directory is wrong, not that all is well.
  EXPECT_GE(store_cases().size(), 12u) << "store cases found under " << conformance_dir()
                                       << " (set ETPACK_CONFORMANCE_DIR)";
}

class StoreCaseTest : public ::testing::TestWithParam<StoreCase> {};

TEST_P(StoreCaseTest, MatchesUpstream) {
  const StoreCase& c = GetParam();
  Result<std::string> text = read_text(c.dir / "case.json");
  ASSERT_TRUE(text.ok()) << text.error().message;
  Result<Json> parsed = parse_json(text.value());
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Json& doc = parsed.value();
  const Json* ops = doc.find("store_ops");
  ASSERT_TRUE(ops != nullptr && ops->is_array()) << "store_ops is not a list";
  const Json* expected = doc.find("expected");
  ASSERT_TRUE(expected != nullptr && expected->is_object()) << "no expected object";

  NamedDataStore store;
  Status failure;
  size_t failed_op = 0;
  for (size_t i = 0; i < ops->items().size() && failure.ok(); ++i) {
    Status malformed = apply_op(store, ops->items()[i], c.dir, failure);
    ASSERT_TRUE(malformed.ok()) << "op " << i << ": " << malformed.error().message;
    failed_op = i;
  }

  if (const Json* error = expected->find("error"); error != nullptr) {
    ASSERT_TRUE(error->is_string());
    const std::string id = c.name.substr(0, c.name.find('_'));
    auto code = expected_codes().find(id);
    ASSERT_NE(code, expected_codes().end()) << "no error code listed for case id " << id;
    ASSERT_FALSE(failure.ok()) << "expected " << error_code_name(code->second) << ": "
                               << error->text();
    EXPECT_EQ(failed_op + 1, ops->items().size()) << "failed before the last op";
    EXPECT_EQ(failure.error().code, code->second)
        << "got " << error_code_name(failure.error().code) << ": " << failure.error().message;
    EXPECT_NE(failure.error().message.find(error->text()), std::string::npos)
        << "message \"" << failure.error().message << "\" lacks \"" << error->text() << "\"";
    return;
  }

  ASSERT_TRUE(failure.ok()) << "op " << failed_op << " failed: "
                            << error_code_name(failure.error().code) << ": "
                            << failure.error().message;
  const Json* output_json = expected->find("output");
  ASSERT_NE(output_json, nullptr) << "expected has neither output nor error";
  Result<NamedDataStoreOutput> want = parse_output(*output_json, c.dir);
  ASSERT_TRUE(want.ok()) << want.error().message;
  const NamedDataStoreOutput got = store.get_named_data_store_output();

  ASSERT_EQ(got.buffers.size(), want->buffers.size()) << "number of buffers";
  for (size_t i = 0; i < got.buffers.size(); ++i) {
    EXPECT_TRUE(got.buffers[i].same_bytes(want->buffers[i]))
        << "buffer " << i << ": " << got.buffers[i].size() << " bytes vs expected "
        << want->buffers[i].size();
  }
  expect_same_entries(got.pte_data, want->pte_data, "pte_data");
  ASSERT_EQ(got.external_data.size(), want->external_data.size()) << "number of tags";
  for (size_t i = 0; i < got.external_data.size(); ++i) {
    EXPECT_EQ(got.external_data[i].first, want->external_data[i].first) << "tag at position " << i;
    expect_same_entries(got.external_data[i].second, want->external_data[i].second,
                        "external_data/" + want->external_data[i].first);
  }
}

std::string case_test_name(const ::testing::TestParamInfo<StoreCase>& info) {
  std::string name = info.param.name;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Vectors, StoreCaseTest, ::testing::ValuesIn(store_cases()),
                         case_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StoreCaseTest);

}  // namespace
}  // namespace etpack
