//===- NNKernelTest.cpp - Norms, attention, convolution, pooling, determinism //
//
// References are naive double-precision loops; gradients are checked
// against central finite differences of the forward kernels (tolerances as
// in KernelTest.cpp). The determinism tests run kernels with 1 and 2 threads
// (host kernels and OpenBLAS) and at different buffer addresses and compare
// the bits.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "KernelSupport.h"
#include "Philox.h"

#include <cblas.h>

#include <cmath>
#include <limits>

using namespace ckpt::rt;
using namespace ckpt::rt::test;

namespace {

//===--- Normalization -----------------------------------------------------===//

TEST(NNKernelTest, LayerNormForwardAndGrad) {
  Buf x({3, 2, 4}), w({2, 4}), b({2, 4}), y({3, 2, 4}), mean({3}), rstd({3});
  fillRandom(x, 1, -2, 2);
  fillRandom(w, 2, 0.5f, 1.5f);
  fillRandom(b, 3);
  int64_t seg[3] = {1, 1, 1};
  std::vector<Attr> attrs = {intAttr("axis", 1), floatAttr("epsilon", 1e-5),
                             intsAttr("operandSegmentSizes", seg, 3)};
  call(kernels::layer_norm, {x.t(), w.t(), b.t()}, {y.t(), mean.t(), rstd.t()}, attrs);
  std::vector<double> want(24), wantMean(3), wantRstd(3);
  for (int r = 0; r < 3; ++r) {
    double mu = 0, var = 0;
    for (int c = 0; c < 8; ++c)
      mu += x.f()[r * 8 + c];
    mu /= 8;
    for (int c = 0; c < 8; ++c)
      var += std::pow(x.f()[r * 8 + c] - mu, 2);
    double rs = 1 / std::sqrt(var / 8 + 1e-5);
    wantMean[r] = mu;
    wantRstd[r] = rs;
    for (int c = 0; c < 8; ++c)
      want[r * 8 + c] = (x.f()[r * 8 + c] - mu) * rs * w.f()[c] + b.f()[c];
  }
  expectClose(y.values(), want, 1e-5, 1e-5, "layer_norm");
  expectClose(mean.values(), wantMean, 1e-6, 1e-6, "mean");
  expectClose(rstd.values(), wantRstd, 1e-5, 1e-5, "rstd");

  Buf dy({3, 2, 4}), dx({3, 2, 4}), dw({2, 4}), db({2, 4});
  fillRandom(dy, 4);
  call(kernels::layer_norm_grad, {dy.t(), x.t(), mean.t(), rstd.t(), w.t()},
       {dx.t(), dw.t(), db.t()}, {intAttr("axis", 1)});
  auto loss = [&] {
    Buf out({3, 2, 4}), m({3}), r({3});
    call(kernels::layer_norm, {x.t(), w.t(), b.t()}, {out.t(), m.t(), r.t()}, attrs);
    return weightedSum(out, dy);
  };
  expectClose(dx.values(), numericGrad(x, loss), kFdAtol, kFdRtol, "ln dx");
  expectClose(dw.values(), numericGrad(w, loss), kFdAtol, kFdRtol, "ln dw");
  expectClose(db.values(), numericGrad(b, loss), kFdAtol, kFdRtol, "ln db");

  // Without weight and bias (absent slots): plain normalization.
  int64_t seg0[3] = {1, 0, 0};
  std::vector<Attr> plain = {intAttr("axis", 2), floatAttr("epsilon", 1e-5),
                             intsAttr("operandSegmentSizes", seg0, 3)};
  Buf m6({3, 2}), r6({3, 2});
  call(kernels::layer_norm, {x.t(), Tensor(), Tensor()}, {y.t(), m6.t(), r6.t()}, plain);
  Buf dx2({3, 2, 4});
  call(kernels::layer_norm_grad, {dy.t(), x.t(), m6.t(), r6.t(), Tensor()}, {dx2.t()},
       {intAttr("axis", 2)});
  expectClose(dx2.values(), numericGrad(x, [&] {
                Buf out({3, 2, 4}), m({3, 2}), r({3, 2});
                call(kernels::layer_norm, {x.t(), Tensor(), Tensor()},
                     {out.t(), m.t(), r.t()}, plain);
                return weightedSum(out, dy);
              }),
              kFdAtol, kFdRtol, "ln dx plain");
  // Parameter gradients without a weight are refused.
  EXPECT_THROW(call(kernels::layer_norm_grad, {dy.t(), x.t(), m6.t(), r6.t(), Tensor()},
                    {dx2.t(), dw.t()}, {intAttr("axis", 2)}),
               KernelError);
}

TEST(NNKernelTest, RmsNormForwardAndGrad) {
  Buf x({4, 6}), w({6}), y({4, 6}), rstd({4});
  fillRandom(x, 10, -2, 2);
  fillRandom(w, 11, 0.5f, 1.5f);
  std::vector<Attr> attrs = {intAttr("axis", 1), floatAttr("epsilon", 1e-6)};
  call(kernels::rms_norm, {x.t(), w.t()}, {y.t(), rstd.t()}, attrs);
  std::vector<double> want(24);
  for (int r = 0; r < 4; ++r) {
    double s = 0;
    for (int c = 0; c < 6; ++c)
      s += std::pow(x.f()[r * 6 + c], 2);
    double rs = 1 / std::sqrt(s / 6 + 1e-6);
    for (int c = 0; c < 6; ++c)
      want[r * 6 + c] = x.f()[r * 6 + c] * rs * w.f()[c];
  }
  expectClose(y.values(), want, 1e-5, 1e-5, "rms_norm");
  Buf dy({4, 6}), dx({4, 6}), dw({6});
  fillRandom(dy, 12);
  call(kernels::rms_norm_grad, {dy.t(), x.t(), rstd.t(), w.t()}, {dx.t(), dw.t()},
       {intAttr("axis", 1)});
  auto loss = [&] {
    Buf out({4, 6}), r({4});
    call(kernels::rms_norm, {x.t(), w.t()}, {out.t(), r.t()}, attrs);
    return weightedSum(out, dy);
  };
  expectClose(dx.values(), numericGrad(x, loss), kFdAtol, kFdRtol, "rms dx");
  expectClose(dw.values(), numericGrad(w, loss), kFdAtol, kFdRtol, "rms dw");
  // Weight omitted (one operand only).
  call(kernels::rms_norm, {x.t()}, {y.t(), rstd.t()}, attrs);
  Buf dx2({4, 6});
  call(kernels::rms_norm_grad, {dy.t(), x.t(), rstd.t(), Tensor()}, {dx2.t()},
       {intAttr("axis", 1)});
  expectClose(dx2.values(), numericGrad(x, [&] {
                Buf out({4, 6}), r({4});
                call(kernels::rms_norm, {x.t(), Tensor()}, {out.t(), r.t()}, attrs);
                return weightedSum(out, dy);
              }),
              kFdAtol, kFdRtol, "rms dx plain");
}

TEST(NNKernelTest, BatchNormForwardAndGrad) {
  Buf x({3, 2, 2, 3}), w({2}), b({2}), y({3, 2, 2, 3}), mean({2}), rstd({2});
  fillRandom(x, 20, -2, 2);
  fillRandom(w, 21, 0.5f, 1.5f);
  fillRandom(b, 22);
  std::vector<Attr> attrs = {floatAttr("epsilon", 1e-5)};
  call(kernels::batch_norm, {x.t(), w.t(), b.t()}, {y.t(), mean.t(), rstd.t()}, attrs);
  std::vector<double> want(36);
  for (int c = 0; c < 2; ++c) {
    double mu = 0, var = 0;
    for (int n = 0; n < 3; ++n)
      for (int s = 0; s < 6; ++s)
        mu += x.f()[(n * 2 + c) * 6 + s];
    mu /= 18;
    for (int n = 0; n < 3; ++n)
      for (int s = 0; s < 6; ++s)
        var += std::pow(x.f()[(n * 2 + c) * 6 + s] - mu, 2);
    double rs = 1 / std::sqrt(var / 18 + 1e-5);
    EXPECT_NEAR(mean.f()[c], mu, 1e-6);
    EXPECT_NEAR(rstd.f()[c], rs, 1e-4);
    for (int n = 0; n < 3; ++n)
      for (int s = 0; s < 6; ++s) {
        int i = (n * 2 + c) * 6 + s;
        want[i] = (x.f()[i] - mu) * rs * w.f()[c] + b.f()[c];
      }
  }
  expectClose(y.values(), want, 1e-5, 1e-5, "batch_norm");
  Buf dy(x.shape), dx(x.shape), dw({2}), db({2});
  fillRandom(dy, 23);
  call(kernels::batch_norm_grad, {dy.t(), x.t(), mean.t(), rstd.t(), w.t()},
       {dx.t(), dw.t(), db.t()});
  auto loss = [&] {
    Buf out(x.shape), m({2}), r({2});
    call(kernels::batch_norm, {x.t(), w.t(), b.t()}, {out.t(), m.t(), r.t()}, attrs);
    return weightedSum(out, dy);
  };
  expectClose(dx.values(), numericGrad(x, loss), kFdAtol, kFdRtol, "bn dx");
  expectClose(dw.values(), numericGrad(w, loss), kFdAtol, kFdRtol, "bn dw");
  expectClose(db.values(), numericGrad(b, loss), kFdAtol, kFdRtol, "bn db");
  // Compact operands: weight absent, bias present, by operandSegmentSizes.
  int64_t seg[3] = {1, 0, 1};
  std::vector<Attr> compact = {floatAttr("epsilon", 1e-5),
                               intsAttr("operandSegmentSizes", seg, 3)};
  Buf y2(x.shape);
  call(kernels::batch_norm, {x.t(), b.t()}, {y2.t(), mean.t(), rstd.t()}, compact);
  for (int i = 0; i < 36; ++i) {
    int c = (i / 6) % 2;
    EXPECT_NEAR(y2.f()[i], (x.f()[i] - mean.f()[c]) * rstd.f()[c] + b.f()[c], 1e-5);
  }
}

//===--- Attention ---------------------------------------------------------===//

struct AttnCase {
  int64_t b, h, hkv, s, skv, d, dv;
  bool causal;
  double p;
};

/// Naive attention in double with the same dropout stream.
std::vector<double> refAttention(const AttnCase &c, Buf &q, Buf &k, Buf &v,
                                 float scale, uint64_t seed, uint64_t stream,
                                 uint64_t offset, std::vector<double> *lse) {
  std::vector<double> out(c.b * c.h * c.s * c.dv, 0.0);
  ckpt::rt::detail::DropoutStream drops(seed, stream);
  for (int64_t bb = 0; bb < c.b; ++bb)
    for (int64_t hh = 0; hh < c.h; ++hh) {
      int64_t kvh = bb * c.hkv + hh / (c.h / c.hkv);
      for (int64_t i = 0; i < c.s; ++i) {
        int64_t row = (bb * c.h + hh) * c.s + i;
        std::vector<double> sc(c.skv, -std::numeric_limits<double>::infinity());
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < c.skv; ++j) {
          if (c.causal && j > i)
            continue;
          double s = 0;
          for (int64_t e = 0; e < c.d; ++e)
            s += static_cast<double>(q.f()[row * c.d + e]) * k.f()[(kvh * c.skv + j) * c.d + e];
          sc[j] = s * scale;
          m = std::max(m, sc[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < c.skv; ++j)
          sum += std::exp(sc[j] - m);
        if (lse)
          (*lse)[row] = m + std::log(sum);
        for (int64_t j = 0; j < c.skv; ++j) {
          double p = std::exp(sc[j] - m) / sum;
          if (c.p > 0)
            p = drops.keep(offset + row * c.skv + j, c.p) ? p / (1 - c.p) : 0.0;
          for (int64_t e = 0; e < c.dv; ++e)
            out[row * c.dv + e] += p * v.f()[(kvh * c.skv + j) * c.dv + e];
        }
      }
    }
  return out;
}

TEST(NNKernelTest, AttentionForwardAndGrad) {
  AttnCase cases[] = {{2, 2, 2, 3, 3, 4, 4, false, 0.0},
                      {1, 4, 2, 5, 3, 3, 2, true, 0.0},   // GQA, causal, S > Skv
                      {1, 2, 1, 4, 6, 2, 3, true, 0.25}}; // dropout
  for (const AttnCase &c : cases) {
    Buf q({c.b, c.h, c.s, c.d}), k({c.b, c.hkv, c.skv, c.d}), v({c.b, c.hkv, c.skv, c.dv});
    Buf o({c.b, c.h, c.s, c.dv}), lse({c.b, c.h, c.s});
    fillRandom(q, 30, -1.5f, 1.5f);
    fillRandom(k, 31, -1.5f, 1.5f);
    fillRandom(v, 32);
    float scale = 0.7f;
    std::vector<Attr> attrs = {floatAttr("scale", scale), floatAttr("dropout_p", c.p),
                               intAttr("seed", 3), intAttr("offset", 5)};
    if (c.causal)
      attrs.push_back(unitAttr("causal"));
    const uint64_t base = 1234;
    call(kernels::attention, {q.t(), k.t(), v.t()}, {o.t(), lse.t()}, attrs, Tensor(), base);
    std::vector<double> wantLse(lse.numel());
    expectClose(o.values(), refAttention(c, q, k, v, scale, base, 3, 5, &wantLse), 1e-5,
                1e-4, "attention");
    expectClose(lse.values(), wantLse, 1e-5, 1e-5, "attention lse");

    Buf dout(o.shape), dq(q.shape), dk(k.shape), dv(v.shape), ws({c.b * c.h * c.s});
    fillRandom(dout, 33);
    call(kernels::attention_grad, {dout.t(), q.t(), k.t(), v.t(), o.t(), lse.t()},
         {dq.t(), dk.t(), dv.t()}, attrs, ws.t(), base);
    auto loss = [&] {
      Buf out(o.shape), l(lse.shape);
      call(kernels::attention, {q.t(), k.t(), v.t()}, {out.t(), l.t()}, attrs, Tensor(), base);
      return weightedSum(out, dout);
    };
    expectClose(dq.values(), numericGrad(q, loss), kFdAtol, kFdRtol, "dq");
    expectClose(dk.values(), numericGrad(k, loss), kFdAtol, kFdRtol, "dk");
    expectClose(dv.values(), numericGrad(v, loss), kFdAtol, kFdRtol, "dv");
    // Too small a workspace is refused.
    Buf small({1});
    EXPECT_THROW(call(kernels::attention_grad,
                      {dout.t(), q.t(), k.t(), v.t(), o.t(), lse.t()},
                      {dq.t(), dk.t(), dv.t()}, attrs, small.t(), base),
                 KernelError);
  }
}

//===--- Convolution -------------------------------------------------------===//

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups;
};

std::vector<double> refConv(const ConvCase &k, Buf &x, Buf &w, Buf *bias,
                            int64_t ho, int64_t wo) {
  int64_t cg = k.c / k.groups, og = k.o / k.groups;
  std::vector<double> y(k.n * k.o * ho * wo, 0.0);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.o; ++o)
      for (int64_t oh = 0; oh < ho; ++oh)
        for (int64_t ow = 0; ow < wo; ++ow) {
          double s = bias ? bias->f()[o] : 0.0;
          int64_t g = o / og;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t ih = oh * k.sh - k.ph + i * k.dh, iw = ow * k.sw - k.pw + j * k.dw;
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w)
                  continue;
                s += static_cast<double>(
                         x.f()[((n * k.c + g * cg + ci) * k.h + ih) * k.w + iw]) *
                     w.f()[((o * cg + ci) * k.kh + i) * k.kw + j];
              }
          y[((n * k.o + o) * ho + oh) * wo + ow] = s;
        }
  return y;
}

TEST(NNKernelTest, Conv2dForwardAndGrads) {
  ConvCase cases[] = {
      {2, 3, 6, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // same padding
      {1, 4, 7, 7, 6, 3, 2, 2, 1, 1, 0, 2, 1, 2},  // strides, dilation, groups
      {2, 4, 3, 4, 2, 1, 1, 1, 1, 0, 0, 1, 1, 2},  // pointwise (no workspace)
      {1, 2, 5, 5, 2, 1, 1, 2, 2, 0, 0, 1, 1, 1},  // 1x1 strided (workspace)
      {2, 3, 4, 4, 5, 1, 1, 2, 2, 0, 0, 1, 1, 1},  // ResNet downsample, batch 2
      {2, 3, 4, 4, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1},  // ResNet strided 3x3, batch 2
  };
  for (const ConvCase &k : cases) {
    int64_t ho = (k.h + 2 * k.ph - k.dh * (k.kh - 1) - 1) / k.sh + 1;
    int64_t wo = (k.w + 2 * k.pw - k.dw * (k.kw - 1) - 1) / k.sw + 1;
    bool pointwise = k.kh == 1 && k.kw == 1 && k.sh == 1 && k.sw == 1 && k.ph == 0 && k.pw == 0;
    Buf x({k.n, k.c, k.h, k.w}), w({k.o, k.c / k.groups, k.kh, k.kw}), b({k.o});
    Buf y({k.n, k.o, ho, wo});
    fillRandom(x, 40);
    fillRandom(w, 41);
    fillRandom(b, 42);
    int64_t strides[2] = {k.sh, k.sw}, padding[2] = {k.ph, k.pw}, dil[2] = {k.dh, k.dw};
    std::vector<Attr> attrs = {intsAttr("strides", strides, 2), intsAttr("padding", padding, 2),
                               intsAttr("dilation", dil, 2), intAttr("groups", k.groups)};
    // Exactly the planned workspace: C*kh*kw*Ho*Wo floats (none if pointwise).
    Buf ws({pointwise ? 0 : k.c * k.kh * k.kw * ho * wo});
    Tensor wsT = pointwise ? Tensor() : ws.t();
    call(kernels::conv2d, {x.t(), w.t(), b.t()}, {y.t()}, attrs, wsT);
    expectClose(y.values(), refConv(k, x, w, &b, ho, wo), 1e-5, 1e-5, "conv2d");
    call(kernels::conv2d, {x.t(), w.t(), Tensor()}, {y.t()}, attrs, wsT);
    expectClose(y.values(), refConv(k, x, w, nullptr, ho, wo), 1e-5, 1e-5, "conv2d no bias");
    if (!pointwise) {
      Buf small({ws.numel() - 1});
      EXPECT_THROW(call(kernels::conv2d, {x.t(), w.t(), b.t()}, {y.t()}, attrs, small.t()),
                   KernelError);
    }
    Buf dy(y.shape), dx(x.shape), dw(w.shape);
    fillRandom(dy, 43);
    call(kernels::conv2d_grad_input, {dy.t(), w.t()}, {dx.t()}, attrs, wsT);
    call(kernels::conv2d_grad_weight, {dy.t(), x.t()}, {dw.t()}, attrs, wsT);
    auto loss = [&] {
      Buf out(y.shape);
      call(kernels::conv2d, {x.t(), w.t(), b.t()}, {out.t()}, attrs, wsT);
      return weightedSum(out, dy);
    };
    expectClose(dx.values(), numericGrad(x, loss), kFdAtol, kFdRtol, "conv dx");
    expectClose(dw.values(), numericGrad(w, loss), kFdAtol, kFdRtol, "conv dw");
  }
}

//===--- Pooling -----------------------------------------------------------===//

TEST(NNKernelTest, MaxPoolAndGrad) {
  Buf x({2, 2, 5, 6}), y({2, 2, 3, 3}), idx({2, 2, 3, 3}, DType::I64);
  fillRandom(x, 50);
  int64_t kernel[2] = {3, 2}, strides[2] = {2, 2}, padding[2] = {1, 0};
  std::vector<Attr> attrs = {intsAttr("kernel", kernel, 2), intsAttr("strides", strides, 2),
                             intsAttr("padding", padding, 2)};
  call(kernels::max_pool2d, {x.t()}, {y.t(), idx.t()}, attrs);
  for (int p = 0; p < 4; ++p)
    for (int oh = 0; oh < 3; ++oh)
      for (int ow = 0; ow < 3; ++ow) {
        float best = -INFINITY;
        int64_t at = -1;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 2; ++j) {
            int ih = oh * 2 - 1 + i, iw = ow * 2 + j;
            if (ih < 0 || ih >= 5 || iw >= 6)
              continue;
            if (x.f()[p * 30 + ih * 6 + iw] > best) {
              best = x.f()[p * 30 + ih * 6 + iw];
              at = ih * 6 + iw;
            }
          }
        EXPECT_EQ(y.f()[p * 9 + oh * 3 + ow], best);
        EXPECT_EQ(idx.i64()[p * 9 + oh * 3 + ow], at);
      }
  Buf dy(y.shape), dx(x.shape);
  fillRandom(dy, 51);
  call(kernels::max_pool2d_grad, {dy.t(), idx.t()}, {dx.t()}, attrs);
  expectClose(dx.values(), numericGrad(x, [&] {
                Buf out(y.shape), i2(y.shape, DType::I64);
                call(kernels::max_pool2d, {x.t()}, {out.t(), i2.t()}, attrs);
                return weightedSum(out, dy);
              }, 1e-3f),
              kFdAtol, kFdRtol, "max pool dx");
}

TEST(NNKernelTest, AvgPoolAndGrad) {
  for (int includePad = 0; includePad < 2; ++includePad) {
    Buf x({1, 2, 4, 5}), y({1, 2, 3, 3});
    fillRandom(x, 60);
    int64_t kernel[2] = {2, 3}, strides[2] = {2, 2}, padding[2] = {1, 1};
    std::vector<Attr> attrs = {intsAttr("kernel", kernel, 2), intsAttr("strides", strides, 2),
                               intsAttr("padding", padding, 2)};
    if (includePad)
      attrs.push_back(unitAttr("count_include_pad"));
    call(kernels::avg_pool2d, {x.t()}, {y.t()}, attrs);
    std::vector<double> want;
    for (int p = 0; p < 2; ++p)
      for (int oh = 0; oh < 3; ++oh)
        for (int ow = 0; ow < 3; ++ow) {
          double s = 0;
          int n = 0;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) {
              int ih = oh * 2 - 1 + i, iw = ow * 2 - 1 + j;
              if (ih < 0 || ih >= 4 || iw < 0 || iw >= 5)
                continue;
              s += x.f()[p * 20 + ih * 5 + iw];
              ++n;
            }
          want.push_back(s / (includePad ? 6 : n));
        }
    expectClose(y.values(), want, 1e-6, 1e-6, "avg pool");
    Buf dy(y.shape), dx(x.shape);
    fillRandom(dy, 61);
    call(kernels::avg_pool2d_grad, {dy.t()}, {dx.t()}, attrs);
    expectClose(dx.values(), numericGrad(x, [&] {
                  Buf out(y.shape);
                  call(kernels::avg_pool2d, {x.t()}, {out.t()}, attrs);
                  return weightedSum(out, dy);
                }),
                kFdAtol, kFdRtol, "avg pool dx");
  }
}

//===--- Determinism -------------------------------------------------------===//

/// Runs `body` with `threads` host threads, OpenBLAS single-threaded inside
/// each GEMM tile, as Session::run sets it.
template <typename F> void withThreads(int threads, F body) {
  ckpt::rt::detail::setThreadCount(threads);
  openblas_set_num_threads(1);
  body();
  ckpt::rt::detail::setThreadCount(1);
}

/// Runs `kernel` on copies of `operands` (moved to byte shift `shift`) with
/// `threads` threads; returns the results.
std::vector<Buf> runCopy(KernelFn kernel, std::vector<Buf> &operands,
                         const std::vector<Buf> &resultShapes,
                         const std::vector<Attr> &attrs, int64_t wsFloats,
                         int threads, size_t shift) {
  std::vector<Buf> ops, res;
  std::vector<Tensor> opT, resT;
  // Shifts keep every element naturally aligned (i64 data moves by 8).
  auto shiftFor = [&](DType t) { return (shift + elementBytes(t) - 1) / elementBytes(t) * elementBytes(t); };
  for (Buf &b : operands)
    ops.push_back(b.moved(shiftFor(b.dtype)));
  for (const Buf &b : resultShapes)
    res.emplace_back(b.shape, b.dtype, shiftFor(b.dtype));
  for (Buf &b : ops)
    opT.push_back(b.t());
  for (Buf &b : res)
    resT.push_back(b.t());
  Buf ws({wsFloats}, DType::F32, shift);
  withThreads(threads, [&] {
    call(kernel, opT, resT, attrs, wsFloats ? ws.t() : Tensor(), 77);
  });
  return res;
}

void expectDeterministic(const char *name, KernelFn kernel, std::vector<Buf> operands,
                         std::vector<Buf> resultShapes, std::vector<Attr> attrs = {},
                         int64_t wsFloats = 0) {
  std::vector<Buf> ref = runCopy(kernel, operands, resultShapes, attrs, wsFloats, 1, 0);
  for (int threads : {1, 2})
    for (size_t shift : {0, 4, 64}) {
      std::vector<Buf> got =
          runCopy(kernel, operands, resultShapes, attrs, wsFloats, threads, shift);
      for (size_t i = 0; i < ref.size(); ++i)
        EXPECT_TRUE(sameBits(ref[i], got[i]))
            << name << " result " << i << " differs with " << threads
            << " threads at shift " << shift;
    }
}

Buf randomBuf(std::vector<int64_t> shape, uint32_t seed) {
  Buf b(std::move(shape));
  fillRandom(b, seed);
  return b;
}

TEST(NNKernelTest, BitIdenticalAcrossThreadsAndAddresses) {
  // Large enough for the parallel loops (and OpenBLAS) to split the work.
  expectDeterministic("add", kernels::add, {randomBuf({300, 257}, 1), randomBuf({257}, 2)},
                      {Buf({300, 257})});
  expectDeterministic("gelu", kernels::gelu, {randomBuf({70001}, 3)}, {Buf({70001})},
                      {stringAttr("approximation", "tanh")});
  // Several GEMM tiles (kGemmTileRows x kGemmTileCols) in both directions.
  expectDeterministic("matmul", kernels::matmul,
                      {randomBuf({300, 160}, 4), randomBuf({160, 1100}, 5)}, {Buf({300, 1100})});
  expectDeterministic("matmul_t", kernels::matmul,
                      {randomBuf({160, 300}, 4), randomBuf({1100, 160}, 5)}, {Buf({300, 1100})},
                      {unitAttr("transpose_lhs"), unitAttr("transpose_rhs")});
  expectDeterministic("linear", kernels::linear,
                      {randomBuf({130, 96}, 6), randomBuf({80, 96}, 7), randomBuf({80}, 8)},
                      {Buf({130, 80})});
  expectDeterministic("softmax", kernels::softmax, {randomBuf({128, 300}, 9)},
                      {Buf({128, 300})}, {intAttr("axis", 1)});
  expectDeterministic("layer_norm", kernels::layer_norm,
                      {randomBuf({96, 200}, 10), randomBuf({200}, 11), randomBuf({200}, 12)},
                      {Buf({96, 200}), Buf({96}), Buf({96})},
                      {intAttr("axis", 1), floatAttr("epsilon", 1e-5)});
  expectDeterministic("layer_norm_grad", kernels::layer_norm_grad,
                      {randomBuf({96, 200}, 13), randomBuf({96, 200}, 14),
                       randomBuf({96}, 15), randomBuf({96}, 16), randomBuf({200}, 17)},
                      {Buf({96, 200}), Buf({200}), Buf({200})}, {intAttr("axis", 1)});
  expectDeterministic("reduce_sum", kernels::reduce_sum, {randomBuf({64, 50, 30}, 18)},
                      {Buf({50})}, {[] {
                        static const int64_t axes[2] = {0, 2};
                        return intsAttr("axes", axes, 2);
                      }()});
  expectDeterministic("dropout", kernels::dropout, {randomBuf({70001}, 19)},
                      {Buf({70001}), Buf({70001}, DType::I1)},
                      {floatAttr("p", 0.1), intAttr("seed", 2), intAttr("offset", 0)});
  Buf idx({40}, DType::I64);
  for (int i = 0; i < 40; ++i)
    idx.i64()[i] = (i * 7) % 10;
  expectDeterministic("embedding_grad", kernels::embedding_grad,
                      {randomBuf({40, 64}, 20), idx}, {Buf({10, 64})});
  static const int64_t one[2] = {1, 1}, zero[2] = {0, 0}, two[2] = {2, 2};
  std::vector<Attr> conv = {intsAttr("strides", one, 2), intsAttr("padding", one, 2),
                            intsAttr("dilation", one, 2), intAttr("groups", 1)};
  expectDeterministic("conv2d", kernels::conv2d,
                      {randomBuf({2, 16, 20, 20}, 21), randomBuf({32, 16, 3, 3}, 22),
                       randomBuf({32}, 23)},
                      {Buf({2, 32, 20, 20})}, conv, 16 * 9 * 400);
  expectDeterministic("conv2d_grad_input", kernels::conv2d_grad_input,
                      {randomBuf({2, 32, 20, 20}, 24), randomBuf({32, 16, 3, 3}, 25)},
                      {Buf({2, 16, 20, 20})}, conv, 16 * 9 * 400);
  expectDeterministic("conv2d_grad_weight", kernels::conv2d_grad_weight,
                      {randomBuf({2, 32, 20, 20}, 26), randomBuf({2, 16, 20, 20}, 27)},
                      {Buf({32, 16, 3, 3})}, conv, 16 * 9 * 400);
  std::vector<Attr> attn = {floatAttr("scale", 0.25), unitAttr("causal"),
                            floatAttr("dropout_p", 0.1), intAttr("seed", 1),
                            intAttr("offset", 0)};
  expectDeterministic("attention", kernels::attention,
                      {randomBuf({2, 4, 33, 16}, 28), randomBuf({2, 2, 33, 16}, 29),
                       randomBuf({2, 2, 33, 16}, 30)},
                      {Buf({2, 4, 33, 16}), Buf({2, 4, 33})}, attn);
  expectDeterministic("attention_grad", kernels::attention_grad,
                      {randomBuf({2, 4, 33, 16}, 31), randomBuf({2, 4, 33, 16}, 32),
                       randomBuf({2, 2, 33, 16}, 33), randomBuf({2, 2, 33, 16}, 34),
                       randomBuf({2, 4, 33, 16}, 35), randomBuf({2, 4, 33}, 36)},
                      {Buf({2, 4, 33, 16}), Buf({2, 2, 33, 16}), Buf({2, 2, 33, 16})}, attn,
                      2 * 4 * 33);
  std::vector<Attr> pool = {intsAttr("kernel", two, 2), intsAttr("strides", two, 2),
                            intsAttr("padding", zero, 2)};
  expectDeterministic("avg_pool2d_grad", kernels::avg_pool2d_grad,
                      {randomBuf({4, 8, 10, 10}, 37)}, {Buf({4, 8, 20, 20})}, pool);
}

} // namespace
