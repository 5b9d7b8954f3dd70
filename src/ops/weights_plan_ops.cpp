// The weights operations that plan a move of bytes: match (checkpoints to
// a program), export, permute and diff's range_plan (ops/weights_ops.h).
#include <unordered_set>

#include "core/json_writer.h"
#include "encode/safetensors_writer.h"
#include "model/scalar_type.h"
#include "ops/weights_layout.h"
#include "ops/weights_ops.h"
#include "read/pte_reader.h"
#include "read/safetensors_reader.h"

namespace etpack {
namespace {

// Every file's header read, and each checked against the names an index
// promised it, in request order (the first problem is the one reported).
Result<std::vector<CheckpointFile>> read_checkpoint_files(const std::vector<WeightsMatchRequest::File>& requested) {
  std::vector<CheckpointFile> files;
  for (const WeightsMatchRequest::File& f : requested) {
    ETP_ASSIGN(SafetensorsHeader header, read_safetensors_header(f.header.header, f.header.size, f.header.file));
    if (f.expect) {
      std::unordered_set<std::string_view> names;  // views of the header text (alive through this call)
      for (const SafetensorsTensor& t : header.tensors) names.insert(t.name);
      for (const std::string& e : *f.expect)
        if (!names.count(e))
          return make_error(ErrorCode::kSafetensorsIndex, f.index + ": " + escaped_name(e) + " is not in " + f.header.file);
    }
    files.push_back({f.header.file, std::move(header)});
  }
  return files;
}

}  // namespace

Result<WeightsReply> weights_match(const WeightsMatchRequest& request) {
  ETP_ASSIGN(std::vector<CheckpointFile> files, read_checkpoint_files(request.files));
  ETP_ASSIGN(Checkpoints checkpoints, collect_checkpoints(std::move(files), request.rename));
  const bool constants = request.target == "constant";
  std::vector<NamedTensor> decoded_program;
  if (request.pte) {
    // The program's tensors as the file holds them: names are its bytes
    // (a lone surrogate stays one, and prints escaped).
    ETP_ASSIGN(PteFile decoded, read_pte_program(request.pte->head, request.pte->size()));
    decoded_program = named_tensors(decoded.program, request.pte->head, constants);
  }
  const std::vector<NamedTensor>& program = request.pte ? decoded_program : request.program;
  const WeightsPlan plan = match_weights(program, checkpoints, constants ? WeightsTarget::kConstant : WeightsTarget::kExternal);
  WeightsReply reply;
  JsonWriter w(reply.json);
  auto range = [&](size_t k) {  // a checkpoint tensor: its name and bytes
    const CheckpointTensor& c = checkpoints.tensors[k];
    w.key("name").string(c.name).key("file").number(c.file);
    w.key("offset").number(checkpoints.files[c.file].header.data_start + checkpoints.at(k).begin).key("size").number(checkpoints.at(k).size());
  };
  w.begin_object().key("assigned").begin_array();
  for (const WeightsAssignment& a : plan.assigned) {
    w.begin_object().key("tensor").number(a.tensor).key("path").string(program[a.tensor].path);
    range(a.checkpoint);
    w.key("permute").boolean(a.permute).key("same_as").begin_array();  // tied weights: each must hold equal bytes
    for (size_t k : a.same_as) {
      w.begin_object();
      range(k);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  auto names = [&](const char* key, const std::vector<std::string>& list) {
    w.key(key).begin_array();
    for (const std::string& name : list) w.string(name);
    w.end_array();
  };
  names("written", plan.written);
  names("kept", plan.kept);
  w.key("unused").begin_array();  // straight from the checkpoint names (no copy of each)
  for (size_t k : plan.unused) w.string(checkpoints.tensors[k].name);
  w.end_array().key("problems").begin_array();
  for (const WeightsProblem& p : plan.problems)
    w.begin_object().key("name").string(p.name).key("problem").string(p.problem).key("message").string(p.message).end_object();
  w.end_array();
  if (!plan.problems.empty()) w.key("message").string(weights_mismatch(plan.problems).message);
  w.end_object();
  return reply;
}

Result<WeightsReply> weights_export(const WeightsExportRequest& request) {
  ETP_ASSIGN(ExportPlan plan, plan_export(request.candidates, request.include));
  std::vector<SafetensorsEntry> entries;
  for (size_t i : plan.chosen) {
    const NamedTensor& t = request.candidates[i].tensor;
    SafetensorsEntry e{t.name, scalar_safetensors_dtype(t.scalar_type), {}, *t.nbytes()};
    for (int64_t s : t.sizes) e.shape.push_back(static_cast<uint64_t>(s));
    entries.push_back(std::move(e));
  }
  ETP_ASSIGN(std::string head, safetensors_head(entries, request.metadata));
  WeightsReply reply;
  reply.blobs.push_back(Blob::own(std::vector<uint8_t>(head.begin(), head.end())));
  JsonWriter w(reply.json);
  w.begin_object().key("chosen").begin_array();
  for (size_t k = 0; k < plan.chosen.size(); ++k)
    w.begin_object().key("tensor").number(plan.chosen[k]).key("size").number(entries[k].size).key("permute").boolean(plan.permute[k]).end_object();
  w.end_array().key("skipped").begin_array();
  for (const auto& [name, reason] : plan.skipped) w.begin_object().key("name").string(name).key("reason").string(reason).end_object();
  w.end_array().end_object();
  return reply;
}

Result<WeightsReply> weights_permute(std::string_view bytes, const NamedTensor& layout, bool to_row_major) {
  auto element = scalar_type_size(layout.scalar_type);
  if (!element) return make_error(ErrorCode::kInvalidArgument, "unknown scalar type " + std::to_string(layout.scalar_type));
  // The one copy a non-trivial dim_order costs: input bytes -> output bytes.
  std::vector<uint8_t> permuted(bytes.size());
  ETP_TRY(permute_tensor(reinterpret_cast<const uint8_t*>(bytes.data()), permuted.data(), bytes.size(), layout.sizes, layout.dim_order,
                         *element, to_row_major ? PermuteDirection::kToRowMajor : PermuteDirection::kFromRowMajor));
  WeightsReply reply;
  reply.blobs.push_back(Blob::own(std::move(permuted)));
  reply.json = "{}";
  return reply;
}

Result<WeightsReply> weights_range_plan(const std::vector<ByteRange>& ranges, uint64_t size) {
  ETP_ASSIGN(RangeHashPlan plan, plan_range_hashes(ranges, size));
  WeightsReply reply;
  JsonWriter w(reply.json);
  w.begin_object().key("count").number(plan.distinct.size()).key("range_of").begin_array();
  for (size_t d : plan.range_of) w.number(d);
  w.end_array().key("streams").begin_array();
  for (const RangeHashPlan::Stream& s : plan.streams) {
    w.begin_array().number(s.start).begin_array();
    for (size_t d : s.ends) w.begin_array().number(plan.distinct[d].offset + plan.distinct[d].length).number(d).end_array();
    w.end_array().end_array();
  }
  w.end_array().end_object();
  return reply;
}

}  // namespace etpack
