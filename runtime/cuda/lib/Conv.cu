//===- Conv.cu - 2-D convolution and its gradients (im2col + cuBLASLt) ----===//
//
// Per image: im2col into the planned workspace (one image's
// `C*kh*kw x Ho*Wo` matrix, input element type), then one batched GEMM over
// the groups. The input gradient forms the column gradient in the workspace
// and folds it back with a gather-style col2im (each input element sums its
// kernel positions in a fixed order); the weight gradient accumulates the
// images' products in image order (beta = 1 after the first). A 1x1 kernel
// with unit stride and no padding uses the image itself and no workspace,
// as the planner assumes.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"
#include "Gemm.h"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

template <typename T>
__global__ void im2colKernel(const T *x, T *col, ConvGeometry g) {
  int64_t cols = g.colCols();
  int64_t n = g.channels * g.kernelH * g.kernelW * cols;
  CKPT_GRID_LOOP(i, n) {
    int64_t src = im2colSource(g, i / cols, i % cols);
    col[i] = src >= 0 ? x[src] : fromF32<T>(0.0f);
  }
}

template <typename T>
__global__ void col2imKernel(const T *col, T *dx, ConvGeometry g) {
  int64_t hw = g.height * g.width;
  CKPT_GRID_LOOP(i, g.channels * hw) {
    int64_t c = i / hw, h = (i % hw) / g.width, w = i % g.width;
    float acc = 0.0f;
    col2imGather(g, c, h, w, [&](int64_t e) { acc += toF32(col[e]); });
    dx[i] = fromF32<T>(acc);
  }
}

/// y[n, o, s] = bias[o] (before the GEMMs with beta = 1).
template <typename T>
__global__ void biasChannelsKernel(const T *bias, T *y, int64_t total,
                                   int64_t O, int64_t S) {
  CKPT_GRID_LOOP(i, total) { y[i] = bias[(i / S) % O]; }
}

/// Reads the attributes and checks `x [N,C,H,W]`, `w [O,C/g,kh,kw]`,
/// `y [N,O,Ho,Wo]` against each other.
ConvGeometry convGeometry(const Tensor &x, const Tensor &w, const Tensor &y,
                          const Attrs &attrs, const char *name) {
  requireRank(x, 4, name);
  requireRank(w, 4, name);
  requireRank(y, 4, name);
  ConvGeometry g;
  g.batch = x.shape[0];
  g.channels = x.shape[1];
  g.height = x.shape[2];
  g.width = x.shape[3];
  g.outChannels = w.shape[0];
  g.kernelH = w.shape[2];
  g.kernelW = w.shape[3];
  getPair(attrs, "strides", g.strideH, g.strideW);
  getPair(attrs, "padding", g.padH, g.padW);
  getPair(attrs, "dilation", g.dilationH, g.dilationW);
  g.groups = attrs.getInt("groups", 1);
  if (g.groups < 1 || g.channels % g.groups != 0 ||
      g.outChannels % g.groups != 0 || w.shape[1] != g.channels / g.groups ||
      g.strideH < 1 || g.strideW < 1 || g.dilationH < 1 || g.dilationW < 1 ||
      g.padH < 0 || g.padW < 0)
    fail(std::string(name) + ": invalid groups, strides, padding or dilation");
  g.outHeight =
      convOutputSize(g.height, g.kernelH, g.strideH, g.padH, g.dilationH);
  g.outWidth =
      convOutputSize(g.width, g.kernelW, g.strideW, g.padW, g.dilationW);
  if (y.shape[0] != g.batch || y.shape[1] != g.outChannels ||
      y.shape[2] != g.outHeight || y.shape[3] != g.outWidth)
    fail(std::string(name) + ": output " + shapeString(y) +
         " does not match input " + shapeString(x) + " and weight " +
         shapeString(w));
  return g;
}

/// The im2col buffer: the planned workspace, checked for size.
void *colBuffer(const ConvGeometry &g, const Tensor &workspace, DType type,
                const char *name) {
  if (g.pointwise())
    return nullptr;
  uint64_t need =
      static_cast<uint64_t>(g.channels * g.kernelH * g.kernelW * g.colCols()) *
      elementBytes(type);
  if (!workspace.present() || workspace.bytes() < need)
    fail(std::string(name) + ": needs a workspace of " + std::to_string(need) +
         " bytes (one image's im2col matrix)");
  return workspace.data;
}

template <typename T>
void launchIm2col(CudaExecContext &ctx, const T *x, T *col,
                  const ConvGeometry &g) {
  int64_t n = g.channels * g.kernelH * g.kernelW * g.colCols();
  im2colKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(x, col, g);
  CKPT_LAUNCH_CHECK(ctx, "im2col");
}

} // namespace

namespace kernels {

void conv2d(CudaExecContext &ctx, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &workspace) {
  const Tensor &x = get(operands, 0, "input"), &w = get(operands, 1, "weight");
  const Tensor *bias = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result");
  requireFloat(x, "conv2d");
  requireSameType(x, w, "conv2d");
  requireSameType(x, y, "conv2d");
  ConvGeometry g = convGeometry(x, w, y, attrs, "conv2d");
  if (bias) {
    requireSameType(*bias, x, "conv2d bias");
    requireNumel(*bias, g.outChannels, "conv2d bias");
  }
  void *col = colBuffer(g, workspace, x.dtype, "conv2d");
  if (y.numel() == 0)
    return;
  int64_t Og = g.outChannels / g.groups, K = g.colRows(), S = g.colCols();
  GemmProblem p;
  p.type = x.dtype;
  p.M = Og;
  p.N = S;
  p.K = K;
  p.batch = g.groups;
  p.strideA = Og * K;
  p.strideB = K * S;
  p.strideC = Og * S;
  size_t bytes = elementBytes(x.dtype);
  dispatchFloat(x.dtype, "conv2d", [&](auto tag) {
    using T = decltype(tag);
    if (bias) {
      biasChannelsKernel<T><<<gridFor(y.numel()), kBlock, 0, streamOf(ctx)>>>(
          bias->as<const T>(), y.as<T>(), y.numel(), g.outChannels, S);
      CKPT_LAUNCH_CHECK(ctx, "conv2d bias");
      p.beta = 1.0f;
    }
    int64_t imageIn = g.channels * g.height * g.width;
    for (int64_t n = 0; n < g.batch; ++n) {
      const T *xn = x.as<const T>() + n * imageIn;
      const void *b = xn;
      if (col) {
        launchIm2col<T>(ctx, xn, static_cast<T *>(col), g);
        b = col;
      }
      gemm(ctx, p, w.data, b, y.as<char>() + n * g.outChannels * S * bytes);
    }
  });
}

void conv2d_grad_input(CudaExecContext &ctx, TensorList operands,
                       TensorList results, const Attrs &attrs,
                       const Tensor &workspace) {
  const Tensor &dy = get(operands, 0, "grad"), &w = get(operands, 1, "weight");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(dy, "conv2d_grad_input");
  requireSameType(dy, w, "conv2d_grad_input");
  requireSameType(dy, dx, "conv2d_grad_input");
  ConvGeometry g = convGeometry(dx, w, dy, attrs, "conv2d_grad_input");
  void *col = colBuffer(g, workspace, dy.dtype, "conv2d_grad_input");
  if (dx.numel() == 0)
    return;
  int64_t Og = g.outChannels / g.groups, K = g.colRows(), S = g.colCols();
  // Column gradient [K, S] per group = W_g^T [K, Og] x dY_g [Og, S].
  GemmProblem p;
  p.type = dy.dtype;
  p.transA = true;
  p.M = K;
  p.N = S;
  p.K = Og;
  p.batch = g.groups;
  p.strideA = Og * K;
  p.strideB = Og * S;
  p.strideC = K * S;
  size_t bytes = elementBytes(dy.dtype);
  int64_t imageIn = g.channels * g.height * g.width;
  dispatchFloat(dy.dtype, "conv2d_grad_input", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t n = 0; n < g.batch; ++n) {
      const char *dyn = dy.as<const char>() + n * g.outChannels * S * bytes;
      T *dxn = dx.as<T>() + n * imageIn;
      if (!col) {
        gemm(ctx, p, w.data, dyn, dxn);
        continue;
      }
      gemm(ctx, p, w.data, dyn, col);
      col2imKernel<T><<<gridFor(imageIn), kBlock, 0, streamOf(ctx)>>>(
          static_cast<const T *>(col), dxn, g);
      CKPT_LAUNCH_CHECK(ctx, "col2im");
    }
  });
}

void conv2d_grad_weight(CudaExecContext &ctx, TensorList operands,
                        TensorList results, const Attrs &attrs,
                        const Tensor &workspace) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &dw = get(results, 0, "result");
  requireFloat(dy, "conv2d_grad_weight");
  requireSameType(dy, x, "conv2d_grad_weight");
  requireSameType(dy, dw, "conv2d_grad_weight");
  ConvGeometry g = convGeometry(x, dw, dy, attrs, "conv2d_grad_weight");
  void *col = colBuffer(g, workspace, dy.dtype, "conv2d_grad_weight");
  if (dw.numel() == 0)
    return;
  int64_t Og = g.outChannels / g.groups, K = g.colRows(), S = g.colCols();
  if (g.batch == 0) {
    CKPT_CUDA_CHECK(ctx,
                    cudaMemsetAsync(dw.data, 0, dw.bytes(), streamOf(ctx)));
    return;
  }
  // dW_g [Og, K] += dY_g [Og, S] x col_g^T [S, K], images in order.
  GemmProblem p;
  p.type = dy.dtype;
  p.transB = true;
  p.M = Og;
  p.N = K;
  p.K = S;
  p.batch = g.groups;
  p.strideA = Og * S;
  p.strideB = K * S;
  p.strideC = Og * K;
  size_t bytes = elementBytes(dy.dtype);
  int64_t imageIn = g.channels * g.height * g.width;
  dispatchFloat(dy.dtype, "conv2d_grad_weight", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t n = 0; n < g.batch; ++n) {
      const T *xn = x.as<const T>() + n * imageIn;
      const void *b = xn;
      if (col) {
        launchIm2col<T>(ctx, xn, static_cast<T *>(col), g);
        b = col;
      }
      p.beta = n == 0 ? 0.0f : 1.0f;
      gemm(ctx, p, dy.as<const char>() + n * g.outChannels * S * bytes, b,
           dw.data);
    }
  });
}

} // namespace kernels
} // namespace ckpt::rt::cuda
