// SHA-256 (FIPS 180-4), written for this project so that the store can name
// externalized shards exactly as upstream does (hashlib.sha256) without a
// crypto dependency, in native and wasm32 builds alike.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etpack {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256() { reset(); }

  // Feeds `size` more bytes; `data` may be null when `size` is 0. Messages
  // are limited to 2^64 - 1 bits (FIPS 180-4); the length wraps beyond that.
  void update(const uint8_t* data, size_t size);

  // Pads the message and returns its digest. The hasher is then reset, so
  // the same object can hash another message.
  Digest finish();

  void reset();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_{};
  std::array<uint8_t, 64> block_{};
  size_t block_len_ = 0;       // bytes waiting in block_ (always < 64)
  uint64_t message_bytes_ = 0;  // total fed so far, for the length field
};

Sha256::Digest sha256(const uint8_t* data, size_t size);

// Lowercase hex, as Python's hexdigest() writes it.
std::string to_hex(const uint8_t* data, size_t size);
std::string sha256_hex(const uint8_t* data, size_t size);
// The reverse of to_hex (either case); nullopt unless `text` is exactly
// 2 * n hex digits with n <= max_bytes.
std::optional<std::vector<uint8_t>> from_hex(const std::string& text, size_t max_bytes);

}  // namespace etpack
