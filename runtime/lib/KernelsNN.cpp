//===- KernelsNN.cpp - Host kernels: normalization, attention, conv, pool ---===//
//
// Statistics are computed in double and rounded once; parameter gradients
// sum over rows in row order (split over columns or channels), so results
// do not depend on the thread count.
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"
#include "Philox.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace ckpt::rt::detail;

namespace ckpt::rt::kernels {

namespace {

/// Rows and columns of a tensor normalized over dimensions `axis..rank-1`.
void normExtent(const Tensor &x, int64_t axis, int64_t &rows, int64_t &cols) {
  if (axis < 0 || axis > x.rank)
    fail("normalization axis " + std::to_string(axis) + " out of range for " +
         shapeString(x));
  rows = 1;
  cols = 1;
  for (int i = 0; i < x.rank; ++i)
    (i < axis ? rows : cols) *= x.shape[i];
}

void requireNumel(const Tensor &t, int64_t n, const char *what) {
  if (t.numel() != n)
    fail(std::string(what) + " " + shapeString(t) + " must have " +
         std::to_string(n) + " elements");
}

/// Sums `f(row, col)` over rows for every column in `[0, cols)` into
/// `out[col]` (double accumulation, row order), split over columns.
template <typename F>
void columnSums(int64_t rows, int64_t cols, float *out, F f) {
  parallelFor(cols, 64, [&](int64_t lo, int64_t hi) {
    std::vector<double> acc(hi - lo, 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = lo; c < hi; ++c)
        acc[c - lo] += f(r, c);
    for (int64_t c = lo; c < hi; ++c)
      out[c] = static_cast<float>(acc[c - lo]);
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Layer norm and RMS norm
//===----------------------------------------------------------------------===//

void layer_norm(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor *w = optionalOperand(operands, attrs, 3, 1);
  const Tensor *b = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result"), &mean = get(results, 1, "mean"),
               &rstd = get(results, 2, "rstd");
  for (const Tensor *t : {&x, &y, &mean, &rstd})
    requireF32(*t, "layer_norm");
  requireSameShape(x, y, "layer_norm");
  int64_t rows, cols;
  normExtent(x, attrs.getInt("axis"), rows, cols);
  requireNumel(mean, rows, "layer_norm mean");
  requireNumel(rstd, rows, "layer_norm rstd");
  if (w) {
    requireF32(*w, "layer_norm weight");
    requireNumel(*w, cols, "layer_norm weight");
  }
  if (b) {
    requireF32(*b, "layer_norm bias");
    requireNumel(*b, cols, "layer_norm bias");
  }
  double eps = attrs.getFloat("epsilon");
  const float *px = x.as<float>(), *pw = w ? w->as<float>() : nullptr,
              *pb = b ? b->as<float>() : nullptr;
  float *py = y.as<float>(), *pm = mean.as<float>(), *pr = rstd.as<float>();
  parallelFor(rows, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float *xr = px + r * cols;
      double s = 0.0;
      for (int64_t c = 0; c < cols; ++c)
        s += xr[c];
      double mu = cols ? s / cols : 0.0;
      double var = 0.0;
      for (int64_t c = 0; c < cols; ++c)
        var += (xr[c] - mu) * (xr[c] - mu);
      var = cols ? var / cols : 0.0;
      float m = static_cast<float>(mu);
      float rs = static_cast<float>(1.0 / std::sqrt(var + eps));
      float *yr = py + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        float v = (xr[c] - m) * rs;
        if (pw)
          v *= pw[c];
        if (pb)
          v += pb[c];
        yr[c] = v;
      }
      pm[r] = m;
      pr[r] = rs;
    }
  });
}

namespace {
/// Shared backward of layer norm (`centered`) and RMS norm: input gradient
/// `dx = rstd * (g - mean(g) - xhat * mean(g * xhat))` (without the `mean(g)`
/// term for RMS norm), `g = dy * w`, and the weight / bias gradients.
void normGrad(const Tensor &dy, const Tensor &x, const float *mean,
              const float *rstd, const Tensor *w, int64_t rows, int64_t cols,
              const Tensor &dx, const Tensor *dw, const Tensor *db,
              bool centered) {
  const float *pdy = dy.as<float>(), *px = x.as<float>(),
              *pw = w ? w->as<float>() : nullptr;
  float *pdx = dx.as<float>();
  auto xhat = [&](int64_t r, int64_t c) {
    return (px[r * cols + c] - (centered ? mean[r] : 0.0f)) * rstd[r];
  };
  // Parameter gradients first: dx may alias dy (an elementwise-shaped result).
  if (dw)
    columnSums(rows, cols, dw->as<float>(), [&](int64_t r, int64_t c) {
      return static_cast<double>(pdy[r * cols + c]) * xhat(r, c);
    });
  if (db)
    columnSums(rows, cols, db->as<float>(), [&](int64_t r, int64_t c) {
      return static_cast<double>(pdy[r * cols + c]);
    });
  parallelFor(rows, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      double sg = 0.0, sgx = 0.0;
      for (int64_t c = 0; c < cols; ++c) {
        float g = pdy[r * cols + c] * (pw ? pw[c] : 1.0f);
        sg += g;
        sgx += static_cast<double>(g) * xhat(r, c);
      }
      float mg = static_cast<float>(cols ? sg / cols : 0.0);
      float mgx = static_cast<float>(cols ? sgx / cols : 0.0);
      for (int64_t c = 0; c < cols; ++c) {
        float g = pdy[r * cols + c] * (pw ? pw[c] : 1.0f);
        float v = g - xhat(r, c) * mgx;
        if (centered)
          v -= mg;
        pdx[r * cols + c] = rstd[r] * v;
      }
    }
  });
}

/// The parameter-gradient results of a normalization gradient op.
void paramGrads(TensorList results, const Tensor *w, size_t maxGrads,
                int64_t n, const Tensor *&dw, const Tensor *&db,
                const char *name) {
  dw = db = nullptr;
  size_t count = results.size - 1;
  if (count > maxGrads)
    fail(std::string(name) + ": too many results");
  if (count > 0 && !w)
    fail(std::string(name) + ": parameter gradients need the weight operand");
  if (count >= 1)
    dw = &get(results, 1, "weight gradient");
  if (count >= 2)
    db = &get(results, 2, "bias gradient");
  for (const Tensor *t : {dw, db})
    if (t) {
      requireF32(*t, name);
      requireNumel(*t, n, name);
    }
}
} // namespace

void layer_norm_grad(ExecContext &, TensorList operands, TensorList results,
                     const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &mean = get(operands, 2, "mean"), &rstd = get(operands, 3, "rstd");
  const Tensor *w = optionalOperand(operands, attrs, 5, 4);
  const Tensor &dx = get(results, 0, "input gradient");
  for (const Tensor *t : {&dy, &x, &mean, &rstd, &dx})
    requireF32(*t, "layer_norm_grad");
  requireSameShape(dy, x, "layer_norm_grad");
  requireSameShape(dx, x, "layer_norm_grad");
  int64_t rows, cols;
  normExtent(x, attrs.getInt("axis"), rows, cols);
  requireNumel(mean, rows, "layer_norm_grad mean");
  requireNumel(rstd, rows, "layer_norm_grad rstd");
  if (w) {
    requireF32(*w, "layer_norm_grad weight");
    requireNumel(*w, cols, "layer_norm_grad weight");
  }
  const Tensor *dw, *db;
  paramGrads(results, w, 2, cols, dw, db, "layer_norm_grad");
  normGrad(dy, x, mean.as<float>(), rstd.as<float>(), w, rows, cols, dx, dw, db,
           /*centered=*/true);
}

void rms_norm(ExecContext &, TensorList operands, TensorList results,
              const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor *w = optionalOperand(operands, attrs, 2, 1);
  const Tensor &y = get(results, 0, "result"), &rstd = get(results, 1, "rstd");
  for (const Tensor *t : {&x, &y, &rstd})
    requireF32(*t, "rms_norm");
  requireSameShape(x, y, "rms_norm");
  int64_t rows, cols;
  normExtent(x, attrs.getInt("axis"), rows, cols);
  requireNumel(rstd, rows, "rms_norm rstd");
  if (w) {
    requireF32(*w, "rms_norm weight");
    requireNumel(*w, cols, "rms_norm weight");
  }
  double eps = attrs.getFloat("epsilon");
  const float *px = x.as<float>(), *pw = w ? w->as<float>() : nullptr;
  float *py = y.as<float>(), *pr = rstd.as<float>();
  parallelFor(rows, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float *xr = px + r * cols;
      double s = 0.0;
      for (int64_t c = 0; c < cols; ++c)
        s += static_cast<double>(xr[c]) * xr[c];
      float rs = static_cast<float>(1.0 / std::sqrt((cols ? s / cols : 0.0) + eps));
      float *yr = py + r * cols;
      for (int64_t c = 0; c < cols; ++c)
        yr[c] = pw ? xr[c] * rs * pw[c] : xr[c] * rs;
      pr[r] = rs;
    }
  });
}

void rms_norm_grad(ExecContext &, TensorList operands, TensorList results,
                   const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &rstd = get(operands, 2, "rstd");
  const Tensor *w = optionalOperand(operands, attrs, 4, 3);
  const Tensor &dx = get(results, 0, "input gradient");
  for (const Tensor *t : {&dy, &x, &rstd, &dx})
    requireF32(*t, "rms_norm_grad");
  requireSameShape(dy, x, "rms_norm_grad");
  requireSameShape(dx, x, "rms_norm_grad");
  int64_t rows, cols;
  normExtent(x, attrs.getInt("axis"), rows, cols);
  requireNumel(rstd, rows, "rms_norm_grad rstd");
  if (w) {
    requireF32(*w, "rms_norm_grad weight");
    requireNumel(*w, cols, "rms_norm_grad weight");
  }
  const Tensor *dw, *db;
  paramGrads(results, w, 1, cols, dw, db, "rms_norm_grad");
  normGrad(dy, x, nullptr, rstd.as<float>(), w, rows, cols, dx, dw, nullptr,
           /*centered=*/false);
}

//===----------------------------------------------------------------------===//
// Batch norm (training mode, channel dimension 1)
//===----------------------------------------------------------------------===//

namespace {
struct ChannelExtent {
  int64_t n = 1, c = 1, spatial = 1;
};
ChannelExtent channelExtent(const Tensor &x, const char *name) {
  if (x.rank < 2)
    fail(std::string(name) + ": input needs rank >= 2");
  ChannelExtent e;
  e.n = x.shape[0];
  e.c = x.shape[1];
  for (int i = 2; i < x.rank; ++i)
    e.spatial *= x.shape[i];
  return e;
}
} // namespace

void batch_norm(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor *w = optionalOperand(operands, attrs, 3, 1);
  const Tensor *b = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result"), &mean = get(results, 1, "mean"),
               &rstd = get(results, 2, "rstd");
  for (const Tensor *t : {&x, &y, &mean, &rstd})
    requireF32(*t, "batch_norm");
  requireSameShape(x, y, "batch_norm");
  ChannelExtent e = channelExtent(x, "batch_norm");
  requireNumel(mean, e.c, "batch_norm mean");
  requireNumel(rstd, e.c, "batch_norm rstd");
  if (w) {
    requireF32(*w, "batch_norm weight");
    requireNumel(*w, e.c, "batch_norm weight");
  }
  if (b) {
    requireF32(*b, "batch_norm bias");
    requireNumel(*b, e.c, "batch_norm bias");
  }
  double eps = attrs.getFloat("epsilon");
  const float *px = x.as<float>(), *pw = w ? w->as<float>() : nullptr,
              *pb = b ? b->as<float>() : nullptr;
  float *py = y.as<float>(), *pm = mean.as<float>(), *pr = rstd.as<float>();
  int64_t count = e.n * e.spatial;
  parallelFor(e.c, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      double s = 0.0;
      for (int64_t i = 0; i < e.n; ++i) {
        const float *p = px + (i * e.c + c) * e.spatial;
        for (int64_t j = 0; j < e.spatial; ++j)
          s += p[j];
      }
      double mu = count ? s / count : 0.0, var = 0.0;
      for (int64_t i = 0; i < e.n; ++i) {
        const float *p = px + (i * e.c + c) * e.spatial;
        for (int64_t j = 0; j < e.spatial; ++j)
          var += (p[j] - mu) * (p[j] - mu);
      }
      var = count ? var / count : 0.0;
      float m = static_cast<float>(mu);
      float rs = static_cast<float>(1.0 / std::sqrt(var + eps));
      float scale = pw ? pw[c] : 1.0f, shift = pb ? pb[c] : 0.0f;
      for (int64_t i = 0; i < e.n; ++i) {
        const float *p = px + (i * e.c + c) * e.spatial;
        float *q = py + (i * e.c + c) * e.spatial;
        for (int64_t j = 0; j < e.spatial; ++j) {
          float v = (p[j] - m) * rs;
          if (pw)
            v *= scale;
          if (pb)
            v += shift;
          q[j] = v;
        }
      }
      pm[c] = m;
      pr[c] = rs;
    }
  });
}

void batch_norm_grad(ExecContext &, TensorList operands, TensorList results,
                     const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &mean = get(operands, 2, "mean"), &rstd = get(operands, 3, "rstd");
  const Tensor *w = optionalOperand(operands, attrs, 5, 4);
  const Tensor &dx = get(results, 0, "input gradient");
  for (const Tensor *t : {&dy, &x, &mean, &rstd, &dx})
    requireF32(*t, "batch_norm_grad");
  requireSameShape(dy, x, "batch_norm_grad");
  requireSameShape(dx, x, "batch_norm_grad");
  ChannelExtent e = channelExtent(x, "batch_norm_grad");
  requireNumel(mean, e.c, "batch_norm_grad mean");
  requireNumel(rstd, e.c, "batch_norm_grad rstd");
  if (w) {
    requireF32(*w, "batch_norm_grad weight");
    requireNumel(*w, e.c, "batch_norm_grad weight");
  }
  const Tensor *dw, *db;
  paramGrads(results, w, 2, e.c, dw, db, "batch_norm_grad");
  const float *pdy = dy.as<float>(), *px = x.as<float>(), *pm = mean.as<float>(),
              *pr = rstd.as<float>(), *pw = w ? w->as<float>() : nullptr;
  float *pdx = dx.as<float>();
  int64_t count = e.n * e.spatial;
  parallelFor(e.c, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      double sdy = 0.0, sdyx = 0.0;
      for (int64_t i = 0; i < e.n; ++i) {
        int64_t base = (i * e.c + c) * e.spatial;
        for (int64_t j = 0; j < e.spatial; ++j) {
          float xh = (px[base + j] - pm[c]) * pr[c];
          sdy += pdy[base + j];
          sdyx += static_cast<double>(pdy[base + j]) * xh;
        }
      }
      float scale = pw ? pw[c] : 1.0f;
      // g = dy * w: mean(g) = w * mean(dy), mean(g * xhat) = w * mean(dy * xhat).
      float mg = static_cast<float>(count ? scale * sdy / count : 0.0);
      float mgx = static_cast<float>(count ? scale * sdyx / count : 0.0);
      for (int64_t i = 0; i < e.n; ++i) {
        int64_t base = (i * e.c + c) * e.spatial;
        for (int64_t j = 0; j < e.spatial; ++j) {
          float xh = (px[base + j] - pm[c]) * pr[c];
          float g = pdy[base + j] * scale;
          pdx[base + j] = pr[c] * (g - mg - xh * mgx);
        }
      }
      if (dw)
        dw->as<float>()[c] = static_cast<float>(sdyx);
      if (db)
        db->as<float>()[c] = static_cast<float>(sdy);
    }
  });
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
struct AttentionShape {
  int64_t b, h, s, d, hkv, skv, dv, group;
};

AttentionShape attentionShape(const Tensor &q, const Tensor &k, const Tensor &v,
                              const char *name) {
  requireRank(q, 4, name);
  requireRank(k, 4, name);
  requireRank(v, 4, name);
  AttentionShape a{q.shape[0], q.shape[1], q.shape[2], q.shape[3],
                   k.shape[1], k.shape[2], v.shape[3], 1};
  if (k.shape[0] != a.b || v.shape[0] != a.b || k.shape[3] != a.d ||
      v.shape[1] != a.hkv || v.shape[2] != a.skv || a.hkv == 0 || a.h % a.hkv != 0)
    fail(std::string(name) + ": q " + shapeString(q) + ", k " + shapeString(k) +
         ", v " + shapeString(v) + " do not match");
  a.group = a.h / a.hkv;
  return a;
}

struct AttentionAttrs {
  float scale;
  bool causal;
  double p;
  uint64_t seed, offset;
  float dropScale;
};

AttentionAttrs attentionAttrs(const Attrs &attrs) {
  AttentionAttrs a;
  a.scale = static_cast<float>(attrs.getFloat("scale"));
  a.causal = attrs.has("causal");
  a.p = attrs.getFloat("dropout_p", 0.0);
  int64_t seed = attrs.getInt("seed", 0), offset = attrs.getInt("offset", 0);
  if (a.p < 0.0 || a.p > 1.0 || seed < 0 || offset < 0)
    fail("attention: dropout_p must be in [0, 1], seed and offset non-negative");
  a.seed = static_cast<uint64_t>(seed);
  a.offset = static_cast<uint64_t>(offset);
  a.dropScale = a.p >= 1.0 ? 0.0f : static_cast<float>(1.0 / (1.0 - a.p));
  return a;
}

/// a . b with eight partial sums (element i into sum i mod 8) combined in a
/// fixed tree: the order depends on n only, never on addresses.
float dot(const float *a, const float *b, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l)
      acc[l] += a[i + l] * b[i + l];
  for (int l = 0; i < n; ++i, ++l)
    acc[l] += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) +
         ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/// The optional attention mask (f32 bias or i1 keep-mask) broadcast to
/// [B, H, S, Skv]: strides in elements, 0 along broadcast dimensions.
struct AttentionMask {
  const float *bias = nullptr;
  const uint8_t *keep = nullptr;
  int64_t stride[4] = {0, 0, 0, 0};

  explicit operator bool() const { return bias || keep; }
  /// Offset of (b, h, i, 0); key j adds j * stride[3].
  int64_t rowOffset(int64_t b, int64_t h, int64_t i) const {
    return b * stride[0] + h * stride[1] + i * stride[2];
  }
  /// The masked score of key j in the row at `offset`: `s` plus the bias, or
  /// -inf where the keep-mask is false.
  float apply(float s, int64_t offset, int64_t j) const {
    int64_t at = offset + j * stride[3];
    if (bias)
      return s + bias[at];
    if (keep)
      return keep[at] ? s : -std::numeric_limits<float>::infinity();
    return s;
  }
};

AttentionMask attentionMask(const Tensor *mask, const AttentionShape &s,
                            const char *name) {
  AttentionMask m;
  if (!mask)
    return m;
  int64_t full[4] = {s.b, s.h, s.s, s.skv};
  attentionMaskStrides(*mask, full, m.stride, name);
  if (mask->dtype == DType::I1)
    m.keep = mask->as<uint8_t>();
  else if (mask->dtype == DType::F32)
    m.bias = mask->as<float>();
  else
    fail(std::string(name) + ": the mask must be f32 or i1 on the host");
  return m;
}

/// Number of keys query row `i` attends to.
int64_t keysFor(const AttentionShape &s, const AttentionAttrs &a, int64_t i) {
  return a.causal ? std::min(i + 1, s.skv) : s.skv;
}
} // namespace

// Row at a time: for query row i of head (b, h), the scores
// s_j = scale * q_i . k_j over the attended keys, m = max_j s_j,
// lse = m + log(sum_j exp(s_j - m)), p_j = exp(s_j - lse) and
// out_i = sum_j p_j * keep_j / (1 - p) * v_j, with keep_j from draw number
// offset + ((b*H + h)*S + i)*Skv + j of the dropout stream (docs/runtime.md).
void attention(ExecContext &ctx, TensorList operands, TensorList results,
               const Attrs &attrs, const Tensor &) {
  const Tensor &q = get(operands, 0, "query"), &k = get(operands, 1, "key"),
               &v = get(operands, 2, "value");
  const Tensor &o = get(results, 0, "result"), &lse = get(results, 1, "lse");
  for (const Tensor *t : {&q, &k, &v, &o, &lse})
    requireF32(*t, "attention");
  AttentionShape s = attentionShape(q, k, v, "attention");
  AttentionMask mask =
      attentionMask(optionalOperand(operands, attrs, 4, 3), s, "attention");
  if (o.rank != 4 || o.shape[0] != s.b || o.shape[1] != s.h || o.shape[2] != s.s ||
      o.shape[3] != s.dv)
    fail("attention: result " + shapeString(o) + " does not match");
  requireNumel(lse, s.b * s.h * s.s, "attention lse");
  AttentionAttrs a = attentionAttrs(attrs);
  const float *pq = q.as<float>(), *pk = k.as<float>(), *pv = v.as<float>();
  float *po = o.as<float>(), *pl = lse.as<float>();
  uint64_t base = ctx.seed();
  int64_t rowsTotal = s.b * s.h * s.s;
  parallelFor(rowsTotal, 4, [&](int64_t lo, int64_t hi) {
    DropoutStream stream(base, a.seed);
    for (int64_t row = lo; row < hi; ++row) {
      int64_t i = row % s.s, bh = row / s.s, hh = bh % s.h, bb = bh / s.h;
      int64_t kvHead = bb * s.hkv + hh / s.group;
      const float *qi = pq + row * s.d;
      const float *kb = pk + kvHead * s.skv * s.d;
      const float *vb = pv + kvHead * s.skv * s.dv;
      float *oi = po + row * s.dv;
      int64_t n = keysFor(s, a, i);
      int64_t mo = mask.rowOffset(bb, hh, i);
      // Online maximum and sum of exponentials in one pass over the keys;
      // masked-out keys (score -inf) add nothing.
      constexpr float ninf = -std::numeric_limits<float>::infinity();
      float m = ninf;
      double sum = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        float sj = mask.apply(a.scale * dot(qi, kb + j * s.d, s.d), mo, j);
        if (sj == ninf)
          continue;
        if (sj > m) {
          sum = sum * std::exp(static_cast<double>(m) - sj) + 1.0;
          m = sj;
        } else {
          sum += std::exp(static_cast<double>(sj) - m);
        }
      }
      if (n > 0 && m == ninf) {
        // Every key masked out: NaN output, as PyTorch's softmax of -infs.
        std::fill(oi, oi + s.dv, std::numeric_limits<float>::quiet_NaN());
        pl[row] = ninf;
        continue;
      }
      float l = n ? m + static_cast<float>(std::log(sum)) : ninf;
      // Accumulate into a small local block so the output may alias nothing
      // it still reads; D_v is split into chunks of 64.
      for (int64_t c0 = 0; c0 < s.dv; c0 += 64) {
        int64_t cn = std::min<int64_t>(64, s.dv - c0);
        float acc[64] = {};
        for (int64_t j = 0; j < n; ++j) {
          float sj = mask.apply(a.scale * dot(qi, kb + j * s.d, s.d), mo, j);
          float p = sj == ninf ? 0.0f : std::exp(sj - l);
          if (a.p > 0.0) {
            uint64_t draw = a.offset + static_cast<uint64_t>(row * s.skv + j);
            p = stream.keep(draw, a.p) ? p * a.dropScale : 0.0f;
          }
          const float *vj = vb + j * s.dv + c0;
          for (int64_t c = 0; c < cn; ++c)
            acc[c] += p * vj[c];
        }
        std::memcpy(oi + c0, acc, cn * sizeof(float));
      }
      pl[row] = l;
    }
  });
}

// Backward from the saved lse: with p_ij recomputed as above and z_ij the
// dropout factor (keep / (1 - p), or 1 without dropout):
//   delta_i = dO_i . O_i                         (into the workspace)
//   dV_j   += p_ij z_ij dO_i
//   dP_ij   = z_ij (dO_i . v_j)
//   dS_ij   = p_ij (dP_ij - delta_i)
//   dQ_i    = scale sum_j dS_ij k_j,  dK_j += scale dS_ij q_i
// Work is split over (batch, kv head); inside, query heads of the group and
// rows run in order, so dK/dV sums have a fixed order.
void attention_grad(ExecContext &ctx, TensorList operands, TensorList results,
                    const Attrs &attrs, const Tensor &workspace) {
  const Tensor &dout = get(operands, 0, "grad"), &q = get(operands, 1, "query"),
               &k = get(operands, 2, "key"), &v = get(operands, 3, "value"),
               &out = get(operands, 4, "output"), &lse = get(operands, 5, "lse");
  const Tensor &dq = get(results, 0, "query gradient"),
               &dk = get(results, 1, "key gradient"),
               &dv = get(results, 2, "value gradient");
  for (const Tensor *t : {&dout, &q, &k, &v, &out, &lse, &dq, &dk, &dv})
    requireF32(*t, "attention_grad");
  AttentionShape s = attentionShape(q, k, v, "attention_grad");
  AttentionMask mask = attentionMask(optionalOperand(operands, attrs, 7, 6), s,
                                     "attention_grad");
  requireSameShape(dq, q, "attention_grad query gradient");
  requireSameShape(dk, k, "attention_grad key gradient");
  requireSameShape(dv, v, "attention_grad value gradient");
  requireSameShape(dout, out, "attention_grad output");
  int64_t rowsTotal = s.b * s.h * s.s;
  requireNumel(out, rowsTotal * s.dv, "attention_grad output");
  requireNumel(lse, rowsTotal, "attention_grad lse");
  size_t need = static_cast<size_t>(rowsTotal) * sizeof(float);
  if (need && (!workspace.present() || workspace.bytes() < need))
    fail("attention_grad: needs a workspace of " + std::to_string(need) +
         " bytes, got " +
         std::to_string(workspace.present() ? workspace.bytes() : 0));
  AttentionAttrs a = attentionAttrs(attrs);
  const float *pdo = dout.as<float>(), *pq = q.as<float>(), *pk = k.as<float>(),
              *pv = v.as<float>(), *po = out.as<float>(), *pl = lse.as<float>();
  float *pdq = dq.as<float>(), *pdk = dk.as<float>(), *pdv = dv.as<float>();
  float *delta = need ? workspace.as<float>() : nullptr;
  parallelFor(rowsTotal, 64, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r)
      delta[r] = dot(pdo + r * s.dv, po + r * s.dv, s.dv);
  });
  uint64_t base = ctx.seed();
  parallelFor(s.b * s.hkv, 1, [&](int64_t lo, int64_t hi) {
    DropoutStream stream(base, a.seed);
    for (int64_t kvHead = lo; kvHead < hi; ++kvHead) {
      int64_t bb = kvHead / s.hkv, g = kvHead % s.hkv;
      const float *kb = pk + kvHead * s.skv * s.d;
      const float *vb = pv + kvHead * s.skv * s.dv;
      float *dkb = pdk + kvHead * s.skv * s.d;
      float *dvb = pdv + kvHead * s.skv * s.dv;
      std::fill(dkb, dkb + s.skv * s.d, 0.0f);
      std::fill(dvb, dvb + s.skv * s.dv, 0.0f);
      for (int64_t hh = g * s.group; hh < (g + 1) * s.group; ++hh) {
        for (int64_t i = 0; i < s.s; ++i) {
          int64_t row = (bb * s.h + hh) * s.s + i;
          const float *qi = pq + row * s.d, *doi = pdo + row * s.dv;
          float *dqi = pdq + row * s.d;
          std::fill(dqi, dqi + s.d, 0.0f);
          int64_t n = keysFor(s, a, i);
          int64_t mo = mask.rowOffset(bb, hh, i);
          for (int64_t j = 0; j < n; ++j) {
            const float *kj = kb + j * s.d, *vj = vb + j * s.dv;
            // A masked-out key, or any key of a fully masked row (lse -inf),
            // has p = 0 and adds nothing.
            float sj = mask.apply(a.scale * dot(qi, kj, s.d), mo, j);
            if (sj == -std::numeric_limits<float>::infinity())
              continue;
            float p = std::exp(sj - pl[row]);
            float z = 1.0f;
            if (a.p > 0.0) {
              uint64_t draw = a.offset + static_cast<uint64_t>(row * s.skv + j);
              z = stream.keep(draw, a.p) ? a.dropScale : 0.0f;
            }
            float pz = p * z;
            float *dvj = dvb + j * s.dv;
            for (int64_t c = 0; c < s.dv; ++c)
              dvj[c] += pz * doi[c];
            float dp = z * dot(doi, vj, s.dv);
            float ds = p * (dp - delta[row]) * a.scale;
            float *dkj = dkb + j * s.d;
            for (int64_t c = 0; c < s.d; ++c) {
              dqi[c] += ds * kj[c];
              dkj[c] += ds * qi[c];
            }
          }
        }
      }
    }
  });
}

//===----------------------------------------------------------------------===//
// Convolution (NCHW input, OIHW weight) through im2col and sgemm
//===----------------------------------------------------------------------===//

namespace {
struct ConvShape {
  int64_t n, c, h, w;       // input
  int64_t o, cg, kh, kw;    // weight
  int64_t ho, wo;           // output spatial
  int64_t sh, sw, ph, pw, dh, dw, groups;
  bool pointwise;
  int64_t colRows() const { return c * kh * kw; }
  int64_t colCols() const { return ho * wo; }
};

ConvShape convShape(const Tensor &x, const Tensor &w, const Tensor &y,
                    const Attrs &attrs, const char *name) {
  requireRank(x, 4, name);
  requireRank(w, 4, name);
  requireRank(y, 4, name);
  ConvShape s;
  s.n = x.shape[0]; s.c = x.shape[1]; s.h = x.shape[2]; s.w = x.shape[3];
  s.o = w.shape[0]; s.cg = w.shape[1]; s.kh = w.shape[2]; s.kw = w.shape[3];
  s.ho = y.shape[2]; s.wo = y.shape[3];
  getPair(attrs, "strides", s.sh, s.sw);
  getPair(attrs, "padding", s.ph, s.pw);
  getPair(attrs, "dilation", s.dh, s.dw);
  s.groups = attrs.getInt("groups", 1);
  if (s.groups < 1 || s.c % s.groups || s.o % s.groups || s.cg * s.groups != s.c ||
      y.shape[0] != s.n || y.shape[1] != s.o || s.sh < 1 || s.sw < 1 ||
      s.dh < 1 || s.dw < 1 || s.ph < 0 || s.pw < 0 ||
      s.ho != (s.h + 2 * s.ph - s.dh * (s.kh - 1) - 1) / s.sh + 1 ||
      s.wo != (s.w + 2 * s.pw - s.dw * (s.kw - 1) - 1) / s.sw + 1)
    fail(std::string(name) + ": input " + shapeString(x) + ", weight " +
         shapeString(w) + " and output " + shapeString(y) +
         " do not match the attributes");
  s.pointwise = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 &&
                s.pw == 0;
  return s;
}

/// The im2col buffer of one convolution (workspace), checked for size.
float *convWorkspace(const ConvShape &s, const Tensor &workspace, const char *name) {
  if (s.pointwise)
    return nullptr;
  size_t need = static_cast<size_t>(s.colRows() * s.colCols()) * sizeof(float);
  if (need == 0)
    return nullptr;
  if (!workspace.present() || workspace.bytes() < need)
    fail(std::string(name) + ": needs a workspace of " + std::to_string(need) +
         " bytes, got " +
         std::to_string(workspace.present() ? workspace.bytes() : 0));
  return workspace.as<float>();
}

/// col[(c*kh + i)*kw + j][oh*wo + ow] = x[c][oh*sh - ph + i*dh][ow*sw - pw + j*dw].
void im2col(const ConvShape &s, const float *x, float *col) {
  parallelFor(s.colRows(), 4, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t c = r / (s.kh * s.kw), i = (r / s.kw) % s.kh, j = r % s.kw;
      float *dst = col + r * s.colCols();
      const float *plane = x + c * s.h * s.w;
      for (int64_t oh = 0; oh < s.ho; ++oh) {
        int64_t ih = oh * s.sh - s.ph + i * s.dh;
        for (int64_t ow = 0; ow < s.wo; ++ow) {
          int64_t iw = ow * s.sw - s.pw + j * s.dw;
          dst[oh * s.wo + ow] = (ih >= 0 && ih < s.h && iw >= 0 && iw < s.w)
                                    ? plane[ih * s.w + iw]
                                    : 0.0f;
        }
      }
    }
  });
}

/// Adds the columns back into the image: the adjoint of im2col. Split over
/// channels; each channel adds its rows in order.
void col2im(const ConvShape &s, const float *col, float *x) {
  parallelFor(s.c, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      float *plane = x + c * s.h * s.w;
      std::fill(plane, plane + s.h * s.w, 0.0f);
      for (int64_t i = 0; i < s.kh; ++i)
        for (int64_t j = 0; j < s.kw; ++j) {
          const float *src = col + ((c * s.kh + i) * s.kw + j) * s.colCols();
          for (int64_t oh = 0; oh < s.ho; ++oh) {
            int64_t ih = oh * s.sh - s.ph + i * s.dh;
            if (ih < 0 || ih >= s.h)
              continue;
            for (int64_t ow = 0; ow < s.wo; ++ow) {
              int64_t iw = ow * s.sw - s.pw + j * s.dw;
              if (iw >= 0 && iw < s.w)
                plane[ih * s.w + iw] += src[oh * s.wo + ow];
            }
          }
        }
    }
  });
}

} // namespace

void conv2d(ExecContext &, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &workspace) {
  const Tensor &x = get(operands, 0, "input"), &w = get(operands, 1, "weight");
  const Tensor *bias = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result");
  for (const Tensor *t : {&x, &w, &y})
    requireF32(*t, "conv2d");
  ConvShape s = convShape(x, w, y, attrs, "conv2d");
  if (bias) {
    requireF32(*bias, "conv2d bias");
    requireNumel(*bias, s.o, "conv2d bias");
  }
  float *col = convWorkspace(s, workspace, "conv2d");
  const float *px = x.as<float>(), *pw = w.as<float>();
  float *py = y.as<float>();
  int64_t og = s.o / s.groups, k = s.cg * s.kh * s.kw, hw = s.colCols();
  for (int64_t img = 0; img < s.n; ++img) {
    const float *xi = px + img * s.c * s.h * s.w;
    const float *b = xi;
    if (!s.pointwise && col) {
      im2col(s, xi, col);
      b = col;
    }
    for (int64_t g = 0; g < s.groups; ++g)
      gemm(false, false, og, hw, k, pw + g * og * k, k, b + g * k * hw, hw, 0.0f,
            py + (img * s.o + g * og) * hw, hw);
  }
  if (bias) {
    const float *pb = bias->as<float>();
    parallelFor(s.n * s.o, 4, [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        float bv = pb[p % s.o];
        for (int64_t i = 0; i < hw; ++i)
          py[p * hw + i] += bv;
      }
    });
  }
}

void conv2d_grad_input(ExecContext &, TensorList operands, TensorList results,
                       const Attrs &attrs, const Tensor &workspace) {
  const Tensor &dy = get(operands, 0, "grad"), &w = get(operands, 1, "weight");
  const Tensor &dx = get(results, 0, "result");
  for (const Tensor *t : {&dy, &w, &dx})
    requireF32(*t, "conv2d_grad_input");
  ConvShape s = convShape(dx, w, dy, attrs, "conv2d_grad_input");
  float *col = convWorkspace(s, workspace, "conv2d_grad_input");
  const float *pdy = dy.as<float>(), *pw = w.as<float>();
  float *pdx = dx.as<float>();
  int64_t og = s.o / s.groups, k = s.cg * s.kh * s.kw, hw = s.colCols();
  for (int64_t img = 0; img < s.n; ++img) {
    float *dxi = pdx + img * s.c * s.h * s.w;
    float *target = s.pointwise ? dxi : col;
    if (!target) { // Empty columns: the gradient is zero.
      std::fill(dxi, dxi + s.c * s.h * s.w, 0.0f);
      continue;
    }
    for (int64_t g = 0; g < s.groups; ++g)
      gemm(true, false, k, hw, og, pw + g * og * k, k,
            pdy + (img * s.o + g * og) * hw, hw, 0.0f, target + g * k * hw, hw);
    if (!s.pointwise)
      col2im(s, col, dxi);
  }
}

void conv2d_grad_weight(ExecContext &, TensorList operands, TensorList results,
                        const Attrs &attrs, const Tensor &workspace) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &dw = get(results, 0, "result");
  for (const Tensor *t : {&dy, &x, &dw})
    requireF32(*t, "conv2d_grad_weight");
  ConvShape s = convShape(x, dw, dy, attrs, "conv2d_grad_weight");
  float *col = convWorkspace(s, workspace, "conv2d_grad_weight");
  const float *pdy = dy.as<float>(), *px = x.as<float>();
  float *pdw = dw.as<float>();
  int64_t og = s.o / s.groups, k = s.cg * s.kh * s.kw, hw = s.colCols();
  std::fill(pdw, pdw + dw.numel(), 0.0f);
  for (int64_t img = 0; img < s.n; ++img) {
    const float *xi = px + img * s.c * s.h * s.w;
    const float *b = xi;
    if (!s.pointwise) {
      if (!col)
        break; // Empty columns: the gradient stays zero.
      im2col(s, xi, col);
      b = col;
    }
    // Images accumulate in order (beta = 1 after the zero fill).
    for (int64_t g = 0; g < s.groups; ++g)
      gemm(false, true, og, k, hw, pdy + (img * s.o + g * og) * hw, hw,
            b + g * k * hw, hw, 1.0f, pdw + g * og * k, k);
  }
}

//===----------------------------------------------------------------------===//
// Pooling (NCHW)
//===----------------------------------------------------------------------===//

namespace {
struct PoolShape {
  int64_t planes, h, w, ho, wo, kh, kw, sh, sw, ph, pw;
};
PoolShape poolShape(const Tensor &x, const Tensor &y, const Attrs &attrs,
                    const char *name) {
  requireRank(x, 4, name);
  requireRank(y, 4, name);
  PoolShape s;
  s.planes = x.shape[0] * x.shape[1];
  s.h = x.shape[2];
  s.w = x.shape[3];
  s.ho = y.shape[2];
  s.wo = y.shape[3];
  getPair(attrs, "kernel", s.kh, s.kw);
  getPair(attrs, "strides", s.sh, s.sw);
  getPair(attrs, "padding", s.ph, s.pw);
  if (y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1] || s.kh < 1 ||
      s.kw < 1 || s.sh < 1 || s.sw < 1 || s.ph < 0 || s.pw < 0 ||
      s.ho != (s.h + 2 * s.ph - s.kh) / s.sh + 1 ||
      s.wo != (s.w + 2 * s.pw - s.kw) / s.sw + 1)
    fail(std::string(name) + ": input " + shapeString(x) + " and output " +
         shapeString(y) + " do not match the attributes");
  return s;
}

/// The in-bounds window `[h0, h1) x [w0, w1)` of output (oh, ow).
void window(const PoolShape &s, int64_t oh, int64_t ow, int64_t &h0, int64_t &h1,
            int64_t &w0, int64_t &w1) {
  int64_t hs = oh * s.sh - s.ph, ws = ow * s.sw - s.pw;
  h0 = std::max<int64_t>(hs, 0);
  h1 = std::min(hs + s.kh, s.h);
  w0 = std::max<int64_t>(ws, 0);
  w1 = std::min(ws + s.kw, s.w);
}
} // namespace

void max_pool2d(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result"), &idx = get(results, 1, "indices");
  requireF32(x, "max_pool2d");
  requireF32(y, "max_pool2d");
  if (idx.dtype != DType::I64)
    fail("max_pool2d: indices must be i64");
  requireSameShape(y, idx, "max_pool2d indices");
  PoolShape s = poolShape(x, y, attrs, "max_pool2d");
  const float *px = x.as<float>();
  float *py = y.as<float>();
  int64_t *pi = idx.as<int64_t>();
  parallelFor(s.planes, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const float *plane = px + p * s.h * s.w;
      for (int64_t oh = 0; oh < s.ho; ++oh)
        for (int64_t ow = 0; ow < s.wo; ++ow) {
          int64_t h0, h1, w0, w1;
          window(s, oh, ow, h0, h1, w0, w1);
          float best = -std::numeric_limits<float>::infinity();
          int64_t at = h0 * s.w + w0;
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) {
              float v = plane[ih * s.w + iw];
              if ((v > best || std::isnan(v)) && !std::isnan(best)) {
                best = v;
                at = ih * s.w + iw;
              }
            }
          int64_t o = (p * s.ho + oh) * s.wo + ow;
          py[o] = best;
          pi[o] = at;
        }
    }
  });
}

void max_pool2d_grad(ExecContext &, TensorList operands, TensorList results,
                     const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &idx = get(operands, 1, "indices");
  const Tensor &dx = get(results, 0, "result");
  requireF32(dy, "max_pool2d_grad");
  requireF32(dx, "max_pool2d_grad");
  if (idx.dtype != DType::I64)
    fail("max_pool2d_grad: indices must be i64");
  requireSameShape(dy, idx, "max_pool2d_grad indices");
  PoolShape s = poolShape(dx, dy, attrs, "max_pool2d_grad");
  const float *pdy = dy.as<float>();
  const int64_t *pi = idx.as<int64_t>();
  float *pdx = dx.as<float>();
  parallelFor(s.planes, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      float *plane = pdx + p * s.h * s.w;
      std::fill(plane, plane + s.h * s.w, 0.0f);
      for (int64_t o = 0; o < s.ho * s.wo; ++o) {
        int64_t at = pi[p * s.ho * s.wo + o];
        if (at < 0 || at >= s.h * s.w)
          fail("max_pool2d_grad: index " + std::to_string(at) + " out of range");
        plane[at] += pdy[p * s.ho * s.wo + o];
      }
    }
  });
}

namespace {
float avgDivisor(const PoolShape &s, bool includePad, int64_t h0, int64_t h1,
                 int64_t w0, int64_t w1) {
  return includePad ? static_cast<float>(s.kh * s.kw)
                    : static_cast<float>((h1 - h0) * (w1 - w0));
}
} // namespace

void avg_pool2d(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireF32(x, "avg_pool2d");
  requireF32(y, "avg_pool2d");
  PoolShape s = poolShape(x, y, attrs, "avg_pool2d");
  bool includePad = attrs.has("count_include_pad");
  const float *px = x.as<float>();
  float *py = y.as<float>();
  parallelFor(s.planes, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const float *plane = px + p * s.h * s.w;
      for (int64_t oh = 0; oh < s.ho; ++oh)
        for (int64_t ow = 0; ow < s.wo; ++ow) {
          int64_t h0, h1, w0, w1;
          window(s, oh, ow, h0, h1, w0, w1);
          float sum = 0.0f;
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw)
              sum += plane[ih * s.w + iw];
          py[(p * s.ho + oh) * s.wo + ow] =
              sum / avgDivisor(s, includePad, h0, h1, w0, w1);
        }
    }
  });
}

void avg_pool2d_grad(ExecContext &, TensorList operands, TensorList results,
                     const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad");
  const Tensor &dx = get(results, 0, "result");
  requireF32(dy, "avg_pool2d_grad");
  requireF32(dx, "avg_pool2d_grad");
  PoolShape s = poolShape(dx, dy, attrs, "avg_pool2d_grad");
  bool includePad = attrs.has("count_include_pad");
  const float *pdy = dy.as<float>();
  float *pdx = dx.as<float>();
  parallelFor(s.planes, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      float *plane = pdx + p * s.h * s.w;
      std::fill(plane, plane + s.h * s.w, 0.0f);
      for (int64_t oh = 0; oh < s.ho; ++oh)
        for (int64_t ow = 0; ow < s.wo; ++ow) {
          int64_t h0, h1, w0, w1;
          window(s, oh, ow, h0, h1, w0, w1);
          float g = pdy[(p * s.ho + oh) * s.wo + ow] /
                    avgDivisor(s, includePad, h0, h1, w0, w1);
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw)
              plane[ih * s.w + iw] += g;
        }
    }
  });
}

} // namespace ckpt::rt::kernels
