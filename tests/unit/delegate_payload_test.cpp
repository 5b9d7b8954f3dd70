// Every delegate payload vector in ../shared/delegates (or
// $ETPACK_DELEGATES_DIR) decodes to its reference: the header's fields equal
// header.json's, a flatbuffer kind's graph equals graph.json field for field
// and in flatc's order (floats compared by the stored value: case.json's
// exact_floats / exact_doubles where flatc's print rounds, "inf"/"-inf"/
// "nan" for the non-finite ones), another kind's content equals
// decoded.json but for the vectors' own checks (hashes, raw fields, files).
// Every blob cut short anywhere is refused with a coded error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "read/delegate/delegate_payload.h"
#include "read/delegate/payload_summary.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

fs::path delegates_root() {
  if (const char* env = std::getenv("ETPACK_DELEGATES_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates";
}

const std::map<std::string, std::string> kBackends = {
    {"xnnpack", "XnnpackBackend"}, {"vulkan", "VulkanBackend"}, {"mps", "MPSBackend"},   {"mlx", "MLXBackend"},
    {"native", "NativeBackend"},   {"coreml", "CoreMLBackend"}, {"qnn", "QnnBackend"},   {"ethosu", "EthosUBackend"}};

struct Vector {
  std::string kind;
  fs::path dir;
};

std::vector<Vector> vectors() {
  std::vector<Vector> out;
  std::error_code ec;
  for (const auto& [kind, backend] : kBackends) {
    for (const auto& entry : fs::directory_iterator(delegates_root() / kind, ec))
      if (fs::exists(entry.path() / "blob.bin")) out.push_back({kind, entry.path()});
  }
  std::sort(out.begin(), out.end(), [](const Vector& a, const Vector& b) { return a.dir < b.dir; });
  return out;
}

std::string slurp(const fs::path& p) {
  std::vector<uint8_t> bytes = testing::read_bytes(p.string());
  return std::string(bytes.begin(), bytes.end());
}

Json parse_file(const fs::path& p) {
  auto doc = parse_json(slurp(p));
  EXPECT_TRUE(doc.ok()) << p;
  return doc.ok() ? *doc : Json();
}

// graph.json's printed number where the stored one differs (case.json).
void patch_exact(Json& graph, const Json& c, const char* list, const char* field) {
  const Json* entries = c.find(list);
  if (entries == nullptr || !entries->is_array()) return;
  for (const Json& e : entries->items()) {
    std::string path = e.find("path")->text();
    Json* at = &graph;
    size_t i = 1;  // after '$'
    while (i < path.size() && at != nullptr) {
      if (path[i] == '.') {
        size_t end = path.find_first_of(".[", i + 1);
        std::string key = path.substr(i + 1, end - i - 1);
        Json* next = nullptr;
        for (auto& m : at->members()) if (m.first == key) next = &m.second;
        at = next;
        i = end;
      } else {
        size_t end = path.find(']', i);
        at = &at->items().at(std::stoul(path.substr(i + 1, end - i - 1)));
        i = end + 1;
      }
    }
    ASSERT_NE(at, nullptr) << path;
    *at = Json::number_text(e.find(field)->text());
  }
}

double number_of(const Json& v) {
  if (v.is_string()) {  // graph.json's quoted non-finite values
    if (v.text() == "inf") return INFINITY;
    if (v.text() == "-inf") return -INFINITY;
    return NAN;
  }
  if (v.text() == "Infinity") return INFINITY;
  if (v.text() == "-Infinity") return -INFINITY;
  if (v.text() == "NaN") return NAN;
  return std::strtod(v.text().c_str(), nullptr);
}

// Ordered, exact comparison (flatc prints fields in declaration order).
void expect_same(const Json& want, const Json& got, const std::string& path) {
  const bool want_nonfinite = want.is_string() && (want.text() == "inf" || want.text() == "-inf" || want.text() == "nan");
  if (want.is_number() || want_nonfinite) {
    ASSERT_TRUE(got.is_number()) << path;
    const auto wi = want.as_uint64(), gi = got.as_uint64();
    const auto ws = want.as_int64(), gs = got.as_int64();
    if (wi && gi) EXPECT_EQ(*wi, *gi) << path;
    else if (ws && gs) EXPECT_EQ(*ws, *gs) << path;
    else {
      const double w = number_of(want), g = number_of(got);
      if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)) << path;
      else EXPECT_EQ(w, g) << path << ": " << want.text() << " vs " << got.text();
    }
    return;
  }
  ASSERT_EQ(want.type(), got.type()) << path;
  if (want.is_object()) {
    ASSERT_EQ(want.members().size(), got.members().size()) << path << ": " << write_json(got).substr(0, 300);
    for (size_t i = 0; i < want.members().size(); ++i) {
      ASSERT_EQ(want.members()[i].first, got.members()[i].first) << path;
      expect_same(want.members()[i].second, got.members()[i].second, path + "." + want.members()[i].first);
    }
  } else if (want.is_array()) {
    ASSERT_EQ(want.items().size(), got.items().size()) << path;
    for (size_t i = 0; i < want.items().size(); ++i)
      expect_same(want.items()[i], got.items()[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_TRUE(want.equals(got)) << path << ": " << write_json(want) << " vs " << write_json(got);
  }
}

// The vectors' own checks, not what the blob says (issue 39).
const std::set<std::string> kNotDecoded = {
    "sha256", "name_field_hex", "reserved_all_zero", "padding_all_zero", "context_binary_sha256",
    "context_binary_file", "external_blocks", "per_method_processed_bytes", "named_data"};

Json without_checks(const Json& v) {
  if (v.is_array()) {
    Json out = Json::array();
    for (const Json& item : v.items()) out.push(without_checks(item));
    return out;
  }
  if (!v.is_object()) return v;
  Json out = Json::object();
  for (const auto& [k, m] : v.members())
    if (kNotDecoded.count(k) == 0) out.set(k, without_checks(m));
  return out;
}

TEST(DelegatePayload, EveryVectorDecodesToItsReference) {
  const auto all = vectors();
  ASSERT_GE(all.size(), 35u) << delegates_root();
  for (const Vector& v : all) {
    SCOPED_TRACE(v.dir.string());
    const std::vector<uint8_t> bytes = testing::read_bytes((v.dir / "blob.bin").string());
    auto decoded = decode_delegate_payload(Blob::view(bytes.data(), bytes.size()), kBackends.at(v.kind));
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded->kind_name, v.kind);
    const Json header = parse_file(v.dir / "header.json");
    ASSERT_GE(decoded->header.members().size(), 3u);
    for (const auto& [key, value] : decoded->header.members()) {
      const Json* want = header.find(key);
      if (want == nullptr && key == "named_data_key") continue;  // CMJR: the key sits in decoded.json
      ASSERT_NE(want, nullptr) << "header." << key << " is not in header.json";
      EXPECT_TRUE(want->equals(value)) << key << ": " << write_json(*want) << " vs " << write_json(value);
    }
    if (fs::exists(v.dir / "graph.json")) {
      Json graph = parse_file(v.dir / "graph.json");
      const Json c = parse_file(v.dir / "case.json");
      patch_exact(graph, c, "exact_floats", "float32_exact");
      patch_exact(graph, c, "exact_doubles", "float64_exact");
      ASSERT_TRUE(decoded->graph.has_value());
      expect_same(graph, *decoded->graph, "$");
    } else {
      ASSERT_TRUE(decoded->content.has_value());
      const Json want = without_checks(parse_file(v.dir / "decoded.json"));
      EXPECT_TRUE(want.equals(*decoded->content)) << write_json(want).substr(0, 600) << "\nvs\n"
                                                  << write_json(*decoded->content).substr(0, 600);
    }
  }
}

TEST(DelegatePayload, EveryBlobCutShortIsRefused) {
  for (const Vector& v : vectors()) {
    SCOPED_TRACE(v.dir.string());
    const std::vector<uint8_t> bytes = testing::read_bytes((v.dir / "blob.bin").string());
    const size_t n = bytes.size();
    const size_t step = n <= 4096 ? 1 : n / 2048;
    for (size_t cut = 0; cut < n; cut += (n - cut <= 64 ? 1 : step)) {
      auto decoded = decode_delegate_payload(Blob::view(bytes.data(), cut), kBackends.at(v.kind));
      ASSERT_FALSE(decoded.ok()) << "cut at " << cut << " of " << n << " decoded";
      EXPECT_NE(decoded.error().code, ErrorCode::kInternal) << decoded.error().message;
      EXPECT_NE(decoded.error().message.find("offset"), std::string::npos) << decoded.error().message;
    }
  }
}

TEST(DelegatePayload, KindFoundByMagicWithoutBackend) {
  for (const Vector& v : vectors()) {
    SCOPED_TRACE(v.dir.string());
    const std::vector<uint8_t> bytes = testing::read_bytes((v.dir / "blob.bin").string());
    auto decoded = decode_delegate_payload(Blob::view(bytes.data(), bytes.size()), "");
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded->kind_name, v.kind);
  }
}

// The named keys a summary lists are the keys the vector put in the named
// data map (case.json's named_data, or the named_data/ files); XNNPACK's
// inline constants are looked up as "" (the runtime tests the field's
// presence, and the serializer always writes it).
TEST(DelegatePayload, SummaryNamesTheKeysTheBackendLooksUp) {
  size_t with_keys = 0;
  for (const Vector& v : vectors()) {
    SCOPED_TRACE(v.dir.string());
    const std::vector<uint8_t> bytes = testing::read_bytes((v.dir / "blob.bin").string());
    auto decoded = decode_delegate_payload(Blob::view(bytes.data(), bytes.size()), kBackends.at(v.kind));
    ASSERT_TRUE(decoded.ok());
    const PayloadSummary s = summarize_payload(*decoded);
    std::set<std::string> got, want;
    bool empty_key = false;
    for (const PayloadNamedKey& k : s.named_keys) {
      if (k.key.empty()) empty_key = true;
      else got.insert(k.key);
    }
    const Json c = parse_file(v.dir / "case.json");
    if (const Json* nd = c.find("named_data"); nd && nd->is_array())
      for (const Json& e : nd->items()) want.insert(e.find("key")->text());
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(v.dir / "named_data", ec)) want.insert(f.path().stem().string());
    EXPECT_EQ(got, want);
    with_keys += !want.empty();
    if (v.kind == "xnnpack") {
      const Json* region = c.find("constant_region");
      const bool inline_constants = region && region->find("size") && region->find("size")->as_uint64().value_or(0) > 0;
      if (inline_constants) {
        EXPECT_TRUE(empty_key) << "inline constants are looked up by the key \"\"";
      }
    }
    if (decoded->graph) {
      ASSERT_TRUE(s.nodes.has_value());
      EXPECT_GT(*s.nodes, 0u);
      uint64_t total = 0;
      for (const auto& [name, count] : s.operators) {
        total += count;
        EXPECT_NE(name, "?");
      }
      EXPECT_EQ(total, *s.nodes);
    }
  }
  EXPECT_GE(with_keys, 6u);
}

// In a program: a blob without its backend's mark is opaque (the
// conformance vectors' delegates are such test bytes); one with the mark
// that does not hold together is still refused.
TEST(DelegatePayload, InAProgramUnmarkedBlobsAreOpaque) {
  const std::vector<uint8_t> noise = {6, 163, 200, 240, 27, 44, 188, 67, 244, 194};
  for (const auto& [kind, backend] : kBackends) {
    auto decoded = decode_delegate_in_program(Blob::view(noise.data(), noise.size()), backend);
    ASSERT_TRUE(decoded.ok()) << backend;
    EXPECT_EQ(decoded->kind_name, "opaque") << backend;
  }
  const std::vector<uint8_t> bytes =
      testing::read_bytes((delegates_root() / "xnnpack" / "x02_linear_fp32_named" / "blob.bin").string());
  auto cut = decode_delegate_in_program(Blob::view(bytes.data(), bytes.size() - 1), "XnnpackBackend");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code, ErrorCode::kMalformedFile);
}

TEST(DelegatePayload, UnknownBlobsStayOpaque) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const char* backend : {"", "SomeOtherBackend", "QnnBackend"}) {
    auto decoded = decode_delegate_payload(Blob::view(bytes.data(), bytes.size()), backend);
    ASSERT_TRUE(decoded.ok()) << backend;
    EXPECT_EQ(decoded->kind_name, "opaque");
    EXPECT_EQ(delegate_payload_json(*decoded), R"({"kind": "opaque", "header": {"blob_size": 9}})");
  }
  auto xnn = decode_delegate_payload(Blob::view(bytes.data(), bytes.size()), "XnnpackBackend");
  ASSERT_FALSE(xnn.ok());
  EXPECT_EQ(xnn.error().code, ErrorCode::kMalformedFile);
  EXPECT_NE(xnn.error().message.find("\"XH00\" at byte 4"), std::string::npos) << xnn.error().message;
}

}  // namespace
}  // namespace etpack
