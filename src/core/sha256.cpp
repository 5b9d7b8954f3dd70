#include "core/sha256.h"

#include <cstring>

namespace etpack {
namespace {

// First 32 bits of the fractional parts of the cube roots of the first 64
// primes (FIPS 180-4 section 4.2.2).
constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// First 32 bits of the fractional parts of the square roots of the first 8
// primes (section 5.3.3).
constexpr uint32_t kInitial[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// Every caller passes 0 < n < 32, so neither shift reaches the type width.
inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32u - n)); }

// Each byte is widened to uint32_t before shifting: shifting the promoted
// `int` left by 24 would overflow it (UB) for bytes >= 0x80.
inline uint32_t load_be32(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | static_cast<uint32_t>(p[3]);
}

inline void store_be32(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

}  // namespace

void Sha256::reset() {
  for (size_t i = 0; i < 8; ++i) state_[i] = kInitial[i];
  block_len_ = 0;
  message_bytes_ = 0;
}

void Sha256::compress(const uint8_t* block) {
  uint32_t w[64];
  for (size_t t = 0; t < 16; ++t) w[t] = load_be32(block + 4 * t);
  for (size_t t = 16; t < 64; ++t) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;  // unsigned: wraps mod 2^32 by definition
  }

  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (size_t t = 0; t < 64; ++t) {
    uint32_t big_s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + big_s1 + ch + kRound[t] + w[t];
    uint32_t big_s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = big_s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(const uint8_t* data, size_t size) {
  // memcpy with a null pointer is UB even for 0 bytes; callers may pass an
  // empty Blob, whose data() is null.
  if (size == 0) return;
  message_bytes_ += static_cast<uint64_t>(size);

  if (block_len_ > 0) {
    size_t take = 64 - block_len_;
    if (take > size) take = size;
    std::memcpy(block_.data() + block_len_, data, take);
    block_len_ += take;
    data += take;
    size -= take;
    if (block_len_ < 64) return;
    compress(block_.data());
    block_len_ = 0;
  }
  // Whole blocks straight from the caller's memory: large weights are hashed
  // without an intermediate copy.
  while (size >= 64) {
    compress(data);
    data += 64;
    size -= 64;
  }
  if (size > 0) {
    std::memcpy(block_.data(), data, size);
    block_len_ = size;
  }
}

Sha256::Digest Sha256::finish() {
  // The length field counts bits; the multiplication wraps mod 2^64 on
  // purpose (FIPS 180-4 caps messages below 2^64 bits).
  const uint64_t message_bits = message_bytes_ * 8u;

  block_[block_len_++] = 0x80;
  if (block_len_ > 56) {
    std::memset(block_.data() + block_len_, 0, 64 - block_len_);
    compress(block_.data());
    block_len_ = 0;
  }
  std::memset(block_.data() + block_len_, 0, 56 - block_len_);
  for (size_t i = 0; i < 8; ++i) {
    block_[56 + i] = static_cast<uint8_t>(message_bits >> (56 - 8 * i));
  }
  compress(block_.data());

  Digest digest{};
  for (size_t i = 0; i < 8; ++i) store_be32(state_[i], digest.data() + 4 * i);
  reset();
  return digest;
}

Sha256::Digest sha256(const uint8_t* data, size_t size) {
  Sha256 hasher;
  hasher.update(data, size);
  return hasher.finish();
}

std::string to_hex(const uint8_t* data, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.resize(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0x0f];
  }
  return out;
}

std::optional<std::vector<uint8_t>> from_hex(const std::string& text, size_t max_bytes) {
  if (text.size() % 2 != 0 || text.size() / 2 > max_bytes) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<uint8_t> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

std::string sha256_hex(const uint8_t* data, size_t size) {
  Sha256::Digest digest = sha256(data, size);
  return to_hex(digest.data(), digest.size());
}

}  // namespace etpack
