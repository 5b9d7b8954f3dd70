# Writes a C++ source defining `<SYMBOL>[]` and `<SYMBOL>_size` (C linkage)
# with the bytes of INPUT.
# Run as: cmake -DINPUT=.. -DOUTPUT=.. -DSYMBOL=.. -P embed_file.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\n#include <cstddef>\n"
  "extern \"C\" {\nalignas(16) extern const unsigned char ${SYMBOL}[] = {\n${body}\n};\n"
  "extern const size_t ${SYMBOL}_size = ${size};\n}\n")
