//===- CkptCost.h - Exact costs of ckpt operations ---------------*- C++
//-*-===//
//
// The cost record every ckpt op reports through CostOpInterface, and the
// size helpers the cost formulas share.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTCOST_H
#define CKPT_DIALECT_CKPT_IR_CKPTCOST_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

#include <cstdint>

namespace mlir::ckpt {

/// Exact cost of executing one operation once. All counts saturate at
/// INT64_MAX instead of overflowing.
struct OpCost {
  /// Floating-point operations; a multiply-add counts as 2.
  int64_t flops = 0;
  /// Bytes read from operands.
  int64_t bytesRead = 0;
  /// Bytes written to results.
  int64_t bytesWritten = 0;
  /// Extra scratch bytes the op needs only while it runs.
  int64_t workspaceBytes = 0;

  bool operator==(const OpCost &other) const {
    return flops == other.flops && bytesRead == other.bytesRead &&
           bytesWritten == other.bytesWritten &&
           workspaceBytes == other.workspaceBytes;
  }
};

/// Returns `a * b`, saturating at INT64_MAX. Both operands must be >= 0.
int64_t mulSat(int64_t a, int64_t b);
/// Returns `a + b`, saturating at INT64_MAX. Both operands must be >= 0.
int64_t addSat(int64_t a, int64_t b);

/// Returns the storage size of one element of `elementType` in bytes; `i1`
/// occupies one byte, as PyTorch's boolean masks do.
int64_t getElementBytes(Type elementType);

/// Returns the number of elements of a statically shaped tensor type.
int64_t getNumElements(Type tensorType);

/// Returns the storage size of a statically shaped tensor type in bytes.
int64_t getTensorBytes(Type tensorType);

/// Returns the summed byte sizes of `values`' tensor types.
int64_t getTotalBytes(ValueRange values);

/// Cost of an elementwise op: `flopsPerElement` per element of result 0,
/// reading every operand and writing every result once.
OpCost getElementwiseCost(Operation *op, int64_t flopsPerElement);

/// Cost of an op that only moves data: 0 FLOPs, reading every operand and
/// writing every result once.
OpCost getDataMovementCost(Operation *op);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTCOST_H
