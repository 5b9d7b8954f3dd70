#include "read/requirements.h"

#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "core/le_bytes.h"
#include "format/file_kinds.h"
#include "format/headers.h"

namespace etpack {
namespace {

// The first release of pytorch/executorch that reads each feature. Checked
// against the release tags of pytorch/executorch (git show <tag>:<path>):
//  kProgram         v0.1.0  schema/program.fbs: file_identifier "ET12",
//                           `segments`, DataLocation SEGMENT for delegates.
//  kConstantSegment v0.2.0  schema/program.fbs gains `constant_segment`
//                           (absent in v0.1.0).
//  kMutableData     v0.4.0  schema/program.fbs gains `mutable_data_segments`.
//  kExternalTensors v0.5.0  schema/program.fbs gains TensorDataLocation EXTERNAL.
//  kNamedDataInPte  v0.6.0  schema/program.fbs gains `named_data`.
//  kPtdFile         v0.7.0  extension/flat_tensor/serialize/flat_tensor.fbs:
//                           v0.6.0 has the first FT01 layout (tensor_alignment,
//                           tensors: [TensorMetadata]); v0.7.0 drops both fields
//                           and renumbers segments/named_data, which is the
//                           layout written today (version still 0). A .ptd in
//                           today's layout therefore needs 0.7.
//  kSeveralPtdFiles v1.0.0  extension/module/module.h gains `data_files`
//                           (one or more .ptd) and runtime MergedDataMap
//                           (absent in v0.7.0).
//  kBFloat16        v1.2.0  schema/scalar_type.fbs lists BFLOAT16 = 15 (a
//                           comment before v1.2.0).
//  kDeviceFields    v1.3.0  schema/program.fbs gains DeviceType,
//                           ExtraTensorInfo.device_type/device_index and
//                           ExecutionPlan.non_const_buffer_device. Counted only
//                           for a device other than CPU 0: older runtimes skip
//                           the fields (flatbuffers ignore unknown fields) and
//                           put everything on the CPU, which is then right.
// Not rows, by the same sources: eh00's 32-byte form (segment_data_size,
// read by program.cpp since v1.0.0) still loads on older runtimes, whose
// ExtendedHeader::Parse accepts any length >= 24; the constant_buffer path
// is deprecated since v0.7 and compiled out of the CMake build since v1.3.0
// (CMakeLists.txt: -DET_ENABLE_DEPRECATED_CONSTANT_BUFFER=0), which validate
// checks as CONSTANT_SEGMENT_NO_PLACEHOLDER.
struct FeatureRow {
  Feature feature;
  const char* name;
  Release since;
};
constexpr FeatureRow kFeatures[] = {
    {Feature::kProgram, ETPACK_PTE_IDENTIFIER " program (segments, delegates)", {0, 1}},
    {Feature::kConstantSegment, "constant_segment (constants outside the flatbuffer)", {0, 2}},
    {Feature::kMutableData, "mutable_data_segments", {0, 4}},
    {Feature::kExternalTensors, "EXTERNAL tensor data (needs a .ptd)", {0, 5}},
    {Feature::kNamedDataInPte, "named_data in the .pte", {0, 6}},
    {Feature::kPtdFile, ".ptd file (FlatTensor layout since 0.7)", {0, 7}},
    {Feature::kSeveralPtdFiles, "several .ptd files for one program", {1, 0}},
    {Feature::kBFloat16, "bfloat16 tensors", {1, 2}},
    {Feature::kDeviceFields, "tensor device fields (device_type, non_const_buffer_device)", {1, 3}},
};

const FeatureRow& row(Feature f) {
  for (const FeatureRow& r : kFeatures)
    if (r.feature == f) return r;
  return kFeatures[0];
}

constexpr int64_t kBFloat16 = 15;

class Collector {
 public:
  Collector(const Blob& head, const PteFile& pte) : head_(head), program_(pte.program) {}

  Requirements run() {
    use(Feature::kProgram, "");
    const Value& cs = program_.get("constant_segment");
    if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1)
      use(Feature::kConstantSegment, "constant_segment");
    const Value& mds = program_.get("mutable_data_segments");
    if (mds.is_items() && !mds.items().empty()) use(Feature::kMutableData, "mutable_data_segments");
    const Value& named = program_.get("named_data");
    if (named.is_items() && !named.items().empty()) use(Feature::kNamedDataInPte, "named_data");
    const Value& plans = program_.get("execution_plan");
    for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) method(p, plans.items()[p].table());
    for_each_tensor(program_, [&](size_t p, size_t v, const TableValue& t) { tensor(p, v, t); });
    // An entry some other method calls is a kernel to link, not unused.
    std::unordered_set<std::string> unused;
    for (std::string& name : uncalled_)
      if (operators_.count(name) == 0 && unused.insert(name).second) out_.unused_operators.push_back(std::move(name));
    return std::move(out_);
  }

 private:
  void use(Feature f, const std::string& where) {
    if (used_.insert(static_cast<int>(f)).second) out_.features.push_back({f, where});
  }

  void method(size_t p, const TableValue& plan) {
    const std::string path = "execution_plan[" + std::to_string(p) + "]";
    // Method::init looks up (resolve_operator) only the operators a
    // KernelCall names: those are the kernels to link; table entries no
    // instruction calls are listed apart.
    const Value& ops = plan.get("operators");
    const size_t op_count = ops.is_items() ? ops.items().size() : 0;
    std::vector<bool> called(op_count, false);  // bounded: one per decoded operator table
    const Value& chains = plan.get("chains");
    for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
      const Value& instructions = chains.items()[c].table().get("instructions");
      for (size_t i = 0; instructions.is_items() && i < instructions.items().size(); ++i) {
        const Value& args = instructions.items()[i].table().get("instr_args");
        if (!args.is_table() || args.table().def->name != "KernelCall") continue;
        const int64_t index = args.table().get_int("op_index");
        if (index >= 0 && static_cast<uint64_t>(index) < op_count) called[static_cast<size_t>(index)] = true;
      }
    }
    for (size_t i = 0; i < op_count; ++i) {
      const TableValue& op = ops.items()[i].table();
      const Value& name = op.get("name");
      const Value& overload = op.get("overload");
      if (!name.is_string()) continue;
      std::string full = name.str();
      if (overload.is_string() && !overload.str().empty()) full += "." + overload.str();
      if (!called[i]) {
        uncalled_.push_back(std::move(full));
      } else if (operators_.insert(full).second) {
        out_.operators.push_back(std::move(full));
      }
    }
    const Value& delegates = plan.get("delegates");
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      const Value& id = delegates.items()[d].table().get("id");
      if (id.is_string() && backends_.insert(id.str()).second) out_.backends.push_back(id.str());
    }
    // Older runtimes ignore the device fields and plan every buffer on the
    // CPU: only a device other than the default (CPU, index 0) needs 1.3.
    const Value& devices = plan.get("non_const_buffer_device");
    for (size_t i = 0; devices.is_items() && i < devices.items().size(); ++i) {
      const TableValue& d = devices.items()[i].table();
      if (d.get_uint("device_type") != 0 || d.get_int("device_index") != 0) {
        use(Feature::kDeviceFields, path + ".non_const_buffer_device[" + std::to_string(i) + "]");
        break;
      }
    }
  }

  // Runs for every tensor: the path is built and the view made only for
  // the tensors that use a feature (~9% of inspect's time for P1 otherwise).
  void tensor(size_t p, size_t v, const TableValue& table) {
    auto path = [&] { return value_path(p, v); };
    if (table.get_int("scalar_type") == kBFloat16) use(Feature::kBFloat16, path());
    const Value& extra = table.get("extra_tensor_info");
    if (extra.is_table() && (extra.table().get_uint("device_type") != 0 || extra.table().get_int("device_index") != 0))
      use(Feature::kDeviceFields, path() + ".extra_tensor_info");
    if (!is_external(tensor_data(table))) return;
    TensorView t = view_tensor(table, head_);
    if (!t.fqn) return;
    use(Feature::kExternalTensors, path());
    const Value& name = program_.get("execution_plan").items()[p].table().get("name");
    const std::string method = name.is_string() ? name.str() : "execution_plan[" + std::to_string(p) + "]";
    auto [at, fresh] = external_index_.emplace(*t.fqn, out_.external.size());
    if (fresh) out_.external.push_back({*t.fqn, std::move(t), {}});
    std::vector<std::string>& methods = out_.external[at->second].methods;
    if (methods.empty() || methods.back() != method) methods.push_back(method);
  }

  const Blob& head_;
  const TableValue& program_;
  Requirements out_;
  std::unordered_set<int> used_;
  std::unordered_set<std::string> operators_, backends_;
  std::vector<std::string> uncalled_;  // operator table entries no KernelCall of their method names
  std::unordered_map<std::string, size_t> external_index_;
};

}  // namespace

std::optional<Release> parse_release(const std::string& text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == 'v' || text[i] == 'V')) ++i;
  int parts[3] = {0, 0, 0};
  int count = 0;
  while (count < 3) {
    size_t digits = 0;
    int value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 6) {
      value = value * 10 + (text[i] - '0');
      ++i, ++digits;
    }
    if (digits == 0) return std::nullopt;
    parts[count++] = value;
    if (i == text.size()) break;
    if (text[i] != '.') return std::nullopt;
    ++i;
  }
  if (i != text.size() || count < 2) return std::nullopt;
  return Release{parts[0], parts[1]};
}

const char* feature_name(Feature feature) { return row(feature).name; }
Release feature_since(Feature feature) { return row(feature).since; }

Release Requirements::min_runtime() const {
  Release out{0, 1};
  for (const FeatureUse& f : features)
    if (out < feature_since(f.feature)) out = feature_since(f.feature);
  return out;
}

Requirements pte_requirements(const Blob& head, const PteFile& pte) { return Collector(head, pte).run(); }

Requirements ptd_requirements(const PtdTable& ptd) {
  Requirements out;
  out.features.push_back({Feature::kPtdFile, ""});
  for (size_t i = 0; i < ptd.named_count(); ++i) {
    const PtdLayout* layout = ptd.layout_of(i);
    if (layout && layout->view.scalar_type == kBFloat16) {
      out.features.push_back({Feature::kBFloat16, "named_data[" + std::to_string(i) + "].tensor_layout"});
      break;
    }
  }
  return out;
}

Json requirements_json(const Requirements& r) {
  Json out = Json::object();
  out.set("minRuntimeVersion", Json::string(r.min_runtime().text()));
  Json features = Json::array();
  for (const FeatureUse& f : r.features) {
    Json j = Json::object();
    j.set("feature", Json::string(feature_name(f.feature)));
    j.set("since", Json::string(feature_since(f.feature).text()));
    j.set("where", f.where.empty() ? Json::null() : Json::string(f.where));
    features.push(std::move(j));
  }
  out.set("features", std::move(features));
  auto strings = [](const std::vector<std::string>& list) {
    Json a = Json::array();
    for (const std::string& s : list) a.push(Json::string(s));
    return a;
  };
  out.set("backends", strings(r.backends));
  out.set("operators", strings(r.operators));
  out.set("unusedOperators", strings(r.unused_operators));
  Json external = Json::array();
  for (const ExternalRequirement& e : r.external) {
    Json j = Json::object();
    j.set("key", Json::string(e.key));
    set_dtype_shape(j, e.tensor);
    std::optional<uint64_t> bytes = view_nbytes(e.tensor);
    j.set("bytes", bytes ? Json::unsigned_integer(*bytes) : Json::null());
    j.set("methods", strings(e.methods));
    external.push(std::move(j));
  }
  out.set("externalData", std::move(external));
  return out;
}

std::optional<std::string> ptd_old_layout_fields(const Blob& ptd) {
  // Flatbuffer at byte 0: root offset, then the root table's soffset to its
  // vtable, whose first uint16 is its size in bytes (4 + 2 per field slot).
  const uint8_t* d = ptd.data();
  if (d == nullptr || ptd.size() < 8) return std::nullopt;
  // Only the flatbuffer's own bytes (up to the FH01 header's flatbuffer end)
  // are looked at: past them lies segment data, which a head-only read does
  // not hold, and the answer must not depend on how much was read. A header
  // that is absent, corrupt or points past the bytes given: not this check's
  // to judge (the readers report it).
  auto header = parse_ptd_header(d, ptd.size());
  if (!header.ok() || !header->has_value()) return std::nullopt;
  const PtdHeader& h = **header;
  if (h.flatbuffer_offset > ptd.size() || h.flatbuffer_size > ptd.size() - h.flatbuffer_offset) return std::nullopt;
  const uint64_t n = h.flatbuffer_offset + h.flatbuffer_size;
  if (n < 8) return std::nullopt;
  const uint64_t root = read_le<uint32_t>(d);
  if (root > n - 4) return std::nullopt;
  const int64_t vtable = static_cast<int64_t>(root) - read_le<int32_t>(d + root);
  if (vtable < 0 || static_cast<uint64_t>(vtable) > n - 4) return std::nullopt;
  const uint64_t vt = static_cast<uint64_t>(vtable);
  const uint64_t vsize = read_le<uint16_t>(d + vt);
  if (vsize < 4 || vsize > n - vt) return std::nullopt;
  const uint64_t slots = (vsize - 4) / 2;
  auto slot = [&](uint64_t i) { return i < slots ? read_le<uint16_t>(d + vt + 4 + 2 * i) : 0; };
  // Today's FlatTensor has three fields; 0.6's segments/named_data were 3 and 4.
  if (slot(3) == 0 && slot(4) == 0) return std::nullopt;
  std::string fields;
  const char* names[] = {"version", "tensor_alignment", "tensors", "segments", "named_data"};
  for (uint64_t i = 1; i < 5; ++i)
    if (slot(i) != 0) fields += std::string(fields.empty() ? "" : ", ") + names[i];
  return fields;
}

}  // namespace etpack
