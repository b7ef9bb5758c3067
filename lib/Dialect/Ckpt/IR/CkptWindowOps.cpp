//===- CkptWindowOps.cpp - Verifiers of conv, pool and update ops ---------===//
//
// Verifiers of the sliding-window ops (convolution, pooling), the optimizer
// updates and the opaque op.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ckpt;

/// Verifies the window attributes: positive kernel/stride/dilation and
/// non-negative padding.
static LogicalResult verifyWindowAttrs(Operation *op, ArrayRef<int64_t> kernel,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> padding,
                                       ArrayRef<int64_t> dilation) {
  for (int d = 0; d < 2; ++d) {
    if (strides[d] < 1 || dilation[d] < 1 || kernel[d] < 1)
      return op->emitOpError()
             << "expects positive kernel sizes, strides and dilations";
    if (padding[d] < 0)
      return op->emitOpError() << "expects non-negative padding";
  }
  return success();
}

/// Verifies that the padded extent `size + 2*pad` and the dilated kernel
/// `dilation*(kernel-1) + 1` of spatial dimension `d` fit in int64_t, so that
/// getWindowOutputSize computes the exact output extent.
static LogicalResult verifyWindowExtent(Operation *op, int d, int64_t size,
                                        int64_t kernel, int64_t pad,
                                        int64_t dilation) {
  std::optional<int64_t> padded = llvm::checkedMul<int64_t>(pad, 2);
  if (padded)
    padded = llvm::checkedAdd<int64_t>(*padded, size);
  std::optional<int64_t> span = llvm::checkedMul<int64_t>(dilation, kernel - 1);
  if (span)
    span = llvm::checkedAdd<int64_t>(*span, 1);
  if (padded && span)
    return success();
  return op->emitOpError() << "spatial dimension " << d << ": padding " << pad
                           << " or dilation " << dilation
                           << " overflows the window arithmetic";
}

/// Verifies a 2-D convolution with input `[N, C, H, W]`, weight
/// `[O, C/groups, kh, kw]` and output `[N, O, Ho, Wo]`; `outputWhat` names
/// the output value (the result or an incoming gradient) in errors.
static LogicalResult verifyConvolution(Operation *op, Value input, Value weight,
                                       Value output, StringRef outputWhat,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> padding,
                                       ArrayRef<int64_t> dilation,
                                       int64_t groups) {
  std::pair<Value, StringRef> named[] = {
      {input, "input"}, {weight, "weight"}, {output, outputWhat}};
  for (auto [value, what] : named)
    if (cast<ShapedType>(value.getType()).getRank() != 4)
      return op->emitOpError() << "expects " << what << " of rank 4, got rank "
                               << cast<ShapedType>(value.getType()).getRank();
  if (failed(verifySameElementType(op, input, {weight, output})))
    return failure();
  ArrayRef<int64_t> x = shapeOf(input), w = shapeOf(weight);
  if (failed(
          verifyWindowAttrs(op, w.drop_front(2), strides, padding, dilation)))
    return failure();
  if (x[1] % groups != 0 || w[0] % groups != 0)
    return op->emitOpError()
           << "input channels (" << x[1] << ") and output channels (" << w[0]
           << ") must be divisible by groups (" << groups << ")";
  if (w[1] != x[1] / groups)
    return op->emitOpError()
           << "weight has " << w[1] << " input channels per group, expected "
           << x[1] / groups;
  SmallVector<int64_t> expected = {x[0], w[0]};
  for (int d = 0; d < 2; ++d) {
    if (failed(verifyWindowExtent(op, d, x[2 + d], w[2 + d], padding[d],
                                  dilation[d])))
      return failure();
    int64_t size = getWindowOutputSize(x[2 + d], w[2 + d], strides[d],
                                       padding[d], dilation[d]);
    if (size < 1)
      return op->emitOpError()
             << "spatial dimension " << d << " of size " << x[2 + d]
             << " is smaller than the dilated kernel";
    expected.push_back(size);
  }
  return verifyShape(op, output, expected, outputWhat);
}

LogicalResult Conv2dOp::verify() {
  if (failed(verifyConvolution(*this, getInput(), getWeight(), getResult(),
                               "a result", getStrides(), getPadding(),
                               getDilation(), getGroups())))
    return failure();
  if (getBias())
    return failure(failed(verifyShape(*this, getBias(),
                                      {shapeOf(getWeight())[0]}, "a bias")) ||
                   failed(verifySameElementType(*this, getInput(), getBias())));
  return success();
}

LogicalResult Conv2dGradInputOp::verify() {
  return verifyConvolution(*this, getResult(), getWeight(), getGrad(),
                           "an output gradient", getStrides(), getPadding(),
                           getDilation(), getGroups());
}

LogicalResult Conv2dGradWeightOp::verify() {
  return verifyConvolution(*this, getInput(), getResult(), getGrad(),
                           "an output gradient", getStrides(), getPadding(),
                           getDilation(), getGroups());
}

/// Verifies a 2-D pooling window from `input` `[N, C, H, W]` to `output`.
static LogicalResult verifyPooling(Operation *op, Value input, Value output,
                                   StringRef outputWhat,
                                   ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> padding) {
  std::pair<Value, StringRef> named[] = {{input, "input"},
                                         {output, outputWhat}};
  for (auto [value, what] : named)
    if (cast<ShapedType>(value.getType()).getRank() != 4)
      return op->emitOpError() << "expects " << what << " of rank 4, got rank "
                               << cast<ShapedType>(value.getType()).getRank();
  if (failed(verifySameElementType(op, input, output)) ||
      failed(verifyWindowAttrs(op, kernel, strides, padding, {1, 1})))
    return failure();
  ArrayRef<int64_t> x = shapeOf(input);
  SmallVector<int64_t> expected = {x[0], x[1]};
  for (int d = 0; d < 2; ++d) {
    // As PyTorch: padding adds at most half a window on each side.
    if (padding[d] > kernel[d] / 2)
      return op->emitOpError()
             << "padding (" << padding[d]
             << ") must be at most half the kernel size (" << kernel[d] << ")";
    if (failed(verifyWindowExtent(op, d, x[2 + d], kernel[d], padding[d], 1)))
      return failure();
    int64_t size =
        getWindowOutputSize(x[2 + d], kernel[d], strides[d], padding[d], 1);
    if (size < 1)
      return op->emitOpError() << "spatial dimension " << d << " of size "
                               << x[2 + d] << " is smaller than the kernel";
    expected.push_back(size);
  }
  return verifyShape(op, output, expected, outputWhat);
}

LogicalResult MaxPool2dOp::verify() {
  if (failed(verifyPooling(*this, getInput(), getResult(), "a result",
                           getKernel(), getStrides(), getPadding())))
    return failure();
  return verifyShape(*this, getIndices(), shapeOf(getResult()), "indices");
}

LogicalResult MaxPool2dGradOp::verify() {
  if (failed(verifyPooling(*this, getResult(), getGrad(), "an output gradient",
                           getKernel(), getStrides(), getPadding())))
    return failure();
  return verifyShape(*this, getIndices(), shapeOf(getGrad()), "indices");
}

LogicalResult AvgPool2dOp::verify() {
  return verifyPooling(*this, getInput(), getResult(), "a result", getKernel(),
                       getStrides(), getPadding());
}

LogicalResult AvgPool2dGradOp::verify() {
  return verifyPooling(*this, getResult(), getGrad(), "an output gradient",
                       getKernel(), getStrides(), getPadding());
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

LogicalResult SgdUpdateOp::verify() {
  if (!std::isfinite(getLr().convertToDouble()))
    return emitOpError() << "expects a finite learning rate";
  return success();
}

LogicalResult AdamwUpdateOp::verify() {
  Type param = getParam().getType();
  if (getGrad().getType() != param || getResult().getType() != param)
    return emitOpError() << "expects the gradient and the result to have the "
                            "parameter's type "
                         << param;
  for (Value moment :
       {getExpAvg(), getExpAvgSq(), getNewExpAvg(), getNewExpAvgSq()})
    if (failed(verifyShape(*this, moment, shapeOf(getParam()),
                           "moments (the parameter's shape)")))
      return failure();
  for (auto [value, name] : {std::pair{getBeta1().convertToDouble(), "beta1"},
                             {getBeta2().convertToDouble(), "beta2"}})
    if (!(std::isfinite(value) && value >= 0.0 && value < 1.0))
      return emitOpError() << "expects " << name << " in [0, 1), got " << value;
  if (!(getEps().convertToDouble() > 0.0) ||
      !std::isfinite(getEps().convertToDouble()))
    return emitOpError() << "expects a positive finite eps";
  if (!std::isfinite(getLr().convertToDouble()) ||
      !std::isfinite(getWeightDecay().convertToDouble()))
    return emitOpError() << "expects a finite lr and weight_decay";
  return success();
}

//===----------------------------------------------------------------------===//
// Opaque
//===----------------------------------------------------------------------===//

LogicalResult OpaqueOp::verify() {
  if (getName().empty())
    return emitOpError() << "requires a non-empty kernel name";
  return success();
}
