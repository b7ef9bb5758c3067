//===- MaskKernelTest.cpp - iota, compare, select, masks, pad, gather -----===//
//
// The host kernels of the mask and position-id ops against values stated as
// PyTorch 1.13 gives them (torch.arange, torch.lt ..., torch.where,
// torch.logical_*, torch.tril / triu, aten.constant_pad_nd, torch.gather),
// plus the in-place and overlapping-storage cases the planner produces.
// python/tests/test_mask_ops_vs_torch.py runs the same kernels through
// generated steps against torch itself.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cmath>
#include <limits>

using namespace ckpt::rt;
using namespace ckpt::rt::test;

namespace {

/// Raw bits of an f32, for exact expectations written as hex floats.
uint32_t bitsOf(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

//===--- iota ---------------------------------------------------------------===//

// torch.arange(-3.7, ..., 0.3, dtype=torch.float32) rounds in blocks of 8
// from each block's first element over the leading multiple of 16 elements,
// then element by element. Element 2 is -0x1.8cccce (a single rounding of
// -3.7 + 2 * 0.3 gives -0x1.8ccccc); element 33 is 0x1.8cccce when it lies
// in a block (48 elements) and 0x1.8ccccc in the tail (40 elements).
TEST(MaskKernelTest, IotaFloatRoundsAsTorchArange) {
  for (int64_t n : {40, 48}) {
    Buf r({n});
    call(kernels::iota, {}, {r.t()},
         {floatAttr("start", -3.7), floatAttr("step", 0.3)});
    EXPECT_EQ(bitsOf(r.f()[2]), bitsOf(-0x1.8cccce0p+1f)) << n;
    EXPECT_EQ(bitsOf(r.f()[9]), bitsOf(-0x1.fffffe0p-1f)) << n;
    EXPECT_EQ(bitsOf(r.f()[33]),
              bitsOf(n == 48 ? 0x1.8cccce0p+2f : 0x1.8ccccc0p+2f))
        << n;
  }
}

// torch.arange(5, 5 - 3 * 4, -3) = [5, 2, -1, -4], exactly, in i64 and i32;
// integer numbers may arrive as float attributes holding integers too.
TEST(MaskKernelTest, IotaIntegers) {
  int64_t i64[4];
  call(kernels::iota, {}, {Tensor(i64, DType::I64, {4})},
       {intAttr("start", 5), intAttr("step", -3)});
  EXPECT_EQ(std::vector<int64_t>(i64, i64 + 4),
            (std::vector<int64_t>{5, 2, -1, -4}));
  int32_t i32[3];
  call(kernels::iota, {}, {Tensor(i32, DType::I32, {3})},
       {intAttr("start", 2147483645), intAttr("step", 1)});
  EXPECT_EQ(i32[2], 2147483647);
  // 2147483646 + 1 * 2 does not fit i32.
  EXPECT_THROW(call(kernels::iota, {}, {Tensor(i32, DType::I32, {2})},
                    {intAttr("start", 2147483646), intAttr("step", 2)}),
               KernelError);
  EXPECT_THROW(call(kernels::iota, {}, {Tensor(i64, DType::I64, {4})},
                    {intAttr("start", 0), floatAttr("step", 0.5)}),
               KernelError);
  EXPECT_THROW(call(kernels::iota, {}, {Tensor(i64, DType::I64, {4})},
                    {intAttr("start", 0), intAttr("step", 0)}),
               KernelError);
}

//===--- compare, select, logical ops ----------------------------------------===//

// torch.<pred>(a[1, 4], b[4, 1]) with a = [nan, -0.0, 1, inf] and
// b = [0, nan, 1, -inf]^T: NaN is unequal to everything (ne true, all else
// false) and -0 == 0.
TEST(MaskKernelTest, CompareBroadcastIeee) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Buf a({1, 4}), b({4, 1});
  a.set({nan, -0.0f, 1.0f, inf});
  b.set({0.0f, nan, 1.0f, -inf});
  struct Expect {
    const char *pred;
    uint8_t rows[4][4];
  } cases[] = {
      {"eq", {{0, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}}},
      {"ne", {{1, 0, 1, 1}, {1, 1, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 1}}},
      {"lt", {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}}},
      {"le", {{0, 1, 0, 0}, {0, 0, 0, 0}, {0, 1, 1, 0}, {0, 0, 0, 0}}},
      {"gt", {{0, 0, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 1, 1}}},
      {"ge", {{0, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 1, 1}, {0, 1, 1, 1}}},
  };
  for (const Expect &e : cases) {
    Buf r({4, 4}, DType::I1);
    call(kernels::compare, {a.t(), b.t()}, {r.t()},
         {stringAttr("predicate", e.pred)});
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        EXPECT_EQ(r.u8()[i * 4 + j], e.rows[i][j])
            << e.pred << " at " << i << ", " << j;
  }
  Buf r({4, 4}, DType::I1);
  EXPECT_THROW(call(kernels::compare, {a.t(), b.t()}, {r.t()},
                    {stringAttr("predicate", "lte")}),
               KernelError);
}

// Position ids against a rank-0 bound: torch.lt(arange(5), 3) = [1 1 1 0 0].
TEST(MaskKernelTest, CompareIntegersWithScalar) {
  int64_t pos[5] = {0, 1, 2, 3, 4}, bound = 3;
  uint8_t r[5];
  call(kernels::compare,
       {Tensor(pos, DType::I64, {5}), Tensor(&bound, DType::I64, {})},
       {Tensor(r, DType::I1, {5})}, {stringAttr("predicate", "lt")});
  EXPECT_EQ(std::vector<uint8_t>(r, r + 5),
            (std::vector<uint8_t>{1, 1, 1, 0, 0}));
}

// x.masked_fill(causal, -1e9) as torch.where(causal, fill, x) with the mask
// [1, 3, 3], a rank-0 fill and x [2, 3, 3]; NaN in x passes through.
TEST(MaskKernelTest, SelectIsMaskedFill) {
  Buf x({2, 3, 3}), fill(std::vector<int64_t>{}), r({2, 3, 3});
  fillRandom(x, 7);
  x.f()[3] = std::numeric_limits<float>::quiet_NaN();
  fill.f()[0] = -1e9f;
  uint8_t mask[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0}; // triu(ones(3, 3), 1)
  call(kernels::select, {Tensor(mask, DType::I1, {1, 3, 3}), fill.t(), x.t()},
       {r.t()});
  for (int i = 0; i < 18; ++i) {
    float want = mask[i % 9] ? -1e9f : x.f()[i];
    EXPECT_EQ(bitsOf(r.f()[i]), bitsOf(want)) << i;
  }
}

// torch.logical_not / logical_and / logical_or on [2, 2] and [2] masks.
TEST(MaskKernelTest, LogicalOps) {
  uint8_t a[4] = {1, 0, 1, 0}, b[2] = {1, 0}, r[4];
  Tensor ta(a, DType::I1, {2, 2}), tb(b, DType::I1, {2}),
      tr(r, DType::I1, {2, 2});
  call(kernels::logical_not, {ta}, {tr});
  EXPECT_EQ(std::vector<uint8_t>(r, r + 4), (std::vector<uint8_t>{0, 1, 0, 1}));
  call(kernels::logical_and, {ta, tb}, {tr});
  EXPECT_EQ(std::vector<uint8_t>(r, r + 4), (std::vector<uint8_t>{1, 0, 1, 0}));
  call(kernels::logical_or, {tb, ta}, {tr});
  EXPECT_EQ(std::vector<uint8_t>(r, r + 4), (std::vector<uint8_t>{1, 0, 1, 0}));
  // Bytes other than 0 and 1 never occur in masks the kernels write; any
  // non-zero byte reads as true.
  a[1] = 2;
  call(kernels::logical_not, {ta}, {tr});
  EXPECT_EQ(r[1], 0);
  // In place over the first operand (the planner's reuse).
  call(kernels::logical_or, {ta, tb}, {ta});
  EXPECT_EQ(std::vector<uint8_t>(a, a + 4), (std::vector<uint8_t>{1, 1, 1, 0}));
}

// A compare whose i1 result overlaps its f32 operand's storage reads a copy
// of the operand: the result equals the out-of-place one.
TEST(MaskKernelTest, CompareOverlappingResult) {
  Buf x({64}), ref({64}, DType::I1);
  fillRandom(x, 11);
  Buf zero(std::vector<int64_t>{});
  call(kernels::compare, {x.t(), zero.t()}, {ref.t()},
       {stringAttr("predicate", "gt")});
  Tensor inPlace(x.data(), DType::I1, {64});
  call(kernels::compare, {x.t(), zero.t()}, {inPlace},
       {stringAttr("predicate", "gt")});
  EXPECT_EQ(std::memcmp(x.data(), ref.data(), 64), 0);
}

//===--- tril, triu, pad, gather ---------------------------------------------===//

// torch.tril(ones(3, 4), -1) and torch.triu(ones(3, 4), 1) on i1 and f32,
// in place on a batch of two.
TEST(MaskKernelTest, Triangles) {
  uint8_t ones[12], r[12];
  std::fill(ones, ones + 12, 1);
  call(kernels::tril, {Tensor(ones, DType::I1, {3, 4})},
       {Tensor(r, DType::I1, {3, 4})}, {intAttr("diagonal", -1)});
  EXPECT_EQ(std::vector<uint8_t>(r, r + 12),
            (std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}));
  call(kernels::triu, {Tensor(ones, DType::I1, {3, 4})},
       {Tensor(r, DType::I1, {3, 4})}, {intAttr("diagonal", 1)});
  EXPECT_EQ(std::vector<uint8_t>(r, r + 12),
            (std::vector<uint8_t>{0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1}));
  Buf x({2, 2, 2});
  x.set({1, 2, 3, 4, 5, 6, 7, 8});
  call(kernels::tril, {x.t()}, {x.t()}); // diagonal 0 by default
  EXPECT_EQ(x.values(), (std::vector<float>{1, 0, 3, 4, 5, 0, 7, 8}));
  Buf v({4});
  EXPECT_THROW(call(kernels::triu, {v.t()}, {v.t()}), KernelError);
}

// aten.constant_pad_nd(x[2, 2], [1, 0, 0, 1], -1) (last dimension first):
// [[-1, 1, 2], [-1, 3, 4], [-1, -1, -1]]; on i64 and i1 too.
TEST(MaskKernelTest, Pad) {
  Buf x({2, 2}), r({3, 3});
  x.set({1, 2, 3, 4});
  int64_t low[2] = {0, 1}, high[2] = {1, 0};
  std::vector<Attr> attrs = {intsAttr("low", low, 2), intsAttr("high", high, 2),
                             floatAttr("value", -1.0)};
  call(kernels::pad, {x.t()}, {r.t()}, attrs);
  EXPECT_EQ(r.values(), (std::vector<float>{-1, 1, 2, -1, 3, 4, -1, -1, -1}));
  int64_t ids[4] = {1, 2, 3, 4}, out[9];
  call(kernels::pad, {Tensor(ids, DType::I64, {2, 2})},
       {Tensor(out, DType::I64, {3, 3})}, attrs);
  EXPECT_EQ(std::vector<int64_t>(out, out + 9),
            (std::vector<int64_t>{-1, 1, 2, -1, 3, 4, -1, -1, -1}));
  uint8_t m[4] = {1, 0, 0, 1}, mr[9];
  attrs[2] = floatAttr("value", 1.0);
  call(kernels::pad, {Tensor(m, DType::I1, {2, 2})},
       {Tensor(mr, DType::I1, {3, 3})}, attrs);
  EXPECT_EQ(std::vector<uint8_t>(mr, mr + 9),
            (std::vector<uint8_t>{1, 1, 0, 1, 0, 1, 1, 1, 1}));
  Buf wrong({3, 4});
  EXPECT_THROW(call(kernels::pad, {x.t()}, {wrong.t()}, attrs), KernelError);
}

// torch.gather(x, 1, [[2, 0], [1, 1]]) with x = [[10, 11, 12], [13, 14, 15]]
// is [[12, 10], [14, 14]]; along dim 0 with [[1, 0, 1]]: [[13, 11, 15]]. An
// index outside the dimension raises, as in PyTorch, before any write.
TEST(MaskKernelTest, Gather) {
  Buf x({2, 3}), r({2, 2}), r0({1, 3});
  x.set({10, 11, 12, 13, 14, 15});
  int64_t idx[4] = {2, 0, 1, 1}, idx0[3] = {1, 0, 1};
  call(kernels::gather, {x.t(), Tensor(idx, DType::I64, {2, 2})}, {r.t()},
       {intAttr("dim", 1)});
  EXPECT_EQ(r.values(), (std::vector<float>{12, 10, 14, 14}));
  call(kernels::gather, {x.t(), Tensor(idx0, DType::I64, {1, 3})}, {r0.t()},
       {intAttr("dim", 0)});
  EXPECT_EQ(r0.values(), (std::vector<float>{13, 11, 15}));
  r.set({-7, -7, -7, -7});
  idx[3] = 3;
  EXPECT_THROW(call(kernels::gather, {x.t(), Tensor(idx, DType::I64, {2, 2})},
                    {r.t()}, {intAttr("dim", 1)}),
               KernelError);
  EXPECT_EQ(r.values(), (std::vector<float>{-7, -7, -7, -7}));
  idx[3] = -1;
  EXPECT_THROW(call(kernels::gather, {x.t(), Tensor(idx, DType::I64, {2, 2})},
                    {r.t()}, {intAttr("dim", 1)}),
               KernelError);
}

} // namespace
