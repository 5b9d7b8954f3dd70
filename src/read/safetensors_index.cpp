#include "read/safetensors_index.h"

#include <unordered_map>
#include <unordered_set>

#include "read/safetensors_reader.h"
#include "read/strict_json_reader.h"

namespace etpack {
namespace {

class IndexParser {
 public:
  IndexParser(std::string_view text, const std::string& file)
      : text_(text),
        reader_(text, file, {ErrorCode::kSafetensorsIndex, 0, "not a safetensors index: not JSON (", ")"}),
        lex_(reader_.lex()) {}

  Result<std::vector<SafetensorsShard>> parse() {
    if (size_t bad = first_invalid_utf8(text_); bad != std::string_view::npos)
      return reader_.fail(bad, "the index is not valid UTF-8");
    if (lex_.peek() != '{') return reader_.fail(lex_.pos(), "the index is not a JSON object");
    bool has_map = false;
    ETP_TRY(object(0, [&](const std::string& key) -> Status {
      if (key != "weight_map") return value(1);
      has_map = true;
      return weight_map();
    }));
    if (!lex_.at_end()) return reader_.fail(lex_.pos(), "bytes after the index object");
    if (!has_map) return reader_.fail(0, "no weight_map object");
    return std::move(shards_);
  }

 private:
  // An object whose keys are unique; `member(key)` reads each value.
  template <typename Member>
  Status object(size_t depth, Member&& member) {
    std::unordered_set<std::string> keys;
    return reader_.object([&](std::string_view view, size_t key_at) -> Status {
      std::string key(view);  // the view lasts only until the next string is read
      if (!keys.insert(key).second)
        return reader_.fail(key_at, "key " + escaped_name(key) + " appears twice" + (depth ? " in one object" : ""));
      return member(key);
    });
  }

  // Any JSON value, its objects' keys unique; nesting bounded.
  Status value(size_t depth) {
    if (depth > kMaxIndexDepth)
      return reader_.fail(lex_.pos(), "nested more than " + std::to_string(kMaxIndexDepth) + " deep");
    const char c = lex_.peek();
    if (c == '{') return object(depth, [&](const std::string&) { return value(depth + 1); });
    if (c == '[') return reader_.array([&](size_t) { return value(depth + 1); });
    if (c == '"') {
      auto s = reader_.string_view();
      if (!s.ok()) return s.take_error();
      return {};
    }
    return reader_.json(lex_.skip_value(0, 1));  // a number, true, false or null
  }

  Status weight_map() {
    if (lex_.peek() != '{') return reader_.fail(lex_.pos(), "weight_map is not an object");
    std::unordered_map<std::string, size_t> shard_of;  // file -> index into shards_
    return object(1, [&](const std::string& tensor) -> Status {
      if (lex_.peek() != '"')
        return reader_.fail(lex_.pos(), "weight_map[" + escaped_name(tensor) + "] is not a string");
      const size_t at = lex_.pos();
      ETP_ASSIGN(std::string shard, reader_.string());
      if (shard.empty() || shard == "." || shard == ".." || shard.find_first_of("/\\") != std::string::npos)
        return reader_.fail(at, "weight_map[" + escaped_name(tensor) + "] = " + escaped_name(shard) +
                                    " is not a file name in the index's folder");
      auto [it, fresh] = shard_of.emplace(shard, shards_.size());
      if (fresh) shards_.push_back({std::move(shard), {}});
      shards_[it->second].tensors.push_back(tensor);
      return {};
    });
  }

  std::string_view text_;
  StrictJsonReader reader_;
  JsonLexer& lex_;
  std::vector<SafetensorsShard> shards_;
};

}  // namespace

Result<std::vector<SafetensorsShard>> read_safetensors_index(std::string_view text, const std::string& file) {
  return IndexParser(text, file).parse();
}

}  // namespace etpack
