//===- Indexing.h - Index arithmetic of the CUDA kernels --------*- C++ -*-===//
//
// The index mappings the device kernels use, as plain `CKPT_HD` inline code so
// that the host unit tests (unittests/RuntimeCuda) check exactly what runs on
// the GPU: strided views (numpy broadcasting, transpose, slice), reductions
// over arbitrary axes, im2col / col2im, pooling windows and the tile bounds
// of the flash-attention kernels. All tensors are dense row-major.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_INDEXING_H
#define CKPT_RUNTIME_CUDA_INDEXING_H

#include "ckpt/Runtime/Cuda/HostDevice.h"

#include <cstdint>

namespace ckpt::rt::cuda {

/// The largest rank of a runtime tensor (equals `ckpt::rt::kMaxRank`).
constexpr int kMaxIndexRank = 8;

/// Maps a linear index over a row-major `shape` to an element offset
/// `base + sum(idx[k] * strides[k])` of another tensor. Broadcasting is a
/// stride of 0, a transpose permutes strides, a slice scales them by its
/// steps and moves `base` to its start. Passed to kernels by value.
struct StridedMap {
  int rank = 0;
  int64_t shape[kMaxIndexRank] = {};
  int64_t strides[kMaxIndexRank] = {};
  int64_t base = 0;

  /// The source offset of linear index `linear` of `shape`.
  CKPT_HD int64_t offset(int64_t linear) const {
    int64_t off = base;
    for (int k = rank - 1; k >= 0; --k) {
      int64_t d = shape[k];
      int64_t i = linear % d;
      linear /= d;
      off += i * strides[k];
    }
    return off;
  }
};

/// Row-major strides (in elements) of `shape`.
CKPT_HD inline void rowMajorStrides(const int64_t *shape, int rank,
                                    int64_t *strides) {
  int64_t s = 1;
  for (int k = rank - 1; k >= 0; --k) {
    strides[k] = s;
    s *= shape[k];
  }
}

/// The map of a numpy broadcast of `inShape` (rank `inRank`) to `outShape`
/// (rank `outRank >= inRank`, trailing alignment). Returns false when the
/// shapes do not broadcast.
CKPT_HD inline bool makeBroadcastMap(const int64_t *inShape, int inRank,
                                     const int64_t *outShape, int outRank,
                                     StridedMap &map) {
  if (inRank > outRank || outRank > kMaxIndexRank || inRank < 0)
    return false;
  int64_t inStrides[kMaxIndexRank] = {};
  rowMajorStrides(inShape, inRank, inStrides);
  map.rank = outRank;
  map.base = 0;
  for (int k = 0; k < outRank; ++k) {
    map.shape[k] = outShape[k];
    int ik = k - (outRank - inRank);
    if (ik < 0) {
      map.strides[k] = 0;
      continue;
    }
    if (inShape[ik] == outShape[k])
      map.strides[k] = inShape[ik] == 1 ? 0 : inStrides[ik];
    else if (inShape[ik] == 1)
      map.strides[k] = 0;
    else
      return false;
  }
  return true;
}

/// The map of `transpose` with `result.shape[i] = input.shape[perm[i]]`:
/// iterating the result reads the input.
CKPT_HD inline bool makeTransposeMap(const int64_t *inShape, int rank,
                                     const int64_t *perm, StridedMap &map) {
  if (rank > kMaxIndexRank || rank < 0)
    return false;
  int64_t inStrides[kMaxIndexRank] = {};
  rowMajorStrides(inShape, rank, inStrides);
  bool seen[kMaxIndexRank] = {};
  map.rank = rank;
  map.base = 0;
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
      return false;
    seen[perm[i]] = true;
    map.shape[i] = inShape[perm[i]];
    map.strides[i] = inStrides[perm[i]];
  }
  return true;
}

/// The map of `slice` (`result[i...] = input[starts + i * steps ...]`).
/// Returns false if an index read would fall outside the input.
CKPT_HD inline bool makeSliceMap(const int64_t *inShape,
                                 const int64_t *outShape, int rank,
                                 const int64_t *starts, const int64_t *steps,
                                 StridedMap &map) {
  if (rank > kMaxIndexRank || rank < 0)
    return false;
  int64_t inStrides[kMaxIndexRank] = {};
  rowMajorStrides(inShape, rank, inStrides);
  map.rank = rank;
  map.base = 0;
  for (int k = 0; k < rank; ++k) {
    map.shape[k] = outShape[k];
    if (outShape[k] > 0) {
      int64_t last = starts[k] + (outShape[k] - 1) * steps[k];
      if (starts[k] < 0 || starts[k] >= inShape[k] || last < 0 ||
          last >= inShape[k])
        return false;
    }
    map.base += starts[k] * inStrides[k];
    map.strides[k] = steps[k] * inStrides[k];
  }
  return true;
}

/// A reduction of a row-major input over a set of axes: output element `o`
/// (row-major over the kept dimensions) reduces the input elements
/// `kept.offset(o) + reduced.offset(r)` for `r` in `[0, reducedCount)`,
/// always in increasing `r` (the fixed order that makes sums deterministic).
struct ReduceMap {
  StridedMap kept;
  StridedMap reduced;
  int64_t keptCount = 1;
  int64_t reducedCount = 1;
};

/// Builds the map of a reduction of `shape` over the sorted, distinct `axes`.
CKPT_HD inline bool makeReduceMap(const int64_t *shape, int rank,
                                  const int64_t *axes, int numAxes,
                                  ReduceMap &map) {
  if (rank > kMaxIndexRank || rank < 0)
    return false;
  int64_t strides[kMaxIndexRank] = {};
  rowMajorStrides(shape, rank, strides);
  map.kept = StridedMap();
  map.reduced = StridedMap();
  map.keptCount = map.reducedCount = 1;
  int next = 0;
  for (int k = 0; k < rank; ++k) {
    bool isReduced = next < numAxes && axes[next] == k;
    if (isReduced)
      ++next;
    StridedMap &m = isReduced ? map.reduced : map.kept;
    m.shape[m.rank] = shape[k];
    m.strides[m.rank] = strides[k];
    ++m.rank;
    (isReduced ? map.reducedCount : map.keptCount) *= shape[k];
  }
  return next == numAxes; // Every axis in range and sorted.
}

/// How a column sum over `rows` rows of `cols` columns is split: `chunks`
/// chunks of `rowsPerChunk` consecutive rows (the last may be shorter), each
/// summed into one partial per column, the partials then added in chunk
/// order.
struct ColumnPlan {
  int64_t rows, cols, chunks, rowsPerChunk;
};

/// About 512 rows per chunk and at most 256 chunks, with the partials (two
/// f32 per column and chunk, 8 bytes) within `budgetBytes`; one chunk when
/// even a second does not fit. Depends on the shape only.
CKPT_HD inline ColumnPlan planColumns(int64_t rows, int64_t cols,
                                      uint64_t budgetBytes) {
  int64_t chunks = rows / 512;
  if (chunks > 256)
    chunks = 256;
  int64_t fit = cols > 0 ? static_cast<int64_t>(budgetBytes / 8) / cols : 256;
  if (chunks > fit)
    chunks = fit;
  if (chunks < 1)
    chunks = 1;
  int64_t per = (rows + chunks - 1) / chunks;
  return {rows, cols, chunks, per > 0 ? per : 1};
}

/// Geometry of one 2-D convolution (NCHW input, OIHW weight).
struct ConvGeometry {
  int64_t batch, channels, height, width; // Input N, C, H, W.
  int64_t outChannels, outHeight, outWidth;
  int64_t kernelH, kernelW, strideH, strideW, padH, padW, dilationH, dilationW;
  int64_t groups;

  /// Input channels per group.
  CKPT_HD int64_t groupChannels() const { return channels / groups; }
  /// Rows of one group's im2col matrix: `(C / groups) * kh * kw`.
  CKPT_HD int64_t colRows() const {
    return groupChannels() * kernelH * kernelW;
  }
  /// Columns of the im2col matrix: `Ho * Wo`.
  CKPT_HD int64_t colCols() const { return outHeight * outWidth; }
  /// True for a 1x1 kernel with unit stride and no padding: the input image
  /// is its own im2col matrix and no workspace is needed.
  CKPT_HD bool pointwise() const {
    return kernelH == 1 && kernelW == 1 && strideH == 1 && strideW == 1 &&
           padH == 0 && padW == 0;
  }
};

/// Output extent of a convolution / pooling along one dimension.
CKPT_HD inline int64_t convOutputSize(int64_t in, int64_t kernel,
                                      int64_t stride, int64_t pad,
                                      int64_t dilation) {
  return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
}

/// im2col of one image: element `(row, col)` of the `[C*kh*kw, Ho*Wo]` matrix
/// (rows ordered channel-major, then kernel row, then kernel column; columns
/// row-major over the output) reads input element `c*H*W + h*W + w` of the
/// image, or nothing (-1) where the window lies in the zero padding.
CKPT_HD inline int64_t im2colSource(const ConvGeometry &g, int64_t row,
                                    int64_t col) {
  int64_t kj = row % g.kernelW;
  int64_t ki = (row / g.kernelW) % g.kernelH;
  int64_t c = row / (g.kernelW * g.kernelH);
  int64_t ow = col % g.outWidth;
  int64_t oh = col / g.outWidth;
  int64_t h = oh * g.strideH - g.padH + ki * g.dilationH;
  int64_t w = ow * g.strideW - g.padW + kj * g.dilationW;
  if (h < 0 || h >= g.height || w < 0 || w >= g.width)
    return -1;
  return (c * g.height + h) * g.width + w;
}

/// col2im as a gather (no atomics, fixed order): calls `visit(colIndex)` for
/// every element `row * Ho*Wo + col` of the im2col matrix that reads input
/// element `(c, h, w)`, in increasing kernel row, then kernel column. The
/// input gradient of that element is the sum of the visited elements.
template <typename Visit>
CKPT_HD inline void col2imGather(const ConvGeometry &g, int64_t c, int64_t h,
                                 int64_t w, Visit visit) {
  int64_t cols = g.colCols();
  for (int64_t ki = 0; ki < g.kernelH; ++ki) {
    int64_t hh = h + g.padH - ki * g.dilationH;
    if (hh < 0 || hh % g.strideH != 0)
      continue;
    int64_t oh = hh / g.strideH;
    if (oh >= g.outHeight)
      continue;
    for (int64_t kj = 0; kj < g.kernelW; ++kj) {
      int64_t ww = w + g.padW - kj * g.dilationW;
      if (ww < 0 || ww % g.strideW != 0)
        continue;
      int64_t ow = ww / g.strideW;
      if (ow >= g.outWidth)
        continue;
      int64_t row = (c * g.kernelH + ki) * g.kernelW + kj;
      visit(row * cols + oh * g.outWidth + ow);
    }
  }
}

/// The half-open range `[begin, end)` of output positions along one
/// dimension whose pooling window (`kernel`, `stride`, `pad`) contains input
/// position `x`, clipped to `[0, outSize)`.
CKPT_HD inline void poolOutputRange(int64_t x, int64_t kernel, int64_t stride,
                                    int64_t pad, int64_t outSize,
                                    int64_t &begin, int64_t &end) {
  // o covers x iff o*stride - pad <= x < o*stride - pad + kernel.
  int64_t hi = x + pad;          // o*stride <= hi
  int64_t lo = x + pad - kernel; // o*stride > lo
  begin = lo < 0 ? 0 : lo / stride + 1;
  end = hi < 0 ? 0 : hi / stride + 1;
  if (end > outSize)
    end = outSize;
  if (begin > end)
    begin = end;
}

/// Number of keys query `i` attends to: all `numKeys`, or with `causal`
/// (top-left aligned, key j masked for j > i) `min(i + 1, numKeys)`.
CKPT_HD inline int64_t attentionKeyEnd(int64_t i, int64_t numKeys,
                                       bool causal) {
  if (!causal)
    return numKeys;
  return i + 1 < numKeys ? i + 1 : numKeys;
}

/// Keys a tile of queries `[q0, q1)` must visit: `[0, end)`.
CKPT_HD inline int64_t attentionTileKeyEnd(int64_t q0, int64_t q1,
                                           int64_t numKeys, bool causal) {
  if (q1 <= q0)
    return 0;
  return attentionKeyEnd(q1 - 1, numKeys, causal);
}

/// First query that attends to any key of the tile `[k0, k1)`: 0, or with
/// `causal` the first query `i >= k0` (the tile's queries are `[begin, S)`).
CKPT_HD inline int64_t attentionTileQueryBegin(int64_t k0, int64_t numQueries,
                                               bool causal) {
  if (!causal)
    return 0;
  return k0 < numQueries ? k0 : numQueries;
}

/// Index of the dropout draw of probability `(b, h, i, j)` of an attention
/// with `H` query heads, `S` queries and `Skv` keys, relative to the op's
/// `offset`: the row-major position in the `[B, H, S, Skv]` matrix.
CKPT_HD inline uint64_t attentionDropoutIndex(int64_t bh, int64_t i, int64_t j,
                                              int64_t S, int64_t Skv) {
  return (static_cast<uint64_t>(bh) * S + i) * Skv + j;
}

} // namespace ckpt::rt::cuda

#endif // CKPT_RUNTIME_CUDA_INDEXING_H
