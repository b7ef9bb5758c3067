//===- TensorBundle.h - Named tensors in one file ------------------*- C++ -*-===//
//
// The file format `ckpt-run` and the Python tests exchange tensors in: a
// list of named, typed, shaped tensors with their raw little-endian data.
//
//   offset  field
//   0       magic "CKPTB001" (8 bytes)
//   8       u64 count
//   then per tensor:
//           u32 nameLen, nameLen bytes of UTF-8 name (no NUL)
//           u8 dtype (DType's numeric code: F32=0 F16=1 BF16=2 I1=3 I32=4 I64=5)
//           u8 rank (<= kMaxRank), i64 dims[rank] (each >= 0)
//           numel * elementBytes(dtype) bytes of row-major data
//
// All integers are little-endian. The file ends right after the last
// tensor's data; trailing bytes are an error.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_TENSORBUNDLE_H
#define CKPT_RUNTIME_TENSORBUNDLE_H

#include "ckpt/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::rt {

/// One tensor of a bundle, owning its data (`data.size()` is
/// numel * elementBytes(dtype)).
struct NamedTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  /// Number of elements (1 for rank 0).
  int64_t numel() const;
  /// A runtime `Tensor` viewing `data` (valid while this object lives and
  /// `data` is not resized). Throws std::runtime_error if rank > kMaxRank.
  Tensor view();
};

/// The magic bytes a bundle starts with.
constexpr char kTensorBundleMagic[9] = "CKPTB001";

/// Reads the bundle at `path`. Throws std::runtime_error naming the file and
/// the byte offset on a missing, truncated or malformed file (bad magic, bad
/// dtype code, rank above kMaxRank, negative dimension, trailing bytes).
std::vector<NamedTensor> readTensorBundle(const std::string &path);

/// Parses a bundle held in memory; `what` names it in error messages.
std::vector<NamedTensor> parseTensorBundle(const uint8_t *bytes, size_t size,
                                           const std::string &what);

/// Serializes `tensors` into the bundle format. Throws std::runtime_error if a
/// tensor's data size does not match its shape and dtype, or its rank is
/// above kMaxRank.
std::vector<uint8_t> serializeTensorBundle(const std::vector<NamedTensor> &tensors);

/// Writes `tensors` to `path` atomically: into `path` + ".tmp.<pid>" first,
/// then renamed over `path`. Throws std::runtime_error on failure (and
/// removes the temporary file).
void writeTensorBundle(const std::string &path,
                       const std::vector<NamedTensor> &tensors);

} // namespace ckpt::rt

#endif // CKPT_RUNTIME_TENSORBUNDLE_H
