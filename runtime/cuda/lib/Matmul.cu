//===- Matmul.cu - matmul, batch_matmul and linear on cuBLASLt ------------===//
//
// Shape checking and batch decomposition on the host; the products run in
// Gemm.cpp. Broadcast batch dimensions become stride-0 batches where the
// broadcast pattern allows (a suffix of the batch dimensions over which each
// operand is either fully batched or fully repeated), and a host loop over
// the remaining leading batch dimensions otherwise.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"
#include "Gemm.h"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

/// y[r, j] = bias[j] for every row r (before a GEMM with beta = 1).
template <typename T>
__global__ void biasRowsKernel(const T *bias, T *y, int64_t rows, int64_t out) {
  CKPT_GRID_LOOP(i, rows * out) { y[i] = bias[i % out]; }
}

/// M, N, K of `op(lhs) x op(rhs)` from the last two dimensions.
void productShape(const Tensor &a, const Tensor &b, const Tensor &y, bool ta,
                  bool tb, int64_t &M, int64_t &N, int64_t &K,
                  const char *name) {
  int r = a.rank;
  M = ta ? a.shape[r - 1] : a.shape[r - 2];
  K = ta ? a.shape[r - 2] : a.shape[r - 1];
  int64_t Kb = tb ? b.shape[r - 1] : b.shape[r - 2];
  N = tb ? b.shape[r - 2] : b.shape[r - 1];
  if (K != Kb || y.shape[r - 2] != M || y.shape[r - 1] != N)
    fail(std::string(name) + ": shapes " + shapeString(a) + " x " +
         shapeString(b) + " -> " + shapeString(y) + " do not match");
}

void checkTypes(const Tensor &a, const Tensor &b, const Tensor &y,
                const char *name) {
  requireFloat(a, name);
  requireSameType(a, b, name);
  requireSameType(a, y, name);
}

} // namespace

namespace kernels {

void matmul(CudaExecContext &ctx, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &y = get(results, 0, "result");
  checkTypes(a, b, y, "matmul");
  requireRank(a, 2, "matmul lhs");
  requireRank(b, 2, "matmul rhs");
  requireRank(y, 2, "matmul result");
  GemmProblem p;
  p.type = a.dtype;
  p.transA = attrs.has("transpose_lhs");
  p.transB = attrs.has("transpose_rhs");
  productShape(a, b, y, p.transA, p.transB, p.M, p.N, p.K, "matmul");
  gemm(ctx, p, a.data, b.data, y.data);
}

void matmul_acc(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &acc = get(operands, 0, "acc");
  const Tensor &a = get(operands, 1, "lhs"), &b = get(operands, 2, "rhs");
  const Tensor &y = get(results, 0, "result");
  checkTypes(a, b, y, "matmul_acc");
  requireSameType(acc, y, "matmul_acc");
  requireRank(a, 2, "matmul_acc lhs");
  requireRank(b, 2, "matmul_acc rhs");
  requireRank(y, 2, "matmul_acc result");
  if (acc.numel() != y.numel() || acc.rank != 2 || acc.shape[0] != y.shape[0])
    fail("matmul_acc: accumulator " + shapeString(acc) + " and result " +
         shapeString(y) + " differ");
  GemmProblem p;
  p.type = a.dtype;
  p.transA = attrs.has("transpose_lhs");
  p.transB = attrs.has("transpose_rhs");
  p.beta = 1.0f;
  productShape(a, b, y, p.transA, p.transB, p.M, p.N, p.K, "matmul_acc");
  // One GEMM with beta = 1 over a copy of the accumulator.
  if (y.data != acc.data)
    CKPT_CUDA_CHECK(ctx, cudaMemcpyAsync(y.data, acc.data, y.bytes(),
                                         cudaMemcpyDeviceToDevice,
                                         streamOf(ctx)));
  gemm(ctx, p, a.data, b.data, y.data);
}

void batch_matmul(CudaExecContext &ctx, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &y = get(results, 0, "result");
  checkTypes(a, b, y, "batch_matmul");
  int r = y.rank;
  if (r < 3 || a.rank != r || b.rank != r)
    fail("batch_matmul: operands and result need one rank >= 3");
  GemmProblem p;
  p.type = a.dtype;
  p.transA = attrs.has("transpose_lhs");
  p.transB = attrs.has("transpose_rhs");
  productShape(a, b, y, p.transA, p.transB, p.M, p.N, p.K, "batch_matmul");
  int nb = r - 2;
  // Batch strides of each operand in matrices over the result's batch dims.
  StridedMap ma, mb;
  if (!makeBroadcastMap(a.shape, nb, y.shape, nb, ma) ||
      !makeBroadcastMap(b.shape, nb, y.shape, nb, mb))
    fail("batch_matmul: batch dimensions of " + shapeString(a) + " and " +
         shapeString(b) + " do not broadcast to " + shapeString(y));
  int64_t contiguous[kMaxIndexRank] = {};
  rowMajorStrides(y.shape, nb, contiguous);
  // Smallest split p such that over batch dims [p, nb) each operand is
  // either repeated (stride 0) or fully batched (contiguous strides).
  auto affine = [&](const StridedMap &m, int p, bool zero) {
    for (int k = p; k < nb; ++k)
      if (y.shape[k] != 1 && m.strides[k] != (zero ? 0 : contiguous[k]))
        return false;
    return true;
  };
  int split = nb;
  bool aZero = false, bZero = false;
  for (int p0 = 0; p0 <= nb; ++p0) {
    bool az = affine(ma, p0, true), an = affine(ma, p0, false);
    bool bz = affine(mb, p0, true), bn = affine(mb, p0, false);
    if ((az || an) && (bz || bn)) {
      split = p0;
      aZero = !an; // Prefer real strides when both hold (size-1 dims only).
      bZero = !bn;
      break;
    }
  }
  int64_t inner = 1, outer = 1;
  for (int k = 0; k < nb; ++k)
    (k < split ? outer : inner) *= y.shape[k];
  int64_t sizeA = p.M * p.K, sizeB = p.K * p.N, sizeC = p.M * p.N;
  p.batch = inner;
  p.strideA = aZero ? 0 : sizeA;
  p.strideB = bZero ? 0 : sizeB;
  p.strideC = sizeC;
  size_t bytes = elementBytes(p.type);
  // The outer loop walks the leading batch dims; StridedMap gives each
  // operand's matrix index for the first inner batch of outer index o.
  for (int64_t o = 0; o < outer; ++o) {
    int64_t first = o * inner;
    int64_t ia = ma.offset(first), ib = mb.offset(first);
    gemm(ctx, p, a.as<char>() + ia * sizeA * bytes,
         b.as<char>() + ib * sizeB * bytes,
         y.as<char>() + first * sizeC * bytes);
  }
}

void linear(CudaExecContext &ctx, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &w = get(operands, 1, "weight");
  const Tensor *bias = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result");
  checkTypes(x, w, y, "linear");
  requireRank(w, 2, "linear weight");
  if (x.rank < 1 || y.rank != x.rank)
    fail("linear: input and result need the same rank >= 1");
  int64_t in = w.shape[1], out = w.shape[0];
  if (x.shape[x.rank - 1] != in || y.shape[y.rank - 1] != out)
    fail("linear: shapes " + shapeString(x) + ", weight " + shapeString(w) +
         " -> " + shapeString(y) + " do not match");
  int64_t rows = out == 0 ? 0 : y.numel() / out;
  GemmProblem p;
  p.type = x.dtype;
  p.transB = true;
  p.M = rows;
  p.N = out;
  p.K = in;
  if (bias) {
    requireSameType(*bias, x, "linear bias");
    requireNumel(*bias, out, "linear bias");
    if (rows * out > 0) {
      dispatchFloat(x.dtype, "linear", [&](auto tag) {
        using T = decltype(tag);
        biasRowsKernel<T><<<gridFor(rows * out), kBlock, 0, streamOf(ctx)>>>(
            bias->as<const T>(), y.as<T>(), rows, out);
      });
      CKPT_LAUNCH_CHECK(ctx, "linear bias");
    }
    p.beta = 1.0f;
  }
  gemm(ctx, p, x.data, w.data, y.data);
}

} // namespace kernels
} // namespace ckpt::rt::cuda
