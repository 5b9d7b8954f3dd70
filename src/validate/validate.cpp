#include "validate/validate.h"

#include <cctype>

#include "read/requirements.h"
#include "validate/validate_internal.h"

namespace etpack {

Json ValidationReport::to_json() const {
  auto list = [](const std::vector<Finding>& findings) {
    Json out = Json::array();
    for (const Finding& f : findings) {
      Json j = Json::object();
      j.set("code", Json::string(f.code));
      j.set("message", Json::string(f.message));
      j.set("file", Json::string(f.file));
      j.set("offset", f.offset ? Json::unsigned_integer(*f.offset) : Json::null());
      j.set("path", f.path.empty() ? Json::null() : Json::string(f.path));
      out.push(std::move(j));
    }
    return out;
  };
  Json out = Json::object();
  out.set("ok", Json::boolean(ok()));
  out.set("errors", list(errors));
  out.set("warnings", list(warnings));
  return out;
}

void FindingSink::add(std::vector<Finding>& list, const char* code, std::string message,
                      std::optional<uint64_t> offset, std::string path) {
  bool is_error = &list == &report_.errors;
  if (is_error) ++errors_;
  size_t& kept = is_error ? errors_kept_ : warnings_kept_;
  // A stopped check must always show, however many findings came before.
  bool always = std::string(code) == finding::kValidationLimitExceeded;
  if (kept >= kMaxPerKind && !always) {
    if (!cut_) {
      cut_ = true;
      report_.warnings.push_back({finding::kTooManyFindings,
                                  "more than " + std::to_string(kMaxPerKind) + " " + (is_error ? "errors" : "warnings") +
                                      " in this file; the rest are not listed",
                                  file_, std::nullopt, ""});
    }
    return;
  }
  ++kept;
  list.push_back({code, std::move(message), file_, offset, std::move(path)});
}

void report_read_error(FindingSink& sink, const Error& error) {
  std::optional<uint64_t> offset;
  const std::string marker = "byte offset ";
  size_t at = error.message.rfind(marker);
  if (at != std::string::npos) {
    uint64_t v = 0;
    size_t i = at + marker.size(), digits = 0;
    for (; i < error.message.size() && std::isdigit(static_cast<unsigned char>(error.message[i])) && digits < 19;
         ++i, ++digits)
      v = v * 10 + static_cast<uint64_t>(error.message[i] - '0');
    if (digits > 0) offset = v;
  }
  if (!offset) offset = 0;  // e.g. the verifier, which checks the flatbuffer as a whole from byte 0
  const char* code = finding::kFlatbufferInvalid;
  if (error.code == ErrorCode::kLimitExceeded || error.code == ErrorCode::kResourceLimit)
    code = finding::kFlatbufferLimitExceeded;
  if (error.code == ErrorCode::kUnsupportedVersion) code = finding::kUnsupportedVersion;
  sink.error(code, error.message, offset);
}

namespace {

Status check_head(const FileSource& f, const std::string& name) {
  const uint64_t need = std::min(f.size(), kMinimumHeadBytes);
  if (f.head.is_external() || f.head.size() < need || f.head.size() > f.size())
    return make_error(ErrorCode::kInvalidArgument, name + ": the head must be in memory and hold the file's first " +
                                                       std::to_string(need) + " bytes (pte_head_size / ptd_head_size)");
  return {};
}

}  // namespace

namespace {

// .ptd features against the target release: a .ptd at all, and several.
void check_ptd_target(FindingSink& sink, size_t ptd_count, const ValidateOptions& options) {
  if (!options.runtime || ptd_count == 0) return;
  const Release target{options.runtime->first, options.runtime->second};
  for (Feature f : {Feature::kPtdFile, Feature::kSeveralPtdFiles}) {
    if (f == Feature::kSeveralPtdFiles && ptd_count < 2) continue;
    if (!(target < feature_since(f))) continue;
    sink.error(finding::kFeatureTooNew,
               std::string("the program's data comes in ") + std::to_string(ptd_count) + " .ptd file(s): " +
                   feature_name(f) + " (first loaded by ExecuTorch " + feature_since(f).text() + "); ExecuTorch " +
                   target.text() + " cannot load it");
  }
}

}  // namespace

Result<ValidationReport> validate_artifacts(const FileSource& pte,
                                            const std::vector<std::pair<std::string, FileSource>>& ptds,
                                            const ValidateOptions& options) {
  ETP_TRY(check_head(pte, "pte"));
  for (const auto& [name, file] : ptds) ETP_TRY(check_head(file, name));
  ValidationReport report;
  std::optional<PteFile> program = validate_pte_into(report, pte, options);
  PtdIndex index;
  // What the program looks up in its .ptd files (unknown without a program).
  std::optional<std::unordered_set<std::string>> keys;
  if (program) {
    keys = external_keys(program->program);
    if (!ptds.empty())  // the blobs are decoded only when some .ptd may hold what they ask for
      for (std::string key : delegate_keys(pte, *program)) keys->insert(std::move(key));
  }
  for (const auto& [name, file] : ptds) validate_ptd_into(report, name, file, &index, options, keys ? &*keys : nullptr);
  if (ptds.size() > 1) check_data_files_merge(report, index);
  if (program) {
    FindingSink sink(report, "pte");
    check_external_tensors(sink, pte.head, *program, index, !ptds.empty());
    check_delegate_payloads(sink, pte, *program, index, !ptds.empty());
    check_ptd_target(sink, ptds.size(), options);
    check_method_allocator(sink, *program, options, ptds.size());
  }
  return report;
}

Result<ValidationReport> validate_ptd(const std::string& name, const FileSource& ptd) {
  ETP_TRY(check_head(ptd, name));
  ValidationReport report;
  validate_ptd_into(report, name, ptd, nullptr);
  return report;
}

ValidationReport validate_artifacts(const Blob& pte, const std::vector<std::pair<std::string, Blob>>& ptds,
                                    const ValidateOptions& options) {
  std::vector<std::pair<std::string, FileSource>> files;
  for (const auto& [name, bytes] : ptds) files.emplace_back(name, FileSource::in_memory(bytes));
  return std::move(validate_artifacts(FileSource::in_memory(pte), files, options).value());  // in memory: heads are whole
}

ValidationReport validate_ptd(const std::string& name, const Blob& ptd) {
  return std::move(validate_ptd(name, FileSource::in_memory(ptd)).value());
}

}  // namespace etpack
