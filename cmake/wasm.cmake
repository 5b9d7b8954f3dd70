# The npm package's module: the core plus the embind layer, as an ES module
# factory and a .wasm file written into npm/dist/. See ../shared/TOOLCHAIN.md.
file(GLOB ETPACK_BINDING_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/bindings/*.cpp")
# The validate-only module's C ABI goes into its own link (below), not this one.
list(REMOVE_ITEM ETPACK_BINDING_SOURCES "${CMAKE_CURRENT_SOURCE_DIR}/src/bindings/validate_c_api.cpp")
# Size (issue 42): -O3 everywhere made a 1.89 MB .wasm, -Oz everywhere made
# P1 metadata 2.3-4.7x slower. So -Oz only for the files no P1 operation
# (serialize, deserialize, validate, inspect) spends time in, as a CPU profile
# of each names its functions: delegate payloads, ETDump, bundles,
# safetensors, .ptd files, graph, profile, repack, weights, diff, extract and
# their bindings. Under LTO each function keeps its own attributes, so cold
# code is not grown by inlining. Less code also starts faster: Node compiles
# a wasm function the first time it runs.
# Also -Oz: the orchestration of validate and inspect (validate.cpp,
# validate_pte_file.cpp, names, segments, all of inspect/), the .pte layout
# and shared-name checks, the header and file-kind tables. P1 spends its
# time in the decoder, the per-value and per-instruction rules
# (validate_program, validate_method_load, validate_external, runtime_rules,
# validate_method_indices: -Oz there made validate 1.11x slower), the
# schema's field lookup (TableDef::find in schema.cpp: -Oz made validate
# 1.7x slower with the string compares no longer inlined) and the flatbuffer
# verifier (verify.cpp), which stay -O3. -Os for every -O3 file instead:
# 809 KB but P1 2.7-5.4x slower. The bindings that call read ops
# (read_api.cpp, api.cpp) are -Oz too: each runs once per call and hands the
# work to -O3 functions (ReplyWriter, the decoder, the value stream), and
# so is read/pte_reader.cpp (the .pte's header and decode orchestration).
# In the -O3 validate files, findings' messages and the checks run once per
# file are ETPACK_COLD (core/cold_code.h: minsize and noinline per function),
# so only the per-value and per-instruction loops are -O3 code (P1 validate
# within 1-2%). -Oz too: the schema tables' reader (schema/schema_load.cpp,
# once per schema) and the .ptd and .bpte verifiers (verify_files.cpp); the
# Program verifier (verify.cpp) stays -O3; and the named data store
# (model/named_data_store.cpp: per entry of named data, none in P1). And
# what a serialize or deserialize call runs once around the encoder and the
# decoder: ops/serialize_for_executorch, program_for_pte, deserialize,
# encode/pte_writer (header and segment layout), plan/segment_layout,
# core/error (1,003,679 -> 978,333 bytes once the stream encoder came in;
# P1 serialize 1.90x / 1.89x JSON before, deserialize 1.76x / 1.71x: within
# noise). Not json_indent nor text_out: graph's JSON of a large program goes
# through them byte by byte (tens of MiB), and the graph builder's -Oz files
# call them for every piece.
set(ETPACK_SOURCE "${CMAKE_CURRENT_SOURCE_DIR}/src")
file(GLOB ETPACK_COLD_SOURCES CONFIGURE_DEPENDS
  "${ETPACK_SOURCE}/read/delegate/*.cpp" "${ETPACK_SOURCE}/read/etdump_*.cpp" "${ETPACK_SOURCE}/read/bundled_*.cpp"
  "${ETPACK_SOURCE}/read/safetensors_*.cpp" "${ETPACK_SOURCE}/read/requirements.cpp" "${ETPACK_SOURCE}/read/ptd_*.cpp"
  "${ETPACK_SOURCE}/read/strict_json_reader.cpp"
  "${ETPACK_SOURCE}/encode/bundled_*.cpp" "${ETPACK_SOURCE}/encode/safetensors_*.cpp" "${ETPACK_SOURCE}/encode/externalize*.cpp"
  "${ETPACK_SOURCE}/encode/ptd_writer.cpp"
  "${ETPACK_SOURCE}/validate/bundled_*.cpp" "${ETPACK_SOURCE}/validate/validate_ptd.cpp" "${ETPACK_SOURCE}/validate/validate_delegates.cpp"
  "${ETPACK_SOURCE}/inspect/program_graph*.cpp" "${ETPACK_SOURCE}/inspect/delegate_graph.cpp" "${ETPACK_SOURCE}/inspect/inspect_ptd.cpp"
  "${ETPACK_SOURCE}/ops/bundled_*.cpp" "${ETPACK_SOURCE}/ops/decode_delegate.cpp" "${ETPACK_SOURCE}/ops/delegate_keys_guard.cpp"
  "${ETPACK_SOURCE}/ops/diff_*.cpp" "${ETPACK_SOURCE}/ops/etdump.cpp" "${ETPACK_SOURCE}/ops/extract.cpp" "${ETPACK_SOURCE}/ops/graph*.cpp"
  "${ETPACK_SOURCE}/ops/kind_bpte.cpp" "${ETPACK_SOURCE}/ops/kind_etdp.cpp" "${ETPACK_SOURCE}/ops/kind_ptd.cpp"
  "${ETPACK_SOURCE}/ops/profile*.cpp" "${ETPACK_SOURCE}/ops/repack*.cpp" "${ETPACK_SOURCE}/ops/weights_*.cpp"
  "${ETPACK_SOURCE}/core/sha256.cpp" "${ETPACK_SOURCE}/core/glob.cpp" "${ETPACK_SOURCE}/core/content_index.cpp"
  "${ETPACK_SOURCE}/bindings/bundled_api.cpp" "${ETPACK_SOURCE}/bindings/delegate_api.cpp" "${ETPACK_SOURCE}/bindings/etdump_api.cpp"
  "${ETPACK_SOURCE}/bindings/graph_api.cpp" "${ETPACK_SOURCE}/bindings/weights_api.cpp" "${ETPACK_SOURCE}/bindings/host_call.cpp"
  "${ETPACK_SOURCE}/bindings/request_weights.cpp" "${ETPACK_SOURCE}/bindings/store_api.cpp" "${ETPACK_SOURCE}/bindings/repack_api.cpp"
  "${ETPACK_SOURCE}/bindings/read_api.cpp" "${ETPACK_SOURCE}/bindings/api.cpp"
  "${ETPACK_SOURCE}/validate/validate.cpp" "${ETPACK_SOURCE}/validate/validate_pte_file.cpp" "${ETPACK_SOURCE}/validate/validate_names.cpp"
  "${ETPACK_SOURCE}/validate/validate_segments.cpp" "${ETPACK_SOURCE}/inspect/*.cpp"
  "${ETPACK_SOURCE}/format/*.cpp" "${ETPACK_SOURCE}/read/file_layout.cpp" "${ETPACK_SOURCE}/read/shared_names.cpp"
  "${ETPACK_SOURCE}/read/validate_header_sizes.cpp" "${ETPACK_SOURCE}/read/verified_decode.cpp" "${ETPACK_SOURCE}/read/pte_reader.cpp"
  "${ETPACK_SOURCE}/ops/kind_pte.cpp" "${ETPACK_SOURCE}/ops/file_kind_ops.cpp" "${ETPACK_SOURCE}/ops/inspect.cpp" "${ETPACK_SOURCE}/ops/validate.cpp"
  "${ETPACK_SOURCE}/schema/schema_load.cpp" "${ETPACK_SOURCE}/schema/verify_files.cpp" "${ETPACK_SOURCE}/model/named_data_store.cpp"
  "${ETPACK_SOURCE}/ops/serialize_for_executorch.cpp" "${ETPACK_SOURCE}/ops/program_for_pte.cpp" "${ETPACK_SOURCE}/ops/deserialize.cpp"
  "${ETPACK_SOURCE}/encode/pte_writer.cpp" "${ETPACK_SOURCE}/plan/segment_layout.cpp" "${ETPACK_SOURCE}/core/error.cpp"
  "${ETPACK_SOURCE}/bindings/validate_c_api.cpp")
set_source_files_properties(${ETPACK_COLD_SOURCES} PROPERTIES COMPILE_OPTIONS -Oz)
# Link order: every -O3 object before any -Oz one. An inline function or
# template instance (Value's moves, FbBytes::follow, vector<Value>::push_back)
# is compiled into each file that uses it; under LTO the first copy the linker
# sees is kept, attributes included, and an -Oz copy is not inlined into the
# -O3 decoder (P1 validate ~1.1x, inspect ~1.2x slower; d2adcc0's deserialize
# 1.26x). Objects given to the link are read before archive members, so the
# -O3 objects of the layers are given as objects, first; the -Oz ones stay in
# the archives (and the -Oz bindings come last).
set(ETPACK_COLD_BINDINGS ${ETPACK_BINDING_SOURCES})
list(FILTER ETPACK_COLD_BINDINGS INCLUDE REGEX "/(bundled_api|delegate_api|etdump_api|graph_api|weights_api|host_call|request_weights|store_api|repack_api|read_api|api)\\.cpp$")
list(REMOVE_ITEM ETPACK_BINDING_SOURCES ${ETPACK_COLD_BINDINGS})
set(ETPACK_COLD_OBJECTS "")
foreach(source IN LISTS ETPACK_COLD_SOURCES)
  file(RELATIVE_PATH relative "${CMAKE_CURRENT_SOURCE_DIR}" "${source}")
  string(REPLACE "." "\\." relative "${relative}")
  list(APPEND ETPACK_COLD_OBJECTS "${relative}")
endforeach()
list(JOIN ETPACK_COLD_OBJECTS "|" ETPACK_COLD_REGEX)
set(ETPACK_HOT_OBJECTS "")
foreach(layer IN LISTS ETPACK_LAYER_TARGETS)
  list(APPEND ETPACK_HOT_OBJECTS "$<FILTER:$<TARGET_OBJECTS:${layer}>,EXCLUDE,/(${ETPACK_COLD_REGEX})\\.o$>")
endforeach()
# The top layer: nothing links it; its headers are reachable only from here.
etpack_layer_root(bindings ETPACK_BINDINGS_ROOT)
add_library(etpack_bindings_cold OBJECT ${ETPACK_COLD_BINDINGS})
add_executable(etpack_wasm ${ETPACK_BINDING_SOURCES} ${ETPACK_HOT_OBJECTS} $<TARGET_OBJECTS:etpack_bindings_cold>)
foreach(target etpack_wasm etpack_bindings_cold)
  target_link_libraries(${target} PRIVATE etpack)
  target_include_directories(${target} PRIVATE "${ETPACK_BINDINGS_ROOT}")
  target_compile_options(${target} PRIVATE ${ETPACK_WARNINGS} -flto)
endforeach()
# Link-time optimization lets the decoder and validator inline the model's
# small accessors across files: validate and inspect of P1 ~10% faster
# (issue 13), for a .wasm of 891 KB instead of 830 and ~40 s more build.
foreach(layer IN LISTS ETPACK_LAYER_TARGETS)
  target_compile_options(${layer} PRIVATE -flto)
endforeach()
target_link_options(etpack_wasm PRIVATE -flto)
set(ETPACK_NPM_DIST "${CMAKE_CURRENT_SOURCE_DIR}/npm/dist" CACHE PATH "Where the wasm build writes the package's module")
set_target_properties(etpack_wasm PROPERTIES
  OUTPUT_NAME etpack
  SUFFIX ".mjs"
  RUNTIME_OUTPUT_DIRECTORY "${ETPACK_NPM_DIST}")
# Debian's emcc runs its JS optimizer with Node, which must find acorn.
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
set_property(TARGET etpack_wasm PROPERTY CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
target_link_options(etpack_wasm PRIVATE
  --bind
  -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createEtpackModule
  -sENVIRONMENT=web,worker
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sINITIAL_MEMORY=16MB
  -sWASM_BIGINT=1 -sFILESYSTEM=0
  -sEXPORTED_FUNCTIONS=_malloc,_free
  -sEXPORTED_RUNTIME_METHODS=HEAPU8
  -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0
  -sINCOMING_MODULE_JS_API=wasmBinary,locateFile,instantiateWasm,print,printErr)

# The CLI's `validate FILE...` fast path (issue 42, start-up): a second link
# of the same sources (the -O3 ones compiled again at -Oz, below), so its
# verdicts are the same code's, with only bindings/validate_c_api.cpp on top: a plain C
# ABI, no embind and no JS glue (npm/src/cli/validate-fast.mjs instantiates
# it with its one import, etpack_host_read, and the stubs the runtime asks
# for). LTO keeps only what validate reaches. A Node process that compiles
# this instead of etpack.wasm and registers no embind bindings starts
# faster; anything the fast path does not do goes to etpack.wasm.
# emmalloc instead of dlmalloc: less code to compile on the first call and
# no background tier-up of dlmalloc (validate add.pte, interleaved pairs,
# whole process: 1.48-1.51x node -e 0 wall and 1.51-1.53x CPU, against
# 1.51-1.53x and 1.69-1.73x with dlmalloc), for a 9.3 MB program's validate
# ~5% slower (0.89-1.11 s against 0.84-1.04 s).
# The validate-only module's objects are compiled a second time, at -Oz
# (issue 42, start-up): Node compiles a function the first time it runs, and
# validate's first call compiled 308 functions, 178 KB of -O3 bodies
# (inlined checks: check_decoded_pte 29 KB, check_runtime_rules 27 KB),
# 17-28 ms on the main thread. Only the -O3 files are compiled again (the -Oz
# ones' objects in the archives are the same); given as objects, they are
# what the link uses, and the archives supply the rest. The CLI sends files
# above 2 MiB in all to etpack.wasm (validate-fast.mjs), where -O3 pays.
# And binaryen (the link's wasm-opt) inlines only small functions that have
# one caller (--one-caller-inline-max-function-size=100, its own size
# measure; the default inlines every one-caller function, whatever its size
# and clang's noinline): it had folded check_program, check_runtime_rules
# and the segment and layout checks into one 30,831-byte check_decoded_pte,
# whose Liftoff compile alone took 4-41 ms (1.3 MB of compiler memory) on the
# first call. Now the largest function compiled on that call is 3,326 bytes,
# all of them 95 KB instead of 115 KB (a function run on no path is not
# compiled), and the module is 2.6 KB larger: validate add.pte 1.27x
# node -e 0 against 1.45x in the same minutes (interleaved pairs, whole
# process, load ~3.5).
set(ETPACK_VALIDATE_OBJECTS "")
foreach(layer IN LISTS ETPACK_LAYER_TARGETS)
  get_target_property(sources ${layer} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  list(FILTER sources EXCLUDE REGEX "/(${ETPACK_COLD_REGEX})$")
  if(NOT sources)
    continue()  # every file of the layer is -Oz already
  endif()
  add_library(${layer}_oz OBJECT ${sources})
  target_link_libraries(${layer}_oz PRIVATE ${layer})
  target_compile_options(${layer}_oz PRIVATE ${ETPACK_WARNINGS} -flto -Oz)
  list(APPEND ETPACK_VALIDATE_OBJECTS "$<TARGET_OBJECTS:${layer}_oz>")
endforeach()
add_library(etpack_validate_c OBJECT "${ETPACK_SOURCE}/bindings/validate_c_api.cpp")
add_executable(etpack_validate_wasm ${ETPACK_VALIDATE_OBJECTS} $<TARGET_OBJECTS:etpack_validate_c>)
foreach(target etpack_validate_wasm etpack_validate_c)
  target_link_libraries(${target} PRIVATE etpack)
  target_include_directories(${target} PRIVATE "${ETPACK_BINDINGS_ROOT}")
  target_compile_options(${target} PRIVATE ${ETPACK_WARNINGS} -flto)
endforeach()
set_target_properties(etpack_validate_wasm PROPERTIES
  OUTPUT_NAME etpack-validate
  SUFFIX ".wasm"
  RUNTIME_OUTPUT_DIRECTORY "${ETPACK_NPM_DIST}")
set_property(TARGET etpack_validate_wasm APPEND PROPERTY LINK_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/cmake/validate_imports.js")
set_property(TARGET etpack_validate_wasm PROPERTY CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
target_link_options(etpack_validate_wasm PRIVATE
  -Oz -flto --no-entry -sSTANDALONE_WASM=1 "--js-library=${CMAKE_CURRENT_SOURCE_DIR}/cmake/validate_imports.js"
  -sBINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=100
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sINITIAL_MEMORY=16MB
  -sFILESYSTEM=0 -sMALLOC=emmalloc
  -sEXPORTED_FUNCTIONS=_malloc,_free,_etpack_reply_ptr,_etpack_reply_size,_etpack_head_size,_etpack_validate)
