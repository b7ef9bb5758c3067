//===- KernelSupport.h - Internals shared by the host kernels -----*- C++ -*-===//
//
// Argument checking, optional-operand decoding, the thread setting and the
// deterministic parallel loop of the runtime. Private to runtime/lib.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_LIB_KERNELSUPPORT_H
#define CKPT_RUNTIME_LIB_KERNELSUPPORT_H

#include "ckpt/Runtime/Kernels.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ckpt::rt::detail {

/// Worker threads of the host kernels (at least 1). Set by Session.
void setThreadCount(int threads);
int threadCount();

/// Runs `body(begin, end)` over `[0, n)` split into contiguous chunks, one per
/// worker, when `n` is at least `grain` and more than one thread is set;
/// otherwise runs `body(0, n)` inline. Callers only split work whose
/// floating-point results do not depend on the split (independent output
/// elements or rows), so results are bit-identical for any thread count.
/// Rethrows the first exception a chunk threw.
void parallelFor(int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &body);
/// The grain of the row-parallel kernels: fewer rows than this run inline.
constexpr int64_t kRowGrain = 16;
/// The grain of the elementwise kernels, in elements.
constexpr int64_t kElementGrain = 1 << 15;

/// `C = op(A) op(B) + beta C` for row-major f32 matrices, C of shape m x n
/// (k = 0: C = beta C, with beta = 0 writing zeros). The result is computed
/// as fixed tiles of C (kGemmTileRows x kGemmTileCols), each one
/// single-threaded cblas_sgemm call, and the tiles are spread over the
/// workers: the bits depend on the tiling only, never on the thread count.
/// (OpenBLAS's own threading is not bit-reproducible across thread counts,
/// so the session runs it with one thread.)
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
          float *c, int64_t ldc);
constexpr int64_t kGemmTileRows = 128, kGemmTileCols = 1024;

/// Throws KernelError with `message`.
[[noreturn]] void fail(const std::string &message);

/// Operand / result `index` of `list`, which must be present.
const Tensor &get(TensorList list, size_t index, const char *what);
/// Optional operand `slot` of an op whose ODS operands are `numSlots` groups
/// of at most one tensor each. Accepts both conventions a code generator may
/// use: every slot passed (absent optional operands as absent tensors), or
/// only the present operands, decoded by the `operandSegmentSizes` attribute
/// when there is one, else with the missing ones at the end. Returns nullptr
/// for an absent operand.
const Tensor *optionalOperand(TensorList operands, const Attrs &attrs,
                              size_t numSlots, size_t slot);

/// Throws unless `t` is an f32 tensor; `what` names it.
void requireF32(const Tensor &t, const char *what);
/// Throws unless `t` is present with the given rank.
void requireRank(const Tensor &t, int rank, const char *what);
/// Throws unless `a` and `b` have the same shape.
void requireSameShape(const Tensor &a, const Tensor &b, const char *what);
/// Human-readable shape, "[4, 8]".
std::string shapeString(const Tensor &t);

/// The i64 pair attribute `name` (strides, padding, ...).
void getPair(const Attrs &attrs, const char *name, int64_t &a, int64_t &b);

/// Strides (in elements) of `t` right-aligned to `result`'s rank, with 0 for
/// broadcast dimensions. Throws if `t` does not broadcast numpy-style to
/// `result`'s shape; `what` names `t`.
std::vector<int64_t> broadcastStrides(const Tensor &t, const Tensor &result,
                                      const char *what);

/// Offset of the start of row `row` (all dimensions but the last) of a
/// row-major `result` into an operand with `strides`.
int64_t rowOffset(const Tensor &result, const std::vector<int64_t> &strides,
                  int64_t row);

/// `add` (`op` '+'), `sub` ('-') or `mul` ('*') of i32 / i64 tensors with
/// numpy broadcasting, wrapping around as PyTorch's integer arithmetic does.
/// Returns false, doing nothing, when the result is not an integer tensor
/// (the caller's float kernel then runs). KernelsMask.cpp.
bool integerArithmetic(TensorList operands, TensorList results, char op,
                       const char *name);

/// True if the byte ranges of `a` and `b` overlap.
bool overlaps(const Tensor &a, const Tensor &b);

/// True if `a` and `b` have the same rank and sizes.
inline bool sameShape(const Tensor &a, const Tensor &b) {
  if (a.rank != b.rank)
    return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.shape[i] != b.shape[i])
      return false;
  return true;
}

} // namespace ckpt::rt::detail

#endif // CKPT_RUNTIME_LIB_KERNELSUPPORT_H
