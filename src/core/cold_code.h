// Size (issue 42): cold code inside a file built -O3 for its hot loops.
// Between ETPACK_COLD_BEGIN and ETPACK_COLD_END every function defined is
// optimized for size, as -Oz would, and never inlined into its callers
// (clang's `minsize` and `noinline`; the LTO link keeps each function's own
// attributes): findings' messages, checks run once per file. The region
// pragmas work at namespace scope only; ETPACK_COLD marks one function (a
// member function too) or lambda the same way. ETPACK_OUT_OF_LINE keeps an
// -O3 function that -Oz code calls once out of its caller: LTO would inline
// it (a single call site) and its loops would then be optimized for size
// with the caller. Other compilers ignore all but noinline.
#pragma once

#if defined(__clang__)
#define ETPACK_COLD_BEGIN                                                          \
  _Pragma("clang attribute push(__attribute__((minsize)), apply_to = function)") \
      _Pragma("clang attribute push(__attribute__((noinline)), apply_to = function)")
#define ETPACK_COLD_END _Pragma("clang attribute pop") _Pragma("clang attribute pop")
#define ETPACK_COLD __attribute__((minsize, noinline))
#else
#define ETPACK_COLD_BEGIN
#define ETPACK_COLD_END
#define ETPACK_COLD
#endif
#define ETPACK_OUT_OF_LINE __attribute__((noinline))
