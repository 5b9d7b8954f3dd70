// Names the runtime reads as C strings (../shared/RUNTIME.md, round 2): a
// NUL inside one ends it there, and the runtime looks up the shorter name.
// - An operator: Method::resolve_operator builds the kernel name with
//   snprintf("%s.%s", name->c_str(), overload->c_str()) (upstream
//   runtime/executor/method.cpp, populate_operator_name; the overload and
//   its dot only when the overload string is not empty) and looks that up:
//   another kernel runs, or load_method fails OperatorMissing.
// - A delegate's backend id: BackendDelegate::Init calls
//   get_backend_class(delegate.id()->c_str()) (interface.cpp: strcmp), for
//   every delegate of the method: another backend runs, or init fails
//   NotFound.
// - An operator's kernel name (name, '.', overload, as above) is built in a
//   100-byte buffer (method.cpp, kTempBufferSizeForName): 100 characters or
//   more and resolve_operator fails Internal, so load_method fails.
// Operators no KernelCall calls are never looked up (a warning); an
// EXTERNAL tensor's name is resolved in validate_external.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "read/fb_bytes.h"
#include "validate/validate_internal.h"

namespace etpack {

std::string c_string_prefix(std::string_view name) { return std::string(name.substr(0, name.find('\0'))); }

std::string printable_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '\0') out += "\\0";
    else out += c;
  }
  return out;
}

namespace {

// The runtime's buffer for a kernel name with its terminating NUL.
constexpr size_t kOperatorNameBuffer = 100;

// Where the strings of the program's operators and delegates lie in the
// flatbuffer (a verified one: these reads do not fail in practice; when one
// does, the finding has no offset).
class StringLocator {
 public:
  explicit StringLocator(const Blob& flatbuffer) : bytes_(flatbuffer.data(), flatbuffer.size(), 0) {}

  // The table positions of vector field `list` of the table at `pos`.
  std::vector<uint64_t> tables(uint64_t pos, const TableDef& def, const char* list) const {
    std::vector<uint64_t> out;
    const FieldDef* f = def.find(list);
    auto t = bytes_.table(pos, def);
    if (!f || !t.ok()) return out;
    auto at = bytes_.field(*t, def, *f);
    if (!at.ok() || *at == 0) return out;
    auto vec = bytes_.vector(*at, def, *f);
    if (!vec.ok()) return out;
    out.reserve(static_cast<size_t>(vec->count));  // bounded: 4 bytes per element exist
    for (uint64_t i = 0; i < vec->count; ++i) {
      auto child = bytes_.follow(vec->first + 4 * i);
      out.push_back(child.ok() ? *child : 0);
    }
    return out;
  }
  // The first byte of string field `name` of the table at `pos`.
  std::optional<uint64_t> string_at(uint64_t pos, const TableDef& def, const char* name) const {
    const FieldDef* f = def.find(name);
    auto t = bytes_.table(pos, def);
    if (!f || !t.ok()) return std::nullopt;
    auto at = bytes_.field(*t, def, *f);
    if (!at.ok() || *at == 0) return std::nullopt;
    auto s = bytes_.string(*at);
    if (!s.ok()) return std::nullopt;
    return static_cast<uint64_t>(s->data() - reinterpret_cast<const char*>(bytes_.data()));
  }
  std::optional<uint64_t> root() const {
    auto r = bytes_.follow(0);
    return r.ok() ? std::optional<uint64_t>(*r) : std::nullopt;
  }

 private:
  FbBytes bytes_;
};

// The op_index of every KernelCall of a plan, as a set of flags.
std::vector<bool> called_operators(const TableValue& plan, size_t op_count) {
  std::vector<bool> called(op_count, false);
  const Value& chains = plan.get("chains");
  for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
    const Value& instructions = chains.items()[c].table().get("instructions");
    for (size_t i = 0; instructions.is_items() && i < instructions.items().size(); ++i) {
      const Value& args = instructions.items()[i].table().get("instr_args");
      if (!args.is_table() || args.table().def->name != "KernelCall") continue;
      const int64_t op = args.table().get_int("op_index");
      if (op >= 0 && static_cast<uint64_t>(op) < op_count) called[static_cast<size_t>(op)] = true;
    }
  }
  return called;
}

}  // namespace

void check_names(FindingSink& sink, const Blob& flatbuffer, const TableValue& program) {
  const Value& plans = program.get("execution_plan");
  if (!plans.is_items()) return;
  const Schema& schema = program_schema();
  const TableDef& plan_def = *schema.find_table("ExecutionPlan");
  const TableDef& op_def = *schema.find_table("Operator");
  const TableDef& delegate_def = *schema.find_table("BackendDelegate");
  StringLocator where(flatbuffer);
  const std::optional<uint64_t> root = where.root();
  const std::vector<uint64_t> plan_pos = root ? where.tables(*root, *program.def, "execution_plan") : std::vector<uint64_t>{};
  auto offset_of = [](std::optional<uint64_t> start, std::string_view text) -> std::optional<uint64_t> {
    if (!start) return std::nullopt;
    return *start + text.find('\0');
  };
  for (size_t p = 0; p < plans.items().size(); ++p) {
    const TableValue& plan = plans.items()[p].table();
    const std::string path = indexed_path("execution_plan", p);
    const std::string method = plan.get("name").is_string() ? c_string_prefix(plan.get("name").str()) : "";
    const uint64_t pos = p < plan_pos.size() ? plan_pos[p] : 0;
    const Value& ops = plan.get("operators");
    const size_t op_count = ops.is_items() ? ops.items().size() : 0;
    std::vector<uint64_t> op_pos;
    std::vector<bool> called;
    for (size_t i = 0; i < op_count; ++i) {
      const TableValue& op = ops.items()[i].table();
      const Value& name = op.get("name");
      const Value& overload = op.get("overload");
      const bool nul_name = name.is_string() && name.str().find('\0') != std::string::npos;
      const bool nul_overload = overload.is_string() && overload.str().find('\0') != std::string::npos;
      const bool has_overload = overload.is_string() && !overload.str().empty();
      const std::string looked_up =
          (name.is_string() ? c_string_prefix(name.str()) : "") + (has_overload ? "." + c_string_prefix(overload.str()) : "");
      const bool too_long = looked_up.size() >= kOperatorNameBuffer;
      if (!nul_name && !nul_overload && !too_long) continue;
      if (called.empty()) called = called_operators(plan, op_count);
      if (op_pos.empty() && pos) op_pos = where.tables(pos, plan_def, "operators");
      const uint64_t at = i < op_pos.size() ? op_pos[i] : 0;
      const std::string op_path = path + "." + indexed_path("operators", i);
      if (too_long) {
        const std::string said = op_path + " names the kernel '" + looked_up + "' (" +
                                 std::to_string(looked_up.size()) + " characters): the runtime builds kernel names in a " +
                                 std::to_string(kOperatorNameBuffer) +
                                 "-byte buffer (method.cpp populate_operator_name) and refuses a longer one";
        const std::optional<uint64_t> offset = at ? where.string_at(at, op_def, "name") : std::nullopt;
        if (called[i])
          sink.error(finding::kOperatorNameTooLong,
                     said + ": load_method('" + method + "') fails (Internal) when it resolves the operator", offset,
                     op_path + ".name");
        else
          sink.warning(finding::kOperatorNameTooLong,
                       said + "; no KernelCall calls this operator, so the runtime never builds its name", offset,
                       op_path + ".name");
      }
      if (!nul_name && !nul_overload) continue;
      const std::string field = nul_name ? "name" : "overload";
      const std::string& text = nul_name ? name.str() : overload.str();
      const std::optional<uint64_t> offset =
          at ? offset_of(where.string_at(at, op_def, field.c_str()), text) : std::nullopt;
      const std::string said = op_path + "." + field + " '" + printable_name(text) +
                               "' holds a NUL: the runtime reads it as a C string and looks up the kernel '" +
                               looked_up + "'";
      if (called[i])
        sink.error(finding::kNameTruncatedAtNul,
                   said + " (method.cpp populate_operator_name) when load_method('" + method +
                       "') resolves it: another kernel runs, or load_method fails (OperatorMissing)",
                   offset, op_path + "." + field);
      else
        sink.warning(finding::kNameTruncatedAtNul,
                     said + "; no KernelCall calls this operator, so the runtime never looks it up", offset,
                     op_path + "." + field);
    }
    const Value& delegates = plan.get("delegates");
    std::vector<uint64_t> delegate_pos;
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      const Value& id = delegates.items()[d].table().get("id");
      if (!id.is_string() || id.str().find('\0') == std::string::npos) continue;
      if (delegate_pos.empty() && pos) delegate_pos = where.tables(pos, plan_def, "delegates");
      const uint64_t at = d < delegate_pos.size() ? delegate_pos[d] : 0;
      const std::string d_path = path + "." + indexed_path("delegates", d) + ".id";
      sink.error(finding::kNameTruncatedAtNul,
                 d_path + " '" + printable_name(id.str()) +
                     "' holds a NUL: the runtime reads it as a C string and asks for the backend '" +
                     c_string_prefix(id.str()) + "' (method.cpp BackendDelegate::Init) when load_method('" + method +
                     "') initializes the delegate: another backend runs it, or init fails (NotFound)",
                 at ? offset_of(where.string_at(at, delegate_def, "id"), id.str()) : std::nullopt, d_path);
    }
  }
}

}  // namespace etpack

namespace etpack {

std::optional<uint64_t> fqn_offset(const Blob& flatbuffer, size_t plan, size_t value) {
  const Schema& schema = program_schema();
  const FbBytes bytes(flatbuffer.data(), flatbuffer.size(), 0);
  // Follows table field `name` of the table at `pos`.
  auto child = [&](uint64_t pos, const TableDef& def, const char* name) -> std::optional<uint64_t> {
    const FieldDef* f = def.find(name);
    auto t = bytes.table(pos, def);
    if (!f || !t.ok()) return std::nullopt;
    auto at = bytes.field(*t, def, *f);
    if (!at.ok() || *at == 0) return std::nullopt;
    auto target = bytes.follow(*at);
    return target.ok() ? std::optional<uint64_t>(*target) : std::nullopt;
  };
  StringLocator where(flatbuffer);
  const std::optional<uint64_t> root = where.root();
  if (!root) return std::nullopt;
  const std::vector<uint64_t> plans = where.tables(*root, *schema.root, "execution_plan");
  if (plan >= plans.size()) return std::nullopt;
  const std::vector<uint64_t> values = where.tables(plans[plan], *schema.find_table("ExecutionPlan"), "values");
  if (value >= values.size()) return std::nullopt;
  const std::optional<uint64_t> tensor = child(values[value], *schema.find_table("EValue"), "val");
  if (!tensor) return std::nullopt;
  const std::optional<uint64_t> info = child(*tensor, *schema.find_table("Tensor"), "extra_tensor_info");
  if (!info) return std::nullopt;
  return where.string_at(*info, *schema.find_table("ExtraTensorInfo"), "fully_qualified_name");
}

}  // namespace etpack
