//===- ckpt-cuda-smoke.cpp - A hand-written CUDA step through CudaSession -===//
//
// A small training step written the way `ckpt-opt --emit=cuda` writes one:
// straight-line kernel calls with fixed arena offsets, acquire/release
// around every value. Forward: linear, gelu, layer_norm, a head split,
// causal attention, dropout, cross-entropy; backward through all of them;
// an SGD update. Building it proves that the device runtime links against
// cudart and cuBLASLt; running it (on a GPU) runs the step twice and checks
// that the loss and the gradients are bit-identical, then prints them.
//
// Usage: ckpt-cuda-smoke [--tf32]   run the step (needs a GPU)
//        ckpt-cuda-smoke --list     print the kernel table (no GPU needed;
//                                   links every device kernel)
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/Cuda/CudaKernels.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

using namespace ckpt::rt;
using namespace ckpt::rt::cuda;

namespace {

// Shapes: batch 2, sequence 16, width 64, 4 heads of 16.
constexpr int64_t kB = 2, kS = 16, kE = 64, kH = 4, kDh = 16, kR = kB * kS;

/// Arena slots, in allocation order; every slot is 256-byte aligned.
enum Slot {
  X,
  W,
  Bias,
  LnW,
  Targets,
  Seed, // Arguments.
  Hid,
  Gel,
  Y,
  Mean,
  Rstd,
  Q,
  O,
  Lse,
  O2,
  Drop,
  Mask,
  Loss,
  Lse2, // Forward.
  DDrop,
  DO2,
  DO,
  DQ,
  DK,
  DV,
  Delta,
  S1,
  DQSum,
  DY,
  DG,
  DLnW,
  DH,
  DW,
  DBias,
  WNew, // Backward, optimizer.
  NumSlots
};

uint64_t slotBytes(int slot) {
  switch (slot) {
  case X:
  case Hid:
  case Gel:
  case Y:
  case O2:
  case Drop:
  case DDrop:
  case DO2:
  case DY:
  case DG:
  case DH:
    return kR * kE * 4;
  case W:
  case DW:
  case WNew:
    return kE * kE * 4;
  case Bias:
  case LnW:
  case DLnW:
  case DBias:
    return kE * 4;
  case Targets:
    return kR * 8;
  case Seed:
  case Loss:
    return 4;
  case Mean:
  case Rstd:
  case Lse2:
    return kR * 4;
  case Q:
  case O:
  case DO:
  case DQ:
  case DK:
  case DV:
  case S1:
  case DQSum:
    return kB * kH * kS * kDh * 4;
  case Lse:
  case Delta:
    return kB * kH * kS * 4;
  case Mask:
    return kR * kE;
  }
  return 0;
}

struct Layout {
  uint64_t offset[NumSlots];
  uint64_t size = 0;
  Layout() {
    for (int s = 0; s < NumSlots; ++s) {
      offset[s] = size;
      size += (slotBytes(s) + 255) / 256 * 256;
    }
  }
};
const Layout layout;

Binding binding(const char *name, Role role, DType type,
                std::initializer_list<int64_t> dims, int slot,
                int gradOf = -1) {
  Binding b{name,  role,
            type,  static_cast<int>(dims.size()),
            {},    static_cast<int64_t>(layout.offset[slot]),
            gradOf};
  int i = 0;
  for (int64_t d : dims)
    b.shape[i++] = d;
  return b;
}

const Binding arguments[] = {
    binding("x", Role::Input, DType::F32, {kR, kE}, X),
    binding("w", Role::Param, DType::F32, {kE, kE}, W),
    binding("b", Role::Param, DType::F32, {kE}, Bias),
    binding("ln.weight", Role::Param, DType::F32, {kE}, LnW),
    binding("targets", Role::Input, DType::I64, {kR}, Targets),
    binding("seed", Role::Seed, DType::F32, {}, Seed),
};
const Binding results[] = {
    binding("loss", Role::Loss, DType::F32, {}, Loss),
    binding("grad:w", Role::Grad, DType::F32, {kE, kE}, DW, 1),
    binding("grad:b", Role::Grad, DType::F32, {kE}, DBias, 2),
    binding("grad:ln.weight", Role::Grad, DType::F32, {kE}, DLnW, 3),
    binding("w.updated", Role::State, DType::F32, {kE, kE}, WNew),
};

Tensor at(CudaExecContext &ctx, int slot, DType type,
          std::initializer_list<int64_t> dims) {
  return Tensor(ctx.arena() + layout.offset[slot], type, dims);
}

/// Slot sizes as the plan counts them: rounded up to the 256-byte alignment.
uint64_t alignedBytes(int slot) { return (slotBytes(slot) + 255) / 256 * 256; }

void acquire(CudaExecContext &ctx, int slot) {
  ctx.acquire(layout.offset[slot], alignedBytes(slot));
}

/// Runs one op: operands and results as initializer lists.
void op(CudaExecContext &ctx, const OpInfo &info, CudaKernelFn kernel,
        std::initializer_list<Tensor> operands,
        std::initializer_list<Tensor> outs,
        std::initializer_list<Attr> attrs = {}, Tensor workspace = Tensor()) {
  ctx.call(info, kernel, TensorList{operands.begin(), operands.size()},
           TensorList{outs.begin(), outs.size()},
           Attrs{attrs.begin(), attrs.size()}, workspace);
}

constexpr int64_t kPermHeads[] = {0, 2, 1, 3};
constexpr int64_t kAxis0[] = {0};

void runStep(CudaExecContext &ctx) {
  // The session holds the arguments; every other value is acquired here.
  for (int s = Hid; s < NumSlots; ++s)
    acquire(ctx, s);
  const DType f = DType::F32;
  Tensor x = at(ctx, X, f, {kR, kE}), w = at(ctx, W, f, {kE, kE}),
         b = at(ctx, Bias, f, {kE}), lnw = at(ctx, LnW, f, {kE}),
         t = at(ctx, Targets, DType::I64, {kR}), seed = at(ctx, Seed, f, {});
  Tensor h = at(ctx, Hid, f, {kR, kE}), g = at(ctx, Gel, f, {kR, kE}),
         y = at(ctx, Y, f, {kR, kE}), mean = at(ctx, Mean, f, {kR}),
         rstd = at(ctx, Rstd, f, {kR});
  Tensor y4 = at(ctx, Y, f, {kB, kS, kH, kDh});
  Tensor q = at(ctx, Q, f, {kB, kH, kS, kDh}),
         o = at(ctx, O, f, {kB, kH, kS, kDh}),
         lse = at(ctx, Lse, f, {kB, kH, kS});
  Tensor o2 = at(ctx, O2, f, {kB, kS, kH, kDh}), o2r = at(ctx, O2, f, {kR, kE});
  Tensor d = at(ctx, Drop, f, {kR, kE}),
         mask = at(ctx, Mask, DType::I1, {kR, kE});
  Tensor loss = at(ctx, Loss, f, {}), lse2 = at(ctx, Lse2, f, {kR});
  const Phase F = Phase::Forward, Bw = Phase::Backward;
  auto info = [](int i, const char *name, Phase p) {
    return OpInfo{i, name, "ckpt-cuda-smoke.cpp", p, false, -1};
  };
  static const OpInfo ops[] = {info(0, "linear", F),
                               info(1, "gelu", F),
                               info(2, "layer_norm", F),
                               info(3, "transpose", F),
                               info(4, "attention", F),
                               info(5, "transpose", F),
                               info(6, "dropout", F),
                               info(7, "cross_entropy", F),
                               info(8, "cross_entropy_grad", Bw),
                               info(9, "dropout_grad", Bw),
                               info(10, "transpose", Bw),
                               info(11, "attention_grad", Bw),
                               info(12, "add", Bw),
                               info(13, "add", Bw),
                               info(14, "transpose", Bw),
                               info(15, "layer_norm_grad", Bw),
                               info(16, "gelu_grad", Bw),
                               info(17, "matmul", Bw),
                               info(18, "reduce_sum", Bw),
                               info(19, "sgd_update", Phase::Optimizer)};
  const Attr perm = intsAttr("perm", kPermHeads, 4);
  op(ctx, ops[0], kernels::linear, {x, w, b}, {h});
  op(ctx, ops[1], kernels::gelu, {h}, {g},
     {stringAttr("approximation", "tanh")});
  op(ctx, ops[2], kernels::layer_norm, {g, lnw, Tensor()}, {y, mean, rstd},
     {intAttr("axis", 1), floatAttr("epsilon", 1e-5)});
  op(ctx, ops[3], kernels::transpose, {y4}, {q}, {perm});
  const Attr attnAttrs[] = {floatAttr("scale", 0.25), unitAttr("causal")};
  op(ctx, ops[4], kernels::attention, {q, q, q}, {o, lse},
     {attnAttrs[0], attnAttrs[1]});
  op(ctx, ops[5], kernels::transpose, {o}, {o2}, {perm});
  op(ctx, ops[6], kernels::dropout, {o2r}, {d, mask},
     {floatAttr("p", 0.1), intAttr("seed", 1), intAttr("offset", 0)});
  op(ctx, ops[7], kernels::cross_entropy, {d, t}, {loss, lse2},
     {stringAttr("reduction", "mean"), intAttr("ignore_index", -100)});

  Tensor dd = at(ctx, DDrop, f, {kR, kE}),
         do2 = at(ctx, DO2, f, {kB, kS, kH, kDh}),
         do2r = at(ctx, DO2, f, {kR, kE}),
         dO = at(ctx, DO, f, {kB, kH, kS, kDh});
  Tensor dq = at(ctx, DQ, f, {kB, kH, kS, kDh}),
         dk = at(ctx, DK, f, {kB, kH, kS, kDh}),
         dv = at(ctx, DV, f, {kB, kH, kS, kDh}),
         delta = at(ctx, Delta, f, {kB * kH * kS});
  Tensor s1 = at(ctx, S1, f, {kB, kH, kS, kDh}),
         dqs = at(ctx, DQSum, f, {kB, kH, kS, kDh});
  Tensor dy4 = at(ctx, DY, f, {kB, kS, kH, kDh}), dy = at(ctx, DY, f, {kR, kE});
  Tensor dg = at(ctx, DG, f, {kR, kE}), dlnw = at(ctx, DLnW, f, {kE}),
         dh = at(ctx, DH, f, {kR, kE}), dw = at(ctx, DW, f, {kE, kE}),
         db = at(ctx, DBias, f, {kE}), wNew = at(ctx, WNew, f, {kE, kE});
  op(ctx, ops[8], kernels::cross_entropy_grad, {seed, d, t, lse2}, {dd},
     {stringAttr("reduction", "mean"), intAttr("ignore_index", -100)});
  op(ctx, ops[9], kernels::dropout_grad, {dd, mask}, {do2r},
     {floatAttr("p", 0.1)});
  op(ctx, ops[10], kernels::transpose, {do2}, {dO}, {perm});
  op(ctx, ops[11], kernels::attention_grad, {dO, q, q, q, o, lse}, {dq, dk, dv},
     {attnAttrs[0], attnAttrs[1]}, delta);
  op(ctx, ops[12], kernels::add, {dq, dk}, {s1});
  op(ctx, ops[13], kernels::add, {s1, dv}, {dqs});
  op(ctx, ops[14], kernels::transpose, {dqs}, {dy4}, {perm});
  op(ctx, ops[15], kernels::layer_norm_grad, {dy, g, mean, rstd, lnw},
     {dg, dlnw}, {intAttr("axis", 1)});
  op(ctx, ops[16], kernels::gelu_grad, {dg, h}, {dh},
     {stringAttr("approximation", "tanh")});
  op(ctx, ops[17], kernels::matmul, {dh, x}, {dw}, {unitAttr("transpose_lhs")});
  op(ctx, ops[18], kernels::reduce_sum, {dh}, {db},
     {intsAttr("axes", kAxis0, 1)});
  op(ctx, ops[19], kernels::sgd_update, {w, dw}, {wNew},
     {floatAttr("lr", 0.1)});
  // Release everything but the step's results.
  for (int s = Hid; s < NumSlots; ++s)
    if (s != Loss && s != DW && s != DBias && s != DLnW && s != WNew)
      ctx.release(layout.offset[s], alignedBytes(s));
}

const CudaStepProgram &smokeProgram() {
  static const CudaStepProgram program = {
      StepProgram{"ckpt_cuda_smoke", layout.size, layout.size, 256, 20, 0, 0,
                  arguments, sizeof arguments / sizeof arguments[0], results,
                  sizeof results / sizeof results[0], nullptr, 0, 0, 0},
      runStep, -1};
  return program;
}

/// Deterministic pseudo-random values in [-1, 1).
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--list") == 0) {
    size_t count = 0;
    const CudaKernelEntry *table = cudaKernelTable(count);
    for (size_t i = 0; i < count; ++i)
      std::printf("%s\n", table[i].name);
    std::printf("%zu device kernels\n", count);
    return 0;
  }
  CudaSessionOptions options;
  options.seed = 1234;
  options.timePhases = true;
  options.allowTf32 = argc > 1 && std::strcmp(argv[1], "--tf32") == 0;
  try {
    CudaSession session(smokeProgram(), options);
    auto x = values(kR * kE, 1), w = values(kE * kE, 2), b = values(kE, 3);
    std::vector<float> lnw(kE, 1.0f), seed(1, 1.0f);
    std::vector<int64_t> targets(kR);
    for (int64_t i = 0; i < kR; ++i)
      targets[i] = (i * 7) % kE;
    session.setArgument(0, x.data(), x.size() * 4);
    session.setArgument(1, w.data(), w.size() * 4);
    session.setArgument(2, b.data(), b.size() * 4);
    session.setArgument(3, lnw.data(), lnw.size() * 4);
    session.setArgument(4, targets.data(), targets.size() * 8);
    session.setArgument(5, seed.data(), 4);
    std::vector<std::vector<float>> first;
    for (int run = 0; run < 2; ++run) {
      session.run();
      for (uint64_t r = 0; r < 4; ++r) {
        std::vector<float> out(bindingBytes(results[r]) / 4);
        session.readResult(r, out.data(), out.size() * 4);
        if (run == 0) {
          first.push_back(out);
        } else if (std::memcmp(out.data(), first[r].data(), out.size() * 4) !=
                   0) {
          std::fprintf(stderr, "error: result '%s' differs between two runs\n",
                       results[r].name);
          return 1;
        }
      }
    }
    const CudaStats &st = session.stats();
    std::printf("loss %.6f\n", first[0][0]);
    for (uint64_t r = 1; r < 4; ++r) {
      double norm = 0;
      for (float v : first[r])
        norm += static_cast<double>(v) * v;
      std::printf("|%s| %.6e\n", results[r].name, std::sqrt(norm));
    }
    std::printf(
        "arena %llu B, peak in use %llu B, ops %llu, device used %llu B "
        "(baseline %llu B), step %.3f ms\n",
        static_cast<unsigned long long>(st.arenaBytes),
        static_cast<unsigned long long>(st.peakBytesInUse),
        static_cast<unsigned long long>(st.opsRun),
        static_cast<unsigned long long>(st.deviceBytesUsed),
        static_cast<unsigned long long>(st.deviceBytesBaseline),
        st.stepSeconds * 1e3);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ckpt-cuda-smoke: %s\n", e.what());
    return 2;
  }
}
