// schema/schema_load.cpp: the compact schema tables cmake/compact_schema.mjs
// writes at build time. The embedded Program table loads as the Program
// schema; a cut, lengthened or corrupted table loads as an empty Schema (or,
// corrupted, as some schema whose pointers stay inside it), never reading
// past its end (each copy below is exactly its size, for ASan).
#include <gtest/gtest.h>

#include <vector>

#include "schema/schema.h"
#include "schema/schema_load.h"

extern "C" const unsigned char etpack_program_schema[];
extern "C" const size_t etpack_program_schema_size;

namespace etpack {
namespace {

std::vector<unsigned char> program_table() {
  return {etpack_program_schema, etpack_program_schema + etpack_program_schema_size};
}

bool empty(const Schema& s) { return s.tables.empty() && s.unions.empty() && s.root == nullptr; }

TEST(SchemaLoad, ProgramTableIsTheProgramSchema) {
  const std::vector<unsigned char> bytes = program_table();
  auto s = load_compact_schema(bytes.data(), bytes.size());
  ASSERT_NE(s->root, nullptr);
  EXPECT_EQ(s->root->full_name, "executorch_flatbuffer.Program");
  EXPECT_EQ(s->file_identifier, "ET12");
  EXPECT_EQ(s->tables.size(), program_schema().tables.size());
  const TableDef* tensor = s->find_table("Tensor");
  ASSERT_NE(tensor, nullptr);
  ASSERT_NE(tensor->find("sizes"), nullptr);
  EXPECT_EQ(tensor->find("sizes")->type, BaseType::kVector);
  EXPECT_EQ(tensor->find("sizes")->element, BaseType::kInt);
  const FieldDef* storage = s->find_table("Buffer")->find("storage");
  ASSERT_NE(storage, nullptr);
  EXPECT_EQ(storage->force_align, 16u);
}

TEST(SchemaLoad, CutOrLengthenedTableIsEmpty) {
  const std::vector<unsigned char> bytes = program_table();
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_TRUE(empty(*load_compact_schema(cut.data(), cut.size()))) << "cut to " << n << " bytes";
  }
  std::vector<unsigned char> longer = bytes;
  longer.push_back(0);
  EXPECT_TRUE(empty(*load_compact_schema(longer.data(), longer.size())));
}

TEST(SchemaLoad, CorruptByteStaysInBounds) {
  const std::vector<unsigned char> bytes = program_table();
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char b : {0x00, 0x7f, 0xff}) {
      std::vector<unsigned char> bad = bytes;
      bad[i] = b;
      auto s = load_compact_schema(bad.data(), bad.size());
      auto inside = [&](const TableDef* t) { return t >= s->tables.data() && t < s->tables.data() + s->tables.size(); };
      if (s->root != nullptr) {
        EXPECT_TRUE(inside(s->root)) << i;
      }
      for (const TableDef& t : s->tables) {
        for (const FieldDef& f : t.fields) {
          if (f.table != nullptr) {
            EXPECT_TRUE(inside(f.table)) << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace etpack
