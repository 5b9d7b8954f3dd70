#include "inspect/inspect.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "format/file_kinds.h"
#include "read/delegate/delegate_blobs.h"
#include "read/delegate/payload_summary.h"
#include "read/file_layout.h"
#include "inspect/inspect_details.h"
#include "inspect/inspect_metadata.h"
#include "read/method_allocator.h"
#include "inspect/layout_json.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"
#include "read/requirements.h"
#include "read/work_budget.h"
#include "schema/enums.h"

namespace etpack {
namespace {

Json u64(uint64_t v) { return Json::unsigned_integer(v); }
Json opt_u64(std::optional<uint64_t> v) { return v ? u64(*v) : Json::null(); }
Json opt_string(const Value& v) { return v.is_string() ? Json::string(v.str()) : Json::null(); }

// Work units one JSON object of the summary costs (a read element costs 1).
constexpr uint64_t kJsonObjectCost = 16;

Error too_large() {
  return make_error(ErrorCode::kResourceLimit,
                    "the file shares vectors so often that its summary would be unreasonably large");
}

class PteInspector {
 public:
  PteInspector(const FileSource& file, const PteFile& pte, size_t data_files, const PaddingFinder& padding)
      : padding_(padding), source_(file), file_(file.head), size_(file.size()), pte_(pte), program_(pte.program),
        budget_(WorkBudget::for_file_size(size_)), data_files_(data_files) {}

  Result<InspectReply> run() {
    const std::optional<PteHeader>& h = pte_.header;
    Json out = Json::object();
    out.set("format", Json::string("pte"));
    out.set("fileSize", u64(size_));
    out.set("identifier", Json::string(identifier_of(FileKind::kPte)));
    out.set("rootOffset", u64(read_le<uint32_t>(file_.data())));
    Json header = Json::null();
    if (h) {
      header = Json::object();
      header.set("length", u64(h->length));
      header.set("programSize", u64(h->program_size));
      header.set("segmentBaseOffset", u64(h->segment_base_offset));
      header.set("segmentDataSize", u64(h->segment_data_size));
    }
    out.set("header", std::move(header));
    out.set("programVersion", u64(program_.get_uint("version")));
    bool has_base = h && h->segment_base_offset != 0;
    const Value& segments = program_.get("segments");
    uint64_t base = has_base ? h->segment_base_offset : 0;
    out.set("segmentAlignment", opt_u64(actual_segment_alignment(segments, base)));
    // The model card first: what the exporter recorded as constant methods.
    std::optional<Json> metadata = constant_methods_json(program_, budget_);
    if (!metadata) return too_large();
    out.set("metadata", std::move(*metadata));
    ETP_ASSIGN(Json methods, methods_json());
    out.set("methods", std::move(methods));
    out.set("methodAllocator", allocator_total_json());
    // One walk over the tensors for the largest constants and the external ones.
    LargestConstants largest(program_);
    Json external = Json::array();
    std::unordered_set<std::string> seen;
    for_each_tensor(program_, [&](size_t p, size_t v, const TableValue& table) {
      const TensorData data = tensor_data(table);  // both want only these: no view for the rest
      if (data != TensorData::kConstant && !is_external(data)) return;
      TensorView t = view_tensor(table, file_);
      largest.add(p, v, t);
      add_external(external, seen, t);
    });
    ETP_ASSIGN(Json constants, constants_json(largest.json()));
    out.set("constants", std::move(constants));
    ETP_ASSIGN(Json mutable_data, mutable_json());
    out.set("mutableData", std::move(mutable_data));
    // The long lists are written as column text at their place (null here).
    out.set("namedData", Json::null());
    out.set("externalTensors", std::move(external));
    out.set("requirements", requirements_json(pte_requirements(file_, pte_)));
    size_t count = segments.is_items() ? segments.items().size() : 0;
    std::vector<SegmentUse> uses = pte_segment_uses(program_, count);
    out.set("segments", Json::null());
    std::vector<Region> layout = pte_layout(file_, size_, pte_, uses);
    out.set("segmentMap", Json::null());
    Json inner = Json::array();
    const std::vector<std::pair<uint64_t, uint64_t>> padding =
        padding_ ? padding_(source_, pte_) : std::vector<std::pair<uint64_t, uint64_t>>{};
    for (const auto& [start, end] : padding) {
      Json range = Json::object();
      range.set("start", u64(start));
      range.set("end", u64(end));
      inner.push(std::move(range));
    }
    out.set("paddingInSegments", std::move(inner));
    out.set("bytesByCategory", bytes_by_category_json(layout));
    out.set("weights", weights_json(*out.find("bytesByCategory"), delegate_constants_));
    std::vector<std::pair<std::string, ColumnsText>> tables;
    tables.emplace_back("namedData", named_data_columns());
    tables.emplace_back("segments", segments_columns(segments, base, uses, program_.get("named_data")));
    tables.emplace_back("segmentMap", segment_map_columns(layout, uses));
    return write_with_tables(out, std::move(tables));
  }

 private:
  Result<Json> value_list(const Value& indices, const Value& values) {
    Json out = Json::array();
    size_t n = scalar_vector_length(indices, BaseType::kInt);
    // A JSON object per element: charge what it costs, not what it reads.
    if (!budget_.spend(uint64_t{n} * kJsonObjectCost)) return too_large();
    for (size_t i = 0; i < n; ++i) {
      int64_t index = scalar_vector_int(indices, BaseType::kInt, i);
      Json j = Json::object();
      j.set("index", Json::integer(index));
      const TableValue* value = nullptr;
      if (values.is_items() && index >= 0 && static_cast<uint64_t>(index) < values.items().size())
        value = &values.items()[static_cast<size_t>(index)].table();
      const Value* val = value ? &value->get("val") : nullptr;
      j.set("type", Json::string(val && val->is_table() ? val->table().def->name : "None"));
      if (val && val->is_table() && val->table().def->name == "Tensor") {
        set_dtype_shape(j, view_tensor(val->table(), file_));
      } else {
        j.set("dtype", Json::null());
        j.set("shape", Json::null());
      }
      out.push(std::move(j));
    }
    return out;
  }

  Result<Json> methods_json() {
    Json out = Json::array();
    const Value& plans = program_.get("execution_plan");
    for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
      const TableValue& plan = plans.items()[p].table();
      const Value& values = plan.get("values");
      Json m = Json::object();
      m.set("name", opt_string(plan.get("name")));
      ETP_ASSIGN(Json inputs, value_list(plan.get("inputs"), values));
      m.set("inputs", std::move(inputs));
      ETP_ASSIGN(Json outputs, value_list(plan.get("outputs"), values));
      m.set("outputs", std::move(outputs));
      m.set("valueCount", u64(values.is_items() ? values.items().size() : 0));
      const Value& operators = plan.get("operators");
      size_t op_count = operators.is_items() ? operators.items().size() : 0;
      std::vector<uint64_t> calls(op_count, 0);
      uint64_t instructions = 0;
      const Value& chains = plan.get("chains");
      m.set("chainCount", u64(chains.is_items() ? chains.items().size() : 0));
      for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
        const Value& list = chains.items()[c].table().get("instructions");
        for (size_t i = 0; list.is_items() && i < list.items().size(); ++i) {
          ++instructions;
          const Value& args = list.items()[i].table().get("instr_args");
          if (!args.is_table() || args.table().def->name != "KernelCall") continue;
          int64_t op = args.table().get_int("op_index");
          if (op >= 0 && static_cast<uint64_t>(op) < op_count) ++calls[static_cast<size_t>(op)];
        }
      }
      m.set("instructionCount", u64(instructions));
      Json ops = Json::array();
      for (size_t i = 0; i < op_count; ++i) {
        const TableValue& op = operators.items()[i].table();
        Json j = Json::object();
        j.set("name", opt_string(op.get("name")));
        const Value& overload = op.get("overload");
        j.set("overload", overload.is_string() && !overload.str().empty() ? Json::string(overload.str()) : Json::null());
        j.set("count", u64(calls[i]));
        ops.push(std::move(j));
      }
      m.set("operators", std::move(ops));
      m.set("delegates", delegates_json(plan));
      Json buffers = Json::array();
      const Value& sizes = plan.get("non_const_buffer_sizes");
      size_t n = scalar_vector_length(sizes, BaseType::kLong);
      if (!budget_.spend(n)) return too_large();
      Json planned = Json::array();
      uint64_t planned_total = 0;
      for (size_t i = 0; i < n; ++i) {
        const int64_t size = scalar_vector_int(sizes, BaseType::kLong, i);
        buffers.push(Json::integer(size));
        planned.push(Json::integer(size));
        if (size > 0) planned_total = checked_add(planned_total, static_cast<uint64_t>(size)).value_or(UINT64_MAX);
      }
      m.set("nonConstBufferSizes", std::move(buffers));
      // What the runtime's memory planner asks the caller to provide, per
      // memory id (id 0 is reserved and normally 0).
      Json memory = Json::object();
      memory.set("plannedBuffers", std::move(planned));
      memory.set("plannedTotal", u64(planned_total));
      // What load_method takes from the method allocator (method_allocator.h):
      // one walk gives both architectures, with and without a temp allocator.
      allocator_.push_back(method_allocator_figures(plan, method_allocator_merges_data_map(program_, data_files_)));
      memory.set("methodAllocator", method_allocator_json(allocator_.back()));
      m.set("memory", std::move(memory));
      out.push(std::move(m));
    }
    return out;
  }

  // The pool that loads every method, the data files counted and the
  // runtime the figures are for.
  Json allocator_total_json() const {
    Json out = Json::object();
    out.set("runtime", Json::string(kMethodAllocatorRuntime));
    out.set("dataFiles", u64(data_files_));
    out.set("mergedDataMap", Json::boolean(method_allocator_merges_data_map(program_, data_files_)));
    out.set("allMethods", method_allocator_json(method_allocator_total(allocator_), false));
    return out;
  }

  Json delegates_json(const TableValue& plan) {
    Json out = Json::array();
    const Value& delegates = plan.get("delegates");
    const Value& inline_data = program_.get("backend_delegate_data");
    const Value& segments = program_.get("segments");
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      const TableValue& delegate = delegates.items()[d].table();
      Json j = Json::object();
      j.set("index", u64(d));
      j.set("id", opt_string(delegate.get("id")));
      const Value& ref = delegate.get("processed");
      std::string location = "missing";
      std::optional<uint64_t> index, size, offset;
      if (ref.is_table()) {
        index = ref.table().get_uint("index");
        uint64_t loc = ref.table().get_uint("location");
        location = loc == code(DataLocation::INLINE) ? "inline" : loc == code(DataLocation::SEGMENT) ? "segment" : "invalid";
        if (loc == code(DataLocation::INLINE) && inline_data.is_items() && *index < inline_data.items().size()) {
          const Value& data = inline_data.items()[*index].table().get("data");
          size = data.is_scalars() ? data.scalars().size() : 0;
          if (data.is_scalars()) offset = offset_in_file(data.scalars(), file_);
        } else if (loc == code(DataLocation::SEGMENT) && segments.is_items() && *index < segments.items().size()) {
          const TableValue& s = segments.items()[*index].table();
          size = s.get_uint("size");
          if (pte_.header && pte_.header->segment_base_offset != 0)
            offset = checked_add(pte_.header->segment_base_offset, s.get_uint("offset"));
        }
      }
      j.set("location", Json::string(location));
      j.set("dataIndex", opt_u64(index));
      j.set("size", opt_u64(size));
      j.set("offset", opt_u64(offset));
      Json specs = Json::array();
      Json values = Json::array();
      const Value& list = delegate.get("compile_specs");
      for (size_t i = 0; list.is_items() && i < list.items().size(); ++i) {
        const TableValue& spec = list.items()[i].table();
        specs.push(opt_string(spec.get("key")));
        values.push(compile_spec_json(spec));
      }
      j.set("compileSpecs", std::move(specs));
      j.set("compileSpecValues", std::move(values));
      j.set("payload", payload_json(delegate));
      out.push(std::move(j));
    }
    return out;
  }

  // What the delegate's blob holds (read/delegate/payload_summary.h), its
  // named keys resolved against the .pte's own named data ("pte", or null:
  // not in the .pte, so a .ptd must hold it); a blob that cannot be read or
  // decoded gives {"kind", "error"} (validate says why it matters).
  Json payload_json(const TableValue& delegate) {
    std::optional<Blob> blob = delegate_blob_in_memory(source_, pte_, delegate);
    if (!blob) return Json::null();
    const Value& id = delegate.get("id");
    auto payload = decode_delegate_in_program(*blob, id.is_string() ? id.str() : std::string());
    if (!payload.ok()) {
      Json j = Json::object();
      j.set("kind", Json::string("invalid"));
      j.set("error", Json::string(payload.error().message));
      return j;
    }
    if (!pte_keys_) {
      std::vector<std::string> keys = pte_named_keys(program_);
      pte_keys_.emplace(keys.begin(), keys.end());
    }
    const Value& ref = delegate.get("processed");  // a blob shared by delegates counts once
    if (ref.is_table() && blobs_seen_.insert({ref.table().get_uint("location"), ref.table().get_uint("index")}).second)
      delegate_constants_ = checked_add(delegate_constants_, payload->constant_bytes).value_or(UINT64_MAX);
    Json j = payload_summary_json(summarize_payload(*payload));
    for (auto& [name, value] : j.members()) {
      if (name != "namedKeys") continue;
      for (Json& k : value.items())
        k.set("in", pte_keys_->count(k.find("key")->text()) ? Json::string("pte") : Json::null());
    }
    return j;
  }

  // Sizes of the slices of a SubsegmentOffsets table, index 0 (the
  // placeholder) left out; each slice runs to the next offset, as readers
  // restore them. nullopt when the segment does not exist.
  Result<std::optional<std::vector<uint64_t>>> slices(const TableValue& sub) {
    const Value& segments = program_.get("segments");
    uint64_t index = sub.get_uint("segment_index");
    if (!segments.is_items() || index >= segments.items().size()) return std::optional<std::vector<uint64_t>>();
    uint64_t segment_size = segments.items()[index].table().get_uint("size");
    const Value& offsets = sub.get("offsets");
    size_t n = scalar_vector_length(offsets, BaseType::kULong);
    if (!budget_.spend(n)) return too_large();
    std::vector<uint64_t> out;
    for (size_t i = 1; i < n; ++i) {
      uint64_t start = std::min(scalar_vector_uint(offsets, BaseType::kULong, i), segment_size);
      uint64_t end = i + 1 < n ? scalar_vector_uint(offsets, BaseType::kULong, i + 1) : segment_size;
      end = std::min(end, segment_size);
      out.push_back(end > start ? end - start : 0);
    }
    return std::optional<std::vector<uint64_t>>(std::move(out));
  }

  static void summarize(Json& j, const std::vector<uint64_t>& sizes) {
    uint64_t total = 0;
    for (uint64_t size : sizes) total = checked_add(total, size).value_or(UINT64_MAX);
    j.set("count", u64(sizes.size()));
    j.set("totalBytes", u64(total));
  }

  Result<Json> constants_json(Json largest) {
    Json out = Json::object();
    const Value& cs = program_.get("constant_segment");
    const Value& cb = program_.get("constant_buffer");
    std::vector<uint64_t> sizes;
    if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1) {
      out.set("storage", Json::string("segment"));
      out.set("segment", u64(cs.table().get_uint("segment_index")));
      ETP_ASSIGN(auto s, slices(cs.table()));
      if (s) sizes = std::move(*s);
    } else if (cb.is_items() && cb.items().size() > 1) {
      out.set("storage", Json::string("inline"));
      out.set("segment", Json::null());
      for (size_t i = 1; i < cb.items().size(); ++i) {
        const Value& storage = cb.items()[i].table().get("storage");
        sizes.push_back(storage.is_scalars() ? storage.scalars().size() : 0);
      }
    } else {
      out.set("storage", Json::string("none"));
      out.set("segment", Json::null());
    }
    summarize(out, sizes);
    out.set("largest", std::move(largest));
    return out;
  }

  Result<Json> mutable_json() {
    const Value& mds = program_.get("mutable_data_segments");
    if (!mds.is_items() || mds.items().empty()) return Json::null();
    Json out = Json::object();
    const TableValue& first = mds.items()[0].table();
    out.set("segment", u64(first.get_uint("segment_index")));
    // Read in place (a moved-out optional<vector> trips GCC 12's
    // -Wmaybe-uninitialized here).
    auto s = slices(first);
    if (!s.ok()) return s.take_error();
    const std::vector<uint64_t> none;
    const std::vector<uint64_t>& sizes = s.value() ? *s.value() : none;
    uint64_t total = 0;
    for (uint64_t v : sizes) total = checked_add(total, v).value_or(UINT64_MAX);
    out.set("count", u64(sizes.size()));
    out.set("totalBytes", u64(total));
    return out;
  }

  ColumnsText named_data_columns() {
    enum { kKey, kSegment, kSize };
    ColumnsText out({"key", "segment", "size"});
    const Value& named = program_.get("named_data");
    const Value& segments = program_.get("segments");
    for (size_t i = 0; named.is_items() && i < named.items().size(); ++i) {
      const TableValue& entry = named.items()[i].table();
      uint64_t index = entry.get_uint("segment_index");
      const Value& key = entry.get("key");
      out.joined_name(kKey, key.is_string() ? &key.str() : nullptr);
      out.u64(kSegment, index);
      bool known = segments.is_items() && index < segments.items().size();
      known ? out.u64(kSize, segments.items()[index].table().get_uint("size")) : out.null(kSize);
      out.end_row();
    }
    return out;
  }

  // An EXTERNAL tensor's first use (by name) joins `out`.
  static void add_external(Json& out, std::unordered_set<std::string>& seen, const TensorView& t) {
    if (t.data != TensorData::kExternalConstant && t.data != TensorData::kExternalMutable) return;
    if (!t.fqn || !seen.insert(*t.fqn).second) return;
    Json j = Json::object();
    j.set("name", Json::string(*t.fqn));
    set_dtype_shape(j, t);
    j.set("size", opt_u64(view_nbytes(t)));
    j.set("mutable", Json::boolean(t.data == TensorData::kExternalMutable));
    out.push(std::move(j));
  }

  const PaddingFinder& padding_;
  const FileSource& source_;
  const Blob& file_;  // the head: the flatbuffer's bytes
  uint64_t size_;     // the whole file's
  const PteFile& pte_;
  const TableValue& program_;
  std::optional<std::set<std::string>> pte_keys_;  // the .pte's named data keys, once asked
  std::set<std::pair<uint64_t, uint64_t>> blobs_seen_;  // (location, index) of decoded delegate blobs
  uint64_t delegate_constants_ = 0;                  // their constant bytes (weights inside the blobs)
  WorkBudget budget_;
  size_t data_files_;                                // .ptd files load_method is given
  std::vector<MethodAllocatorFigures> allocator_;    // per method, in file order
};

}  // namespace

Result<Json> inspect_pte(const Blob& pte, size_t data_files) { return inspect_pte(FileSource::in_memory(pte), data_files); }

Result<Json> inspect_pte(const FileSource& pte, size_t data_files) {
  ETP_ASSIGN(InspectReply reply, inspect_pte_reply(pte, data_files));
  return summary_from_reply(reply, kInspectTables);
}

Result<InspectReply> inspect_pte_reply(const FileSource& pte, size_t data_files, const PaddingFinder& padding) {
  ETP_ASSIGN(PteFile file, read_pte_program(pte.head, pte.size()));
  return PteInspector(pte, file, data_files, padding).run();
}

}  // namespace etpack
