#include "format/file_kinds.h"

#include <cstring>

namespace etpack {
namespace {

// The first two identifier chars name the family (ET.., FT..): another
// version of a known kind, not a foreign file.
constexpr size_t kFamilyChars = 2;

bool bytes_equal(const uint8_t* data, std::string_view text) {
  return std::memcmp(data, text.data(), text.size()) == 0;
}

}  // namespace

std::optional<FileKind> file_kind_of(const uint8_t* data, size_t size) {
  for (const FileKindInfo& k : kFileKinds)
    if (match_identifier(k.id, data, size) == IdentifierMatch::kMatch) return k.id;
  return std::nullopt;
}

std::optional<FileKind> file_kind_named(std::string_view name) {
  for (const FileKindInfo& k : kFileKinds)
    if (k.kind == name) return k.id;
  return std::nullopt;
}

IdentifierMatch match_identifier(FileKind kind, const uint8_t* data, size_t size) {
  const FileKindInfo& k = file_kind(kind);
  if (data == nullptr || size < k.identifier_offset + k.identifier.size()) return IdentifierMatch::kTooShort;
  const uint8_t* id = data + k.identifier_offset;
  if (bytes_equal(id, k.identifier)) return IdentifierMatch::kMatch;
  if (bytes_equal(id, k.identifier.substr(0, kFamilyChars))) return IdentifierMatch::kOtherVersion;
  return IdentifierMatch::kForeign;
}

std::string shown_identifier(FileKind kind, const uint8_t* data, size_t size) {
  const FileKindInfo& k = file_kind(kind);
  std::string shown;
  for (size_t i = k.identifier_offset; i < k.identifier_offset + k.identifier.size() && i < size; ++i) {
    const unsigned char c = data[i];
    // Shown inside quotes: a quote, a backslash or a non-printable byte as \xHH.
    static const char kHex[] = "0123456789abcdef";
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') shown += static_cast<char>(c);
    else shown += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }
  return shown;
}

Status check_identifier(FileKind kind, const uint8_t* data, size_t size, uint64_t file_size) {
  const FileKindInfo& k = file_kind(kind);
  const std::string offset = " (at byte offset " + std::to_string(k.identifier_offset) + ")";
  switch (match_identifier(kind, data, size)) {
    case IdentifierMatch::kMatch:
      return {};
    case IdentifierMatch::kTooShort:
      return make_error(ErrorCode::kMalformedFile, "file is " + std::to_string(file_size) + " bytes; a " +
                                                       std::string(k.extension) + " needs at least " +
                                                       std::to_string(kIdentifierEnd) + " (at byte offset 0)");
    case IdentifierMatch::kOtherVersion:
      return make_error(ErrorCode::kUnsupportedVersion, std::string(k.noun) + " identifier '" +
                                                            shown_identifier(kind, data, size) + "' is not the supported '" +
                                                            std::string(k.identifier) + "'" + offset);
    case IdentifierMatch::kForeign:
      break;
  }
  return make_error(ErrorCode::kMalformedFile, "not a " + std::string(k.extension) + " file: identifier '" +
                                                   shown_identifier(kind, data, size) + "' != '" +
                                                   std::string(k.identifier) + "'" + offset);
}

}  // namespace etpack
