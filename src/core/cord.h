// Cord: an artifact as an ordered list of pieces (owned metadata bytes,
// references to caller-owned data, runs of zero padding), mirroring
// upstream's exir/_serialize/_cord.py. Assembling a Cord never copies weight
// bytes; they are copied only when the caller asks for contiguous output.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/blob.h"
#include "core/result.h"

namespace etpack {

class Cord {
 public:
  struct Piece {
    enum class Kind : uint8_t { kBytes, kZeros };
    Kind kind = Kind::kBytes;
    Blob bytes;          // kBytes: the data (owned metadata or a caller view)
    uint64_t zeros = 0;  // kZeros: how many zero bytes
    uint64_t size() const { return kind == Kind::kZeros ? zeros : bytes.size(); }
  };

  void append(Blob bytes);
  void append_owned(std::vector<uint8_t> bytes) { append(Blob::own(std::move(bytes))); }
  void append_zeros(uint64_t count);
  void append(const Cord& other);

  uint64_t size() const { return size_; }
  const std::vector<Piece>& pieces() const { return pieces_; }

  // True when some piece is an external Blob, whose bytes only the host can
  // copy (see Blob::external).
  bool has_external() const;

  // Writes all bytes to `dst` (which must hold size() bytes): the single copy
  // of each weight byte into a contiguous output. Requires !has_external().
  void copy_to(uint8_t* dst) const;
  // Contiguous bytes; kInvalidArgument when a piece is external.
  Result<std::vector<uint8_t>> to_bytes() const;

  // Copies external pieces through `read` (source, offset, size, dst): how a
  // native host resolves bytes that stayed in files or other buffers.
  using ExternalReader = std::function<Status(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst)>;
  Result<std::vector<uint8_t>> to_bytes(const ExternalReader& read) const;

 private:
  std::vector<Piece> pieces_;
  uint64_t size_ = 0;
};

}  // namespace etpack
