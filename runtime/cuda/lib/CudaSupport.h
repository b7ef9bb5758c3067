//===- CudaSupport.h - Host-side helpers of the kernels ---------*- C++ -*-===//
//
// Argument checking (the same conventions as the host kernels), checked CUDA
// calls and launches, and launch geometry. Private to runtime/cuda/lib;
// compiled by nvcc and by the host compiler.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_LIB_CUDASUPPORT_H
#define CKPT_RUNTIME_CUDA_LIB_CUDASUPPORT_H

#include "ckpt/Runtime/Cuda/CudaKernels.h"
#include "ckpt/Runtime/Cuda/Indexing.h"
#include "ckpt/Runtime/Kernels.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

/// Checks a CUDA runtime call made on behalf of the op `ctx` is running.
#define CKPT_CUDA_CHECK(ctx, call)                                             \
  (ctx).checkCuda(static_cast<int>(call), #call, __FILE__, __LINE__)
/// Checks a cuBLASLt call.
#define CKPT_CUBLAS_CHECK(ctx, call)                                           \
  (ctx).checkCublas(static_cast<int>(call), #call, __FILE__, __LINE__)
/// Checks the kernel launch just made (`cudaGetLastError`).
#define CKPT_LAUNCH_CHECK(ctx, name) (ctx).checkLaunch(name, __FILE__, __LINE__)

namespace ckpt::rt::cuda::detail {

/// Throws KernelError with `message`.
[[noreturn]] void fail(const std::string &message);

/// Operand / result `index` of `list`, which must be present.
const Tensor &get(TensorList list, size_t index, const char *what);
/// Optional operand `slot` of an op with `numSlots` single-tensor operand
/// groups, decoded exactly as the host runtime does (every slot passed with
/// absent tensors, or only the present ones, by `operandSegmentSizes` when
/// given, else missing ones at the end). nullptr when absent.
const Tensor *optionalOperand(TensorList operands, const Attrs &attrs,
                              size_t numSlots, size_t slot);

/// True for f32, f16 and bf16.
bool isFloat(DType type);
/// Throws unless `t` is a float tensor; `what` names it.
void requireFloat(const Tensor &t, const char *what);
/// Throws unless `t` is an f32 tensor (statistics, moments).
void requireF32(const Tensor &t, const char *what);
/// Throws unless `a` and `b` have the same element type.
void requireSameType(const Tensor &a, const Tensor &b, const char *what);
/// Throws unless `t` has the given rank.
void requireRank(const Tensor &t, int rank, const char *what);
/// Throws unless `a` and `b` have the same shape.
void requireSameShape(const Tensor &a, const Tensor &b, const char *what);
/// Throws unless `t` has `n` elements.
void requireNumel(const Tensor &t, int64_t n, const char *what);
/// Human-readable shape and type, "[4, 8] f32".
std::string shapeString(const Tensor &t);
/// The i64 pair attribute `name`.
void getPair(const Attrs &attrs, const char *name, int64_t &a, int64_t &b);
/// `[outer, extent, inner]` around dimension `axis` of `t`.
struct AxisView {
  int64_t outer = 1, extent = 1, inner = 1;
};
AxisView axisView(const Tensor &t, int64_t axis);

/// `add` (`op` '+'), `sub` ('-') or `mul` ('*') of i32 / i64 tensors with
/// numpy broadcasting, wrapping around as PyTorch does (Masks.cu). Returns
/// false, launching nothing, when the result is not an integer tensor.
bool launchIntegerArithmetic(CudaExecContext &ctx, TensorList operands,
                             TensorList results, char op, const char *name);

/// Threads per block of the elementwise kernels.
constexpr int kBlock = 256;
/// Blocks of a grid-stride loop over `n` items (at least 1). Elementwise
/// results never depend on the grid size; reductions use fixed geometry.
unsigned gridFor(int64_t n, int block = kBlock);

/// The stream of `ctx` as a cudaStream_t.
inline cudaStream_t streamOf(const CudaExecContext &ctx) {
  return static_cast<cudaStream_t>(ctx.stream());
}

} // namespace ckpt::rt::cuda::detail

#endif // CKPT_RUNTIME_CUDA_LIB_CUDASUPPORT_H
