//===- CkptInterfaces.h - Cost interface of ckpt ops -------------*- C++
//-*-===//
//
// Declares CostOpInterface, implemented by every ckpt operation.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H
#define CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H

#include "ckpt/Dialect/Ckpt/IR/CkptCost.h"
#include "mlir/IR/OpDefinition.h"

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h.inc"

namespace mlir::ckpt {

/// Returns the value whose storage `value` uses: `value` itself, or, through
/// any chain of view ops (`CostOpInterface::isView`), the root they alias.
Value getStorageRoot(Value value);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H
