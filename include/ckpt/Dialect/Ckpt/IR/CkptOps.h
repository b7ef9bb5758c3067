//===- CkptOps.h - Operations of the ckpt dialect ----------------*- C++
//-*-===//
//
// Declares the ckpt operations.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTOPS_H
#define CKPT_DIALECT_CKPT_IR_CKPTOPS_H

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"
#include "ckpt/Dialect/Ckpt/IR/CkptTraits.h"
#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h.inc"

namespace mlir::ckpt {

/// Fails with an error at the first `ckpt.offload`, `ckpt.offload_wait` or
/// `ckpt.prefetch` of `func` if it has one, saying that `stage` (a pass or
/// output) does not take host offload yet, and `reason`.
LogicalResult rejectHostCopies(Operation *func, llvm::StringRef stage,
                               llvm::StringRef reason);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTOPS_H
