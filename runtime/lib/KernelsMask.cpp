//===- KernelsMask.cpp - Host kernels of masks and position ids -----------===//
//
// iota, compare, select, the logical ops on i1, neg / abs / minimum / maximum
// (on floats and integers), tril / triu, pad and gather: what attention masks,
// position ids and relative-position buckets are made of; and the i32 / i64
// path of add, sub and mul (position ids), which Kernels.cpp's kernels call. Every kernel moves
// elements by their byte size where it does not look at them, so all element
// types of the host runtime work; the call checks shared with the device
// kernels (iotaParams, comparePredicate, padLow, gatherDim) are in
// KernelChecks.cpp.
//
// An operand whose storage overlaps the result (the planner may give a
// result the storage of an operand it no longer needs) is read from a copy
// unless it is the very same elements, which elementwise loops may update in
// place.
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

using namespace ckpt::rt::detail;

namespace ckpt::rt {

namespace {


/// The data `t` is read from while `r` is written: `t` itself, or a copy in
/// `keep` when `t` overlaps `r` other than as the same elements.
const char *readable(const Tensor &t, const Tensor &r, std::vector<char> &keep) {
  const char *p = static_cast<const char *>(t.data);
  bool sameElements = t.data == r.data && sameShape(t, r) &&
                      elementBytes(t.dtype) == elementBytes(r.dtype);
  if (sameElements || !overlaps(t, r))
    return p;
  keep.assign(p, p + t.bytes());
  return keep.data();
}

/// Calls `f(i, off)` for every element `i` of the row-major result `r`, with
/// `off[k]` the element offset of operand `k` under numpy broadcasting.
/// Parallel over rows; `f` must only write element `i`.
template <size_t N, typename F>
void broadcastLoop(const Tensor &r, const Tensor *const (&operands)[N],
                   const char *const (&names)[N], F f) {
  std::vector<int64_t> strides[N];
  for (size_t k = 0; k < N; ++k)
    strides[k] = broadcastStrides(*operands[k], r, names[k]);
  if (r.rank == 0) {
    int64_t off[N] = {};
    f(int64_t{0}, off);
    return;
  }
  int64_t inner = r.shape[r.rank - 1];
  int64_t rows = inner == 0 ? 0 : r.numel() / inner;
  parallelFor(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(inner, 1)),
              [&](int64_t lo, int64_t hi) {
                for (int64_t row = lo; row < hi; ++row) {
                  int64_t base[N], step[N], off[N];
                  for (size_t k = 0; k < N; ++k) {
                    base[k] = rowOffset(r, strides[k], row);
                    step[k] = strides[k][r.rank - 1];
                  }
                  for (int64_t j = 0; j < inner; ++j) {
                    for (size_t k = 0; k < N; ++k)
                      off[k] = base[k] + j * step[k];
                    f(row * inner + j, off);
                  }
                }
              });
}

/// Calls `body(T{})` with T the C++ type of an element of `type` for kernels
/// that look at values (f32, i1 as uint8_t, i32, i64).
template <typename Body>
void dispatchValue(DType type, const char *what, Body body) {
  switch (type) {
  case DType::F32: body(float{}); return;
  case DType::I1: body(uint8_t{}); return;
  case DType::I32: body(int32_t{}); return;
  case DType::I64: body(int64_t{}); return;
  default: fail(std::string(what) + ": host kernels have no " + dtypeName(type));
  }
}

/// Calls `body(U{})` with U an unsigned type of `type`'s element size.
template <typename Body> void dispatchBytes(DType type, Body body) {
  switch (elementBytes(type)) {
  case 1: body(uint8_t{}); return;
  case 2: body(uint16_t{}); return;
  case 4: body(uint32_t{}); return;
  default: body(uint64_t{}); return;
  }
}

void requireDType(const Tensor &t, DType type, const char *what) {
  if (t.dtype != type)
    fail(std::string(what) + " must be " + dtypeName(type) + ", got " +
         dtypeName(t.dtype));
}

/// `r = f(a[, b])` on i1 tensors with broadcasting.
template <size_t N, typename F>
void logical(TensorList operands, TensorList results, const char *name, F f) {
  const Tensor &r = get(results, 0, "result");
  requireDType(r, DType::I1, name);
  const Tensor *ops[N];
  std::vector<char> keep[N];
  const uint8_t *p[N];
  const char *const names[2] = {N == 1 ? "input" : "lhs", "rhs"};
  const char *opNames[N];
  for (size_t k = 0; k < N; ++k) {
    ops[k] = &get(operands, k, names[k]);
    opNames[k] = names[k];
    requireDType(*ops[k], DType::I1, name);
    p[k] = reinterpret_cast<const uint8_t *>(readable(*ops[k], r, keep[k]));
  }
  if (N == 1)
    requireSameShape(*ops[0], r, name);
  uint8_t *pr = r.as<uint8_t>();
  broadcastLoop(r, ops, opNames, [&](int64_t i, const int64_t *off) {
    bool v[N];
    for (size_t k = 0; k < N; ++k)
      v[k] = p[k][off[k]] != 0;
    pr[i] = f(v) ? 1 : 0;
  });
}

/// Keeps the elements `keep(row, col)` of the last two dimensions of `x`.
template <typename Keep>
void triangle(TensorList operands, TensorList results, const char *name,
              Keep keep) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &r = get(results, 0, "result");
  if (x.dtype != r.dtype)
    fail(std::string(name) + ": element types differ");
  requireSameShape(x, r, name);
  if (x.rank < 2)
    fail(std::string(name) + ": the input must have rank 2 or more, got " +
         shapeString(x));
  std::vector<char> copy;
  const char *src = readable(x, r, copy);
  int64_t rows = x.shape[x.rank - 2], cols = x.shape[x.rank - 1];
  int64_t lines = rows == 0 || cols == 0 ? 0 : x.numel() / cols;
  dispatchBytes(x.dtype, [&](auto tag) {
    using U = decltype(tag);
    const U *px = reinterpret_cast<const U *>(src);
    U *pr = r.as<U>();
    parallelFor(lines, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(cols, 1)),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t line = lo; line < hi; ++line) {
                    int64_t i = line % rows;
                    for (int64_t j = 0; j < cols; ++j) {
                      U v = px[line * cols + j];
                      pr[line * cols + j] = keep(i, j) ? v : U{0};
                    }
                  }
                });
  });
}

/// `r = fi(x)` on i32 / i64 tensors or `ff(x)` on f32 ones, same shape.
template <typename FI, typename FF>
void signedUnary(TensorList operands, TensorList results, const char *name,
                 FI fi, FF ff) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &r = get(results, 0, "result");
  if (x.dtype != r.dtype)
    fail(std::string(name) + ": element types differ");
  requireSameShape(x, r, name);
  std::vector<char> copy;
  const char *src = readable(x, r, copy);
  auto run = [&](auto tag, auto f) {
    using T = decltype(tag);
    const T *px = reinterpret_cast<const T *>(src);
    T *pr = r.as<T>();
    parallelFor(r.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        pr[i] = f(px[i]);
    });
  };
  switch (x.dtype) {
  case DType::F32: run(float{}, ff); return;
  case DType::I32: run(int32_t{}, fi); return;
  case DType::I64: run(int64_t{}, fi); return;
  default:
    fail(std::string(name) + ": host kernels take f32, i32 or i64, got " +
         dtypeName(x.dtype));
  }
}

/// `-v` with two's complement wrap-around (the minimum maps to itself).
template <typename T> T wrappingNeg(T v) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U{0} - static_cast<U>(v));
}

/// `r = lhs < rhs ? lhs : rhs` (`takeMin`) or `lhs > rhs ? lhs : rhs`
/// elementwise with broadcasting, on f32 / i32 / i64 tensors of one type; a
/// NaN operand gives NaN (PyTorch's minimum / maximum, vectorized loop).
void extremum(TensorList operands, TensorList results, const char *name,
              bool takeMin) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &r = get(results, 0, "result");
  if (a.dtype != r.dtype || b.dtype != r.dtype)
    fail(std::string(name) + ": element types differ");
  if (r.dtype != DType::F32 && r.dtype != DType::I32 && r.dtype != DType::I64)
    fail(std::string(name) + ": host kernels take f32, i32 or i64, got " +
         dtypeName(r.dtype));
  std::vector<char> keepA, keepB;
  const char *pa = readable(a, r, keepA), *pb = readable(b, r, keepB);
  const Tensor *ops[2] = {&a, &b};
  const char *const names[2] = {"lhs", "rhs"};
  dispatchValue(r.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    const T *x = reinterpret_cast<const T *>(pa);
    const T *y = reinterpret_cast<const T *>(pb);
    T *pr = r.as<T>();
    broadcastLoop(r, ops, names, [&](int64_t i, const int64_t *off) {
      T u = x[off[0]], v = y[off[1]];
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(u) || std::isnan(v)) {
          pr[i] = std::numeric_limits<T>::quiet_NaN();
          return;
        }
      }
      pr[i] = (takeMin ? u < v : u > v) ? u : v;
    });
  });
}

} // namespace

bool detail::integerArithmetic(TensorList operands, TensorList results, char op,
                               const char *name) {
  const Tensor &r = get(results, 0, "result");
  if (r.dtype != DType::I32 && r.dtype != DType::I64)
    return false;
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  if (a.dtype != r.dtype || b.dtype != r.dtype)
    fail(std::string(name) + ": element types differ");
  std::vector<char> keepA, keepB;
  const char *pa = readable(a, r, keepA), *pb = readable(b, r, keepB);
  const Tensor *ops[2] = {&a, &b};
  const char *const names[2] = {"lhs", "rhs"};
  auto run = [&](auto tag) {
    using T = decltype(tag);
    // Unsigned arithmetic wraps around without undefined behaviour; the
    // two's complement bits are PyTorch's.
    using U = std::make_unsigned_t<T>;
    const T *x = reinterpret_cast<const T *>(pa);
    const T *y = reinterpret_cast<const T *>(pb);
    T *pr = r.as<T>();
    broadcastLoop(r, ops, names, [&](int64_t i, const int64_t *off) {
      U u = static_cast<U>(x[off[0]]), v = static_cast<U>(y[off[1]]);
      U w = op == '+' ? U(u + v) : op == '-' ? U(u - v) : U(u * v);
      pr[i] = static_cast<T>(w);
    });
  };
  if (r.dtype == DType::I32)
    run(int32_t{});
  else
    run(int64_t{});
  return true;
}

namespace kernels {

//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

void iota(ExecContext &, TensorList, TensorList results, const Attrs &attrs,
          const Tensor &) {
  const Tensor &r = get(results, 0, "result");
  requireRank(r, 1, "iota result");
  IotaParams p = iotaParams(attrs, r);
  int64_t n = r.shape[0];
  switch (r.dtype) {
  case DType::I32:
  case DType::I64:
    // iotaParams checked that every element fits.
    parallelFor(n, kElementGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        int64_t v = p.startInt + i * p.stepInt;
        if (r.dtype == DType::I32)
          r.as<int32_t>()[i] = static_cast<int32_t>(v);
        else
          r.as<int64_t>()[i] = v;
      }
    });
    return;
  case DType::F32: {
    // PyTorch's CPU arange for f32 (docs/dialect.md): in f64, blocks of 8
    // elements from their first element rounded to f32, over the leading
    // multiple of 16 elements; the rest element by element.
    float *pr = r.as<float>();
    int64_t blocked = n / 16 * 16;
    for (int64_t i = 0; i < n; ++i) {
      if (i < blocked) {
        int64_t b = i / 8 * 8;
        float base = static_cast<float>(p.start + p.step * static_cast<double>(b));
        pr[i] = static_cast<float>(static_cast<double>(base) +
                                   static_cast<double>(i - b) * p.step);
      } else {
        pr[i] = static_cast<float>(p.start + p.step * static_cast<double>(i));
      }
    }
    return;
  }
  default:
    fail(std::string("iota: host kernels have no ") + dtypeName(r.dtype) +
         " result");
  }
}

//===----------------------------------------------------------------------===//
// compare, select, logical ops
//===----------------------------------------------------------------------===//

void compare(ExecContext &, TensorList operands, TensorList results,
             const Attrs &attrs, const Tensor &) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &r = get(results, 0, "result");
  requireDType(r, DType::I1, "compare result");
  if (a.dtype != b.dtype)
    fail("compare: element types differ");
  ComparePredicate pred = comparePredicate(attrs);
  std::vector<char> keepA, keepB;
  const char *pa = readable(a, r, keepA), *pb = readable(b, r, keepB);
  uint8_t *pr = r.as<uint8_t>();
  const Tensor *ops[2] = {&a, &b};
  const char *const names[2] = {"lhs", "rhs"};
  dispatchValue(a.dtype, "compare", [&](auto tag) {
    using T = decltype(tag);
    const T *x = reinterpret_cast<const T *>(pa);
    const T *y = reinterpret_cast<const T *>(pb);
    // IEEE comparisons: every predicate but `ne` is false on NaN.
    auto run = [&](auto cmp) {
      broadcastLoop(r, ops, names, [&](int64_t i, const int64_t *off) {
        pr[i] = cmp(x[off[0]], y[off[1]]) ? 1 : 0;
      });
    };
    switch (pred) {
    case ComparePredicate::Eq: run([](T u, T v) { return u == v; }); return;
    case ComparePredicate::Ne: run([](T u, T v) { return u != v; }); return;
    case ComparePredicate::Lt: run([](T u, T v) { return u < v; }); return;
    case ComparePredicate::Le: run([](T u, T v) { return u <= v; }); return;
    case ComparePredicate::Gt: run([](T u, T v) { return u > v; }); return;
    case ComparePredicate::Ge: run([](T u, T v) { return u >= v; }); return;
    }
  });
}

void select(ExecContext &, TensorList operands, TensorList results,
            const Attrs &, const Tensor &) {
  const Tensor &c = get(operands, 0, "cond"), &t = get(operands, 1, "on_true"),
               &f = get(operands, 2, "on_false");
  const Tensor &r = get(results, 0, "result");
  requireDType(c, DType::I1, "select cond");
  if (t.dtype != r.dtype || f.dtype != r.dtype)
    fail("select: on_true, on_false and the result differ in element type");
  std::vector<char> keepC, keepT, keepF;
  const uint8_t *pc = reinterpret_cast<const uint8_t *>(readable(c, r, keepC));
  const char *pt = readable(t, r, keepT), *pf = readable(f, r, keepF);
  const Tensor *ops[3] = {&c, &t, &f};
  const char *const names[3] = {"cond", "on_true", "on_false"};
  dispatchBytes(r.dtype, [&](auto tag) {
    using U = decltype(tag);
    const U *ut = reinterpret_cast<const U *>(pt);
    const U *uf = reinterpret_cast<const U *>(pf);
    U *pr = r.as<U>();
    broadcastLoop(r, ops, names, [&](int64_t i, const int64_t *off) {
      pr[i] = pc[off[0]] ? ut[off[1]] : uf[off[2]];
    });
  });
}

void logical_not(ExecContext &, TensorList operands, TensorList results,
                 const Attrs &, const Tensor &) {
  logical<1>(operands, results, "logical_not",
             [](const bool *v) { return !v[0]; });
}

void logical_and(ExecContext &, TensorList operands, TensorList results,
                 const Attrs &, const Tensor &) {
  logical<2>(operands, results, "logical_and",
             [](const bool *v) { return v[0] && v[1]; });
}

void logical_or(ExecContext &, TensorList operands, TensorList results,
                const Attrs &, const Tensor &) {
  logical<2>(operands, results, "logical_or",
             [](const bool *v) { return v[0] || v[1]; });
}

//===----------------------------------------------------------------------===//
// neg, abs, minimum, maximum (relative-position buckets)
//===----------------------------------------------------------------------===//

void neg(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  signedUnary(
      operands, results, "neg", [](auto v) { return wrappingNeg(v); },
      [](float v) { return -v; });
}

void abs(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  signedUnary(
      operands, results, "abs",
      [](auto v) { return v < 0 ? wrappingNeg(v) : v; },
      [](float v) { return std::fabs(v); });
}

void minimum(ExecContext &, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  extremum(operands, results, "minimum", /*takeMin=*/true);
}

void maximum(ExecContext &, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  extremum(operands, results, "maximum", /*takeMin=*/false);
}

//===----------------------------------------------------------------------===//
// tril, triu, pad, gather
//===----------------------------------------------------------------------===//

void tril(ExecContext &, TensorList operands, TensorList results,
          const Attrs &attrs, const Tensor &) {
  int64_t k = attrs.getInt("diagonal", 0);
  triangle(operands, results, "tril",
           [k](int64_t i, int64_t j) { return j - i <= k; });
}

void triu(ExecContext &, TensorList operands, TensorList results,
          const Attrs &attrs, const Tensor &) {
  int64_t k = attrs.getInt("diagonal", 0);
  triangle(operands, results, "triu",
           [k](int64_t i, int64_t j) { return j - i >= k; });
}

void pad(ExecContext &, TensorList operands, TensorList results,
         const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &r = get(results, 0, "result");
  const int64_t *low = padLow(x, r, attrs);
  double value = attrs.getFloat("value");
  std::vector<char> copy;
  const char *src = readable(x, r, copy);
  std::vector<int64_t> xs(std::max(x.rank, 0), 1);
  for (int d = x.rank - 2; d >= 0; --d)
    xs[d] = xs[d + 1] * x.shape[d + 1];
  // The fill value as the element type stores it (the verifier checked it
  // converts: integral and in range for integer types).
  auto store = [&](auto tag) {
    using T = decltype(tag);
    T v = static_cast<T>(value);
    const T *px = reinterpret_cast<const T *>(src);
    T *pr = r.as<T>();
    int64_t n = r.numel();
    parallelFor(n, kElementGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        int64_t rest = i, off = 0;
        bool inside = true;
        for (int d = r.rank - 1; d >= 0; --d) {
          int64_t idx = rest % r.shape[d] - low[d];
          rest /= r.shape[d];
          inside = inside && idx >= 0 && idx < x.shape[d];
          off += idx * xs[d];
        }
        pr[i] = inside ? px[off] : v;
      }
    });
  };
  switch (r.dtype) {
  case DType::F32: store(float{}); return;
  case DType::I1:
    if (value != 0.0 && value != 1.0)
      fail("pad: an i1 pad value must be 0 or 1");
    store(uint8_t{});
    return;
  case DType::I32: store(int32_t{}); return;
  case DType::I64: store(int64_t{}); return;
  default:
    fail(std::string("pad: host kernels have no ") + dtypeName(r.dtype));
  }
}

void gather(ExecContext &, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &idx = get(operands, 1, "index");
  const Tensor &r = get(results, 0, "result");
  int dim = gatherDim(x, idx, r, attrs);
  std::vector<char> keepX, keepI;
  const char *src = readable(x, r, keepX);
  const int64_t *pi = reinterpret_cast<const int64_t *>(readable(idx, r, keepI));
  std::vector<int64_t> xs(x.rank, 1);
  for (int d = x.rank - 2; d >= 0; --d)
    xs[d] = xs[d + 1] * x.shape[d + 1];
  int64_t n = r.numel(), extent = x.shape[dim];
  // Indices are checked before anything is written, so that an error leaves
  // the result untouched, as PyTorch raises before writing.
  for (int64_t i = 0; i < n; ++i)
    if (pi[i] < 0 || pi[i] >= extent)
      fail("gather: index " + std::to_string(pi[i]) + " at position " +
           std::to_string(i) + " is out of bounds for dimension " +
           std::to_string(dim) + " with size " + std::to_string(extent));
  dispatchBytes(x.dtype, [&](auto tag) {
    using U = decltype(tag);
    const U *px = reinterpret_cast<const U *>(src);
    U *pr = r.as<U>();
    parallelFor(n, kElementGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        int64_t rest = i, off = 0;
        for (int d = r.rank - 1; d >= 0; --d) {
          int64_t c = rest % r.shape[d];
          rest /= r.shape[d];
          off += (d == dim ? pi[i] : c) * xs[d];
        }
        pr[i] = px[off];
      }
    });
  });
}

} // namespace kernels

} // namespace ckpt::rt
