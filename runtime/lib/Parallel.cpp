//===- Parallel.cpp - Threads and argument checks of the kernels ------------===//
#include "KernelSupport.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ckpt::rt::detail {

namespace {
std::atomic<int> gThreads{1};
} // namespace

void setThreadCount(int threads) { gThreads = std::max(1, threads); }
int threadCount() { return gThreads; }

void parallelFor(int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &body) {
  if (n <= 0)
    return;
  int64_t workers = std::min<int64_t>(threadCount(), n / std::max<int64_t>(grain, 1));
  if (workers <= 1) {
    body(0, n);
    return;
  }
  std::exception_ptr error;
  std::mutex errorMutex;
  auto run = [&](int64_t w) {
    int64_t begin = n * w / workers, end = n * (w + 1) / workers;
    try {
      body(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (!error)
        error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (int64_t w = 1; w < workers; ++w)
    threads.emplace_back(run, w);
  run(0);
  for (std::thread &t : threads)
    t.join();
  if (error)
    std::rethrow_exception(error);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a,
          int64_t lda, const float *b, int64_t ldb, float beta, float *c,
          int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  int64_t tilesM = (m + kGemmTileRows - 1) / kGemmTileRows;
  int64_t tilesN = (n + kGemmTileCols - 1) / kGemmTileCols;
  parallelFor(tilesM * tilesN, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      int64_t i0 = (t / tilesN) * kGemmTileRows, j0 = (t % tilesN) * kGemmTileCols;
      int64_t mi = std::min(kGemmTileRows, m - i0), nj = std::min(kGemmTileCols, n - j0);
      // Rows i0.. of op(A) and columns j0.. of op(B).
      const float *at = ta ? a + i0 : a + i0 * lda;
      const float *bt = tb ? b + j0 * ldb : b + j0;
      cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                  tb ? CblasTrans : CblasNoTrans, static_cast<int>(mi),
                  static_cast<int>(nj), static_cast<int>(k), 1.0f, at,
                  static_cast<int>(lda), bt, static_cast<int>(ldb), beta,
                  c + i0 * ldc + j0, static_cast<int>(ldc));
    }
  });
}

const Tensor &get(TensorList list, size_t index, const char *what) {
  return requireOperand(list, index, what);
}

const Tensor *optionalOperand(TensorList operands, const Attrs &attrs,
                              size_t numSlots, size_t slot) {
  return findOptionalOperand(operands, attrs, numSlots, slot);
}

void requireF32(const Tensor &t, const char *what) {
  if (t.dtype != DType::F32)
    fail(std::string(what) + ": host kernels compute in f32 only");
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

void getPair(const Attrs &attrs, const char *name, int64_t &a, int64_t &b) {
  size_t n = 0;
  const int64_t *v = attrs.getInts(name, n);
  if (n != 2)
    fail(std::string("attribute '") + name + "' must have 2 entries");
  a = v[0];
  b = v[1];
}

/// Strides (in elements) of `t` right-aligned to a result of rank `rank`,
/// with 0 for broadcast dimensions. Throws if `t` does not broadcast to
/// `shape`.
std::vector<int64_t> broadcastStrides(const Tensor &t, const Tensor &result,
                                      const char *what) {
  int rank = result.rank;
  if (t.rank > rank)
    fail(std::string(what) + " of shape " + shapeString(t) +
         " does not broadcast to " + shapeString(result));
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    int r = rank - t.rank + i;
    if (t.shape[i] == result.shape[r])
      strides[r] = t.shape[i] == 1 ? 0 : s;
    else if (t.shape[i] == 1)
      strides[r] = 0;
    else
      fail(std::string(what) + " of shape " + shapeString(t) +
           " does not broadcast to " + shapeString(result));
    s *= t.shape[i];
  }
  return strides;
}

/// Offset of the start of row `row` (all dimensions but the last) of a
/// row-major result into an operand with `strides`.
int64_t rowOffset(const Tensor &result, const std::vector<int64_t> &strides,
                  int64_t row) {
  int64_t off = 0;
  for (int d = result.rank - 2; d >= 0; --d) {
    int64_t idx = row % result.shape[d];
    row /= result.shape[d];
    off += idx * strides[d];
  }
  return off;
}

bool overlaps(const Tensor &a, const Tensor &b) {
  if (!a.present() || !b.present())
    return false;
  auto a0 = reinterpret_cast<uintptr_t>(a.data), b0 = reinterpret_cast<uintptr_t>(b.data);
  return a0 < b0 + b.bytes() && b0 < a0 + a.bytes();
}

} // namespace ckpt::rt::detail
