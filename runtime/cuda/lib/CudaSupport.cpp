//===- CudaSupport.cpp - Host-side helpers of the device kernels ----------===//
#include "CudaSupport.h"

#include <algorithm>

namespace ckpt::rt::cuda::detail {

void fail(const std::string &message) { throw KernelError(message); }

const Tensor &get(TensorList list, size_t index, const char *what) {
  return requireOperand(list, index, what);
}

const Tensor *optionalOperand(TensorList operands, const Attrs &attrs,
                              size_t numSlots, size_t slot) {
  return findOptionalOperand(operands, attrs, numSlots, slot);
}

bool isFloat(DType type) {
  return type == DType::F32 || type == DType::F16 || type == DType::BF16;
}

std::string shapeString(const Tensor &t) {
  std::string s = "[";
  for (int i = 0; i < t.rank; ++i)
    s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "] " + dtypeName(t.dtype);
}

void requireFloat(const Tensor &t, const char *what) {
  if (!isFloat(t.dtype))
    fail(std::string(what) + ": expected an f32, f16 or bf16 tensor, got " +
         shapeString(t));
}

void requireF32(const Tensor &t, const char *what) {
  if (t.dtype != DType::F32)
    fail(std::string(what) + ": expected an f32 tensor, got " + shapeString(t));
}

void requireSameType(const Tensor &a, const Tensor &b, const char *what) {
  if (a.dtype != b.dtype)
    fail(std::string(what) + ": element types differ (" + shapeString(a) +
         " vs " + shapeString(b) + ")");
}

void requireRank(const Tensor &t, int rank, const char *what) {
  if (t.rank != rank)
    fail(std::string(what) + " must have rank " + std::to_string(rank) +
         ", got " + shapeString(t));
}

void requireSameShape(const Tensor &a, const Tensor &b, const char *what) {
  bool same = a.rank == b.rank;
  for (int i = 0; same && i < a.rank; ++i)
    same = a.shape[i] == b.shape[i];
  if (!same)
    fail(std::string(what) + ": shapes " + shapeString(a) + " and " +
         shapeString(b) + " differ");
}

void requireNumel(const Tensor &t, int64_t n, const char *what) {
  if (t.numel() != n)
    fail(std::string(what) + ": expected " + std::to_string(n) +
         " elements, got " + shapeString(t));
}

void getPair(const Attrs &attrs, const char *name, int64_t &a, int64_t &b) {
  size_t n = 0;
  const int64_t *v = attrs.getInts(name, n);
  if (n != 2)
    fail(std::string("attribute '") + name + "' must have 2 entries");
  a = v[0];
  b = v[1];
}

AxisView axisView(const Tensor &t, int64_t axis) {
  if (axis < 0 || axis >= t.rank)
    fail("axis " + std::to_string(axis) + " out of range for " +
         shapeString(t));
  AxisView v;
  for (int i = 0; i < axis; ++i)
    v.outer *= t.shape[i];
  v.extent = t.shape[axis];
  for (int i = static_cast<int>(axis) + 1; i < t.rank; ++i)
    v.inner *= t.shape[i];
  return v;
}

unsigned gridFor(int64_t n, int block) {
  int64_t blocks = (n + block - 1) / block;
  // Enough blocks to fill any current GPU several times over; the grid-stride
  // loops cover the rest.
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65536));
}

} // namespace ckpt::rt::cuda::detail
