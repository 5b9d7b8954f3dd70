// The legacy XNNPACK payload: no XH00 header, the whole blob is the
// XNNGraph flatbuffer (identifier XN00, or XN01: upstream's XNNHeader.cpp
// falls back to the bare layout whenever bytes 4..8 are not XH00). No
// public vector has one, so each is made from an XN01 vector by the
// documented layout: blob[flatbuffer_offset, +flatbuffer_size), with the
// identifier set to XN00 for the legacy one. Its graph reads as the
// wrapped one's (same field ids); it has no constant region; cut short it
// is refused (by a known backend: a blob without its mark is no XNNPACK
// payload).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/json.h"
#include "read/delegate/delegate_payload.h"
#include "read/delegate/payload_summary.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

fs::path vector_dir(const char* name) {
  fs::path root = fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates";
  if (const char* env = std::getenv("ETPACK_DELEGATES_DIR"); env != nullptr && *env != '\0') root = env;
  return root / "xnnpack" / name;
}

// The bare flatbuffer of a wrapped XNNPACK blob, its identifier replaced.
std::vector<uint8_t> bare(const std::vector<uint8_t>& wrapped, const char* identifier) {
  uint32_t offset = 0, size = 0;
  std::memcpy(&offset, wrapped.data() + 10, 4);  // header: u32 flatbuffer_offset at 10, size at 14
  std::memcpy(&size, wrapped.data() + 14, 4);
  std::vector<uint8_t> out(wrapped.begin() + offset, wrapped.begin() + offset + size);
  std::memcpy(out.data() + 4, identifier, 4);
  return out;
}

TEST(DelegateLegacyXnnpack, BareFlatbufferDecodesAsTheWrappedGraph) {
  for (const char* name : {"x02_linear_fp32_named", "x04_add_mul_clamp_chain", "x13_chain_230_nodes"}) {
    SCOPED_TRACE(name);
    if (!fs::exists(vector_dir(name) / "blob.bin")) GTEST_SKIP() << "no delegate vectors";
    const std::vector<uint8_t> wrapped = testing::read_bytes(vector_dir(name) / "blob.bin");
    auto reference = decode_delegate_payload(Blob::own(wrapped), "XnnpackBackend");
    ASSERT_TRUE(reference.ok()) << reference.error().message;
    for (const char* identifier : {"XN00", "XN01"}) {
      SCOPED_TRACE(identifier);
      const std::vector<uint8_t> legacy = bare(wrapped, identifier);
      for (const char* backend : {"XnnpackBackend", ""}) {
        auto decoded = decode_delegate_payload(Blob::own(legacy), backend);
        ASSERT_TRUE(decoded.ok()) << decoded.error().message;
        EXPECT_EQ(decoded->kind_name, "xnnpack");
        EXPECT_EQ(decoded->header.find("flatbuffer_identifier")->text(), identifier);
        EXPECT_EQ(decoded->header.find("flatbuffer_offset")->as_uint64(), 0u);
        EXPECT_EQ(decoded->header.find("flatbuffer_size")->as_uint64(), legacy.size());
        EXPECT_EQ(decoded->header.find("magic"), nullptr);
        EXPECT_EQ(decoded->constant_bytes, 0u);
        ASSERT_TRUE(decoded->graph.has_value());
        for (const char* field : {"version", "xnodes", "num_externs", "input_ids", "output_ids", "constant_data"}) {
          const Json* want = reference->graph->find(field);
          const Json* got = decoded->graph->find(field);
          ASSERT_EQ(want == nullptr, got == nullptr) << field;
          if (want) {
            EXPECT_TRUE(want->equals(*got)) << field;
          }
        }
        const PayloadSummary a = summarize_payload(*reference), b = summarize_payload(*decoded);
        EXPECT_EQ(a.nodes, b.nodes);
        EXPECT_EQ(a.operators, b.operators);
        EXPECT_EQ(a.named_keys.size(), b.named_keys.size());
      }
      // Cut short anywhere: refused with a coded error, never read past.
      for (size_t n = 0; n < legacy.size(); n += 1 + legacy.size() / 64) {
        std::vector<uint8_t> cut(legacy.begin(), legacy.begin() + n);
        auto refused = decode_delegate_payload(Blob::own(cut), "XnnpackBackend");
        ASSERT_FALSE(refused.ok()) << n;
        EXPECT_TRUE(refused.error().code == ErrorCode::kMalformedFile || refused.error().code == ErrorCode::kLimitExceeded)
            << n << ": " << error_code_name(refused.error().code);
      }
    }
  }
}

}  // namespace
}  // namespace etpack
