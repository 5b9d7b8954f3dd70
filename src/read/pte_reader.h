// deserialize_pte_binary: a .pte file back to its program, mutable data and
// named data, as upstream exir/_serialize/_program.py restores them. The
// input is untrusted: every header field, offset and size is checked.
#pragma once

#include <optional>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "format/headers.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"

namespace etpack {

struct PteFile {
  TableValue program{program_schema().root};
  std::optional<std::vector<Blob>> mutable_data;     // nullopt: none in the file
  std::optional<NamedDataStoreOutput> named_data;    // nullopt: none in the file
  std::optional<PteHeader> header;                   // the eh00 header, if any
};

// Restores segment data into the program: delegates inline (one copy per
// delegate, as upstream), constants into constant_buffer (each slice runs to
// the next offset, so padding stays attached), mutable data and named data
// out of it; `segments` and `named_data` become empty lists. Unlike upstream,
// a list the file did not have stays absent, so writing the program again
// reproduces the file. All returned byte vectors are slices of `file` (no
// copies); they keep `file`'s storage alive.
// Errors: kMalformedFile (naming the offset), kUnsupportedVersion (an ETxx
// identifier other than ET12), kLimitExceeded (nesting), kResourceLimit (decoding would
// take more memory than the file size allows).
Result<PteFile> deserialize_pte_binary(const Blob& file);

// Parses and bounds-checks only the flatbuffer part (no segment restoring).
// Returns the program and the header; used by inspect/validate/repack.
Result<PteFile> read_pte_program(const Blob& file);

// The same for files whose bytes mostly stay elsewhere (a file on disk, a
// browser Blob): `head` holds the file's first bytes in memory — at least
// the flatbuffer part (see pte_head_size) — and `file` is the whole file, in
// memory or external. Segment data is sliced from `file`, never loaded.
Result<PteFile> read_pte_program(const Blob& head, uint64_t file_size);
Result<PteFile> deserialize_pte_binary(const Blob& head, const Blob& file);

// Segment data a program gets back (deserialize_pte_binary's restoring,
// as data): all slices of the file.
struct PteRestored {
  std::vector<Blob> delegates;                  // each delegate stored in a segment, in plan order
  std::optional<std::vector<Blob>> constants;   // constant_buffer's storages, when in a segment
  std::optional<std::vector<Blob>> mutable_data;
  std::optional<NamedDataStoreOutput> named_data;
};

// deserialize_pte_binary without the model, for writers that stream the
// program straight from its bytes (ops/program_reply.cpp): the
// flatbuffer, checked as read_pte_program checks it (the same errors), and
// what restoring the segments gives back. When `restore` is set, the
// program read from `flatbuffer` must be changed as deserialize_pte_binary
// changes it: each delegate whose processed data is in a segment refers to
// a new backend_delegate_data entry holding `restored.delegates[k]` (k
// counting such delegates in plan order, entries appended after the file's
// own); constants, when set, replace constant_buffer and empty
// constant_segment; mutable_data_segments is dropped when mutable data was
// restored; present segments and named_data lists become empty.
struct PteProgramBytes {
  Blob flatbuffer;
  bool restore = false;
  PteRestored restored;
};
Result<PteProgramBytes> read_pte_program_bytes(const Blob& head, const Blob& file);

// Bytes of head read_pte_program needs, from the file's first bytes (at
// least kPteProbeBytes, or the whole file if shorter) and its size. With an
// eh00 header: its program_size. Without one, the flatbuffer's extent is
// found from the bytes (headless_program_end): when the first bytes do not
// settle it, the answer is larger than them: read that many and ask again
// (at most a few rounds; the reads grow fourfold), until the answer is no
// larger than the bytes given.
constexpr uint64_t kPteProbeBytes = file_kind(FileKind::kPte).probe_bytes;
Result<uint64_t> pte_head_size(const Blob& first_bytes, uint64_t file_size);

// Where the program of a .pte without eh00 ends. The runtime reads such a
// file whole as its flatbuffer; but a flatbuffer that verifies within a
// prefix ending at least kHeadlessWindow before the file does is all there
// is, and the rest is trailing bytes (reported as such, never read). The
// end is the smallest prefix in which flatc's verifier accepts the program
// (verification only gets easier as the buffer grows, so this is one point,
// whatever prefix it is computed from). `known` is false when `prefix` is
// too short to tell: `end` is then how many bytes to read next. A file of at
// most 2 * kHeadlessWindow bytes, or one whose flatbuffer does not verify in
// any such prefix (it reaches the end, or is malformed), is the program
// whole: end = file size.
constexpr uint64_t kHeadlessWindow = 64 * 1024;
struct HeadlessEnd {
  uint64_t end = 0;
  bool known = false;
};
HeadlessEnd headless_program_end(const Blob& prefix, uint64_t file_size);

// The program's end in the file: eh00's program_size, or where the
// headless program ends (the file size when `head` cannot tell).
uint64_t pte_program_end(const std::optional<PteHeader>& header, const Blob& head, uint64_t file_size);

}  // namespace etpack
