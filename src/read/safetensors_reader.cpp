#include "read/safetensors_reader.h"

#include "core/utf8_text.h"

#include <algorithm>
#include <numeric>
#include <cstdint>
#include <unordered_set>

#include "core/checked_math.h"
#include "core/json.h"
#include "core/json_lexer.h"
#include "core/utf8_text.h"
#include "read/strict_json_reader.h"

namespace etpack {
namespace {

struct Dtype {
  const char* name;
  uint32_t bits;        // the reference's widths; sub-byte types pack bits
  int8_t scalar_type;   // -1: ExecuTorch has none
};
// The reference's dtype set; ScalarType values as src/model/scalar_type.cpp.
// One table with the JS package's (scripts/gen-package.mjs reads the .def).
constexpr Dtype kDtypes[] = {
#define SAFETENSORS_DTYPE(name, bits, scalar_type) {name, bits, scalar_type},
#include "read/safetensors_dtypes.def"
#undef SAFETENSORS_DTYPE
};

const Dtype* find_dtype(std::string_view name) {
  for (const Dtype& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& file)
      : text_(text),
        // Offsets count from the file's start: the header's text follows its 8-byte length.
        reader_(text, file, {ErrorCode::kSafetensorsHeader, 8, "the header is not JSON (", " of the header)"}),
        lex_(reader_.lex()) {}

  Status parse(SafetensorsHeader& out) {
    // The reference refuses a header that does not start with '{': a BOM or
    // leading whitespace is not a header.
    if (text_.empty() || text_[0] != '{') return fail(0, "the header does not start with '{' (a BOM or leading bytes)");
    if (size_t bad = first_invalid_utf8(text_); bad != std::string_view::npos)
      return fail(bad, "the header is not valid UTF-8");
    // Each tensor entry is at least 48 bytes of text: room for them all at
    // once (no reallocation of a million-element vector as it grows).
    out.tensors.reserve(text_.size() / 48);
    key_offsets_.reserve(text_.size() / 48);
    bool metadata_seen = false;
    ETP_TRY(reader_.object([&](std::string_view key, size_t key_at) -> Status {
      if (key == "__metadata__") {
        if (metadata_seen) return fail(key_at, "key \"__metadata__\" appears twice");
        metadata_seen = true;
        return metadata(out);
      }
      key_offsets_.push_back(static_cast<uint32_t>(key_at));
      return tensor(name(key, out), out);
    }));
    if (!lex_.at_end()) return fail(lex_.pos(), "bytes after the header object (only spaces may pad it)");
    return duplicates(out);
  }

 private:
  Error fail(size_t pos, const std::string& what) const { return reader_.fail(pos, what); }

  // A tensor's name, kept: the key's view of the text when it has no
  // escapes (nearly always), else decoded into the header's own list.
  std::string_view name(std::string_view key, SafetensorsHeader& out) {
    if (!reader_.decoded(key)) return key;
    out.decoded_names.emplace_back(key);
    return out.decoded_names.back();
  }
  // A key that appears twice: found by sorting the tensors' indices by name
  // (4 bytes a tensor, where a set of names cost tens). Reported as reading
  // the header finds it: the repeat that comes first.
  Status duplicates(const SafetensorsHeader& out) const {
    const auto& t = out.tensors;
    std::vector<uint32_t> order(t.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return t[a].name != t[b].name ? t[a].name < t[b].name : a < b; });
    size_t repeat = SIZE_MAX;
    for (size_t k = 1; k < order.size(); ++k)
      if (t[order[k]].name == t[order[k - 1]].name) repeat = std::min<size_t>(repeat, order[k]);
    if (repeat == SIZE_MAX) return {};
    return fail(key_offsets_[repeat], "key " + escaped_name(t[repeat].name) + " appears twice");
  }
  // A JSON integer token (digits only: 36.0, 48e0 and -1 are refused).
  // `where` names it, built only for a message.
  template <typename Where>
  Result<uint64_t> integer(const Where& where) {
    const size_t at = lex_.pos();
    if (lex_.peek() == '\0' || lex_.peek() == '"' || lex_.peek() == '[' || lex_.peek() == '{')
      return fail(at, where() + " is not an integer");
    auto token = lex_.number_token();
    if (!token.ok()) return fail(at, where() + " is not an integer");
    std::string_view t = *token;
    uint64_t v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return fail(at, where() + " is " + std::string(t) + ", not a non-negative JSON integer");
      auto next = checked_mul(v, 10);
      if (next) next = checked_add(*next, static_cast<uint64_t>(c - '0'));
      if (!next) return fail(at, where() + " " + std::string(t) + " does not fit 64 bits");
      v = *next;
    }
    return v;
  }
  template <typename Where>
  Result<std::vector<uint64_t>> integers(const Where& where, size_t max) {
    std::vector<uint64_t> out;
    ETP_TRY(reader_.array([&](size_t i) -> Status {
      if (i == max) return fail(lex_.pos(), where() + " has more than " + std::to_string(max) + " entries");
      ETP_ASSIGN(uint64_t v, integer([&] { return where() + "[" + std::to_string(i) + "]"; }));
      out.push_back(v);
      return {};
    }));
    return out;
  }

  Status metadata(SafetensorsHeader& out) {
    if (lex_.consume("null")) return {};  // the reference's Option: null is no metadata
    if (lex_.peek() != '{') return fail(lex_.pos(), "__metadata__ is not an object");
    std::unordered_set<std::string> keys;
    return reader_.object([&](std::string_view view, size_t key_at) -> Status {
      std::string key(view);  // the view lasts only until the next string is read
      if (!keys.insert(key).second) return fail(key_at, "__metadata__ key " + escaped_name(key) + " appears twice");
      if (lex_.peek() != '"') return fail(lex_.pos(), "__metadata__[" + escaped_name(key) + "] is not a string");
      ETP_ASSIGN(std::string value, reader_.string());
      out.metadata.emplace_back(std::move(key), std::move(value));
      return {};
    });
  }

  Status tensor(std::string_view name, SafetensorsHeader& out) {
    SafetensorsTensor t;
    t.name = name;
    // Messages only: built when something is wrong, not for each of a million tensors.
    auto where = [&] { return "tensor " + escaped_name(t.name); };
    const size_t at = lex_.pos();
    if (lex_.peek() != '{') return fail(at, where() + " is not an object");
    bool has_dtype = false, has_shape = false, has_offsets = false;
    std::vector<uint64_t> offsets;
    ETP_TRY(reader_.object([&](std::string_view key, size_t key_at) -> Status {
      // Decided before the value is read: reading a string may reuse the key's bytes.
      enum class Field { kDtype, kShape, kOffsets, kOther };
      const Field field = key == "dtype" ? Field::kDtype : key == "shape" ? Field::kShape
                          : key == "data_offsets" ? Field::kOffsets : Field::kOther;
      bool* seen = field == Field::kDtype ? &has_dtype : field == Field::kShape ? &has_shape
                   : field == Field::kOffsets ? &has_offsets : nullptr;
      if (seen && *seen) return fail(key_at, where() + " has " + std::string(key) + " twice");
      if (seen) *seen = true;
      if (field == Field::kDtype) {
        const size_t dtype_at = lex_.pos();
        if (lex_.peek() != '"') return fail(dtype_at, where() + " dtype is not a string");
        ETP_ASSIGN(std::string_view dtype, reader_.string_view());
        const Dtype* d = find_dtype(dtype);
        if (!d) return fail(dtype_at, where() + " has unknown dtype " + escaped_name(dtype));
        t.dtype = d->name;
        if (d->scalar_type >= 0) t.scalar_type = d->scalar_type;
      } else if (field == Field::kShape) {
        auto shape = integers([&] { return where() + " shape"; }, kMaxSafetensorsRank);
        if (!shape.ok()) return Error{ErrorCode::kSafetensorsShape, shape.error().message};
        t.shape = std::move(*shape);
      } else if (field == Field::kOffsets) {
        auto o = integers([&] { return where() + " data_offsets"; }, 2);
        if (!o.ok()) return Error{ErrorCode::kSafetensorsOffsets, o.error().message};
        offsets = std::move(*o);
        if (offsets.size() != 2) return Error{ErrorCode::kSafetensorsOffsets, fail(key_at, where() + " data_offsets is not [begin, end]").message};
      } else {
        // Unknown fields are ignored, as the reference's reader does.
        return reader_.json(lex_.skip_value(0, 64));
      }
      return {};
    }));
    if (!has_dtype || !has_shape || !has_offsets)
      return fail(at, where() + " lacks " + (!has_dtype ? "dtype" : !has_shape ? "shape" : "data_offsets"));
    t.begin = offsets[0];
    t.end = offsets[1];
    out.tensors.push_back(std::move(t));
    return {};
  }

  std::string_view text_;
  StrictJsonReader reader_;
  JsonLexer& lex_;
  std::vector<uint32_t> key_offsets_;  // each tensor's key, for messages (the header is < 4 GB)
};

Status check_sizes(const SafetensorsTensor& t, uint64_t data_start, uint64_t data_size, const std::string& file) {
  // Messages are built only on failure (a header may hold a million tensors).
  auto where = [&] { return file + ": tensor " + escaped_name(t.name); };
  auto range = [&] { return "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]"; };
  if (t.end < t.begin) return make_error(ErrorCode::kSafetensorsOffsets, where() + " " + range() + " end before they begin");
  if (t.end > data_size)
    return make_error(ErrorCode::kSafetensorsOffsets, where() + " " + range() + " run past the end of the data (" +
                                                          std::to_string(data_size) + " bytes from offset " + std::to_string(data_start) + ")");
  const Dtype* d = find_dtype(t.dtype);
  std::optional<uint64_t> bits = d->bits;
  for (uint64_t dim : t.shape)
    if (bits) bits = checked_mul(*bits, dim);
  if (bits && *bits % 8 == 0 && *bits / 8 == t.size()) return {};
  std::string shape = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  shape += "]";
  return make_error(ErrorCode::kSafetensorsShape, where() + " is " + t.dtype + shape + " = " +
                                                      (bits ? (*bits % 8 ? std::to_string(*bits) + " bits (not whole bytes)" : std::to_string(*bits / 8) + " bytes")
                                                            : std::string("more than 2^64 bits")) +
                                                      " but its data_offsets hold " + std::to_string(t.size()) + " at offset " +
                                                      std::to_string(data_start + t.begin));
}

}  // namespace

size_t first_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t length = utf8_sequence_length(s, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}


const char* safetensors_dtype_name(std::string_view dtype) {
  const Dtype* d = find_dtype(dtype);
  return d ? d->name : nullptr;
}

std::optional<int8_t> safetensors_dtype_scalar(std::string_view dtype) {
  const Dtype* d = find_dtype(dtype);
  if (!d || d->scalar_type < 0) return std::nullopt;
  return d->scalar_type;
}

const char* scalar_safetensors_dtype(int64_t scalar_type) {
  for (const Dtype& d : kDtypes)
    if (d.scalar_type >= 0 && d.scalar_type == scalar_type) return d.name;
  return nullptr;
}

std::string escaped_name(std::string_view name) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "\"";
  size_t i = 0;
  while (i < name.size()) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    // A surrogate's 3-byte encoding (ED A0..BF xx): what a lone \udxxx becomes.
    if (c == 0xED && name.size() - i >= 3 && (static_cast<unsigned char>(name[i + 1]) & 0xE0) == 0xA0 &&
        (static_cast<unsigned char>(name[i + 2]) & 0xC0) == 0x80) {
      const uint32_t cp = 0xD000 | ((static_cast<unsigned char>(name[i + 1]) & 0x3F) << 6) | (static_cast<unsigned char>(name[i + 2]) & 0x3F);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 15]);
      i += 3;
      continue;
    }
    const size_t bad = first_invalid_utf8(name.substr(i, std::min<size_t>(4, name.size() - i)));
    if (bad == 0) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      ++i;
      continue;
    }
    const size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    std::string one(name.substr(i, n)), quoted;
    write_json_string(one, quoted);
    out.append(quoted, 1, quoted.size() - 2);
    i += n;
  }
  out += "\"";
  return out;
}

Result<uint64_t> safetensors_header_size(std::string_view first, uint64_t file_size, const std::string& file) {
  if (file_size < 8 || first.size() < 8)
    return make_error(ErrorCode::kSafetensorsTruncated, file + ": " + std::to_string(file_size) + " bytes: too short for the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first[static_cast<size_t>(i)]);
  if (n > kMaxSafetensorsHeader)
    return make_error(ErrorCode::kSafetensorsHeaderSize, file + ": header length " + std::to_string(n) + " at offset 0 exceeds " +
                                                             std::to_string(kMaxSafetensorsHeader) + " bytes");
  if (n > file_size - 8)
    return make_error(ErrorCode::kSafetensorsHeaderSize, file + ": header length " + std::to_string(n) +
                                                             " at offset 0 runs past the end of the file (" + std::to_string(file_size) + " bytes)");
  return n;
}

Result<SafetensorsHeader> read_safetensors_header(std::string_view text, uint64_t file_size, const std::string& file) {
  SafetensorsHeader out;
  if (text.size() > kMaxSafetensorsHeader || file_size < 8 || text.size() > file_size - 8)
    return make_error(ErrorCode::kSafetensorsHeaderSize, file + ": header of " + std::to_string(text.size()) + " bytes does not fit the file");
  out.header_size = text.size();
  out.data_start = 8 + text.size();
  const uint64_t data_size = file_size - out.data_start;
  ETP_TRY(HeaderParser(text, file).parse(out));
  for (const SafetensorsTensor& t : out.tensors) ETP_TRY(check_sizes(t, out.data_start, data_size, file));
  // Sorted by range, the tensors must tile [0, data_size) exactly: the
  // reference refuses holes, overlaps and trailing bytes alike.
  std::vector<size_t> order(out.tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = out.tensors[a];
    const auto& y = out.tensors[b];
    return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
  });
  uint64_t covered = 0;
  const SafetensorsTensor* previous = nullptr;
  for (size_t i : order) {
    const SafetensorsTensor& t = out.tensors[i];
    if (t.begin < covered)
      return make_error(ErrorCode::kSafetensorsOverlap, file + ": tensors " + escaped_name(previous->name) + " and " + escaped_name(t.name) +
                                                            " overlap at offset " + std::to_string(out.data_start + t.begin));
    if (t.begin > covered)
      return make_error(ErrorCode::kSafetensorsOffsets, file + ": bytes [" + std::to_string(out.data_start + covered) + ", " +
                                                            std::to_string(out.data_start + t.begin) + ") belong to no tensor (a hole before tensor " +
                                                            escaped_name(t.name) + ")");
    covered = t.end;
    previous = &t;
  }
  if (covered != data_size)
    return make_error(ErrorCode::kSafetensorsOffsets, file + ": the tensors cover " + std::to_string(covered) + " of the " + std::to_string(data_size) +
                                                          " data bytes (bytes from offset " + std::to_string(out.data_start + covered) + " belong to no tensor)");
  return out;
}

}  // namespace etpack
