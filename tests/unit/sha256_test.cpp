#include "core/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace etpack {
namespace {

const uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string hex_of(const std::string& s) { return sha256_hex(bytes_of(s), s.size()); }

// The message of `n` bytes (i*7+3) mod 256: every byte value appears, so the
// big-endian loads see bytes >= 0x80 (the case a careless shift makes UB).
std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((i * 7 + 3) & 0xff);
  return out;
}

// FIPS 180-4 / NIST CAVP examples.
TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(sha256_hex(nullptr, 0),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) {
  EXPECT_EQ(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage448Bits) {
  EXPECT_EQ(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Message896Bits) {
  EXPECT_EQ(hex_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                   "klmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  const std::string million(1000000, 'a');
  EXPECT_EQ(hex_of(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

  // The same message fed 1 byte, then 7, 13, 64, 999, ... at a time, so
  // updates start and end at every offset inside a block.
  Sha256 hasher;
  const size_t steps[] = {1, 7, 13, 64, 999, 63, 65, 4096};
  size_t done = 0, step = 0;
  while (done < million.size()) {
    size_t n = std::min(steps[step++ % 8], million.size() - done);
    hasher.update(bytes_of(million) + done, n);
    done += n;
  }
  Sha256::Digest digest = hasher.finish();
  EXPECT_EQ(to_hex(digest.data(), digest.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundary (55 fits the length field in the last
// block, 56 does not); expected values from Python's hashlib.
TEST(Sha256, PaddingBoundaries) {
  const std::pair<size_t, const char*> cases[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
  };
  for (const auto& [n, expected] : cases) {
    std::vector<uint8_t> msg = pattern(n);
    EXPECT_EQ(sha256_hex(msg.data(), msg.size()), expected) << "length " << n;
  }
}

TEST(Sha256, AllByteValues) {
  std::vector<uint8_t> msg;
  for (int r = 0; r < 4; ++r)
    for (int b = 0; b < 256; ++b) msg.push_back(static_cast<uint8_t>(b));
  EXPECT_EQ(sha256_hex(msg.data(), msg.size()),
            "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9");
}

// Every split point of every length up to 200 gives the one-shot digest.
TEST(Sha256, IncrementalSplitsMatchOneShot) {
  for (size_t n = 0; n <= 200; ++n) {
    std::vector<uint8_t> msg = pattern(n);
    const Sha256::Digest whole = sha256(msg.data(), msg.size());
    for (size_t split = 0; split <= n; split += (n < 70 ? 1 : 9)) {
      Sha256 hasher;
      hasher.update(msg.data(), split);
      hasher.update(nullptr, 0);  // an empty update in the middle changes nothing
      hasher.update(msg.data() + split, n - split);
      ASSERT_EQ(hasher.finish(), whole) << "length " << n << " split " << split;
    }
  }
}

TEST(Sha256, FinishResetsForReuse) {
  Sha256 hasher;
  hasher.update(bytes_of("garbage"), 7);
  (void)hasher.finish();
  hasher.update(bytes_of("abc"), 3);
  Sha256::Digest digest = hasher.finish();
  EXPECT_EQ(to_hex(digest.data(), digest.size()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, HexIsLowercase) {
  const uint8_t bytes[] = {0x00, 0x0f, 0xa0, 0xff};
  EXPECT_EQ(to_hex(bytes, 4), "000fa0ff");
  EXPECT_EQ(to_hex(nullptr, 0), "");
}

}  // namespace
}  // namespace etpack
