#include "ops/profile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/json.h"
#include "ops/profile_stats.h"
#include "core/utf8_text.h"
#include "read/work_budget.h"

namespace etpack {
namespace {

// The instruction each event name stands for (the runtime's own names);
// other names on an instruction's ids are kernel- or delegate-internal.
const char* instruction_type_of(std::string_view event_name) {
  if (event_name == "OPERATOR_CALL") return "KernelCall";
  if (event_name == "DELEGATE_CALL") return "DelegateCall";
  if (event_name == "MOVE_CALL") return "MoveCall";
  if (event_name == "FREE_CALL") return "FreeCall";
  if (event_name == "JF_CALL") return "JumpFalseCall";
  return nullptr;
}

struct Instruction {
  std::string type;    // "KernelCall", "DelegateCall", ... ("" when absent)
  std::string target;  // operator name.overload or backend id ("" for others)
  int64_t delegate = -1;  // a DelegateCall's delegate_index (when in range)
};

struct Method {
  std::string name;
  std::vector<std::vector<Instruction>> chains;
};

// The program's methods, chains and instructions with their targets.
// Bounded by the decoded program (one entry per decoded instruction table).
std::vector<Method> methods_of(const TableValue& program) {
  std::vector<Method> out;
  const Value& plans = program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    const TableValue& plan = plans.items()[p].table();
    Method m;
    if (plan.get("name").is_string()) m.name = plan.get("name").str();
    const Value& ops = plan.get("operators");
    const Value& delegates = plan.get("delegates");
    const size_t op_count = ops.is_items() ? ops.items().size() : 0;
    const size_t delegate_count = delegates.is_items() ? delegates.items().size() : 0;
    const Value& chains = plan.get("chains");
    for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
      std::vector<Instruction> list;
      const Value& instructions = chains.items()[c].table().get("instructions");
      for (size_t i = 0; instructions.is_items() && i < instructions.items().size(); ++i) {
        Instruction ins;
        const Value& args = instructions.items()[i].table().get("instr_args");
        if (args.is_table()) {
          const TableValue& a = args.table();
          ins.type = a.def->name;
          if (ins.type == "KernelCall") {
            const int64_t k = a.get_int("op_index");
            if (k >= 0 && static_cast<uint64_t>(k) < op_count) {
              const TableValue& op = ops.items()[static_cast<size_t>(k)].table();
              if (op.get("name").is_string()) ins.target = op.get("name").str();
              if (op.get("overload").is_string() && !op.get("overload").str().empty())
                ins.target += "." + op.get("overload").str();
            }
          } else if (ins.type == "DelegateCall") {
            const int64_t d = a.get_int("delegate_index");
            if (d >= 0 && static_cast<uint64_t>(d) < delegate_count) {
              const Value& id = delegates.items()[static_cast<size_t>(d)].table().get("id");
              if (id.is_string()) ins.target = id.str();
              ins.delegate = d;
            }
          }
        }
        list.push_back(std::move(ins));
      }
      m.chains.push_back(std::move(list));
    }
    out.push_back(std::move(m));
  }
  return out;
}

// The instruction an event names in `m`, or nullptr (method-level events:
// chain -1; ids outside the method; an event name of another type).
const Instruction* instruction_in(const Method& m, const EtdumpProfileEvent& e) {
  if (e.chain_index < 0 || e.instruction_id < 0) return nullptr;
  const auto chain = static_cast<size_t>(e.chain_index);
  const auto index = static_cast<size_t>(e.instruction_id);
  if (chain >= m.chains.size() || index >= m.chains[chain].size()) return nullptr;
  const Instruction& ins = m.chains[chain][index];
  const char* implied = instruction_type_of(e.name);
  if (implied != nullptr && ins.type != implied) return nullptr;
  return &ins;
}

bool names_instruction(const EtdumpProfileEvent& e) { return e.chain_index >= 0; }

// What a block's events ask of a method: (chain, instruction, implied
// type), each once, sorted; blocks of the same method share it.
using Need = std::tuple<int32_t, int32_t, std::string>;
std::vector<Need> needs_of(const EtdumpBlock& b) {
  std::vector<Need> needs;
  for (const EtdumpProfileEvent& e : b.profile) {
    if (!names_instruction(e)) continue;
    const char* implied = instruction_type_of(e.name);
    needs.emplace_back(e.chain_index, e.instruction_id, implied ? implied : "");
  }
  std::sort(needs.begin(), needs.end());
  needs.erase(std::unique(needs.begin(), needs.end()), needs.end());
  return needs;
}

bool fits(const Method& m, const Need& need) {
  const auto& [chain, index, implied] = need;
  if (chain < 0 || index < 0 || static_cast<size_t>(chain) >= m.chains.size()) return false;
  const auto& list = m.chains[static_cast<size_t>(chain)];
  if (static_cast<size_t>(index) >= list.size()) return false;
  return implied.empty() || list[static_cast<size_t>(index)].type == implied;
}

// Method::execute runs every chain from its first instruction, and each
// instruction logs an event: a run of `m` names instruction 0 of each of its
// chains that has instructions. A block without one of those is no run of `m`.
bool runs_every_chain(const Method& m, const std::vector<Need>& needs) {
  for (size_t c = 0; c < m.chains.size(); ++c) {
    if (m.chains[c].empty()) continue;
    const auto first = std::lower_bound(needs.begin(), needs.end(), Need{static_cast<int32_t>(c), 0, std::string()});
    if (first == needs.end() || std::get<0>(*first) != static_cast<int32_t>(c) || std::get<1>(*first) != 0) return false;
  }
  return true;
}

// Methods every instruction event of the block fits (none listed when the
// block names no instruction). Each check is charged to `budget`.
std::vector<size_t> candidates_for(const std::vector<Method>& methods, const std::vector<Need>& needs, WorkBudget& budget) {
  std::vector<size_t> out;
  if (needs.empty()) return out;
  for (size_t m = 0; m < methods.size(); ++m) {
    bool all = true;
    for (const Need& need : needs) {
      if (!budget.spend(1)) return out;
      if (!fits(methods[m], need)) { all = false; break; }
    }
    if (all && budget.spend(methods[m].chains.size()) && runs_every_chain(methods[m], needs)) out.push_back(m);
  }
  return out;
}

bool has_instruction_events(const EtdumpBlock& b) {
  return std::any_of(b.profile.begin(), b.profile.end(), names_instruction);
}

void text(std::string_view s, std::string& out) {
  std::string valid;
  append_decoded_utf8(s, valid);
  write_json_string(valid, out);
}

void key(const char* k, std::string& out) {
  out += ",\"";
  out += k;
  out += "\":";
}

struct Resolution {
  std::optional<size_t> method;
  const char* how = nullptr;  // "named", "instructions", "only method", "load order"
  std::vector<size_t> candidates;
};

}  // namespace

Result<std::string> profile_json(const EtdumpFile& etdump, const TableValue& program, const ProfileOptions& options) {
  const std::vector<Method> methods = methods_of(program);
  const size_t block_count = etdump.blocks.size();
  std::vector<Resolution> res(block_count);
  std::vector<std::string> warnings;
  // Matching blocks to methods is methods x needs per distinct block: bounded
  // by the sizes of the two files, or refused (a hostile pair could ask for
  // their product).
  uint64_t size = methods.size();
  for (const Method& m : methods)
    for (const auto& chain : m.chains) size += chain.size();
  for (const EtdumpBlock& block : etdump.blocks) size += block.profile.size() + 1;
  WorkBudget budget(WorkBudget::for_file_size(size));
  std::map<std::vector<Need>, std::vector<size_t>> known;
  // An execute block naming no instruction ran a method without any (a
  // method with instructions logs an event for each).
  std::map<std::string, size_t> method_named;  // the first method of each name
  for (size_t m = 0; m < methods.size(); ++m) method_named.emplace(methods[m].name, m);
  std::vector<size_t> without_instructions;
  for (size_t m = 0; m < methods.size(); ++m)
    if (std::all_of(methods[m].chains.begin(), methods[m].chains.end(), [](const auto& c) { return c.empty(); }))
      without_instructions.push_back(m);

  for (size_t b = 0; b < block_count; ++b) {
    const EtdumpBlock& block = etdump.blocks[b];
    Resolution& r = res[b];
    std::vector<Need> needs = needs_of(block);
    auto seen = known.find(needs);
    if (seen == known.end()) seen = known.emplace(needs, candidates_for(methods, needs, budget)).first;
    r.candidates = seen->second;
    if (needs.empty() && block.name != "Default") r.candidates = without_instructions;
    const std::optional<std::string>& asked = b < options.methods.size() && options.methods[b] ? options.methods[b] : options.all_blocks;
    if (asked) {
      const std::string& named = *asked;
      auto it = method_named.find(named);
      if (it == method_named.end())
        return make_error(ErrorCode::kInvalidArgument, "block " + std::to_string(b) + ": the program has no method '" + named + "'");
      r.method = it->second;
      r.how = "named";
      if (!needs.empty() && std::find(r.candidates.begin(), r.candidates.end(), *r.method) == r.candidates.end())
        warnings.push_back("block " + std::to_string(b) + " (" + block.name + "): named method '" + named +
                           "' does not fit its events (an instruction they name, or an event of the first instruction of each of its "
                           "chains, is missing); events it lacks are not joined");
    } else if (methods.size() == 1 && (!r.candidates.empty() || !has_instruction_events(block))) {
      r.method = 0;
      r.how = has_instruction_events(block) ? "instructions" : "only method";
    } else if (r.candidates.size() == 1) {
      r.method = r.candidates[0];
      r.how = "instructions";
    }
  }
  if (budget.exhausted())
    return make_error(ErrorCode::kResourceLimit, "matching the ETDump's " + std::to_string(block_count) +
                                                     " blocks to the program's " + std::to_string(methods.size()) +
                                                     " methods would take more than " + std::to_string(budget.units()) +
                                                     " steps (the two files' sizes allow that many)");
  // A block naming no instruction (a method load) belongs to the method the
  // block right after it ran, when that one is an execute block whose method
  // is known: a method is loaded before it executes. Never across another
  // block: after an ambiguous block, or another load, it stays unknown (its
  // candidates: the next execute block's, or every method).
  for (size_t b = 0; b < block_count; ++b) {
    if (res[b].method || has_instruction_events(etdump.blocks[b]) || etdump.blocks[b].name != "Default") continue;
    const bool next_runs = b + 1 < block_count && etdump.blocks[b + 1].name != "Default" && has_instruction_events(etdump.blocks[b + 1]);
    if (next_runs && res[b + 1].method) {
      res[b].method = res[b + 1].method;
      res[b].how = "load order";
    } else if (next_runs) {
      res[b].candidates = res[b + 1].candidates;
    } else {
      res[b].candidates.clear();
      for (size_t m = 0; m < methods.size(); ++m) res[b].candidates.push_back(m);
    }
  }
  for (size_t b = 0; b < block_count; ++b) {
    if (res[b].method) continue;
    std::string names;  // the first few (the block lists them all)
    for (size_t c = 0; c < res[b].candidates.size() && c < 8; ++c) names += (c ? ", " : "") + methods[res[b].candidates[c]].name;
    if (res[b].candidates.size() > 8) names += " and " + std::to_string(res[b].candidates.size() - 8) + " more";
    warnings.push_back("block " + std::to_string(b) + " (" + etdump.blocks[b].name + "): " +
                       (!has_instruction_events(etdump.blocks[b])
                            ? "it names no instruction and the block after it does not show which method was loaded (candidates " +
                                  (names.empty() ? std::string("none") : names) + "); name the methods (option methods) to join it"
                        : res[b].candidates.empty() ? std::string("its events fit no method of the program")
                                                  : "ambiguous between methods " + names +
                                                        "; name the methods (option methods) to join it"));
  }

  std::map<std::string, DurationStats> operators, delegates;
  std::map<size_t, size_t> runs_of_method;
  // The text is ~200 bytes an event: reserved once, generously (pages never
  // written cost nothing), so it is never copied while it grows (doubling
  // held the old and the new text at once: 3x the text at its peak).
  // With event_pages the events go out a page at a time (`page`), the
  // text holding only the rest.
  const bool paged = static_cast<bool>(options.event_pages);
  size_t estimate = 4096;
  for (const EtdumpBlock& block : etdump.blocks) {
    estimate += 256 + block.name.size();
    if (!paged)
      for (const EtdumpProfileEvent& e : block.profile) estimate += 320 + 2 * e.name.size();
  }
  std::string out, page;
  out.reserve(estimate);
  if (paged) page.reserve(std::min(options.event_page_bytes, kProfilePageBytes) + 4096);
  const auto flush = [&](size_t b) {
    if (page.empty()) return;
    page.push_back(']');
    options.event_pages(b, page);
    page.clear();
  };
  out += "{\"blocks\":[";
  for (size_t b = 0; b < block_count; ++b) {
    const EtdumpBlock& block = etdump.blocks[b];
    const Resolution& r = res[b];
    const bool execute = block.name != "Default";
    out += b ? ",{\"name\":" : "{\"name\":";
    text(block.name, out);
    key("index", out), out += std::to_string(b);
    key("method", out);
    if (r.method) text(methods[*r.method].name, out); else out += "null";
    key("methodFrom", out), out += r.how ? "\"" + std::string(r.how) + "\"" : "null";
    key("candidates", out);
    (void)budget.spend(r.candidates.size());  // blocks sharing needs share the matching, not the output
    out.push_back('[');
    for (size_t c = 0; c < r.candidates.size(); ++c) {
      if (c) out.push_back(',');
      text(methods[r.candidates[c]].name, out);
    }
    out.push_back(']');
    key("run", out);
    if (execute && r.method) out += std::to_string(runs_of_method[*r.method]++); else out += "null";
    key("bundledInputIndex", out), out += std::to_string(block.bundled_input_index);

    // The instruction of each event: in the block's method, or, when the
    // method is unknown, the one all candidate methods agree on.
    const size_t n = block.profile.size();
    std::vector<const Instruction*> joined(n, nullptr);
    for (size_t i = 0; i < n; ++i) {
      const EtdumpProfileEvent& e = block.profile[i];
      if (!names_instruction(e)) continue;
      if (r.method) {
        joined[i] = instruction_in(methods[*r.method], e);
        continue;
      }
      if (!budget.spend(r.candidates.size())) break;  // refused below
      for (size_t c = 0; c < r.candidates.size(); ++c) {
        const Instruction* ins = instruction_in(methods[r.candidates[c]], e);
        if (ins == nullptr || (c > 0 && (joined[i] == nullptr || ins->type != joined[i]->type || ins->target != joined[i]->target))) {
          joined[i] = nullptr;
          break;
        }
        joined[i] = ins;
      }
    }
    // Internal events are logged before their instruction's own event ends,
    // so it comes after them in the file: a reverse pass meets the parent
    // first. Ids decide, not times: a delegate may time its events on a
    // clock of its own (cycles), so they need not lie inside the call.
    std::vector<std::optional<size_t>> parent(n);
    std::map<std::pair<int32_t, int32_t>, size_t> open;
    for (size_t i = n; i-- > 0;) {
      const EtdumpProfileEvent& e = block.profile[i];
      if (!names_instruction(e)) continue;
      const auto id = std::make_pair(e.chain_index, e.instruction_id);
      if (instruction_type_of(e.name) != nullptr) {
        open[id] = i;
      } else if (auto it = open.find(id); it != open.end()) {
        parent[i] = it->second;
      }
    }

    key("events", out);
    out += paged ? "[]" : "[";
    size_t backwards_count = 0, backwards_first = 0;
    for (size_t i = 0; i < n; ++i) {
      const EtdumpProfileEvent& e = block.profile[i];
      const Instruction* ins = joined[i];
      if (paged && page.size() >= options.event_page_bytes) flush(b);
      std::string& dst = paged ? page : out;
      if (paged && page.empty()) page.push_back('[');
      dst += (paged ? page.size() == 1 : i == 0) ? "{\"name\":" : ",{\"name\":";
      text(e.name, dst);
      key("eventIndex", dst), dst += std::to_string(e.event_index);
      key("chain", dst), dst += std::to_string(e.chain_index);
      key("instruction", dst), dst += std::to_string(e.instruction_id);
      key("type", dst);
      if (ins && !ins->type.empty()) text(ins->type, dst); else dst += "null";
      if (ins && ins->type == "KernelCall") key("operator", dst), text(ins->target, dst);
      if (ins && ins->type == "DelegateCall") key("delegate", dst), text(ins->target, dst);
      const bool internal = names_instruction(e) && instruction_type_of(e.name) == nullptr;
      key("internal", dst), dst += internal ? "true" : "false";
      if (internal) key("parent", dst), dst += parent[i] ? std::to_string(*parent[i]) : "null";
      const Instruction* call = internal && parent[i] ? joined[*parent[i]] : nullptr;
      if (call && call->delegate >= 0 && r.method && e.delegate_debug_id_int != -1 && options.delegate_nodes) {
        key("delegateNodes", dst), dst.push_back('[');
        const std::vector<DelegateNode> nodes = options.delegate_nodes(*r.method, call->delegate, e.delegate_debug_id_int);
        for (size_t k = 0; k < nodes.size(); ++k) {
          dst += k ? ",{\"index\":" : "{\"index\":", dst += std::to_string(nodes[k].index);
          key("operator", dst), text(nodes[k].op, dst), dst.push_back('}');
        }
        dst.push_back(']');
      }
      key("startTime", dst), dst += std::to_string(e.start_time);
      key("endTime", dst), dst += std::to_string(e.end_time);
      // uint64 exactly; an event ending before it starts has no duration
      // (null), is reported once per block and never enters a statistic.
      const bool backwards = e.end_time < e.start_time;
      key("duration", dst), dst += backwards ? "null" : std::to_string(e.end_time - e.start_time);
      if (backwards && backwards_count++ == 0) backwards_first = i;
      if (e.delegate_debug_id_int != -1) key("delegateDebugIdInt", dst), dst += std::to_string(e.delegate_debug_id_int);
      if (e.delegate_debug_id_str) key("delegateDebugIdStr", dst), text(*e.delegate_debug_id_str, dst);
      if (e.delegate_debug_metadata) {
        static const char* kHex = "0123456789abcdef";
        key("delegateDebugMetadata", dst);
        dst.push_back('"');
        for (const char c : *e.delegate_debug_metadata) {
          const auto byte = static_cast<unsigned char>(c);
          dst.push_back(kHex[byte >> 4]), dst.push_back(kHex[byte & 15]);
        }
        dst.push_back('"');
      }
      dst.push_back('}');
      // Statistics: each call of an instruction in an execute block.
      if (!execute || !ins || internal) continue;
      const std::string method = r.method ? methods[*r.method].name : std::string();
      if (backwards) continue;
      DurationStats* s = ins->type == "KernelCall" ? &operators[ins->target] : ins->type == "DelegateCall" ? &delegates[ins->target] : nullptr;
      if (s) {
        s->durations.push_back(e.end_time - e.start_time);
        if (!method.empty()) s->methods.insert(method);
      }
    }
    if (paged) flush(b);
    out += paged ? "}" : "]}";
    if (backwards_count > 0) {
      const EtdumpProfileEvent& e = block.profile[backwards_first];
      warnings.push_back("block " + std::to_string(b) + " (" + block.name + "): " + std::to_string(backwards_count) +
                         " event(s) end before they start (the first: event " + std::to_string(backwards_first) + ", start " +
                         std::to_string(e.start_time) + ", end " + std::to_string(e.end_time) +
                         "); their duration is null and no statistic counts them");
    }
  }
  if (budget.exhausted())
    return make_error(ErrorCode::kResourceLimit, "joining the ETDump's events to " + std::to_string(methods.size()) +
                                                     " candidate methods would take more than " +
                                                     std::to_string(budget.units()) + " steps");
  out += "],\"operators\":";
  write_duration_stats(operators, out);
  out += ",\"delegates\":";
  write_duration_stats(delegates, out);
  out += ",\"warnings\":[";
  for (size_t w = 0; w < warnings.size(); ++w) {
    if (w) out.push_back(',');
    text(warnings[w], out);
  }
  out += "]}";
  return out;
}

}  // namespace etpack
