// A file kind as one module: each row of format/file_kinds.def has one
// FileKindOps, named after the row's enum with "Ops" (kPte -> kPteOps) and
// defined in the kind's own ops/kind_<kind>.cpp (kind_pte.cpp, ...). inspect, validate and the
// head-size probe ask ops_of(kind); there is no switch on the kind to
// extend. A row without its entry fails to link ("undefined reference to
// etpack::kXyzOps"), and tests/unit/file_kind_ops_test.cpp checks each
// entry against its row (`inspected`).
//
// The same shape serves any other table of kinds (the delegate payload
// kinds of format/payload_kinds.def): a struct of function pointers, one
// `extern const` entry per row declared by the row's X-macro, and a table
// of their addresses indexed by the row's enum (ops/file_kind_ops.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "format/file_kinds.h"
#include "inspect/layout_json.h"
#include "format/file_source.h"
#include "validate/validate.h"

namespace etpack {

using DataFileSources = std::vector<std::pair<std::string, FileSource>>;

struct FileKindOps {
  // How many bytes of a file of this kind to hold in memory, from its
  // first file_kind(kind).probe_bytes (`probe`; fewer for a shorter file)
  // and its size. Errors: a malformed head (kMalformedFile naming the
  // offset, kUnsupportedVersion).
  Result<uint64_t> (*head_size)(const Blob& probe, uint64_t file_size);
  // inspect's reply; null when inspect does not read this kind (an ETDump
  // is read by readETDump / profile). `data_files`: the .ptd files a .pte
  // is loaded with (ignored by other kinds).
  Result<InspectReply> (*inspect)(const FileSource& file, size_t data_files);
  // validate with a main file of this kind and the data files given; null:
  // judged as a program, whose identifier check names what it is instead.
  // `main_name` names the main file where the report quotes file names.
  Result<ValidationReport> (*validate)(const std::string& main_name, const FileSource& main,
                                       const DataFileSources& data_files, const ValidateOptions& options);
};

// One entry per row: kPteOps, kPtdOps, ...
#define FILE_KIND(id, ...) extern const FileKindOps id##Ops;
#include "format/file_kinds.def"
#undef FILE_KIND

// The entry of `kind`'s row.
const FileKindOps& ops_of(FileKind kind);

}  // namespace etpack
