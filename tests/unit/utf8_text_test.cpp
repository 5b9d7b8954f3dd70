// append_decoded_utf8 reads bytes as the WHATWG UTF-8 decoder (a JS
// TextDecoder) does; utf8_bytes_of_units walks back from UTF-16 lengths.
#include <gtest/gtest.h>

#include <string>

#include "core/utf8_text.h"

namespace etpack {
namespace {

std::string decoded(const std::string& bytes, size_t* units = nullptr) {
  std::string out;
  size_t n = append_decoded_utf8(bytes, out);
  if (units) *units = n;
  return out;
}

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8Text, ValidTextIsKeptAndCountedInUtf16Units) {
  size_t units = 0;
  EXPECT_EQ(decoded("ab\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", &units), "ab\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(units, 2u + 1 + 1 + 2);
  EXPECT_EQ(decoded(std::string("\0x", 2), &units), std::string("\0x", 2));
  EXPECT_EQ(units, 2u);
}

// The Encoding Standard's examples of maximal subparts: each is one U+FFFD,
// and the byte that ends one is read again.
TEST(Utf8Text, InvalidBytesBecomeOneReplacementPerMaximalSubpart) {
  size_t units = 0;
  EXPECT_EQ(decoded("\x80", &units), kFffd);
  EXPECT_EQ(units, 1u);
  EXPECT_EQ(decoded("\xE2\x82" "a"), kFffd + "a");           // truncated, then ASCII
  EXPECT_EQ(decoded("\xE2\x82"), kFffd);                      // truncated at the end
  EXPECT_EQ(decoded("\xC0\xAF"), kFffd + kFffd);              // overlong lead: two
  EXPECT_EQ(decoded("\xE0\x80\xAF"), kFffd + kFffd + kFffd);  // E0 needs A0..BF next
  EXPECT_EQ(decoded("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // a surrogate
  EXPECT_EQ(decoded("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(decoded("\xF0\x9F\x98" "\xF0\x9F\x98\x80"), kFffd + "\xF0\x9F\x98\x80");
  EXPECT_EQ(decoded("\xFF\xFE"), kFffd + kFffd);
}

TEST(Utf8Text, BytesOfUnitsWalksWholeCodePoints) {
  const std::string text = "a\xC3\xA9\xF0\x9F\x98\x80z";
  EXPECT_EQ(utf8_bytes_of_units(text, 0), 0u);
  EXPECT_EQ(utf8_bytes_of_units(text, 2), 3u);
  EXPECT_EQ(utf8_bytes_of_units(text, 4), 7u);
  EXPECT_EQ(utf8_bytes_of_units(text, 5), 8u);
  EXPECT_EQ(utf8_bytes_of_units(text, 99), 8u);
}

}  // namespace
}  // namespace etpack
