# libFuzzer targets (clang only), built with ASan + UBSan. Included by
# CMakeLists.txt when -DETPACK_FUZZ=ON:
#   CXX=clang++ cmake -S . -B build/fuzz -DETPACK_FUZZ=ON -DETPACK_BUILD_TESTS=OFF
# scripts/fuzz.sh builds and runs them with a seed corpus.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "ETPACK_FUZZ needs clang (libFuzzer); configure with CXX=clang++")
endif()

set(ETPACK_FUZZ_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
# The layer libraries are instrumented for coverage but not linked with libFuzzer's main.
foreach(layer IN LISTS ETPACK_LAYER_TARGETS)
  target_compile_options(${layer} PRIVATE -fsanitize=fuzzer-no-link ${ETPACK_FUZZ_FLAGS})
endforeach()

# One target per operation family over .pte/.ptd inputs (issue 42: each
# runs only its own operations, so each input costs less): read and validate,
# inspect and graph, write and repack. Run alone,
#   build/fuzz/etpack_fuzz_read -max_total_time=30 -max_len=4096 build/fuzz/seeds/artifacts
foreach(target etpack_fuzz_read etpack_fuzz_inspect etpack_fuzz_repack)
  string(REPLACE "etpack_" "" source "${target}")
  add_executable(${target} tests/fuzz/${source}.cpp)
  target_link_libraries(${target} PRIVATE etpack)
  target_include_directories(${target} PRIVATE tests)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer ${ETPACK_FUZZ_FLAGS} ${ETPACK_WARNINGS})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
endforeach()

# safetensors reader/writer and the weights matcher (issue 28), the .bpte
# reader (issue 27): run alone,
#   build/fuzz/etpack_fuzz_safetensors -max_total_time=30 ; build/fuzz/etpack_fuzz_weights -max_total_time=30
#   build/fuzz/etpack_fuzz_bundled -max_total_time=30 ../shared/conformance-bpte/*/out.bpte
foreach(target etpack_fuzz_safetensors etpack_fuzz_weights etpack_fuzz_bundled)
  string(REPLACE "etpack_" "" source "${target}")
  add_executable(${target} tests/fuzz/${source}.cpp)
  target_link_libraries(${target} PRIVATE etpack)
  target_include_directories(${target} PRIVATE tests)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer ${ETPACK_FUZZ_FLAGS} ${ETPACK_WARNINGS})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
endforeach()

# The ETDump reader and profile join (issue 31): run alone,
#   build/fuzz/etpack_fuzz_etdump -max_total_time=30 build/fuzz/seeds/etdump
add_executable(etpack_fuzz_etdump tests/fuzz/fuzz_etdump.cpp)
target_link_libraries(etpack_fuzz_etdump PRIVATE etpack)
target_include_directories(etpack_fuzz_etdump PRIVATE tests)
target_compile_options(etpack_fuzz_etdump PRIVATE -fsanitize=fuzzer ${ETPACK_FUZZ_FLAGS} ${ETPACK_WARNINGS})
target_link_options(etpack_fuzz_etdump PRIVATE -fsanitize=fuzzer,address,undefined)

# The delegate payload decoders (issue 39): run alone,
#   build/fuzz/etpack_fuzz_delegate -max_total_time=30 build/fuzz/seeds/delegate
add_executable(etpack_fuzz_delegate tests/fuzz/fuzz_delegate.cpp)
target_link_libraries(etpack_fuzz_delegate PRIVATE etpack)
target_include_directories(etpack_fuzz_delegate PRIVATE tests)
target_compile_options(etpack_fuzz_delegate PRIVATE -fsanitize=fuzzer ${ETPACK_FUZZ_FLAGS} ${ETPACK_WARNINGS})
target_link_options(etpack_fuzz_delegate PRIVATE -fsanitize=fuzzer,address,undefined)
