// Pieces of validate shared by its source files; not part of the API.
// validate.cpp runs them in order: the file and its header
// (validate_pte_file.cpp / validate_ptd.cpp), then the program
// (validate_program.cpp), then external tensors (validate_external.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/cold_code.h"  // ETPACK_COLD for the findings of the -O3 check files
#include "read/program_tensors.h"
#include "read/file_layout.h"
#include "format/file_source.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "read/work_budget.h"

namespace etpack {

// Collects the findings of one file into a report, at most kMaxPerKind
// errors and as many warnings (so hostile input cannot grow the report
// without bound); one TOO_MANY_FINDINGS warning marks the cut.
// VALIDATION_LIMIT_EXCEEDED (reported once) is never cut.
class FindingSink {
 public:
  static constexpr size_t kMaxPerKind = 1000;
  FindingSink(ValidationReport& report, std::string file) : report_(report), file_(std::move(file)) {}
  void error(const char* code, std::string message, std::optional<uint64_t> offset = std::nullopt,
             std::string path = "") {
    add(report_.errors, code, std::move(message), offset, std::move(path));
  }
  void warning(const char* code, std::string message, std::optional<uint64_t> offset = std::nullopt,
               std::string path = "") {
    add(report_.warnings, code, std::move(message), offset, std::move(path));
  }
  const std::string& file() const { return file_; }
  size_t errors() const { return errors_; }

 private:
  void add(std::vector<Finding>& list, const char* code, std::string message, std::optional<uint64_t> offset,
           std::string path);

  ValidationReport& report_;
  std::string file_;
  size_t errors_ = 0;
  size_t errors_kept_ = 0;
  size_t warnings_kept_ = 0;
  bool cut_ = false;
};

// "base[i]", the path of a list's item in findings.
inline std::string indexed_path(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

// MISSING_FIELD when `table` (at `path`) lacks `field`, which the runtime requires.
inline void require_field(FindingSink& sink, const TableValue& table, const char* field, const std::string& path) {
  if (!table.has(field))
    sink.error(finding::kMissingField, path + "." + field + " is absent; the runtime requires it", std::nullopt,
               path + "." + field);
}

// Spends from a WorkBudget for one pass of checks: the first time the budget
// runs out it reports VALIDATION_LIMIT_EXCEEDED with `message`, and from then
// on answers false without a word (the pass stops; one finding is enough).
class BudgetGate {
 public:
  BudgetGate(FindingSink& sink, WorkBudget& budget, std::string message)
      : sink_(sink), budget_(budget), message_(std::move(message)) {}
  bool spend(uint64_t units) {
    if (budget_.spend(units)) return true;
    if (!reported_) {
      reported_ = true;
      sink_.error(finding::kValidationLimitExceeded, message_);
    }
    return false;
  }

 private:
  FindingSink& sink_;
  WorkBudget& budget_;
  std::string message_;
  bool reported_ = false;
};

// Reports a reader error (decode/verify) as a finding; the offset is taken
// from the message's "at byte offset N" when it has one, else 0 (the start
// of the flatbuffer the error is about).
void report_read_error(FindingSink& sink, const Error& error);

// One entry of a file's `segments`, as checked against the file.
struct SegmentCheck {
  uint64_t offset = 0;  // relative to the segment base
  uint64_t size = 0;
  std::optional<uint64_t> start;  // absolute, when base + offset does not overflow
  bool in_bounds = false;         // lies inside the segment data and the file
  uint64_t room = 0;              // bytes of segment data from its start (0 when it starts past them)
};

// What the runtime reads of a .pte's segments (pte_reads,
// validate_pte_file.cpp; upstream runtime/executor/program.cpp,
// pte_data_map.cpp): `whole`, per segment, whether it loads
// [offset, offset + size) -- the constant segment when it holds more than
// the placeholder offset (Program::load), each SEGMENT delegate's (init),
// a named_data entry's when a backend looks its key up (get_data);
// `sliced`, whether it reads only slices of it -- mutable data
// (load_mutable_subsegment_into checks each slice against the recorded
// size, then reads it from the file). `keys`: the named-data keys the
// delegates' backends look up (delegate_keys; exact, as PteDataMap compares).
struct PteReads {
  std::vector<bool> whole, sliced;
  std::unordered_set<std::string> keys;
};
PteReads pte_reads(const FileSource& file, const PteFile& pte, size_t segment_count);

// Checks `segments` ([DataSegment]) of a file whose segment data is
// [base, base + data_size): bounds, order, overlap, alignment (warning).
// `alignment` is the segment alignment the header implies, if any.
// `read` (when given): per segment, whether the runtime loads it; faults of
// a segment it never loads are warnings. `sliced` (when given): segments it
// reads only by slices, each checked against the recorded size and read
// from the file: a size past the data is a warning (the slices are checked
// on their own, SegmentCheck::room). A segment past the data sets no bound
// for the order and overlap of the next ones: its own finding says it.
std::vector<SegmentCheck> check_segments(FindingSink& sink, const Value& segments, uint64_t base, uint64_t data_size,
                                         std::optional<uint64_t> alignment);
std::vector<SegmentCheck> check_segments(FindingSink& sink, const std::vector<SegmentRange>& segments, uint64_t base,
                                         uint64_t data_size, std::optional<uint64_t> alignment,
                                         const std::vector<bool>* read = nullptr,
                                         const std::vector<bool>* sliced = nullptr);

// Warns about padding regions of `layout` (see file_layout.h) holding
// non-zero bytes and about unused bytes past the declared data. (How much
// padding is too much cannot be told: alignments need not be powers of two
// and the file does not record them.)
// Padding past the head is read through the host's optional peeker; what it
// cannot read is left unchecked.
// `read` as for check_segments: a cut or moved segment the runtime never
// loads is a warning. `orphan_alignment`: given when some segment's
// recorded range lies outside the data (the segment alignment, if known;
// at least 16): its bytes remain where they were written, so non-zero
// padding from the first aligned offset past a segment's end on is taken
// as theirs (PADDING_NOT_ZERO), not as that segment's cut tail.
void check_layout_bytes(FindingSink& sink, const FileSource& file, const std::vector<Region>& layout,
                        const std::vector<bool>* read = nullptr, std::optional<uint64_t> orphan_alignment = std::nullopt);

// A file range that must hold only zeros, and what it means when it does not.
struct ZeroSpan {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  std::string what;  // e.g. "the 12 bytes after constant 3's data, before constant 4"
  std::string path;
};

// The first non-zero byte of [start, end) and its offset: from the head
// while it lasts, then from the file (in memory, or peeked in chunks).
// nullopt when all zero or, past the head, unreadable.
std::optional<std::pair<uint64_t, uint8_t>> first_non_zero(const FileSource& file, uint64_t start, uint64_t end);

// Program-level checks of a .pte whose flatbuffer decoded (`head`: the bytes
// holding it). Adds to `zero_spans` the padding between each constant or
// mutable tensor's data and the next slice (checked by the caller, which
// can read past the head).
// `reads`: what the runtime reads (pte_reads); nullptr: every segment and key.
void check_program(FindingSink& sink, WorkBudget& budget, const Blob& head, const PteFile& pte,
                   const std::vector<SegmentCheck>& segments, std::vector<ZeroSpan>& zero_spans,
                   const PteReads* reads = nullptr);

// The indices of every method (validate_method_indices.cpp): the plan's
// required fields, inputs/outputs and each chain's lists and instructions
// (values, operators, delegates, jump targets) in range. False when `gate`
// ran out; check_program runs it first, sharing its gate.
bool check_method_indices(FindingSink& sink, BudgetGate& gate, const TableValue& program, const Blob& file);

// Rules of the runtime's loader beyond the file's structure
// (runtime_rules.cpp): the constant segment placeholder, what Method::init
// requires of chains, instructions, operators and lists, the segment base,
// and, when the options name a target, its release and backends.
void check_runtime_rules(FindingSink& sink, WorkBudget& budget, const Blob& head, const PteFile& pte,
                         const ValidateOptions& options);

// What load_method refuses once the program loaded
// (validate_method_load.cpp): values (null, lists, tensors' dynamism and
// strides), planned memory (buffer ids, sizes, bounds) and SEGMENT
// delegates without segments. `head` holds the verified flatbuffer.
void check_method_load(FindingSink& sink, WorkBudget& budget, const Blob& head, const PteFile& pte);

// options.method_allocator against every method's minimum, load_method
// given `data_files` .ptd files (validate_method_load.cpp).
void check_method_allocator(FindingSink& sink, const PteFile& pte, const ValidateOptions& options, size_t data_files);

// Named data of one .ptd, for resolving external tensors.
struct PtdEntry {
  std::string file;  // the .ptd's name
  std::string path;  // "named_data[i]"
  std::optional<TensorView> layout;   // its tensor_layout, if any
  std::optional<uint64_t> data_size;  // its segment's size, when the segment is valid
};
using PtdIndex = std::unordered_map<std::string, std::vector<PtdEntry>>;

// Validates one .ptd into `report`; adds its keys to `index` when given.
// Heads hold at least min(size, kMinimumHeadBytes) bytes (validate.cpp checks).
// `read_keys`: the keys the program's EXTERNAL tensors and delegates look
// up (up to a NUL, as the runtime does); an entry none looks up is never
// read by the runtime (it never verifies a .ptd), so its faults are
// warnings, and the file is read per entry (read_ptd_entries).
// nullptr: no program to tell (a .ptd on its own): every entry counts.
void validate_ptd_into(ValidationReport& report, const std::string& name, const FileSource& ptd, PtdIndex* index,
                       const ValidateOptions& options = {}, const std::unordered_set<std::string>* read_keys = nullptr);

// The keys the EXTERNAL tensors of `program` look up: each
// fully_qualified_name up to its first NUL (method.cpp passes c_str()).
std::unordered_set<std::string> external_keys(const TableValue& program);
// The named-data keys the delegates' backends look up at init() (each up
// to its first NUL): a backend reads those entries' data (get_data), not
// their layouts. Blobs that do not decode add none.
std::unordered_set<std::string> delegate_keys(const FileSource& pte, const PteFile& file);

// A name as the runtime reads it (a C string): up to its first NUL.
std::string c_string_prefix(std::string_view name);
// The name for a message, a NUL shown as \0.
std::string printable_name(std::string_view name);

// NUL inside operator names and backend ids (validate_names.cpp).
void check_names(FindingSink& sink, const Blob& flatbuffer, const TableValue& program);
// Where an EXTERNAL tensor's fully_qualified_name (values[value] of
// execution_plan[plan]) lies in the flatbuffer, when it can be told.
std::optional<uint64_t> fqn_offset(const Blob& flatbuffer, size_t plan, size_t value);

// Program.version / FlatTensor.version above 0 (runtime_rules.cpp): a
// warning naming the runtimes that refuse it; an error when
// options.runtime is one of them. `table` names it ("Program"),
// `refusal` what the runtime returns.
void check_schema_version(FindingSink& sink, const char* table, uint64_t version, std::optional<uint64_t> offset,
                          const ValidateOptions& options, const char* refusal);

// Checks the .pte into `report`; returns the decoded program when the
// flatbuffer could be read (for the external tensor check).
// With `spans_out`, no byte past the flatbuffer is read: the zero-padding
// ranges inside segments are returned there instead of checked.
std::optional<PteFile> validate_pte_into(ValidationReport& report, const FileSource& pte, const ValidateOptions& options,
                                         std::vector<ZeroSpan>* spans_out = nullptr);

// Resolves every EXTERNAL tensor of `pte` against `index`.
void check_external_tensors(FindingSink& sink, const Blob& head, const PteFile& pte, const PtdIndex& index,
                            bool have_ptds);

// Each delegate's payload decoded (read/delegate/): DELEGATE_PAYLOAD_INVALID
// when a known backend's blob does not hold together, and
// DELEGATE_NAMED_KEY_MISSING for each named-data key its backend looks up at
// init() that neither the .pte's named_data nor a given .ptd holds.
void check_delegate_payloads(FindingSink& sink, const FileSource& pte, const PteFile& file, const PtdIndex& index,
                             bool have_ptds);

// Keys held by two of the .ptd files given (Module's MergedDataMap refuses
// them): DUPLICATE_KEY_ACROSS_FILES, one per pair of files.
void check_data_files_merge(ValidationReport& report, const PtdIndex& index);

}  // namespace etpack
