//===- KernelChecks.cpp - Call checks shared by host and device kernels ---===//
//
// What the host kernels (Kernels*.cpp) and the device kernels
// (runtime/cuda) both check before they run a call: attribute values and
// operand shapes, each failure a KernelError that names the op. This file
// needs no BLAS and no threads, so the device runtime links it without the
// host kernels (bench/gpu/run.sh).
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"

#include <cmath>
#include <string>
#include <utility>

namespace ckpt::rt::detail {

void fail(const std::string &message) { throw KernelError(message); }

std::string shapeString(const Tensor &t) {
  std::string s = "[";
  for (int i = 0; i < t.rank; ++i)
    s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

} // namespace ckpt::rt::detail

using namespace ckpt::rt::detail;

int64_t ckpt::rt::embeddingPaddingIndex(const Attrs &attrs, int64_t rows,
                                        const char *op) {
  if (!attrs.has("padding_idx"))
    return -1;
  int64_t padding = attrs.getInt("padding_idx");
  if (padding < 0 || padding >= rows)
    fail(std::string(op) + ": padding_idx " + std::to_string(padding) +
         " is not a row of a table of " + std::to_string(rows));
  return padding;
}

std::pair<double, double> ckpt::rt::clampBounds(const Attrs &attrs,
                                                const char *op) {
  double lo = attrs.getFloat("min"), hi = attrs.getFloat("max");
  if (!(lo <= hi)) // Also refuses NaN bounds.
    fail(std::string(op) + ": expects min <= max, got min = " +
         std::to_string(lo) + " and max = " + std::to_string(hi));
  return {lo, hi};
}

void ckpt::rt::attentionMaskStrides(const Tensor &mask, const int64_t scores[4],
                                    int64_t strides[4], const char *op) {
  auto mismatch = [&] {
    fail(std::string(op) + ": mask " + shapeString(mask) +
         " does not broadcast to the scores' shape [" +
         std::to_string(scores[0]) + ", " + std::to_string(scores[1]) + ", " +
         std::to_string(scores[2]) + ", " + std::to_string(scores[3]) + "]");
  };
  if (mask.rank > 4)
    mismatch();
  int lead = 4 - mask.rank;
  int64_t stride = 1;
  for (int d = 3; d >= 0; --d) {
    strides[d] = 0;
    if (d < lead)
      continue;
    int64_t extent = mask.shape[d - lead];
    if (extent != 1 && extent != scores[d])
      mismatch();
    strides[d] = extent == 1 ? 0 : stride;
    stride *= extent;
  }
}

namespace ckpt::rt {

ComparePredicate comparePredicate(const Attrs &attrs) {
  std::string p = attrs.getString("predicate");
  static const std::pair<const char *, ComparePredicate> kNames[] = {
      {"eq", ComparePredicate::Eq}, {"ne", ComparePredicate::Ne},
      {"lt", ComparePredicate::Lt}, {"le", ComparePredicate::Le},
      {"gt", ComparePredicate::Gt}, {"ge", ComparePredicate::Ge}};
  for (const auto &[name, value] : kNames)
    if (p == name)
      return value;
  fail("compare: unknown predicate '" + p + "'");
}

IotaParams iotaParams(const Attrs &attrs, const Tensor &result) {
  IotaParams p;
  const Attr *start = attrs.find("start"), *step = attrs.find("step");
  auto number = [](const Attr *a, const char *name) {
    if (!a || (a->kind != AttrKind::Int && a->kind != AttrKind::Float))
      fail(std::string("iota: missing number '") + name + "'");
    return a->kind == AttrKind::Int ? static_cast<double>(a->i) : a->f;
  };
  p.start = number(start, "start");
  p.step = number(step, "step");
  if (!std::isfinite(p.start) || !std::isfinite(p.step) || p.step == 0.0)
    fail("iota: start and step must be finite and the step non-zero");
  p.integral = start->kind == AttrKind::Int && step->kind == AttrKind::Int;
  if (p.integral) {
    p.startInt = start->i;
    p.stepInt = step->i;
  }
  if (result.dtype != DType::I32 && result.dtype != DType::I64)
    return p;
  if (!p.integral)
    fail("iota: an integer result needs an integral start and step");
  int64_t n = result.rank == 1 ? result.shape[0] : 0;
  if (n == 0)
    return p;
  __int128 last = static_cast<__int128>(p.startInt) +
                  static_cast<__int128>(n - 1) * p.stepInt;
  __int128 bound = result.dtype == DType::I32 ? (__int128{1} << 31)
                                              : (__int128{1} << 63);
  auto fits = [&](__int128 v) { return v >= -bound && v < bound; };
  if (!fits(p.startInt) || !fits(last))
    fail(std::string("iota: elements do not fit ") + dtypeName(result.dtype));
  return p;
}

const int64_t *padLow(const Tensor &input, const Tensor &result,
                      const Attrs &attrs) {
  size_t nl = 0, nh = 0;
  const int64_t *low = attrs.getInts("low", nl);
  const int64_t *high = attrs.getInts("high", nh);
  if (input.dtype != result.dtype)
    fail("pad: element types differ");
  if (static_cast<int>(nl) != input.rank || static_cast<int>(nh) != input.rank ||
      result.rank != input.rank)
    fail("pad: low/high do not match the rank of " + shapeString(input));
  for (int d = 0; d < input.rank; ++d)
    if (low[d] < 0 || high[d] < 0 ||
        result.shape[d] != input.shape[d] + low[d] + high[d])
      fail("pad: result " + shapeString(result) + " is not input " +
           shapeString(input) + " + low + high in dimension " +
           std::to_string(d));
  return low;
}

int gatherDim(const Tensor &input, const Tensor &index, const Tensor &result,
              const Attrs &attrs) {
  int64_t dim = attrs.getInt("dim");
  if (index.dtype != DType::I64)
    fail("gather: the index must be i64");
  if (input.dtype != result.dtype)
    fail("gather: element types differ");
  if (index.rank != input.rank || result.rank != input.rank)
    fail("gather: index " + shapeString(index) + " and result " +
         shapeString(result) + " must have the input's rank");
  if (dim < 0 || dim >= input.rank)
    fail("gather: dim " + std::to_string(dim) + " out of range for " +
         shapeString(input));
  for (int d = 0; d < input.rank; ++d) {
    if (result.shape[d] != index.shape[d])
      fail("gather: the result " + shapeString(result) +
           " does not have the index's shape " + shapeString(index));
    if (d != dim && index.shape[d] > input.shape[d])
      fail("gather: index " + shapeString(index) + " is larger than input " +
           shapeString(input) + " in dimension " + std::to_string(d));
  }
  return static_cast<int>(dim);
}

} // namespace ckpt::rt
