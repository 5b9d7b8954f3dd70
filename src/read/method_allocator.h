// What load_method takes from the method allocator: the exact minimum bytes
// of a 64-byte-aligned pool, by replaying the runtime's request sequence
// (runtime/executor/method.cpp, tensor_parser*.cpp) from the file alone.
// Backends' own init() requests are not included (a stub backend asks for
// nothing).
//
// Data files: when load_method is given an external data map (Module with
// one or more .ptd files) and the .pte has a named_data table (Program::load
// then makes its own data map; upstream's serializer writes the table, empty
// or not), Method::init puts a MergedDataMap of the two in the method
// allocator right after the delegates (method.cpp; 24 bytes on 64-bit, 12
// on arm32). Several .ptd files are merged by Module on the heap first, so
// the figure is the same for one .ptd or many.
//
// The per-request sizes and alignments are one table
// (method_allocator.cpp, kRules), measured against the runtime named by
// kMethodAllocatorRuntime: the next runtime release is a change there.
#pragma once

#include <cstdint>
#include <vector>

#include "core/json.h"
#include "model/fb_value.h"

namespace etpack {

// The runtime the figures are for.
inline constexpr const char* kMethodAllocatorRuntime = "ExecuTorch at cff6f4dd (1.x)";

enum class AllocatorArch : uint8_t { k64Bit, kArm32 };

// Bytes load_method takes from the method allocator for `plan` (an
// ExecutionPlan table). Without a temp allocator (or with one smaller than
// (TensorMeta + 16 dim-order bytes) per kernel-call argument: 40 bytes on
// 64-bit, 28 on arm32) the runtime also places a fallback allocator and each
// kernel call's tensor metadata in the method allocator. Saturates
// at UINT64_MAX for counts no real file has.
// `data_map`: load_method is given an external data map (see above; the
// caller decides with method_allocator_merges_data_map).
uint64_t method_allocator_bytes(const TableValue& plan, AllocatorArch arch, bool with_temp_allocator,
                                bool data_map = false);

// The four figures of one method ([arch][0: with, 1: without a temp
// allocator]) from one walk over it.
struct MethodAllocatorFigures {
  uint64_t bytes[2][2] = {{0, 0}, {0, 0}};
  uint64_t get(AllocatorArch arch, bool with_temp_allocator) const {
    return bytes[static_cast<size_t>(arch)][with_temp_allocator ? 0 : 1];
  }
};
MethodAllocatorFigures method_allocator_figures(const TableValue& plan, bool data_map = false);

// Whether load_method with `data_files` > 0 .ptd files puts a MergedDataMap
// in the method allocator: the program (the decoded Program table) has a
// named_data table.
bool method_allocator_merges_data_map(const TableValue& program, size_t data_files);

// {"64-bit": {"withTempAllocator", "withoutTempAllocator"}, "arm32": {...},
//  "runtime": kMethodAllocatorRuntime (unless !with_runtime)}
Json method_allocator_json(const MethodAllocatorFigures& figures, bool with_runtime = true);

// Every method loaded into one pool, one after the other in file order:
// each method's first request aligns to 8 (the values array, or the
// fallback allocator), and no request aligns to more, so a method starting
// at an 8-aligned cursor costs what it costs from a 64-aligned base; the
// pool needs each figure but the last rounded up to 8, summed. (Another
// order needs at most 7 bytes more per method.)
MethodAllocatorFigures method_allocator_total(const std::vector<MethodAllocatorFigures>& methods);

}  // namespace etpack
