// Externalize: move constant tensors of a restored program (constants in
// constant_buffer, as deserialize_pte_binary leaves them) into named data
// under one tag, the way upstream exports a model with external constants.
//
// Keys. The runtime resolves an EXTERNAL tensor by its key and checks the
// .ptd entry's layout against the first tensor of each method that uses the
// key (runtime/executor/method.cpp), so a key must stand for exactly one
// (bytes, scalar type, sizes, dim order):
// - a tensor with extra_tensor_info.fully_qualified_name keeps that name as
//   its key; two tensors with one name but different layouts are refused
//   (kLayoutConflict), with different bytes too (kDuplicateKey);
// - otherwise the key is "constant.<i>" (i = its constant_buffer index) when
//   every constant tensor reading buffer i has one layout, and
//   "constant.<i>.<Type>.<d0>x<d1>..." ("scalar" for rank 0, plus
//   ".order<p0>_<p1>..." when the dim order is not 0, 1, ...) when buffer i
//   backs several layouts (upstream dedups equal bytes, so tensors of
//   different shapes can share one buffer). The name depends only on the
//   input program, never on which tensors are selected.
// Equal bytes under several keys are stored once (the store dedups them).
// Only each tensor's own bytes move (numel x element size, a slice of the
// source: nothing is copied); padding stays behind.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/glob.h"  // glob_match, for --externalize-pattern
#include "core/result.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"
#include "model/tensor_layout.h"

namespace etpack {

struct ExternalizeOptions {
  std::string tag = "model";
  std::vector<std::string> patterns;  // glob ('*', '?') on the key; empty: all
  uint64_t min_bytes = 0;             // smaller tensors stay in the .pte
  uint64_t alignment = 16;            // named-data alignment of moved tensors
};

struct MovedTensor {
  std::string key;
  uint64_t bytes = 0;
  std::vector<std::string> paths;  // e.g. "execution_plan[0].values[3]"
};

// The layout every key of the store was given (nullopt: none), so a key
// reused with another layout is caught: the store itself keeps the first
// layout of a key silently when the bytes are equal.
using KeyLayouts = std::map<std::string, std::optional<TensorLayout>>;

// Adds `key` to `store` after checking `layouts`; records the layout.
// kLayoutConflict when the key already stands for another layout.
Status add_keyed_data(NamedDataStore& store, KeyLayouts& layouts, const std::string& key, const Blob& data,
                      uint64_t alignment, const std::optional<std::string>& tag,
                      const std::optional<TensorLayout>& layout);

// Moves the selected constants of `program` into `store` (tag
// options.tag), marks their tensors EXTERNAL and compacts constant_buffer,
// always keeping entry 0, the placeholder the runtime requires.
// Errors: kMalformedFile (a tensor needs more bytes than its buffer holds),
// kLayoutConflict, kDuplicateKey.
Status externalize_constants(TableValue& program, const ExternalizeOptions& options, NamedDataStore& store,
                             KeyLayouts& layouts, std::vector<MovedTensor>& moved);

}  // namespace etpack
