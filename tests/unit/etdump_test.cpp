// The ETDump reader and the profile join against every recording in
// ../shared/etdump (or $ETPACK_ETDUMP_DIR): each .etdp decodes to flatc's
// reference decode with defaults (NAME.defaults.json) field for field, and
// each event joins to the method, chain, instruction and target the
// runtime-side join (NAME.events.tsv) gives; the statistics equal those
// computed here from that event list. Hostile variants follow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.h"
#include "ops/profile.h"
#include "read/etdump_reader.h"
#include "read/pte_reader.h"
#include "schema/schema.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::etdump_root;
using testing::load_file;
using testing::read_bytes;

std::vector<fs::path> recordings() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(etdump_root(), ec))
    for (const auto& f : fs::directory_iterator(dir.path(), ec))
      if (f.path().extension() == ".etdp") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

Json parse_file(const fs::path& p) {
  const auto bytes = read_bytes(p);
  auto j = parse_json(std::string(bytes.begin(), bytes.end()));
  EXPECT_TRUE(j.ok()) << p;
  return j.ok() ? *j : Json();
}

std::vector<std::vector<std::string>> tsv_rows(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  const auto bytes = read_bytes(p);
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    size_t at = 0;
    for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1) cells.push_back(line.substr(at, tab - at));
    cells.push_back(line.substr(at));
    rows.push_back(cells);
  }
  return rows;
}

std::string str(const Json* j) { return j && j->is_string() ? j->text() : (j && j->is_null() ? "<null>" : "<absent>"); }
std::string num(const Json* j) { return j && j->is_number() ? j->text() : (j && j->is_null() ? "<null>" : "<absent>"); }

// Percentile by the textbook definition (rank (n-1)p/100, linear between
// neighbours), independent of percentile_linear's numpy arithmetic.
double expected_percentile(std::vector<int64_t> v, double p) {
  std::sort(v.begin(), v.end());
  const double rank = (static_cast<double>(v.size()) - 1) * p / 100;
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return static_cast<double>(v[lo]) + (static_cast<double>(v[hi]) - static_cast<double>(v[lo])) * (rank - std::floor(rank));
}

TEST(Etdump, EveryRecordingDecodesAsFlatcDoes) {
  const auto files = recordings();
  ASSERT_GE(files.size(), 18u) << etdump_root();
  for (const fs::path& etdp : files) {
    auto file = read_etdump(load_file(etdp));
    ASSERT_TRUE(file.ok()) << etdp << ": " << file.error().message;
    fs::path reference = etdp;
    reference.replace_extension(".defaults.json");
    auto mine = parse_json(etdump_json(*file));
    ASSERT_TRUE(mine.ok()) << etdp;
    EXPECT_TRUE(mine->equals(parse_file(reference))) << etdp << "\n" << etdump_json(*file).substr(0, 600);
  }
}

TEST(Etdump, EveryRecordingJoinsAsTheRuntimeDid) {
  size_t joined = 0, events = 0;
  for (const fs::path& etdp : recordings()) {
    fs::path pte;
    for (const auto& f : fs::directory_iterator(etdp.parent_path()))
      if (f.path().extension() == ".pte") pte = f.path();
    if (pte.empty()) continue;  // upstream's sample: its program is not published
    auto file = read_etdump(load_file(etdp));
    ASSERT_TRUE(file.ok()) << etdp;
    auto program = read_pte_program(load_file(pte));
    ASSERT_TRUE(program.ok()) << pte;
    auto text = profile_json(*file, program->program, {});
    ASSERT_TRUE(text.ok()) << etdp << ": " << text.error().message;
    auto profile = parse_json(*text);
    ASSERT_TRUE(profile.ok()) << etdp;
    const auto& blocks = profile->find("blocks")->items();
    ASSERT_EQ(blocks.size(), file->blocks.size());
    EXPECT_TRUE(profile->find("warnings")->items().empty()) << etdp << " " << *text;

    fs::path tsv = etdp;
    tsv.replace_extension(".events.tsv");
    std::map<size_t, size_t> rows_per_block;
    std::map<std::string, std::vector<int64_t>> durations;  // "operator:" / "delegate:" + target
    for (const auto& row : tsv_rows(tsv)) {
      ASSERT_EQ(row.size(), 17u) << tsv;
      const size_t b = std::stoul(row[0]);
      ASSERT_LT(b, blocks.size());
      const Json& block = blocks[b];
      ++rows_per_block[b];
      EXPECT_EQ(str(block.find("name")), row[1]);
      EXPECT_EQ(str(block.find("method")), row[2]) << etdp << " block " << b;
      EXPECT_EQ(num(block.find("run")), row[3].empty() ? "<null>" : row[3]) << etdp << " block " << b;
      const Json* event = nullptr;
      for (const Json& e : block.find("events")->items())
        if (num(e.find("eventIndex")) == row[4]) event = &e;
      ASSERT_NE(event, nullptr) << etdp << " block " << b << " event " << row[4];
      const std::string where = etdp.filename().string() + " block " + row[0] + " event " + row[4];
      EXPECT_EQ(str(event->find("name")), row[5]) << where;
      EXPECT_EQ(num(event->find("chain")), row[6]) << where;
      EXPECT_EQ(num(event->find("instruction")), row[7]) << where;
      EXPECT_EQ(num(event->find("startTime")), row[11]) << where;
      EXPECT_EQ(num(event->find("endTime")), row[12]) << where;
      EXPECT_EQ(num(event->find("duration")), row[13]) << where;
      EXPECT_EQ(str(event->find("type")), row[14] == "-" ? "<null>" : row[14]) << where;
      if (row[14] == "KernelCall") { EXPECT_EQ(str(event->find("operator")), row[16]) << where; }
      if (row[14] == "DelegateCall") { EXPECT_EQ(str(event->find("delegate")), row[16]) << where; }
      if (row[14] != "KernelCall") { EXPECT_EQ(event->find("operator"), nullptr) << where; }
      if (row[14] != "DelegateCall") { EXPECT_EQ(event->find("delegate"), nullptr) << where; }
      if (!row[8].empty()) { EXPECT_EQ(num(event->find("delegateDebugIdInt")), row[8]) << where; }
      if (!row[9].empty()) { EXPECT_EQ(str(event->find("delegateDebugIdStr")), row[9]) << where; }
      if (!row[10].empty()) { EXPECT_EQ(str(event->find("delegateDebugMetadata")), row[10]) << where; }
      ++events;
      if (row[1] == "Execute" && (row[5] == "OPERATOR_CALL" || row[5] == "DELEGATE_CALL"))
        durations[(row[14] == "KernelCall" ? "operator:" : "delegate:") + row[16]].push_back(std::stoll(row[13]));
    }
    for (const auto& [b, count] : rows_per_block) EXPECT_EQ(blocks[b].find("events")->items().size(), count) << etdp;
    EXPECT_EQ(rows_per_block.size(), blocks.size()) << etdp;

    // Statistics from the event list.
    size_t rows = 0;
    for (const char* kind : {"operators", "delegates"}) {
      for (const Json& s : profile->find(kind)->items()) {
        ++rows;
        const std::string k = std::string(kind) == "operators" ? "operator:" : "delegate:";
        const auto& d = durations[k + s.find("name")->text()];
        ASSERT_FALSE(d.empty()) << etdp << " " << s.find("name")->text();
        int64_t total = 0;
        for (int64_t x : d) total += x;
        EXPECT_EQ(*s.find("count")->as_uint64(), d.size());
        EXPECT_EQ(*s.find("total")->as_int64(), total);
        EXPECT_EQ(*s.find("min")->as_int64(), *std::min_element(d.begin(), d.end()));
        EXPECT_EQ(*s.find("max")->as_int64(), *std::max_element(d.begin(), d.end()));
        EXPECT_DOUBLE_EQ(*s.find("mean")->as_double(), static_cast<double>(total) / static_cast<double>(d.size()));
        EXPECT_DOUBLE_EQ(*s.find("p10")->as_double(), expected_percentile(d, 10));
        EXPECT_DOUBLE_EQ(*s.find("p50")->as_double(), expected_percentile(d, 50));
        EXPECT_DOUBLE_EQ(*s.find("p90")->as_double(), expected_percentile(d, 90));
      }
    }
    EXPECT_EQ(rows, durations.size()) << etdp;
    ++joined;
  }
  EXPECT_GE(joined, 17u);
  EXPECT_GE(events, 299u);  // the public recordings' rows
  std::printf("[etdump] recordings joined %zu, events checked %zu\n", joined, events);
}

// Events handed over in pages (ProfileOptions::event_pages, down to one event
// a page) are the whole text's, in order; each block's "events" is then [].
TEST(Etdump, EventPagesAreTheEventsOfTheWholeText) {
  size_t checked = 0;
  for (const fs::path& etdp : recordings()) {
    fs::path pte;
    for (const auto& f : fs::directory_iterator(etdp.parent_path()))
      if (f.path().extension() == ".pte") pte = f.path();
    if (pte.empty()) continue;
    auto file = read_etdump(load_file(etdp));
    auto program = read_pte_program(load_file(pte));
    ASSERT_TRUE(file.ok() && program.ok()) << etdp;
    auto whole = profile_json(*file, program->program, {});
    ASSERT_TRUE(whole.ok()) << etdp;
    for (size_t page_bytes : {size_t{1}, size_t{300}, kProfilePageBytes}) {
      std::map<size_t, std::string> joined;  // block -> its pages' items, comma-joined
      ProfileOptions options;
      options.event_page_bytes = page_bytes;
      options.event_pages = [&](size_t block, const std::string& page) {
        ASSERT_TRUE(joined.empty() || block >= joined.rbegin()->first) << "pages come in block order";
        ASSERT_TRUE(parse_json(page).ok() && page.front() == '[' && page.back() == ']') << page;
        joined[block] += (joined[block].empty() ? "" : ",") + page.substr(1, page.size() - 2);
      };
      auto paged = profile_json(*file, program->program, options);
      ASSERT_TRUE(paged.ok()) << etdp;
      // The whole text with each block's pages put back is the unpaged text.
      const std::string kEvents = "\"events\":[]";
      std::string rebuilt;
      size_t at = 0, block = 0;
      for (size_t next; (next = paged->find(kEvents, at)) != std::string::npos; at = next + kEvents.size(), ++block)
        rebuilt += paged->substr(at, next - at) + "\"events\":[" + joined[block] + "]";
      rebuilt += paged->substr(at);
      EXPECT_EQ(rebuilt, *whole) << etdp << " in pages of " << page_bytes << " bytes";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(Etdump, PercentileIsNumpysLinear) {
  // numpy.percentile([1, 2, 3, 4], [10, 50, 90]) = [1.3, 2.5, 3.7]
  EXPECT_DOUBLE_EQ(percentile_linear({1, 2, 3, 4}, 10), 1.3);
  EXPECT_DOUBLE_EQ(percentile_linear({1, 2, 3, 4}, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile_linear({1, 2, 3, 4}, 90), 3.7);
  EXPECT_EQ(percentile_linear({7}, 90), 7.0);
  EXPECT_EQ(percentile_linear({30, 200}, 50), 115.0);
}

fs::path sample(const char* folder, const char* name) { return etdump_root() / folder / name; }

Error read_error(std::vector<uint8_t> bytes) {
  auto r = read_etdump(Blob::own(std::move(bytes)));
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{ErrorCode::kOk, ""} : r.error();
}

TEST(Etdump, RefusesWhatIsNotAnEtdumpNamingTheOffset) {
  const std::vector<uint8_t> good = read_bytes(sample("add_r2", "add_r2.etdp"));
  ASSERT_GT(good.size(), 64u);
  Error e = read_error({1, 0, 0});
  EXPECT_EQ(e.code, ErrorCode::kMalformedFile);
  EXPECT_EQ(e.message, "file is 3 bytes; an .etdp needs at least 12 (at byte offset 0)");
  std::vector<uint8_t> longer = good;
  longer[0] = static_cast<uint8_t>(good.size() - 3);  // one byte past the end
  longer[1] = static_cast<uint8_t>((good.size() - 3) >> 8);
  e = read_error(longer);
  EXPECT_EQ(e.code, ErrorCode::kMalformedFile);
  EXPECT_EQ(e.message, "size prefix " + std::to_string(good.size() - 3) + " runs past the end of the " +
                           std::to_string(good.size()) + "-byte file (at byte offset 0)");
  std::vector<uint8_t> other = good;
  other[11] = '1';  // ED01
  e = read_error(other);
  EXPECT_EQ(e.code, ErrorCode::kUnsupportedVersion);
  EXPECT_EQ(e.message, "ETDump identifier 'ED01' is not the supported 'ED00' (at byte offset 8)");
  std::vector<uint8_t> pte = read_bytes(sample("add_r2", "add.pte"));
  e = read_error(pte);
  EXPECT_EQ(e.code, ErrorCode::kMalformedFile);
  // A root offset past the buffer.
  std::vector<uint8_t> root = good;
  root[4] = 0xf0, root[5] = 0xff;
  e = read_error(root);
  EXPECT_EQ(e.code, ErrorCode::kMalformedFile);
  EXPECT_NE(e.message.find("(at byte offset "), std::string::npos) << e.message;
}

TEST(Etdump, HeadSizeIsThePrefixedBuffer) {
  const std::vector<uint8_t> good = read_bytes(sample("add_r2", "add_r2.etdp"));
  ASSERT_GT(good.size(), 12u);
  auto head = etdump_head_size(Blob::own({good.begin(), good.begin() + 12}), good.size());
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, good.size());
  EXPECT_FALSE(etdump_head_size(Blob::own({good.begin(), good.begin() + 3}), good.size()).ok());
}

// Every truncation and every single-byte corruption of a real recording
// (with delegate-internal events and metadata) either reads or is refused:
// no crash, no sanitizer report; what reads also joins.
TEST(Etdump, SurvivesTruncationAndCorruption) {
  const std::vector<uint8_t> good = read_bytes(sample("d06_delegates_extracted_dedup_r1_stubdelegate",
                                                      "d06_delegates_extracted_dedup_r1_stubdelegate.etdp"));
  auto program = read_pte_program(load_file(sample("d06_delegates_extracted_dedup_r1_stubdelegate", "out.pte")));
  ASSERT_TRUE(program.ok());
  ASSERT_GT(good.size(), 1000u);
  size_t refused = 0, read = 0;
  for (size_t n = 0; n < good.size(); n += 7) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = read_etdump(Blob::own(cut));
    r.ok() ? ++read : ++refused;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t x : {0x01, 0xff}) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= x;
      auto r = read_etdump(Blob::own(bad));
      if (!r.ok()) {
        ++refused;
        EXPECT_NE(r.error().message.find("byte offset"), std::string::npos) << r.error().message;
        continue;
      }
      ++read;
      (void)etdump_json(*r);
      EXPECT_TRUE(profile_json(*r, program->program, {}).ok());
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(read, 0u);
}

TEST(Etdump, NamedMethodsAndUnknownNames) {
  auto file = read_etdump(load_file(sample("add_r2", "add_r2.etdp")));
  auto program = read_pte_program(load_file(sample("add_r2", "add.pte")));
  ASSERT_TRUE(file.ok() && program.ok());
  ProfileOptions options;
  options.methods = {std::nullopt, std::string("forward")};
  auto text = profile_json(*file, program->program, options);
  ASSERT_TRUE(text.ok());
  auto j = parse_json(*text);
  EXPECT_EQ(j->find("blocks")->items()[1].find("methodFrom")->text(), "named");
  EXPECT_EQ(j->find("blocks")->items()[0].find("methodFrom")->text(), "only method");
  EXPECT_EQ(j->find("blocks")->items()[2].find("methodFrom")->text(), "instructions");
  EXPECT_TRUE(j->find("warnings")->items().empty());
  ProfileOptions all;
  all.all_blocks = "forward";
  auto named_all = profile_json(*file, program->program, all);
  ASSERT_TRUE(named_all.ok());
  auto k = parse_json(*named_all);
  for (const Json& block : k->find("blocks")->items()) EXPECT_EQ(block.find("methodFrom")->text(), "named");
  EXPECT_TRUE(k->find("warnings")->items().empty()) << *named_all;
  options.methods = {std::string("backward")};
  auto bad = profile_json(*file, program->program, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().message, "block 0: the program has no method 'backward'");
}

// A program of methods given as lists of instruction types ("K" a
// KernelCall of aten::op<i>.out, "D" a DelegateCall of Backend<i>).
TableValue program_of(const std::vector<std::pair<std::string, std::string>>& methods) {
  const Schema& s = program_schema();
  TableValue root(s.root);
  Value::Items plans;
  for (const auto& [name, types] : methods) {
    TableValue plan(s.find_table("ExecutionPlan"));
    plan.at("name") = Value::from_string(name);
    Value::Items ops, delegates, instructions;
    for (size_t i = 0; i < types.size(); ++i) {
      TableValue ins(s.find_table("Instruction"));
      if (types[i] == 'K') {
        TableValue op(s.find_table("Operator"));
        op.at("name") = Value::from_string("aten::op" + std::to_string(i));
        op.at("overload") = Value::from_string("out");
        TableValue call(s.find_table("KernelCall"));
        call.set_int("op_index", static_cast<int64_t>(ops.size()));
        ops.push_back(Value::from_table(op));
        ins.at("instr_args") = Value::from_table(call);
      } else {
        TableValue d(s.find_table("BackendDelegate"));
        d.at("id") = Value::from_string("Backend" + std::to_string(i));
        TableValue call(s.find_table("DelegateCall"));
        call.set_int("delegate_index", static_cast<int64_t>(delegates.size()));
        delegates.push_back(Value::from_table(d));
        ins.at("instr_args") = Value::from_table(call);
      }
      instructions.push_back(Value::from_table(ins));
    }
    TableValue chain(s.find_table("Chain"));
    chain.at("instructions") = Value::from_items(instructions);
    plan.at("chains") = Value::from_items({Value::from_table(chain)});
    plan.at("operators") = Value::from_items(ops);
    plan.at("delegates") = Value::from_items(delegates);
    plans.push_back(Value::from_table(plan));
  }
  root.at("execution_plan") = Value::from_items(plans);
  return root;
}

EtdumpBlock block_of(const std::string& name, const std::vector<std::pair<const char*, int32_t>>& events) {  // literals: names are views
  EtdumpBlock b;
  b.name = name;
  uint64_t t = 100;
  for (const auto& [event, instruction] : events) {
    EtdumpProfileEvent e;
    e.event_index = b.profile.size();
    e.name = event;
    e.chain_index = instruction < 0 ? -1 : 0;
    e.instruction_id = instruction < 0 ? 0 : instruction;
    e.start_time = t;
    e.end_time = t += 10;
    b.profile.push_back(e);
  }
  b.event_count = b.profile.size();
  return b;
}

// Several methods: each block goes to the method its instructions fit, a
// load block to the method that runs next; a block two methods fit is
// reported, not guessed, and joined only where they agree.
TEST(Etdump, InfersMethodsFromInstructionsAndLoadOrder) {
  const TableValue program = program_of({{"forward", "KKD"}, {"encode", "KK"}, {"decode", "DK"}, {"empty", ""}});
  EtdumpFile file{TableValue(etdump_schema().root), {}, {}};
  file.blocks.push_back(block_of("Default", {{"Method::init", -1}, {"Program::load_method", -1}}));
  file.blocks.push_back(block_of("Execute", {{"OPERATOR_CALL", 0}, {"DELEGATE_CALL", 2}, {"Method::execute", -1}}));
  file.blocks.push_back(block_of("Default", {{"Program::load_method", -1}}));
  file.blocks.push_back(block_of("Execute", {{"DELEGATE_CALL", 0}, {"OPERATOR_CALL", 1}}));
  file.blocks.push_back(block_of("Execute", {{"OPERATOR_CALL", 0}, {"OPERATOR_CALL", 1}}));  // forward or encode
  file.blocks.push_back(block_of("Execute", {{"OPERATOR_CALL", 0}, {"DELEGATE_CALL", 2}}));
  file.blocks.push_back(block_of("Execute", {{"Method::execute", -1}}));  // only a method without instructions
  auto text = profile_json(file, program, {});
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto j = parse_json(*text);
  const auto& blocks = j->find("blocks")->items();
  const std::vector<std::string> methods = {"forward", "forward", "decode", "decode", "<null>", "forward", "empty"};
  const std::vector<std::string> from = {"load order", "instructions", "load order", "instructions", "<null>", "instructions",
                                         "instructions"};
  ASSERT_EQ(blocks.size(), methods.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_EQ(str(blocks[b].find("method")), methods[b]) << b;
    EXPECT_EQ(str(blocks[b].find("methodFrom")), from[b]) << b;
  }
  EXPECT_EQ(num(blocks[5].find("run")), "1");
  EXPECT_EQ(num(blocks[3].find("run")), "0");
  ASSERT_EQ(blocks[4].find("candidates")->items().size(), 2u);
  EXPECT_EQ(blocks[4].find("candidates")->items()[1].text(), "encode");
  // forward and encode agree on instruction 0 (both aten::op0.out) and 1 (aten::op1.out).
  EXPECT_EQ(str(blocks[4].find("events")->items()[0].find("operator")), "aten::op0.out");
  EXPECT_EQ(str(blocks[3].find("events")->items()[0].find("delegate")), "Backend0");
  ASSERT_EQ(j->find("warnings")->items().size(), 1u);
  EXPECT_EQ(j->find("warnings")->items()[0].text(),
            "block 4 (Execute): ambiguous between methods forward, encode; name the methods (option methods) to join it");
  // Named, the ambiguity goes.
  ProfileOptions named;
  named.methods.resize(5);
  named.methods[4] = "encode";
  auto named_text = profile_json(file, program, named);
  ASSERT_TRUE(named_text.ok());
  auto again = parse_json(*named_text);
  EXPECT_EQ(again->find("blocks")->items()[4].find("method")->text(), "encode");
  EXPECT_TRUE(again->find("warnings")->items().empty());
  // Statistics over execute blocks: aten::op0.out called in blocks 1, 4, 5.
  const Json& top = j->find("operators")->items()[0];
  EXPECT_EQ(top.find("name")->text(), "aten::op0.out");
  EXPECT_EQ(*top.find("count")->as_uint64(), 3u);
}

}  // namespace
}  // namespace etpack
