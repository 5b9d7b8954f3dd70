# The npm package's module: the core plus the embind layer, as an ES module
# factory and a .wasm file written into npm/dist/. See ../shared/TOOLCHAIN.md.
file(GLOB ETPACK_BINDING_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/bindings/*.cpp")
add_executable(etpack_wasm ${ETPACK_BINDING_SOURCES})
target_link_libraries(etpack_wasm PRIVATE etpack)
# The top layer: nothing links it; its headers are reachable only from here.
etpack_layer_root(bindings ETPACK_BINDINGS_ROOT)
target_include_directories(etpack_wasm PRIVATE "${ETPACK_BINDINGS_ROOT}")
target_compile_options(etpack_wasm PRIVATE ${ETPACK_WARNINGS})
# Link-time optimization lets the decoder and validator inline the model's
# small accessors across files: validate and inspect of P1 ~10% faster
# (issue 13), for a .wasm of 891 KB instead of 830 and ~40 s more build.
foreach(layer IN LISTS ETPACK_LAYER_TARGETS)
  target_compile_options(${layer} PRIVATE -flto)
endforeach()
target_compile_options(etpack_wasm PRIVATE -flto)
target_link_options(etpack_wasm PRIVATE -flto)
# Size (issue 42): -O3 everywhere made a 1.85 MB .wasm, and -Oz everywhere
# made P1 metadata 2.3-4.7x slower. So: -O3 for what carries a program both
# ways (value stream, model, flatbuffer reader and encoder, the program reply,
# the bindings of serialize/deserialize and their marshalling), -Oz for the
# rest (validate, inspect, the other ops, the delegate/ETDump/bundle/
# safetensors readers, the other bindings). Under LTO each function keeps its
# own attribute (minsize), so cold code is not grown by inlining. Less code
# also starts faster: Node compiles a wasm function the first time it runs.
set(ETPACK_COLD_LAYERS etpack_format etpack_validate etpack_inspect etpack_ops)
foreach(layer IN LISTS ETPACK_COLD_LAYERS)
  target_compile_options(${layer} PRIVATE -Oz)
endforeach()
set(ETPACK_SOURCE "${CMAKE_CURRENT_SOURCE_DIR}/src")
set_source_files_properties(
  "${ETPACK_SOURCE}/ops/deserialize.cpp" "${ETPACK_SOURCE}/ops/program_reply.cpp" "${ETPACK_SOURCE}/ops/serialize_for_executorch.cpp"
  PROPERTIES COMPILE_OPTIONS -O3)
file(GLOB ETPACK_COLD_SOURCES CONFIGURE_DEPENDS
  "${ETPACK_SOURCE}/read/delegate/*.cpp" "${ETPACK_SOURCE}/read/etdump_*.cpp" "${ETPACK_SOURCE}/read/bundled_*.cpp"
  "${ETPACK_SOURCE}/read/safetensors_*.cpp" "${ETPACK_SOURCE}/read/requirements.cpp" "${ETPACK_SOURCE}/read/method_allocator.cpp"
  "${ETPACK_SOURCE}/encode/bundled_*.cpp" "${ETPACK_SOURCE}/encode/safetensors_*.cpp" "${ETPACK_SOURCE}/encode/externalize*.cpp"
  "${ETPACK_SOURCE}/bindings/bundled_api.cpp" "${ETPACK_SOURCE}/bindings/delegate_api.cpp" "${ETPACK_SOURCE}/bindings/etdump_api.cpp"
  "${ETPACK_SOURCE}/bindings/graph_api.cpp" "${ETPACK_SOURCE}/bindings/weights_api.cpp" "${ETPACK_SOURCE}/bindings/host_call.cpp")
set_source_files_properties(${ETPACK_COLD_SOURCES} PROPERTIES COMPILE_OPTIONS -Oz)
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
