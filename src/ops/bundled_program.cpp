#include "ops/bundled_program.h"

#include "encode/bundled_writer.h"
#include "format/file_kinds.h"
#include "model/scalar_type.h"
#include "validate/bundled_checks.h"
#include "inspect/inspect.h"
#include "read/pte_reader.h"

namespace etpack {
namespace {


uint64_t offset_in(const Blob& file, const Blob& slice) {
  return slice.empty() ? 0 : static_cast<uint64_t>(slice.data() - file.data());
}

Json int_list(const Value& v, BaseType element) {
  Json out = Json::array();
  const size_t n = scalar_vector_length(v, element);
  for (size_t i = 0; i < n; ++i) out.push(Json::integer(scalar_vector_int(v, element, i)));
  return out;
}

Json value_summary(const Blob& file, const Value& item) {
  Json out = Json::object();
  const Value* val = item.is_table() ? &item.table().get("val") : nullptr;
  if (val == nullptr || !val->is_table()) {
    out.set("type", Json::string("None"));
    return out;
  }
  const TableValue& t = val->table();
  const std::string& kind = t.def->name;
  out.set("type", Json::string(kind));
  if (kind == "Tensor") {
    const int64_t scalar_type = t.get_int("scalar_type");
    const char* name = scalar_type_name(scalar_type);
    out.set("dtype", name ? Json::string(name) : Json::null());
    out.set("scalarType", Json::integer(scalar_type));
    out.set("shape", t.get("sizes").absent() ? Json::null() : int_list(t.get("sizes"), BaseType::kInt));
    out.set("dimOrder", t.get("dim_order").absent() ? Json::null() : int_list(t.get("dim_order"), BaseType::kUByte));
    const Value& data = t.get("data");
    out.set("dataOffset", data.is_scalars() ? Json::unsigned_integer(offset_in(file, data.scalars())) : Json::null());
    out.set("dataSize", data.is_scalars() ? Json::unsigned_integer(data.scalars().size()) : Json::null());
  } else if (kind == "Int") {
    out.set("value", Json::integer(t.get_int("int_val")));
  } else if (kind == "Bool") {
    out.set("value", Json::boolean(t.get_uint("bool_val") != 0));
  } else if (kind == "Double") {
    const Value& d = t.get("double_val");
    out.set("value", Json::real(d.is_scalar() ? d.scalar().d : 0.0));
  }
  return out;
}

Json values_summary(const Blob& file, const Value& list) {
  if (!list.is_items()) return Json::null();
  Json out = Json::array();
  for (const Value& item : list.items()) out.push(value_summary(file, item));
  return out;
}

Json suites_summary(const Blob& file, const TableValue& bundle) {
  const Value& suites = bundle.get("method_test_suites");
  if (!suites.is_items()) return Json::null();
  Json out = Json::array();
  for (const Value& item : suites.items()) {
    Json suite = Json::object();
    const TableValue* s = item.is_table() ? &item.table() : nullptr;
    suite.set("methodName", s && s->get("method_name").is_string() ? Json::string(s->get("method_name").str()) : Json::null());
    Json cases = Json::array();
    if (s && s->get("test_cases").is_items()) {
      for (const Value& c : s->get("test_cases").items()) {
        Json one = Json::object();
        one.set("inputs", c.is_table() ? values_summary(file, c.table().get("inputs")) : Json::null());
        one.set("expectedOutputs", c.is_table() ? values_summary(file, c.table().get("expected_outputs")) : Json::null());
        cases.push(std::move(one));
      }
    }
    suite.set("testCases", std::move(cases));
    out.push(std::move(suite));
  }
  return out;
}

// A reader's refusal as validate's finding on the bundle itself.
Finding bundle_finding(const Blob& file, const Error& error) {
  const char* code = finding::kFlatbufferInvalid;
  std::optional<uint64_t> offset;
  if (file.size() < kIdentifierEnd) {
    code = finding::kFileTooSmall;
    offset = 0;
  } else {
    switch (match_identifier(FileKind::kBpte, file.data(), kIdentifierEnd)) {
      case IdentifierMatch::kOtherVersion: code = finding::kUnsupportedVersion; offset = 4; break;
      case IdentifierMatch::kForeign: code = finding::kBadIdentifier; offset = 4; break;
      default:
        if (error.code == ErrorCode::kLimitExceeded || error.code == ErrorCode::kResourceLimit) code = finding::kFlatbufferLimitExceeded;
    }
  }
  return Finding{code, error.message, "bpte", offset, ""};
}

}  // namespace

Result<std::vector<uint8_t>> serialize_bundled_program(std::string_view text, const BlobResolver& resolve) {
  const Schema& schema = bundled_program_schema();
  if (schema.root == nullptr) return make_error(ErrorCode::kInternal, "the BundledProgram schema did not load");
  ETP_ASSIGN(TableValue bundle, table_from_json_text(text, *schema.root, resolve));
  return write_bundled_program(bundle);
}

Result<Blob> bundled_file_bytes(const FileSource& file) {
  if (file.head.size() == file.size() && !file.head.is_external()) return file.head;
  if (!file.file.is_external()) return file.file;
  std::vector<uint8_t> bytes(static_cast<size_t>(file.size()));
  if (!file.file.read_into(bytes.data()))  // the one copy: the flatbuffer is parsed whole
    return make_error(ErrorCode::kIoError, "could not read the bundled program's " + std::to_string(file.size()) + " bytes");
  return Blob::own(std::move(bytes));
}

Result<BundledFile> deserialize_bundled_program(const FileSource& file) {
  ETP_ASSIGN(Blob bytes, bundled_file_bytes(file));
  return read_bundled_program(bytes);
}

Result<InspectReply> inspect_bundled_program(const FileSource& file) {
  ETP_ASSIGN(Blob bytes, bundled_file_bytes(file));
  ETP_ASSIGN(BundledFile bundled, read_bundled_program(bytes));
  Json out = Json::object();
  out.set("format", Json::string("bpte"));
  out.set("fileSize", Json::unsigned_integer(bytes.size()));
  out.set("identifier", Json::string(identifier_of(FileKind::kBpte)));
  out.set("version", Json::unsigned_integer(bundled.bundle.get_uint("version")));
  Json program = Json::null();
  Json summary = Json::null();
  Json program_error = Json::null();
  if (bundled.bundle.get("program").is_scalars()) {
    program = Json::object();
    program.set("offset", Json::unsigned_integer(offset_in(bytes, bundled.program)));
    program.set("size", Json::unsigned_integer(bundled.program.size()));
    // The embedded program is inspected as the .pte it is; a program that
    // does not read is said, the bundle still described.
    Result<InspectReply> pte = inspect_pte_reply(FileSource::in_memory(bundled.program), 0, pte_padding_in_segments);
    Result<Json> parsed = pte.ok() ? summary_from_reply(*pte, kInspectTables) : Result<Json>(pte.error());
    if (parsed.ok()) {
      summary = std::move(*parsed);
    } else {
      program_error = Json::object();
      program_error.set("code", Json::string(error_code_name(parsed.error().code)));
      program_error.set("message", Json::string(parsed.error().message));
    }
  }
  out.set("program", std::move(program));
  out.set("programSummary", std::move(summary));
  out.set("programError", std::move(program_error));
  out.set("methodTestSuites", suites_summary(bytes, bundled.bundle));
  InspectReply reply;
  reply.json = write_json(out);
  return reply;
}

Result<ValidationReport> validate_bundled_program(const FileSource& file,
                                                  const std::vector<std::pair<std::string, FileSource>>& ptds,
                                                  const ValidateOptions& options) {
  ETP_ASSIGN(Blob bytes, bundled_file_bytes(file));
  ValidationReport report;
  Result<BundledFile> bundled = read_bundled_program(bytes);
  if (!bundled.ok()) {
    report.errors.push_back(bundle_finding(bytes, bundled.error()));
    return report;
  }
  if (bundled->program.empty()) {
    report.errors.push_back(Finding{finding::kMissingField, "the bundle holds no program", "bpte", std::nullopt, "program"});
    check_bundle(bundled->bundle, nullptr, report);
    return report;
  }
  // The embedded program: judged as a .pte of its own (its offsets are
  // inside it), with the .ptd files it uses.
  ETP_ASSIGN(ValidationReport program_report, validate_artifacts(FileSource::in_memory(bundled->program), ptds, options));
  report = std::move(program_report);
  check_program_placement(bytes, bundled->program, report);
  Result<PteFile> program = read_pte_program(bundled->program);
  check_bundle(bundled->bundle, program.ok() ? &program->program : nullptr, report);
  return report;
}

}  // namespace etpack
