#include "read/etdump_runs.h"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/le_bytes.h"
#include "read/fb_bytes.h"
#include "schema/schema.h"

namespace etpack {
namespace {

// The tables and fields of schema/etdump.fbs this reader follows, found once.
struct Defs {
  const TableDef& root = *etdump_schema().root;
  const TableDef& run = *field(root, "run_data").table;
  const TableDef& event = *field(run, "events").table;
  const TableDef& profile = *field(event, "profile_event").table;

  static const FieldDef& field(const TableDef& t, const char* name) { return *t.find(name); }
};

const Defs& defs() {
  static const Defs d;
  return d;
}

// A reader of one flatbuffer's runs, charging what it builds to a budget.
class RunsReader {
 public:
  RunsReader(const Blob& flatbuffer, uint64_t base, uint64_t budget)
      : bytes_(flatbuffer.data(), flatbuffer.size(), base), base_(base), total_(budget), budget_(budget) {}

  Result<std::vector<EtdumpBlock>> read() {
    const Defs& d = defs();
    std::vector<EtdumpBlock> blocks;
    ETP_ASSIGN(FbTable root, root_table());
    ETP_ASSIGN(uint64_t at, bytes_.field(root, d.root, Defs::field(d.root, "run_data")));
    if (at == 0) return blocks;
    ETP_ASSIGN(FbVector runs, bytes_.vector(at, d.root, Defs::field(d.root, "run_data")));
    ETP_TRY(charge(runs.count * sizeof(EtdumpBlock), runs.first));  // count * 4 bytes exist: no overflow
    blocks.reserve(static_cast<size_t>(runs.count));
    for (uint64_t i = 0; i < runs.count; ++i) {
      ETP_ASSIGN(uint64_t pos, bytes_.follow(runs.first + 4 * i));
      ETP_ASSIGN(EtdumpBlock block, run(pos));
      blocks.push_back(std::move(block));
    }
    return blocks;
  }

  Result<FbTable> root_table() {
    if (bytes_.size() < 8) return bytes_.fail(0, "flatbuffer is " + std::to_string(bytes_.size()) + " bytes, smaller than its 8-byte preamble");
    ETP_ASSIGN(uint64_t pos, bytes_.follow(0));
    return bytes_.table(pos, defs().root);
  }

  const FbBytes& bytes() const { return bytes_; }

 private:
  Status charge(uint64_t n, uint64_t at) {
    if (n <= budget_) {
      budget_ -= n;
      return {};
    }
    return make_error(ErrorCode::kResourceLimit,
                      "the ETDump's runs would take more than " + std::to_string(total_ >> 20) + " MiB to hold (" +
                          std::to_string(bytes_.size()) + "-byte flatbuffer): its offsets reach the same events from "
                          "many places; memory budget exceeded at byte offset " + std::to_string(base_ + at));
  }

  // Scalar field `name` of `def` in table `t` (its schema default when absent).
  template <typename T>
  Result<T> scalar(const FbTable& t, const TableDef& def, const char* name) {
    const FieldDef& f = Defs::field(def, name);
    ETP_ASSIGN(uint64_t at, bytes_.field(t, def, f));
    if (at == 0) return static_cast<T>(f.default_integer);
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(read_le<U>(bytes_.data() + at));
  }

  // String field `name` (nullopt when absent).
  Result<std::optional<std::string_view>> text(const FbTable& t, const TableDef& def, const char* name) {
    ETP_ASSIGN(uint64_t at, bytes_.field(t, def, Defs::field(def, name)));
    if (at == 0) return std::optional<std::string_view>();
    ETP_ASSIGN(std::string_view s, bytes_.string(at));
    return std::optional<std::string_view>(s);
  }

  Result<EtdumpBlock> run(uint64_t pos) {
    const Defs& d = defs();
    ETP_ASSIGN(FbTable t, bytes_.table(pos, d.run));
    EtdumpBlock block;
    ETP_ASSIGN(auto name, text(t, d.run, "name"));
    if (name) {
      ETP_TRY(charge(name->size(), pos));
      block.name = std::string(*name);
    }
    ETP_ASSIGN(block.bundled_input_index, scalar<int32_t>(t, d.run, "bundled_input_index"));
    const FieldDef& events_field = Defs::field(d.run, "events");
    ETP_ASSIGN(uint64_t at, bytes_.field(t, d.run, events_field));
    if (at == 0) return block;
    ETP_ASSIGN(FbVector events, bytes_.vector(at, d.run, events_field));
    block.event_count = static_cast<size_t>(events.count);
    // Each element read is charged (a slot's worth even when it holds no
    // profile event), so time too is bounded by the budget.
    ETP_TRY(charge(events.count * kPerEvent, events.first));
    const FieldDef& profile_field = Defs::field(d.event, "profile_event");
    for (uint64_t i = 0; i < events.count; ++i) {
      ETP_ASSIGN(uint64_t e, bytes_.follow(events.first + 4 * i));
      ETP_ASSIGN(FbTable event, bytes_.table(e, d.event));
      ETP_ASSIGN(uint64_t p_at, bytes_.field(event, d.event, profile_field));
      if (p_at == 0) continue;
      ETP_ASSIGN(uint64_t p, bytes_.follow(p_at));
      ETP_TRY(charge(sizeof(EtdumpProfileEvent), p));
      ETP_ASSIGN(EtdumpProfileEvent pe, profile_event(p, static_cast<size_t>(i)));
      block.profile.push_back(pe);
    }
    return block;
  }

  Result<EtdumpProfileEvent> profile_event(uint64_t pos, size_t index) {
    const TableDef& def = defs().profile;
    ETP_ASSIGN(FbTable t, bytes_.table(pos, def));
    EtdumpProfileEvent e;
    e.event_index = index;
    ETP_ASSIGN(auto name, text(t, def, "name"));
    if (name) e.name = *name;
    ETP_ASSIGN(e.chain_index, scalar<int32_t>(t, def, "chain_index"));
    ETP_ASSIGN(e.instruction_id, scalar<int32_t>(t, def, "instruction_id"));
    ETP_ASSIGN(e.delegate_debug_id_int, scalar<int32_t>(t, def, "delegate_debug_id_int"));
    ETP_ASSIGN(e.delegate_debug_id_str, text(t, def, "delegate_debug_id_str"));
    const FieldDef& metadata = Defs::field(def, "delegate_debug_metadata");
    ETP_ASSIGN(uint64_t at, bytes_.field(t, def, metadata));
    if (at != 0) {
      ETP_ASSIGN(FbVector v, bytes_.vector(at, def, metadata));
      e.delegate_debug_metadata = std::string_view(reinterpret_cast<const char*>(bytes_.data() + v.first), static_cast<size_t>(v.count));
    }
    ETP_ASSIGN(e.start_time, scalar<uint64_t>(t, def, "start_time"));
    ETP_ASSIGN(e.end_time, scalar<uint64_t>(t, def, "end_time"));
    return e;
  }

  static constexpr uint64_t kPerEvent = 8;  // an events slot and its Event table, read once
  FbBytes bytes_;
  uint64_t base_;
  uint64_t total_;
  uint64_t budget_;
};

}  // namespace

Result<EtdumpVersion> etdump_version(const Blob& flatbuffer, uint64_t base) {
  RunsReader reader(flatbuffer, base, 0);
  ETP_ASSIGN(FbTable root, reader.root_table());
  const TableDef& def = defs().root;
  ETP_ASSIGN(uint64_t at, reader.bytes().field(root, def, *def.find("version")));
  if (at == 0) return EtdumpVersion{0, base + root.pos};
  return EtdumpVersion{read_le<uint32_t>(flatbuffer.data() + at), base + at};
}

Result<std::vector<EtdumpBlock>> etdump_runs(const Blob& flatbuffer, uint64_t base, uint64_t memory_budget) {
  return RunsReader(flatbuffer, base, memory_budget).read();
}

}  // namespace etpack
