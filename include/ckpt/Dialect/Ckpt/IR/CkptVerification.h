//===- CkptVerification.h - Shared verifier logic ----------------*- C++
//-*-===//
//
// Free functions that check shapes, element types and attributes for the
// verifiers of several ops. Each emits an op error and returns failure on a
// violation.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTVERIFICATION_H
#define CKPT_DIALECT_CKPT_IR_CKPTVERIFICATION_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ckpt {

/// The static shape of a shaped (tensor) value.
inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// Returns the numpy broadcast of shapes `a` and `b`, or std::nullopt if they
/// are incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b);

/// Returns true if `from` broadcasts numpy-style to exactly `to`.
bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

/// Verifies a binary elementwise op: same element type on both operands and
/// the result, and a result shape equal to the operands' broadcast shape.
LogicalResult verifyBroadcastBinaryOp(Operation *op);

/// Verifies that the shapes of `operands` broadcast numpy-style together and
/// that `result` has exactly their broadcast shape (element types are left
/// to the caller).
LogicalResult verifyBroadcastResult(Operation *op, ValueRange operands,
                                    Value result);

/// Verifies a `tril` / `triu`: operand 0 has rank 2 or more.
LogicalResult verifyTriangleOp(Operation *op);

/// Verifies that the constant `value` (the attribute `what`) converts to
/// `elementType` as `ckpt.fill` converts it: a float type takes any non-NaN
/// value unless `allowNaN`; an integer type an integral value in its range
/// (i1: 0 or 1).
LogicalResult verifyConstantOfType(Operation *op, double value,
                                   Type elementType, StringRef what,
                                   bool allowNaN = false);

/// Verifies that `axis` indexes a dimension of `type` (a ranked tensor).
LogicalResult verifyAxis(Operation *op, Type type, int64_t axis);

/// Verifies a reduction of operand 0 over `axes` into result 0.
LogicalResult verifyReduction(Operation *op, ArrayRef<int64_t> axes,
                              bool keepDims);

/// Verifies that all `values` share the element type of `reference`.
LogicalResult verifySameElementType(Operation *op, Value reference,
                                    ValueRange values);

/// Verifies that `value` has exactly `shape`, naming it `what` in the error.
LogicalResult verifyShape(Operation *op, Value value, ArrayRef<int64_t> shape,
                          StringRef what);

/// Returns the output extent of a convolution or pooling window along one
/// dimension: `(size + 2*pad - dilation*(kernel-1) - 1) / stride + 1`, or a
/// value <= 0 when the padded input is smaller than the window.
int64_t getWindowOutputSize(int64_t size, int64_t kernel, int64_t stride,
                            int64_t pad, int64_t dilation);

/// Formats a shape as `4x8` (or `scalar` for rank 0) for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTVERIFICATION_H
