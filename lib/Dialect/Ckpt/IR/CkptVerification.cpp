//===- CkptVerification.cpp - Shared verifier logic -----------------------===//
//
// Shape, element-type and attribute checks used by several op verifiers.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"
#include "ckpt/Dialect/Ckpt/IR/CkptCost.h"
#include "ckpt/Dialect/Ckpt/IR/CkptTraits.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ckpt;

std::string mlir::ckpt::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleave(shape, os, "x");
  return result;
}

std::optional<SmallVector<int64_t>>
mlir::ckpt::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align trailing dimensions; missing leading dimensions act as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[i] = da == 1 ? db : da;
  }
  return result;
}

bool mlir::ckpt::isBroadcastableTo(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i])
      return false;
  return true;
}

LogicalResult mlir::ckpt::verifySameElementType(Operation *op, Value reference,
                                                ValueRange values) {
  Type expected = getElementTypeOrSelf(reference.getType());
  for (Value value : values) {
    Type actual = getElementTypeOrSelf(value.getType());
    if (actual != expected)
      return op->emitOpError() << "requires matching element types, but got "
                               << expected << " and " << actual;
  }
  return success();
}

LogicalResult mlir::ckpt::verifyShape(Operation *op, Value value,
                                      ArrayRef<int64_t> shape, StringRef what) {
  if (shapeOf(value) == shape)
    return success();
  return op->emitOpError() << "expects " << what << " of shape "
                           << formatShape(shape) << ", got "
                           << formatShape(shapeOf(value));
}

LogicalResult mlir::ckpt::verifyBroadcastBinaryOp(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value result = op->getResult(0);
  if (failed(verifySameElementType(op, result, {lhs, rhs})))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapeOf(lhs), shapeOf(rhs));
  if (!shape)
    return op->emitOpError()
           << "operand shapes " << formatShape(shapeOf(lhs)) << " and "
           << formatShape(shapeOf(rhs)) << " are not broadcast-compatible";
  return verifyShape(op, result, *shape, "a result (the broadcast shape)");
}

LogicalResult mlir::ckpt::verifyBroadcastResult(Operation *op,
                                                ValueRange operands,
                                                Value result) {
  SmallVector<int64_t> shape;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    std::optional<SmallVector<int64_t>> next =
        broadcastShapes(shape, shapeOf(operand));
    if (!next) {
      std::string shapes;
      llvm::raw_string_ostream os(shapes);
      llvm::interleave(
          operands.take_front(i + 1), os,
          [&](Value v) { os << formatShape(shapeOf(v)); }, ", ");
      return op->emitOpError()
             << "operand shapes " << shapes << " are not broadcast-compatible";
    }
    shape = std::move(*next);
  }
  return verifyShape(op, result, shape, "a result (the broadcast shape)");
}

LogicalResult mlir::ckpt::verifyTriangleOp(Operation *op) {
  int64_t rank = shapeOf(op->getOperand(0)).size();
  if (rank >= 2)
    return success();
  return op->emitOpError() << "expects an input of rank 2 or more, got rank "
                           << rank;
}

LogicalResult mlir::ckpt::verifyConstantOfType(Operation *op, double value,
                                               Type elementType, StringRef what,
                                               bool allowNaN) {
  if (std::isnan(value) && !(allowNaN && isa<FloatType>(elementType)))
    return op->emitOpError() << "expects a non-NaN " << what;
  if (isa<FloatType>(elementType))
    return success();
  unsigned width = elementType.getIntOrFloatBitWidth();
  // i1 holds 0 and 1; iN (N > 1) -2^(N-1) <= value < 2^(N-1). Both bounds
  // are exact doubles.
  double low = width == 1 ? 0.0 : -std::ldexp(1.0, static_cast<int>(width) - 1);
  double high = width == 1 ? 2.0 : std::ldexp(1.0, static_cast<int>(width) - 1);
  if (std::isfinite(value) && value == std::trunc(value) && value >= low &&
      value < high)
    return success();
  std::string shown;
  llvm::raw_string_ostream(shown) << llvm::format("%.17g", value);
  return op->emitOpError() << "expects an integral " << what
                           << " in the range of " << elementType << ", got "
                           << shown;
}

LogicalResult mlir::ckpt::verifyAxis(Operation *op, Type type, int64_t axis) {
  int64_t rank = cast<ShapedType>(type).getRank();
  if (axis < rank)
    return success();
  return op->emitOpError() << "axis " << axis << " is out of range for rank "
                           << rank;
}

LogicalResult mlir::ckpt::verifyReduction(Operation *op, ArrayRef<int64_t> axes,
                                          bool keepDims) {
  ArrayRef<int64_t> input = shapeOf(op->getOperand(0));
  if (axes.empty())
    return op->emitOpError() << "requires at least one reduction axis";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= int64_t(input.size()))
      return op->emitOpError() << "axis " << axes[i]
                               << " is out of range for rank " << input.size();
    if (i > 0 && axes[i] <= axes[i - 1])
      return op->emitOpError() << "requires strictly increasing axes, got "
                               << axes[i - 1] << " before " << axes[i];
  }
  if (failed(verifySameElementType(op, op->getOperand(0), op->getResults())))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t dim = 0; dim < int64_t(input.size()); ++dim) {
    if (!llvm::is_contained(axes, dim))
      expected.push_back(input[dim]);
    else if (keepDims)
      expected.push_back(1);
  }
  return verifyShape(op, op->getResult(0), expected, "a result");
}

LogicalResult mlir::ckpt::detail::verifyBoundedTensors(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return success(); // Type constraints report these.
    int64_t bytes = getTensorBytes(tensor);
    if (bytes <= kMaxTensorBytes)
      return success();
    return op->emitOpError() << kind << " #" << index << " of type " << type
                             << " is larger than the supported maximum of "
                             << kMaxTensorBytes << " bytes";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

int64_t mlir::ckpt::getWindowOutputSize(int64_t size, int64_t kernel,
                                        int64_t stride, int64_t pad,
                                        int64_t dilation) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = size + 2 * pad;
  if (padded < span || stride < 1)
    return 0;
  return (padded - span) / stride + 1;
}
