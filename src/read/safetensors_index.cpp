#include "read/safetensors_index.h"

#include <unordered_map>
#include <unordered_set>

#include "core/json_lexer.h"
#include "read/safetensors_reader.h"

namespace etpack {
namespace {

class IndexParser {
 public:
  IndexParser(std::string_view text, const std::string& file) : text_(text), lex_(text), file_(file) {}

  Result<std::vector<SafetensorsShard>> parse() {
    if (size_t bad = first_invalid_utf8(text_); bad != std::string_view::npos)
      return fail(bad, "the index is not valid UTF-8");
    if (lex_.peek() != '{') return fail(lex_.pos(), "the index is not a JSON object");
    bool has_map = false;
    ETP_TRY(object(0, [&](const std::string& key) -> Status {
      if (key != "weight_map") return value(1);
      has_map = true;
      return weight_map();
    }));
    if (!lex_.at_end()) return fail(lex_.pos(), "bytes after the index object");
    if (!has_map) return fail(0, "no weight_map object");
    return std::move(shards_);
  }

 private:
  Error fail(size_t pos, const std::string& what) const {
    return make_error(ErrorCode::kSafetensorsIndex, file_ + ": " + what + " at offset " + std::to_string(pos));
  }
  Status json(Status s) const {
    if (s.ok()) return s;
    return fail(lex_.pos(), "not a safetensors index: not JSON (" + s.error().message + ")");
  }
  Result<std::string> string() {
    auto token = lex_.string_token(scratch_);
    if (!token.ok()) return json(token.take_error()).take_error();
    std::string s(*token);
    // A lone \udxxx escape decodes to a surrogate's bytes: refused, as in headers.
    if (first_invalid_utf8(s) != std::string_view::npos) return fail(lex_.pos(), "a string holds a lone surrogate escape");
    return s;
  }

  // An object whose keys are unique; `member(key)` reads each value.
  template <typename Member>
  Status object(size_t depth, Member&& member) {
    ETP_TRY(json(lex_.expect('{')));
    std::unordered_set<std::string> keys;
    if (lex_.peek() == '}') return json(lex_.expect('}'));
    while (true) {
      if (lex_.peek() != '"') return fail(lex_.pos(), "expected a member name");
      const size_t key_at = lex_.pos();
      ETP_ASSIGN(std::string key, string());
      if (!keys.insert(key).second) return fail(key_at, "key " + escaped_name(key) + " appears twice" + (depth ? " in one object" : ""));
      ETP_TRY(json(lex_.expect(':')));
      ETP_TRY(member(key));
      if (lex_.peek() == ',') {
        lex_.seek(lex_.pos() + 1);
        continue;
      }
      return json(lex_.expect('}'));
    }
  }

  // Any JSON value, its objects' keys unique; nesting bounded.
  Status value(size_t depth) {
    if (depth > kMaxIndexDepth) return fail(lex_.pos(), "nested more than " + std::to_string(kMaxIndexDepth) + " deep");
    const char c = lex_.peek();
    if (c == '{') return object(depth, [&](const std::string&) { return value(depth + 1); });
    if (c == '[') {
      lex_.seek(lex_.pos() + 1);
      if (lex_.peek() == ']') return json(lex_.expect(']'));
      while (true) {
        ETP_TRY(value(depth + 1));
        if (lex_.peek() == ',') {
          lex_.seek(lex_.pos() + 1);
          continue;
        }
        return json(lex_.expect(']'));
      }
    }
    if (c == '"') {
      auto s = string();
      if (!s.ok()) return s.take_error();
      return {};
    }
    return json(lex_.skip_value(0, 1));  // a number, true, false or null
  }

  Status weight_map() {
    if (lex_.peek() != '{') return fail(lex_.pos(), "weight_map is not an object");
    std::unordered_map<std::string, size_t> shard_of;  // file -> index into shards_
    return object(1, [&](const std::string& tensor) -> Status {
      if (lex_.peek() != '"') return fail(lex_.pos(), "weight_map[" + escaped_name(tensor) + "] is not a string");
      const size_t at = lex_.pos();
      ETP_ASSIGN(std::string shard, string());
      if (shard.empty() || shard == "." || shard == ".." || shard.find_first_of("/\\") != std::string::npos)
        return fail(at, "weight_map[" + escaped_name(tensor) + "] = " + escaped_name(shard) +
                            " is not a file name in the index's folder");
      auto [it, fresh] = shard_of.emplace(shard, shards_.size());
      if (fresh) shards_.push_back({std::move(shard), {}});
      shards_[it->second].tensors.push_back(tensor);
      return {};
    });
  }

  std::string_view text_;
  JsonLexer lex_;
  const std::string& file_;
  std::string scratch_;
  std::vector<SafetensorsShard> shards_;
};

}  // namespace

Result<std::vector<SafetensorsShard>> read_safetensors_index(std::string_view text, const std::string& file) {
  return IndexParser(text, file).parse();
}

}  // namespace etpack
