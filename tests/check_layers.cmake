# ctest `include_layers`: the include graph of src/ runs one way, and the
# file-kind magic literals live only in src/format/. The build enforces the
# graph too (each layer's headers are reachable only through targets that
# link it); this check names every offending line at once, also for the
# bindings, which only the wasm build compiles.
# Run as: cmake -DSOURCE_DIR=<repo> -P tests/check_layers.cmake
cmake_minimum_required(VERSION 3.20)
#
# Ranks: a file in layer L may include L's own headers and those of lower
# ranks; layers that share a rank (read and encode; validate and inspect)
# never include each other.
set(rank_core 0)
set(rank_schema 1)
set(rank_format 2)
set(rank_model 3)
set(rank_plan 4)
set(rank_read 5)
set(rank_encode 5)
set(rank_validate 6)
set(rank_inspect 6)
set(rank_ops 7)
set(rank_bindings 8)
# Lower layers a layer may still never include: the judge (validate) and the
# views (inspect) read files, they never write them.
set(never_validate encode)
set(never_inspect encode)
# The layers a layer may include, when not every lower one: the bindings
# reach the readers, writers, judge and views only through ops/ (one op per
# call the JS makes), and need nothing of schema/ or plan/.
set(only_bindings bindings core model format ops)
# flatc's generated headers belong to the schema layer.
set(generated_headers program_generated.h flat_tensor_generated.h scalar_type_generated.h
  bundled_program_generated.h schema_enums.h)

# The identifiers and header magics of format/file_kinds.def, read from it.
file(STRINGS "${SOURCE_DIR}/src/format/file_kinds.def" rows REGEX "^FILE_KIND\\(")
set(magics "")
foreach(row IN LISTS rows)
  string(REGEX MATCHALL "\"[^\"]*\"" quoted "${row}")
  list(GET quoted 2 identifier)
  list(GET quoted 3 header_magic)
  string(REPLACE "\"" "" identifier "${identifier}")
  string(REPLACE "\"" "" header_magic "${header_magic}")
  list(APPEND magics "${identifier}")
  if(NOT header_magic STREQUAL "")  # kinds without an extended header (.bpte, .etdp)
    list(APPEND magics "${header_magic}")
  endif()
endforeach()
list(LENGTH magics magic_count)
if(magic_count LESS 3)
  message(FATAL_ERROR "format/file_kinds.def: expected FILE_KIND rows, found ${magic_count} magics")
endif()

set(problems "")
file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}/src" "${SOURCE_DIR}/src/*.h" "${SOURCE_DIR}/src/*.cpp")
foreach(rel IN LISTS files)
  string(REGEX MATCH "^[^/]+" layer "${rel}")
  if(NOT DEFINED rank_${layer})
    list(APPEND problems "src/${rel}: src/${layer}/ is not a layer")
    continue()
  endif()
  # One list element per line: `;` and brackets (list syntax) masked first.
  file(READ "${SOURCE_DIR}/src/${rel}" content)
  string(REPLACE ";" "<semicolon>" content "${content}")
  string(REPLACE "[" "<lbracket>" content "${content}")
  string(REPLACE "]" "<rbracket>" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\"")
      set(inc "${CMAKE_MATCH_1}")
      if(inc MATCHES "^flatbuffers/")
        continue()  # the flatbuffers library's own headers
      elseif(inc MATCHES "^([^/]+)/")
        set(target "${CMAKE_MATCH_1}")
      elseif(inc IN_LIST generated_headers)
        set(target schema)
      else()
        list(APPEND problems "src/${rel}:${n}: \"${inc}\" names no layer")
        continue()
      endif()
      if(NOT DEFINED rank_${target})
        list(APPEND problems "src/${rel}:${n}: \"${inc}\" is outside src/'s layers")
      elseif(DEFINED never_${layer} AND target IN_LIST never_${layer})
        list(APPEND problems "src/${rel}:${n}: ${layer}/ may never include \"${inc}\"")
      elseif(DEFINED only_${layer} AND NOT target IN_LIST only_${layer})
        list(JOIN only_${layer} ", " allowed)
        list(APPEND problems "src/${rel}:${n}: ${layer}/ may include only ${allowed}, not \"${inc}\"")
      elseif(NOT target STREQUAL layer AND NOT rank_${target} LESS rank_${layer})
        list(APPEND problems "src/${rel}:${n}: ${layer}/ may not include \"${inc}\"")
      endif()
      continue()
    endif()
    if(layer STREQUAL "format")
      continue()
    endif()
    # Code only: what precedes a // comment (prose may name the formats).
    string(REGEX REPLACE "//.*$" "" code "${line}")
    foreach(magic IN LISTS magics)
      if(code MATCHES "\"[^\"]*${magic}")
        list(APPEND problems "src/${rel}:${n}: literal ${magic} outside src/format/ (use format/file_kinds.h)")
      endif()
    endforeach()
  endforeach()
endforeach()

list(LENGTH files file_count)
if(problems)
  list(JOIN problems "\n" text)
  message(FATAL_ERROR "include_layers: ${text}")
endif()
message(STATUS "include_layers: ${file_count} files, includes one-way, magics only in src/format/")
