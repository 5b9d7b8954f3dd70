// UTF-8 text as a JavaScript string would hold it: the bytes a WHATWG
// TextDecoder (the JS glue's) would make of a string, and its length in
// UTF-16 code units, so the core can tell JS where each of many strings
// joined into one ends.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace etpack {

// Appends `bytes` to `out` as the WHATWG Encoding Standard's UTF-8 decoder
// reads them: valid sequences as they are, each maximal invalid subpart as
// U+FFFD (EF BF BD). Returns the UTF-16 code units of what was appended.
// Strings sanitized one by one and then joined decode to the same code
// points as each decoded alone (a truncated sequence at the end of one
// cannot combine with the next).
size_t append_decoded_utf8(std::string_view bytes, std::string& out);

// The byte length of the first `units` UTF-16 code units of valid UTF-8
// `text` (as append_decoded_utf8 writes it); stops at the end of `text`.
size_t utf8_bytes_of_units(std::string_view text, size_t units);

// The length (1 to 4) of the strict UTF-8 sequence (no overlongs, no
// surrogates, at most U+10FFFF) that starts at text[i], or 0 when the bytes
// there are not one (i < text.size()).
size_t utf8_sequence_length(std::string_view text, size_t i);

}  // namespace etpack
