// What load_method takes from the method allocator: the exact minimum bytes
// of a 64-byte-aligned pool, by replaying the runtime's request sequence
// (runtime/executor/method.cpp, tensor_parser*.cpp) from the file alone.
// Backends' own init() requests are not included (a stub backend asks for
// nothing); nor is the MergedDataMap a .pte with named data needs when .ptd
// files are passed (inspect reads the .pte alone).
//
// The per-request sizes and alignments are one table
// (method_allocator.cpp, kRules), measured against the runtime named by
// kMethodAllocatorRuntime: the next runtime release is a change there.
#pragma once

#include <cstdint>

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
uint64_t method_allocator_bytes(const TableValue& plan, AllocatorArch arch, bool with_temp_allocator);

// {"64-bit": {"withTempAllocator", "withoutTempAllocator"}, "arm32": {...},
//  "runtime": kMethodAllocatorRuntime}
Json method_allocator_json(const TableValue& plan);

}  // namespace etpack
