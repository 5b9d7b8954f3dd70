#include "ops/repack_checks.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "read/ptd_reader.h"
#include "read/pte_reader.h"

namespace etpack {
namespace {

// An EXTERNAL tensor that no given .ptd provides: "not found" when .ptd
// files were given, "unresolved" when none were.
bool is_missing_external(const Finding& f) {
  return f.code == finding::kExternalTensorNotFound || f.code == finding::kExternalTensorUnresolved;
}

// A delegate's named-data key in no given file: the delegate-keys guard
// (ops/delegate_keys_guard.h) refuses it, naming the key (or lets it pass
// when missing data is allowed).
bool is_missing_delegate_data(const Finding& f) { return f.code == finding::kDelegateNamedKeyMissing; }

// The findings that repack does not refuse in an input: it adds the
// placeholder, and missing external data is refused (or allowed) by its own
// step, with the keys listed.
bool handled_by_repack(const Finding& f) {
  return f.code == finding::kConstantSegmentNoPlaceholder || is_missing_external(f) || is_missing_delegate_data(f);
}

// "<what> does not validate (2 errors): pte: CODE at path: message; ..." —
// the first few findings; all of them travel with the refusal.
std::string summary(const std::string& what, const std::vector<Finding>& findings) {
  constexpr size_t kNamed = 3;
  std::string out = what + " does not validate (" + std::to_string(findings.size()) +
                    (findings.size() == 1 ? " error): " : " errors): ");
  for (size_t i = 0; i < findings.size() && i < kNamed; ++i) {
    const Finding& f = findings[i];
    out += (i ? "; " : "") + f.file + ": " + f.code + (f.path.empty() ? "" : " at " + f.path) + ": " + f.message;
  }
  if (findings.size() > kNamed) out += "; and " + std::to_string(findings.size() - kNamed) + " more";
  return out;
}

// The first `n` bytes of `cord` (n is at most a head: metadata only).
Result<Blob> cord_prefix(const Cord& cord, uint64_t n) {
  const auto& pieces = cord.pieces();
  // Usually the header and flatbuffer are one owned piece: share it.
  if (!pieces.empty() && pieces[0].kind == Cord::Piece::Kind::kBytes && !pieces[0].bytes.is_external() &&
      pieces[0].bytes.size() >= n)
    return pieces[0].bytes.slice(0, n);
  // Otherwise copy the head's bytes (small: they precede all segment data).
  std::vector<uint8_t> out(static_cast<size_t>(n), 0);
  uint64_t at = 0;
  for (const Cord::Piece& p : pieces) {
    if (at >= n) break;
    const uint64_t take = std::min(p.size(), n - at);
    if (p.kind == Cord::Piece::Kind::kBytes) {
      if (p.bytes.is_external()) {
        if (!p.bytes.slice(0, take).read_into(out.data() + at))
          return make_error(ErrorCode::kIoError, "could not read the head of a written file to check it");
      } else if (take > 0) {
        std::memcpy(out.data() + at, p.bytes.data(), static_cast<size_t>(take));
      }
    }  // kZeros: `out` is zero already
    at += take;
  }
  return Blob::own(std::move(out));
}

}  // namespace

Result<FileSource> output_source(const Cord& cord, bool ptd) {
  const uint64_t size = cord.size();
  ETP_ASSIGN(Blob probe, cord_prefix(cord, std::min(size, ptd ? kPtdProbeBytes : kPteProbeBytes)));
  Result<uint64_t> head_size = ptd ? ptd_head_size(probe, size) : pte_head_size(probe, size);
  // A .pte without eh00 may take a few rounds to tell where it ends (pte_head_size).
  for (int round = 0; !ptd && head_size.ok() && *head_size > probe.size() && round < 32; ++round) {
    ETP_ASSIGN(probe, cord_prefix(cord, std::min(size, *head_size)));
    head_size = pte_head_size(probe, size);
  }
  if (!head_size.ok())
    return make_error(ErrorCode::kInternal, std::string("a written ") + (ptd ? ".ptd" : ".pte") +
                                                " has no readable head: " + head_size.error().message);
  FileSource source;
  ETP_ASSIGN(source.head, cord_prefix(cord, head_bytes_to_read(*head_size, size)));
  // The whole file as a size only: the id names no host source, so the
  // validator's optional peeks at padding past the head fail quietly (our
  // writers put zeros there) and no segment byte is ever read.
  Blob::External info;
  info.source = std::numeric_limits<uint32_t>::max();
  source.file = Blob::external(std::move(info), size);
  return source;
}

Status check_inputs(const FileSource& pte, const std::vector<std::pair<std::string, FileSource>>& data,
                    const std::vector<FileSource>& merge, std::vector<Finding>& findings) {
  // Merged files join the data: EXTERNAL tensors may resolve in them too
  // (their entries are carried into the output just the same).
  std::vector<std::pair<std::string, FileSource>> ptds = data;
  for (size_t i = 0; i < merge.size(); ++i) ptds.emplace_back("merge[" + std::to_string(i) + "]", merge[i]);
  ETP_ASSIGN(ValidationReport report, validate_artifacts(pte, ptds));
  for (Finding& f : report.errors)
    if (!handled_by_repack(f)) findings.push_back(std::move(f));
  if (findings.empty()) return {};
  return make_error(ErrorCode::kInvalidInput,
                    summary("the input", findings) + "; repack does not rewrite invalid files");
}

Status check_outputs(const Cord& pte, const std::vector<std::pair<std::string, Cord>>& ptds,
                     const std::set<std::string>& allowed_missing_paths, std::vector<Finding>& findings) {
  ETP_ASSIGN(FileSource pte_source, output_source(pte, false));
  std::vector<std::pair<std::string, FileSource>> ptd_sources;
  for (const auto& [tag, cord] : ptds) {
    ETP_ASSIGN(FileSource s, output_source(cord, true));
    ptd_sources.emplace_back(tag + ".ptd", std::move(s));
  }
  ETP_ASSIGN(ValidationReport report, validate_artifacts(pte_source, ptd_sources));
  for (Finding& f : report.errors) {
    const bool allowed =
        (is_missing_external(f) || is_missing_delegate_data(f)) && allowed_missing_paths.count(f.path) != 0;
    if (!allowed) findings.push_back(std::move(f));
  }
  if (findings.empty()) return {};
  return make_error(ErrorCode::kInvalidOutput,
                    summary("the repacked output", findings) +
                        "; nothing was returned (this is a bug in executorch-pack: please report it with the input)");
}

}  // namespace etpack
