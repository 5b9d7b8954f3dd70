// Reading the compact schema tables that cmake/compact_schema.mjs makes from
// flatc's .bfbs files at build time (issue 42: ~22 KB of wasm data instead
// of ~117 KB). Internal to the schema layer.
#pragma once

#include <cstddef>
#include <memory>

#include "schema/schema.h"

namespace etpack {

// The schema in `size` bytes at `data` (see compact_schema.mjs for the
// layout). The tables are our own build products, so a malformed one is a
// build bug: reading stops at the first bad or out-of-range byte and returns
// an empty Schema, and every use of it fails with a schema error. Reads only
// [data, data + size); counts are bounded by the bytes left.
std::unique_ptr<Schema> load_compact_schema(const unsigned char* data, size_t size);

}  // namespace etpack
