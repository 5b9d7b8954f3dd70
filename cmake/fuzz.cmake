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

# etpack_fuzz(<name>): etpack_fuzz_<name> from tests/fuzz/fuzz_<name>.cpp,
# linked with libFuzzer's main and the instrumented layers.
function(etpack_fuzz name)
  set(target etpack_fuzz_${name})
  add_executable(${target} tests/fuzz/fuzz_${name}.cpp)
  target_link_libraries(${target} PRIVATE etpack)
  target_include_directories(${target} PRIVATE tests)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer ${ETPACK_FUZZ_FLAGS} ${ETPACK_WARNINGS})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
endfunction()

# One target per operation family over .pte/.ptd inputs (issue 42: each
# runs only its own operations, so each input costs less): read and validate,
# inspect and graph, write and repack. Run alone,
#   build/fuzz/etpack_fuzz_read -max_total_time=30 -max_len=4096 build/fuzz/seeds/artifacts
# safetensors reader/writer and the weights matcher (issue 28), the .bpte
# reader (issue 27):
#   build/fuzz/etpack_fuzz_safetensors -max_total_time=30 ; build/fuzz/etpack_fuzz_weights -max_total_time=30
#   build/fuzz/etpack_fuzz_bundled -max_total_time=30 ../shared/conformance-bpte/*/out.bpte
# The ETDump reader and profile join (issue 31):
#   build/fuzz/etpack_fuzz_etdump -max_total_time=30 build/fuzz/seeds/etdump
# The delegate payload decoders (issue 39):
#   build/fuzz/etpack_fuzz_delegate -max_total_time=30 build/fuzz/seeds/delegate
foreach(name read inspect repack safetensors weights bundled etdump delegate)
  etpack_fuzz(${name})
endforeach()
