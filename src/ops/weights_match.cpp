#include "ops/weights_match.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <unordered_set>

#include "core/glob.h"
#include "model/scalar_type.h"
#include "ops/weights_layout.h"
#include "read/program_tensors.h"

namespace etpack {
namespace {

std::string shape_of(const std::vector<uint64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

bool same_shape(const std::vector<uint64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (b[i] < 0 || a[i] != static_cast<uint64_t>(b[i])) return false;
  return true;
}

std::string wants(const NamedTensor& t) {
  return "the program wants " + layout_text(t.scalar_type, t.sizes, t.dim_order) + " at " + t.path;
}

// What keeps checkpoint tensor `c` (in `file`) from standing in for `t`.
std::optional<WeightsProblem> misfit(const NamedTensor& t, const SafetensorsTensor& c, const std::string& file) {
  const std::string name = escaped_name(t.name);
  if (!c.scalar_type || *c.scalar_type != t.scalar_type)
    return WeightsProblem{t.name, "dtype", name + " is " + c.dtype + " in " + file + ", " + wants(t)};
  if (!same_shape(c.shape, t.sizes))
    return WeightsProblem{t.name, "shape", name + " has shape " + shape_of(c.shape) + " in " + file + ", " + wants(t)};
  return std::nullopt;
}

}  // namespace

Result<Checkpoints> collect_checkpoints(std::vector<CheckpointFile> files,
                                        const std::vector<std::pair<std::string, std::string>>& rename) {
  Checkpoints out;
  out.files = std::move(files);  // moves the headers' tensor vectors whole: their names stay put for the views below
  size_t count = 0;
  for (const CheckpointFile& f : out.files) count += f.header.tensors.size();
  out.tensors.reserve(count);
  for (size_t f = 0; f < out.files.size(); ++f) {
    const auto& list = out.files[f].header.tensors;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string_view name = list[i].name;
      for (const auto& [from, to] : rename) {
        if (name.compare(0, from.size(), from) == 0) {
          out.renamed.push_back(to + std::string(name.substr(from.size())));
          name = out.renamed.back();
          break;
        }
      }
      out.tensors.push_back({name, f, i});
    }
  }
  if (out.tensors.size() > UINT32_MAX) return make_error(ErrorCode::kResourceLimit, "more than 2^32 checkpoint tensors");
  const auto& t = out.tensors;
  out.by_name.resize(t.size());
  std::iota(out.by_name.begin(), out.by_name.end(), 0);
  std::sort(out.by_name.begin(), out.by_name.end(), [&](uint32_t a, uint32_t b) { return t[a].name != t[b].name ? t[a].name < t[b].name : a < b; });
  // A name twice: the repeat that comes first in file then header order.
  size_t first = SIZE_MAX, repeat = SIZE_MAX;
  for (size_t k = 1; k < out.by_name.size(); ++k) {
    if (t[out.by_name[k]].name == t[out.by_name[k - 1]].name && out.by_name[k] < repeat) {
      repeat = out.by_name[k];
      first = out.by_name[k - 1];
    }
  }
  if (repeat != SIZE_MAX)
    return make_error(ErrorCode::kSafetensorsDuplicate, "tensor " + escaped_name(t[repeat].name) + " is in both " +
                                                            out.files[t[first].file].file + " and " + out.files[t[repeat].file].file);
  return out;
}

std::optional<size_t> Checkpoints::find(std::string_view name) const {
  auto it = std::lower_bound(by_name.begin(), by_name.end(), name, [&](uint32_t i, std::string_view n) { return tensors[i].name < n; });
  if (it == by_name.end() || tensors[*it].name != name) return std::nullopt;
  return *it;
}

WeightsPlan match_weights(const std::vector<NamedTensor>& program, const Checkpoints& checkpoints, WeightsTarget target) {
  WeightsPlan plan;
  std::vector<bool> used(checkpoints.tensors.size(), false);
  // Tensors grouped by name (kExternal) or by constant buffer (kConstant), in first-use order.
  std::vector<std::vector<size_t>> groups;
  std::unordered_map<std::string, size_t> group_of_name;
  std::map<uint64_t, size_t> group_of_buffer;
  std::unordered_set<std::string> names_seen;
  for (size_t i = 0; i < program.size(); ++i) {
    const NamedTensor& t = program[i];
    if (target == WeightsTarget::kExternal) {
      if (!t.external || !t.has_name) continue;
      auto [it, fresh] = group_of_name.emplace(t.name, groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(i);
    } else {
      if (t.external || t.data_buffer_idx == 0) continue;
      auto [it, fresh] = group_of_buffer.emplace(t.data_buffer_idx, groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(i);
    }
  }
  for (const std::vector<size_t>& group : groups) {
    const size_t problems_before = plan.problems.size();
    std::optional<size_t> given;  // the checkpoint tensor the group takes
    std::vector<size_t> same_as;  // other checkpoint tensors given for it (tied weights)
    std::vector<std::string> not_named;  // kConstant: names the checkpoints lack
    for (size_t i : group) {
      const NamedTensor& t = program[i];
      const std::optional<size_t> found = t.has_name ? checkpoints.find(t.name) : std::nullopt;
      if (!found) {
        if (!t.has_name || !names_seen.insert(t.name).second) continue;
        if (target == WeightsTarget::kExternal)
          plan.problems.push_back({t.name, "missing", escaped_name(t.name) + " (" + layout_text(t.scalar_type, t.sizes, t.dim_order) + ") is not in the checkpoints"});
        else
          not_named.push_back(t.name);
        continue;
      }
      used[*found] = true;
      if (given && *given != *found && std::find(same_as.begin(), same_as.end(), *found) == same_as.end()) same_as.push_back(*found);
      if (!given) given = found;
      const CheckpointTensor& c = checkpoints.tensors[*found];
      // Every tensor of the name that does not fit is named, not just the first.
      if (auto problem = misfit(t, checkpoints.at(*found), checkpoints.files[c.file].file)) plan.problems.push_back(std::move(*problem));
    }
    if (!given) {  // no name of the buffer given: it keeps its bytes
      plan.kept.insert(plan.kept.end(), not_named.begin(), not_named.end());
      continue;
    }
    // Tied weights: the one value fills the buffer every tensor of the group
    // reads, so it must fit those the checkpoints do not name as well.
    if (plan.problems.size() == problems_before) {
      const CheckpointTensor& c = checkpoints.tensors[*given];
      for (size_t i : group) {
        if (program[i].has_name && checkpoints.find(program[i].name)) continue;  // checked above
        NamedTensor t = program[i];  // a copy to name it: metadata only, no data
        if (!t.has_name) t.name = t.path;
        if (auto problem = misfit(t, checkpoints.at(*given), checkpoints.files[c.file].file)) {
          plan.problems.push_back(std::move(*problem));
          break;
        }
      }
    }
    const NamedTensor& first = program[group.front()];
    if (plan.problems.size() == problems_before) {
      for (size_t i : group) {
        if (program[i].dim_order == first.dim_order) continue;
        plan.problems.push_back({first.name, "layout", escaped_name(first.name) + " is used by tensors of different dim orders (" +
                                                          layout_text(first.scalar_type, first.sizes, first.dim_order) + " at " + first.path + ", " +
                                                          layout_text(program[i].scalar_type, program[i].sizes, program[i].dim_order) + " at " +
                                                          program[i].path + "): one checkpoint tensor cannot fill both"});
        break;
      }
    }
    if (plan.problems.size() != problems_before) continue;
    plan.assigned.push_back({group.front(), *given, !is_identity_dim_order(first.dim_order), std::move(same_as)});
    for (size_t i : group)
      if (program[i].has_name && names_seen.insert(program[i].name + "\x01written").second) plan.written.push_back(program[i].name);
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i]) plan.unused.push_back(i);
  return plan;
}

Error weights_mismatch(const std::vector<WeightsProblem>& problems) {
  std::string message = std::to_string(problems.size()) + " tensor(s) do not fit the program:";
  for (const WeightsProblem& p : problems) message += "\n  " + p.message;
  return make_error(ErrorCode::kWeightsMismatch, message);
}

Result<ExportPlan> plan_export(const std::vector<ExportCandidate>& candidates, const std::vector<std::string>& include) {
  ExportPlan plan;
  std::unordered_map<std::string, size_t> first_of;  // name -> index into candidates
  std::string missing;
  size_t missing_count = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const ExportCandidate& c = candidates[i];
    const NamedTensor& t = c.tensor;
    if (!t.has_name) continue;
    bool selected = include.empty();
    for (const std::string& p : include) selected = selected || glob_match(p, t.name);
    if (!selected) continue;
    auto [it, fresh] = first_of.emplace(t.name, i);
    if (!fresh) {
      const NamedTensor& first = candidates[it->second].tensor;
      if (!first.same_layout(t))
        return make_error(ErrorCode::kWeightsNameConflict,
                          escaped_name(t.name) + " names two tensors of different layouts (" + layout_text(first.scalar_type, first.sizes, first.dim_order) +
                              " at " + first.path + ", " + layout_text(t.scalar_type, t.sizes, t.dim_order) + " at " + t.path +
                              "): one safetensors name holds one tensor; rename one in the program or leave it out with include");
      continue;
    }
    const auto nbytes = t.nbytes();
    if (!scalar_safetensors_dtype(t.scalar_type) || !nbytes) {
      plan.skipped.emplace_back(t.name, std::string(scalar_type_name(t.scalar_type) ? scalar_type_name(t.scalar_type) : "ScalarType " + std::to_string(t.scalar_type)) +
                                          " has no safetensors dtype");
      continue;
    }
    if (!c.available || *c.available < *nbytes) {
      ++missing_count;
      missing += "\n  " + escaped_name(t.name) + " (" + layout_text(t.scalar_type, t.sizes, t.dim_order) + ") needs " + std::to_string(*nbytes) +
                 " bytes; " + (c.available ? c.source + " holds " + std::to_string(*c.available) : "it is in none of " + c.source);
      continue;
    }
    plan.chosen.push_back(i);
    plan.permute.push_back(!is_identity_dim_order(t.dim_order));
  }
  if (missing_count)
    return make_error(ErrorCode::kExternalDataMissing, "no data for " + std::to_string(missing_count) + " tensor(s):" + missing);
  return plan;
}

}  // namespace etpack
