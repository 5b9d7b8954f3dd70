// JSON pieces that inspect_pte and inspect_ptd share: the segment list, the
// segment map and bytes by category (shapes documented in inspect.h), and
// the column form the long lists take in the reply to the JS glue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "core/result.h"
#include "model/fb_value.h"
#include "read/file_layout.h"

namespace etpack {

// A list of rows written straight as JSON text, column by column:
//   {"rows": n, "columns": {"name": [row 0's value, row 1's, ...], ...}}
// A column of two or more rows whose values are all one number, string,
// boolean or null is written {"same": value} (a million keys on one
// segment, a million null dtypes). A file can hold a million named-data
// entries: one JSON object (and its keys) per row would cost the core a
// document tree and the glue a million key lookups; columns cost neither,
// and JS makes the rows.
//
// Columns of names (a key per row, or a list of owners per row) are written
// joined: the names' text one after another is a string of its own beside
// the reply's JSON (InspectReply::names), and the column is {"names": that
// string's index, "lengths": [each name's length, -1 for null], "counts":
// [names per row] (lists only)}, lengths in UTF-16 code units. JS decodes
// the names as one string and slices it, where JSON.parse would make a
// million strings, and the JSON stays small. The text is what a TextDecoder
// makes of each name (invalid UTF-8 as U+FFFD, utf8_text.h), as it was
// when each was its own JSON string.
class ColumnsText {
 public:
  explicit ColumnsText(std::vector<const char*> names);
  void u64(size_t column, uint64_t v);
  void opt_u64(size_t column, std::optional<uint64_t> v);
  void string(size_t column, const std::string& s);
  void null(size_t column);
  void boolean(size_t column, bool v);
  void raw(size_t column, std::string_view json);  // a JSON value's text (an array: never "same")
  // A joined column's value (a column takes one kind of value: joined
  // names, joined lists of names, or the others).
  void joined_name(size_t column, const std::string* name);  // nullptr: null
  void joined_name(size_t column, std::optional<std::string_view> name);  // nullopt: null
  // A list: its names one by one, then end_list.
  void list_name(size_t column, std::string_view name);
  void end_list(size_t column);
  void reserve(size_t column, size_t bytes);  // of a joined column's names
  // A member of the table beside "rows" and "columns" (a JSON value's
  // text): namedData's distinct tensor layouts, which a column indexes.
  void extra(const char* name, std::string json) { extras_.emplace_back(name, std::move(json)); }
  void end_row() { ++rows_; }
  size_t text_size() const;             // what write_to appends, within a few bytes
  // The table's JSON text onto `out`; each joined column's names moved to
  // the end of `names`.
  void write_to(std::string& out, std::vector<std::string>& names);

 private:
  struct Column {
    std::string text;        // the values, ", "-separated (joined: the names' text)
    size_t first_size = 0;   // row 0's value: text[0, first_size)
    bool same = true;        // every value so far is row 0's (a scalar)
    bool joined = false;     // text, lengths and (lists) counts are a joined column's
    bool lists = false;
    std::string lengths;     // joined: ", "-separated UTF-16 lengths
    std::string counts;      // joined lists: ", "-separated counts
    uint64_t listed = 0;     // names in the row's list so far
  };
  void join(Column& c, std::string_view name);
  void put(size_t column, std::string_view value, bool scalar = true);
  std::vector<const char*> names_;
  std::vector<Column> columns_;
  std::vector<std::pair<const char*, std::string>> extras_;
  std::string scratch_;
  uint64_t rows_ = 0;
};

// How many named-data entries a segment's owners name (issue 29): the
// first few, in file order; ownerCount counts every referrer.
inline constexpr size_t kNamedDataOwnersShown = 3;

// Segments in columns index, offset, size, kind, owners, ownerCount (one row
// per [DataSegment] at `base`); offset is absolute (null when base + offset
// overflows). owners: the segment's named referrers, then the first
// kNamedDataOwnersShown named-data entries ("named_data[i] key"); ownerCount:
// all referrers, every named-data entry included. `named` is the file's
// named_data, which `uses` refer to.
// `owner_name(i, out)` writes entry i's name into `out` (named_data_owner).
ColumnsText segments_columns(const std::vector<SegmentRange>& segments, uint64_t base, const std::vector<SegmentUse>& uses,
                             const std::function<void(size_t, std::string&)>& owner_name);
ColumnsText segments_columns(const Value& segments, uint64_t base, const std::vector<SegmentUse>& uses, const Value& named);

// The map in columns start, end, size, kind, segment, owners, ownerCount,
// clipped (owners and ownerCount as for segments_columns). A
// segment's range (its owners are the segment's, `uses`) writes that
// segment's index instead of the list, so a segment a million entries
// share does not put their names in the reply twice.
ColumnsText segment_map_columns(const std::vector<Region>& layout, const std::vector<SegmentUse>& uses);

// The largest power of two dividing `base` and every segment's absolute
// start (the alignment the segments have, whatever was asked); nullopt
// without segments or when base is 0.
std::optional<uint64_t> actual_segment_alignment(const std::vector<SegmentRange>& segments, uint64_t base);
std::optional<uint64_t> actual_segment_alignment(const Value& segments, uint64_t base);

// {header, flatbufferMetadata, constants, mutableData, delegateBlobs,
//  namedData, padding, unused}: sums over the layout, adding up to the file size.
Json bytes_by_category_json(const std::vector<Region>& layout);

// inspect's reply to the JS glue: the summary's JSON text and the joined
// names of its tables (tens of megabytes for a large file, never copied
// into one string).
struct InspectReply {
  std::string json;
  std::vector<std::string> names;
};

// The reply: `summary` written as write_json does, except that each member
// named in `tables` is written as that table.
InspectReply write_with_tables(const Json& summary, std::vector<std::pair<std::string, ColumnsText>> tables);

// The reply parsed back into inspect's documented shape: the column tables
// at `tables` become arrays of row objects (namedData: the columns
// themselves, {"count", "key": [...], "segment": [...], ...}, its extras
// beside them), and a segment map range's owners given as a segment index
// become that segment's owners.
Result<Json> summary_from_reply(const InspectReply& reply, const std::vector<std::string>& tables);

}  // namespace etpack
