// Crafted hostile and unusual files, built in code (sizes are parameters, so
// big cases are never committed): a flatbuffer DAG, a .ptd with many keys, a
// .pte with many segments, and a .pte holding non-finite and signed-zero
// doubles. Used by tests/unit/hostile_inputs_test.cpp, which also writes the
// small variants to tests/fuzz/regressions (ETPACK_WRITE_HOSTILE_SEEDS=dir),
// where scripts/fuzz.sh takes its seeds from.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "encode/ptd_writer.h"
#include "encode/pte_writer.h"
#include "model/named_data_store.h"
#include "schema/schema.h"
#include "unit/flatbuffer_bytes.h"

namespace etpack::fuzz {

inline std::vector<uint8_t> cord_bytes(const Result<Cord>& cord) {
  if (!cord.ok()) return {};
  auto bytes = cord->to_bytes();
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>();
}

// A Program whose execution_plan holds `plans` offsets to one plan whose
// values hold `values` offsets to one EValue: plans x values tables.
inline std::vector<uint8_t> dag_pte(uint32_t plans, uint32_t values) {
  return testing::program_with_shared_plans(plans, values).bytes;
}

// A .ptd with `keys` named-data keys ("k0", "k1", ...) over one 4-byte buffer.
inline std::vector<uint8_t> many_keys_ptd(uint32_t keys) {
  static const uint8_t kBuffer[] = {1, 2, 3, 4};
  DataPayload payload;
  payload.buffers.push_back(Blob::view(kBuffer, sizeof kBuffer));
  payload.named_data.reserve(keys);
  for (uint32_t i = 0; i < keys; ++i) payload.named_data.emplace_back("k" + std::to_string(i), DataEntry{});
  return cord_bytes(FlatTensorSerializer().serialize(payload));
}

// A .pte with `segments` named-data segments of 72 bytes that agree in their
// first and last 32 bytes (one dedup fingerprint for all), keys "w0", ...
inline std::vector<uint8_t> many_segments_pte(uint32_t segments) {
  std::vector<std::vector<uint8_t>> buffers(segments, std::vector<uint8_t>(72, 7));
  NamedDataStore store;
  for (uint32_t i = 0; i < segments; ++i) {
    for (int b = 0; b < 4; ++b) buffers[i][32 + b] = static_cast<uint8_t>(i >> (8 * b));
    if (!store.add_named_data("w" + std::to_string(i), Blob::view(buffers[i].data(), buffers[i].size())).ok()) return {};
  }
  NamedDataStoreOutput named = store.get_named_data_store_output();
  TableValue program(program_schema().root);
  program.at("execution_plan") = Value::from_items({});
  return cord_bytes(serialize_pte_binary(program, nullptr, &named, PteConfig{}));
}

// Bit patterns every reader must carry unchanged.
inline std::vector<uint64_t> special_double_bits() {
  return {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff80000deadbeefull, 0x7ff0000000000000ull,
          0xfff0000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull};
}

// A .pte whose one plan holds a Double value per special_double_bits()
// pattern, then a DoubleList of all of them.
inline std::vector<uint8_t> special_doubles_pte() {
  const Schema& s = program_schema();
  const TableDef& evalue = *s.find_table("EValue");
  const UnionDef& kinds = *evalue.fields[1].union_def;
  auto wrap = [&](TableValue member) {
    TableValue v(&evalue);
    v.at("val_type") = Value::from_uint(static_cast<uint64_t>(kinds.type_of(member.def->name)));
    v.at("val") = Value::from_table(std::move(member));
    return Value::from_table(std::move(v));
  };
  Value::Items values;
  std::vector<uint8_t> list;
  for (uint64_t bits : special_double_bits()) {
    double d;
    std::memcpy(&d, &bits, 8);
    TableValue dv(s.find_table("Double"));
    dv.at("double_val") = Value::from_double(d);
    values.push_back(wrap(std::move(dv)));
    for (int b = 0; b < 8; ++b) list.push_back(static_cast<uint8_t>(bits >> (8 * b)));
  }
  TableValue dl(s.find_table("DoubleList"));
  dl.at("items") = Value::from_scalars(Blob::own(std::move(list)));
  values.push_back(wrap(std::move(dl)));
  TableValue plan(s.find_table("ExecutionPlan"));
  plan.at("name") = Value::from_string("forward");
  plan.at("values") = Value::from_items(std::move(values));
  for (const char* f : {"inputs", "outputs", "non_const_buffer_sizes"}) plan.at(f) = Value::from_scalars(Blob());
  TableValue program(s.root);
  Value::Items plans;
  plans.push_back(Value::from_table(std::move(plan)));
  program.at("execution_plan") = Value::from_items(std::move(plans));
  return cord_bytes(serialize_pte_binary(program, nullptr, nullptr, PteConfig{}));
}

}  // namespace etpack::fuzz
