//===- IndexingTest.cpp - Index arithmetic of the CUDA kernels ------------===//
//
// Indexing.h holds the index mappings the device kernels run (CKPT_HD code).
// Each test compares one mapping with a direct, loop-by-loop reference on
// many shapes drawn from a fixed seed (printed on failure).
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/Cuda/Indexing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace ckpt::rt::cuda;

namespace {

/// Multi-index of `linear` in row-major `shape`.
std::vector<int64_t> unravel(int64_t linear,
                             const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
    idx[k] = linear % shape[k];
    linear /= shape[k];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t> &idx,
              const std::vector<int64_t> &shape) {
  int64_t l = 0;
  for (size_t k = 0; k < shape.size(); ++k)
    l = l * shape[k] + idx[k];
  return l;
}

int64_t volume(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

TEST(CudaIndexingTest, BroadcastMatchesNumpyRule) {
  std::mt19937 rng(1);
  for (int iter = 0; iter < 300; ++iter) {
    int outRank = 1 + rng() % 5, inRank = rng() % (outRank + 1);
    std::vector<int64_t> out(outRank), in(inRank);
    for (auto &d : out)
      d = 1 + rng() % 4;
    for (int k = 0; k < inRank; ++k)
      in[k] = rng() % 3 == 0 ? 1 : out[k + outRank - inRank];
    StridedMap map;
    ASSERT_TRUE(makeBroadcastMap(in.data(), inRank, out.data(), outRank, map))
        << "iteration " << iter;
    for (int64_t i = 0; i < volume(out); ++i) {
      std::vector<int64_t> oi = unravel(i, out), ii(inRank);
      for (int k = 0; k < inRank; ++k)
        ii[k] = in[k] == 1 ? 0 : oi[k + outRank - inRank];
      ASSERT_EQ(map.offset(i), ravel(ii, in))
          << "iteration " << iter << " i " << i;
    }
  }
}

TEST(CudaIndexingTest, BroadcastRejectsMismatch) {
  int64_t in[] = {3}, out[] = {2, 4};
  StridedMap map;
  EXPECT_FALSE(makeBroadcastMap(in, 1, out, 2, map));
  int64_t big[] = {1, 2, 3};
  EXPECT_FALSE(makeBroadcastMap(big, 3, out, 2, map));
}

TEST(CudaIndexingTest, TransposeReadsPermutedElement) {
  std::mt19937 rng(2);
  for (int iter = 0; iter < 200; ++iter) {
    int rank = 1 + rng() % 5;
    std::vector<int64_t> in(rank), perm(rank), out(rank);
    for (auto &d : in)
      d = 1 + rng() % 4;
    for (int k = 0; k < rank; ++k)
      perm[k] = k;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int k = 0; k < rank; ++k)
      out[k] = in[perm[k]];
    StridedMap map;
    ASSERT_TRUE(makeTransposeMap(in.data(), rank, perm.data(), map));
    for (int64_t i = 0; i < volume(out); ++i) {
      std::vector<int64_t> oi = unravel(i, out), ii(rank);
      for (int k = 0; k < rank; ++k)
        ii[perm[k]] = oi[k];
      ASSERT_EQ(map.offset(i), ravel(ii, in)) << "iteration " << iter;
    }
  }
  int64_t shape[] = {2, 3}, bad[] = {0, 0};
  StridedMap map;
  EXPECT_FALSE(makeTransposeMap(shape, 2, bad, map));
}

TEST(CudaIndexingTest, SliceReadsStartPlusStep) {
  std::mt19937 rng(3);
  for (int iter = 0; iter < 200; ++iter) {
    int rank = 1 + rng() % 4;
    std::vector<int64_t> in(rank), out(rank), starts(rank), steps(rank);
    for (int k = 0; k < rank; ++k) {
      in[k] = 1 + rng() % 7;
      steps[k] = 1 + rng() % 3;
      starts[k] = rng() % in[k];
      out[k] = 1 + rng() % ((in[k] - 1 - starts[k]) / steps[k] + 1);
    }
    StridedMap map;
    ASSERT_TRUE(makeSliceMap(in.data(), out.data(), rank, starts.data(),
                             steps.data(), map));
    for (int64_t i = 0; i < volume(out); ++i) {
      std::vector<int64_t> oi = unravel(i, out), ii(rank);
      for (int k = 0; k < rank; ++k)
        ii[k] = starts[k] + oi[k] * steps[k];
      ASSERT_EQ(map.offset(i), ravel(ii, in)) << "iteration " << iter;
    }
  }
  int64_t in[] = {4}, out[] = {3}, starts[] = {2}, steps[] = {1};
  StridedMap map;
  EXPECT_FALSE(makeSliceMap(in, out, 1, starts, steps, map)); // reads index 4
}

// Every input element belongs to exactly one output, and each output visits
// its elements in increasing input order (the fixed summation order).
TEST(CudaIndexingTest, ReducePartitionsInputInOrder) {
  std::mt19937 rng(4);
  for (int iter = 0; iter < 200; ++iter) {
    int rank = 1 + rng() % 5;
    std::vector<int64_t> shape(rank), axes;
    for (auto &d : shape)
      d = 1 + rng() % 4;
    for (int k = 0; k < rank; ++k)
      if (rng() % 2)
        axes.push_back(k);
    ReduceMap map;
    ASSERT_TRUE(makeReduceMap(shape.data(), rank, axes.data(),
                              static_cast<int>(axes.size()), map));
    ASSERT_EQ(map.keptCount * map.reducedCount, volume(shape));
    std::vector<int> seen(volume(shape), 0);
    for (int64_t o = 0; o < map.keptCount; ++o) {
      int64_t prev = -1;
      for (int64_t r = 0; r < map.reducedCount; ++r) {
        int64_t e = map.kept.offset(o) + map.reduced.offset(r);
        ASSERT_GT(e, prev);
        prev = e;
        ++seen[e];
        // The element's kept coordinates, in order, give o.
        std::vector<int64_t> idx = unravel(e, shape), kept;
        std::vector<int64_t> keptShape;
        for (int k = 0; k < rank; ++k)
          if (std::find(axes.begin(), axes.end(), k) == axes.end()) {
            kept.push_back(idx[k]);
            keptShape.push_back(shape[k]);
          }
        ASSERT_EQ(ravel(kept, keptShape), o);
      }
    }
    for (int s : seen)
      ASSERT_EQ(s, 1);
  }
  int64_t shape[] = {2, 3}, unsorted[] = {1, 0}, outOfRange[] = {2};
  ReduceMap map;
  EXPECT_FALSE(makeReduceMap(shape, 2, unsorted, 2, map));
  EXPECT_FALSE(makeReduceMap(shape, 2, outOfRange, 1, map));
}

ConvGeometry randomConv(std::mt19937 &rng) {
  ConvGeometry g;
  g.batch = 1;
  g.groups = 1 + rng() % 2;
  g.channels = g.groups * (1 + rng() % 2);
  g.outChannels = g.groups;
  g.height = 1 + rng() % 7;
  g.width = 1 + rng() % 7;
  g.kernelH = 1 + rng() % 3;
  g.kernelW = 1 + rng() % 3;
  g.strideH = 1 + rng() % 2;
  g.strideW = 1 + rng() % 3;
  g.padH = rng() % 2;
  g.padW = rng() % 3;
  g.dilationH = 1 + rng() % 2;
  g.dilationW = 1 + rng() % 2;
  g.outHeight =
      convOutputSize(g.height, g.kernelH, g.strideH, g.padH, g.dilationH);
  g.outWidth =
      convOutputSize(g.width, g.kernelW, g.strideW, g.padW, g.dilationW);
  return g;
}

// im2col against the convolution's definition, and col2im as its exact
// adjoint: the gather visits precisely the matrix entries that read an input
// element, in increasing (kernel row, kernel column) order.
TEST(CudaIndexingTest, Im2colAndCol2imAreAdjoint) {
  std::mt19937 rng(5);
  int checked = 0;
  for (int iter = 0; iter < 500; ++iter) {
    ConvGeometry g = randomConv(rng);
    if (g.outHeight < 1 || g.outWidth < 1)
      continue;
    ++checked;
    int64_t rows = g.channels * g.kernelH * g.kernelW, cols = g.colCols();
    std::vector<std::vector<int64_t>> readers(g.channels * g.height * g.width);
    for (int64_t c = 0; c < g.channels; ++c)
      for (int64_t ki = 0; ki < g.kernelH; ++ki)
        for (int64_t kj = 0; kj < g.kernelW; ++kj)
          for (int64_t oh = 0; oh < g.outHeight; ++oh)
            for (int64_t ow = 0; ow < g.outWidth; ++ow) {
              int64_t row = (c * g.kernelH + ki) * g.kernelW + kj;
              int64_t col = oh * g.outWidth + ow;
              int64_t h = oh * g.strideH - g.padH + ki * g.dilationH;
              int64_t w = ow * g.strideW - g.padW + kj * g.dilationW;
              bool inside = h >= 0 && h < g.height && w >= 0 && w < g.width;
              int64_t expect = inside ? (c * g.height + h) * g.width + w : -1;
              ASSERT_EQ(im2colSource(g, row, col), expect)
                  << "iteration " << iter;
              if (inside)
                readers[expect].push_back(row * cols + col);
            }
    ASSERT_EQ(static_cast<int64_t>(readers.size()),
              g.channels * g.height * g.width);
    for (int64_t c = 0; c < g.channels; ++c)
      for (int64_t h = 0; h < g.height; ++h)
        for (int64_t w = 0; w < g.width; ++w) {
          std::vector<int64_t> visited;
          col2imGather(g, c, h, w, [&](int64_t e) { visited.push_back(e); });
          std::vector<int64_t> expect =
              readers[(c * g.height + h) * g.width + w];
          ASSERT_EQ(visited, expect) << "iteration " << iter;
          for (int64_t e : visited)
            ASSERT_LT(e, rows * cols);
        }
  }
  EXPECT_GT(checked, 400);
}

TEST(CudaIndexingTest, PointwiseMatchesPlannerRule) {
  ConvGeometry g{};
  g.kernelH = g.kernelW = g.strideH = g.strideW = 1;
  g.dilationH = g.dilationW = 2; // Irrelevant for a 1x1 kernel.
  EXPECT_TRUE(g.pointwise());
  g.padW = 1;
  EXPECT_FALSE(g.pointwise());
  g.padW = 0;
  g.strideH = 2;
  EXPECT_FALSE(g.pointwise());
}

TEST(CudaIndexingTest, ConvOutputSizeMatchesTorchFormula) {
  EXPECT_EQ(convOutputSize(8, 3, 1, 1, 1), 8);
  EXPECT_EQ(convOutputSize(224, 7, 2, 3, 1), 112);
  EXPECT_EQ(convOutputSize(8, 3, 1, 0, 2), 4);
  EXPECT_EQ(convOutputSize(7, 2, 2, 0, 1), 3);
}

// The output range of every input position equals the outputs whose window
// covers it.
TEST(CudaIndexingTest, PoolOutputRangeCoversExactly) {
  for (int64_t kernel = 1; kernel <= 4; ++kernel)
    for (int64_t stride = 1; stride <= 3; ++stride)
      for (int64_t pad = 0; pad <= kernel / 2; ++pad)
        for (int64_t in = 1; in <= 9; ++in) {
          int64_t out = convOutputSize(in, kernel, stride, pad, 1);
          if (out < 1)
            continue;
          for (int64_t x = 0; x < in; ++x) {
            int64_t begin, end;
            poolOutputRange(x, kernel, stride, pad, out, begin, end);
            for (int64_t o = 0; o < out; ++o) {
              bool covers =
                  o * stride - pad <= x && x < o * stride - pad + kernel;
              EXPECT_EQ(covers, o >= begin && o < end)
                  << "k" << kernel << " s" << stride << " p" << pad << " in"
                  << in << " x" << x << " o" << o;
            }
          }
        }
}

// Tile bounds of the flash-attention kernels against the per-pair mask.
TEST(CudaIndexingTest, AttentionTileBounds) {
  for (bool causal : {false, true})
    for (int64_t S = 1; S <= 40; S += 3)
      for (int64_t Skv = 1; Skv <= 40; Skv += 5) {
        auto attends = [&](int64_t i, int64_t j) { return !causal || j <= i; };
        for (int64_t i = 0; i < S; ++i) {
          int64_t end = attentionKeyEnd(i, Skv, causal);
          for (int64_t j = 0; j < Skv; ++j)
            ASSERT_EQ(j < end, attends(i, j)) << causal << " " << i << " " << j;
        }
        for (int64_t q0 = 0; q0 < S; q0 += 16) {
          int64_t q1 = std::min(q0 + 16, S),
                  end = attentionTileKeyEnd(q0, q1, Skv, causal);
          int64_t expect = 0;
          for (int64_t i = q0; i < q1; ++i)
            for (int64_t j = 0; j < Skv; ++j)
              if (attends(i, j))
                expect = std::max(expect, j + 1);
          ASSERT_EQ(end, expect);
        }
        for (int64_t k0 = 0; k0 < Skv; k0 += 32) {
          int64_t k1 = std::min(k0 + 32, Skv);
          int64_t begin = attentionTileQueryBegin(k0, S, causal), expect = S;
          for (int64_t i = S - 1; i >= 0; --i)
            for (int64_t j = k0; j < k1; ++j)
              if (attends(i, j))
                expect = i;
          // No query attends a key of the tile: the range is empty.
          ASSERT_EQ(begin, expect)
              << causal << " S" << S << " Skv" << Skv << " k0 " << k0;
        }
      }
}

TEST(CudaIndexingTest, AttentionDropoutIndexIsRowMajor) {
  int64_t S = 5, Skv = 7;
  uint64_t n = 0;
  for (int64_t bh = 0; bh < 3; ++bh)
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = 0; j < Skv; ++j)
        EXPECT_EQ(attentionDropoutIndex(bh, i, j, S, Skv), n++);
}

} // namespace

namespace {

// Chunks cover every row exactly once, in order, and the partials fit.
TEST(CudaIndexingTest, ColumnPlanCoversRowsWithinBudget) {
  const int64_t rowCounts[] = {0, 1, 511, 512, 1025, 16384, 1 << 20};
  const int64_t colCounts[] = {1, 768, 50257, 1 << 22, 1 << 23};
  for (int64_t rows : rowCounts)
    for (int64_t cols : colCounts) {
      uint64_t budget = 32ull << 20;
      ColumnPlan p = planColumns(rows, cols, budget);
      ASSERT_GE(p.chunks, 1);
      ASSERT_LE(p.chunks, 256);
      ASSERT_GE(p.chunks * p.rowsPerChunk, rows);
      // No empty trailing chunk beyond the first: every chunk starts in range.
      if (rows > 0) {
        ASSERT_LT((p.chunks - 1) * p.rowsPerChunk, rows) << rows << " " << cols;
      }
      if (p.chunks > 1) {
        ASSERT_LE(static_cast<uint64_t>(p.chunks * cols) * 8, budget);
      }
    }
  EXPECT_EQ(planColumns(16384, 768, 32ull << 20).chunks, 32);
  EXPECT_EQ(planColumns(100, 768, 32ull << 20).chunks, 1);
}

} // namespace
