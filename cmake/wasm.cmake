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
