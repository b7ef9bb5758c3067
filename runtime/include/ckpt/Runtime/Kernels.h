//===- Kernels.h - Host kernels, one per ckpt op ------------------*- C++ -*-===//
//
// One function per op of the ckpt dialect, named by the op's mnemonic, with
// the `KernelFn` signature of Program.h. Semantics are exactly those of
// docs/dialect.md and CkptOps.td. Host kernels compute in f32 (tensors of
// f16/bf16 are refused by the code generator); GEMMs go through OpenBLAS.
// Results are deterministic: the same inputs give bit-identical outputs
// whatever the arena offsets, which is what makes a recomputed value equal
// the value it replaces.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_KERNELS_H
#define CKPT_RUNTIME_KERNELS_H

#include "ckpt/Runtime/Program.h"

#include <cstdint>
#include <stdexcept>
#include <utility>

namespace ckpt::rt {

/// Thrown by a kernel on a call the generated code should never make (a
/// missing attribute, an unsupported dtype); `Session::run` reports it with
/// the op's name and location.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The present tensor `list[index]` of a kernel call; throws KernelError
/// ("missing <what>") when it is absent.
const Tensor &requireOperand(TensorList list, size_t index, const char *what);

/// Optional operand `slot` of an op with `numSlots` operand slots, or nullptr
/// when absent. Accepts the conventions of Program.h: one slot per operand
/// (absent ones as absent tensors), only the present operands decoded by an
/// `operandSegmentSizes` attribute, or a missing trailing optional.
const Tensor *findOptionalOperand(TensorList operands, const Attrs &attrs,
                                  size_t numSlots, size_t slot);

/// The `min` and `max` attributes of a `clamp` / `clamp_grad` call of `op`;
/// throws KernelError unless min <= max (NaN bounds included). Shared by the
/// host and device kernels, which round the bounds as PyTorch does.
std::pair<double, double> clampBounds(const Attrs &attrs, const char *op);

/// The predicate of a `compare` call.
enum class ComparePredicate { Eq, Ne, Lt, Le, Gt, Ge };
/// The `predicate` attribute of a `compare` call (a keyword, "lt"); throws
/// KernelError for a missing or unknown one. Shared by host and device.
ComparePredicate comparePredicate(const Attrs &attrs);

/// The `start` and `step` of an `iota` call, each an Int or a Float
/// attribute: as doubles, and exactly when both are integers.
struct IotaParams {
  double start = 0.0, step = 1.0;
  bool integral = false;
  int64_t startInt = 0, stepInt = 1;
};
/// Reads and checks (finite, non-zero step; integral for an integer
/// `result`) the numbers of an `iota` call. Shared by host and device.
IotaParams iotaParams(const Attrs &attrs, const Tensor &result);

/// Checks a `pad` call (`low` and `high` of one non-negative entry per
/// dimension, `result.shape = input.shape + low + high`, one element type)
/// and returns its `low` pads. Shared by host and device.
const int64_t *padLow(const Tensor &input, const Tensor &result,
                      const Attrs &attrs);

/// Element strides of an attention `mask` broadcast, right-aligned, to the
/// scores' shape `scores` = {B, H, S, Skv}: 0 along the dimensions it
/// broadcasts, including those it lacks; throws KernelError naming `op` when
/// it does not broadcast. Shared by host and device.
void attentionMaskStrides(const Tensor &mask, const int64_t scores[4],
                          int64_t strides[4], const char *op);

/// Checks a `gather` call (an i64 index of the input's rank, sizes at most
/// the input's off `dim`, the result of the index's shape and the input's
/// element type) and returns `dim`. Shared by host and device.
int gatherDim(const Tensor &input, const Tensor &index, const Tensor &result,
              const Attrs &attrs);

/// The optional `padding_idx` attribute of an `embedding_grad` call of `op`
/// on a table of `rows` rows, or -1 when absent; throws KernelError unless it
/// is a row of the table. Shared by the host and device kernels.
int64_t embeddingPaddingIndex(const Attrs &attrs, int64_t rows, const char *op);

namespace kernels {
#define CKPT_KERNEL(NAME)                                                      \
  void NAME(ExecContext &ctx, TensorList operands, TensorList results,         \
            const Attrs &attrs, const Tensor &workspace);
CKPT_KERNEL(matmul)
CKPT_KERNEL(matmul_acc)
CKPT_KERNEL(batch_matmul)
CKPT_KERNEL(linear)
CKPT_KERNEL(add)
CKPT_KERNEL(sub)
CKPT_KERNEL(mul)
CKPT_KERNEL(div)
CKPT_KERNEL(neg)
CKPT_KERNEL(exp)
CKPT_KERNEL(log)
CKPT_KERNEL(sqrt)
CKPT_KERNEL(rsqrt)
CKPT_KERNEL(tanh)
CKPT_KERNEL(sin)
CKPT_KERNEL(cos)
CKPT_KERNEL(abs)
CKPT_KERNEL(minimum)
CKPT_KERNEL(maximum)
CKPT_KERNEL(pow)
CKPT_KERNEL(convert)
CKPT_KERNEL(relu)
CKPT_KERNEL(sigmoid)
CKPT_KERNEL(silu)
CKPT_KERNEL(gelu)
CKPT_KERNEL(relu_grad)
CKPT_KERNEL(sigmoid_grad)
CKPT_KERNEL(tanh_grad)
CKPT_KERNEL(silu_grad)
CKPT_KERNEL(gelu_grad)
CKPT_KERNEL(clamp)
CKPT_KERNEL(clamp_grad)
CKPT_KERNEL(hardswish)
CKPT_KERNEL(hardswish_grad)
CKPT_KERNEL(hardsigmoid)
CKPT_KERNEL(hardsigmoid_grad)
CKPT_KERNEL(softmax)
CKPT_KERNEL(log_softmax)
CKPT_KERNEL(softmax_grad)
CKPT_KERNEL(log_softmax_grad)
CKPT_KERNEL(layer_norm)
CKPT_KERNEL(layer_norm_grad)
CKPT_KERNEL(rms_norm)
CKPT_KERNEL(rms_norm_grad)
CKPT_KERNEL(batch_norm)
CKPT_KERNEL(batch_norm_grad)
CKPT_KERNEL(dropout)
CKPT_KERNEL(dropout_grad)
CKPT_KERNEL(embedding)
CKPT_KERNEL(embedding_grad)
CKPT_KERNEL(cross_entropy)
CKPT_KERNEL(cross_entropy_grad)
CKPT_KERNEL(mse_loss)
CKPT_KERNEL(mse_loss_grad)
CKPT_KERNEL(reduce_sum)
CKPT_KERNEL(reduce_mean)
CKPT_KERNEL(reduce_max)
CKPT_KERNEL(reshape)
CKPT_KERNEL(transpose)
CKPT_KERNEL(broadcast)
CKPT_KERNEL(slice)
CKPT_KERNEL(concat)
CKPT_KERNEL(tril)
CKPT_KERNEL(triu)
CKPT_KERNEL(pad)
CKPT_KERNEL(gather)
CKPT_KERNEL(fill)
CKPT_KERNEL(iota)
CKPT_KERNEL(compare)
CKPT_KERNEL(select)
CKPT_KERNEL(logical_not)
CKPT_KERNEL(logical_and)
CKPT_KERNEL(logical_or)
CKPT_KERNEL(attention)
CKPT_KERNEL(attention_grad)
CKPT_KERNEL(conv2d)
CKPT_KERNEL(conv2d_grad_input)
CKPT_KERNEL(conv2d_grad_weight)
CKPT_KERNEL(max_pool2d)
CKPT_KERNEL(max_pool2d_grad)
CKPT_KERNEL(avg_pool2d)
CKPT_KERNEL(avg_pool2d_grad)
CKPT_KERNEL(sgd_update)
CKPT_KERNEL(adamw_update)
#undef CKPT_KERNEL
} // namespace kernels

} // namespace ckpt::rt

#endif // CKPT_RUNTIME_KERNELS_H
