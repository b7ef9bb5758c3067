//===- Attention.cu - Flash-style attention forward and backward ----------===//
//
// Forward: a block owns 16 query rows of one (batch, head) and streams the
// keys in tiles of 32 through shared memory; each warp owns 4 rows, each lane
// one key of the tile (its score) and head-dimension slices lane + 32t of the
// output. Online softmax keeps the running max and sum; only the row
// log-sum-exp is saved. The S x Skv matrix never exists.
//
// Backward, deterministic without atomics, in three kernels:
//  1. delta = rowsum(dO * O) into the planned workspace (f32, B*H*S);
//  2. dK, dV: a block owns 32 keys of one (batch, kv head); it visits the
//     query heads of its group and the query tiles in increasing order,
//     recomputing P from the saved lse, so each dK/dV element is one
//     thread's sum in a fixed order;
//  3. dQ: a block owns 16 query rows, recomputes P and dP per key tile and
//     accumulates dQ in key order.
// This recomputes Q K^T once more than a dQ-by-atomics scheme would (see
// docs/gpu.md). Head dimensions up to 256 are supported.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"

#include "ckpt/Runtime/Cuda/Philox.cuh"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

constexpr int kMaxHeadDim = 256;
constexpr int kChunks = kMaxHeadDim / 32; // Head-dim slices per lane.
constexpr int kRowsPerWarp = 4;
constexpr int kFwdWarps = 4;
constexpr int kQueryTile = kFwdWarps * kRowsPerWarp; // 16 rows per block.
constexpr int kKeyTile = 32;
constexpr int kKeysPerWarp = 4;
constexpr int kBwdWarps = 8; // 32 keys per dK/dV block.
constexpr int kBwdQueryTile = 32;
constexpr unsigned kFull = 0xffffffffu;

struct AttnParams {
  int64_t B, H, Hkv, S, Skv, D, Dv, group;
  float scale;
  bool causal;
  bool dropout;
  uint32_t threshold;
  float dropScale;
  PhiloxStream stream;
  uint64_t offset;
  // Optional mask broadcast to [B, H, S, Skv]: an additive bias of the
  // query's type (maskKind 1) or an i1 keep-mask (maskKind 2), with strides
  // in elements (0 along broadcast dimensions).
  const void *mask;
  int maskKind;
  int64_t maskStride[4];
};

/// Score of (b, h, i, key) after the mask: `s` plus the bias, or -inf where
/// the keep-mask is false.
template <typename T>
__device__ __forceinline__ float applyMask(const AttnParams &a, int64_t b,
                                           int64_t h, int64_t i, int64_t key,
                                           float s) {
  if (a.maskKind == 0)
    return s;
  int64_t at = b * a.maskStride[0] + h * a.maskStride[1] + i * a.maskStride[2] +
               key * a.maskStride[3];
  if (a.maskKind == 1)
    return s + toF32(static_cast<const T *>(a.mask)[at]);
  return static_cast<const uint8_t *>(a.mask)[at] ? s : -INFINITY;
}

/// Dropout factor of probability (bh, i, key): keep / (1 - p), or 1.
__device__ __forceinline__ float dropFactor(const AttnParams &a, int64_t bh,
                                            int64_t i, int64_t key) {
  if (!a.dropout)
    return 1.0f;
  uint64_t draw = a.offset + attentionDropoutIndex(bh, i, key, a.S, a.Skv);
  return (a.stream.word(draw) >> 8) >= a.threshold ? a.dropScale : 0.0f;
}

/// Loads rows [r0, r0 + rows) of a row-major [n, cols] tensor into a shared
/// f32 tile with leading dimension `ld`; rows past `n` become zero.
template <typename T>
__device__ void loadTile(float *dst, int ld, const T *src, int64_t r0, int rows,
                         int64_t n, int64_t cols) {
  for (int64_t e = threadIdx.x; e < rows * cols; e += blockDim.x) {
    int64_t r = e / cols, c = e % cols;
    dst[r * ld + c] = r0 + r < n ? toF32(src[(r0 + r) * cols + c]) : 0.0f;
  }
}

__device__ __forceinline__ float dot(const float *a, const float *b,
                                     int64_t n) {
  float s = 0.0f;
  for (int64_t d = 0; d < n; ++d)
    s += a[d] * b[d];
  return s;
}

template <typename T>
__global__ void attentionFwdKernel(const T *q, const T *k, const T *v, T *o,
                                   float *lse, AttnParams a) {
  extern __shared__ float smem[];
  float *Qs = smem;                      // [kQueryTile][D]
  float *Ks = Qs + kQueryTile * a.D;     // [kKeyTile][D + 1]
  float *Vs = Ks + kKeyTile * (a.D + 1); // [kKeyTile][Dv]
  int64_t bh = blockIdx.y, b = bh / a.H, h = bh % a.H;
  int64_t kvh = b * a.Hkv + h / a.group;
  int64_t q0 = static_cast<int64_t>(blockIdx.x) * kQueryTile;
  int64_t q1 = min(q0 + kQueryTile, a.S);
  const T *kb = k + kvh * a.Skv * a.D, *vb = v + kvh * a.Skv * a.Dv;
  loadTile(Qs, static_cast<int>(a.D), q + bh * a.S * a.D, q0, kQueryTile, a.S,
           a.D);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][kChunks];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
#pragma unroll
    for (int t = 0; t < kChunks; ++t)
      acc[r][t] = 0.0f;
  }
  int64_t keyEnd = attentionTileKeyEnd(q0, q1, a.Skv, a.causal);
  for (int64_t k0 = 0; k0 < keyEnd; k0 += kKeyTile) {
    __syncthreads();
    loadTile(Ks, static_cast<int>(a.D + 1), kb, k0, kKeyTile, a.Skv, a.D);
    loadTile(Vs, static_cast<int>(a.Dv), vb, k0, kKeyTile, a.Skv, a.Dv);
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < kRowsPerWarp; ++rr) {
      int row = warp * kRowsPerWarp + rr;
      int64_t i = q0 + row;
      if (i >= a.S)
        continue; // Warp-uniform.
      int64_t iEnd = attentionKeyEnd(i, a.Skv, a.causal);
      if (k0 >= iEnd)
        continue; // Warp-uniform: no key of this tile is attended.
      int64_t key = k0 + lane;
      bool valid = key < iEnd;
      float s = valid ? applyMask<T>(a, b, h, i, key,
                                     a.scale * dot(Qs + row * a.D,
                                                   Ks + lane * (a.D + 1), a.D))
                      : -INFINITY;
      valid = valid && s != -INFINITY; // Masked-out keys add nothing.
      float mNew = fmaxf(m[rr], warpMax(s));
      float p = valid ? expf(s - mNew) : 0.0f;
      // While every key so far is masked out, m stays -inf and nothing is
      // rescaled.
      float corr = mNew == -INFINITY ? 1.0f : expf(m[rr] - mNew);
      l[rr] = l[rr] * corr + warpSum(p);
      float pd = valid ? p * dropFactor(a, bh, i, key) : 0.0f;
#pragma unroll
      for (int t = 0; t < kChunks; ++t)
        acc[rr][t] *= corr;
      int nKeys =
          static_cast<int>(min(static_cast<int64_t>(kKeyTile), iEnd - k0));
      for (int j = 0; j < nKeys; ++j) {
        float pj = __shfl_sync(kFull, pd, j);
#pragma unroll
        for (int t = 0; t < kChunks; ++t) {
          int64_t d = lane + 32 * t;
          if (d < a.Dv)
            acc[rr][t] += pj * Vs[j * a.Dv + d];
        }
      }
      m[rr] = mNew;
    }
  }
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    int64_t i = q0 + warp * kRowsPerWarp + rr;
    if (i >= a.S)
      continue;
    // A row whose every key is masked out: NaN output and lse -inf (as
    // PyTorch's softmax of -infs); without keys (Skv = 0): zeros.
    bool allMasked = l[rr] == 0.0f && attentionKeyEnd(i, a.Skv, a.causal) > 0;
    float inv = allMasked ? NAN : l[rr] > 0.0f ? 1.0f / l[rr] : 0.0f;
#pragma unroll
    for (int t = 0; t < kChunks; ++t) {
      int64_t d = lane + 32 * t;
      if (d < a.Dv)
        o[(bh * a.S + i) * a.Dv + d] = fromF32<T>(acc[rr][t] * inv);
    }
    if (lane == 0)
      lse[bh * a.S + i] = l[rr] > 0.0f ? m[rr] + logf(l[rr]) : -INFINITY;
  }
}

/// delta[row] = sum_d dO[row, d] * O[row, d]; one warp per row.
template <typename T>
__global__ void attentionDeltaKernel(const T *dout, const T *out, float *delta,
                                     int64_t rows, int64_t Dv) {
  int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  int lane = threadIdx.x % 32;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) +
                   threadIdx.x / 32;
       r < rows; r += warps) {
    float s = 0.0f;
    for (int64_t d = lane; d < Dv; d += 32)
      s += toF32(dout[r * Dv + d]) * toF32(out[r * Dv + d]);
    s = warpSum(s);
    if (lane == 0)
      delta[r] = s;
  }
}

/// dK and dV of 32 keys of one (batch, kv head).
template <typename T>
__global__ void attentionDkDvKernel(const T *dout, const T *q, const T *k,
                                    const T *v, const float *lse,
                                    const float *delta, T *dk, T *dv,
                                    AttnParams a) {
  extern __shared__ float smem[];
  int64_t D = a.D, Dv = a.Dv;
  float *Ks = smem;                             // [32][D]
  float *Vs = Ks + kKeyTile * D;                // [32][Dv]
  float *Qs = Vs + kKeyTile * Dv;               // [32][D + 1]
  float *dOs = Qs + kBwdQueryTile * (D + 1);    // [32][Dv + 1]
  float *lseS = dOs + kBwdQueryTile * (Dv + 1); // [32]
  float *deltaS = lseS + kBwdQueryTile;         // [32]
  int64_t bkv = blockIdx.y, b = bkv / a.Hkv, hk = bkv % a.Hkv;
  int64_t k0 = static_cast<int64_t>(blockIdx.x) * kKeyTile;
  loadTile(Ks, static_cast<int>(D), k + bkv * a.Skv * D, k0, kKeyTile, a.Skv,
           D);
  loadTile(Vs, static_cast<int>(Dv), v + bkv * a.Skv * Dv, k0, kKeyTile, a.Skv,
           Dv);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float gk[kKeysPerWarp][kChunks], gv[kKeysPerWarp][kChunks];
#pragma unroll
  for (int kk = 0; kk < kKeysPerWarp; ++kk)
#pragma unroll
    for (int t = 0; t < kChunks; ++t)
      gk[kk][t] = gv[kk][t] = 0.0f;
  int64_t qBegin = attentionTileQueryBegin(k0, a.S, a.causal);
  for (int64_t gi = 0; gi < a.group; ++gi) {
    int64_t bh = b * a.H + hk * a.group + gi;
    for (int64_t q0 = qBegin; q0 < a.S; q0 += kBwdQueryTile) {
      __syncthreads();
      loadTile(Qs, static_cast<int>(D + 1), q + bh * a.S * D, q0, kBwdQueryTile,
               a.S, D);
      loadTile(dOs, static_cast<int>(Dv + 1), dout + bh * a.S * Dv, q0,
               kBwdQueryTile, a.S, Dv);
      if (threadIdx.x < kBwdQueryTile) {
        int64_t i = q0 + threadIdx.x;
        lseS[threadIdx.x] = i < a.S ? lse[bh * a.S + i] : 0.0f;
        deltaS[threadIdx.x] = i < a.S ? delta[bh * a.S + i] : 0.0f;
      }
      __syncthreads();
      int nQ =
          static_cast<int>(min(static_cast<int64_t>(kBwdQueryTile), a.S - q0));
#pragma unroll
      for (int kk = 0; kk < kKeysPerWarp; ++kk) {
        int jl = warp * kKeysPerWarp + kk;
        int64_t key = k0 + jl;
        if (key >= a.Skv)
          continue; // Warp-uniform.
        int64_t i = q0 + lane;
        bool valid = i < a.S && (!a.causal || key <= i);
        float pd = 0.0f, ds = 0.0f;
        float s = valid ? applyMask<T>(a, b, bh % a.H, i, key,
                                       a.scale * dot(Qs + lane * (D + 1),
                                                     Ks + jl * D, D))
                        : -INFINITY;
        if (s != -INFINITY) { // Masked-out pairs have p = 0.
          float p = expf(s - lseS[lane]);
          float dp = dot(dOs + lane * (Dv + 1), Vs + jl * Dv, Dv);
          float z = dropFactor(a, bh, i, key);
          pd = p * z;
          ds = p * (dp * z - deltaS[lane]);
        }
        for (int ii = 0; ii < nQ; ++ii) {
          float pj = __shfl_sync(kFull, pd, ii);
          float sj = __shfl_sync(kFull, ds, ii);
#pragma unroll
          for (int t = 0; t < kChunks; ++t) {
            int64_t d = lane + 32 * t;
            if (d < Dv)
              gv[kk][t] += pj * dOs[ii * (Dv + 1) + d];
            if (d < D)
              gk[kk][t] += sj * Qs[ii * (D + 1) + d];
          }
        }
      }
    }
  }
#pragma unroll
  for (int kk = 0; kk < kKeysPerWarp; ++kk) {
    int64_t key = k0 + warp * kKeysPerWarp + kk;
    if (key >= a.Skv)
      continue;
#pragma unroll
    for (int t = 0; t < kChunks; ++t) {
      int64_t d = lane + 32 * t;
      if (d < D)
        dk[(bkv * a.Skv + key) * D + d] = fromF32<T>(gk[kk][t] * a.scale);
      if (d < Dv)
        dv[(bkv * a.Skv + key) * Dv + d] = fromF32<T>(gv[kk][t]);
    }
  }
}

/// dQ of 16 query rows of one (batch, head).
template <typename T>
__global__ void attentionDqKernel(const T *dout, const T *q, const T *k,
                                  const T *v, const float *lse,
                                  const float *delta, T *dq, AttnParams a) {
  extern __shared__ float smem[];
  int64_t D = a.D, Dv = a.Dv;
  float *Qs = smem;                    // [16][D]
  float *dOs = Qs + kQueryTile * D;    // [16][Dv]
  float *Ks = dOs + kQueryTile * Dv;   // [32][D + 1]
  float *Vs = Ks + kKeyTile * (D + 1); // [32][Dv + 1]
  int64_t bh = blockIdx.y, b = bh / a.H, h = bh % a.H;
  int64_t kvh = b * a.Hkv + h / a.group;
  int64_t q0 = static_cast<int64_t>(blockIdx.x) * kQueryTile;
  int64_t q1 = min(q0 + kQueryTile, a.S);
  loadTile(Qs, static_cast<int>(D), q + bh * a.S * D, q0, kQueryTile, a.S, D);
  loadTile(dOs, static_cast<int>(Dv), dout + bh * a.S * Dv, q0, kQueryTile, a.S,
           Dv);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float gq[kRowsPerWarp][kChunks], rowLse[kRowsPerWarp], rowDelta[kRowsPerWarp];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    int64_t i = q0 + warp * kRowsPerWarp + rr;
    rowLse[rr] = i < a.S ? lse[bh * a.S + i] : 0.0f;
    rowDelta[rr] = i < a.S ? delta[bh * a.S + i] : 0.0f;
#pragma unroll
    for (int t = 0; t < kChunks; ++t)
      gq[rr][t] = 0.0f;
  }
  int64_t keyEnd = attentionTileKeyEnd(q0, q1, a.Skv, a.causal);
  const T *kb = k + kvh * a.Skv * D, *vb = v + kvh * a.Skv * Dv;
  for (int64_t k0 = 0; k0 < keyEnd; k0 += kKeyTile) {
    __syncthreads();
    loadTile(Ks, static_cast<int>(D + 1), kb, k0, kKeyTile, a.Skv, D);
    loadTile(Vs, static_cast<int>(Dv + 1), vb, k0, kKeyTile, a.Skv, Dv);
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < kRowsPerWarp; ++rr) {
      int row = warp * kRowsPerWarp + rr;
      int64_t i = q0 + row;
      if (i >= a.S)
        continue;
      int64_t iEnd = attentionKeyEnd(i, a.Skv, a.causal);
      if (k0 >= iEnd)
        continue;
      int64_t key = k0 + lane;
      float ds = 0.0f;
      float s = key < iEnd ? applyMask<T>(a, b, h, i, key,
                                          a.scale * dot(Qs + row * D,
                                                        Ks + lane * (D + 1), D))
                           : -INFINITY;
      if (s != -INFINITY) { // Masked-out pairs have p = 0.
        float p = expf(s - rowLse[rr]);
        float dp = dot(dOs + row * Dv, Vs + lane * (Dv + 1), Dv);
        ds = p * (dp * dropFactor(a, bh, i, key) - rowDelta[rr]);
      }
      int nKeys =
          static_cast<int>(min(static_cast<int64_t>(kKeyTile), iEnd - k0));
      for (int j = 0; j < nKeys; ++j) {
        float sj = __shfl_sync(kFull, ds, j);
#pragma unroll
        for (int t = 0; t < kChunks; ++t) {
          int64_t d = lane + 32 * t;
          if (d < D)
            gq[rr][t] += sj * Ks[j * (D + 1) + d];
        }
      }
    }
  }
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    int64_t i = q0 + warp * kRowsPerWarp + rr;
    if (i >= a.S)
      continue;
#pragma unroll
    for (int t = 0; t < kChunks; ++t) {
      int64_t d = lane + 32 * t;
      if (d < D)
        dq[(bh * a.S + i) * D + d] = fromF32<T>(gq[rr][t] * a.scale);
    }
  }
}

/// Shapes and attributes of an attention call, checked.
AttnParams attentionParams(CudaExecContext &ctx, const Tensor &q,
                           const Tensor &k, const Tensor &v, const Attrs &attrs,
                           const char *name) {
  requireRank(q, 4, name);
  requireRank(k, 4, name);
  requireRank(v, 4, name);
  requireFloat(q, name);
  requireSameType(q, k, name);
  requireSameType(q, v, name);
  int64_t seed = attrs.getInt("seed", 0), offset = attrs.getInt("offset", 0);
  double p = attrs.getFloat("dropout_p", 0.0);
  AttnParams a{q.shape[0],
               q.shape[1],
               k.shape[1],
               q.shape[2],
               k.shape[2],
               q.shape[3],
               v.shape[3],
               1,
               static_cast<float>(attrs.getFloat("scale")),
               attrs.has("causal"),
               p > 0.0,
               keepThreshold(p),
               p >= 1.0 ? 0.0f : static_cast<float>(1.0 / (1.0 - p)),
               PhiloxStream(ctx.seed(), static_cast<uint64_t>(seed)),
               static_cast<uint64_t>(offset),
               nullptr,
               0,
               {0, 0, 0, 0}};
  if (k.shape[0] != a.B || v.shape[0] != a.B || k.shape[3] != a.D ||
      v.shape[1] != a.Hkv || v.shape[2] != a.Skv || a.Hkv == 0 ||
      a.H % a.Hkv != 0)
    fail(std::string(name) + ": q " + shapeString(q) + ", k " + shapeString(k) +
         ", v " + shapeString(v) + " do not match");
  if (!(p >= 0.0 && p <= 1.0) || seed < 0 || offset < 0)
    fail(std::string(name) + ": dropout_p must be in [0, 1], seed and offset "
                             "non-negative");
  if (a.D > kMaxHeadDim || a.Dv > kMaxHeadDim)
    fail(std::string(name) + ": head dimensions above " +
         std::to_string(kMaxHeadDim) +
         " are not supported by the CUDA kernels");
  if (a.B * a.H > 65535 || a.B * a.Hkv > 65535)
    fail(std::string(name) + ": more than 65535 (batch, head) pairs");
  a.group = a.H / a.Hkv;
  return a;
}

/// Sets the optional mask of `a`: the query's float type or i1,
/// broadcastable to [B, H, S, Skv].
void setAttentionMask(AttnParams &a, const Tensor *mask, const Tensor &q,
                      const char *name) {
  if (!mask)
    return;
  int64_t full[4] = {a.B, a.H, a.S, a.Skv};
  attentionMaskStrides(*mask, full, a.maskStride, name);
  if (mask->dtype == DType::I1)
    a.maskKind = 2;
  else if (mask->dtype == q.dtype)
    a.maskKind = 1;
  else
    fail(std::string(name) + ": the mask must be i1 or the query's type");
  a.mask = mask->data;
}

void requireShape4(const Tensor &t, int64_t d0, int64_t d1, int64_t d2,
                   int64_t d3, const char *what) {
  if (t.rank != 4 || t.shape[0] != d0 || t.shape[1] != d1 || t.shape[2] != d2 ||
      t.shape[3] != d3)
    fail(std::string(what) + " " + shapeString(t) + " does not match");
}

/// Lets `kernel` use `bytes` of dynamic shared memory.
template <typename Kernel>
void allowSharedMemory(CudaExecContext &ctx, Kernel kernel, size_t bytes) {
  if (bytes > 48 * 1024)
    CKPT_CUDA_CHECK(
        ctx, cudaFuncSetAttribute(kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
}

unsigned tiles(int64_t n, int tile) {
  return static_cast<unsigned>((n + tile - 1) / tile);
}

} // namespace

namespace kernels {

void attention(CudaExecContext &ctx, TensorList operands, TensorList results,
               const Attrs &attrs, const Tensor &) {
  const Tensor &q = get(operands, 0, "query"), &k = get(operands, 1, "key"),
               &v = get(operands, 2, "value");
  const Tensor &o = get(results, 0, "result"), &lse = get(results, 1, "lse");
  AttnParams a = attentionParams(ctx, q, k, v, attrs, "attention");
  setAttentionMask(a, optionalOperand(operands, attrs, 4, 3), q, "attention");
  requireSameType(q, o, "attention result");
  requireShape4(o, a.B, a.H, a.S, a.Dv, "attention result");
  requireF32(lse, "attention lse");
  requireNumel(lse, a.B * a.H * a.S, "attention lse");
  if (a.B * a.H * a.S == 0)
    return;
  size_t smem = sizeof(float) *
                (kQueryTile * a.D + kKeyTile * (a.D + 1) + kKeyTile * a.Dv);
  dim3 grid(tiles(a.S, kQueryTile), static_cast<unsigned>(a.B * a.H));
  dispatchFloat(q.dtype, "attention", [&](auto tag) {
    using T = decltype(tag);
    allowSharedMemory(ctx, attentionFwdKernel<T>, smem);
    attentionFwdKernel<T><<<grid, kFwdWarps * 32, smem, streamOf(ctx)>>>(
        q.as<const T>(), k.as<const T>(), v.as<const T>(), o.as<T>(),
        lse.as<float>(), a);
  });
  CKPT_LAUNCH_CHECK(ctx, "attention");
}

void attention_grad(CudaExecContext &ctx, TensorList operands,
                    TensorList results, const Attrs &attrs,
                    const Tensor &workspace) {
  const Tensor &dout = get(operands, 0, "grad"), &q = get(operands, 1, "query"),
               &k = get(operands, 2, "key"), &v = get(operands, 3, "value"),
               &o = get(operands, 4, "output"), &lse = get(operands, 5, "lse");
  const Tensor &dq = get(results, 0, "query gradient"),
               &dk = get(results, 1, "key gradient"),
               &dv = get(results, 2, "value gradient");
  AttnParams a = attentionParams(ctx, q, k, v, attrs, "attention_grad");
  setAttentionMask(a, optionalOperand(operands, attrs, 7, 6), q,
                   "attention_grad");
  for (const Tensor *t : {&dout, &o, &dq, &dk, &dv})
    requireSameType(q, *t, "attention_grad");
  requireShape4(dout, a.B, a.H, a.S, a.Dv, "attention_grad grad");
  requireShape4(o, a.B, a.H, a.S, a.Dv, "attention_grad output");
  requireSameShape(dq, q, "attention_grad query gradient");
  requireSameShape(dk, k, "attention_grad key gradient");
  requireSameShape(dv, v, "attention_grad value gradient");
  requireF32(lse, "attention_grad lse");
  requireNumel(lse, a.B * a.H * a.S, "attention_grad lse");
  int64_t rows = a.B * a.H * a.S;
  if (!workspace.present() ||
      workspace.bytes() < static_cast<uint64_t>(rows) * sizeof(float))
    fail("attention_grad: needs a workspace of " +
         std::to_string(rows * sizeof(float)) + " bytes (delta, f32 B*H*S)");
  float *delta = static_cast<float *>(workspace.data);
  cudaStream_t s = streamOf(ctx);
  size_t smemKv =
      sizeof(float) *
      (kKeyTile * a.D + kKeyTile * a.Dv + kBwdQueryTile * (a.D + 1) +
       kBwdQueryTile * (a.Dv + 1) + 2 * kBwdQueryTile);
  size_t smemQ = sizeof(float) * (kQueryTile * a.D + kQueryTile * a.Dv +
                                  kKeyTile * (a.D + 1) + kKeyTile * (a.Dv + 1));
  dispatchFloat(q.dtype, "attention_grad", [&](auto tag) {
    using T = decltype(tag);
    if (rows > 0) {
      attentionDeltaKernel<T><<<gridFor(rows * 32), kBlock, 0, s>>>(
          dout.as<const T>(), o.as<const T>(), delta, rows, a.Dv);
      CKPT_LAUNCH_CHECK(ctx, "attention_grad delta");
    }
    if (a.B * a.Hkv * a.Skv > 0) {
      allowSharedMemory(ctx, attentionDkDvKernel<T>, smemKv);
      dim3 grid(tiles(a.Skv, kKeyTile), static_cast<unsigned>(a.B * a.Hkv));
      attentionDkDvKernel<T><<<grid, kBwdWarps * 32, smemKv, s>>>(
          dout.as<const T>(), q.as<const T>(), k.as<const T>(), v.as<const T>(),
          lse.as<const float>(), delta, dk.as<T>(), dv.as<T>(), a);
      CKPT_LAUNCH_CHECK(ctx, "attention_grad dk/dv");
    }
    if (rows > 0) {
      allowSharedMemory(ctx, attentionDqKernel<T>, smemQ);
      dim3 grid(tiles(a.S, kQueryTile), static_cast<unsigned>(a.B * a.H));
      attentionDqKernel<T><<<grid, kFwdWarps * 32, smemQ, s>>>(
          dout.as<const T>(), q.as<const T>(), k.as<const T>(), v.as<const T>(),
          lse.as<const float>(), delta, dq.as<T>(), a);
      CKPT_LAUNCH_CHECK(ctx, "attention_grad dq");
    }
  });
}

} // namespace kernels
} // namespace ckpt::rt::cuda
