#include "core/value_stream.h"


namespace etpack {
namespace {

template <typename T>
Status status_of(Result<T> r) {
  if (!r.ok()) return r.take_error();
  return {};
}

}  // namespace

Error ValueStream::error(const std::string& what) const {
  return make_error(ErrorCode::kInvalidArgument, "program value stream: " + what + " at byte " + std::to_string(pos_));
}

Status ValueStream::begin() {
  if (s_.substr(0, kValueStreamMagic.size()) != kValueStreamMagic) return error("no ETV1 magic");
  pos_ = kValueStreamMagic.size();
  return {};
}

Error ValueStream::unexpected() const {
  if (at_end()) return error("unexpected end of the stream");
  return error("unexpected tag " + std::to_string(static_cast<uint8_t>(s_[pos_])));
}

// KEY_DEF id, length, text; or a KEY cut short, or something else.
Result<uint32_t> ValueStream::key_def(std::string_view& name) {
  ETP_TRY(take(StreamTag::kKeyDef));
  if (s_.size() - pos_ < 4) return error("truncated value");
  const uint32_t id = next_u32();
  ETP_ASSIGN(name, text());
  // A stretch read twice (a union value read again once its type is known)
  // meets its definitions again: the same id, already known, is fine.
  if (id == keys_.size()) keys_.push_back(name);
  else if (id > keys_.size() || keys_[id] != name) return error("bad key definition " + std::to_string(id));
  return id;
}

Status ValueStream::skip_value(size_t depth, size_t max_depth) {
  if (depth > max_depth) return error("nesting deeper than " + std::to_string(max_depth));
  if (at_end()) return error("unexpected end of the stream");
  const StreamTag tag = peek();
  ++pos_;
  switch (tag) {
    case StreamTag::kNull:
    case StreamTag::kFalse:
    case StreamTag::kTrue: return {};
    case StreamTag::kInt32: return status_of(int32());
    case StreamTag::kDouble: return status_of(real());
    case StreamTag::kString:
    case StreamTag::kBytes: return status_of(text());
    case StreamTag::kObject:
    case StreamTag::kArray:
      while (!consume(StreamTag::kEnd)) {
        if (tag == StreamTag::kObject) {
          std::string_view name;
          ETP_TRY(status_of(key(name)));
        }
        ETP_TRY(skip_value(depth + 1, max_depth));
      }
      return {};
    default:
      --pos_;
      return error("unexpected tag " + std::to_string(static_cast<uint8_t>(s_[pos_])));
  }
}

}  // namespace etpack
