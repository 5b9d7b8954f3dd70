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
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/json.h"
#include "read/inspect.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "read/validate.h"

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

// Runs every reader of untrusted bytes on the pair, serializes every result
// (so nothing is skipped), and returns the promises between them that broke:
// - validate finds no error => the matching reader accepts the file;
// - the reader accepts the file => inspect summarizes it (or hits its limit);
// - every error carries a code other than kOk/kInternal.
// Crashes, hangs and sanitizer reports are the caller's to notice.
inline std::vector<std::string> exercise(const Blob& pte, const Blob& ptd) {
  std::vector<std::string> broken;
  auto pte_file = deserialize_pte_binary(pte);
  auto pte_program = read_pte_program(pte);
  auto ptd_file = deserialize_ptd(ptd);
  auto pte_summary = inspect_pte(pte);
  auto ptd_summary = inspect_ptd(ptd);
  ValidationReport pte_alone = validate_artifacts(pte, {});
  ValidationReport ptd_alone = validate_ptd("fuzz.ptd", ptd);
  ValidationReport together = validate_artifacts(pte, {{"fuzz.ptd", ptd}});
  static volatile size_t sink = 0;
  for (const auto* summary : {&pte_summary, &ptd_summary})
    if (summary->ok()) sink = sink + write_json(summary->value()).size();
  for (const auto* report : {&pte_alone, &ptd_alone, &together}) sink = sink + write_json(report->to_json()).size();

  auto uncoded = [](ErrorCode c) { return c == ErrorCode::kOk || c == ErrorCode::kInternal; };
  if (!pte_file.ok() && uncoded(pte_file.error().code)) broken.push_back("uncoded: " + pte_file.error().message);
  if (!ptd_file.ok() && uncoded(ptd_file.error().code)) broken.push_back("uncoded: " + ptd_file.error().message);
  if (pte_alone.ok() && !pte_file.ok())
    broken.push_back("validate ok, deserialize_pte_binary fails: " + pte_file.error().message);
  if (ptd_alone.ok() && !ptd_file.ok()) broken.push_back("validate_ptd ok, deserialize_ptd fails: " + ptd_file.error().message);
  if (pte_file.ok() && !pte_program.ok())
    broken.push_back("deserialize ok, read_pte_program fails: " + pte_program.error().message);
  if (pte_program.ok() && !pte_summary.ok() && pte_summary.error().code != ErrorCode::kLimitExceeded)
    broken.push_back("read_pte_program ok, inspect_pte fails: " + pte_summary.error().message);
  if (ptd_file.ok() && !ptd_summary.ok() && ptd_summary.error().code != ErrorCode::kLimitExceeded)
    broken.push_back("deserialize_ptd ok, inspect_ptd fails: " + ptd_summary.error().message);
  return broken;
}

}  // namespace etpack::fuzz
