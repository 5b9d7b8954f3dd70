// Rules the runtime's loader applies beyond the file's structure, as facts
// from upstream runtime/executor/program.cpp (Program::load), method.cpp
// (Method::init, parse_values) and program_validation.cpp, recorded in
// ../shared/RUNTIME.md; and the file's requirements against a target
// release and backend list.
#include <algorithm>
#include <string>

#include "read/fb_bytes.h"
#include "read/requirements.h"
#include "validate/validate_internal.h"

namespace etpack {
namespace {

// The release whose CMake build first compiled the constant_buffer path out
// (CMakeLists.txt: -DET_ENABLE_DEPRECATED_CONSTANT_BUFFER=0, tag v1.3.0).
constexpr Release kConstantBufferOff{1, 3};

// The first release that reads the schema version: pytorch/executorch PR
// #22114 (merged 2026-08-24, after v1.4.1 of 2026-08-14, so in 1.5) makes
// Program::load refuse Program.version above kMaxSupportedSchemaVersion (0)
// with InvalidProgram, and FlatTensorDataMap::load a FlatTensor.version
// above it with InvalidExternalData. Earlier releases never read either.
constexpr Release kSchemaVersionRead{1, 5};

ETPACK_COLD_BEGIN

std::string indexed(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

// Program::load: constant_segment.offsets holds a placeholder 0 for
// non-constant tensors, so a file without it (no constant_segment, or an
// empty list) takes the deprecated constant_buffer path whatever constants
// it has: InvalidProgram on builds without that path.
void check_placeholder(FindingSink& sink, const TableValue& program, bool deprecated_path) {
  const Value& cs = program.get("constant_segment");
  if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 0) return;
  const Value& cb = program.get("constant_buffer");
  const size_t buffers = cb.is_items() ? cb.items().size() : 0;
  const std::string what =
      std::string(cs.is_table() ? "constant_segment.offsets is empty" : "the program has no constant_segment") +
      " (no placeholder offset 0)" +
      (buffers > 0 ? "; its constants are in the deprecated constant_buffer (" + std::to_string(buffers) + " entries)"
                   : "");
  const std::string builds =
      "the runtime's default CMake build (ExecuTorch 1.3 and later, ET_ENABLE_DEPRECATED_CONSTANT_BUFFER=0) refuses "
      "this file: InvalidProgram; builds with the deprecated constant_buffer path (Buck's default, CMake builds "
      "before 1.3) load it with an error log. Fix: `executorch-pack repack` rewrites it loadably (placeholder added, "
      "constants moved into the constant segment)";
  if (deprecated_path)
    sink.warning(finding::kConstantSegmentNoPlaceholder, what + "; " + builds, std::nullopt, "constant_segment");
  else
    sink.error(finding::kConstantSegmentNoPlaceholder, what + "; " + builds, std::nullopt, "constant_segment");
}

ETPACK_COLD_END

// Method::init and parse_values: what load_method refuses with
// InvalidProgram before any kernel runs. `spend` stops on hostile sharing.
class MethodRules {
 public:
  MethodRules(FindingSink& sink, WorkBudget& budget) : sink_(sink), budget_(budget) {}

  void run(const TableValue& program) {
    const Value& plans = program.get("execution_plan");
    if (!plans.is_items()) {
      missing("execution_plan", "the program has no execution_plan");
      return;
    }
    for (size_t p = 0; p < plans.items().size(); ++p)
      if (!method(plans.items()[p].table(), indexed("execution_plan", p))) return;
  }

 private:
  ETPACK_COLD void missing(const std::string& path, const std::string& what) {
    sink_.error(finding::kMissingField, what + "; the runtime refuses this when the method loads: InvalidProgram",
                std::nullopt, path);
  }

  bool spend(uint64_t units) {
    if (budget_.spend(units)) return true;
    if (!stopped_) {
      stopped_ = true;
      sink_.error(finding::kValidationLimitExceeded, "the program's vectors are shared so often that checking them all "
                                                     "would cost too much; method checks stopped");
    }
    return false;
  }

  bool method(const TableValue& plan, const std::string& path) {
    const Value& chains = plan.get("chains");
    if (!chains.is_items() || chains.items().empty()) missing(path + ".chains", path + " has no chains");
    if (!plan.has("delegates")) missing(path + ".delegates", path + ".delegates is absent");
    const Value& ops = plan.get("operators");
    for (size_t i = 0; ops.is_items() && i < ops.items().size(); ++i)
      if (!ops.items()[i].table().get("name").is_string())
        missing(path + "." + indexed("operators", i) + ".name", path + "." + indexed("operators", i) + " has no name");
    for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
      const std::string at = path + "." + indexed("chains", c);
      const Value& instructions = chains.items()[c].table().get("instructions");
      if (!instructions.is_items()) {
        missing(at + ".instructions", at + " has no instructions list");
        continue;
      }
      if (!spend(instructions.items().size())) return false;
      for (size_t i = 0; i < instructions.items().size(); ++i) {
        auto here = [&] { return at + "." + indexed("instructions", i); };  // built only for a finding
        const Value& args = instructions.items()[i].table().get("instr_args");
        if (!args.is_table()) {
          missing(here() + ".instr_args", here() + " is empty (no instr_args)");
          continue;
        }
        const std::string& kind = args.table().def->name;
        if ((kind == "KernelCall" || kind == "DelegateCall") && !args.table().has("args"))
          missing(here() + ".instr_args.args", here() + " (" + kind + ") has no args list");
      }
    }
    return values(plan, path);
  }

  // Lists and strings the value parser dereferences (their items:
  // validate_method_load.cpp).
  bool values(const TableValue& plan, const std::string& path) {
    const Value& values = plan.get("values");
    if (!values.is_items()) return true;  // reported as MISSING_FIELD by check_program
    const size_t count = values.items().size();
    if (!spend(count)) return false;
    for (size_t v = 0; v < count; ++v) {
      const Value& val = values.items()[v].table().get("val");
      if (!val.is_table()) continue;
      const TableValue& t = val.table();
      const std::string& kind = t.def->name;
      // Built only for a finding: 20,000 values cost ~15% of validate's time when built for each.
      auto at = [&] { return path + "." + indexed("values", v) + ".val"; };
      if (kind == "String") {
        if (!t.get("string_val").is_string()) missing(at() + ".string_val", at() + " (String) has no string");
        continue;
      }
      const bool list = kind == "IntList" || kind == "BoolList" || kind == "DoubleList" || kind == "TensorList" ||
                        kind == "OptionalTensorList";
      if (!list) continue;
      if (!t.has("items")) {
        missing(at() + ".items", at() + " (" + kind + ") has no items");
        continue;
      }
    }
    return true;
  }

  FindingSink& sink_;
  WorkBudget& budget_;
  bool stopped_ = false;
};

ETPACK_COLD_BEGIN

// Where Program.version lies (the root table's field 0), when present.
std::optional<uint64_t> program_version_offset(const Blob& head) {
  const FbBytes bytes(head.data(), head.size(), 0);
  const TableDef& def = *program_schema().root;
  const FieldDef* version = def.find("version");
  auto root = bytes.follow(0);
  if (!version || !root.ok()) return std::nullopt;
  auto table = bytes.table(*root, def);
  if (!table.ok()) return std::nullopt;
  auto at = bytes.field(*table, def, *version);
  return at.ok() && *at != 0 ? std::optional<uint64_t>(*at) : std::nullopt;
}

void check_target(FindingSink& sink, const Requirements& needs, const ValidateOptions& options) {
  if (options.runtime) {
    const Release target{options.runtime->first, options.runtime->second};
    for (const FeatureUse& f : needs.features) {
      const Release since = feature_since(f.feature);
      if (!(target < since)) continue;
      sink.error(finding::kFeatureTooNew,
                 std::string("the file uses ") + feature_name(f.feature) + " (first loaded by ExecuTorch " +
                     since.text() + ")" + (f.where.empty() ? "" : " at " + f.where) + "; ExecuTorch " + target.text() +
                     " cannot load it",
                 std::nullopt, f.where);
    }
  }
  if (options.backends) {
    const std::vector<std::string>& linked = *options.backends;
    for (const std::string& id : needs.backends)
      if (std::find(linked.begin(), linked.end(), id) == linked.end())
        sink.error(finding::kBackendNotListed,
                   "a delegate needs the backend '" + id +
                       "', which is not among the target's backends; load_method would fail: NotFound (backend not registered)",
                   std::nullopt, "execution_plan");
  }
}

}  // namespace

void check_schema_version(FindingSink& sink, const char* table, uint64_t version, std::optional<uint64_t> offset,
                          const ValidateOptions& options, const char* refusal) {
  const std::string what = std::string(table) + ".version is " + std::to_string(version) +
                           ", above the schema version 0 every runtime supports: ExecuTorch " + kSchemaVersionRead.text() +
                           " and later (pytorch/executorch PR #22114) refuse it (" + refusal + "); " +
                           "releases up to 1.4 never read the field";
  if (options.runtime && !(Release{options.runtime->first, options.runtime->second} < kSchemaVersionRead))
    sink.error(finding::kSchemaVersionTooNew,
               what + ", and the target ExecuTorch " +
                   Release{options.runtime->first, options.runtime->second}.text() + " refuses this file",
               offset, "version");
  else
    sink.warning(finding::kSchemaVersionTooNew, what + ". Writers stamp 0", offset, "version");
}

ETPACK_COLD_END

// Called once from -Oz code (validate_pte_file.cpp): kept -O3.
ETPACK_OUT_OF_LINE void check_runtime_rules(FindingSink& sink, WorkBudget& budget, const Blob& head, const PteFile& pte,
                                            const ValidateOptions& options) {
  if (const uint64_t version = pte.program.get_uint("version"); version != 0)
    check_schema_version(sink, "Program", version, program_version_offset(head), options, "Program::load: InvalidProgram");
  check_names(sink, head, pte.program);
  const bool old_target = options.runtime && Release{options.runtime->first, options.runtime->second} < kConstantBufferOff;
  check_placeholder(sink, pte.program, options.deprecated_constant_buffer || old_target);
  MethodRules(sink, budget).run(pte.program);
  check_method_load(sink, budget, head, pte);
  if (options.runtime || options.backends) check_target(sink, pte_requirements(head, pte), options);
}

}  // namespace etpack
