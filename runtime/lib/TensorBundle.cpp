//===- TensorBundle.cpp - Named tensors in one file -------------------------===//
//
// Reader and writer of the bundle format described in TensorBundle.h.
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/TensorBundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <unistd.h>

namespace ckpt::rt {

namespace {

/// Host byte order check: tensor data is stored raw, so only little-endian
/// hosts read and write it unchanged.
bool hostIsLittleEndian() {
  const uint16_t probe = 1;
  unsigned char first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

/// Sequential reader over a byte buffer that reports where it failed.
class Reader {
public:
  Reader(const uint8_t *bytes, size_t size, const std::string &what)
      : bytes(bytes), size(size), what(what) {}

  [[noreturn]] void fail(const std::string &message, size_t at) const {
    throw std::runtime_error(what + ": malformed tensor bundle at byte " +
                             std::to_string(at) + ": " + message);
  }
  void need(size_t n, const char *field) const {
    if (size - pos < n)
      fail(std::string("truncated file: ") + field + " needs " +
               std::to_string(n) + " bytes, " + std::to_string(size - pos) +
               " left",
           pos);
  }
  uint64_t readUInt(size_t n, const char *field) {
    need(n, field);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(bytes[pos + i]) << (8 * i);
    pos += n;
    return v;
  }
  const uint8_t *take(size_t n, const char *field) {
    need(n, field);
    const uint8_t *p = bytes + pos;
    pos += n;
    return p;
  }
  size_t offset() const { return pos; }
  size_t remaining() const { return size - pos; }

private:
  const uint8_t *bytes;
  size_t size;
  size_t pos = 0;
  const std::string &what;
};

void putUInt(std::vector<uint8_t> &out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

/// numel of `shape`, or -1 if a dimension is negative or the byte size would
/// not fit in 62 bits.
int64_t checkedNumel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d != 0 && n > (int64_t(1) << 62) / 8 / d)
      return -1;
    n *= d;
  }
  return n;
}

} // namespace

int64_t NamedTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Tensor NamedTensor::view() {
  if (shape.size() > static_cast<size_t>(kMaxRank))
    throw std::runtime_error("tensor '" + name + "' has rank " +
                             std::to_string(shape.size()) + " > " +
                             std::to_string(kMaxRank));
  Tensor t;
  t.data = data.empty() ? nullptr : data.data();
  t.dtype = dtype;
  t.rank = static_cast<int>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    t.shape[i] = shape[i];
  return t;
}

std::vector<NamedTensor> parseTensorBundle(const uint8_t *bytes, size_t size,
                                           const std::string &what) {
  if (!hostIsLittleEndian())
    throw std::runtime_error(what + ": tensor bundles need a little-endian host");
  Reader r(bytes, size, what);
  const uint8_t *magic = r.take(8, "magic");
  if (std::memcmp(magic, kTensorBundleMagic, 8) != 0)
    r.fail("bad magic (expected \"CKPTB001\")", 0);
  size_t countAt = r.offset();
  uint64_t count = r.readUInt(8, "tensor count");
  // Every tensor takes at least 4 + 1 + 1 bytes: a count beyond that is
  // malformed (and must not drive a huge reserve).
  if (count > r.remaining() / 6)
    r.fail("tensor count " + std::to_string(count) +
               " exceeds what the file can hold",
           countAt);
  std::vector<NamedTensor> tensors;
  tensors.reserve(count);
  for (uint64_t t = 0; t < count; ++t) {
    NamedTensor nt;
    uint64_t nameLen = r.readUInt(4, "name length");
    const uint8_t *name = r.take(nameLen, "name");
    nt.name.assign(reinterpret_cast<const char *>(name), nameLen);
    if (nt.name.find('\0') != std::string::npos)
      r.fail("tensor name contains a NUL byte", r.offset() - nameLen);
    size_t dtypeAt = r.offset();
    uint64_t code = r.readUInt(1, "dtype");
    if (code > static_cast<uint64_t>(DType::I64))
      r.fail("unknown dtype code " + std::to_string(code) + " for tensor '" +
                 nt.name + "'",
             dtypeAt);
    nt.dtype = static_cast<DType>(code);
    size_t rankAt = r.offset();
    uint64_t rank = r.readUInt(1, "rank");
    if (rank > static_cast<uint64_t>(kMaxRank))
      r.fail("rank " + std::to_string(rank) + " of tensor '" + nt.name +
                 "' exceeds " + std::to_string(kMaxRank),
             rankAt);
    for (uint64_t i = 0; i < rank; ++i) {
      size_t dimAt = r.offset();
      int64_t d = static_cast<int64_t>(r.readUInt(8, "dimension"));
      if (d < 0)
        r.fail("negative dimension " + std::to_string(d) + " in tensor '" +
                   nt.name + "'",
               dimAt);
      nt.shape.push_back(d);
    }
    int64_t n = checkedNumel(nt.shape);
    if (n < 0)
      r.fail("tensor '" + nt.name + "' is too large", rankAt);
    size_t dataBytes = static_cast<size_t>(n) * elementBytes(nt.dtype);
    const uint8_t *data = r.take(dataBytes, "tensor data");
    nt.data.assign(data, data + dataBytes);
    tensors.push_back(std::move(nt));
  }
  if (r.remaining() != 0)
    r.fail(std::to_string(r.remaining()) + " trailing bytes after the last tensor",
           r.offset());
  return tensors;
}

std::vector<NamedTensor> readTensorBundle(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot open tensor bundle: " +
                             std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    throw std::runtime_error(path + ": read error");
  return parseTensorBundle(bytes.data(), bytes.size(), path);
}

std::vector<uint8_t>
serializeTensorBundle(const std::vector<NamedTensor> &tensors) {
  if (!hostIsLittleEndian())
    throw std::runtime_error("tensor bundles need a little-endian host");
  std::vector<uint8_t> out(kTensorBundleMagic, kTensorBundleMagic + 8);
  putUInt(out, tensors.size(), 8);
  for (const NamedTensor &t : tensors) {
    if (t.shape.size() > static_cast<size_t>(kMaxRank))
      throw std::runtime_error("tensor '" + t.name + "' has rank " +
                               std::to_string(t.shape.size()) + " > " +
                               std::to_string(kMaxRank));
    if (t.name.size() > UINT32_MAX)
      throw std::runtime_error("tensor name too long");
    if (static_cast<int>(t.dtype) > static_cast<int>(DType::I64))
      throw std::runtime_error("tensor '" + t.name + "' has an invalid dtype");
    int64_t n = checkedNumel(t.shape);
    if (n < 0 ||
        static_cast<size_t>(n) * elementBytes(t.dtype) != t.data.size())
      throw std::runtime_error(
          "tensor '" + t.name + "' holds " + std::to_string(t.data.size()) +
          " bytes, its shape and dtype need " +
          (n < 0 ? std::string("an invalid size")
                 : std::to_string(static_cast<size_t>(n) *
                                  elementBytes(t.dtype))));
    putUInt(out, t.name.size(), 4);
    out.insert(out.end(), t.name.begin(), t.name.end());
    putUInt(out, static_cast<uint8_t>(t.dtype), 1);
    putUInt(out, t.shape.size(), 1);
    for (int64_t d : t.shape)
      putUInt(out, static_cast<uint64_t>(d), 8);
    out.insert(out.end(), t.data.begin(), t.data.end());
  }
  return out;
}

void writeTensorBundle(const std::string &path,
                       const std::vector<NamedTensor> &tensors) {
  std::vector<uint8_t> bytes = serializeTensorBundle(tensors);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fflush(f) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    int err = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(tmp + ": write error: " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename " + tmp + " over it: " +
                             std::strerror(err));
  }
}

} // namespace ckpt::rt
