// inspect: a summary of a .pte (or .ptd) for people and tools: header
// fields, methods (inputs/outputs with dtype and shape, operators with
// counts, instruction count, delegates), constants, mutable data, named
// data, a segment map covering every byte of the file exactly once, and bytes
// by category. Input is untrusted (same rules as validate).
//
// inspect_pte returns (keys in this order; byte counts and offsets are
// unsigned integers, absolute file offsets unless noted):
// {
//   "format": "pte",
//   "fileSize": n,
//   "identifier": "ET12",
//   "rootOffset": n,                       // the flatbuffer's root table offset
//   "header": null | {"length", "programSize", "segmentBaseOffset", "segmentDataSize"},
//   "programVersion": n,
//   "segmentAlignment": n | null,          // largest power of two dividing the segment base
//                                          //  and every segment's start (null: no segments)
//   "metadata": {"method": value | [value, ...]},  // the model card: methods running no instruction
//                                          //  that return only non-tensor constants (inspect_metadata.h)
//   "methods": [{
//     "name": s | null,
//     "inputs":  [{"index": value index, "type": "Tensor" | "Int" | ... | "None",
//                  "dtype": "Float" | ... | null, "shape": [n, ...] | null}],
//     "outputs": [same],
//     "valueCount": n, "chainCount": n,
//     "instructionCount": n,               // over all chains
//     "operators": [{"name": "aten::add", "overload": "out" | null, "count": kernel calls}],
//     "delegates": [{"index": n, "id": s | null, "location": "inline" | "segment" | "missing" | "invalid",
//                    "dataIndex": n | null,   // into backend_delegate_data or segments
//                    "size": n | null,        // blob bytes
//                    "offset": n | null,      // where the blob starts in the file
//                    "compileSpecs": [key, ...],
//                    "compileSpecValues": [{"key", "bytes", "value": s | n | null}],  // see inspect_details.h
//                    "payload": null | {"kind": "invalid", "error"} | {"kind", "nodes", "values",
//                               "operators", "dtypes", "quantization": {name: count}, "constantBytes",
//                               "namedKeys": [{"key", "bytes", "in": "pte" | null}]}}],
//                               // read/delegate/payload_summary.h; "in" null: not in the .pte
//     "nonConstBufferSizes": [n, ...],     // memory-planned buffer sizes
//     "memory": {"plannedBuffers": [n, ...], "plannedTotal": n,   // bytes per memory id, their sum
//                "methodAllocator": {"64-bit": {"withTempAllocator": n, "withoutTempAllocator": n},
//                                    "arm32": {...}, "runtime": s}}  // load_method's minimum pool
//                                    // (64-byte aligned base, backends' init() excluded; method_allocator.h)
//   }],
//   "methodAllocator": {"runtime": s,      // the runtime release the figures are for
//                       "dataFiles": n,    // .ptd files the figures assume load_method is given
//                       "mergedDataMap": bool,  // whether that costs a MergedDataMap per method
//                       "allMethods": {"64-bit": {...}, "arm32": {...}}},  // one pool loading every
//                                          //  method in file order (method_allocator_total)
//   "constants": {"storage": "segment" | "inline" | "none", "segment": n | null,
//                 "count": n,              // entries after the index-0 placeholder
//                 "totalBytes": n,         // their slices (alignment padding included)
//                 "largest": [{"name", "bytes", "dtype", "shape", "where"}]},  // 10 largest, see inspect_details.h
//   "mutableData": null | {"segment": n | null, "count": n, "totalBytes": n},
//   "namedData": {"count": n, "key": [s | null, ...], "segment": [n, ...], "size": [n | null, ...]},
//                                          // columns: entry i is key[i], segment[i], size[i]
//   "externalTensors": [{"name": fqn, "dtype": s | null, "shape": [..] | null, "size": n | null,
//                        "mutable": bool}],   // distinct names, first use
//   "requirements": {"minRuntimeVersion": "1.0", "features": [{"feature", "since", "where" | null}],
//                    "backends": [id, ...], "operators": ["aten::add.out", ...],
//                    "externalData": [{"key", "dtype", "shape", "bytes", "methods": [name, ...]}]},
//                    // see requirements.h
//   "segments": [{"index", "offset", "size", "kind", "owners": [s, ...], "ownerCount": n}],
//                   // owners: the named referrers, then the first 3 named-data entries
//                   // ("named_data[i] key"; issue 29: not a name per entry); ownerCount:
//                   // every referrer (namedData.segment tells which entries)
//   "segmentMap": [{"start", "end" (exclusive), "size",
//                   "kind": "preamble" | "header" | "padding" | "flatbuffer" | "constant" | "mutable" |
//                           "delegate" | "namedData" | "segment" (unreferenced) | "unused",
//                   "segment": n | null, "owners": [s, ...], "ownerCount": n, "clipped": bool}],
//                   // a segment's range: its segment's owners and ownerCount
//                   // ordered, contiguous, from 0 to fileSize; inline constant storage and inline
//                   // delegate data are cut out of the flatbuffer as their own ranges
//   "paddingInSegments": [{"start", "end"}],  // zero padding between tensors inside the constant and
//                                            // mutable segments (validate checks it; see validate.h)
//   "bytesByCategory": {"header", "flatbufferMetadata", "constants", "mutableData",
//                       "delegateBlobs", "namedData", "padding", "unused"},  // sums to fileSize
//   "weights": {"constants", "namedData", "delegateConstants", "delegateGraphs", "total"}
//                   // delegateBlobs split into the constants inside them and the rest
//                   // (inspect_details.h weights_json)
// }
//
// inspect_ptd returns:
// {
//   "format": "ptd", "fileSize", "identifier": "FT01", "rootOffset",
//   "header": {"length", "flatbufferOffset", "flatbufferSize", "segmentBaseOffset", "segmentDataSize"},
//   "version": n, "segmentAlignment": n | null,
//   "namedData": {"count", "key", "segment", "size": as for a .pte,
//                 "layout": [n | null, ...],  // entry i's tensor layout: layouts[layout[i]] (null: none)
//                 "layouts": [{"dtype": s | null, "shape": [..] | null, "dimOrder": [..] | null}]},
//                                          // distinct, in order of first use
//   "requirements": as for a .pte (features of the .ptd; backends, operators, externalData empty),
//   "segments", "segmentMap", "bytesByCategory": as for a .pte
// }
//
// inspect_*_reply return the same summary as JSON text for the JS glue, the
// long lists (namedData, segments, segmentMap; kInspectTables) written in
// columns, {"rows": n, "columns": {"key": {"names": 0, "lengths": [...]},
// "dtype": {"same": null}, ...}} ({"same": v}: v in every row; names
// joined into strings beside the JSON, InspectReply), and a segment map
// range's owners as its segment's index where they are that segment's
// owners (layout_json.h). npm/src/marshal/inspect-reply.mjs turns them into the
// shape above; nothing else differs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "format/file_source.h"
#include "inspect/layout_json.h"
#include "core/blob.h"
#include "core/json.h"
#include "core/result.h"

namespace etpack {

struct PteFile;  // read/pte_reader.h

// Errors: kMalformedFile / kUnsupportedVersion when the file cannot be read
// at all (use validate for a full list of problems); kResourceLimit when
// hostile sharing of tables or vectors would make the decoded tree or the
// summary unreasonably large.
// `data_files`: how many .ptd files the program is loaded with (the method
// allocator's figures count the data map load_method then merges).
Result<Json> inspect_pte(const Blob& pte, size_t data_files = 0);
Result<Json> inspect_ptd(const Blob& ptd);
// The same from a head and the whole file (possibly external): only the head
// is read. Errors as above, plus kInvalidArgument for a head that is not in
// memory or too short.
Result<Json> inspect_pte(const FileSource& pte, size_t data_files = 0);
Result<Json> inspect_ptd(const FileSource& ptd);
// The zero-padding ranges inside a .pte's constant and mutable segments, as
// absolute [start, end) (validate's pte_padding_in_segments finds them:
// inspect does not judge, so the op that composes both passes it in). The
// summary's "paddingInSegments" lists them; without a finder it is empty.
using PaddingFinder =
    std::function<std::vector<std::pair<uint64_t, uint64_t>>(const FileSource& pte, const PteFile& program)>;
Result<InspectReply> inspect_pte_reply(const FileSource& pte, size_t data_files = 0,
                                       const PaddingFinder& padding = {});
Result<InspectReply> inspect_ptd_reply(const FileSource& ptd);

inline const std::vector<std::string> kInspectTables = {"namedData", "segments", "segmentMap"};

}  // namespace etpack
