// What the fuzz target does with one input, shared with the unit tests that
// replay saved fuzz findings (tests/fuzz/regressions).
//
// An input is a .pte, optionally followed by kSeparator and a .ptd. Without
// the separator the whole input is tried as both (so a lone .pte or .ptd
// seed exercises its own reader).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <algorithm>
#include <optional>

#include "core/blob.h"
#include "core/json.h"
#include "inspect/inspect.h"
#include "ops/graph.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "validate/validate.h"

namespace etpack::fuzz {

// Keep in sync with scripts/fuzz.sh, which builds pte+ptd seeds with it.
constexpr char kSeparator[] = "\n--etpack-ptd--\n";
constexpr size_t kSeparatorSize = sizeof(kSeparator) - 1;

inline std::pair<Blob, Blob> split(const uint8_t* data, size_t size) {
  for (size_t at = 0; size >= kSeparatorSize && at <= size - kSeparatorSize; ++at) {
    if (std::memcmp(data + at, kSeparator, kSeparatorSize) == 0)
      return {Blob::view(data, at), Blob::view(data + at + kSeparatorSize, size - at - kSeparatorSize)};
  }
  Blob whole = Blob::view(data, size);
  return {whole, whole};
}

// The pair as a host holding the files outside memory would give them: a
// head (its own allocation: reads past it are sanitizer reports) and an
// external file whose other bytes only the peeker reaches.
struct HeadOnlyPair {
  std::vector<uint8_t> pte_head, ptd_head;
  FileSource pte, ptd;
  Blob files[2];
};

inline bool peek_pair(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst, void* context) {
  const Blob* files = static_cast<const Blob*>(context);
  if (source > 1 || offset > files[source].size() || size > files[source].size() - offset) return false;
  if (size > 0) std::memcpy(dst, files[source].data() + offset, static_cast<size_t>(size));
  return true;
}

// The host of a head-only pair: peeks and reads reach the two files (source
// 0 and 1); no digests. inspect and validate read a segment delegate's blob
// through the host to decode its payload, as the JS hosts do for files.
class PairHost : public ExternalHost {
 public:
  explicit PairHost(const Blob* files) : files_(files) {}
  std::optional<Digest> digest(uint32_t, uint64_t, uint64_t) override { return std::nullopt; }
  bool read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    return peek_pair(source, offset, size, dst, const_cast<Blob*>(files_));
  }
  bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    return peek_pair(source, offset, size, dst, const_cast<Blob*>(files_));
  }

 private:
  const Blob* files_;
};

inline FileSource head_only(const Blob& whole, bool ptd, uint32_t source, std::vector<uint8_t>& head,
                            std::shared_ptr<ExternalHost> host) {
  Blob probe = whole.slice(0, std::min<uint64_t>(whole.size(), 64));
  Result<uint64_t> size = ptd ? ptd_head_size(probe, whole.size()) : pte_head_size(probe, whole.size());
  const uint64_t n = head_bytes_to_read(size.ok() ? std::optional<uint64_t>(*size) : std::nullopt, whole.size());
  head.assign(whole.data(), whole.data() + n);
  Blob::External info;
  info.source = source;
  info.host = std::move(host);
  return {Blob::view(head.data(), head.size()), Blob::external(info, whole.size())};
}

// The pair as head-only files (read through a PairHost): built once per input.
struct HeadOnly {
  HeadOnlyPair h;
  explicit HeadOnly(const Blob& pte, const Blob& ptd) {
    h.files[0] = pte;
    h.files[1] = ptd;
    auto host = std::make_shared<PairHost>(h.files);
    h.pte = head_only(pte, false, 0, h.pte_head, host);
    h.ptd = head_only(ptd, true, 1, h.ptd_head, host);
  }
};

inline bool uncoded(ErrorCode c) { return c == ErrorCode::kOk || c == ErrorCode::kInternal; }
inline bool limit(ErrorCode c) { return c == ErrorCode::kLimitExceeded || c == ErrorCode::kResourceLimit; }
inline volatile size_t sink = 0;  // every result is serialized, so nothing is skipped

// Read and validate: the readers and the validator on the pair, and the
// promises between them:
// - validate finds no error => the matching reader accepts the file;
// - the pte reader accepts the file => read_pte_program does too;
// - every error carries a code other than kOk/kInternal;
// - validate from heads (the rest peeked) says exactly what it says from
//   the whole files.
// Each operation runs once per input where a promise or the heads'
// comparison needs it (issue 42: fuzz.sh's 1,000 execs/s): each report is
// written as JSON once (its text is both the result and what the heads'
// must equal), and read_pte_program runs on its own only when
// deserialize_pte_binary, which begins with it on the same bytes, succeeded.
inline void exercise_read(const Blob& pte, const Blob& ptd, std::vector<std::string>& broken) {
  auto pte_file = deserialize_pte_binary(pte);
  auto ptd_file = deserialize_ptd(ptd);
  ValidationReport pte_alone = validate_artifacts(pte, {});
  ValidationReport ptd_alone = validate_ptd("fuzz.ptd", ptd);
  ValidationReport together = validate_artifacts(pte, {{"fuzz.ptd", ptd}});
  const std::string pte_alone_json = write_json(pte_alone.to_json());
  const std::string ptd_alone_json = write_json(ptd_alone.to_json());
  const std::string together_json = write_json(together.to_json());
  sink = sink + pte_alone_json.size() + ptd_alone_json.size() + together_json.size();
  if (!pte_file.ok() && uncoded(pte_file.error().code)) broken.push_back("uncoded: " + pte_file.error().message);
  if (!ptd_file.ok() && uncoded(ptd_file.error().code)) broken.push_back("uncoded: " + ptd_file.error().message);
  // Bytes the runtime never reads may be unreachable (RUNTIME.md round 2):
  // a constant_segment offset past its segment that no tensor reads, a
  // segment past the data that nothing loads (or mutable data, read by
  // slices), a named_data segment_index past the segments for a key no
  // backend asks for. Validate only warns; the deserializer cannot give
  // those buffers bytes and refuses the file with a coded error, as it
  // should, rather than invent them.
  const bool unreachable_unread_bytes =
      std::any_of(pte_alone.warnings.begin(), pte_alone.warnings.end(), [](const Finding& w) {
        return w.code == finding::kSubsegmentOffsetOutOfRange || w.code == finding::kSegmentOutOfBounds ||
               w.code == finding::kSegmentIndexOutOfRange;
      });
  if (pte_alone.ok() && !pte_file.ok() && !unreachable_unread_bytes)
    broken.push_back("validate ok, deserialize_pte_binary fails: " + pte_file.error().message);
  // FlatTensor.version above 0 is a warning (runtimes before 1.5 never read
  // it), but the .ptd model has no version field: deserialize_ptd refuses it
  // (UNSUPPORTED_VERSION) rather than write it back silently as 0.
  const bool other_ptd_version = !ptd_file.ok() && ptd_file.error().code == ErrorCode::kUnsupportedVersion;
  if (ptd_alone.ok() && !ptd_file.ok() && !other_ptd_version)
    broken.push_back("validate_ptd ok, deserialize_ptd fails: " + ptd_file.error().message);
  if (pte_file.ok()) {
    auto pte_program = read_pte_program(pte);
    if (!pte_program.ok()) broken.push_back("deserialize ok, read_pte_program fails: " + pte_program.error().message);
  }

  HeadOnly heads(pte, ptd);
  auto same = [&](const char* what, const Result<ValidationReport>& got, const std::string& want) {
    if (!got.ok()) broken.push_back(std::string(what) + " from heads fails: " + got.error().message);
    else if (write_json(got->to_json()) != want) broken.push_back(std::string(what) + " from heads differs");
  };
  same("validate_artifacts", validate_artifacts(heads.h.pte, {}), pte_alone_json);
  same("validate_ptd", validate_ptd("fuzz.ptd", heads.h.ptd), ptd_alone_json);
  same("validate_artifacts with .ptd", validate_artifacts(heads.h.pte, {{"fuzz.ptd", heads.h.ptd}}), together_json);
}

// inspect's reply (the JSON text and joined names the JS glue gets) as the
// C++ API's summary: inspect_pte and inspect_ptd are exactly this.
inline Result<Json> summary_of(const Result<InspectReply>& reply) {
  if (!reply.ok()) return reply.error();
  return summary_from_reply(reply.value(), kInspectTables);
}

inline bool same_reply(const Result<InspectReply>& got, const Result<InspectReply>& want) {
  if (got.ok() != want.ok()) return false;
  if (!got.ok()) return got.error().code == want.error().code;
  return got->json == want->json && got->names == want->names;
}

// Inspect and graph: the summaries and the plan graph, and the promises:
// - a file the reader accepts is summarized (or hits a limit);
// - the graph's refusals are coded;
// - inspect from heads says exactly what it says from the whole files.
// Each file is summarized once (issue 42): the heads' replies are compared
// with the whole files' replies, text and names, which the summaries are
// made from; and the readers run only when inspect refused a file, the one
// case where the promise needs their answer (inspect reads with the same
// readers first, so a reader's crash shows either way).
inline void exercise_inspect(const Blob& pte, const Blob& ptd, std::vector<std::string>& broken) {
  // With the padding finder the JS API passes (the summary's paddingInSegments).
  const PaddingFinder padding = pte_padding_in_segments;
  const auto pte_reply = inspect_pte_reply(FileSource::in_memory(pte), 0, padding);
  const auto ptd_reply = inspect_ptd_reply(FileSource::in_memory(ptd));
  const auto pte_summary = summary_of(pte_reply);
  const auto ptd_summary = summary_of(ptd_reply);
  for (const auto* summary : {&pte_summary, &ptd_summary})
    if (summary->ok()) sink = sink + write_json(summary->value()).size();
  if (!pte_summary.ok() && !limit(pte_summary.error().code) && read_pte_program(pte).ok())
    broken.push_back("read_pte_program ok, inspect_pte fails: " + pte_summary.error().message);
  if (!ptd_summary.ok() && !limit(ptd_summary.error().code) && deserialize_ptd(ptd).ok())
    broken.push_back("deserialize_ptd ok, inspect_ptd fails: " + ptd_summary.error().message);
  auto graph = graph_of(FileSource::in_memory(pte), {{"fuzz.ptd", FileSource::in_memory(ptd)}}, std::nullopt);
  if (graph.ok()) sink = sink + graph_dot(*graph).size() + graph_mermaid(*graph).size();
  else if (uncoded(graph.error().code)) broken.push_back("graph uncoded: " + graph.error().message);

  HeadOnly heads(pte, ptd);
  if (!same_reply(inspect_pte_reply(heads.h.pte, 0, padding), pte_reply)) broken.push_back("inspect_pte from heads differs");
  if (!same_reply(inspect_ptd_reply(heads.h.ptd), ptd_reply)) broken.push_back("inspect_ptd from heads differs");
}

// Both families above on the pair (what the unit tests replay for saved
// findings; validate ok => reader ok => inspect ok joins them). Returns the promises that broke. Crashes,
// hangs and sanitizer reports are the caller's to notice.
inline std::vector<std::string> exercise(const Blob& pte, const Blob& ptd) {
  std::vector<std::string> broken;
  exercise_read(pte, ptd, broken);
  exercise_inspect(pte, ptd, broken);
  return broken;
}

}  // namespace etpack::fuzz
