// A corpus of corrupted files generated from real ones: every truncation of
// a small .pte and .ptd, bit flips in each header field, header offsets and
// sizes near 2^32 and 2^64, segment tables pointing past the end, offsets
// that point back at themselves and vectors of offsets to one shared table.
// Each must be rejected with a coded error (by the readers) or a validate
// error, and every function must keep the promises of tests/fuzz/exercise.h.
// Saved fuzz findings (tests/fuzz/regressions) are replayed here too.
// Run under ASan+UBSan (ETPACK_SANITIZE=ON) this is the hardening suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "encode/fb_encoder.h"
#include "format/headers.h"
#include "model/value_json.h"
#include "fuzz/exercise.h"
#include "fuzz/exercise_repack.h"
#include "inspect/inspect.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "unit/flatbuffer_bytes.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::FlatbufferBytes;

using testing::read_bytes;

Blob view(const std::vector<uint8_t>& b) { return Blob::view(b.data(), b.size()); }

bool coded(const Error& e) {
  return e.code != ErrorCode::kOk && e.code != ErrorCode::kInternal && !e.message.empty();
}

void expect_promises(const Blob& pte, const Blob& ptd, const std::string& what) {
  for (const std::string& broken : fuzz::exercise(pte, ptd)) ADD_FAILURE() << what << ": " << broken;
}

// The fuzz targets' repack promises too (fuzz/exercise_repack.h): for the
// saved findings, whichever target found them.
void expect_repack_promises(const Blob& pte, const Blob& ptd, const std::string& what) {
  for (const std::string& broken : fuzz::exercise_repack(pte, ptd)) ADD_FAILURE() << what << ": " << broken;
}

// What a .pte means once read back: the restored program, mutable data and
// named data, as text (empty when it cannot be read).
std::string meaning_of_pte(const Blob& b) {
  auto read = deserialize_pte_binary(b);
  if (!read.ok()) return "";
  std::string out = write_json(table_to_json(read->program));
  auto bytes = [&](const Blob& blob) { out.append(reinterpret_cast<const char*>(blob.data()), blob.size()) += '|'; };
  if (read->mutable_data)
    for (const Blob& m : *read->mutable_data) bytes(m);
  if (read->named_data) {
    for (const Blob& buffer : read->named_data->buffers) bytes(buffer);
    for (const auto& [key, entry] : read->named_data->pte_data) out += key + "=" + std::to_string(entry.buffer_index) + ";";
  }
  return out;
}

std::string meaning_of_ptd(const Blob& b) {
  auto read = deserialize_ptd(b);
  if (!read.ok()) return "";
  std::string out;
  for (const Blob& buffer : read->payload.buffers)
    out.append(reinterpret_cast<const char*>(buffer.data()), buffer.size()) += '|';
  for (const auto& [key, entry] : read->payload.named_data) {
    out += key + "=" + std::to_string(entry.buffer_index);
    if (entry.tensor_layout) {
      out += ":" + std::to_string(entry.tensor_layout->scalar_type);
      for (int32_t s : entry.tensor_layout->sizes) out += "," + std::to_string(s);
      for (uint8_t d : entry.tensor_layout->dim_order) out += "/" + std::to_string(d);
    }
    out += ";";
  }
  return out;
}

// A flipped header either is rejected, or still means exactly what the
// original meant (e.g. program_size grown into the zero padding after the
// flatbuffer: the runtime loads a few more zero bytes and nothing changes).
void expect_rejected_or_harmless(const std::vector<uint8_t>& original, const std::vector<uint8_t>& changed,
                                 bool ptd, const std::string& what) {
  Blob b = view(changed);
  expect_promises(b, b, what);
  bool rejected = ptd ? !deserialize_ptd(b).ok() || !validate_ptd("x.ptd", b).ok()
                      : !deserialize_pte_binary(b).ok() || !validate_artifacts(b, {}).ok();
  if (rejected) return;
  std::string before = ptd ? meaning_of_ptd(view(original)) : meaning_of_pte(view(original));
  std::string after = ptd ? meaning_of_ptd(b) : meaning_of_pte(b);
  EXPECT_FALSE(before.empty());
  EXPECT_EQ(before, after) << what << " was accepted with a different meaning";
}

// Every finding has a code, a message and a location (offset or path),
// except the two that are about the report itself.
void expect_located(const ValidationReport& report, const std::string& what) {
  for (const auto* list : {&report.errors, &report.warnings}) {
    for (const Finding& f : *list) {
      EXPECT_FALSE(f.code.empty() || f.message.empty() || f.file.empty()) << what;
      if (f.code == finding::kTooManyFindings || f.code == finding::kValidationLimitExceeded) continue;
      EXPECT_TRUE(f.offset.has_value() || !f.path.empty()) << what << ": " << f.code << " " << f.message;
    }
  }
}

// The .pte is rejected: a coded reader error, or a validate error.
void expect_rejected_pte(const std::vector<uint8_t>& bytes, const std::string& what) {
  Blob b = view(bytes);
  expect_promises(b, b, what);
  auto read = deserialize_pte_binary(b);
  ValidationReport report = validate_artifacts(b, {});
  if (!read.ok()) {
    EXPECT_TRUE(coded(read.error())) << what << ": " << read.error().message;
  }
  EXPECT_TRUE(!read.ok() || !report.ok()) << what << " was accepted: " << write_json(report.to_json());
  expect_located(report, what);
}

void expect_rejected_ptd(const std::vector<uint8_t>& bytes, const std::string& what) {
  Blob b = view(bytes);
  expect_promises(b, b, what);
  auto read = deserialize_ptd(b);
  ValidationReport report = validate_ptd("corrupt.ptd", b);
  if (!read.ok()) {
    EXPECT_TRUE(coded(read.error())) << what << ": " << read.error().message;
  }
  EXPECT_TRUE(!read.ok() || !report.ok()) << what << " was accepted: " << write_json(report.to_json());
  expect_located(report, what);
}

bool has_code(const ValidationReport& r, const std::string& code) {
  for (const auto* list : {&r.errors, &r.warnings})
    for (const Finding& f : *list)
      if (f.code == code) return true;
  return false;
}

const fs::path kArduino = fs::path(ETPACK_ARTIFACTS_DIR) / "arduino_add.pte";       // eh00, one segment
const fs::path kAdd = fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte";                    // no header
const fs::path kModelPtd = fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything" / "model.ptd";

TEST(CorruptFiles, EveryTruncationOfAPteWithSegments) {
  std::vector<uint8_t> file = read_bytes(kArduino);
  ASSERT_EQ(file.size(), 1156u);
  for (size_t n = 0; n < file.size(); ++n)
    expect_rejected_pte(std::vector<uint8_t>(file.begin(), file.begin() + n), "arduino_add.pte[0.." + std::to_string(n) + ")");
}

TEST(CorruptFiles, EveryTruncationOfAPteWithoutHeader) {
  // Without eh00 nothing records the file size: a truncation that only drops
  // the builder's trailing padding may still be a valid file. The readers
  // must still answer and keep their promises.
  std::vector<uint8_t> file = read_bytes(kAdd);
  size_t accepted = 0;
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + n);
    expect_promises(view(cut), view(cut), "add.pte[0.." + std::to_string(n) + ")");
    if (deserialize_pte_binary(view(cut)).ok()) ++accepted;
  }
  EXPECT_LE(accepted, 8u);
}

TEST(CorruptFiles, EveryTruncationOfAPtd) {
  std::vector<uint8_t> file = read_bytes(kModelPtd);
  for (size_t n = 0; n < file.size(); ++n)
    expect_rejected_ptd(std::vector<uint8_t>(file.begin(), file.begin() + n), "model.ptd[0.." + std::to_string(n) + ")");
}

TEST(CorruptFiles, BitFlipsInThePteHeader) {
  const std::vector<uint8_t> file = read_bytes(kArduino);
  for (size_t byte = 0; byte < 40; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> flipped = file;
      flipped[byte] ^= static_cast<uint8_t>(1u << bit);
      std::string what = "arduino_add.pte byte " + std::to_string(byte) + " bit " + std::to_string(bit);
      uint32_t length = read_le<uint32_t>(&flipped[12]);
      if (byte >= 12 && byte < 16 && length >= PteHeader::kMinimumLength) {
        // A longer eh00 header is legal (future fields): a warning, still readable.
        ValidationReport r = validate_artifacts(view(flipped), {});
        EXPECT_TRUE(has_code(r, finding::kHeaderLengthUnusual)) << what;
        expect_promises(view(flipped), view(flipped), what);
      } else {
        expect_rejected_or_harmless(file, flipped, false, what);
      }
    }
  }
}

TEST(CorruptFiles, BitFlipsInThePtdHeader) {
  const std::vector<uint8_t> file = read_bytes(kModelPtd);
  for (size_t byte = 0; byte < 48; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> flipped = file;
      flipped[byte] ^= static_cast<uint8_t>(1u << bit);
      std::string what = "model.ptd byte " + std::to_string(byte) + " bit " + std::to_string(bit);
      if (byte >= 12 && byte < 16 && read_le<uint32_t>(&flipped[12]) > PtdHeader::kLength) {
        ValidationReport r = validate_ptd("m.ptd", view(flipped));
        EXPECT_TRUE(has_code(r, finding::kHeaderLengthUnusual)) << what;
        expect_promises(view(flipped), view(flipped), what);
      } else {
        expect_rejected_or_harmless(file, flipped, true, what);
      }
    }
  }
}

const uint64_t kExtremes[] = {0xFFFFFFFFull, 0x100000000ull, 0x100000001ull, 0xFFFFFFF8ull,
                              1ull << 63,    UINT64_MAX,     UINT64_MAX - 7,  UINT64_MAX - 1151};

TEST(CorruptFiles, PteHeaderFieldsNear2To32And2To64) {
  const std::vector<uint8_t> file = read_bytes(kArduino);
  for (size_t field : {16u, 24u, 32u}) {  // program_size, segment_base_offset, segment_data_size
    for (uint64_t v : kExtremes) {
      std::vector<uint8_t> patched = file;
      write_le<uint64_t>(&patched[field], v);
      expect_rejected_pte(patched, "eh00 field at " + std::to_string(field) + " = " + std::to_string(v));
    }
  }
  for (uint32_t v : {0xFFFFFFFFu, 0xFFFFFFFCu, 0x80000000u, 0x7FFFFFFCu}) {
    std::vector<uint8_t> patched = file;
    write_le<uint32_t>(&patched[0], v);
    expect_rejected_pte(patched, "root offset " + std::to_string(v));
    write_le<uint32_t>(&patched[0], 60);
    write_le<uint32_t>(&patched[12], v);
    // ExtendedHeader::Parse accepts any length from 24 up and reads the
    // same fields: a huge length is odd, not fatal (a warning).
    ValidationReport r = validate_artifacts(view(patched), {});
    EXPECT_TRUE(r.ok() && has_code(r, finding::kHeaderLengthUnusual)) << "eh00 length " << v << ": "
                                                                      << write_json(r.to_json());
    expect_promises(view(patched), view(patched), "eh00 length " + std::to_string(v));
  }
}

TEST(CorruptFiles, PtdHeaderFieldsNear2To32And2To64) {
  const std::vector<uint8_t> file = read_bytes(kModelPtd);
  for (size_t field : {16u, 24u, 32u, 40u}) {  // flatbuffer offset/size, segment base/size
    for (uint64_t v : kExtremes) {
      std::vector<uint8_t> patched = file;
      write_le<uint64_t>(&patched[field], v);
      expect_rejected_ptd(patched, "FH01 field at " + std::to_string(field) + " = " + std::to_string(v));
    }
  }
}

// arduino_add.pte rebuilt with its program changed by `edit`: the flatbuffer
// is encoded again, the eh00 header inserted and the segment data appended,
// so only the edit is wrong.
std::vector<uint8_t> rebuilt_arduino(const std::function<void(TableValue&)>& edit) {
  std::vector<uint8_t> file = read_bytes(kArduino);
  auto read = read_pte_program(view(file));
  EXPECT_TRUE(read.ok());
  TableValue program = read->program;
  edit(program);
  auto fb = encode_flatbuffer(program, "ET12", {});
  EXPECT_TRUE(fb.ok()) << (fb.ok() ? "" : fb.error().message);
  uint64_t header_size = *aligned_to(32, std::max<uint32_t>(fb->max_alignment, 16));
  PteHeader h;
  h.program_size = header_size + fb->bytes.size();
  h.segment_base_offset = *aligned_to(h.program_size, 128);
  h.segment_data_size = 4;
  std::vector<uint8_t> out = insert_header(fb->bytes, encode_pte_header(h, header_size));
  out.resize(h.segment_base_offset, 0);
  out.insert(out.end(), file.end() - 4, file.end());
  return out;
}

void set_segment(TableValue& program, size_t index, uint64_t offset, uint64_t size) {
  TableValue& s = program.at("segments").items()[index].table();
  s.set_uint("offset", offset);
  s.set_uint("size", size);
}

TEST(CorruptFiles, RebuiltArduinoIsClean) {
  std::vector<uint8_t> same = rebuilt_arduino([](TableValue&) {});
  EXPECT_EQ(same, read_bytes(kArduino));
}

TEST(CorruptFiles, SegmentTablePointingPastTheEnd) {
  const std::pair<uint64_t, uint64_t> cases[] = {
      {0, 5},          {4, 1},          {1, UINT64_MAX},  {UINT64_MAX, 1},  {UINT64_MAX - 3, 4},
      {1ull << 32, 4}, {0, 1ull << 32}, {0xFFFFFFFF, 2},  {1ull << 63, 1ull << 63},
  };
  for (const auto& segment : cases) {
    const uint64_t offset = segment.first, size = segment.second;  // C++17 lambdas cannot capture a structured binding
    std::vector<uint8_t> bytes = rebuilt_arduino([&](TableValue& p) { set_segment(p, 0, offset, size); });
    std::string what = "segment (" + std::to_string(offset) + ", " + std::to_string(size) + ")";
    expect_rejected_pte(bytes, what);
    EXPECT_TRUE(has_code(validate_artifacts(view(bytes), {}), finding::kSegmentOutOfBounds)) << what;
  }
}

TEST(CorruptFiles, IndicesNear2To32) {
  for (uint64_t index : {1ull, 0xFFFFFFFFull, 0x80000000ull}) {
    std::string what = "constant_segment.segment_index " + std::to_string(index);
    expect_rejected_pte(rebuilt_arduino([&](TableValue& p) { p.at("constant_segment").table().set_uint("segment_index", index); }),
                        what);
  }
  for (uint64_t offset : {uint64_t{5}, uint64_t{0xFFFFFFFF}, UINT64_MAX}) {
    std::vector<uint8_t> bytes = rebuilt_arduino([&](TableValue& p) {
      p.at("constant_segment").table().at("offsets") = Value::from_scalars(make_uint64_vector({0, offset}));
    });
    expect_rejected_pte(bytes, "constant offset " + std::to_string(offset));
  }
}

TEST(CorruptFiles, ChildOffsetPointingBackAtItself) {
  // Program.execution_plan's single element is an offset of 0: the "table"
  // it names is the offset itself.
  FlatbufferBytes fb;
  size_t vt = fb.vtable(8, {0, 4});
  size_t program = fb.table(vt);
  size_t field = fb.u32(0);
  size_t vec = fb.u32(1);
  fb.u32(0);
  fb.point(field, vec);
  fb.root(program);
  expect_rejected_pte(fb.bytes, "execution_plan[0] pointing at itself");

  // The root table's vtable offset is 0: the table is its own vtable.
  FlatbufferBytes self;
  self.align(4);
  size_t table = self.u32(0);
  self.u32(0);
  self.root(table);
  expect_rejected_pte(self.bytes, "root table that is its own vtable");

  // A .ptd whose FlatTensor.segments vector holds itself.
  FlatbufferBytes ptd("FT01");
  std::vector<uint8_t> header = encode_ptd_header(PtdHeader{});
  size_t ptd_vt = ptd.vtable(8, {0, 4});
  size_t root = ptd.table(ptd_vt);
  size_t segments = ptd.u32(0);
  size_t svec = ptd.u32(1);
  ptd.u32(0);
  ptd.point(segments, svec);
  ptd.root(root);
  PtdHeader h;
  h.flatbuffer_size = ptd.bytes.size();
  h.segment_base_offset = 48 + ptd.bytes.size();
  std::vector<uint8_t> with_header = insert_header(ptd.bytes, encode_ptd_header(h));
  expect_rejected_ptd(with_header, "segments[0] pointing at itself");
}

TEST(CorruptFiles, VectorsOfOffsetsToOneTable) {
  // A million tables claimed by 8 KB.
  FlatbufferBytes fb = testing::program_with_shared_plans(1000, 1000);
  expect_rejected_pte(fb.bytes, "shared tables");
  auto read = deserialize_pte_binary(view(fb.bytes));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ErrorCode::kResourceLimit);
  EXPECT_TRUE(has_code(validate_artifacts(view(fb.bytes), {}), finding::kFlatbufferLimitExceeded));
}

TEST(CorruptFiles, ManyFindingsAreCapped) {
  // 3000 offsets to one ExecutionPlan without name, inputs or outputs:
  // decodes (within budget), and each plan lacks its required fields. The
  // report stays bounded.
  FlatbufferBytes fb = testing::program_with_shared_plans(3000, 0);
  ValidationReport r = validate_artifacts(view(fb.bytes), {});
  EXPECT_FALSE(r.ok());
  EXPECT_LE(r.errors.size(), 1000u);
  EXPECT_TRUE(has_code(r, finding::kTooManyFindings));
  expect_promises(view(fb.bytes), view(fb.bytes), "3000 empty plans");
}

TEST(CorruptFiles, SharedVectorsExhaustTheWorkBudget) {
  // 3000 plans sharing one inputs vector of 3000 indices: decoding stays
  // cheap (vectors are slices), but reading every plan's inputs would cost
  // 9 million steps for 36 KB.
  FlatbufferBytes fb;
  size_t program = fb.table(fb.vtable(8, {0, 4}));
  size_t plans_field = fb.u32(0);
  fb.point(plans_field, fb.shared_vector(3000, [&] {
    size_t plan = fb.table(fb.vtable(8, {0, 0, 0, 4}));
    size_t inputs_field = fb.u32(0);
    fb.point(inputs_field, fb.u32(3000));
    for (int i = 0; i < 3000; ++i) fb.u32(0);
    return plan;
  }));
  fb.root(program);
  ASSERT_TRUE(read_pte_program(view(fb.bytes)).ok());
  ValidationReport r = validate_artifacts(view(fb.bytes), {});
  EXPECT_TRUE(has_code(r, finding::kValidationLimitExceeded)) << write_json(r.to_json()).substr(0, 500);
  auto summary = inspect_pte(view(fb.bytes));
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().code, ErrorCode::kResourceLimit);
  expect_promises(view(fb.bytes), view(fb.bytes), "shared inputs");
}

TEST(CorruptFiles, FuzzRegressionsStayFixed) {
  fs::path dir = fs::path(ETPACK_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  size_t count = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++count;
    std::vector<uint8_t> input = read_bytes(e.path());
    auto [pte, ptd] = fuzz::split(input.data(), input.size());
    expect_promises(pte, ptd, e.path().filename().string());
    expect_repack_promises(pte, ptd, e.path().filename().string());
    // Also at odd addresses: readers must not assume aligned input.
    std::vector<uint8_t> shifted(input.size() + 1);
    std::copy(input.begin(), input.end(), shifted.begin() + 1);
    auto [pte1, ptd1] = fuzz::split(shifted.data() + 1, input.size());
    expect_promises(pte1, ptd1, e.path().filename().string() + " (shifted)");
  }
  EXPECT_GE(count, 1u);
}

TEST(CorruptFiles, RealFilesAtOddAddresses) {
  for (const fs::path& path : {kArduino, kAdd, kModelPtd}) {
    std::vector<uint8_t> file = read_bytes(path);
    std::vector<uint8_t> shifted(file.size() + 3);
    std::copy(file.begin(), file.end(), shifted.begin() + 3);
    Blob b = Blob::view(shifted.data() + 3, file.size());
    expect_promises(b, b, path.filename().string() + " at an odd address");
    bool is_ptd = path.extension() == ".ptd";
    EXPECT_TRUE(is_ptd ? deserialize_ptd(b).ok() : deserialize_pte_binary(b).ok()) << path;
  }
}

}  // namespace
}  // namespace etpack
