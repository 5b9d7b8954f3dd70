#include "conformance/bundled_case.h"

#include <cstring>

#include "encode/bundled_writer.h"
#include "model/value_json.h"
#include "read/bundled_reader.h"

namespace etpack::conformance {
namespace {

std::string join(const std::string& dir, const std::string& name) { return dir + "/" + name; }

Json file_ref(const Json& name) {
  Json ref = Json::object();
  ref.set("file", name);
  return ref;
}

uint64_t parse_bits(const Json& bits) { return std::stoull(bits.text(), nullptr, 16); }

double double_of(const Json& value) {
  const uint64_t bits = parse_bits(*value.find("bits"));
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

const Json& member(const Json& j, const char* key) {
  static const Json kNull;
  const Json* m = j.is_object() ? j.find(key) : nullptr;
  return m ? *m : kNull;
}

// case.json's value -> {"val_type", "val"} as serializeBundledProgram takes it.
Json value_to_ours(const Json& v) {
  Json out = Json::object();
  const std::string type = member(v, "type").text();
  Json val = Json::object();
  if (type == "Tensor") {
    val.set("scalar_type", member(v, "scalar_type"));
    val.set("sizes", member(v, "sizes"));
    val.set("dim_order", member(v, "dim_order"));
    val.set("data", file_ref(member(v, "data")));
  } else if (type == "Int") {
    const Json* digits = v.find("int_val_str");
    val.set("int_val", digits ? Json::number_text(digits->text()) : member(v, "int_val"));
  } else if (type == "Double") {
    val.set("double_val", Json::real(double_of(v)));  // Python repr: exact; NaN/inf as bare tokens
  } else if (type == "Bool") {
    val.set("bool_val", member(v, "bool_val"));
  } else {  // None: the union's empty member
    out.set("val_type", Json::null());
    out.set("val", Json::null());
    return out;
  }
  out.set("val_type", Json::string(type));
  out.set("val", std::move(val));
  return out;
}

Json values_to_ours(const Json& list) {
  if (!list.is_array()) return list;
  Json out = Json::array();
  for (const Json& v : list.items()) out.push(value_to_ours(v));
  return out;
}

Json case_to_ours(const Json& c) {
  Json out = Json::object();
  out.set("version", member(c, "version"));
  const Json& suites = member(c, "method_test_suites");
  Json our_suites = Json::array();
  for (const Json& s : suites.items()) {
    Json suite = Json::object();
    suite.set("method_name", member(s, "method_name"));
    const Json& cases = member(s, "test_cases");
    if (!cases.is_array()) {
      suite.set("test_cases", cases);
    } else {
      Json our_cases = Json::array();
      for (const Json& tc : cases.items()) {
        Json one = Json::object();
        one.set("inputs", values_to_ours(member(tc, "inputs")));
        one.set("expected_outputs", values_to_ours(member(tc, "expected_outputs")));
        our_cases.push(std::move(one));
      }
      suite.set("test_cases", std::move(our_cases));
    }
    our_suites.push(std::move(suite));
  }
  out.set("method_test_suites", std::move(our_suites));
  out.set("program", file_ref(member(c, "program")));
  return out;
}

bool same_bytes(const Blob& a, const Blob& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size())) == 0);
}

std::vector<int64_t> ints(const Value& v, BaseType element) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < scalar_vector_length(v, element); ++i) out.push_back(scalar_vector_int(v, element, i));
  return out;
}

std::vector<int64_t> json_ints(const Json& j) {
  std::vector<int64_t> out;
  for (const Json& i : j.items()) out.push_back(i.as_int64().value_or(INT64_MIN));
  return out;
}

// One value read back against case.json's; "" when equal.
std::string compare_value(const Value& item, const Json& want, const std::string& dir) {
  const std::string type = member(want, "type").text();
  const Value* val = item.is_table() ? &item.table().get("val") : nullptr;
  if (type == "None" || type.empty()) return val && val->is_table() ? "expected None, read a value" : "";
  if (!val || !val->is_table()) return "expected " + type + ", read None";
  const TableValue& t = val->table();
  if (t.def->name != type) return "expected " + type + ", read " + t.def->name;
  if (type == "Tensor") {
    if (t.get_int("scalar_type") != member(want, "scalar_type").as_int64()) return "scalar_type differs";
    if (ints(t.get("sizes"), BaseType::kInt) != json_ints(member(want, "sizes"))) return "sizes differ";
    if (ints(t.get("dim_order"), BaseType::kUByte) != json_ints(member(want, "dim_order"))) return "dim_order differs";
    auto data = read_file(join(dir, member(want, "data").text()));
    if (!data.ok() || !t.get("data").is_scalars() || !same_bytes(t.get("data").scalars(), *data)) return "data differs";
  } else if (type == "Int") {
    const Json* digits = want.find("int_val_str");
    const Json& number = digits ? *digits : member(want, "int_val");
    if (std::to_string(t.get_int("int_val")) != number.text()) return "int_val " + std::to_string(t.get_int("int_val")) + " != " + number.text();
  } else if (type == "Double") {
    uint64_t want_bits = parse_bits(*want.find("bits"));
    if (want_bits == 0x8000000000000000u) want_bits = 0;  // -0.0 equals the default: not written, reads as +0.0
    const Value& d = t.get("double_val");
    double got = d.is_scalar() ? d.scalar().d : 0.0;
    uint64_t got_bits;
    std::memcpy(&got_bits, &got, 8);
    if (got_bits != want_bits) return "double bits differ";
  } else if (type == "Bool") {
    if ((t.get_uint("bool_val") != 0) != member(want, "bool_val").bool_value()) return "bool_val differs";
  }
  return "";
}

// `file` read back against case.json; "" when equal.
std::string compare_read_back(const Blob& file, const Json& c, const std::string& dir) {
  auto read = read_bundled_program(file);
  if (!read.ok()) return "read back failed: " + read.error().message;
  const TableValue& b = read->bundle;
  if (std::to_string(b.get_uint("version")) != member(c, "version").text()) return "version differs";
  auto program = read_file(join(dir, member(c, "program").text()));
  if (!program.ok() || !same_bytes(read->program, *program)) return "program bytes differ";
  const Json& want_suites = member(c, "method_test_suites");
  const Value& suites = b.get("method_test_suites");
  if (!suites.is_items() || suites.items().size() != want_suites.items().size()) return "suite count differs";
  for (size_t s = 0; s < suites.items().size(); ++s) {
    const TableValue& suite = suites.items()[s].table();
    const Json& want = want_suites.items()[s];
    const std::string where = "suite " + std::to_string(s);
    if (!suite.get("method_name").is_string() || suite.get("method_name").str() != member(want, "method_name").text())
      return where + ": method_name differs";
    const Value& cases = suite.get("test_cases");
    const Json& want_cases = member(want, "test_cases");
    if (!cases.is_items() || cases.items().size() != want_cases.items().size()) return where + ": case count differs";
    for (size_t i = 0; i < cases.items().size(); ++i) {
      for (const char* field : {"inputs", "expected_outputs"}) {
        const Value& values = cases.items()[i].table().get(field);
        const Json& want_values = member(want_cases.items()[i], field);
        const std::string at = where + " case " + std::to_string(i) + " " + field;
        if (!values.is_items() || values.items().size() != want_values.items().size()) return at + ": count differs";
        for (size_t v = 0; v < values.items().size(); ++v) {
          std::string diff = compare_value(values.items()[v], want_values.items()[v], dir);
          if (!diff.empty()) return at + "[" + std::to_string(v) + "]: " + diff;
        }
      }
    }
  }
  return "";
}

// Doubles set from case.json's exact bits: JSON text cannot carry a NaN's
// sign or payload, so the tree gets the bits themselves.
void set_double_bits(TableValue& bundle, const Json& c) {
  Value& suites = bundle.at("method_test_suites");
  const Json& want_suites = member(c, "method_test_suites");
  if (!suites.is_items() || !want_suites.is_array()) return;
  for (size_t s = 0; s < suites.items().size() && s < want_suites.items().size(); ++s) {
    if (!suites.items()[s].is_table()) continue;
    Value& cases = suites.items()[s].table().at("test_cases");
    const Json& want_cases = member(want_suites.items()[s], "test_cases");
    if (!cases.is_items() || !want_cases.is_array()) continue;
    for (size_t i = 0; i < cases.items().size() && i < want_cases.items().size(); ++i) {
      if (!cases.items()[i].is_table()) continue;
      for (const char* field : {"inputs", "expected_outputs"}) {
        Value& values = cases.items()[i].table().at(field);
        const Json& want_values = member(want_cases.items()[i], field);
        if (!values.is_items() || !want_values.is_array()) continue;
        for (size_t v = 0; v < values.items().size() && v < want_values.items().size(); ++v) {
          const Json& want = want_values.items()[v];
          if (member(want, "type").text() != "Double" || !values.items()[v].is_table()) continue;
          Value& val = values.items()[v].table().at("val");
          if (val.is_table()) val.table().at("double_val") = Value::from_double(double_of(want));
        }
      }
    }
  }
}

}  // namespace

CaseResult run_bundled_case(CaseResult r, const Json& c, const std::string& dir) {
  const std::string text = write_json(case_to_ours(c));
  BlobResolver resolve = [&](const Json& ref) -> Result<Blob> {
    const Json* file = ref.find("file");
    if (file == nullptr || !file->is_string()) return make_error(ErrorCode::kInvalidArgument, "bad file reference");
    return read_file(join(dir, file->text()));
  };
  // serialize_bundled_program's two steps, the doubles set by their bits between them.
  Result<std::vector<uint8_t>> bytes = make_error(ErrorCode::kInternal, "not run");
  auto parsed = table_from_json_text(text, *bundled_program_schema().root, resolve);
  if (parsed.ok()) {
    set_double_bits(*parsed, c);
    bytes = write_bundled_program(*parsed);
  } else {
    bytes = parsed.error();
  }
  if (member(c, "expect_error").bool_value()) {
    if (bytes.ok()) return r.detail = "serialized a case upstream refuses", r;
    if (bytes.error().code != ErrorCode::kSchemaMismatch)
      return r.detail = std::string("refused with ") + error_code_name(bytes.error().code) + ", expected SCHEMA_MISMATCH: " +
                        bytes.error().message, r;
    r.passed = true;
    return r;
  }
  if (!bytes.ok()) return r.detail = std::string(error_code_name(bytes.error().code)) + ": " + bytes.error().message, r;
  auto want = read_file(join(dir, "out.bpte"));
  if (!want.ok()) return r.detail = want.error().message, r;
  const Blob ours = Blob::own(std::move(*bytes));
  if (!same_bytes(ours, *want)) {
    size_t at = 0;
    const size_t n = static_cast<size_t>(std::min(ours.size(), want->size()));
    while (at < n && ours.data()[at] == want->data()[at]) ++at;
    return r.detail = "bytes differ: " + std::to_string(ours.size()) + " vs " + std::to_string(want->size()) +
                      " bytes, first difference at offset " + std::to_string(at), r;
  }
  // Read back: today's file, and the sample's upstream file and old-path file.
  for (const char* name : {"out.bpte", "bundled_program.bpte", "out_legacy_flatc.bpte"}) {
    auto file = read_file(join(dir, name));
    if (!file.ok()) continue;  // only the sample has the other two
    std::string diff = compare_read_back(*file, c, dir);
    if (!diff.empty()) return r.detail = std::string(name) + ": " + diff, r;
  }
  r.passed = true;
  return r;
}

}  // namespace etpack::conformance
