//===- Tensor.h - Tensors and attributes of the host runtime -----*- C++ -*-===//
//
// The data types every generated step and every runtime kernel share: a
// dense row-major tensor that points into the arena (or into a buffer the
// caller bound), and the attribute list a kernel call carries. Plain C++17,
// no MLIR: generated programs compile against the runtime alone.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_TENSOR_H
#define CKPT_RUNTIME_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace ckpt::rt {

/// Element types of the ckpt dialect. `I1` is stored as one byte.
enum class DType : uint8_t { F32, F16, BF16, I1, I32, I64 };

/// Bytes per element of `type`.
constexpr size_t elementBytes(DType type) {
  switch (type) {
  case DType::F32: case DType::I32: return 4;
  case DType::F16: case DType::BF16: return 2;
  case DType::I1: return 1;
  case DType::I64: return 8;
  }
  return 0;
}

/// The dialect's spelling of `type` ("f32", "bf16", "i1", ...).
constexpr const char *dtypeName(DType type) {
  switch (type) {
  case DType::F32: return "f32";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I1: return "i1";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  }
  return "?";
}

/// The largest rank a runtime tensor has.
constexpr int kMaxRank = 8;

/// A dense, contiguous, row-major tensor. `data == nullptr` with `rank == -1`
/// marks an absent optional operand.
struct Tensor {
  void *data = nullptr;
  DType dtype = DType::F32;
  int rank = -1;
  int64_t shape[kMaxRank] = {};

  Tensor() = default;
  Tensor(void *data, DType dtype, std::initializer_list<int64_t> dims)
      : data(data), dtype(dtype), rank(static_cast<int>(dims.size())) {
    int i = 0;
    for (int64_t d : dims)
      shape[i++] = d;
  }
  /// True for a present tensor (not an absent optional operand).
  bool present() const { return data != nullptr && rank >= 0; }
  /// Number of elements (1 for rank 0).
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i)
      n *= shape[i];
    return n;
  }
  /// Size in bytes.
  size_t bytes() const { return static_cast<size_t>(numel()) * elementBytes(dtype); }
  /// Typed data pointer.
  template <typename T> T *as() const { return static_cast<T *>(data); }
};

/// Kinds of attribute values a kernel call carries.
enum class AttrKind : uint8_t { Int, Float, Ints, String, Unit };

/// One named attribute of an op, as the code generator writes it: integers
/// and booleans as `Int`, floating-point values as `Float`, i64 arrays (and
/// `operandSegmentSizes`) as `Ints`, enum cases by their keyword as `String`
/// (`"tanh"`, `"mean"`), unit attributes (`transpose_lhs`) as `Unit`.
struct Attr {
  const char *name;
  AttrKind kind;
  int64_t i = 0;
  double f = 0.0;
  const int64_t *ints = nullptr;
  size_t size = 0;
  const char *s = nullptr;
};

/// Constructors used by generated code.
constexpr Attr intAttr(const char *name, int64_t v) { return {name, AttrKind::Int, v}; }
constexpr Attr floatAttr(const char *name, double v) { return {name, AttrKind::Float, 0, v}; }
constexpr Attr intsAttr(const char *name, const int64_t *v, size_t n) {
  return {name, AttrKind::Ints, 0, 0.0, v, n};
}
constexpr Attr stringAttr(const char *name, const char *v) {
  return {name, AttrKind::String, 0, 0.0, nullptr, 0, v};
}
constexpr Attr unitAttr(const char *name) { return {name, AttrKind::Unit}; }

/// The attributes of one kernel call. Lookups are by name; a missing required
/// attribute is a bug in the generated code and makes the kernel throw
/// `KernelError`.
struct Attrs {
  const Attr *items = nullptr;
  size_t size = 0;

  /// The attribute called `name`, or nullptr.
  const Attr *find(const char *name) const;
  /// True if `name` is present (for unit attributes).
  bool has(const char *name) const { return find(name) != nullptr; }
  int64_t getInt(const char *name) const;
  int64_t getInt(const char *name, int64_t fallback) const;
  double getFloat(const char *name) const;
  double getFloat(const char *name, double fallback) const;
  /// The i64 array `name`; `size` receives its length.
  const int64_t *getInts(const char *name, size_t &size) const;
  const char *getString(const char *name) const;
};

/// The operands and results of one kernel call.
struct TensorList {
  const Tensor *items = nullptr;
  size_t size = 0;
  const Tensor &operator[](size_t i) const { return items[i]; }
};

} // namespace ckpt::rt

#endif // CKPT_RUNTIME_TENSOR_H
