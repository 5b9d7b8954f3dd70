// validate = the runtime's verdict, round 2 (issue 37, ../shared/RUNTIME.md
// "What a second round of 3,357 altered files showed"): what the runtime
// reads past is a warning or nothing, what it misreads is an error. Each
// test patches real conformance outputs (or builds the bytes) and asserts
// the code, the path and the byte offset; each names the runtime behaviour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/le_bytes.h"
#include "encode/pte_writer.h"
#include "read/pte_reader.h"
#include "read/verified_decode.h"
#include "validate/validate.h"
#include "schema/schema.h"
#include "unit/flatbuffer_bytes.h"
#include "unit/flatbuffer_walk.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

using testing::conformance;
using testing::describe;
using testing::load_file;
using testing::read_bytes;
using testing::view;
using testing::Walk;
using testing::with_code;

// Program fields (schema/program.fbs): Program.execution_plan 1,
// constant_segment 5; ExecutionPlan.values 2, chains 5, operators 6,
// delegates 7; EValue.val 1; Tensor.storage_offset 1, requires_grad 4;
// SubsegmentOffsets.offsets 1; Chain.inputs 0. FlatTensor.named_data 2;
// NamedData.segment_index 1, tensor_layout 2; TensorLayout.sizes 1.
std::vector<uint8_t> vector_file(const char* vector, const char* file = "out.pte") {
  return read_bytes(conformance(vector) / file);
}

std::vector<uint8_t> rewritten(const char* vector, const std::function<void(TableValue& program)>& edit) {
  auto read = deserialize_pte_binary(load_file(conformance(vector) / "out.pte"));
  EXPECT_TRUE(read.ok()) << (read.ok() ? "" : read.error().message);
  edit(read->program);
  PteConfig config;
  config.extract_delegate_segments = true;
  auto cord = serialize_pte_binary(read->program, read->mutable_data ? &*read->mutable_data : nullptr,
                                   read->named_data ? &*read->named_data : nullptr, config);
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  return std::move(cord->to_bytes().value());
}
TableValue& plan0(TableValue& program) { return program.at("execution_plan").items()[0].table(); }

size_t find(const std::vector<uint8_t>& b, const std::string& text) {
  auto it = std::search(b.begin(), b.end(), text.begin(), text.end());
  return it == b.end() ? SIZE_MAX : static_cast<size_t>(it - b.begin());
}

// The one finding of `code` in `list`, with `path` and `offset`.
void expect_one(const ValidationReport& r, const std::vector<Finding>& list, const std::string& code, const std::string& path,
                std::optional<uint64_t> offset, const std::string& text = "") {
  auto found = with_code(list, code);
  ASSERT_EQ(found.size(), 1u) << code << " in " << describe(r);
  EXPECT_EQ(found[0]->path, path) << describe(r);
  EXPECT_EQ(found[0]->offset, offset) << describe(r);
  EXPECT_NE(found[0]->message.find(text), std::string::npos) << found[0]->message;
}

const char* const kBase = "02_constants_default";  // 3 operators (all called), placeholder + 6 constants
const char* const kEverything = "13_everything";    // delegates, EXTERNAL lin.weight / lin.bias; ext.w, ext2.w unused

// flatbuffers::Verifier::VerifyTableStart checks that a vtable's size is
// even and lies in the buffer, nothing more: sizes 0 and 2 (no fields) pass.
// The runtime (Program::load, InternalConsistency) then reads every field as
// absent: an empty Program is refused for what it lacks, not as malformed.
TEST(ValidateRound2, VtableOfSizeZeroOrTwoIsNoFlatbufferFault) {
  for (uint16_t size : {0, 2}) {
    testing::FlatbufferBytes fb("ET12");
    fb.align(4);
    const size_t vt = fb.u16(size);
    fb.u16(0);
    const size_t table = fb.table(vt);
    fb.root(table);
    EXPECT_TRUE(decode_verified_program(fb.blob()).ok()) << size;
    ValidationReport r = validate_artifacts(fb.blob(), {});
    EXPECT_TRUE(with_code(r.errors, finding::kFlatbufferInvalid).empty()) << describe(r);
    EXPECT_EQ(with_code(r.errors, finding::kMissingField).size(), 1u) << describe(r);  // execution_plan
  }
  // An odd size stays a fault (the verifier refuses it).
  testing::FlatbufferBytes fb("ET12");
  fb.align(4);
  const size_t vt = fb.u16(3);
  fb.u16(0);
  fb.root(fb.table(vt));
  ValidationReport r = validate_artifacts(fb.blob(), {});
  expect_one(r, r.errors, finding::kFlatbufferInvalid, "", vt, "vtable size 3");
}

// The verifier never reads a vtable's inline-size entry, and neither does
// any accessor: 0, or a size running past the buffer, loads the same.
TEST(ValidateRound2, TableInlineSizeIsNeverRead) {
  for (uint16_t size : {0, 0xFFFF}) {
    std::vector<uint8_t> b = vector_file(kBase);
    Walk w{b};
    write_le<uint16_t>(&b[w.vtable(w.root()) + 2], size);
    ValidationReport r = validate_artifacts(view(b), {});
    EXPECT_TRUE(r.ok() && r.warnings.empty()) << size << ": " << describe(r);
  }
}

// A field's voffset of 1..3 points into the table's own soffset: the
// verifier accepts it for a 1-byte field (aligned), and the runtime reads
// that byte. A 4-byte field there is misaligned: the verifier refuses it
// (InvalidProgram under InternalConsistency), so that stays an error.
TEST(ValidateRound2, FieldVoffsetOneToThree) {
  for (uint16_t voffset : {1, 2, 3}) {
    std::vector<uint8_t> b = vector_file(kBase);
    Walk w{b};
    const size_t tensor = w.table(w.element(w.element(w.root(), 1, 0), 2, 0), 1);  // values[0].val
    write_le<uint16_t>(&b[w.vtable(tensor) + 4 + 2 * 4], voffset);         // requires_grad (bool)
    ValidationReport r = validate_artifacts(view(b), {});
    EXPECT_TRUE(with_code(r.errors, finding::kFlatbufferInvalid).empty()) << voffset << ": " << describe(r);
  }
  std::vector<uint8_t> b = vector_file(kBase);
  Walk w{b};
  const size_t tensor = w.table(w.element(w.element(w.root(), 1, 0), 2, 0), 1);
  write_le<uint16_t>(&b[w.vtable(tensor) + 4 + 2 * 1], 2);  // storage_offset (int32) at table + 2
  ValidationReport r = validate_artifacts(view(b), {});
  expect_one(r, r.errors, finding::kFlatbufferInvalid, "", 0, "fails flatbuffers verification");
}

// Method::init never reads a chain's own inputs/outputs (method.cpp builds
// a Chain from its instructions only): a warning. A method's inputs and
// outputs are read by every set_input/get_output (ET_CHECK in get_value:
// an abort): an error.
TEST(ValidateRound2, ChainInputsAreNeverReadMethodInputsAre) {
  std::vector<uint8_t> b = vector_file(kBase);
  Walk w{b};
  const size_t chain = w.element(w.element(w.root(), 1, 0), 5, 0);
  const size_t first = w.element(chain, 0, 0, 4, false);
  write_le<uint32_t>(&b[first], 1000);
  ValidationReport r = validate_artifacts(view(b), {});
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kChainValueIndexUnread, "execution_plan[0].chains[0].inputs[0]", first,
             "never reads");
  b = vector_file(kBase);
  const size_t input = w.element(w.element(w.root(), 1, 0), 3, 1, 4, false);
  write_le<uint32_t>(&b[input], 1000);
  r = validate_artifacts(view(b), {});
  expect_one(r, r.errors, finding::kValueIndexOutOfRange, "execution_plan[0].inputs[1]", input, "outside the method's 25 values");
}

// Program::get_constant_buffer_data checks only the offset a tensor asks
// for: offsets no tensor uses (the placeholder 0) are never read.
TEST(ValidateRound2, ConstantOffsetNoTensorUsesIsAWarning) {
  std::vector<uint8_t> b = vector_file(kBase);
  Walk w{b};
  const size_t placeholder = w.element(w.table(w.root(), 5), 1, 0, 8, false);
  write_le<uint64_t>(&b[placeholder], 1u << 30);
  ValidationReport r = validate_artifacts(view(b), {});
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSubsegmentOffsetOutOfRange, "constant_segment.offsets[0]", placeholder,
             "no tensor uses it");
  // The offset of constant 2, which a tensor reads: an error.
  b = vector_file(kBase);
  const size_t used = w.element(w.table(w.root(), 5), 1, 2, 8, false);
  write_le<uint64_t>(&b[used], 1u << 30);
  r = validate_artifacts(view(b), {});
  expect_one(r, r.errors, finding::kSubsegmentOffsetOutOfRange, "constant_segment.offsets[2]", used);
}

std::vector<std::pair<std::string, Blob>> everything_ptds(const std::vector<uint8_t>& model,
                                                          const std::vector<uint8_t>& shard_b = {}) {
  return {{"model.ptd", view(model)},
          {"shard_b.ptd", shard_b.empty() ? load_file(conformance(kEverything) / "shard_b.ptd") : view(shard_b)}};
}

// The runtime never verifies a .ptd (FlatTensorDataMap::load checks the
// header and that the two lists exist): an entry is read when a tensor
// asks for its key (get_named_data: segment index and bounds; then the
// layout). Faults in entries no tensor uses are warnings.
TEST(ValidateRound2, PtdEntryNoTensorUsesIsAWarning) {
  const Blob pte = load_file(conformance(kEverything) / "out.pte");
  for (size_t entry : {2u, 1u}) {  // ext.w (unused), lin.bias (EXTERNAL tensor 30)
    std::vector<uint8_t> model = vector_file(kEverything, "model.ptd");
    Walk w{model};
    const size_t index_at = w.field(w.element(w.root(), 2, entry), 1);
    ASSERT_NE(index_at, 0u);
    write_le<uint32_t>(&model[index_at], 9);
    ValidationReport r = validate_artifacts(pte, everything_ptds(model));
    const std::string path = "named_data[" + std::to_string(entry) + "].segment_index";
    if (entry == 2) {
      EXPECT_TRUE(r.ok()) << describe(r);
      expect_one(r, r.warnings, finding::kSegmentIndexOutOfRange, path, index_at, "no tensor of the program uses it");
    } else {
      expect_one(r, r.errors, finding::kSegmentIndexOutOfRange, path, index_at);
    }
  }
  // A layout no tensor checks (shard_b.ptd's ext2.w): a warning; lin.bias's: an error.
  {
    std::vector<uint8_t> shard = vector_file(kEverything, "shard_b.ptd");
    Walk w{shard};
    const size_t sizes = w.element(w.table(w.element(w.root(), 2, 0), 2), 1, 0, 4, false);
    write_le<uint32_t>(&shard[sizes], static_cast<uint32_t>(-3));
    ValidationReport r = validate_artifacts(pte, everything_ptds(vector_file(kEverything, "model.ptd"), shard));
    EXPECT_TRUE(r.ok()) << describe(r);
    expect_one(r, r.warnings, finding::kLayoutInvalid, "named_data[0].tensor_layout", sizes, "no tensor of the program uses it");
  }
  std::vector<uint8_t> model = vector_file(kEverything, "model.ptd");
  Walk w{model};
  const size_t sizes = w.element(w.table(w.element(w.root(), 2, 1), 2), 1, 0, 4, false);
  write_le<uint32_t>(&model[sizes], static_cast<uint32_t>(-3));
  ValidationReport r = validate_artifacts(pte, everything_ptds(model));
  expect_one(r, r.errors, finding::kLayoutInvalid, "named_data[1].tensor_layout", sizes);
}

bool has_path(const std::vector<Finding>& list, const std::string& code, const std::string& path) {
  for (const Finding* f : with_code(list, code))
    if (f->path == path) return true;
  return false;
}

// What the runtime reads of a .ptd (flat_tensor_data_map.cpp, no
// verifier): every key as a C string (MergedDataMap::load), then for a
// looked-up key its length and bytes, segment and layout (rank bytes of
// dim_order). Outside that, flatc's verifier's refusal is a warning.
TEST(ValidateRound2, PtdIsReadAsTheRuntimeReadsIt) {
  const Blob pte = load_file(conformance(kEverything) / "out.pte");
  // A key's length broken: the C string still reads; the lookup by length
  // misses it. ext.w (unused): warnings; lin.bias (EXTERNAL): an error.
  for (size_t entry : {2u, 1u}) {
    std::vector<uint8_t> model = vector_file(kEverything, "model.ptd");
    Walk w{model};
    const size_t key = w.string(w.element(w.root(), 2, entry), 0);
    write_le<uint32_t>(&model[key - 4], 0x7fffffff);
    ValidationReport r = validate_artifacts(pte, everything_ptds(model));
    const std::string path = "named_data[" + std::to_string(entry) + "]";
    EXPECT_TRUE(has_path(r.warnings, finding::kFlatbufferInvalid, "FlatTensor")) << describe(r);
    EXPECT_EQ(r.ok(), entry == 2) << describe(r);
    EXPECT_TRUE(has_path(entry == 2 ? r.warnings : r.errors, finding::kFlatbufferInvalid, path)) << describe(r);
  }
  // dim_order's own length is never read: lin.bias's claims 1,000,000.
  {
    std::vector<uint8_t> model = vector_file(kEverything, "model.ptd");
    Walk w{model};
    const size_t dim_order = w.deref(w.field(w.table(w.element(w.root(), 2, 1), 2), 2));
    write_le<uint32_t>(&model[dim_order], 1000000);
    ValidationReport r = validate_artifacts(pte, everything_ptds(model));
    EXPECT_TRUE(r.ok()) << describe(r);
    EXPECT_TRUE(has_path(r.warnings, finding::kLayoutInvalid, "named_data[1].tensor_layout")) << describe(r);
  }
  // A segments vector claiming more slots than the flatbuffer holds: only
  // the slots the entries name are read.
  std::vector<uint8_t> shard = vector_file(kEverything, "shard_b.ptd");
  Walk w{shard};
  write_le<uint32_t>(&shard[w.deref(w.field(w.root(), 1))], 5000000);
  ValidationReport r = validate_artifacts(pte, everything_ptds(vector_file(kEverything, "model.ptd"), shard));
  EXPECT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(has_path(r.warnings, finding::kFlatbufferInvalid, "segments")) << describe(r);
  // Without a program to tell, the file is judged whole, as before.
  EXPECT_FALSE(validate_ptd("shard_b.ptd", view(shard)).ok());
}

// An EXTERNAL tensor's name is a C string to the runtime
// (parse_external_constants: fully_qualified_name()->c_str() is the key).
TEST(ValidateRound2, ExternalNameIsLookedUpUpToItsNul) {
  const std::string with_nul("lin.weight\0old", 14);
  std::vector<uint8_t> b = rewritten(kEverything, [&](TableValue& program) {
    plan0(program).at("values").items()[29].table().at("val").table().at("extra_tensor_info").table().at(
        "fully_qualified_name") = Value::from_string(with_nul);
  });
  const size_t at = find(b, with_nul);
  ASSERT_NE(at, SIZE_MAX);
  std::vector<uint8_t> model = vector_file(kEverything, "model.ptd");
  ValidationReport r = validate_artifacts(view(b), everything_ptds(model));
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kNameTruncatedAtNul, "execution_plan[0].values[29].val.extra_tensor_info.fully_qualified_name",
             at + 10, "looks up 'lin.weight'");
  // Cut before the key's end: the runtime asks for 'lin.wei', which no .ptd holds.
  const std::string cut("lin.wei\0ht", 10);
  b = rewritten(kEverything, [&](TableValue& program) {
    plan0(program).at("values").items()[29].table().at("val").table().at("extra_tensor_info").table().at(
        "fully_qualified_name") = Value::from_string(cut);
  });
  r = validate_artifacts(view(b), everything_ptds(model));
  auto missing = with_code(r.errors, finding::kExternalTensorNotFound);
  ASSERT_EQ(missing.size(), 1u) << describe(r);
  EXPECT_NE(missing[0]->message.find("'lin.wei'"), std::string::npos) << missing[0]->message;
}

// Operator names and backend ids are C strings to the runtime: the kernel
// 'name.overload' of snprintf("%s.%s") and get_backend_class(id->c_str()).
TEST(ValidateRound2, OperatorOrBackendNameWithANulIsAnError) {
  std::vector<uint8_t> b = vector_file(kBase);
  const size_t at = find(b, "aten::mul");
  ASSERT_NE(at, SIZE_MAX);
  b[at + 6] = 0;  // "aten::\0ul"
  ValidationReport r = validate_artifacts(view(b), {});
  expect_one(r, r.errors, finding::kNameTruncatedAtNul, "execution_plan[0].operators[2].name", at + 6,
             "looks up the kernel 'aten::.out'");
  b = vector_file(kEverything);
  const std::string id = "QnnBackend";  // its last occurrence is the delegate's id (another string holds it first)
  const size_t qnn = static_cast<size_t>(std::find_end(b.begin(), b.end(), id.begin(), id.end()) - b.begin());
  ASSERT_NE(qnn, SIZE_MAX);
  b[qnn] = 0;
  r = validate_artifacts(view(b), everything_ptds(vector_file(kEverything, "model.ptd")));
  expect_one(r, r.errors, finding::kNameTruncatedAtNul, "execution_plan[0].delegates[2].id", qnn,
             "asks for the backend ''");
}

// method.cpp populate_operator_name: the kernel name "name.overload" is
// built in a 100-byte buffer; 100 characters or more fail load_method
// (Internal). Operator 2 of the base vector is aten::mul.out: a name of 95
// characters makes 99 with ".out" (loads), 96 makes 100 (refused).
TEST(ValidateRound2, KernelNameOfAHundredCharactersIsAnError) {
  auto with_name = [](size_t length) {
    return rewritten(kBase, [length](TableValue& program) {
      plan0(program).at("operators").items()[2].table().at("name") = Value::from_string(std::string(length, 'k'));
    });
  };
  std::vector<uint8_t> b = with_name(95);
  ValidationReport r = validate_artifacts(view(b), {});
  EXPECT_TRUE(with_code(r.errors, finding::kOperatorNameTooLong).empty()) << describe(r);
  EXPECT_TRUE(with_code(r.warnings, finding::kOperatorNameTooLong).empty()) << describe(r);
  b = with_name(96);
  r = validate_artifacts(view(b), {});
  expect_one(r, r.errors, finding::kOperatorNameTooLong, "execution_plan[0].operators[2].name",
             find(b, std::string(96, 'k')), "(100 characters)");
}

// pytorch/executorch PR #22114 (merged 2026-08-24, first in 1.5): Program::load
// refuses Program.version > kMaxSupportedSchemaVersion (0) with
// InvalidProgram, FlatTensorDataMap::load a FlatTensor.version > 0 with
// InvalidExternalData; releases up to 1.4 never read the field.
TEST(ValidateRound2, SchemaVersionAboveZero) {
  std::vector<uint8_t> b = rewritten(kBase, [](TableValue& program) { program.set_uint("version", 1); });
  Walk w{b};
  const size_t version_at = w.field(w.root(), 0);
  ASSERT_NE(version_at, 0u);
  ValidationReport r = validate_artifacts(view(b), {});
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSchemaVersionTooNew, "version", version_at, "Program.version is 1");
  ValidateOptions target;
  target.runtime = std::make_pair(1, 5);
  r = validate_artifacts(view(b), {}, target);
  expect_one(r, r.errors, finding::kSchemaVersionTooNew, "version", version_at, "InvalidProgram");
  target.runtime = std::make_pair(1, 4);
  r = validate_artifacts(view(b), {}, target);
  EXPECT_EQ(with_code(r.warnings, finding::kSchemaVersionTooNew).size(), 1u) << describe(r);
  EXPECT_TRUE(with_code(r.errors, finding::kSchemaVersionTooNew).empty()) << describe(r);
  // The .ptd: the FlatTensor's version slot pointed at its named_data
  // offset field, which holds a uoffset above 0.
  std::vector<uint8_t> model = vector_file(kEverything, "model.ptd");
  Walk m{model};
  const size_t vt = m.vtable(m.root());
  const uint16_t named_voffset = read_le<uint16_t>(&model[vt + 4 + 2 * 2]);
  write_le<uint16_t>(&model[vt + 4], named_voffset);
  const uint32_t version = m.u32(m.root() + named_voffset);
  const Blob pte = load_file(conformance(kEverything) / "out.pte");
  r = validate_artifacts(pte, everything_ptds(model));
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSchemaVersionTooNew, "version", m.root() + named_voffset,
             "FlatTensor.version is " + std::to_string(version));
  target.runtime = std::make_pair(1, 5);
  r = validate_artifacts(pte, everything_ptds(model), target);
  expect_one(r, r.errors, finding::kSchemaVersionTooNew, "version", m.root() + named_voffset, "InvalidExternalData");
}

}  // namespace
}  // namespace etpack
