// Glob patterns over names: '*' matches any run (also empty), '?' one
// character (one UTF-8 code point), everything else itself. No escapes.
#pragma once

#include <string_view>

namespace etpack {

// Whether `pattern` matches all of `text`. Greedy over the '*'-separated
// pieces, never backtracking: each piece is placed at its leftmost match
// after the previous one, which is correct for '*' and '?' and costs at most
// O(|pattern| x |text|), so `*a*a*a*a*b` against 30,000 characters is
// microseconds (a backtracking matcher or regex takes minutes).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace etpack
