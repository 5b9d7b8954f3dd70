// The file-kind table: what identifies each kind of file (its flatbuffer
// identifier and offset, its extended header, how many first bytes a probe
// needs). Every reader, validate, inspect and the bindings ask this table;
// the rows live in format/file_kinds.def, which also generates the JS table
// (npm/src/generated/file-kinds.mjs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace etpack {

enum class FileKind : uint8_t {
#define FILE_KIND(id, kind, extension, identifier, identifier_offset, magic, header_offset, header_required, probe, noun, inspected) id,
#include "format/file_kinds.def"
#undef FILE_KIND
};

struct FileKindInfo {
  FileKind id;
  std::string_view kind;        // "pte", "ptd": the name JS and reports use
  std::string_view extension;   // ".pte"
  std::string_view identifier;  // 4 chars at identifier_offset
  size_t identifier_offset;
  std::string_view header_magic;  // 4 chars at header_offset
  size_t header_offset;
  bool header_required;
  uint64_t probe_bytes;   // first bytes a head-size probe reads
  std::string_view noun;  // "program", "data file"
  bool inspected;         // inspect and validate read it (ops/file_kind_ops.h: its entry has both)
};

inline constexpr FileKindInfo kFileKinds[] = {
#define FILE_KIND(id, kind, extension, identifier, identifier_offset, magic, header_offset, header_required, probe, noun, \
                  inspected)                                                                                            \
  {FileKind::id, kind, extension, identifier, identifier_offset, magic, header_offset, header_required, probe, noun, inspected},
#include "format/file_kinds.def"
#undef FILE_KIND
};

constexpr const FileKindInfo& file_kind(FileKind id) { return kFileKinds[static_cast<size_t>(id)]; }

// The identifier and the header magic as strings (for messages and reports).
inline std::string identifier_of(FileKind id) { return std::string(file_kind(id).identifier); }
inline std::string header_magic_of(FileKind id) { return std::string(file_kind(id).header_magic); }

// The .pte identifier as a literal, for constant tables that quote it in
// text (read/requirements.cpp's feature names); checked against the row.
#define ETPACK_PTE_IDENTIFIER "ET12"
static_assert(std::string_view(ETPACK_PTE_IDENTIFIER) == file_kind(FileKind::kPte).identifier,
              "ETPACK_PTE_IDENTIFIER is the pte row's identifier");

// Bytes that must be present to tell a kind by its identifier.
constexpr size_t kIdentifierEnd = 8;

// The kind whose identifier `data` carries, or nullopt (too short, or no
// kind's identifier). Reads at most kIdentifierEnd bytes.
std::optional<FileKind> file_kind_of(const uint8_t* data, size_t size);
// The kind named "pte"/"ptd", or nullopt.
std::optional<FileKind> file_kind_named(std::string_view name);

// How the identifier of a file expected to be of `kind` compares.
enum class IdentifierMatch : uint8_t {
  kMatch,         // the kind's identifier
  kOtherVersion,  // same family (first two chars), another version: ET11
  kForeign,       // something else: not this kind of file
  kTooShort,      // fewer than kIdentifierEnd bytes
};
IdentifierMatch match_identifier(FileKind kind, const uint8_t* data, size_t size);

// The identifier as a message shows it: printable ASCII, other bytes as \xNN.
std::string shown_identifier(FileKind kind, const uint8_t* data, size_t size);

// The readers' verdict on the identifier: ok on a match; kUnsupportedVersion
// for another version of the kind; kMalformedFile otherwise (naming offset
// 4, or offset 0 when the file is shorter than 8 bytes; `file_size` is what
// the message quotes then).
Status check_identifier(FileKind kind, const uint8_t* data, size_t size, uint64_t file_size);

}  // namespace etpack
