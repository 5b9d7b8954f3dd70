# ctest `include_layers`: the include graph of src/ runs one way. The build enforces the
# graph too (each layer's headers are reachable only through targets that
# link it); this check names every offending line at once, also for the
# bindings, which only the wasm build compiles.
# Run as: cmake -DSOURCE_DIR=<repo> -P tests/check_layers.cmake
cmake_minimum_required(VERSION 3.20)
#
# Ranks: a file in layer L may include L's own headers and those of lower
# ranks; read and encode share a rank and never include each other.
set(rank_core 0)
set(rank_schema 1)
set(rank_format 2)
set(rank_model 3)
set(rank_plan 4)
set(rank_read 5)
set(rank_encode 5)
set(rank_ops 6)
set(rank_bindings 7)
# flatc's generated headers belong to the schema layer.
set(generated_headers program_generated.h flat_tensor_generated.h scalar_type_generated.h)

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
      elseif(NOT target STREQUAL layer AND NOT rank_${target} LESS rank_${layer})
        list(APPEND problems "src/${rel}:${n}: ${layer}/ may not include \"${inc}\"")
      endif()
      continue()
    endif()
  endforeach()
endforeach()

list(LENGTH files file_count)
if(problems)
  list(JOIN problems "\n" text)
  message(FATAL_ERROR "include_layers: ${text}")
endif()
message(STATUS "include_layers: ${file_count} files, includes one-way")
