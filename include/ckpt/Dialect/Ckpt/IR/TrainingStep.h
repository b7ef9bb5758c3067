//===- TrainingStep.h - Structure of a training-step function ----*- C++
//-*-===//
//
// Accessors for the training-step representation: a `func.func` marked
// `ckpt.step` whose arguments and results carry `#ckpt.role`s and whose ops
// carry phases. See docs/dialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_TRAININGSTEP_H
#define CKPT_DIALECT_CKPT_IR_TRAININGSTEP_H

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mlir::ckpt {

/// Returns true if `func` is marked as a training step.
bool isTrainingStep(func::FuncOp func);

/// Returns the phase of a ckpt op, or std::nullopt for any other op.
std::optional<Phase> getOpPhase(Operation *op);

/// Returns the role of argument `index` of `func`, if it has one.
std::optional<ValueRole> getArgumentRole(func::FuncOp func, unsigned index);

/// Returns the role of result `index` of `func`, if it has one.
std::optional<ValueRole> getResultRole(func::FuncOp func, unsigned index);

/// Returns the argument index a gradient result belongs to, if it has one.
std::optional<int64_t> getGradientOf(func::FuncOp func, unsigned resultIndex);

/// Verifies the structure of a training step: one block of ckpt ops; a role
/// on every argument and result; exactly one loss; every gradient naming a
/// distinct parameter of its type; and phase order in the data flow (forward
/// ops use neither backward/optimizer values nor gradient seeds, backward
/// ops use no optimizer values). Emits a located error on violation.
LogicalResult verifyTrainingStep(func::FuncOp func);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_TRAININGSTEP_H
