#include "core/cord.h"

#include <cstring>

namespace etpack {

void Cord::append(Blob bytes) {
  if (bytes.empty()) return;
  size_ += bytes.size();
  Piece p;
  p.bytes = std::move(bytes);
  pieces_.push_back(std::move(p));
}

void Cord::append_zeros(uint64_t count) {
  if (count == 0) return;
  size_ += count;
  if (!pieces_.empty() && pieces_.back().kind == Piece::Kind::kZeros) {
    pieces_.back().zeros += count;
    return;
  }
  Piece p;
  p.kind = Piece::Kind::kZeros;
  p.zeros = count;
  pieces_.push_back(std::move(p));
}

void Cord::append(const Cord& other) {
  for (const Piece& p : other.pieces_) {
    if (p.kind == Piece::Kind::kZeros) append_zeros(p.zeros);
    else append(p.bytes);
  }
}

void Cord::copy_to(uint8_t* dst) const {
  for (const Piece& p : pieces_) {
    if (p.kind == Piece::Kind::kZeros) {
      std::memset(dst, 0, p.zeros);
    } else {
      std::memcpy(dst, p.bytes.data(), static_cast<size_t>(p.bytes.size()));  // the one copy into the output
    }
    dst += p.size();
  }
}

Result<std::vector<uint8_t>> Cord::to_bytes(const ExternalReader& read) const {
  std::vector<uint8_t> out(static_cast<size_t>(size_));
  uint8_t* dst = out.data();
  for (const Piece& p : pieces_) {
    if (p.kind == Piece::Kind::kZeros) {
      std::memset(dst, 0, static_cast<size_t>(p.zeros));
    } else if (p.bytes.is_external()) {
      const Blob::External& e = *p.bytes.external_info();
      ETP_TRY(read(e.source, e.offset, p.bytes.size(), dst));
    } else {
      std::memcpy(dst, p.bytes.data(), static_cast<size_t>(p.bytes.size()));  // the one copy into the output
    }
    dst += p.size();
  }
  return out;
}

bool Cord::has_external() const {
  for (const Piece& p : pieces_)
    if (p.kind == Piece::Kind::kBytes && p.bytes.is_external()) return true;
  return false;
}

Result<std::vector<uint8_t>> Cord::to_bytes() const {
  if (has_external())
    return make_error(ErrorCode::kInvalidArgument, "the output refers to external data; only its host can assemble it");
  std::vector<uint8_t> out(static_cast<size_t>(size_));
  copy_to(out.data());
  return out;
}

}  // namespace etpack
