#include <gtest/gtest.h>

#include <string>

#include "core/json_writer.h"
#include "read/safetensors_reader.h"

namespace etpack {
namespace {

TEST(JsonWriter, PlacesCommasAndKeys) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().key("a").begin_array().number(1).integer(-2).boolean(true).null().end_array();
  w.key("b").begin_object().end_object().key("c").begin_array().begin_array().end_array().begin_array().raw("{}").end_array().end_array();
  w.end_object();
  EXPECT_EQ(out, R"({"a":[1,-2,true,null],"b":{},"c":[[],[{}]]})");
}

// Strings as the JS string they stand for: JSON escapes, a lone surrogate's
// bytes as \udxxx, a stray byte as \u00NN (the Latin-1 character of its
// value), valid multi-byte characters as they are.
TEST(JsonWriter, WritesStringsAsJsStrings) {
  std::string out;
  write_js_string(std::string("q\"\\\n\x01 \xc3\xa9 \xed\xa0\x80 \xff \xe2\x82"), out);
  EXPECT_EQ(out, "\"q\\\"\\\\\\n\\u0001 \xc3\xa9 \\ud800 \\u00ff \\u00e2\\u0082\"");
}

// The same text escaped_name gives (the safetensors reader's messages), with
// its \xNN written as \u00NN: what the weights replies always wrote.
TEST(JsonWriter, MatchesEscapedName) {
  for (std::string s : {std::string("plain"), std::string("\xed\xbf\xbf\xf0\x9f\x98\x80"), std::string("\xc0\xaf\xf4\x90\x80\x80"),
                        std::string("\xe0\x80\x80\xed\xa0"), std::string("\x7f\x1f\t")}) {
    std::string expected = escaped_name(s), mine;
    for (size_t i = 0; (i = expected.find("\\x", i)) != std::string::npos;) expected.replace(i, 2, "\\u00");
    write_js_string(s, mine);
    EXPECT_EQ(mine, expected) << s;
  }
}

}  // namespace
}  // namespace etpack
