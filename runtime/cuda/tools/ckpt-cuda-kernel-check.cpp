//===- ckpt-cuda-kernel-check.cpp - Device kernels against host kernels ---===//
//
// Runs every device kernel on small random inputs whose shapes cross the
// kernels' tile and block boundaries, runs the host kernel of the same op on
// the same values, and compares: integer and mask results exactly, float
// results by the largest error relative to the result's largest magnitude.
// Each device kernel runs twice, with poisoned (NaN) result buffers, and
// must give bit-identical results both times and write every element.
// With --bf16, float tensors (not f32 statistics) are bf16 on the device;
// the host then computes in f32 on the same bf16-rounded values.
//
// Usage: ckpt-cuda-kernel-check [--bf16] [--filter SUBSTRING] [--verbose]
// Exit status: 0 when every case passes, 1 otherwise, 2 on a CUDA error.
// Needs a GPU; built with the device runtime to be ready when one is lent.
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/Cuda/CudaKernels.h"
#include "ckpt/Runtime/Kernels.h"
#include "ckpt/Runtime/Session.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace ckpt::rt;

namespace {

namespace hk = ckpt::rt::kernels;
namespace dk = ckpt::rt::cuda::kernels;

/// How an operand is filled.
enum class Init { Normal, Positive, Index, Mask, Zero };

/// One operand or result of a case.
struct Spec {
  DType type = DType::F32;
  std::vector<int64_t> shape;
  Init init = Init::Normal;
  int64_t indexBound = 0; // Index: values in [0, indexBound).
  bool stat = false;      // f32 whatever the mode (statistics, moments).
  bool absent = false;    // An absent optional operand.
};

Spec f(std::vector<int64_t> shape, Init init = Init::Normal) {
  return {DType::F32, std::move(shape), init, 0, false, false};
}
Spec stat(std::vector<int64_t> shape, Init init = Init::Normal) {
  return {DType::F32, std::move(shape), init, 0, true, false};
}
Spec index(std::vector<int64_t> shape, int64_t bound, DType t = DType::I64) {
  return {t, std::move(shape), Init::Index, bound, false, false};
}
Spec typed(DType t, std::vector<int64_t> shape) {
  return {t, std::move(shape), Init::Zero, 0, false, false};
}
Spec absent() {
  Spec s;
  s.absent = true;
  return s;
}

/// A case: one op call on host and device.
struct Case {
  std::string name;
  KernelFn host;
  cuda::CudaKernelFn device;
  std::vector<Spec> operands, results;
  std::vector<Attr> attrs;
  uint64_t workspaceBytes = 0;
  /// Largest error relative to the result's largest magnitude (f32 mode).
  double tolerance = 2e-5;
};

std::deque<std::vector<int64_t>> intStorage;
const int64_t *ints(std::vector<int64_t> v) {
  intStorage.push_back(std::move(v));
  return intStorage.back().data();
}
Attr intsA(const char *name, std::vector<int64_t> v) {
  size_t n = v.size();
  return intsAttr(name, ints(std::move(v)), n);
}

int64_t numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// bf16 bits of `v`, rounded to nearest even (NaN kept quiet).
uint16_t toBf16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
float fromBf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call,                   \
                   cudaGetErrorString(err_), __FILE__, __LINE__);              \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

void noRun(ExecContext &) {}
void noRunCuda(cuda::CudaExecContext &) {}

struct Checker {
  bool bf16 = false;
  bool verbose = false;
  std::mt19937_64 rng{12345};
  std::unique_ptr<Session> host;
  std::unique_ptr<cuda::CudaSession> device;
  StepProgram hostProgram{"check", 64,      0, 64,      0, 0,
                          0,       nullptr, 0, nullptr, 0, noRun};
  cuda::CudaStepProgram deviceProgram{
      {"check", 256, 0, 256, 0, 0, 0, nullptr, 0, nullptr, 0, nullptr},
      noRunCuda,
      -1};

  Checker(bool bf16, bool verbose) : bf16(bf16), verbose(verbose) {
    SessionOptions ho;
    ho.seed = 99;
    ho.threads = 1;
    host = std::make_unique<Session>(hostProgram, ho);
    cuda::CudaSessionOptions dopt;
    dopt.seed = 99;
    dopt.syncEachOp = true;
    device = std::make_unique<cuda::CudaSession>(deviceProgram, dopt);
  }

  DType deviceType(const Spec &s) const {
    return bf16 && s.type == DType::F32 && !s.stat ? DType::BF16 : s.type;
  }

  /// Host values of an operand (f32 values already rounded to bf16 in bf16
  /// mode), as raw bytes of the host type.
  std::vector<char> fill(const Spec &s) {
    int64_t n = numel(s.shape);
    std::vector<char> bytes(n * elementBytes(s.type));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
      switch (s.type) {
      case DType::F32: {
        float v = s.init == Init::Zero       ? 0.0f
                  : s.init == Init::Positive ? 0.5f + std::fabs(normal(rng))
                                             : normal(rng);
        if (deviceType(s) == DType::BF16)
          v = fromBf16(toBf16(v));
        std::memcpy(bytes.data() + 4 * i, &v, 4);
        break;
      }
      case DType::I64: {
        int64_t v =
            s.indexBound > 0 ? static_cast<int64_t>(rng() % s.indexBound) : 0;
        std::memcpy(bytes.data() + 8 * i, &v, 8);
        break;
      }
      case DType::I32: {
        int32_t v =
            s.indexBound > 0 ? static_cast<int32_t>(rng() % s.indexBound) : 0;
        std::memcpy(bytes.data() + 4 * i, &v, 4);
        break;
      }
      case DType::I1:
        bytes[i] = static_cast<char>(rng() % 4 != 0);
        break;
      default:
        break;
      }
    }
    return bytes;
  }

  /// Device bytes of host values `h` for spec `s`.
  std::vector<char> toDevice(const Spec &s, const std::vector<char> &h) const {
    if (deviceType(s) != DType::BF16)
      return h;
    int64_t n = numel(s.shape);
    std::vector<char> d(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      float v;
      std::memcpy(&v, h.data() + 4 * i, 4);
      uint16_t b = toBf16(v);
      std::memcpy(d.data() + 2 * i, &b, 2);
    }
    return d;
  }

  /// f32 values of device result bytes (float types), or the bytes as is.
  std::vector<char> fromDevice(const Spec &s,
                               const std::vector<char> &d) const {
    if (deviceType(s) != DType::BF16)
      return d;
    int64_t n = numel(s.shape);
    std::vector<char> h(4 * n);
    for (int64_t i = 0; i < n; ++i) {
      uint16_t b;
      std::memcpy(&b, d.data() + 2 * i, 2);
      float v = fromBf16(b);
      std::memcpy(h.data() + 4 * i, &v, 4);
    }
    return h;
  }

  static Tensor tensor(void *data, DType type,
                       const std::vector<int64_t> &shape) {
    Tensor t;
    t.data = data;
    t.dtype = type;
    t.rank = static_cast<int>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
      t.shape[i] = shape[i];
    return t;
  }

  /// Runs `c`; returns true if it passes.
  bool run(const Case &c) {
    size_t nOps = c.operands.size(), nRes = c.results.size();
    std::vector<std::vector<char>> in(nOps), hostOut(nRes);
    std::vector<Tensor> hostOps(nOps), hostRes(nRes), devOps(nOps),
        devRes(nRes);
    std::vector<void *> devBuffers;
    auto devAlloc = [&](size_t bytes) {
      void *p = nullptr;
      CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 1)));
      devBuffers.push_back(p);
      return p;
    };
    for (size_t i = 0; i < nOps; ++i) {
      const Spec &s = c.operands[i];
      if (s.absent)
        continue;
      in[i] = fill(s);
      hostOps[i] = tensor(in[i].data(), s.type, s.shape);
      std::vector<char> d = toDevice(s, in[i]);
      void *p = devAlloc(d.size());
      CHECK(cudaMemcpy(p, d.data(), d.size(), cudaMemcpyHostToDevice));
      devOps[i] = tensor(p, deviceType(s), s.shape);
    }
    for (size_t i = 0; i < nRes; ++i) {
      const Spec &s = c.results[i];
      hostOut[i].assign(numel(s.shape) * elementBytes(s.type), 0);
      hostRes[i] = tensor(hostOut[i].data(), s.type, s.shape);
      devRes[i] = tensor(devAlloc(numel(s.shape) * elementBytes(deviceType(s))),
                         deviceType(s), s.shape);
    }
    std::vector<char> hostWs(c.workspaceBytes);
    Tensor hws, dws;
    if (c.workspaceBytes) {
      hws = tensor(hostWs.data(), DType::I1,
                   {static_cast<int64_t>(c.workspaceBytes)});
      dws = tensor(devAlloc(c.workspaceBytes), DType::I1,
                   {static_cast<int64_t>(c.workspaceBytes)});
    }
    Attrs attrs{c.attrs.data(), c.attrs.size()};
    try {
      c.host(*host, TensorList{hostOps.data(), nOps},
             TensorList{hostRes.data(), nRes}, attrs, hws);
    } catch (const std::exception &e) {
      std::printf("SKIP %-28s host kernel refused: %s\n", c.name.c_str(),
                  e.what());
      for (void *p : devBuffers)
        cudaFree(p);
      return true;
    }
    std::vector<std::vector<char>> first(nRes);
    bool ok = true;
    std::string why;
    for (int rep = 0; rep < 2 && ok; ++rep) {
      for (size_t i = 0; i < nRes; ++i)
        CHECK(cudaMemset(devRes[i].data, 0xff, devRes[i].bytes()));
      static const OpInfo info = {
          0, "check", "ckpt-cuda-kernel-check", Phase::Forward, false, -1};
      try {
        device->call(info, c.device, TensorList{devOps.data(), nOps},
                     TensorList{devRes.data(), nRes}, attrs, dws);
      } catch (const std::exception &e) {
        ok = false;
        why = std::string("device kernel failed: ") + e.what();
        break;
      }
      CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(device->stream())));
      for (size_t i = 0; i < nRes; ++i) {
        std::vector<char> d(devRes[i].bytes());
        CHECK(cudaMemcpy(d.data(), devRes[i].data, d.size(),
                         cudaMemcpyDeviceToHost));
        if (rep == 0)
          first[i] = d;
        else if (d != first[i]) {
          ok = false;
          why = "result " + std::to_string(i) + " differs between two runs";
        }
      }
    }
    double worst = 0;
    for (size_t i = 0; ok && i < nRes; ++i) {
      const Spec &s = c.results[i];
      std::vector<char> d = fromDevice(s, first[i]);
      int64_t n = numel(s.shape);
      if (s.type != DType::F32) {
        if (d != hostOut[i]) {
          ok = false;
          why = "result " + std::to_string(i) + " (integer/mask) differs";
        }
        continue;
      }
      const float *h = reinterpret_cast<const float *>(hostOut[i].data());
      const float *g = reinterpret_cast<const float *>(d.data());
      double scale = 1e-30, err = 0;
      int64_t at = 0;
      for (int64_t k = 0; k < n; ++k)
        scale = std::max(scale, static_cast<double>(std::fabs(h[k])));
      for (int64_t k = 0; k < n; ++k) {
        if (std::isnan(g[k]) != std::isnan(h[k])) {
          err = INFINITY;
          at = k;
          break;
        }
        double e = std::isnan(h[k]) ? 0 : std::fabs(g[k] - h[k]) / scale;
        if (e > err) {
          err = e;
          at = k;
        }
      }
      worst = std::max(worst, err);
      double tol = bf16 && deviceType(s) == DType::BF16 ? 2e-2
                   : bf16                               ? 2e-2
                                                        : c.tolerance;
      if (err > tol) {
        ok = false;
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "result %zu: relative error %.3g > %.3g at %lld "
                      "(device %g, host %g)",
                      i, err, tol, static_cast<long long>(at), g[at], h[at]);
        why = buf;
      }
    }
    for (void *p : devBuffers)
      cudaFree(p);
    if (!ok || verbose)
      std::printf("%s %-28s %s\n", ok ? "PASS" : "FAIL", c.name.c_str(),
                  ok ? ("max error " + std::to_string(worst)).c_str()
                     : why.c_str());
    return ok;
  }
};

Attr str(const char *n, const char *v) { return stringAttr(n, v); }

std::vector<Case> cases() {
  std::vector<Case> cs;
  auto add = [&](Case c) { cs.push_back(std::move(c)); };
  // Elementwise and broadcasting.
  add({"add-broadcast",
       hk::add,
       dk::add,
       {f({4, 1, 40}), f({3, 40})},
       {f({4, 3, 40})},
       {}});
  add({"sub-scalar", hk::sub, dk::sub, {f({700}), f({})}, {f({700})}, {}});
  add({"mul-rows", hk::mul, dk::mul, {f({5, 1}), f({5, 9})}, {f({5, 9})}, {}});
  add({"div",
       hk::div,
       dk::div,
       {f({300}), f({300}, Init::Positive)},
       {f({300})},
       {}});
  add({"neg", hk::neg, dk::neg, {f({257})}, {f({257})}, {}});
  add({"exp", hk::exp, dk::exp, {f({257})}, {f({257})}, {}});
  add({"log", hk::log, dk::log, {f({257}, Init::Positive)}, {f({257})}, {}});
  add({"sqrt", hk::sqrt, dk::sqrt, {f({257}, Init::Positive)}, {f({257})}, {}});
  add({"rsqrt",
       hk::rsqrt,
       dk::rsqrt,
       {f({257}, Init::Positive)},
       {f({257})},
       {}});
  add({"tanh", hk::tanh, dk::tanh, {f({257})}, {f({257})}, {}});
  add({"sin", hk::sin, dk::sin, {f({257})}, {f({257})}, {}});
  add({"cos", hk::cos, dk::cos, {f({257})}, {f({257})}, {}});
  add({"pow",
       hk::pow,
       dk::pow,
       {f({257}, Init::Positive)},
       {f({257})},
       {floatAttr("exponent", 2.5)}});
  add({"relu", hk::relu, dk::relu, {f({257})}, {f({257})}, {}});
  add({"sigmoid", hk::sigmoid, dk::sigmoid, {f({257})}, {f({257})}, {}});
  add({"silu", hk::silu, dk::silu, {f({257})}, {f({257})}, {}});
  add({"gelu-erf",
       hk::gelu,
       dk::gelu,
       {f({257})},
       {f({257})},
       {str("approximation", "erf")}});
  add({"gelu-tanh",
       hk::gelu,
       dk::gelu,
       {f({257})},
       {f({257})},
       {str("approximation", "tanh")}});
  add({"relu_grad",
       hk::relu_grad,
       dk::relu_grad,
       {f({257}), f({257})},
       {f({257})},
       {}});
  add({"sigmoid_grad",
       hk::sigmoid_grad,
       dk::sigmoid_grad,
       {f({257}), f({257})},
       {f({257})},
       {}});
  add({"tanh_grad",
       hk::tanh_grad,
       dk::tanh_grad,
       {f({257}), f({257})},
       {f({257})},
       {}});
  add({"silu_grad",
       hk::silu_grad,
       dk::silu_grad,
       {f({257}), f({257})},
       {f({257})},
       {}});
  add({"gelu_grad-erf",
       hk::gelu_grad,
       dk::gelu_grad,
       {f({257}), f({257})},
       {f({257})},
       {str("approximation", "erf")}});
  add({"gelu_grad-tanh",
       hk::gelu_grad,
       dk::gelu_grad,
       {f({257}), f({257})},
       {f({257})},
       {str("approximation", "tanh")}});
  // Normal inputs: the bounds clip both tails and leave the middle.
  add({"clamp",
       hk::clamp,
       dk::clamp,
       {f({257})},
       {f({257})},
       {floatAttr("min", -0.5), floatAttr("max", 0.75)}});
  add({"clamp_grad",
       hk::clamp_grad,
       dk::clamp_grad,
       {f({257}), f({257})},
       {f({257})},
       {floatAttr("min", -0.5), floatAttr("max", 0.75)}});
  // Normal inputs: mostly the middle, where both branches of the gradients
  // meet; the bounds -3 and 3 are covered by the host tests.
  add({"hardswish", hk::hardswish, dk::hardswish, {f({257})}, {f({257})}, {}});
  add({"hardswish_grad",
       hk::hardswish_grad,
       dk::hardswish_grad,
       {f({257}), f({257})},
       {f({257})},
       {}});
  add({"hardsigmoid",
       hk::hardsigmoid,
       dk::hardsigmoid,
       {f({257})},
       {f({257})},
       {}});
  add({"hardsigmoid_grad",
       hk::hardsigmoid_grad,
       dk::hardsigmoid_grad,
       {f({257}), f({257})},
       {f({257})},
       {}});
  add({"convert", hk::convert, dk::convert, {f({99})}, {f({99})}, {}});
  // Conversions to and from integers and masks: truncation toward zero,
  // `!= 0`, exact and rounded integer-to-float.
  add({"convert-f32-i32",
       hk::convert,
       dk::convert,
       {f({99})},
       {typed(DType::I32, {99})},
       {}});
  add({"convert-f32-i1",
       hk::convert,
       dk::convert,
       {f({99})},
       {typed(DType::I1, {99})},
       {}});
  add({"convert-i64-f32",
       hk::convert,
       dk::convert,
       {index({99}, int64_t(1) << 40)},
       {f({99})},
       {}});
  add({"convert-i1-i64",
       hk::convert,
       dk::convert,
       {{DType::I1, {99}, Init::Mask, 0, false, false}},
       {typed(DType::I64, {99})},
       {}});
  // Dropout: the mask must equal the host's bit for bit.
  add({"dropout",
       hk::dropout,
       dk::dropout,
       {f({3, 333})},
       {f({3, 333}), typed(DType::I1, {3, 333})},
       {floatAttr("p", 0.3), intAttr("seed", 5), intAttr("offset", 7)}});
  add({"dropout_grad",
       hk::dropout_grad,
       dk::dropout_grad,
       {f({999}), {DType::I1, {999}, Init::Mask, 0, false, false}},
       {f({999})},
       {floatAttr("p", 0.3)}});
  add({"sgd_update",
       hk::sgd_update,
       dk::sgd_update,
       {f({77}), f({77})},
       {f({77})},
       {floatAttr("lr", 0.1)}});
  add({"adamw_update",
       hk::adamw_update,
       dk::adamw_update,
       {f({77}), f({77}), stat({77}), stat({77}, Init::Positive)},
       {f({77}), stat({77}), stat({77})},
       {floatAttr("lr", 1e-2), floatAttr("beta1", 0.9),
        floatAttr("beta2", 0.999), floatAttr("eps", 1e-8),
        floatAttr("weight_decay", 0.01), intAttr("step", 3)}});
  // Softmax family, along the last axis and a middle axis.
  for (int64_t axis : {2, 1}) {
    std::string sfx = axis == 2 ? "-last" : "-middle";
    std::vector<Attr> a = {intAttr("axis", axis)};
    add({"softmax" + sfx,
         hk::softmax,
         dk::softmax,
         {f({3, 50, 300})},
         {f({3, 50, 300})},
         a});
    add({"log_softmax" + sfx,
         hk::log_softmax,
         dk::log_softmax,
         {f({3, 50, 300})},
         {f({3, 50, 300})},
         a});
    add({"softmax_grad" + sfx,
         hk::softmax_grad,
         dk::softmax_grad,
         {f({3, 50, 300}), f({3, 50, 300}, Init::Positive)},
         {f({3, 50, 300})},
         a});
    add({"log_softmax_grad" + sfx,
         hk::log_softmax_grad,
         dk::log_softmax_grad,
         {f({3, 50, 300}), f({3, 50, 300})},
         {f({3, 50, 300})},
         a});
  }
  // Cross-entropy; rows whose target is 3 are ignored.
  for (const char *red : {"mean", "sum", "none"}) {
    bool none = std::strcmp(red, "none") == 0;
    add({std::string("cross_entropy-") + red,
         hk::cross_entropy,
         dk::cross_entropy,
         {f({7, 9, 1001}), index({7, 9}, 1001)},
         {none ? f({7, 9}) : f({}), stat({7, 9})},
         {str("reduction", red), intAttr("ignore_index", 3)}});
    add({std::string("cross_entropy_grad-") + red,
         hk::cross_entropy_grad,
         dk::cross_entropy_grad,
         {none ? f({7, 9}) : f({}), f({7, 9, 1001}),
          index({7, 9}, 1001, DType::I32), stat({7, 9}, Init::Positive)},
         {f({7, 9, 1001})},
         {str("reduction", red), intAttr("ignore_index", 3)}});
  }
  // Mean squared error over more elements than the loss block's threads.
  for (const char *red : {"mean", "sum"}) {
    add({std::string("mse_loss-") + red,
         hk::mse_loss,
         dk::mse_loss,
         {f({7, 9, 301}), f({7, 9, 301})},
         {f({})},
         {str("reduction", red)}});
    add({std::string("mse_loss_grad-") + red,
         hk::mse_loss_grad,
         dk::mse_loss_grad,
         {f({}), f({7, 9, 301}), f({7, 9, 301})},
         {f({7, 9, 301})},
         {str("reduction", red)}});
  }
  // Normalization: rows above 512 to exercise the chunked column sums.
  add({"layer_norm",
       hk::layer_norm,
       dk::layer_norm,
       {f({1100, 96}), f({96}), f({96})},
       {f({1100, 96}), stat({1100}), stat({1100})},
       {intAttr("axis", 1), floatAttr("epsilon", 1e-5)}});
  add({"layer_norm-noparams",
       hk::layer_norm,
       dk::layer_norm,
       {f({6, 7, 300}), absent(), absent()},
       {f({6, 7, 300}), stat({6}), stat({6})},
       {intAttr("axis", 1), floatAttr("epsilon", 1e-5)}});
  add({"layer_norm_grad",
       hk::layer_norm_grad,
       dk::layer_norm_grad,
       {f({1100, 96}), f({1100, 96}), stat({1100}),
        stat({1100}, Init::Positive), f({96})},
       {f({1100, 96}), f({96}), f({96})},
       {intAttr("axis", 1)},
       0,
       1e-4});
  add({"rms_norm",
       hk::rms_norm,
       dk::rms_norm,
       {f({33, 130}), f({130})},
       {f({33, 130}), stat({33})},
       {intAttr("axis", 1), floatAttr("epsilon", 1e-6)}});
  add({"rms_norm_grad",
       hk::rms_norm_grad,
       dk::rms_norm_grad,
       {f({600, 130}), f({600, 130}), stat({600}, Init::Positive), f({130})},
       {f({600, 130}), f({130})},
       {intAttr("axis", 1)},
       0,
       1e-4});
  add({"batch_norm",
       hk::batch_norm,
       dk::batch_norm,
       {f({4, 6, 5, 7}), f({6}), f({6})},
       {f({4, 6, 5, 7}), stat({6}), stat({6})},
       {floatAttr("epsilon", 1e-5)}});
  add({"batch_norm_grad",
       hk::batch_norm_grad,
       dk::batch_norm_grad,
       {f({4, 6, 5, 7}), f({4, 6, 5, 7}), stat({6}), stat({6}, Init::Positive),
        f({6})},
       {f({4, 6, 5, 7}), f({6}), f({6})},
       {},
       0,
       1e-4});
  // Reductions: block per output, leading-axes column sums, per thread.
  add({"reduce_sum-middle",
       hk::reduce_sum,
       dk::reduce_sum,
       {f({6, 700, 3})},
       {f({6, 3})},
       {intsA("axes", {1})},
       0,
       1e-4});
  add({"reduce_sum-leading",
       hk::reduce_sum,
       dk::reduce_sum,
       {f({1100, 50})},
       {f({50})},
       {intsA("axes", {0})},
       0,
       1e-4});
  add({"reduce_mean-trailing",
       hk::reduce_mean,
       dk::reduce_mean,
       {f({5000, 7})},
       {f({5000, 1})},
       {intsA("axes", {1}), unitAttr("keep_dims")}});
  add({"reduce_max",
       hk::reduce_max,
       dk::reduce_max,
       {f({4, 300, 5})},
       {f({4})},
       {intsA("axes", {1, 2})}});
  // Data movement.
  add({"transpose",
       hk::transpose,
       dk::transpose,
       {f({2, 3, 4, 5})},
       {f({2, 4, 3, 5})},
       {intsA("perm", {0, 2, 1, 3})}});
  add({"broadcast",
       hk::broadcast,
       dk::broadcast,
       {f({3, 1})},
       {f({2, 3, 4})},
       {}});
  add({"slice",
       hk::slice,
       dk::slice,
       {f({6, 20})},
       {f({3, 5})},
       {intsA("starts", {1, 2}), intsA("steps", {2, 3})}});
  add({"concat",
       hk::concat,
       dk::concat,
       {f({4, 3, 2}), f({4, 5, 2})},
       {f({4, 8, 2})},
       {intAttr("axis", 1)}});
  add({"embedding",
       hk::embedding,
       dk::embedding,
       {f({300, 270}), index({5, 9}, 300)},
       {f({5, 9, 270})},
       {}});
  add({"embedding_grad",
       hk::embedding_grad,
       dk::embedding_grad,
       {f({700, 270}), index({700}, 40, DType::I32)},
       {f({300, 270})},
       {},
       0,
       1e-5});
  // Masks and position ids: shapes across blocks, broadcasting on every
  // operand, iota past its 16-element rounding blocks.
  {
    auto mask = [](std::vector<int64_t> shape) {
      return Spec{DType::I1, std::move(shape), Init::Mask, 0, false, false};
    };
    add({"iota-f32",
         hk::iota,
         dk::iota,
         {},
         {f({300})},
         {floatAttr("start", -3.7), floatAttr("step", 0.3)}});
    add({"iota-i64",
         hk::iota,
         dk::iota,
         {},
         {typed(DType::I64, {300})},
         {intAttr("start", 5), intAttr("step", -3)}});
    add({"compare-f32",
         hk::compare,
         dk::compare,
         {f({7, 1}), f({1, 33})},
         {typed(DType::I1, {7, 33})},
         {str("predicate", "lt")}});
    add({"compare-i64",
         hk::compare,
         dk::compare,
         {index({40, 1}, 6), index({40}, 6)},
         {typed(DType::I1, {40, 40})},
         {str("predicate", "eq")}});
    add({"select",
         hk::select,
         dk::select,
         {mask({3, 1, 33}), f({1, 5, 33}), f({33})},
         {f({3, 5, 33})},
         {}});
    add({"logical_and",
         hk::logical_and,
         dk::logical_and,
         {mask({4, 1, 9}), mask({5, 9})},
         {typed(DType::I1, {4, 5, 9})},
         {}});
    add({"logical_or",
         hk::logical_or,
         dk::logical_or,
         {mask({5, 9}), mask({4, 1, 1})},
         {typed(DType::I1, {4, 5, 9})},
         {}});
    add({"logical_not",
         hk::logical_not,
         dk::logical_not,
         {mask({300})},
         {typed(DType::I1, {300})},
         {}});
    // Relative-position buckets: neg / abs on integers and floats,
    // minimum / maximum broadcasting on both.
    add({"neg-i64",
         hk::neg,
         dk::neg,
         {index({300}, 1000)},
         {typed(DType::I64, {300})},
         {}});
    add({"abs-f32", hk::abs, dk::abs, {f({257})}, {f({257})}, {}});
    add({"abs-i32",
         hk::abs,
         dk::abs,
         {index({300}, 50, DType::I32)},
         {typed(DType::I32, {300})},
         {}});
    add({"minimum-i64",
         hk::minimum,
         dk::minimum,
         {index({40, 1}, 9), index({1, 33}, 9)},
         {typed(DType::I64, {40, 33})},
         {}});
    add({"maximum-f32",
         hk::maximum,
         dk::maximum,
         {f({7, 1}), f({1, 33})},
         {f({7, 33})},
         {}});
    add({"tril",
         hk::tril,
         dk::tril,
         {f({3, 17, 19})},
         {f({3, 17, 19})},
         {intAttr("diagonal", -2)}});
    add({"triu",
         hk::triu,
         dk::triu,
         {mask({17, 19})},
         {typed(DType::I1, {17, 19})},
         {intAttr("diagonal", 3)}});
    add({"pad",
         hk::pad,
         dk::pad,
         {f({3, 5, 7})},
         {f({4, 5, 10})},
         {intsA("low", {1, 0, 2}), intsA("high", {0, 0, 1}),
          floatAttr("value", -2.5)}});
    add({"gather-dim1",
         hk::gather,
         dk::gather,
         {f({6, 300}), index({6, 7}, 300)},
         {f({6, 7})},
         {intAttr("dim", 1)}});
    add({"add-i64",
         hk::add,
         dk::add,
         {index({5, 1}, 1000), index({7}, 1000)},
         {typed(DType::I64, {5, 7})},
         {}});
    add({"mul-i32",
         hk::mul,
         dk::mul,
         {index({33}, 100000, DType::I32), index({33}, 100000, DType::I32)},
         {typed(DType::I32, {33})},
         {}});
    add({"gather-dim0",
         hk::gather,
         dk::gather,
         {f({6, 300}), index({9, 250}, 6)},
         {f({9, 250})},
         {intAttr("dim", 0)}});
  }
  // Matrix products.
  for (int t = 0; t < 4; ++t) {
    bool ta = t & 1, tb = t & 2;
    std::vector<Attr> a;
    if (ta)
      a.push_back(unitAttr("transpose_lhs"));
    if (tb)
      a.push_back(unitAttr("transpose_rhs"));
    add({"matmul-" + std::to_string(t),
         hk::matmul,
         dk::matmul,
         {ta ? f({37, 19}) : f({19, 37}), tb ? f({23, 37}) : f({37, 23})},
         {f({19, 23})},
         a,
         0,
         1e-5});
  }
  add({"batch_matmul-bcast",
       hk::batch_matmul,
       dk::batch_matmul,
       {f({2, 3, 5, 7}), f({1, 3, 7, 4})},
       {f({2, 3, 5, 4})},
       {},
       0,
       1e-5});
  add({"batch_matmul-gqa",
       hk::batch_matmul,
       dk::batch_matmul,
       {f({2, 4, 5, 7}), f({2, 1, 6, 7})},
       {f({2, 4, 5, 6})},
       {unitAttr("transpose_rhs")},
       0,
       1e-5});
  add({"batch_matmul-mixed",
       hk::batch_matmul,
       dk::batch_matmul,
       {f({2, 1, 5, 7}), f({1, 3, 7, 4})},
       {f({2, 3, 5, 4})},
       {},
       0,
       1e-5});
  add({"linear-bias",
       hk::linear,
       dk::linear,
       {f({3, 11, 40}), f({24, 40}), f({24})},
       {f({3, 11, 24})},
       {},
       0,
       1e-5});
  add({"linear-nobias",
       hk::linear,
       dk::linear,
       {f({11, 40}), f({24, 40}), absent()},
       {f({11, 24})},
       {},
       0,
       1e-5});
  // Attention: tiles of 16 queries / 32 keys, GQA, causal, dropout.
  struct AttnShape {
    const char *name;
    int64_t B, H, Hkv, S, Skv, D, Dv;
    bool causal;
    double p;
  };
  for (AttnShape s :
       {AttnShape{"attention-causal", 2, 4, 4, 37, 37, 24, 24, true, 0.0},
        AttnShape{"attention-gqa-cross", 1, 4, 2, 21, 45, 16, 40, false, 0.0},
        AttnShape{"attention-dropout", 1, 2, 1, 40, 40, 64, 64, true, 0.2},
        AttnShape{"attention-wide", 1, 1, 1, 20, 33, 160, 130, false, 0.0}}) {
    std::vector<Attr> a = {floatAttr("scale", 1.0 / std::sqrt(double(s.D)))};
    if (s.causal)
      a.push_back(unitAttr("causal"));
    if (s.p > 0) {
      a.push_back(floatAttr("dropout_p", s.p));
      a.push_back(intAttr("seed", 11));
      a.push_back(intAttr("offset", 5));
    }
    Spec q = f({s.B, s.H, s.S, s.D}), k = f({s.B, s.Hkv, s.Skv, s.D}),
         v = f({s.B, s.Hkv, s.Skv, s.Dv}), o = f({s.B, s.H, s.S, s.Dv});
    add({s.name,
         hk::attention,
         dk::attention,
         {q, k, v},
         {o, stat({s.B, s.H, s.S})},
         a,
         0,
         1e-4});
    // The gradient as a function of its operands: any lse and output will
    // do for comparing the two implementations.
    add({std::string(s.name) + "-grad",
         hk::attention_grad,
         dk::attention_grad,
         {o, q, k, v, o, stat({s.B, s.H, s.S})},
         {q, k, v},
         a,
         static_cast<uint64_t>(4 * s.B * s.H * s.S),
         1e-4});
  }
  // Attention with the optional mask: a causal GQA step with an additive
  // [S, Skv] bias (the query's type), and a key-padding i1 keep-mask
  // [B, 1, 1, Skv] (random; a fully masked row gives NaN on both sides).
  {
    int64_t B = 2, H = 4, Hkv = 2, S = 21, Skv = 45, D = 16, Dv = 24;
    Spec q = f({B, H, S, D}), k = f({B, Hkv, Skv, D}), v = f({B, Hkv, Skv, Dv}),
         o = f({B, H, S, Dv}), lse = stat({B, H, S});
    Spec keep{DType::I1, {B, 1, 1, Skv}, Init::Mask, 0, false, false};
    std::vector<Attr> causal = {floatAttr("scale", 0.25), unitAttr("causal")};
    std::vector<Attr> plain = {floatAttr("scale", 0.25)};
    uint64_t ws = static_cast<uint64_t>(4 * B * H * S);
    add({"attention-bias",
         hk::attention,
         dk::attention,
         {q, k, v, f({S, Skv})},
         {o, lse},
         causal,
         0,
         1e-4});
    add({"attention-bias-grad",
         hk::attention_grad,
         dk::attention_grad,
         {o, q, k, v, o, lse, f({S, Skv})},
         {q, k, v},
         causal,
         ws,
         1e-4});
    add({"attention-keep",
         hk::attention,
         dk::attention,
         {q, k, v, keep},
         {o, lse},
         plain,
         0,
         1e-4});
    add({"attention-keep-grad",
         hk::attention_grad,
         dk::attention_grad,
         {o, q, k, v, o, lse, keep},
         {q, k, v},
         plain,
         ws,
         1e-4});
  }
  // Convolution: stride, padding, dilation, groups; 1x1 without workspace.
  struct ConvShape {
    const char *name;
    int64_t N, C, H, W, O, kh, kw, sh, sw, ph, pw, dh, dw, g;
  };
  for (ConvShape c :
       {ConvShape{"conv2d-3x3", 2, 4, 9, 11, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1},
        ConvShape{"conv2d-strided-groups", 2, 4, 10, 9, 6, 3, 2, 2, 3, 1, 0, 2,
                  1, 2},
        ConvShape{"conv2d-1x1", 2, 5, 6, 7, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1}}) {
    int64_t Ho = (c.H + 2 * c.ph - c.dh * (c.kh - 1) - 1) / c.sh + 1;
    int64_t Wo = (c.W + 2 * c.pw - c.dw * (c.kw - 1) - 1) / c.sw + 1;
    bool pointwise = c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 &&
                     c.ph == 0 && c.pw == 0;
    uint64_t ws =
        pointwise ? 0 : static_cast<uint64_t>(c.C * c.kh * c.kw * Ho * Wo * 4);
    std::vector<Attr> a = {
        intsA("strides", {c.sh, c.sw}), intsA("padding", {c.ph, c.pw}),
        intsA("dilation", {c.dh, c.dw}), intAttr("groups", c.g)};
    Spec x = f({c.N, c.C, c.H, c.W}), w = f({c.O, c.C / c.g, c.kh, c.kw}),
         y = f({c.N, c.O, Ho, Wo});
    add({c.name, hk::conv2d, dk::conv2d, {x, w, f({c.O})}, {y}, a, ws, 1e-5});
    add({std::string(c.name) + "-grad_input",
         hk::conv2d_grad_input,
         dk::conv2d_grad_input,
         {y, w},
         {x},
         a,
         ws,
         1e-5});
    add({std::string(c.name) + "-grad_weight",
         hk::conv2d_grad_weight,
         dk::conv2d_grad_weight,
         {y, x},
         {w},
         a,
         ws,
         1e-5});
  }
  // Pooling.
  std::vector<Attr> pool = {intsA("kernel", {3, 2}), intsA("strides", {2, 2}),
                            intsA("padding", {1, 1})};
  std::vector<Attr> poolPad = pool;
  poolPad.push_back(unitAttr("count_include_pad"));
  add({"max_pool2d",
       hk::max_pool2d,
       dk::max_pool2d,
       {f({2, 3, 9, 8})},
       {f({2, 3, 5, 5}), typed(DType::I64, {2, 3, 5, 5})},
       pool});
  add({"avg_pool2d",
       hk::avg_pool2d,
       dk::avg_pool2d,
       {f({2, 3, 9, 8})},
       {f({2, 3, 5, 5})},
       pool});
  add({"avg_pool2d-pad",
       hk::avg_pool2d,
       dk::avg_pool2d,
       {f({2, 3, 9, 8})},
       {f({2, 3, 5, 5})},
       poolPad});
  add({"avg_pool2d_grad",
       hk::avg_pool2d_grad,
       dk::avg_pool2d_grad,
       {f({2, 3, 5, 5})},
       {f({2, 3, 9, 8})},
       pool});
  return cs;
}

} // namespace

int main(int argc, char **argv) {
  bool bf16 = false, verbose = false;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bf16") == 0)
      bf16 = true;
    else if (std::strcmp(argv[i], "--verbose") == 0)
      verbose = true;
    else if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
      filter = argv[++i];
    else {
      std::fprintf(
          stderr,
          "usage: ckpt-cuda-kernel-check [--bf16] [--filter S] [--verbose]\n");
      return 2;
    }
  }
  try {
    Checker checker(bf16, verbose);
    int run = 0, failed = 0;
    for (const Case &c : cases()) {
      if (!filter.empty() && c.name.find(filter) == std::string::npos)
        continue;
      ++run;
      failed += !checker.run(c);
    }
    std::printf("%d of %d cases passed (%s)\n", run - failed, run,
                bf16 ? "bf16" : "f32");
    return failed ? 1 : 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ckpt-cuda-kernel-check: %s\n", e.what());
    return 2;
  }
}
